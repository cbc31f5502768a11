// The fast MoE layer: examples/moe_fast_dispatch_combine.pto on 8 simulated
// 910B chips at the DSV4 decode shape of examples/moe_dispatch_combine.pto
// (128 tokens per rank, top-6, hidden 4096, 16 local experts per rank,
// receive cap 192) and the same routing, with every kernel an SPMD launch over
// the 48 AIV of each die (docs/moe.md): INT8 tokens with one FP32 scale per
// token on the dispatch, FP16 rows on the combine. The run is checked rank by rank
// against a golden computed here in plain C++: the per-expert receive layout
// (count, offset and route ids of every (local expert, source) pair) and the
// combined rows, bit for bit (the same FP16 roundings and FP32 order).
//
//   bazel run //examples:moe_fast_dispatch_combine[_deepep_t128|_deepep_t256] -- [--trace=PATH]
//       [--timing-only] [--race-detection] [--op-timeout-ms=N]
//
// --race-detection runs the simulator's GM race detector (docs/simulator.md):
// every unordered pair of accesses is printed and fails the run.
// --timing-only runs the simulator's timing-only mode (x is not staged, no
// payload moves, the outputs are not checked); --op-timeout-ms replaces the
// platform's simulated op timeout (local experiments only).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <systemc>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "examples/moe_harness.h"
#include "platforms/platform.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "tools/bench/collective_metrics.h"

namespace pto::examples {
namespace {

// The constants of examples/moe_fast_dispatch_combine.pto; a build of
// another shape (DeepEP's: //examples:moe_fast_dispatch_combine_deepep_t128,
// _t256) rewrites them in the program and defines them here.
#ifndef PTO_MOE_T
#define PTO_MOE_T 128
#define PTO_MOE_TOPK 6
#define PTO_MOE_D 4096
#define PTO_MOE_L 16
#define PTO_MOE_R 192
#endif
#ifndef PTO_MOE_RANKS
#define PTO_MOE_RANKS 8
#endif
constexpr int kNr = PTO_MOE_RANKS;  // the program's --world-size
constexpr int kT = PTO_MOE_T;
constexpr int kTopK = PTO_MOE_TOPK;
constexpr int kD = PTO_MOE_D;
constexpr int kL = PTO_MOE_L;
constexpr int kR = PTO_MOE_R;
constexpr int kLw = kT + 16;
constexpr int kRoutes = kT * kTopK;
constexpr int kExperts = kNr * kL;

// The inputs of examples/moe_dispatch_combine_main.cc (the same activations,
// gates and routing: moe_harness.h), plus one scale per expert for the
// element-wise expert and the per-token scale of the INT8 rows (what a
// per-token quantizer would have produced; any value exercises the path).
using moe::Gate;
using moe::X;
float ExpertScale(int global_expert) { return 0.125f * static_cast<float>(global_expert % 7 + 1); }
float TokenScale(int r, int t) { return static_cast<float>(0.003 + 0.0001 * ((r * 13 + t * 7) % 97)); }

// The layer replayed in plain C++.
struct Golden {
  std::vector<int32_t> layout;  // [dst][e * NR + src][kLw]: count, offset, route ids
  std::vector<int> expert_rows;  // [dst][e]
  std::vector<float> out;        // [r][t][d]
  int x_rows[kNr][kNr] = {};     // [src][dst]: token rows after top-k de-duplication
  int routes[kNr][kNr] = {};     // [src][dst]
};

Golden ComputeGolden(const std::vector<int32_t>& idx, bool with_outputs) {
  Golden g;
  g.layout.assign(static_cast<size_t>(kNr) * kL * kNr * kLw, 0);
  g.expert_rows.assign(kNr * kL, 0);
  for (int s = 0; s < kNr; ++s) {
    for (int t = 0; t < kT; ++t) {
      bool sent[kNr] = {};
      for (int k = 0; k < kTopK; ++k) {
        const int d = idx[(s * kT + t) * kTopK + k] / kL;
        ++g.routes[s][d];
        if (!sent[d]) ++g.x_rows[s][d];
        sent[d] = true;
      }
    }
  }
  for (int d = 0; d < kNr; ++d) {
    for (int e = 0; e < kL; ++e) {
      int offset = 0;
      for (int s = 0; s < kNr; ++s) {
        int32_t* row = &g.layout[((static_cast<size_t>(d) * kL + e) * kNr + s) * kLw];
        int n = 0;
        for (int i = 0; i < kRoutes; ++i) {  // (t, k) order
          if (idx[s * kRoutes + i] == d * kL + e) row[2 + n++] = i;
        }
        row[0] = n;
        row[1] = offset;
        offset += n;
      }
      g.expert_rows[d * kL + e] = offset;
    }
  }
  if (!with_outputs) return g;
  // Each destination rank d of token t reduces the token's rows there:
  // part_d = fp16(sum over the k on d, in k order, of gate * fp32(y_k)),
  // y_k = fp16((fp32(x) * token scale) * expert scale); the source sums the
  // parts in FP32 in the order of each rank's first k.
  g.out.assign(static_cast<size_t>(kNr) * kT * kD, 0.0f);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      const int32_t* e = &idx[(r * kT + t) * kTopK];
      for (int d = 0; d < kD; ++d) {
        const float xd = static_cast<float>(X(r, t, d)) * TokenScale(r, t);
        float acc = 0;
        bool done[kTopK] = {};
        for (int k = 0; k < kTopK; ++k) {
          if (done[k]) continue;
          float part = 0;
          for (int j = k; j < kTopK; ++j) {
            if (e[j] / kL != e[k] / kL) continue;
            done[j] = true;
            const _Float16 y = static_cast<_Float16>(xd * ExpertScale(e[j]));
            const float wy = static_cast<float>(y) * Gate(r, t, j);
            part = j == k ? wy : part + wy;
          }
          const float p16 = static_cast<float>(static_cast<_Float16>(part));
          acc = k == 0 ? p16 : acc + p16;
        }
        g.out[(static_cast<size_t>(r) * kT + t) * kD + d] = acc;
      }
    }
  }
  return g;
}

// Empty if rank r matches the golden, else the first mismatch.
std::string CheckRank(int r, const std::vector<int32_t>& layout, const std::vector<float>& out,
                      const Golden& g) {
  for (int q = 0; q < kL * kNr; ++q) {
    const int32_t* got = &layout[static_cast<size_t>(q) * kLw];
    const int32_t* want = &g.layout[(static_cast<size_t>(r) * kL * kNr + q) * kLw];
    for (int j = 0; j < 2 + want[0]; ++j) {
      if (got[j] != want[j]) {
        return absl::StrFormat("recv_layout[expert %d, source %d][%d] = %d, want %d", q / kNr,
                               q % kNr, j, got[j], want[j]);
      }
    }
  }
  const float* want = g.out.data() + static_cast<size_t>(r) * kT * kD;
  return moe::FirstMismatch("out", out, want, kD);
}

// The HOST params of host_orch, in its order.
std::vector<moe::Param> ParamSpec(const std::vector<int32_t>& routing, bool timing_only) {
  std::vector<int8_t> x;
  std::vector<float> gates(kNr * kRoutes);
  std::vector<float> xscales(kNr * kT);
  std::vector<float> scales(kNr * kL);
  if (!timing_only) x.reserve(static_cast<size_t>(kNr) * kT * kD);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      for (int d = 0; d < kD && !timing_only; ++d) x.push_back(X(r, t, d));
      for (int k = 0; k < kTopK; ++k) gates[(r * kT + t) * kTopK + k] = Gate(r, t, k);
      xscales[r * kT + t] = TokenScale(r, t);
    }
    for (int e = 0; e < kL; ++e) scales[r * kL + e] = ExpertScale(r * kL + e);
  }
  return {
      {"indices", "<i4", {kNr, kT, kTopK}, 4, Bytes(routing)},
      {"xs", "|i1", {kNr, kT, kD}, 1, timing_only ? "" : Bytes(x)},
      {"xscales", "<f4", {kNr, 1, kT}, 4, Bytes(xscales)},
      {"gates", "<f4", {kNr, kT, kTopK}, 4, Bytes(gates)},
      {"expert_scales", "<f4", {kNr, kL, 1}, 4, Bytes(scales)},
      {"recv_layouts", "<i4", {kNr, kL * kNr, kLw}, 4, ""},
      {"outs", "<f4", {kNr, kT, kD}, 4, ""},
  };
}

// One line per rank, checked against the golden unless timing-only; the
// failing ranks.
int CheckRanks(sim::SimSystem& sys, const std::vector<std::vector<rt::Tensor>>& params,
               const Golden& golden, bool timing_only) {
  std::printf("rank  routes out  token rows out  rows in  check\n");
  int failures = 0;
  for (int r = 0; r < kNr; ++r) {
    int rows_out = 0;
    int in = 0;
    for (int d = 0; d < kNr; ++d) rows_out += golden.x_rows[r][d];
    for (int e = 0; e < kL; ++e) in += golden.expert_rows[r * kL + e];
    std::string why = "not checked (timing-only)";
    if (!timing_only) {
      auto layout = moe::RankRow<int32_t>(sys, params[5][r], kNr, r, static_cast<size_t>(kL) * kNr * kLw);
      auto out = moe::RankRow<float>(sys, params[6][r], kNr, r, static_cast<size_t>(kT) * kD);
      why = !layout.ok()  ? std::string(layout.status().message())
            : !out.ok()   ? std::string(out.status().message())
                          : CheckRank(r, *layout, *out, golden);
      why = why.empty() ? "OK" : "FAIL: " + why;
      failures += why == "OK" ? 0 : 1;
    }
    std::printf("%4d  %10d  %14d  %7d  %s\n", r, kRoutes, rows_out, in, why.c_str());
  }
  return failures;
}

// The phase lines and the traffic; the phases without a span.
int PrintPhases(const sim::RunReport& report, const sim::SimSystem& sys, const Golden& golden) {
  double x_rows_off = 0, routes_off = 0;
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) {
      if (s == d) continue;
      x_rows_off += golden.x_rows[s][d];
      routes_off += golden.routes[s][d];
    }
  }
  const double pairs = kNr * (kNr - 1);
  // Dispatch: the de-duplicated INT8 token rows, the T token scales, the
  // routing and gates (INT32 and FP32 [T, TOPK]) and one layout row per
  // (peer, local expert); combine: one FP16 row per (token, destination rank).
  const double dispatch_peer = x_rows_off / pairs * kD + kT * 4.0 + kRoutes * 8.0 + kL * kLw * 4.0;
  const double combine_peer = x_rows_off / pairs * kD * 2.0;
  double t_dispatch = 0, t_expert = 0, t_combine = 0;
  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  int failures = 0;
  if (!moe::PrintPhase(report, sys, kNr, "fast_dispatch", "dispatch", dispatch_peer, &t_dispatch) ||
      !moe::PrintPhase(report, sys, kNr, "fast_expert", "local_expert", 0, &t_expert) ||
      !moe::PrintPhase(report, sys, kNr, "fast_combine", "combine", combine_peer, &t_combine)) {
    ++failures;
  }
  std::printf("dispatch + combine %9.2f us; token rows per peer %.1f (routes %.1f: top-k "
              "de-duplication)\n",
              (t_dispatch + t_combine) * 1e6, x_rows_off / pairs, routes_off / pairs);
  return failures;
}

int Main(int argc, char** argv) {
  moe::Flags flags;
  if (!moe::ParseFlags(argc, argv, "moe_fast_dispatch_combine_trace.json",
                       {.record_golden = false, .race_detection = true}, &flags)) {
    return 2;
  }
  const std::vector<int32_t> routing = moe::Routing(kNr, kT, kTopK, kExperts);
  const Golden golden = ComputeGolden(routing, !flags.timing_only);
  if (!moe::WithinCap(golden.expert_rows, kR)) return 1;
  absl::StatusOr<moe::LayerRun> run =
      moe::RunLayer(flags, kNr, ParamSpec(routing, flags.timing_only), generated::RunHost);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", std::string(run.status().message()).c_str());
    return 1;
  }
  const sim::RunReport& report = run->report;
  sim::SimSystem& system = *run->sys;
  const std::vector<std::vector<rt::Tensor>>& staged = run->params;

  const std::string& platform = flags.platform;
  std::printf(
      "fast MoE dispatch + combine (examples/moe_fast_dispatch_combine.pto) on %d simulated %s "
      "chips%s, 48 AIV blocks per kernel: %d tokens x top-%d per rank, hidden %d, %d local "
      "experts per rank, receive cap %d; INT8 tokens with per-token scales, FP16 combine\n\n",
      kNr, platform == "a2a3" ? "910B" : platform.c_str(), flags.timing_only ? " (timing-only)" : "",
      kT, kTopK, kD, kL, kR);
  if (moe::PrintRunFailure(report)) return 1;
  int failures = CheckRanks(system, staged, golden, flags.timing_only);
  failures += PrintPhases(report, system, golden);
  return moe::Finish(report, flags, failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
