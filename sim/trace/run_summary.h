// The short summary pto-run prints after a run, computed from the RunReport
// (report.proto): per rank its tasks, kernel time, bytes sent and received
// over the fabric and time blocked in waits; the busiest links and GM ports;
// the critical path's top kernels; and the bus bandwidth of a collective.
#ifndef PTO_SIM_TRACE_RUN_SUMMARY_H_
#define PTO_SIM_TRACE_RUN_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace/report.pb.h"

namespace pto::sim {

struct RankSummary {
  int rank = 0;
  int tasks = 0;
  int64_t kernel_ps = 0;  // sum over its tasks of end - start
  int64_t sent_bytes = 0;      // over links leaving the chip
  int64_t received_bytes = 0;  // over links arriving at the chip
  int64_t wait_ps = 0;         // its cores' time blocked in TWAIT
  int64_t cube_ps = 0;         // its AICs' cube (M pipe) busy time
  int64_t vector_ps = 0;       // its AIVs' vector busy time
  int dispatches = 0;          // chip dispatches (L3 -> L2 round trips)
};

struct BusyResource {
  std::string name;
  double utilization = 0;
  int64_t bytes = 0;
};

struct PathKernel {
  std::string kernel;
  int64_t ps = 0;   // time of this kernel's tasks on the path
  int tasks = 0;
};

// The bus bandwidth of the run's collective: NCCL's all-to-all busbw, the
// mean bytes a rank sends to its peers over the collective's span (the first
// start to the last end of its tasks), against the β-only full-mesh bound of
// (ranks - 1) links per rank.
struct CollectiveSummary {
  std::string kernel;  // the kernel-name substring that selected the tasks
  int64_t span_ps = 0;
  double mean_peer_bytes = 0;
  double busbw_bytes_per_s = 0;
  double bound_bytes_per_s = 0;
};

struct RunSummary {
  int64_t sim_time_ps = 0;
  std::vector<RankSummary> ranks;
  std::vector<BusyResource> links;  // busiest first, at most `top`
  std::vector<BusyResource> gms;    // busiest first, at most `top`
  int64_t critical_path_ps = 0;
  std::vector<PathKernel> critical_path;  // longest first, at most `top`
  std::optional<CollectiveSummary> collective;
};

struct SummaryOptions {
  int top = 3;
  // Tasks whose kernel name contains this are the collective; empty: none.
  std::string collective_kernel = "__builtin_";
  double link_bytes_per_s = 0;  // one link, one direction (the platform's)
};

// The critical path is the chain found by walking back from the task that
// ends last: each step goes to the task of the same chip that ended last at
// or before the current task became ready (its latest same-chip
// predecessor); cross-chip waits show up as time inside a task.
RunSummary Summarize(const RunReport& report, const SummaryOptions& options);

// The table pto-run prints (ends with a newline).
std::string FormatSummary(const RunSummary& summary);

// The chip a link endpoint names ("link c0->c1": sender 0, receiver 1;
// "port c2->switch": sender 2); nullopt for the switch side.
std::optional<int> LinkSender(const std::string& link_name);
std::optional<int> LinkReceiver(const std::string& link_name);

}  // namespace pto::sim

#endif  // PTO_SIM_TRACE_RUN_SUMMARY_H_
