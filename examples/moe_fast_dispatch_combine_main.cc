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

// The inputs of examples/moe_dispatch_combine_main.cc (same activations,
// gates and routing), plus one scale per expert for the element-wise expert.
int8_t X(int r, int t, int d) { return static_cast<int8_t>((r * 37 + t * 11 + d * 3) % 255 - 127); }
float Gate(int r, int t, int k) { return static_cast<float>((r + 1) * 0.01 + t * 0.1 + k * 0.001); }
float ExpertScale(int global_expert) { return 0.125f * static_cast<float>(global_expert % 7 + 1); }
// The per-token scale of the INT8 token rows (what a per-token quantizer
// would have produced; any value exercises the path).
float TokenScale(int r, int t) { return static_cast<float>(0.003 + 0.0001 * ((r * 13 + t * 7) % 97)); }

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

// Rank r's row of a HOST param (rank r writes only row r of its copy).
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
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::memcmp(&out[i], &want[i], sizeof(float)) != 0) {
      return absl::StrFormat("out[%d, %d] = %g, want %g", static_cast<int>(i / kD),
                             static_cast<int>(i % kD), out[i], want[i]);
    }
  }
  return "";
}

// One kernel's span and, for a phase that moves data, its traffic against the
// full mesh's bound (a tiered fabric, a3, prints the bandwidth alone); false
// if the kernel has no span.
bool PrintPhase(const sim::RunReport& report, const bench::LinkModel& link, bool full_mesh,
                const char* kernel, const char* label, double mean_peer_bytes, double* seconds) {
  absl::StatusOr<bench::TaskSpan> span = bench::KernelSpan(report, kernel);
  if (!span.ok()) {
    std::printf("%-14s %s\n", label, std::string(span.status().message()).c_str());
    return false;
  }
  *seconds = span->seconds();
  std::printf("%-14s %9.2f us", label, *seconds * 1e6);
  if (mean_peer_bytes > 0) {
    const double busbw = bench::AllToAllBusBandwidth((kNr - 1) * mean_peer_bytes, *seconds);
    std::printf("  %7.0f B per peer (mean)  busbw %6.2f GB/s", mean_peer_bytes, busbw / 1e9);
    if (full_mesh) {
      const double bound = bench::FullMeshBusBound(link, kNr);
      std::printf(" of %3.0f GB/s (%.1f%%)", bound / 1e9, 100 * busbw / bound);
    }
  }
  std::printf("\n");
  return true;
}

int Main(int argc, char** argv) {
  std::string trace_path = DefaultTracePath("moe_fast_dispatch_combine_trace.json");
  bool trace_asked = false;
  std::string platform = "a2a3";
  bool timing_only = false;
  bool race_detection = false;
  double op_timeout_ms = 0;  // 0: the platform's
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--trace=", 0) == 0) {
      trace_path = UserPath(arg.substr(8));
      trace_asked = true;
    } else if (arg.rfind("--platform=", 0) == 0) {
      platform = arg.substr(11);
    } else if (arg == "--timing-only") {
      timing_only = true;
    } else if (arg == "--race-detection") {
      race_detection = true;
    } else if (arg.rfind("--op-timeout-ms=", 0) == 0 &&
               absl::SimpleAtod(arg.substr(16), &op_timeout_ms) && op_timeout_ms > 0) {
    } else {
      std::fprintf(stderr, "usage: %s [--trace=PATH] [--platform=NAME] [--timing-only] "
                   "[--race-detection] [--op-timeout-ms=N]\n",
                   argv[0]);
      return 2;
    }
  }
  const std::vector<int32_t> routing = Routing();
  const Golden golden = ComputeGolden(routing, !timing_only);
  for (int c : golden.expert_rows) {
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
  o.race_detection = race_detection;
  if (op_timeout_ms > 0) {
    o.tweak = [op_timeout_ms](platforms::Platform& p) {
      p.mutable_timeouts()->set_op_timeout_ns(op_timeout_ms * 1e6);
    };
  }
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
  if (!sys.ok()) {
    std::fprintf(stderr, "simulator: %s\n", std::string(sys.status().message()).c_str());
    return 1;
  }
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
  struct Param {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t elem;
    std::string bytes;  // empty: a zeroed output (or timing-only payload)
  };
  const std::vector<Param> spec = {
      {"indices", {kNr, kT, kTopK}, 4, Bytes(routing)},
      {"xs", {kNr, kT, kD}, 1, timing_only ? "" : Bytes(x)},
      {"xscales", {kNr, 1, kT}, 4, Bytes(xscales)},
      {"gates", {kNr, kT, kTopK}, 4, Bytes(gates)},
      {"expert_scales", {kNr, kL, 1}, 4, Bytes(scales)},
      {"recv_layouts", {kNr, kL * kNr, kLw}, 4, ""},
      {"outs", {kNr, kT, kD}, 4, ""},
  };
  std::vector<std::vector<rt::Tensor>> params;
  for (const Param& p : spec) {
    absl::StatusOr<std::vector<rt::Tensor>> t =
        bench::StageParam(**sys, p.dims, p.elem, p.name, [&](int) { return p.bytes; });
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
      "fast MoE dispatch + combine (examples/moe_fast_dispatch_combine.pto) on %d simulated %s "
      "chips%s, 48 AIV blocks per kernel: %d tokens x top-%d per rank, hidden %d, %d local "
      "experts per rank, receive cap %d; INT8 tokens with per-token scales, FP16 combine\n\n",
      kNr, platform == "a2a3" ? "910B" : platform.c_str(), timing_only ? " (timing-only)" : "", kT, kTopK, kD, kL, kR);
  if (report.error_code() != 0) {
    std::printf("run failed at %.2f us: error %d: %s\n", report.sim_time_ps() * 1e-6,
                report.error_code(), report.error_text().c_str());
    for (const std::string& b : report.blocked()) std::printf("  blocked: %s\n", b.c_str());
    return 1;
  }

  std::printf("rank  routes out  token rows out  rows in  check\n");
  int failures = 0;
  for (int r = 0; r < kNr; ++r) {
    int rows_out = 0;
    int in = 0;
    for (int d = 0; d < kNr; ++d) rows_out += golden.x_rows[r][d];
    for (int e = 0; e < kL; ++e) in += golden.expert_rows[r * kL + e];
    std::string why = "not checked (timing-only)";
    if (!timing_only) {
      auto layout = RankRow<int32_t>(**sys, params[5][r], r, static_cast<size_t>(kL) * kNr * kLw);
      auto out = RankRow<float>(**sys, params[6][r], r, static_cast<size_t>(kT) * kD);
      why = !layout.ok()  ? std::string(layout.status().message())
            : !out.ok()   ? std::string(out.status().message())
                          : CheckRank(r, *layout, *out, golden);
      why = why.empty() ? "OK" : "FAIL: " + why;
      failures += why == "OK" ? 0 : 1;
    }
    std::printf("%4d  %10d  %14d  %7d  %s\n", r, kRoutes, rows_out, in, why.c_str());
  }

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
  const bench::LinkModel link = bench::LinkModelOf((*sys)->platform());
  const bool mesh = (*sys)->platform().fabric().kind() == platforms::FabricSpec::FULL_MESH;
  double t_dispatch = 0, t_expert = 0, t_combine = 0;
  std::printf("\nsimulated time %9.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  if (!PrintPhase(report, link, mesh, "fast_dispatch", "dispatch", dispatch_peer, &t_dispatch) ||
      !PrintPhase(report, link, mesh, "fast_expert", "local_expert", 0, &t_expert) ||
      !PrintPhase(report, link, mesh, "fast_combine", "combine", combine_peer, &t_combine)) {
    ++failures;
  }
  if (race_detection) {
    std::printf("GM races: %d\n", report.races_size());
    for (int i = 0; i < std::min(report.races_size(), 5); ++i) {
      std::printf("  %s\n", report.races(i).c_str());
    }
    failures += report.races_size() > 0 ? 1 : 0;
  }
  std::printf("dispatch + combine %9.2f us; token rows per peer %.1f (routes %.1f: top-k "
              "de-duplication)\n",
              (t_dispatch + t_combine) * 1e6, x_rows_off / pairs, routes_off / pairs);
  if (o.trace && !WriteTrace(report, trace_path)) return 1;
  if (timing_only) {
    std::printf("%s\n", failures == 0 ? "result: timing-only run complete (outputs not checked)"
                                      : absl::StrCat("result: ", failures, " failing").c_str());
    return failures == 0 ? 0 : 1;
  }
  return PrintVerdict(failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
