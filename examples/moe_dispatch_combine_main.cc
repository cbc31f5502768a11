// README command 1, the headline workload: examples/moe_dispatch_combine.pto,
// compiled at build time for PTO_MOE_RANKS ranks (8 unless the build says
// otherwise: //examples:moe_dispatch_combine_ep16 ... _ep128), on 8 simulated
// 910B chips by default at the DSV4 decode shape
// of PyPTO's test_l3_ep_dispatch_combine.py (128 tokens per rank, top-6,
// hidden 4096, 16 local experts per rank, receive cap 192). Every rank
// dispatches its routes to the experts' ranks, every expert scales what
// arrived, and the combine brings every result back to its token and sums
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
constexpr int kRoutes = kT * kTopK;
constexpr int kExperts = kNr * kL;
// Bytes one route moves: x INT8 + weight and index rows (dispatch); the
// FP16 expert output (combine).
constexpr int kDispatchRouteBytes = kD + kWPad * 4 + kIdxPad * 4;  // 4,160
constexpr int kCombineRouteBytes = kD * 2;                         // 8,192

// The inputs, after PyPTO's test: an INT8 activation pattern, gate weights
// (r + 1) * 0.01 + t * 0.1 + k * 0.001, and top-6 routing drawn without
// replacement from the 128 experts (a fixed 64-bit LCG, so every run and
// every machine routes the same; no expert exceeds the receive cap).
int8_t X(int r, int t, int d) { return static_cast<int8_t>((r * 37 + t * 11 + d * 3) % 255 - 127); }
float Weight(int r, int t, int k) {
  return static_cast<float>((r + 1) * 0.01 + t * 0.1 + k * 0.001);
}

std::vector<int32_t> Routing() {
  std::vector<int32_t> idx(kNr * kT * kTopK);
  uint64_t state = 20260510;
  auto next = [&state]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      std::vector<int32_t> perm(kExperts);
      for (int e = 0; e < kExperts; ++e) perm[e] = e;
      for (int k = 0; k < kTopK; ++k) {  // partial Fisher-Yates
        const int j = k + static_cast<int>(next() % (kExperts - k));
        std::swap(perm[k], perm[j]);
        idx[(r * kT + t) * kTopK + k] = perm[k];
      }
    }
  }
  return idx;
}

// The whole layer replayed in plain C++.
struct Golden {
  std::vector<int32_t> send[kNr][kNr];   // [src][dst] -> per local expert
  std::vector<int32_t> count;            // [dst][e]
  std::vector<float> recv_w;             // [dst][e][slot]
  std::vector<int32_t> recv_idx;         // [dst][e][slot]
  std::vector<float> routed_y;           // [r][t][d]
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
  // routed_y[r][t] = sum over k of fp32(fp16(fp32(x[r][t]) * w[r][t][k])),
  // accumulated in k order as the combine kernel does.
  g.routed_y.assign(static_cast<size_t>(kNr) * kT * kD, 0.0f);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kT; ++t) {
      for (int d = 0; d < kD; ++d) {
        float acc = 0;
        for (int k = 0; k < kTopK; ++k) {
          const _Float16 y = static_cast<_Float16>(static_cast<float>(X(r, t, d)) * Weight(r, t, k));
          acc = k == 0 ? static_cast<float>(y) : acc + static_cast<float>(y);
        }
        g.routed_y[(static_cast<size_t>(r) * kT + t) * kD + d] = acc;
      }
    }
  }
  return g;
}

// Reads rank r's row of a HOST param (every device holds the whole logical
// tensor; rank r writes only row r of its copy).
template <typename T>
absl::StatusOr<std::vector<T>> RankRow(sim::SimSystem& sys, const rt::Tensor& copy, int r,
                                       size_t row_elems) {
  std::vector<T> all(kNr * row_elems);
  if (absl::Status st = sys.CopyFrom(all.data(), copy, all.size() * sizeof(T)); !st.ok()) {
    return st;
  }
  return std::vector<T>(all.begin() + r * row_elems, all.begin() + (r + 1) * row_elems);
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
  const float* want = g.routed_y.data() + static_cast<size_t>(r) * kT * kD;
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::memcmp(&y[i], &want[i], sizeof(float)) != 0) {
      return absl::StrFormat("routed_y[%d, %d] = %g, want %g", static_cast<int>(i / kD),
                             static_cast<int>(i % kD), y[i], want[i]);
    }
  }
  return "";
}

// One phase's span and, for a phase that moves data, its traffic.
// The bound is the full mesh's; a tiered fabric (a3) prints the bandwidth
// alone.
void PrintPhase(const sim::RunReport& report, const bench::LinkModel& link, bool full_mesh,
                const char* kernel, const char* label, double mean_peer_bytes, int* failures) {
  absl::StatusOr<bench::TaskSpan> span = bench::KernelSpan(report, kernel);
  if (!span.ok()) {
    std::printf("%-14s %s\n", label, std::string(span.status().message()).c_str());
    ++*failures;
    return;
  }
  const double t = span->seconds();
  if (mean_peer_bytes == 0) {
    std::printf("%-14s %9.2f us\n", label, t * 1e6);
    return;
  }
  // What a rank sends to its n - 1 peers over the phase's span.
  const double busbw = bench::AllToAllBusBandwidth((kNr - 1) * mean_peer_bytes, t);
  std::printf("%-14s %9.2f us  %7.0f B per peer (mean)  busbw %6.2f GB/s", label, t * 1e6,
              mean_peer_bytes, busbw / 1e9);
  if (full_mesh) {
    const double bound = bench::FullMeshBusBound(link, kNr);
    std::printf(" of %3.0f GB/s (%.1f%%)", bound / 1e9, 100 * busbw / bound);
  }
  std::printf("\n");
}

int Main(int argc, char** argv) {
  std::string trace_path = DefaultTracePath("moe_dispatch_combine_trace.json");
  bool trace_asked = false;
  std::string golden_path;
  std::string platform = "a2a3";
  bool timing_only = false;
  double op_timeout_ms = 0;  // 0: the platform's
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--trace=", 0) == 0) {
      trace_path = UserPath(arg.substr(8));
      trace_asked = true;
    } else if (arg.rfind("--record-golden=", 0) == 0) {
      golden_path = UserPath(arg.substr(16));
    } else if (arg.rfind("--platform=", 0) == 0) {
      platform = arg.substr(11);
    } else if (arg == "--timing-only") {
      timing_only = true;
    } else if (arg.rfind("--op-timeout-ms=", 0) == 0 &&
               absl::SimpleAtod(arg.substr(16), &op_timeout_ms) && op_timeout_ms > 0) {
    } else {
      std::fprintf(stderr,
                   "usage: %s [--trace=PATH] [--record-golden=FILE] [--platform=NAME] "
                   "[--timing-only] [--op-timeout-ms=N]\n",
                   argv[0]);
      return 2;
    }
  }
  if (timing_only && !golden_path.empty()) {
    std::fprintf(stderr, "--record-golden needs the outputs, which --timing-only does not define\n");
    return 2;
  }
  const std::vector<int32_t> routing = Routing();
  const Golden golden = ComputeGolden(routing, !timing_only);
  for (int c : golden.count) {
    if (c > kR) {
      std::fprintf(stderr, "routing: an expert receives %d rows, over the cap %d\n", c, kR);
      return 1;
    }
  }

  sim::SimOptions o;
  o.platform = platform;
  o.chips = kNr;
  o.trace = !timing_only || trace_asked;
  o.timing_only = timing_only;
  if (op_timeout_ms > 0) {
    o.tweak = [op_timeout_ms](platforms::Platform& p) {
      p.mutable_timeouts()->set_op_timeout_ns(op_timeout_ms * 1e6);
      p.mutable_timeouts()->set_op_deadline_factor(0);  // fixed: the floor alone
    };
  }
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
  if (!sys.ok()) {
    std::fprintf(stderr, "simulator: %s\n", std::string(sys.status().message()).c_str());
    return 1;
  }
  std::vector<int8_t> x;
  std::vector<float> w_padded(kNr * kRoutes * kWPad, 0.0f);
  std::vector<int32_t> idx_padded(kNr * kRoutes * kIdxPad, 0);
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
  struct Param {
    std::string name, dtype;
    std::vector<uint64_t> dims;
    uint32_t elem;
    std::string bytes;  // empty: a zeroed output
  };
  const std::vector<Param> spec = {
      {"indices", "<i4", {kNr, kT, kTopK}, 4, Bytes(routing)},
      // Timing-only: x is payload (nothing steers control flow by it).
      {"x_norms", "|i1", {kNr, kT, kD}, 1, timing_only ? "" : Bytes(x)},
      {"w_padded", "<f4", {kNr, kRoutes, kWPad}, 4, Bytes(w_padded)},
      {"idx_padded", "<i4", {kNr, kRoutes, kIdxPad}, 4, Bytes(idx_padded)},
      {"recv_w_outs", "<f4", {kNr, kL, kR}, 4, ""},
      {"recv_idx_outs", "<i4", {kNr, kL, kR}, 4, ""},
      {"recv_count_outs", "<i4", {kNr, kL, 1}, 4, ""},
      {"routed_ys", "<f4", {kNr, kT, kD}, 4, ""},
  };
  std::vector<std::vector<rt::Tensor>> params;
  for (const Param& p : spec) {
    absl::StatusOr<std::vector<rt::Tensor>> t = bench::StageParam(
        **sys, p.dims, p.elem, p.name, [&](int) { return p.bytes; });
    if (!t.ok()) {
      std::fprintf(stderr, "staging %s: %s\n", p.name.c_str(),
                   std::string(t.status().message()).c_str());
      return 1;
    }
    params.push_back(*t);
  }
  if (absl::Status st = generated::RunHost(**sys, params); !st.ok()) {
    std::fprintf(stderr, "host orchestration: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  const sim::RunReport report = (*sys)->Run();

  std::printf(
      "MoE dispatch + combine (examples/moe_dispatch_combine.pto) on %d simulated %s chips%s: "
      "%d tokens x top-%d per rank, hidden %d, %d local experts per rank, receive cap %d\n\n",
      kNr, platform == "a2a3" ? "910B" : platform.c_str(), timing_only ? " (timing-only)" : "",
      kT, kTopK, kD, kL, kR);
  if (report.error_code() != 0) {
    std::printf("run failed at %.2f us: error %d: %s\n", report.sim_time_ps() * 1e-6,
                report.error_code(), report.error_text().c_str());
    for (const std::string& b : report.blocked()) std::printf("  blocked: %s\n", b.c_str());
    if (o.trace) {
      std::ofstream(trace_path) << report.trace_json();
      std::printf("trace: %s\n", trace_path.c_str());
    }
    return 1;
  }

  std::printf("rank  routes out  rows in  check\n");
  int failures = 0;
  std::vector<golden::Array> outputs;
  std::vector<std::string> merged(4);  // the ranks' rows, in rank order
  for (int r = 0; r < kNr && timing_only; ++r) {
    int in = 0;
    for (int e = 0; e < kL; ++e) in += golden.count[r * kL + e];
    std::printf("%4d  %10d  %7d  not checked (timing-only)\n", r, kRoutes, in);
  }
  for (int r = 0; r < kNr && !timing_only; ++r) {
    auto w = RankRow<float>(**sys, params[4][r], r, kL * kR);
    auto idx = RankRow<int32_t>(**sys, params[5][r], r, kL * kR);
    auto count = RankRow<int32_t>(**sys, params[6][r], r, kL);
    auto y = RankRow<float>(**sys, params[7][r], r, static_cast<size_t>(kT) * kD);
    std::string why;
    for (const absl::Status& s : {w.status(), idx.status(), count.status(), y.status()}) {
      if (!s.ok() && why.empty()) why = std::string(s.message());
    }
    if (why.empty()) {
      why = CheckRank(r, *count, *w, *idx, *y, golden);
      merged[0] += Bytes(*w);
      merged[1] += Bytes(*idx);
      merged[2] += Bytes(*count);
      merged[3] += Bytes(*y);
    }
    int in = 0;
    for (int e = 0; e < kL; ++e) in += golden.count[r * kL + e];
    std::printf("%4d  %10d  %7d  %s\n", r, kRoutes, in,
                why.empty() ? "OK" : ("FAIL: " + why).c_str());
    failures += why.empty() ? 0 : 1;
  }

  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  double routes_off_rank = 0;
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) routes_off_rank += s == d ? 0 : golden.routes_to[s][d];
  }
  const double mean_peer_routes = routes_off_rank / (kNr * (kNr - 1));
  const bench::LinkModel link = bench::LinkModelOf((*sys)->platform());
  const bool full_mesh =
      (*sys)->platform().fabric().kind() == platforms::FabricSpec::FULL_MESH;
  PrintPhase(report, link, full_mesh, "dispatch_step", "dispatch",
             mean_peer_routes * kDispatchRouteBytes, &failures);
  PrintPhase(report, link, full_mesh, "local_expert_step", "local_expert", 0, &failures);
  PrintPhase(report, link, full_mesh, "combine_step", "combine",
             mean_peer_routes * kCombineRouteBytes, &failures);
  std::printf(
      "per route: dispatch %d B (x INT8 + weight + index rows), combine %d B (FP16 row); "
      "%.1f routes per peer\n",
      kDispatchRouteBytes, kCombineRouteBytes, mean_peer_routes);

  if (o.trace) {
    if (!WriteTrace(report, trace_path)) return 1;
  }
  if (timing_only) {
    std::printf("%s\n", failures == 0 ? "result: timing-only run complete (outputs not checked)"
                                      : absl::StrCat("result: ", failures, " failing").c_str());
    return failures == 0 ? 0 : 1;
  }

  if (!golden_path.empty() && failures == 0) {
    std::vector<golden::Array> inputs;
    for (int i = 0; i < 4; ++i) inputs.push_back({spec[i].name, spec[i].dtype, spec[i].dims, spec[i].bytes});
    for (int i = 0; i < 4; ++i) {
      outputs.push_back({spec[4 + i].name, spec[4 + i].dtype, spec[4 + i].dims, merged[i]});
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
    absl::Status st = g.ok() ? golden::WriteGoldenFile(golden_path, *g) : g.status();
    if (!st.ok()) {
      std::printf("golden: %s\n", std::string(st.message()).c_str());
      return 1;
    }
    std::printf("golden: %s\n", golden_path.c_str());
  }
  return PrintVerdict(failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
