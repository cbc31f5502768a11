// The fast MoE layer's normal (prefill) mode: examples/moe_fast_normal.pto on
// EP simulated chips (docs/moe.md, "Normal mode"), every kernel an SPMD launch
// over the 48 AIV of each die: INT8 tokens with one FP32 scale per token on the
// dispatch, BF16 rows on the combine. The run is checked rank by rank against
// a golden computed here in plain C++ (the combined rows, bit for bit: the
// same FP16 and BF16 roundings and FP32 order), and the phase lines give DeepEP's
// bandwidth beside the bus bandwidth.
//
//   bazel run //examples:moe_fast_normal[_t4096_epN] -- [--platform=a3] [--timing-only]
//       [--trace=PATH] [--race-detection] [--op-timeout-ms=N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "examples/moe_harness.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "tools/bench/collective_metrics.h"

namespace pto::examples {
namespace {

// The constants of examples/moe_fast_normal.pto; the prefill builds
// (//examples:moe_fast_normal_t4096_epN) rewrite them in the program and
// define them here.
#ifndef PTO_MOE_T
#define PTO_MOE_T 96
#define PTO_MOE_TOPK 8
#define PTO_MOE_D 512
#define PTO_MOE_L 32
#endif
#ifndef PTO_MOE_RANKS
#define PTO_MOE_RANKS 8
#endif
constexpr int kNr = PTO_MOE_RANKS;  // the program's --world-size
constexpr int kT = PTO_MOE_T;
constexpr int kTopK = PTO_MOE_TOPK;
constexpr int kD = PTO_MOE_D;
constexpr int kL = PTO_MOE_L;
constexpr int kRoutes = kT * kTopK;
constexpr int kExperts = kNr * kL;
constexpr int kRcap = kT * kTopK * 5 / 4;  // the program's RCAP: entries a rank receives

// The inputs of the low-latency kernel's main (moe_harness.h's activations,
// gates and routing; the same expert and token scales).
using moe::Gate;
using moe::X;
float ExpertScale(int global_expert) { return 0.125f * static_cast<float>(global_expert % 7 + 1); }
float TokenScale(int r, int t) { return static_cast<float>(0.003 + 0.0001 * ((r * 13 + t * 7) % 97)); }

// float -> BF16 -> float, rounding to nearest even (the kernels' tcvt).
float RoundBf16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
  std::memcpy(&v, &u, 4);
  return v;
}

struct Golden {
  std::vector<float> out;           // [r][t][d]
  std::vector<int> x_rows, routes;  // [src * NR + dst]: token rows (de-duplicated), routes
};

Golden ComputeGolden(const std::vector<int32_t>& idx, bool with_outputs) {
  Golden g;
  g.x_rows.assign(kNr * kNr, 0);
  g.routes.assign(kNr * kNr, 0);
  for (int s = 0; s < kNr; ++s) {
    for (int t = 0; t < kT; ++t) {
      std::vector<bool> sent(kNr, false);
      for (int k = 0; k < kTopK; ++k) {
        const int d = idx[(s * kT + t) * kTopK + k] / kL;
        ++g.routes[s * kNr + d];
        if (!sent[d]) ++g.x_rows[s * kNr + d];
        sent[d] = true;
      }
    }
  }
  if (!with_outputs) return g;
  // part_d = bf16(sum over the k on rank d, in k order, of gate * fp32(y_k)),
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
          const float pb = RoundBf16(part);
          acc = k == 0 ? pb : acc + pb;
        }
        g.out[(static_cast<size_t>(r) * kT + t) * kD + d] = acc;
      }
    }
  }
  return g;
}

// The HOST params of host_orch, in its order (outs is params[5]).
std::vector<moe::Param> ParamSpec(const std::vector<int32_t>& routing, bool timing_only) {
  std::vector<int8_t> x;
  std::vector<float> gates(static_cast<size_t>(kNr) * kRoutes);
  std::vector<float> xscales(kNr * kT);
  std::vector<float> scales(kNr * kL);
  if (!timing_only) x.reserve(static_cast<size_t>(kNr) * kT * kD);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      for (int d = 0; d < kD && !timing_only; ++d) x.push_back(X(r, t, d));
      for (int k = 0; k < kTopK; ++k) gates[(static_cast<size_t>(r) * kT + t) * kTopK + k] = Gate(r, t, k);
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
      {"outs", "<f4", {kNr, kT, kD}, 4, ""},
  };
}

// One line per rank, checked against the golden unless timing-only; the
// failing ranks.
int CheckRanks(sim::SimSystem& sys, const std::vector<std::vector<rt::Tensor>>& params,
               const Golden& golden, bool timing_only) {
  std::printf("rank  routes out  token rows out  routes in  check\n");
  int failures = 0;
  for (int r = 0; r < kNr; ++r) {
    int rows_out = 0, in = 0;
    for (int d = 0; d < kNr; ++d) {
      rows_out += golden.x_rows[r * kNr + d];
      in += golden.routes[d * kNr + r];
    }
    std::string why = "not checked (timing-only)";
    if (!timing_only) {
      auto out = moe::RankRow<float>(sys, params[5][r], kNr, r, static_cast<size_t>(kT) * kD);
      why = !out.ok() ? std::string(out.status().message())
                      : moe::FirstMismatch("out", *out, golden.out.data() + static_cast<size_t>(r) * kT * kD, kD);
      why = why.empty() ? "OK" : "FAIL: " + why;
      failures += why == "OK" ? 0 : 1;
    }
    std::printf("%4d  %10d  %14d  %9d  %s\n", r, kRoutes, rows_out, in, why.c_str());
  }
  return failures;
}

// The phase lines, the traffic and DeepEP's bandwidth; the phases without a span.
// DeepEP's (sgl-kernel-npu tests/python/deepep/test_intranode.py): the bytes of
// the received rows, one BF16 row per received (token, expert), times
// (1 + 4 / 128) / 2 for the quantized dispatch, over the kernel's time.
int PrintPhases(const sim::RunReport& report, const sim::SimSystem& sys, const Golden& golden) {
  double x_rows_off = 0, routes_in = 0;
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) {
      routes_in += golden.routes[s * kNr + d];
      if (s != d) x_rows_off += golden.x_rows[s * kNr + d];
    }
  }
  routes_in /= kNr;  // per rank (mean)
  const double pairs = static_cast<double>(kNr) * (kNr - 1);
  // Dispatch: the de-duplicated INT8 token rows, the T token scales, the
  // routing and gates (INT32 and FP32 [T, TOPK]) and one layout row per peer;
  // combine: one BF16 row per (token, destination rank).
  const double hw = 16 * (48 / 16 + 1) + 48.0 * 16 * (((kT + 47) / 48) / 16 + 1);
  const double dispatch_peer = x_rows_off / pairs * kD + kT * 4.0 + kRoutes * 8.0 + hw * 4;
  const double combine_peer = x_rows_off / pairs * kD * 2.0;
  double t_dispatch = 0, t_expert = 0, t_combine = 0;
  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  int failures = 0;
  if (!moe::PrintPhase(report, sys, kNr, "normal_dispatch", "dispatch", dispatch_peer, &t_dispatch) ||
      !moe::PrintPhase(report, sys, kNr, "normal_expert", "local_expert", 0, &t_expert) ||
      !moe::PrintPhase(report, sys, kNr, "normal_combine", "combine", combine_peer, &t_combine)) {
    return failures + 1;
  }
  const double bf16_bytes = routes_in * kD * 2.0;
  std::printf("DeepEP bandwidth: dispatch %7.2f GB/s, combine %7.2f GB/s (%.0f routes received "
              "per rank x hidden %d x 2 B, x (1 + 4/128) / 2 for the INT8 dispatch)\n",
              bf16_bytes * (1 + 4.0 / 128) / 2 / t_dispatch / 1e9, bf16_bytes / t_combine / 1e9,
              routes_in, kD);
  std::printf("dispatch + combine %9.2f us; token rows per peer %.1f (routes %.1f: top-k "
              "de-duplication)\n",
              (t_dispatch + t_combine) * 1e6, x_rows_off / pairs, routes_in / kNr);
  return failures;
}

int Main(int argc, char** argv) {
  moe::Flags flags;
  if (!moe::ParseFlags(argc, argv, "moe_fast_normal_trace.json",
                       {.record_golden = false, .race_detection = true}, &flags)) {
    return 2;
  }
  const std::vector<int32_t> routing = moe::Routing(kNr, kT, kTopK, kExperts);
  const Golden golden = ComputeGolden(routing, !flags.timing_only);
  std::vector<int> entries_in(kNr, 0);  // (token, rank) entries per receiving rank
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) entries_in[d] += golden.x_rows[s * kNr + d];
  }
  if (!moe::WithinCap(entries_in, kRcap)) return 1;
  absl::StatusOr<moe::LayerRun> run =
      moe::RunLayer(flags, kNr, ParamSpec(routing, flags.timing_only), generated::RunHost);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", std::string(run.status().message()).c_str());
    return 1;
  }
  std::printf(
      "fast MoE normal mode (examples/moe_fast_normal.pto) on %d simulated %s chips%s, 48 AIV "
      "blocks per kernel: %d tokens x top-%d per rank, hidden %d, %d local experts per rank; "
      "INT8 tokens with per-token scales, BF16 combine\n\n",
      kNr, flags.platform == "a2a3" ? "910B" : flags.platform.c_str(),
      flags.timing_only ? " (timing-only)" : "", kT, kTopK, kD, kL);
  if (moe::PrintRunFailure(run->report)) return 1;
  int failures = CheckRanks(*run->sys, run->params, golden, flags.timing_only);
  failures += PrintPhases(run->report, *run->sys, golden);
  return moe::Finish(run->report, flags, failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
