#include "tools/bench/collective_metrics.h"

#include <algorithm>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pto::bench {

LinkModel LinkModelOf(const platforms::Platform& platform) {
  LinkModel m;
  m.alpha_s = (2 * platform.fabric().hop_latency_ns() + platform.gm().atomic_ns() +
               platform.gm().latency_ns()) *
              1e-9;
  m.link_bytes_per_s = platform.fabric().link_bandwidth_gbps() * 1e9;
  return m;
}

double AllToAllBusBandwidth(double mean_peer_bytes_per_rank, double seconds) {
  return seconds > 0 ? mean_peer_bytes_per_rank / seconds : 0;
}

double FullMeshBusBound(const LinkModel& link, int chips) {
  return (chips - 1) * link.link_bytes_per_s;
}

double FullMeshTimeBound(const LinkModel& link, double max_pair_bytes) {
  return link.alpha_s + max_pair_bytes / link.link_bytes_per_s;
}

std::map<int, int> RoundTripsPerChip(const sim::RunReport& report) {
  std::map<int, std::set<int>> runs;
  for (const sim::TaskStat& t : report.tasks()) runs[t.chip()].insert(t.run());
  std::map<int, int> out;
  for (const auto& [chip, r] : runs) out[chip] = static_cast<int>(r.size());
  return out;
}

absl::StatusOr<TaskSpan> KernelSpan(const sim::RunReport& report,
                                    const std::string& kernel_substr) {
  TaskSpan span{INT64_MAX, 0};
  bool found = false;
  for (const sim::TaskStat& t : report.tasks()) {
    if (t.kernel().find(kernel_substr) == std::string::npos) continue;
    found = true;
    span.start_ps = std::min(span.start_ps, t.start_ps());
    span.end_ps = std::max(span.end_ps, t.end_ps());
  }
  if (!found)
    return absl::NotFoundError(absl::StrCat("no task runs a kernel '", kernel_substr, "'"));
  return span;
}

absl::StatusOr<std::vector<rt::Tensor>> StageParam(
    sim::SimSystem& sys, const std::vector<uint64_t>& dims, uint32_t elem_bytes,
    const std::string& label, const std::function<std::string(int device)>& contents) {
  if (dims.empty() || dims.size() > rt::kMaxTensorDims) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": bad rank ", dims.size()));
  }
  uint64_t bytes = elem_bytes;
  for (uint64_t d : dims) bytes *= d;
  std::vector<rt::Tensor> copies;
  for (int d = 0; d < sys.device_count(); ++d) {
    absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, label);
    if (!t.ok()) return t.status();
    t->elem_bytes = elem_bytes;
    t->ndims = static_cast<uint32_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) t->shape[i] = dims[i];
    const std::string init = contents(d);
    if (init.empty()) {
      copies.push_back(*t);
      continue;
    }
    if (init.size() != bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": ", init.size(), " bytes of contents for ", bytes));
    }
    if (absl::Status st = sys.CopyTo(*t, init.data(), bytes); !st.ok()) return st;
    copies.push_back(*t);
  }
  return copies;
}

}  // namespace pto::bench
