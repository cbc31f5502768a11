#include "sim/trace/run_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"

namespace pto::sim {
namespace {

// "c12" -> 12; anything else (e.g. "switch") -> nullopt.
std::optional<int> ChipOf(absl::string_view token) {
  int chip = 0;
  if (token.size() < 2 || token[0] != 'c' ||
      !std::all_of(token.begin() + 1, token.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(token.substr(1), &chip)) {
    return std::nullopt;
  }
  return chip;
}

std::vector<BusyResource> Busiest(const google::protobuf::RepeatedPtrField<ResourceStat>& rs,
                                  int top) {
  std::vector<BusyResource> out;
  for (const ResourceStat& r : rs) {
    // An idle resource is no news.
    if (r.bytes() > 0 || r.busy_ps() > 0) out.push_back({r.name(), r.utilization(), r.bytes()});
  }
  // Ties keep the report's order, so the table is deterministic.
  std::stable_sort(out.begin(), out.end(), [](const BusyResource& a, const BusyResource& b) {
    return a.utilization > b.utilization;
  });
  if (static_cast<int>(out.size()) > top) out.resize(top);
  return out;
}

std::string Us(int64_t ps) { return absl::StrFormat("%.2f", ps * 1e-6); }

std::string Size(int64_t bytes) {
  if (bytes < 10 * 1024) return absl::StrCat(bytes, " B");
  if (bytes < 10 * 1024 * 1024) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrFormat("%.1f MiB", bytes / (1024.0 * 1024.0));
}

}  // namespace

std::optional<int> LinkSender(const std::string& link_name) {
  const size_t arrow = link_name.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  absl::string_view left = absl::string_view(link_name).substr(0, arrow);
  if (const size_t space = left.rfind(' '); space != absl::string_view::npos) {
    left = left.substr(space + 1);
  }
  return ChipOf(left);
}

std::optional<int> LinkReceiver(const std::string& link_name) {
  const size_t arrow = link_name.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  return ChipOf(absl::string_view(link_name).substr(arrow + 2));
}

RunSummary Summarize(const RunReport& report, const SummaryOptions& options) {
  RunSummary s;
  s.sim_time_ps = report.sim_time_ps();
  std::map<int, RankSummary> ranks;
  for (int c = 0; c < report.chips(); ++c) ranks[c].rank = c;
  std::map<int, std::set<int>> runs;
  for (const TaskStat& t : report.tasks()) {
    RankSummary& r = ranks[t.chip()];
    r.rank = t.chip();
    ++r.tasks;
    r.kernel_ps += t.end_ps() - t.start_ps();
    runs[t.chip()].insert(t.run());
  }
  for (const auto& [chip, rs] : runs) ranks[chip].dispatches = static_cast<int>(rs.size());
  for (const CoreStat& c : report.cores()) {
    RankSummary& r = ranks[c.chip()];
    r.wait_ps += c.wait_ps();
    r.cube_ps += c.cube_busy_ps();
    r.vector_ps += c.vector_busy_ps();
  }
  for (const ResourceStat& l : report.links()) {
    if (std::optional<int> from = LinkSender(l.name())) ranks[*from].sent_bytes += l.bytes();
    if (std::optional<int> to = LinkReceiver(l.name())) ranks[*to].received_bytes += l.bytes();
  }
  for (auto& [chip, r] : ranks) s.ranks.push_back(r);
  s.links = Busiest(report.links(), options.top);
  s.gms = Busiest(report.gms(), options.top);

  // The critical path, walked back from the last task to end.
  const TaskStat* cur = nullptr;
  for (const TaskStat& t : report.tasks()) {
    if (cur == nullptr || t.end_ps() > cur->end_ps()) cur = &t;
  }
  std::map<std::string, PathKernel> on_path;
  if (cur != nullptr) s.critical_path_ps = cur->end_ps();
  std::set<const TaskStat*> visited;
  while (cur != nullptr && visited.insert(cur).second) {
    PathKernel& k = on_path[cur->kernel()];
    k.kernel = cur->kernel();
    k.ps += cur->end_ps() - cur->start_ps();
    ++k.tasks;
    const TaskStat* prev = nullptr;
    for (const TaskStat& t : report.tasks()) {
      if (&t == cur || t.chip() != cur->chip() || t.end_ps() > cur->ready_ps()) continue;
      if (prev == nullptr || t.end_ps() > prev->end_ps()) prev = &t;
    }
    cur = prev;
  }
  for (auto& [name, k] : on_path) s.critical_path.push_back(k);
  std::stable_sort(s.critical_path.begin(), s.critical_path.end(),
                   [](const PathKernel& a, const PathKernel& b) { return a.ps > b.ps; });
  if (static_cast<int>(s.critical_path.size()) > options.top) s.critical_path.resize(options.top);

  if (!options.collective_kernel.empty() && report.chips() > 1) {
    int64_t start = INT64_MAX, end = 0;
    for (const TaskStat& t : report.tasks()) {
      if (t.kernel().find(options.collective_kernel) == std::string::npos) continue;
      start = std::min(start, t.start_ps());
      end = std::max(end, t.end_ps());
    }
    if (end > start) {
      CollectiveSummary c;
      c.kernel = options.collective_kernel;
      c.span_ps = end - start;
      int64_t sent = 0;
      for (const RankSummary& r : s.ranks) sent += r.sent_bytes;
      c.mean_peer_bytes = static_cast<double>(sent) / report.chips();
      c.busbw_bytes_per_s = c.mean_peer_bytes / (c.span_ps * 1e-12);
      c.bound_bytes_per_s = (report.chips() - 1) * options.link_bytes_per_s;
      s.collective = c;
    }
  }
  return s;
}

std::string FormatSummary(const RunSummary& s) {
  std::string out = "rank  tasks  dispatches  kernel us      sent  received   wait us\n";
  for (const RankSummary& r : s.ranks) {
    absl::StrAppend(&out, absl::StrFormat("%4d  %5d  %10d  %9s  %8s  %8s  %8s\n", r.rank, r.tasks,
                                          r.dispatches, Us(r.kernel_ps), Size(r.sent_bytes),
                                          Size(r.received_bytes), Us(r.wait_ps)));
  }
  // Cube against vector time, once a rank ran a cube kernel (a vector-only
  // run prints the table above alone).
  bool cube = false;
  for (const RankSummary& r : s.ranks) cube = cube || r.cube_ps > 0;
  if (cube) {
    out += "rank    cube us  vector us\n";
    for (const RankSummary& r : s.ranks) {
      absl::StrAppend(&out,
                      absl::StrFormat("%4d  %9s  %9s\n", r.rank, Us(r.cube_ps), Us(r.vector_ps)));
    }
  }
  auto busy = [&](const char* what, const std::vector<BusyResource>& rs) {
    if (rs.empty()) return;
    absl::StrAppend(&out, what);
    for (size_t i = 0; i < rs.size(); ++i) {
      absl::StrAppend(&out, i ? ", " : " ",
                      absl::StrFormat("%s %.1f%% (%s)", rs[i].name, 100 * rs[i].utilization,
                                      Size(rs[i].bytes)));
    }
    out += "\n";
  };
  busy("busiest links:", s.links);
  busy("busiest GM ports:", s.gms);
  if (!s.critical_path.empty()) {
    absl::StrAppend(&out, "critical path (to ", Us(s.critical_path_ps), " us):");
    for (size_t i = 0; i < s.critical_path.size(); ++i) {
      const PathKernel& k = s.critical_path[i];
      absl::StrAppend(&out, i ? ", " : " ", k.kernel, " ", Us(k.ps), " us");
      if (k.tasks > 1) absl::StrAppend(&out, " (", k.tasks, " tasks)");
    }
    out += "\n";
  }
  if (s.collective.has_value()) {
    const CollectiveSummary& c = *s.collective;
    absl::StrAppend(
        &out, absl::StrFormat("collective (%s*): %s us, busbw %.2f GB/s of the %.0f GB/s link "
                              "bound (%.1f%%)\n",
                              c.kernel, Us(c.span_ps), c.busbw_bytes_per_s / 1e9,
                              c.bound_bytes_per_s / 1e9,
                              c.bound_bytes_per_s > 0
                                  ? 100 * c.busbw_bytes_per_s / c.bound_bytes_per_s
                                  : 0.0));
  }
  return out;
}

}  // namespace pto::sim
