// DeepEP-Ascend's low-latency dispatch and combine as a program of ours
// (examples/moe_deepep_dispatch_combine.pto, docs/moe.md "DeepEP's
// algorithm") on simulated chips, checked rank by rank against a plain C++
// golden: every received row's scale and (rank, token, k, local expert) in the
// receive order (local expert, source, slot), and the combined FP16 rows, bit
// for bit (the same quantization, FP16 roundings and FP32 order).
//
//   bazel run //examples:moe_deepep_dispatch_combine[_a2_t128|...] -- [--platform=a3]
//       [--timing-only] [--trace=PATH] [--race-detection] [--op-timeout-ms=N]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "examples/moe_harness.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"

namespace pto::examples {
namespace {

// The constants of examples/moe_deepep_dispatch_combine.pto; a build of another
// shape rewrites them in the program and defines them here.
#ifndef PTO_MOE_T
#define PTO_MOE_T 128
#define PTO_MOE_TOPK 6
#define PTO_MOE_D 4096
#define PTO_MOE_L 16
#define PTO_MOE_R 192
#define PTO_MOE_C 32
#endif
#ifndef PTO_MOE_RANKS
#define PTO_MOE_RANKS 8
#endif
constexpr int kNr = PTO_MOE_RANKS;
constexpr int kT = PTO_MOE_T;
constexpr int kTopK = PTO_MOE_TOPK;
constexpr int kD = PTO_MOE_D;
constexpr int kL = PTO_MOE_L;
constexpr int kR = PTO_MOE_R;
constexpr int kC = PTO_MOE_C;
constexpr int kB = 48;
constexpr int kInfo = 8;
constexpr int kN = kT * kTopK;
constexpr int kExperts = kNr * kL;
// The program keeps a block's expert counts in one 16-word scratch line.
static_assert((kExperts + kB - 1) / kB + 1 <= 16, "too many experts per block");

// The FP16 activations (the harness's INT8 pattern over 16), gates and expert
// scales.
_Float16 Xh(int r, int t, int d) { return static_cast<_Float16>(static_cast<float>(moe::X(r, t, d)) / 16.0f); }
float ExpertScale(int global_expert) { return 0.125f * static_cast<float>(global_expert % 7 + 1); }

struct Golden {
  std::vector<float> info;  // [dst][row][kInfo], receive order
  std::vector<int> rows;    // [dst]: rows received
  std::vector<_Float16> out;  // [r][t][d]
  int routes[kNr][kNr] = {};  // [src][dst]
  int max_region = 0;         // most routes of one (source, expert) pair
};

// Rank r's token t quantized as the dispatch does: q in [-127, 127] and the
// dequantization scale 1 / (127 / max|x|).
float Quantize(int r, int t, std::vector<float>* q) {
  q->resize(kD);
  float m = 0;
  for (int d = 0; d < kD; ++d) m = std::max(m, std::fabs(static_cast<float>(Xh(r, t, d))));
  const float qs = 127.0f / m;
  for (int d = 0; d < kD; ++d) {
    const float xq = static_cast<float>(Xh(r, t, d)) * qs;
    const _Float16 xr = static_cast<_Float16>(xq + 1536.0f);
    (*q)[d] = static_cast<float>(static_cast<_Float16>(static_cast<float>(xr) - 1536.0f));
  }
  return 1.0f / qs;
}

Golden ComputeGolden(const std::vector<int32_t>& idx, bool with_outputs) {
  Golden g;
  g.info.assign(static_cast<size_t>(kNr) * kL * kR * kInfo, 0.0f);
  g.rows.assign(kNr, 0);
  std::vector<float> dq(kNr * kT);
  std::vector<float> q;
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) dq[r * kT + t] = Quantize(r, t, &q);
  }
  for (int s = 0; s < kNr; ++s) {
    for (int i = 0; i < kN; ++i) ++g.routes[s][idx[s * kN + i] / kL];
  }
  for (int d = 0; d < kNr; ++d) {
    for (int le = 0; le < kL; ++le) {
      for (int s = 0; s < kNr; ++s) {
        int n = 0;
        for (int i = 0; i < kN; ++i) {
          if (idx[s * kN + i] != d * kL + le) continue;
          ++n;
          if (g.rows[d] < kL * kR) {
            float* row = &g.info[(static_cast<size_t>(d) * kL * kR + g.rows[d]) * kInfo];
            row[0] = dq[s * kT + i / kTopK];
            row[1] = static_cast<float>(s);
            row[2] = static_cast<float>(i / kTopK);
            row[3] = static_cast<float>(i % kTopK);
            row[4] = static_cast<float>(le);
          }
          ++g.rows[d];
        }
        g.max_region = std::max(g.max_region, n);
      }
    }
  }
  if (!with_outputs) return g;
  g.out.assign(static_cast<size_t>(kNr) * kT * kD, static_cast<_Float16>(0.0f));
  std::vector<float> acc(kD);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      const float scale = Quantize(r, t, &q);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int k = 0; k < kTopK; ++k) {
        const int e = idx[r * kN + t * kTopK + k];
        for (int d = 0; d < kD; ++d) {
          const _Float16 y = static_cast<_Float16>((q[d] * scale) * ExpertScale(e));
          acc[d] = acc[d] + static_cast<float>(y) * moe::Gate(r, t, k);
        }
      }
      for (int d = 0; d < kD; ++d) {
        g.out[(static_cast<size_t>(r) * kT + t) * kD + d] = static_cast<_Float16>(acc[d]);
      }
    }
  }
  return g;
}

std::string CheckRank(int r, const std::vector<float>& info, const std::vector<uint16_t>& out,
                      const Golden& g) {
  for (int row = 0; row < g.rows[r]; ++row) {
    for (int j = 0; j < 5; ++j) {
      const float got = info[static_cast<size_t>(row) * kInfo + j];
      const float want = g.info[(static_cast<size_t>(r) * kL * kR + row) * kInfo + j];
      if (got != want) {
        return absl::StrFormat("expand_info[%d][%d] = %g, want %g", row, j, got, want);
      }
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t want;
    const _Float16 w = g.out[static_cast<size_t>(r) * kT * kD + i];
    std::memcpy(&want, &w, 2);
    if (out[i] != want) {
      return absl::StrFormat("out[%d, %d] = 0x%04x, want 0x%04x", static_cast<int>(i / kD),
                             static_cast<int>(i % kD), out[i], want);
    }
  }
  return "";
}

std::vector<moe::Param> ParamSpec(const std::vector<int32_t>& routing, bool timing_only) {
  std::vector<_Float16> x;
  std::vector<float> iota(kN), gates(kNr * kN), scales(kNr * kL);
  if (!timing_only) x.reserve(static_cast<size_t>(kNr) * kT * kD);
  for (int i = 0; i < kN; ++i) iota[i] = static_cast<float>(i);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      for (int d = 0; d < kD && !timing_only; ++d) x.push_back(Xh(r, t, d));
      for (int k = 0; k < kTopK; ++k) gates[(r * kT + t) * kTopK + k] = moe::Gate(r, t, k);
    }
    for (int e = 0; e < kL; ++e) scales[r * kL + e] = ExpertScale(r * kL + e);
  }
  return {
      {"ids", "<i4", {kNr, 1, kN}, 4, Bytes(routing)},
      {"iota", "<f4", {1, kN}, 4, Bytes(iota)},
      {"xs", "<f2", {kNr, kT, kD}, 2, timing_only ? "" : Bytes(x)},
      {"gates", "<f4", {kNr, kT, kTopK}, 4, Bytes(gates)},
      {"expert_scales", "<f4", {kNr, kL, 1}, 4, Bytes(scales)},
      {"expand_infos", "<f4", {kNr, kL * kR, kInfo}, 4, ""},
      {"outs", "<f2", {kNr, kT, kD}, 2, ""},
  };
}

int CheckRanks(sim::SimSystem& sys, const std::vector<std::vector<rt::Tensor>>& params,
               const Golden& golden, bool timing_only) {
  std::printf("rank  routes out  rows in  check\n");
  int failures = 0;
  for (int r = 0; r < kNr; ++r) {
    std::string why = "not checked (timing-only)";
    if (!timing_only) {
      auto info = moe::RankRow<float>(sys, params[5][r], kNr, r, static_cast<size_t>(kL) * kR * kInfo);
      auto out = moe::RankRow<uint16_t>(sys, params[6][r], kNr, r, static_cast<size_t>(kT) * kD);
      why = !info.ok()  ? std::string(info.status().message())
            : !out.ok() ? std::string(out.status().message())
                        : CheckRank(r, *info, *out, golden);
      why = why.empty() ? "OK" : "FAIL: " + why;
      failures += why == "OK" ? 0 : 1;
    }
    std::printf("%4d  %10d  %7d  %s\n", r, kN, golden.rows[r], why.c_str());
  }
  return failures;
}

int PrintPhases(const sim::RunReport& report, const sim::SimSystem& sys, const Golden& golden) {
  double routes_off = 0;
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) routes_off += s == d ? 0 : golden.routes[s][d];
  }
  const double per_peer = routes_off / (kNr * (kNr - 1));
  // Dispatch: per route a D-wide FP16 row (the INT8 values; docs/moe.md says
  // why FP16) and its 32-B scale / triple row, plus L status words per peer;
  // combine: one FP16 row per route.
  const double dispatch_peer = per_peer * (kD * 2.0 + kInfo * 4.0) + kL * 4.0;
  const double combine_peer = per_peer * kD * 2.0;
  double t_dispatch = 0, t_expert = 0, t_combine = 0;
  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  int failures = 0;
  if (!moe::PrintPhase(report, sys, kNr, "deepep_dispatch", "dispatch", dispatch_peer, &t_dispatch) ||
      !moe::PrintPhase(report, sys, kNr, "deepep_expert", "local_expert", 0, &t_expert) ||
      !moe::PrintPhase(report, sys, kNr, "deepep_combine", "combine", combine_peer, &t_combine)) {
    ++failures;
  }
  std::printf("dispatch + combine %9.2f us; routes per peer %.1f; INT8-payload busbw: dispatch "
              "%.2f GB/s, combine %.2f GB/s\n",
              (t_dispatch + t_combine) * 1e6, per_peer,
              per_peer * (kD + 4.0) * (kNr - 1) / t_dispatch * 1e-9,
              combine_peer * (kNr - 1) / t_combine * 1e-9);
  return failures;
}

int Main(int argc, char** argv) {
  moe::Flags flags;
  if (!moe::ParseFlags(argc, argv, "moe_deepep_dispatch_combine_trace.json",
                       {.record_golden = false, .race_detection = true}, &flags)) {
    return 2;
  }
  const std::vector<int32_t> routing = moe::Routing(kNr, kT, kTopK, kExperts);
  const Golden golden = ComputeGolden(routing, !flags.timing_only);
  if (golden.max_region > kC) {
    std::fprintf(stderr, "a (source, expert) pair has %d routes, over the window region's %d rows\n",
                 golden.max_region, kC);
    return 1;
  }
  if (!moe::WithinCap(golden.rows, kL * kR)) return 1;
  absl::StatusOr<moe::LayerRun> run =
      moe::RunLayer(flags, kNr, ParamSpec(routing, flags.timing_only), generated::RunHost);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", std::string(run.status().message()).c_str());
    return 1;
  }
  std::printf(
      "DeepEP-Ascend's low-latency algorithm (examples/moe_deepep_dispatch_combine.pto) on %d "
      "simulated %s chips%s, 48 AIV blocks per kernel: %d tokens x top-%d per rank, hidden %d, "
      "%d local experts per rank; per-route INT8 quantization, FP16 combine\n\n",
      kNr, flags.platform == "a2a3" ? "910B" : flags.platform.c_str(),
      flags.timing_only ? " (timing-only)" : "", kT, kTopK, kD, kL);
  const sim::RunReport& report = run->report;
  if (moe::PrintRunFailure(report)) return 1;
  int failures = CheckRanks(*run->sys, run->params, golden, flags.timing_only);
  failures += PrintPhases(report, *run->sys, golden);
  return moe::Finish(report, flags, failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
