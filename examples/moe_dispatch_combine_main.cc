// README command 1, the headline workload: examples/moe_dispatch_combine.pto,
// compiled at build time for PTO_MOE_RANKS ranks (8 unless the build says
// otherwise: //examples:moe_dispatch_combine_ep16 ... _ep128), on 8 simulated
// 910B chips by default at the DSV4 decode shape
// of PyPTO's test_l3_ep_dispatch_combine.py (128 tokens per rank, top-6,
// hidden 4096, 16 local experts per rank, receive cap 192). Every rank
// dispatches its routes to the experts' ranks, every expert multiplies what
// arrived by its INT8 weights on the cube (a GEMM to 64 columns) and scales
// the result by the gate, and the combine brings every result back to its token and sums
// the top-6. The run is checked rank by rank against a golden computed in
// plain C++ (the protocol replayed on the host, as PyPTO's test does), and the
// summary shows each phase's simulated time and the dispatch and combine
// traffic per peer against the link bound.
//
//   bazel run //examples:moe_dispatch_combine -- [--trace=PATH] [--record-golden=FILE]
//       [--platform=NAME] [--timing-only] [--op-timeout-ms=N]
//
// --platform simulates another platform of //platforms (a3 for EP16 and
// wider); --timing-only runs the simulator's timing-only mode: x is not
// staged, no payload moves, the outputs are not checked (they are not
// defined in that mode), no trace is written unless --trace asks for one.
// --op-timeout-ms=N gives every block a fixed deadline of N ms instead of the
// platform's, which grows with the block's work (docs/simulator.md): no run
// needs it; it shows what a too-short budget does.
//
// --record-golden writes the run's sim golden (tools/golden/README.md):
// the outputs' digests (routed_y alone is 16 MiB) and the kernel timings.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <systemc>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "examples/moe_harness.h"
#include "platforms/platform.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "tools/bench/collective_metrics.h"
#include "tools/golden/golden_file.h"
#include "tools/golden/recorder.h"

namespace pto::examples {
namespace {

#ifndef PTO_MOE_RANKS
#define PTO_MOE_RANKS 8
#endif

// The constants of examples/moe_dispatch_combine.pto; the ranks are the
// --world-size its pto_program was compiled for.
constexpr int kNr = PTO_MOE_RANKS;
constexpr int kT = 128;
constexpr int kTopK = 6;
constexpr int kD = 4096;
constexpr int kL = 16;
constexpr int kR = 192;
constexpr int kWPad = 8;
constexpr int kIdxPad = 8;
constexpr int kN = 64;  // expert output width: INT8 weights [kD, kN] per expert
// The INT32 accumulator's dequantization scale, 2^-12 (exact in FP32).
constexpr float kDequant = 0x1p-12f;
constexpr int kRoutes = kT * kTopK;
constexpr int kExperts = kNr * kL;
// Bytes one route moves: x INT8 + weight and index rows (dispatch); the
// FP16 expert output (combine).
constexpr int kDispatchRouteBytes = kD + kWPad * 4 + kIdxPad * 4;  // 4,160
constexpr int kCombineRouteBytes = kN * 2;                         // 128

// The inputs, after PyPTO's test (moe_harness.h): an INT8 activation
// pattern, gate weights (r + 1) * 0.01 + t * 0.1 + k * 0.001, and top-6
// routing drawn without replacement from the 128 experts (no expert exceeds
// the receive cap).
using moe::X;
float Weight(int r, int t, int k) { return moe::Gate(r, t, k); }
// Expert eid's INT8 weight [d, n], in [-3, 3]: |x . w| <= 4096 * 127 * 3 < 2^24,
// so the INT32 sum is exact in FP32 and the FP16 output stays finite.
int8_t ExpertW(int eid, int d, int n) { return static_cast<int8_t>((eid * 3 + d * 5 + n) % 7 - 3); }

// The whole layer replayed in plain C++.
struct Golden {
  std::vector<int32_t> send[kNr][kNr];   // [src][dst] -> per local expert
  std::vector<int32_t> count;            // [dst][e]
  std::vector<float> recv_w;             // [dst][e][slot]
  std::vector<int32_t> recv_idx;         // [dst][e][slot]
  std::vector<float> routed_y;           // [r][t][n]
  int routes_to[kNr][kNr] = {};          // [src][dst]
};

// routed_y only `with_outputs` (a timing-only run defines no outputs).
Golden ComputeGolden(const std::vector<int32_t>& idx, bool with_outputs) {
  Golden g;
  for (auto& row : g.send) {
    for (auto& v : row) v.assign(kL, 0);
  }
  for (int s = 0; s < kNr; ++s) {
    for (int i = 0; i < kT * kTopK; ++i) {
      const int eid = idx[s * kRoutes + i];
      ++g.send[s][eid / kL][eid % kL];
      ++g.routes_to[s][eid / kL];
    }
  }
  g.count.assign(kNr * kL, 0);
  g.recv_w.assign(kNr * kL * kR, 0.0f);
  g.recv_idx.assign(kNr * kL * kR, 0);
  for (int dst = 0; dst < kNr; ++dst) {
    std::vector<int> running(kL, 0);
    for (int src = 0; src < kNr; ++src) {
      std::vector<int> cursor(running);  // src's first slot per expert
      for (int t = 0; t < kT; ++t) {
        for (int k = 0; k < kTopK; ++k) {
          const int eid = idx[(src * kT + t) * kTopK + k];
          if (eid / kL != dst) continue;
          const int e = eid % kL;
          const int at = (dst * kL + e) * kR + cursor[e]++;
          g.recv_w[at] = Weight(src, t, k);
          g.recv_idx[at] = t * kTopK + k;
        }
      }
      for (int e = 0; e < kL; ++e) running[e] += g.send[src][dst][e];
    }
    for (int e = 0; e < kL; ++e) g.count[dst * kL + e] = running[e];
  }
  if (!with_outputs) return g;
  // routed_y[r][t][n] = sum over k of fp32(fp16(fp32(h) * 2^-12 * w[r][t][k]))
  // with h = sum over d of x[r][t][d] * W[eid][d][n] (INT32, exact), accumulated
  // in k order as the combine kernel does.
  std::vector<int8_t> w_all(static_cast<size_t>(kExperts) * kD * kN);
  for (int eid = 0; eid < kExperts; ++eid) {
    for (int d = 0; d < kD; ++d) {
      for (int n = 0; n < kN; ++n) {
        w_all[(static_cast<size_t>(eid) * kD + d) * kN + n] = ExpertW(eid, d, n);
      }
    }
  }
  g.routed_y.assign(static_cast<size_t>(kNr) * kT * kN, 0.0f);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      float* out = &g.routed_y[(static_cast<size_t>(r) * kT + t) * kN];
      for (int k = 0; k < kTopK; ++k) {
        const int eid = idx[(r * kT + t) * kTopK + k];
        int32_t h[kN] = {};
        for (int d = 0; d < kD; ++d) {
          const int32_t xv = X(r, t, d);
          const int8_t* w = &w_all[(static_cast<size_t>(eid) * kD + d) * kN];
          for (int n = 0; n < kN; ++n) h[n] += xv * w[n];
        }
        for (int n = 0; n < kN; ++n) {
          const float scaled = static_cast<float>(h[n]) * kDequant * Weight(r, t, k);
          const float y = moe::RoundFp16TiesAway(scaled);
          out[n] = k == 0 ? y : out[n] + y;
        }
      }
    }
  }
  return g;
}

// Empty if rank r matches the golden, else the first mismatch.
std::string CheckRank(int r, const std::vector<int32_t>& count, const std::vector<float>& w,
                      const std::vector<int32_t>& idx, const std::vector<float>& y,
                      const Golden& g) {
  for (int e = 0; e < kL; ++e) {
    if (count[e] != g.count[r * kL + e]) {
      return absl::StrFormat("recv_count[%d] = %d, want %d", e, count[e], g.count[r * kL + e]);
    }
    for (int s = 0; s < count[e]; ++s) {
      const int at = e * kR + s;
      const int gat = r * kL * kR + at;
      if (idx[at] != g.recv_idx[gat]) {
        return absl::StrFormat("recv_idx[%d, %d] = %d, want %d", e, s, idx[at], g.recv_idx[gat]);
      }
      if (std::memcmp(&w[at], &g.recv_w[gat], sizeof(float)) != 0) {
        return absl::StrFormat("recv_w[%d, %d] = %g, want %g", e, s, w[at], g.recv_w[gat]);
      }
    }
  }
  const float* want = g.routed_y.data() + static_cast<size_t>(r) * kT * kN;
  return moe::FirstMismatch("routed_y", y, want, kN);
}

// The HOST params of host_orch, in its order: kFirstOut inputs, then the
// four outputs.
constexpr int kFirstOut = 5;
std::vector<moe::Param> ParamSpec(const std::vector<int32_t>& routing, bool timing_only) {
  std::vector<int8_t> x;
  std::vector<float> w_padded(kNr * kRoutes * kWPad, 0.0f);
  std::vector<int32_t> idx_padded(kNr * kRoutes * kIdxPad, 0);
  std::vector<int8_t> w_experts;
  if (!timing_only) w_experts.reserve(static_cast<size_t>(kExperts) * kD * kN);
  for (int eid = 0; eid < kExperts && !timing_only; ++eid) {
    for (int d = 0; d < kD; ++d) {
      for (int n = 0; n < kN; ++n) w_experts.push_back(ExpertW(eid, d, n));
    }
  }
  if (!timing_only) x.reserve(static_cast<size_t>(kNr) * kT * kD);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      for (int d = 0; d < kD && !timing_only; ++d) x.push_back(X(r, t, d));
      for (int k = 0; k < kTopK; ++k) {
        const int route = t * kTopK + k;
        w_padded[(r * kRoutes + route) * kWPad] = Weight(r, t, k);
        idx_padded[(r * kRoutes + route) * kIdxPad] = route;
      }
    }
  }
  return {
      {"indices", "<i4", {kNr, kT, kTopK}, 4, Bytes(routing)},
      // Timing-only: x is payload (nothing steers control flow by it).
      {"x_norms", "|i1", {kNr, kT, kD}, 1, timing_only ? "" : Bytes(x)},
      {"w_padded", "<f4", {kNr, kRoutes, kWPad}, 4, Bytes(w_padded)},
      {"idx_padded", "<i4", {kNr, kRoutes, kIdxPad}, 4, Bytes(idx_padded)},
      // Every expert's weights, whole on every chip (rank r's are rows
      // (r * kL + e) * kD); timing-only: payload.
      {"w_experts", "|i1", {kExperts * kD, kN}, 1, timing_only ? "" : Bytes(w_experts)},
      {"recv_w_outs", "<f4", {kNr, kL, kR}, 4, ""},
      {"recv_idx_outs", "<i4", {kNr, kL, kR}, 4, ""},
      {"recv_count_outs", "<i4", {kNr, kL, 1}, 4, ""},
      {"routed_ys", "<f4", {kNr, kT, kN}, 4, ""},
  };
}

// One line per rank, checked against the golden unless timing-only; the
// outputs' bytes in rank order go to `merged` (for --record-golden). The
// failing ranks.
int CheckRanks(sim::SimSystem& sys, const std::vector<std::vector<rt::Tensor>>& params,
               const Golden& golden, bool timing_only, std::vector<std::string>* merged) {
  std::printf("rank  routes out  rows in  check\n");
  int failures = 0;
  merged->assign(4, "");
  for (int r = 0; r < kNr; ++r) {
    int in = 0;
    for (int e = 0; e < kL; ++e) in += golden.count[r * kL + e];
    if (timing_only) {
      std::printf("%4d  %10d  %7d  not checked (timing-only)\n", r, kRoutes, in);
      continue;
    }
    auto w = moe::RankRow<float>(sys, params[kFirstOut][r], kNr, r, kL * kR);
    auto idx = moe::RankRow<int32_t>(sys, params[kFirstOut + 1][r], kNr, r, kL * kR);
    auto count = moe::RankRow<int32_t>(sys, params[kFirstOut + 2][r], kNr, r, kL);
    auto y = moe::RankRow<float>(sys, params[kFirstOut + 3][r], kNr, r, static_cast<size_t>(kT) * kN);
    std::string why;
    for (const absl::Status& s : {w.status(), idx.status(), count.status(), y.status()}) {
      if (!s.ok() && why.empty()) why = std::string(s.message());
    }
    if (why.empty()) {
      why = CheckRank(r, *count, *w, *idx, *y, golden);
      (*merged)[0] += Bytes(*w);
      (*merged)[1] += Bytes(*idx);
      (*merged)[2] += Bytes(*count);
      (*merged)[3] += Bytes(*y);
    }
    std::printf("%4d  %10d  %7d  %s\n", r, kRoutes, in,
                why.empty() ? "OK" : ("FAIL: " + why).c_str());
    failures += why.empty() ? 0 : 1;
  }
  return failures;
}

// The phase lines and the traffic per route; the phases without a span.
int PrintPhases(const sim::RunReport& report, const sim::SimSystem& sys, const Golden& golden) {
  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  double routes_off_rank = 0;
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) routes_off_rank += s == d ? 0 : golden.routes_to[s][d];
  }
  const double mean_peer_routes = routes_off_rank / (kNr * (kNr - 1));
  int failures = 0;
  double seconds = 0;
  if (!moe::PrintPhase(report, sys, kNr, "dispatch_step", "dispatch",
                       mean_peer_routes * kDispatchRouteBytes, &seconds)) {
    ++failures;
  }
  if (!moe::PrintPhase(report, sys, kNr, "expert_gemm_step", "expert_gemm", 0, &seconds)) {
    ++failures;
  }
  if (!moe::PrintPhase(report, sys, kNr, "local_expert_step", "local_expert", 0, &seconds)) {
    ++failures;
  }
  if (!moe::PrintPhase(report, sys, kNr, "combine_step", "combine",
                       mean_peer_routes * kCombineRouteBytes, &seconds)) {
    ++failures;
  }
  std::printf(
      "per route: dispatch %d B (x INT8 + weight + index rows), combine %d B (FP16 row); "
      "%.1f routes per peer\n",
      kDispatchRouteBytes, kCombineRouteBytes, mean_peer_routes);
  return failures;
}

// The run's sim golden (digests of the outputs, the kernel timings) to
// `path`; false (said) if it cannot be written.
bool RecordGolden(const std::string& path, const std::string& platform,
                  const std::vector<moe::Param>& spec, const std::vector<std::string>& merged,
                  const sim::RunReport& report) {
  std::vector<golden::Array> inputs;
  std::vector<golden::Array> outputs;
  for (int i = 0; i < kFirstOut; ++i) {
    inputs.push_back({spec[i].name, spec[i].dtype, spec[i].dims, spec[i].bytes});
  }
  for (int i = 0; i < 4; ++i) {
    outputs.push_back({spec[kFirstOut + i].name, spec[kFirstOut + i].dtype, spec[kFirstOut + i].dims, merged[i]});
  }
  golden::RunInfo info;
  info.program = "examples/moe_dispatch_combine.pto";
  info.platform = platform;
  info.ranks = kNr;
  info.recorder = "//examples:moe_dispatch_combine";
  info.command = "tools/update_goldens.sh";
  absl::StatusOr<golden::Golden> g = golden::RecordGolden(info, inputs, report, outputs);
  // Digests only: the data is checked against the C++ golden above, and
  // 16 MiB of routed_y do not belong in the repository.
  if (g.ok()) {
    for (golden::Output& out : *g->mutable_outputs()) out.clear_inline_data();
  }
  absl::Status st = g.ok() ? golden::WriteGoldenFile(path, *g) : g.status();
  if (!st.ok()) {
    std::printf("golden: %s\n", std::string(st.message()).c_str());
    return false;
  }
  std::printf("golden: %s\n", path.c_str());
  return true;
}

int Main(int argc, char** argv) {
  moe::Flags flags;
  if (!moe::ParseFlags(argc, argv, "moe_dispatch_combine_trace.json",
                       {.record_golden = true, .race_detection = false}, &flags)) {
    return 2;
  }
  if (flags.timing_only && !flags.golden_path.empty()) {
    std::fprintf(stderr, "--record-golden needs the outputs, which --timing-only does not define\n");
    return 2;
  }
  const std::vector<int32_t> routing = moe::Routing(kNr, kT, kTopK, kExperts);
  const Golden golden = ComputeGolden(routing, !flags.timing_only);
  if (!moe::WithinCap(golden.count, kR)) return 1;
  const std::vector<moe::Param> spec = ParamSpec(routing, flags.timing_only);
  absl::StatusOr<moe::LayerRun> run = moe::RunLayer(flags, kNr, spec, generated::RunHost);
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", std::string(run.status().message()).c_str());
    return 1;
  }
  const sim::RunReport& report = run->report;
  sim::SimSystem& system = *run->sys;
  const std::vector<std::vector<rt::Tensor>>& staged = run->params;

  const std::string& platform = flags.platform;
  const bool trace = !flags.timing_only || flags.trace_asked;
  std::printf(
      "MoE dispatch + combine (examples/moe_dispatch_combine.pto) on %d simulated %s chips%s: "
      "%d tokens x top-%d per rank, hidden %d, %d local experts per rank, receive cap %d\n\n",
      kNr, platform == "a2a3" ? "910B" : platform.c_str(), flags.timing_only ? " (timing-only)" : "",
      kT, kTopK, kD, kL, kR);
  if (moe::PrintRunFailure(report)) {
    if (trace) {
      std::ofstream(flags.trace_path) << report.trace_json();
      std::printf("trace: %s\n", flags.trace_path.c_str());
    }
    return 1;
  }
  std::vector<std::string> merged;
  int failures = CheckRanks(system, staged, golden, flags.timing_only, &merged);
  failures += PrintPhases(report, system, golden);
  if (trace && !WriteTrace(report, flags.trace_path)) return 1;
  if (flags.timing_only) return moe::PrintTimingOnlyVerdict(failures);
  if (!flags.golden_path.empty() && failures == 0 &&
      !RecordGolden(flags.golden_path, platform, spec, merged, report)) {
    return 1;
  }
  return PrintVerdict(failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
