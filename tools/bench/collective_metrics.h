// What the collective benchmarks and the MoE example report about a simulated
// run: L3 -> L2 round trips per card, the span of a collective's tasks, bus
// bandwidth (anchors.md §3.1) and the full-mesh α–β bounds of anchors.md
// §3.3, with α and the link bandwidth taken from the platform.
#ifndef PTO_TESTING_BENCHMARKS_COLLECTIVE_METRICS_H_
#define PTO_TESTING_BENCHMARKS_COLLECTIVE_METRICS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/task_args.h"
#include "sim/system/system.h"
#include "sim/trace/report.pb.h"

namespace pto::bench {

// The α–β model of one chip-to-chip transfer on the platform's fabric.
struct LinkModel {
  // The shortest signalled transfer: the data hop, the notify hop and its
  // atomic, and the GM read that observes the signal (2.5 µs on 910B).
  double alpha_s = 0;
  double link_bytes_per_s = 0;  // one link, one direction
};
LinkModel LinkModelOf(const platforms::Platform& platform);

// NCCL's all-to-all bus bandwidth: algbw * (n-1)/n with algbw = n*m/t, i.e.
// the mean bytes a rank sends to its peers (self excluded) over the time.
double AllToAllBusBandwidth(double mean_peer_bytes_per_rank, double seconds);
// The β-only ceiling of that figure on a full mesh: (n-1) links per rank.
double FullMeshBusBound(const LinkModel& link, int chips);
// Full mesh, direct routing (anchors.md §3.3 bound 2):
// T >= α + max_{i != j} s_ij / b.
double FullMeshTimeBound(const LinkModel& link, double max_pair_bytes);

// Chip dispatches (L3 -> L2 round trips) per chip: distinct TaskStat::run
// values of the chip's tasks.
std::map<int, int> RoundTripsPerChip(const sim::RunReport& report);

// First start and last end over every task whose kernel name contains
// `kernel_substr`, on every chip; NotFound if there is none.
struct TaskSpan {
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  double seconds() const { return (end_ps - start_ps) * 1e-12; }
};
absl::StatusOr<TaskSpan> KernelSpan(const sim::RunReport& report, const std::string& kernel_substr);

// One copy of a HOST orchestrator param on every device (what a generated
// RunHost takes): shape `dims`, element size `elem_bytes`, device d's copy
// initialised with `contents(d)`: the param's bytes, or empty to keep the
// zeroed allocation (large params need no host-side buffer).
absl::StatusOr<std::vector<rt::Tensor>> StageParam(
    sim::SimSystem& sys, const std::vector<uint64_t>& dims, uint32_t elem_bytes,
    const std::string& label, const std::function<std::string(int device)>& contents);

}  // namespace pto::bench

#endif  // PTO_TESTING_BENCHMARKS_COLLECTIVE_METRICS_H_
