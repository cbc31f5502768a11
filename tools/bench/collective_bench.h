// pto-bench-collective's two halves that need no simulator run: the bench
// program of one collective over a range of sizes (HOST rail, today's
// dialect), and the nccl-tests style table of a finished run (size, count,
// type, redop, time, algbw, busbw with NCCL's bus factors, and the fraction
// of the collective's alpha-beta bound on the platform's full mesh).
#ifndef PTO_TOOLS_BENCH_COLLECTIVE_BENCH_H_
#define PTO_TOOLS_BENCH_COLLECTIVE_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/trace/report.pb.h"
#include "tools/bench/collective_metrics.h"

namespace pto::bench {

struct BenchSpec {
  std::string collective;  // allreduce, allreduce_ring, reduce_scatter, broadcast,
                           // allgather, all_to_all, all_to_all_v, barrier
  std::string dtype = "FP32";  // FP32, FP16, INT32, INT8
  std::string op = "sum";      // sum, max, min, prod (reductions only)
  int ranks = 8;
  int lanes = 1;               // core_num (allreduce, all_to_all_v)
  int root = 0;                // broadcast
  // Per-rank buffer sizes in bytes (nccl-tests' "size": the larger of the
  // input and output buffer), each a multiple of ranks * element size.
  std::vector<int64_t> sizes;
};

// The collectives the bench knows, in the order docs/performance.md lists them.
const std::vector<std::string>& BenchCollectives();

// Bytes of one element of `dtype`, or 0 if the bench does not know it.
int DtypeBytes(const std::string& dtype);

// Checks `spec` (known collective, dtype, op; sizes positive multiples of
// ranks * element bytes; 2 <= ranks) and renders its program: the HOST
// orchestrator calls the collective twice per size on one signal (a warm-up
// call, then the measured one), each size a window view of the largest
// buffer. Barrier ignores sizes and runs one call pair.
absl::StatusOr<std::string> RenderBenchProgram(const BenchSpec& spec);

// A collective that moves no data (its def's pattern is the barrier's): its
// bench program runs one call pair and takes no sizes.
bool MovesNoData(const std::string& collective);

// NCCL's bus bandwidth factor of the collective on n ranks (nccl-tests
// doc/PERFORMANCE.md): allreduce 2(n-1)/n, reduce_scatter / allgather /
// all_to_all (v) (n-1)/n, broadcast 1, barrier 0.
double BusFactor(const std::string& collective, int n);

// The alpha-beta lower bound on the time of the collective's algorithm on
// the platform's full mesh (n-1 links per rank), for a per-rank buffer of
// `bytes` (docs/performance.md, "Collective tables").
double TimeBound(const std::string& collective, int n, double bytes, const LinkModel& link);

struct BenchRow {
  int64_t size = 0;
  int64_t count = 0;
  double seconds = 0;     // first start to last end of the measured call
  double algbw = 0;       // bytes / s
  double busbw = 0;
  double bound_s = 0;
  double of_bound = 0;    // bound_s / seconds
};

// The measured rows of a run of RenderBenchProgram(spec): the builtin
// collective tasks (kernels builtin_tensor_*) of each chip in dispatch order, two calls per size, the
// second timed (first start to last end over every chip).
absl::StatusOr<std::vector<BenchRow>> MeasureRows(const BenchSpec& spec,
                                                  const sim::RunReport& report,
                                                  const LinkModel& link);

// The table as nccl-tests prints it, with a header naming the collective,
// rail, ranks, platform and bounds.
std::string FormatTable(const BenchSpec& spec, const std::string& platform,
                        const LinkModel& link, const std::vector<BenchRow>& rows);

}  // namespace pto::bench

#endif  // PTO_TOOLS_BENCH_COLLECTIVE_BENCH_H_
