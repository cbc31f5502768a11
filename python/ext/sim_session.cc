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
#include "runtime/api/host.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/trace/run_summary.h"
#include "tools/dyn_dims.h"
#include "common/npy.h"
#include "tools/program_build.h"

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

// The HOST orchestrator's parameter names in order (empty if it has none or
// there is not exactly one: HostParams reports that after the pipeline).
std::vector<std::string> HostParamNames(const ir::ProgramPtr& program) {
  std::vector<std::string> names;
  int hosts = 0;
  for (const auto& [gv, f] : program->functions()) {
    if (!f->IsHostOrch()) continue;
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
    return absl::InvalidArgumentError(absl::StrCat("the HOST orchestrator takes ", names.size(),
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
  auto bind_dims = [&](const ir::ProgramPtr& p) -> absl::StatusOr<ir::ProgramPtr> {
    std::string inputs_dir;
    if (request.has_args) {
      if (absl::Status s = WriteShapeFiles(HostParamNames(p), request.args, dir.path()); !s.ok()) {
        return s;
      }
      inputs_dir = dir.path();
    }
    absl::StatusOr<tools::run::DimValues> dims =
        tools::run::BindDynDims(p, request.ranks, inputs_dir);
    if (!dims.ok()) return dims.status();
    return tools::run::SpecializeDynDims(p, *dims, request.ranks);
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
  // The multi-chip HOST path. A program without a HOST orchestrator (one chip)
  // is rejected here by HostParams; pto-run's single-chip path, once it has
  // one, plugs in at this point (its params and a Simulate without the HOST
  // entry), and Run below stays as it is.
  absl::StatusOr<std::vector<Param>> params = tools::run::HostParams(compiled.lowered);
  if (!params.ok()) return fail(std::string(params.status().message()), true);
  if (absl::Status s = tools::run::CheckFitsGm(*params, request.ranks,
                                               platform->gm().capacity_bytes(), request.platform);
      !s.ok()) {
    return fail(std::string(s.message()), true);
  }
  out->name = compiled.lowered->name();
  out->platform = request.platform;
  out->ranks = request.ranks;
  out->root = request.root;
  out->program_cc = compiled.bundle.at("program.cc");
  out->bundle = compiled.bundle;
  out->params = *std::move(params);
  out->link_bytes_per_s = platform->fabric().link_bandwidth_gbps() * 1e9;
  return true;
}

namespace {

std::string OutputKey(const Param& p, int device) { return absl::StrCat(p.name, "@", device); }

// The simulation, in a forked child: every param staged on every device, the
// HOST orchestration, the output params copied back (as pto-run does).
pto::sim::RunReport Simulate(const Compiled& c, tools::EntryFn entry,
                             const std::vector<Param>& params, const RunRequest& request) {
  return pto::sim::RunIsolated([&] {
    pto::sim::RunReport r;
    pto::sim::SimOptions o;
    o.platform = c.platform;
    o.chips = c.ranks;
    o.trace = request.trace;
    o.timing_only = request.timing_only;
    absl::StatusOr<std::unique_ptr<pto::sim::SimSystem>> sys = pto::sim::SimSystem::Create(o);
    if (!sys.ok()) {
      r.set_error_code(-2);
      r.set_error_text(std::string(sys.status().message()));
      return r;
    }
    std::vector<std::vector<pto::rt::Tensor>> tensors(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      for (int d = 0; d < c.ranks; ++d) {
        absl::StatusOr<pto::rt::Tensor> t = (*sys)->Alloc(d, p.initial.size(), p.name);
        absl::Status st = t.status();
        if (st.ok()) {
          t->elem_bytes = static_cast<uint32_t>(p.item);
          t->ndims = static_cast<uint32_t>(p.shape.size());
          for (size_t k = 0; k < p.shape.size(); ++k) t->shape[k] = p.shape[k];
          st = (*sys)->CopyTo(*t, p.initial.data(), p.initial.size());
        }
        if (!st.ok()) {
          r.set_error_code(-3);
          r.set_error_text(absl::StrCat("staging '", p.name, "' on device ", d, ": ", st.message()));
          return r;
        }
        tensors[i].push_back(*t);
      }
    }
    absl::Status st;
    entry(sys->get(), &tensors, &st);
    if (!st.ok()) {
      r.set_error_code(-3);
      r.set_error_text(absl::StrCat("HOST orchestration failed: ", st.message()));
      return r;
    }
    r = (*sys)->Run();
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].output || request.timing_only) continue;
      for (int d = 0; d < c.ranks; ++d) {
        std::string bytes(params[i].initial.size(), '\0');
        if ((*sys)->CopyFrom(bytes.data(), tensors[i][d], bytes.size()).ok()) {
          (*r.mutable_outputs())[OutputKey(params[i], d)] = std::move(bytes);
        }
      }
    }
    return r;
  });
}

}  // namespace

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
  tools::BuildOptions build{c.root, request.cxx, "", request.cache_dir};
  tools::BuildInfo info;
  absl::StatusOr<tools::EntryFn> entry = tools::BuildAndLoad(c.program_cc, build, &info);
  if (!entry.ok()) return entry.status();
  RunResult result;
  result.cache_hit = info.cache_hit;
  result.report = Simulate(c, *entry, params, request);
  if (result.report.error_code() == 0 && !request.timing_only) {
    for (const Param& p : params) {
      if (!p.output) continue;
      std::vector<std::string> copies;
      for (int d = 0; d < c.ranks; ++d) {
        auto it = result.report.outputs().find(OutputKey(p, d));
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
