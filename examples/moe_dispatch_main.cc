// README command 1: examples/moe_dispatch.pto, compiled at build time, on 8
// simulated 910B chips. Every rank routes its tokens to the experts (ranks),
// all_to_all_v moves them, and each expert transforms what arrived, all in one
// chip pipeline per card (the CHIP rail). The run is checked rank by rank
// against a golden computed in plain C++ with //testing/reference, and the
// summary shows the simulated time, the L3 -> L2 round trips per card and the
// collective's bus bandwidth against the link bound. The Perfetto trace is
// written to --trace=PATH (default $TEST_UNDECLARED_OUTPUTS_DIR or /tmp;
// a relative PATH under `bazel run` is relative to where bazel was run).
//
//   bazel run //examples:moe_dispatch -- [--trace=PATH]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <systemc>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "tools/bench/collective_metrics.h"
#include "testing/reference/collectives.h"

namespace pto::examples {
namespace {

namespace ref = ::pto::reference;

// The constants of examples/moe_dispatch.pto.
constexpr int kNr = 8;
constexpr int kTokens = 128;
constexpr int kHidden = 512;
constexpr int kCap = 24;
constexpr int kSlots = kNr * kCap;
constexpr float kOutputInit = -7.0f;  // rows no token reached keep it

// The logical HOST tensors (row r belongs to rank r). Every value is a small
// binary fraction, so the simulated products equal the golden's bit for bit.
float Token(int r, int t, int h) {
  return static_cast<float>((r * 131 + t * 17 + h * 7) % 97) * 0.125f - 6.0f;
}
float Gate(int r, int t) { return 0.5f + static_cast<float>((r * 7 + t * 3) % 8) * 0.0625f; }
float Weight(int r, int h) { return static_cast<float>((h + r) % 5 - 2) * 0.5f; }
// Skewed routing: every fourth token goes to the next rank's expert (more than
// its capacity, so some are dropped), the rest spread over the others, and
// no token of rank r goes to expert r + 4 (an empty slot).
int32_t Route(int r, int t) {
  int e = t % 4 == 0 ? (r + 1) % kNr : (t * 5 + r * 3 + t / 7) % kNr;
  if (e == (r + 4) % kNr) e = (r + 5) % kNr;
  return e;
}

// The whole layer in plain C++: dispatch, reference::AllToAllV, expert.
struct Golden {
  ref::PerRank<int32_t> send_counts;  // [rank][expert]
  ref::PerRank<int32_t> recv_counts;  // [rank][source]
  std::vector<int> dropped;           // per rank
  ref::PerRank<float> out;            // [rank][SLOTS * HIDDEN]
};

absl::StatusOr<Golden> ComputeGolden() {
  Golden g;
  const ref::AllToAllVShape shape{kNr, kCap, kHidden};
  ref::PerRank<float> staged(kNr, std::vector<float>(shape.elems(), 0.0f));
  g.send_counts.assign(kNr, std::vector<int32_t>(kNr, 0));
  g.dropped.assign(kNr, 0);
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kTokens; ++t) {
      const int e = Route(r, t);
      int32_t& pos = g.send_counts[r][e];
      if (pos >= kCap) {
        ++g.dropped[r];
        continue;
      }
      for (int h = 0; h < kHidden; ++h) {
        staged[r][(e * kCap + pos) * kHidden + h] = Token(r, t, h) * Gate(r, t);
      }
      ++pos;
    }
  }
  ref::PerRank<float> arrived(kNr, std::vector<float>(shape.elems(), 0.0f));
  if (absl::Status st = ref::AllToAllV(shape, staged, g.send_counts, &arrived, &g.recv_counts);
      !st.ok()) {
    return st;
  }
  g.out.assign(kNr, std::vector<float>(kSlots * kHidden, kOutputInit));
  for (int r = 0; r < kNr; ++r) {
    for (int s = 0; s < kNr; ++s) {
      for (int i = 0; i < g.recv_counts[r][s]; ++i) {
        for (int h = 0; h < kHidden; ++h) {
          const int at = (s * kCap + i) * kHidden + h;
          g.out[r][at] = std::max(arrived[r][at] * Weight(r, h), 0.0f);
        }
      }
    }
  }
  return g;
}

// Empty if rank r's rows match, else the first mismatch.
std::string CheckRank(int r, const std::vector<float>& got, const Golden& g) {
  if (got.size() != g.out[r].size()) {
    return absl::StrCat("read ", got.size(), " elements, want ", g.out[r].size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &g.out[r][i], sizeof(float)) != 0) {
      const int row = static_cast<int>(i / kHidden);
      return absl::StrFormat("slot %d row %d col %d: got %g, want %g", row / kCap, row % kCap,
                             static_cast<int>(i % kHidden), got[i], g.out[r][i]);
    }
  }
  return "";
}

// Per rank: what it sent and received, and its rows against the golden.
// Returns the number of ranks that fail.
int CheckRanks(sim::SimSystem& sys, const std::vector<rt::Tensor>& outputs, const Golden& golden) {
  std::printf("rank  sent  dropped  received  check\n");
  int failures = 0;
  for (int r = 0; r < kNr; ++r) {
    std::vector<float> all(kNr * kSlots * kHidden);
    std::string why;
    if (absl::Status c = sys.CopyFrom(all.data(), outputs[r], all.size() * sizeof(float));
        !c.ok()) {
      why = std::string(c.message());
    } else {
      // Rank r writes only row r of its copy of `outputs`.
      const std::vector<float> mine(all.begin() + r * kSlots * kHidden,
                                    all.begin() + (r + 1) * kSlots * kHidden);
      why = CheckRank(r, mine, golden);
      for (size_t i = 0; why.empty() && i < all.size(); ++i) {
        if (static_cast<int>(i / (kSlots * kHidden)) != r && all[i] != kOutputInit) {
          why = absl::StrCat("wrote outside its row of outputs at element ", i);
        }
      }
    }
    int sent = 0, received = 0;
    for (int e = 0; e < kNr; ++e) sent += golden.send_counts[r][e];
    for (int s = 0; s < kNr; ++s) received += golden.recv_counts[r][s];
    std::printf("%4d  %4d  %7d  %8d  %s\n", r, sent, golden.dropped[r], received,
                why.empty() ? "OK" : ("FAIL: " + why).c_str());
    failures += why.empty() ? 0 : 1;
  }

  return failures;
}

// The collective: bytes between chips, its time, busbw and the bounds.
// Returns 1 when the run has no all_to_all_v span, else 0.
int PrintCollective(const sim::RunReport& report, const sim::SimSystem& sys, const Golden& golden) {
  int failures = 0;
  const double row_bytes = kHidden * sizeof(float);
  double peer_bytes = 0, max_pair = 0;
  std::vector<double> in(kNr, 0);
  for (int s = 0; s < kNr; ++s) {
    for (int d = 0; d < kNr; ++d) {
      if (s == d) continue;
      const double b = golden.send_counts[s][d] * row_bytes;
      peer_bytes += b;
      in[d] += b;
      max_pair = std::max(max_pair, b);
    }
  }
  absl::StatusOr<bench::TaskSpan> a2a = bench::KernelSpan(report, "all_to_all_v");
  if (a2a.ok()) {
    const bench::LinkModel link = bench::LinkModelOf(sys.platform());
    const double t = a2a->seconds();
    const double busbw = bench::AllToAllBusBandwidth(peer_bytes / kNr, t);
    const double t_bound = bench::FullMeshTimeBound(link, max_pair);
    std::printf(
        "all_to_all_v          %.2f us, %.0f KiB between chips (hot receiver %.2fx the "
        "mean)\n",
        t * 1e6, peer_bytes / 1024, *std::max_element(in.begin(), in.end()) / (peer_bytes / kNr));
    std::printf("bus bandwidth         %.2f GB/s of the %.0f GB/s link bound (%.1f%%)\n",
                busbw / 1e9, bench::FullMeshBusBound(link, kNr) / 1e9,
                100 * busbw / bench::FullMeshBusBound(link, kNr));
    std::printf(
        "full-mesh time bound  %.2f us = alpha %.1f us + hottest pair %.0f B / %.0f GB/s "
        "(%.0f%% of the bound reached)\n",
        t_bound * 1e6, link.alpha_s * 1e6, max_pair, link.link_bytes_per_s / 1e9,
        100 * t_bound / t);
  } else {
    std::printf("all_to_all_v          %s\n", std::string(a2a.status().message()).c_str());
    ++failures;
  }

  return failures;
}

int Main(int argc, char** argv) {
  std::string trace_path = DefaultTracePath("moe_dispatch_trace.json");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--trace=", 0) == 0) {
      trace_path = UserPath(arg.substr(8));
    } else {
      std::fprintf(stderr, "usage: %s [--trace=PATH]\n", argv[0]);
      return 2;
    }
  }
  absl::StatusOr<Golden> golden = ComputeGolden();
  if (!golden.ok()) {
    std::fprintf(stderr, "golden: %s\n", std::string(golden.status().message()).c_str());
    return 1;
  }

  sim::SimOptions o;
  o.platform = "a2a3";
  o.chips = kNr;
  o.trace = true;
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
  if (!sys.ok()) {
    std::fprintf(stderr, "simulator: %s\n", std::string(sys.status().message()).c_str());
    return 1;
  }
  // Every device's copy of a HOST param holds the whole logical tensor; rank
  // r's pipeline uses row r of its own copy.
  std::vector<float> tokens, gates, weights;
  std::vector<int32_t> routes;
  for (int r = 0; r < kNr; ++r) {
    for (int t = 0; t < kTokens; ++t) {
      routes.push_back(Route(r, t));
      gates.push_back(Gate(r, t));
      for (int h = 0; h < kHidden; ++h) tokens.push_back(Token(r, t, h));
    }
    for (int h = 0; h < kHidden; ++h) weights.push_back(Weight(r, h));
  }
  const std::vector<float> out_init(kNr * kSlots * kHidden, kOutputInit);
  std::vector<std::vector<rt::Tensor>> params;
  absl::Status st = absl::OkStatus();
  auto stage = [&](std::vector<uint64_t> dims, uint32_t elem, const char* label,
                   const std::string& bytes) {
    if (!st.ok()) return;
    absl::StatusOr<std::vector<rt::Tensor>> p =
        bench::StageParam(**sys, dims, elem, label, [&](int) { return bytes; });
    if (!p.ok()) {
      st = p.status();
      return;
    }
    params.push_back(*p);
  };
  stage({kNr, kTokens, kHidden}, 4, "tokens", Bytes(tokens));
  stage({kNr, kTokens}, 4, "routes", Bytes(routes));
  stage({kNr, kTokens}, 4, "gates", Bytes(gates));
  stage({kNr, 1, kHidden}, 4, "weights", Bytes(weights));
  stage({kNr, kSlots, kHidden}, 4, "outputs", Bytes(out_init));
  if (st.ok()) st = generated::RunHost(**sys, params);
  if (!st.ok()) {
    std::fprintf(stderr, "host orchestration: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  const sim::RunReport report = (*sys)->Run();

  std::printf(
      "MoE dispatch (examples/moe_dispatch.pto) on %d simulated 910B chips: %d tokens x "
      "%d per rank, expert capacity %d\n\n",
      kNr, kTokens, kHidden, kCap);
  if (report.error_code() != 0) {
    std::printf("run failed: error %d: %s\n", report.error_code(), report.error_text().c_str());
    for (const std::string& b : report.blocked()) std::printf("  blocked: %s\n", b.c_str());
    return 1;
  }

  int failures = CheckRanks(**sys, params.back(), *golden);

  // Round trips: the CHIP rail runs the whole layer in one dispatch per card.
  const std::map<int, int> trips = bench::RoundTripsPerChip(report);
  int min_trips = INT32_MAX, max_trips = 0;
  for (const auto& [chip, n] : trips) {
    min_trips = std::min(min_trips, n);
    max_trips = std::max(max_trips, n);
  }
  std::printf("\nsimulated time        %.2f us (end to end, from the first dispatch)\n",
              report.sim_time_ps() * 1e-6);
  if (min_trips == max_trips) {
    std::printf("L3 -> L2 round trips  %d per card (%zu cards)\n", min_trips, trips.size());
  } else {
    std::printf("L3 -> L2 round trips  %d to %d per card\n", min_trips, max_trips);
  }

  failures += PrintCollective(report, **sys, *golden);

  if (!WriteTrace(report, trace_path)) return 1;
  return PrintVerdict(failures);
}

}  // namespace
}  // namespace pto::examples

int sc_main(int argc, char** argv) { return pto::examples::Main(argc, argv); }
