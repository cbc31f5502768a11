// The issue-5 benchmark: an all-to-all with a hand-written kernel using all
// 48 AIVs of every 910B chip. Each iteration simulates one run in a forked
// process; the time reported is the child's wall time for build + simulate.
// Run it with (one command):
//   bazel run -c opt //testing/benchmarks:all_to_all_benchmark -- --benchmark_format=json
#include <systemc>

#include <algorithm>
#include <chrono>
#include <string>

#include "benchmark/benchmark.h"
#include "platforms/platform.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "tools/bench/collective_metrics.h"

namespace pto::sim {
namespace {

void BM_AllToAll(benchmark::State& state) {
  const int chips = static_cast<int>(state.range(0));
  const uint64_t chunk = static_cast<uint64_t>(state.range(1)) << 10;
  RunReport last;
  double total_wall = 0;
  double create_wall = 0;
  double run_wall = 0;
  for (auto _ : state) {
    last = RunIsolated([&] {
      SimOptions o;
      o.platform = "a2a3";
      o.chips = chips;
      o.trace = false;
      RunReport r;
      const auto c0 = std::chrono::steady_clock::now();
      auto sys = SimSystem::Create(o);
      const double create_s = std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - c0)
                                  .count();
      if (!sys.ok()) {
        r.set_error_code(-2);
        return r;
      }
      auto setup = testing::SetUpAllToAll(**sys, chunk, 48);
      if (!setup.ok()) {
        r.set_error_code(-3);
        return r;
      }
      const auto t0 = std::chrono::steady_clock::now();
      r = (*sys)->Run();
      (*r.mutable_values())["create_wall_ns"] = create_s * 1e9;
      (*r.mutable_values())["run_wall_ns"] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::steady_clock::now() - t0)
              .count();
      (*r.mutable_values())["errors"] =
          static_cast<int64_t>(testing::AllToAllErrors(**sys, *setup));
      return r;
    });
    if (last.error_code() != 0 || last.values().at("errors") != 0) {
      state.SkipWithError(last.error_text().c_str());
      return;
    }
    // Build the model (Create: elaboration of every chip) plus simulate
    // (Run). Generating and checking the payload is harness work, reported
    // separately as harness_wall_s.
    const double run_s = last.values().at("run_wall_ns") * 1e-9;
    state.SetIterationTime(last.values().at("create_wall_ns") * 1e-9 + run_s);
    run_wall += run_s;
    total_wall += last.wall_seconds();
    create_wall += last.values().at("create_wall_ns") * 1e-9;
  }
  // Kernel time: first block start to last block end over all chips.
  int64_t start = INT64_MAX, end = 0;
  for (const TaskStat& t : last.tasks()) {
    start = std::min(start, t.start_ps());
    end = std::max(end, t.end_ps());
  }
  const double kernel_s = (end - start) * 1e-12;
  // busbw = algbw * (n-1)/n with algbw = n*m / t (anchors.md §3.1); bounds:
  // full mesh, direct routing (anchors.md §3.3), T >= alpha + m / b, and the
  // beta-only busbw <= (n-1) * b (tools/bench/collective_metrics.h).
  const absl::StatusOr<platforms::Platform> platform = platforms::LoadPlatform("a2a3");
  if (!platform.ok()) {
    state.SkipWithError(std::string(platform.status().message()).c_str());
    return;
  }
  const bench::LinkModel link = bench::LinkModelOf(*platform);
  const double busbw =
      bench::AllToAllBusBandwidth((chips - 1) * static_cast<double>(chunk), kernel_s);
  const double bound = bench::FullMeshBusBound(link, chips);
  const double t_bound = bench::FullMeshTimeBound(link, static_cast<double>(chunk));
  state.counters["sim_seconds"] = last.sim_time_ps() * 1e-12;
  state.counters["kernel_sim_seconds"] = kernel_s;
  state.counters["systemc_waits"] = static_cast<double>(last.model_waits());
  state.counters["systemc_deltas"] = static_cast<double>(last.systemc_deltas());
  state.counters["busbw_GBps"] = busbw / 1e9;
  state.counters["bound_GBps"] = bound / 1e9;
  state.counters["bus_fraction_beta"] = busbw / bound;
  state.counters["bus_fraction"] = t_bound / kernel_s;
  state.counters["harness_wall_s"] = total_wall / state.iterations();
  state.counters["create_wall_s"] = create_wall / state.iterations();
  state.counters["run_wall_s"] = run_wall / state.iterations();
}

BENCHMARK(BM_AllToAll)
    ->ArgNames({"chips", "KiB_per_peer"})
    ->Args({8, 1024})
    ->Args({8, 4096})
    ->Args({4, 1024})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace pto::sim

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
