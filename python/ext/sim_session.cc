#include "python/ext/sim_session.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/passes/target.h"
#include "platforms/platform.h"
#include "common/npy.h"
#include "sim/trace/run_summary.h"
#include "tools/dyn_dims.h"
#include "tools/program_build.h"
#include "tools/pto_run_sim.h"
#include "tools/single_chip.h"

namespace pto::python {
namespace {

namespace fs = std::filesystem;
using tools::run::Param;

// The drivers report to std::cerr; the Python caller wants the text.
class CaptureCerr {
 public:
  CaptureCerr() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CaptureCerr() { std::cerr.rdbuf(old_); }
  std::string text() const { return buffer_.str(); }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

// A directory removed with everything in it when it goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pypto-args-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The entry's parameter names in order: the HOST orchestrator's, or the
// single-chip orchestration `chip_entry`'s (empty if there is no such
// function: HostParams / FunctionParams report that after the pipeline).
std::vector<std::string> EntryParamNames(const ir::ProgramPtr& program,
                                         const std::string& chip_entry) {
  std::vector<std::string> names;
  int hosts = 0;
  for (const auto& [gv, f] : program->functions()) {
    if (chip_entry.empty() ? !f->IsHostOrch() : f->name() != chip_entry) continue;
    ++hosts;
    for (const ir::VarPtr& v : f->params()) names.push_back(v->name_hint());
  }
  if (hosts != 1) names.clear();
  return names;
}

// Writes one zero-filled DIR/<param>.npy per argument, so BindDynDims binds
// the dynamic dimensions from the call's shapes as pto-run binds them from
// its --inputs files.
absl::Status WriteShapeFiles(const std::vector<std::string>& names,
                             const std::vector<ArgShape>& args, const std::string& dir) {
  if (names.size() != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the entry takes ", names.size(),
                                                   " tensors, the call passes ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<std::string> descr = tools::npy::CanonicalDescr(args[i].descr);
    if (!descr.ok()) return descr.status();
    absl::StatusOr<int> item = tools::npy::ItemSize(*descr);
    if (!item.ok()) return item.status();
    absl::StatusOr<int64_t> bytes = tools::npy::NumBytes(args[i].shape, *item);
    if (!bytes.ok()) return bytes.status();
    tools::npy::Array a{*descr, args[i].shape, std::string(static_cast<size_t>(*bytes), '\0')};
    if (absl::Status s = tools::npy::WriteFile((fs::path(dir) / (names[i] + ".npy")).string(), a);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// The lowered program's entry params (the HOST orchestrator's or the
// single-chip entry's) checked against the platform's GM, into `out`.
absl::Status FillCompiled(const CompileRequest& request, const platforms::Platform& platform,
                          const tools::CompiledProgram& compiled, Compiled* out) {
  absl::StatusOr<std::vector<Param>> params =
      out->chip_entry.empty()
          ? tools::run::HostParams(compiled.lowered)
          : tools::run::FunctionParams(compiled.lowered->GetFunction(out->chip_entry));
  if (!params.ok()) return params.status();
  if (absl::Status s = tools::run::CheckFitsGm(*params, out->ranks,
                                               platform.gm().capacity_bytes(), request.platform);
      !s.ok()) {
    return s;
  }
  out->name = compiled.lowered->name();
  out->platform = request.platform;
  out->root = request.root;
  out->program_cc = compiled.bundle.at("program.cc");
  out->bundle = compiled.bundle;
  out->params = *std::move(params);
  out->link_bytes_per_s = platform.fabric().link_bandwidth_gbps() * 1e9;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ChipOrchestrations(const std::string& source_path) {
  absl::StatusOr<ir::ProgramPtr> program = tools::ParseProgramFile(source_path);
  if (!program.ok()) return program.status();
  std::vector<std::string> names;
  if (tools::run::HasHostOrchestrator(*program)) return names;
  for (const auto& [gv, f] : (*program)->functions()) {
    if (f->IsChipOrch()) names.push_back(f->name());
  }
  return names;
}

bool Compile(const CompileRequest& request, Compiled* out, CompileFailure* failure) {
  auto fail = [&](std::string text, bool user) {
    failure->text = std::move(text);
    failure->user_error = user;
    return false;
  };
  absl::StatusOr<passes::Target> target = passes::TargetForPlatform(request.platform);
  if (!target.ok()) return fail(std::string(target.status().message()), true);
  absl::StatusOr<platforms::Platform> platform = platforms::LoadPlatform(request.platform);
  if (!platform.ok()) return fail(std::string(platform.status().message()), true);
  const int max_chips = static_cast<int>(platform->fabric().max_chips());
  if (request.ranks < 1 || request.ranks > max_chips) {
    return fail(absl::StrCat(request.ranks, " devices: platform '", request.platform,
                             "' simulates 1..", max_chips, " chips"),
                true);
  }
  TempDir dir;
  if (request.has_args && dir.path().empty()) return fail("cannot create a temporary directory", false);
  out->ranks = request.ranks;
  out->chip_entry.clear();
  // As pto-run's: a program without a HOST orchestrator runs its single-chip
  // entry (tools/single_chip.h) on one chip; the dynamic dimensions take
  // their values from the rank count and the call's shapes.
  auto bind_dims = [&](const ir::ProgramPtr& parsed) -> absl::StatusOr<ir::ProgramPtr> {
    ir::ProgramPtr p = parsed;
    if (!tools::run::HasHostOrchestrator(p)) {
      absl::StatusOr<ir::ProgramPtr> single =
          tools::run::PrepareSingleChip(p, request.entry, &out->chip_entry);
      if (!single.ok()) return single.status();
      p = *single;
      out->ranks = 1;
    }
    std::string inputs_dir;
    if (request.has_args) {
      if (absl::Status s = WriteShapeFiles(EntryParamNames(p, out->chip_entry), request.args,
                                           dir.path());
          !s.ok()) {
        return s;
      }
      inputs_dir = dir.path();
    }
    absl::StatusOr<tools::run::DimValues> dims =
        tools::run::BindDynDims(p, out->ranks, inputs_dir, out->chip_entry);
    if (!dims.ok()) return dims.status();
    return tools::run::SpecializeDynDims(p, *dims, out->ranks);
  };
  tools::CompiledProgram compiled;
  int rc;
  std::string diagnostics;
  {
    CaptureCerr capture;
    rc = tools::CompileProgram("pypto", request.source_path, *target,
                               request.root + "/runtime/builtins", &compiled, bind_dims);
    diagnostics = capture.text();
  }
  if (rc != 0) return fail(diagnostics, rc == 1);
  if (absl::Status s = FillCompiled(request, *platform, compiled, out); !s.ok()) {
    return fail(std::string(s.message()), true);
  }
  return true;
}

absl::StatusOr<RunResult> Run(const Compiled& c, const RunRequest& request) {
  if (request.inputs.size() != c.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat(c.name, " takes ", c.params.size(),
                                                   " tensors, the call passes ",
                                                   request.inputs.size()));
  }
  std::vector<Param> params = c.params;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StatusOr<int64_t> bytes = tools::npy::NumBytes(params[i].shape, params[i].item);
    if (!bytes.ok()) return bytes.status();
    if (static_cast<int64_t>(request.inputs[i].size()) != *bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", params[i].name, "' has ", request.inputs[i].size(),
                       " bytes; ", c.name, " expects ", *bytes, " (",
                       tools::npy::ShapeString(params[i].shape), " ", params[i].descr, ")"));
    }
    params[i].initial = request.inputs[i];
  }
  tools::BuildOptions build{c.root, request.cxx, "", request.cache_dir, c.chip_entry};
  tools::BuildInfo info;
  absl::StatusOr<tools::EntryFn> entry = tools::BuildAndLoad(c.program_cc, build, &info);
  if (!entry.ok()) return entry.status();
  RunResult result;
  result.cache_hit = info.cache_hit;
  tools::run::SimRunOptions options;
  options.platform = c.platform;
  options.ranks = c.ranks;
  options.trace = request.trace;
  options.timing_only = request.timing_only;
  result.report = tools::run::SimulateProgram(options, *entry, params);
  if (result.report.error_code() == 0 && !request.timing_only) {
    for (const Param& p : params) {
      if (!p.output) continue;
      std::vector<std::string> copies;
      for (int d = 0; d < c.ranks; ++d) {
        auto it = result.report.outputs().find(tools::run::OutputKey(p, d));
        if (it == result.report.outputs().end() || it->second.size() != p.initial.size()) {
          return absl::InternalError(
              absl::StrCat("the run returned no copy of '", p.name, "' from device ", d));
        }
        copies.push_back(it->second);
      }
      absl::StatusOr<std::string> merged = tools::run::Merge(p, copies);
      if (!merged.ok()) return merged.status();
      result.outputs[p.name] = *std::move(merged);
    }
  }
  result.report.clear_outputs();
  if (result.report.error_code() == 0) {
    pto::sim::SummaryOptions so;
    so.collective_kernel = request.collective;
    so.link_bytes_per_s = c.link_bytes_per_s;
    result.summary = pto::sim::FormatSummary(pto::sim::Summarize(result.report, so));
  }
  return result;
}

}  // namespace pto::python
