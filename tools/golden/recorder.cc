#include "tools/golden/recorder.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"
#include "platforms/platform.h"
#include "tools/golden/sha256.h"

namespace pto::golden {
namespace {

absl::StatusOr<uint64_t> ItemBytes(const std::string& dtype) {
  if (dtype.size() < 3 || (dtype[0] != '<' && dtype[0] != '|')) {
    return absl::InvalidArgumentError(absl::StrCat("dtype '", dtype, "' is not a NumPy descr"));
  }
  const int n = std::atoi(dtype.c_str() + 2);
  if (n != 1 && n != 2 && n != 4 && n != 8) {
    return absl::InvalidArgumentError(absl::StrCat("dtype '", dtype, "' has no element size"));
  }
  return static_cast<uint64_t>(n);
}

std::string PlatformDigest(const std::string& name, const platforms::Platform* facts) {
  absl::StatusOr<platforms::Platform> p =
      facts != nullptr ? absl::StatusOr<platforms::Platform>(*facts) : platforms::LoadPlatform(name);
  if (!p.ok()) return "";
  std::string text;
  google::protobuf::TextFormat::PrintToString(*p, &text);
  return Sha256Hex(text);
}

}  // namespace

std::string InputsDigest(const std::vector<Array>& inputs) {
  std::vector<const Array*> sorted;
  for (const Array& a : inputs) sorted.push_back(&a);
  std::sort(sorted.begin(), sorted.end(),
            [](const Array* a, const Array* b) { return a->name < b->name; });
  std::string all;
  for (const Array* a : sorted) {
    absl::StrAppend(&all, a->name, "\n", a->dtype, "\n");
    for (uint64_t d : a->shape) absl::StrAppend(&all, d, ",");
    absl::StrAppend(&all, "\n", a->bytes.size(), "\n", a->bytes);
  }
  return Sha256Hex(all);
}

std::vector<KernelTiming> KernelTimings(const sim::RunReport& report) {
  std::map<std::string, KernelTiming> by_kernel;
  for (const sim::TaskStat& t : report.tasks()) {
    KernelTiming& k = by_kernel[t.kernel()];
    k.set_kernel(t.kernel());
    k.set_tasks(k.tasks() + 1);
    const int64_t d = t.end_ps() - t.start_ps();
    k.set_total_ps(k.total_ps() + d);
    k.set_max_ps(std::max(k.max_ps(), d));
  }
  std::vector<KernelTiming> out;
  for (auto& [name, k] : by_kernel) out.push_back(std::move(k));
  return out;
}

absl::StatusOr<Golden> RecordGolden(const RunInfo& info, const std::vector<Array>& inputs,
                                    const sim::RunReport& report,
                                    const std::vector<Array>& outputs) {
  Golden g;
  g.set_program(info.program);
  g.set_platform(info.platform);
  g.set_ranks(info.ranks);
  g.set_backend(info.backend);
  g.set_inputs_sha256(InputsDigest(inputs));
  g.set_error_code(report.error_code());
  g.set_sim_time_ps(report.sim_time_ps());
  for (const Array& a : outputs) {
    absl::StatusOr<uint64_t> item = ItemBytes(a.dtype);
    if (!item.ok()) return absl::InvalidArgumentError(absl::StrCat(a.name, ": ", item.status().message()));
    uint64_t n = 1;
    for (uint64_t d : a.shape) n *= d;
    if (n * *item != a.bytes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("output '", a.name, "' has ", a.bytes.size(),
                                                     " bytes, its dtype and shape say ",
                                                     n * *item));
    }
    Output* o = g.add_outputs();
    o->set_name(a.name);
    o->set_dtype(a.dtype);
    for (uint64_t d : a.shape) o->add_shape(d);
    o->set_inline_data(a.bytes);
    o->set_sha256(Sha256Hex(a.bytes));
  }
  for (KernelTiming& k : KernelTimings(report)) *g.add_kernels() = std::move(k);
  for (const sim::TaskStat& t : report.tasks()) {
    TaskTiming* tt = g.add_tasks();
    tt->set_chip(t.chip());
    tt->set_run(t.run());
    tt->set_task(t.task());
    tt->set_kernel(t.kernel());
    tt->set_blocks(t.blocks());
    tt->set_start_ps(t.start_ps());
    tt->set_end_ps(t.end_ps());
  }
  Provenance* p = g.mutable_provenance();
  p->set_recorder(info.recorder);
  p->set_command(info.command);
  p->set_device(info.device);
  if (info.backend == "sim") p->set_platform_sha256(PlatformDigest(info.platform, info.facts));
  return g;
}

}  // namespace pto::golden
