// The scale and speed ratios of docs/performance.md ("Scale and speed"),
// measured in one run: the full mode against one memcpy of the payload, model
// construction against the chip count, timing-only all-to-alls on A3 up to
// 384 devices with their memory, and the simulator's event rate beside two
// SystemC kernel micro-benchmarks on the same machine, and the MoE phases at
// DeepEP-Ascend's A3 setting. Every simulation runs
// in a forked child (RunIsolated); wall times are measured inside it.
//
//   bazel run -c opt //testing/benchmarks:scale_benchmark -- --benchmark_counters_tabular=true
#include <sys/resource.h>
#include <unistd.h>

#include <systemc>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/common/lazy_buffer.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// CPU seconds this process (the child) has used: on a shared machine the
// wall time also holds other processes' turns.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double LoadAverage() {
  double l = 0;
  std::ifstream("/proc/loadavg") >> l;
  return l;
}

// One all-to-all of `chunk` bytes per peer on every AIV of every chip, in a
// child. values: create_ns, run_ns, resident (bytes after the run, the
// whole child), memcpy_ns (full mode: one memcpy of the remote payload,
// chips x (chips - 1) x chunk, between two pre-touched buffers).
RunReport AllToAll(const std::string& platform, int chips, uint64_t chunk, bool timing_only) {
  return RunIsolated([&] {
    RunReport r;
    SimOptions o;
    o.platform = platform;
    o.chips = chips;
    o.trace = false;
    o.timing_only = timing_only;
    const Clock::time_point c0 = Clock::now();
    const double cpu0 = CpuSeconds();
    auto sys = SimSystem::Create(o);
    const double create_s = Seconds(c0);
    if (!sys.ok()) {
      r.set_error_code(-2);
      r.set_error_text(std::string(sys.status().message()));
      return r;
    }
    const int blocks = static_cast<int>((*sys)->platform().aiv_cores());
    std::optional<testing::AllToAllSetup> setup;
    absl::StatusOr<testing::AllToAllSetup> s = testing::SetUpAllToAll(
        **sys, chunk, blocks, 64 * 1024, /*stage_payload=*/!timing_only);
    const absl::Status st = s.status();
    if (s.ok()) setup = *s;
    if (!st.ok()) {
      r.set_error_code(-3);
      r.set_error_text(std::string(st.message()));
      return r;
    }
    const Clock::time_point t0 = Clock::now();
    r = (*sys)->Run();
    const double run_s = Seconds(t0);
    (*r.mutable_values())["create_ns"] = static_cast<int64_t>(create_s * 1e9);
    (*r.mutable_values())["run_ns"] = static_cast<int64_t>(run_s * 1e9);
    (*r.mutable_values())["cpu_ns"] = static_cast<int64_t>((CpuSeconds() - cpu0) * 1e9);
    (*r.mutable_values())["resident"] = ResidentBytes();
    if (!timing_only && setup.has_value()) {
      (*r.mutable_values())["errors"] = static_cast<int64_t>(testing::AllToAllErrors(**sys, *setup));
      const size_t bytes = static_cast<size_t>(chips) * (chips - 1) * chunk;
      std::vector<char> a(bytes, 1), b(bytes, 2);
      const Clock::time_point m0 = Clock::now();
      std::memcpy(b.data(), a.data(), bytes);
      (*r.mutable_values())["memcpy_ns"] = static_cast<int64_t>(Seconds(m0) * 1e9);
      benchmark::DoNotOptimize(b.data());
      // Into fresh pages, as the simulator's receive windows are: the
      // kernel's first-touch zero fill comes with it.
      LazyBuffer fresh(bytes);
      const Clock::time_point f0 = Clock::now();
      std::memcpy(fresh.data(), a.data(), bytes);
      (*r.mutable_values())["memcpy_fresh_ns"] = static_cast<int64_t>(Seconds(f0) * 1e9);
      benchmark::DoNotOptimize(fresh.data());
    }
    return r;
  });
}

bool Check(benchmark::State& state, const RunReport& r) {
  if (r.error_code() != 0) {
    state.SkipWithError(r.error_text().c_str());
    return false;
  }
  auto it = r.values().find("errors");
  if (it != r.values().end() && it->second != 0) {
    state.SkipWithError("wrong words received");
    return false;
  }
  return true;
}

void Rates(benchmark::State& state, const RunReport& r) {
  const double run_s = r.values().at("run_ns") * 1e-9;
  state.counters["sim_us"] = r.sim_time_ps() * 1e-6;
  state.counters["sim_us_per_wall_s"] = r.sim_time_ps() * 1e-6 / run_s;
  state.counters["waits_per_s"] = r.model_waits() / run_s;
  state.counters["systemc_waits"] = static_cast<double>(r.model_waits());
  state.counters["load_avg"] = LoadAverage();
  state.counters["cpu_s"] = r.values().at("cpu_ns") * 1e-9;
}

// The full mode's simulation (Run) against one memcpy of its payload, in the
// same child: goal within 2x (8 x 910B, 1 MiB per peer).
void BM_FullModeVsMemcpy(benchmark::State& state) {
  const int chips = static_cast<int>(state.range(0));
  const uint64_t chunk = static_cast<uint64_t>(state.range(1)) << 10;
  RunReport r;
  for (auto _ : state) {
    r = AllToAll("a2a3", chips, chunk, false);
    if (!Check(state, r)) return;
    state.SetIterationTime(r.values().at("run_ns") * 1e-9);
  }
  const double run_s = r.values().at("run_ns") * 1e-9;
  const double memcpy_s = r.values().at("memcpy_ns") * 1e-9;
  state.counters["run_ms"] = run_s * 1e3;
  state.counters["create_ms"] = r.values().at("create_ns") * 1e-6;
  state.counters["memcpy_ms"] = memcpy_s * 1e3;
  state.counters["run_over_memcpy"] = run_s / memcpy_s;
  const double fresh_s = r.values().at("memcpy_fresh_ns") * 1e-9;
  state.counters["memcpy_fresh_ms"] = fresh_s * 1e3;
  state.counters["run_over_fresh"] = run_s / fresh_s;
  Rates(state, r);
}
BENCHMARK(BM_FullModeVsMemcpy)
    ->ArgNames({"chips", "KiB_per_peer"})
    ->Args({8, 1024})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// SimSystem::Create alone: goal linear in chips and < 10 ms for 8 chips.
void BM_ModelConstruction(benchmark::State& state) {
  const std::string platform = state.range(1) == 0 ? "a2a3" : "a3";
  const int chips = static_cast<int>(state.range(0));
  double create_s = 0;
  for (auto _ : state) {
    RunReport r = RunIsolated([&] {
      RunReport out;
      SimOptions o;
      o.platform = platform;
      o.chips = chips;
      o.trace = false;
      const Clock::time_point c0 = Clock::now();
      auto sys = SimSystem::Create(o);
      (*out.mutable_values())["create_ns"] = static_cast<int64_t>(Seconds(c0) * 1e9);
      if (!sys.ok()) out.set_error_code(-2);
      return out;
    });
    if (!Check(state, r)) return;
    create_s = r.values().at("create_ns") * 1e-9;
    state.SetIterationTime(create_s);
  }
  state.counters["create_ms"] = create_s * 1e3;
  state.counters["us_per_chip"] = create_s * 1e6 / chips;
  state.counters["load_avg"] = LoadAverage();
}
BENCHMARK(BM_ModelConstruction)
    ->ArgNames({"chips", "a3"})
    ->Args({8, 0})
    ->Args({16, 1})
    ->Args({64, 1})
    ->Args({128, 1})
    ->Args({384, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// Timing-only all-to-all on A3 (every AIV of every die): goals 128 devices
// at 1 MiB per peer < 5 s, 384 < 60 s, memory linear in chips.
void BM_TimingOnlyA3AllToAll(benchmark::State& state) {
  const int chips = static_cast<int>(state.range(0));
  const uint64_t chunk = static_cast<uint64_t>(state.range(1)) << 10;
  RunReport r;
  for (auto _ : state) {
    r = AllToAll("a3", chips, chunk, true);
    if (!Check(state, r)) return;
    state.SetIterationTime((r.values().at("create_ns") + r.values().at("run_ns")) * 1e-9);
  }
  state.counters["wall_s"] = (r.values().at("create_ns") + r.values().at("run_ns")) * 1e-9;
  state.counters["resident_MB"] = r.values().at("resident") / 1e6;
  state.counters["MB_per_chip"] = r.values().at("resident") / 1e6 / chips;
  state.counters["payload_GB"] = static_cast<double>(chips) * (chips - 1) * chunk / 1e9;
  Rates(state, r);
}
BENCHMARK(BM_TimingOnlyA3AllToAll)
    ->ArgNames({"chips", "KiB_per_peer"})
    ->Args({32, 1024})
    ->Args({64, 1024})
    ->Args({128, 1024})
    ->Args({384, 1024})
    ->UseManualTime()
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// MoE dispatch and combine at DeepEP-Ascend's A3 setting (sgl-kernel-npu
// README: 4096 tokens per rank, hidden 7168, top-8, INT8 dispatch = 7168 B
// per route, BF16 combine = 14336 B per route), as the all-to-all each phase
// is with uniform routing: 4096 x 8 / EP routes per peer. Timing-only on A3,
// every AIV of every die. bw_GBps = bytes a rank sends to the other ranks /
// the kernel's span, DeepEP's "bottleneck bandwidth" for a pure-HCCS run.
void BM_MoeA3(benchmark::State& state) {
  const int ep = static_cast<int>(state.range(0));
  const uint64_t route_bytes = static_cast<uint64_t>(state.range(1));
  constexpr uint64_t kTokens = 4096, kTopK = 8;
  const uint64_t per_peer = kTokens * kTopK / ep * route_bytes;
  RunReport r;
  for (auto _ : state) {
    r = AllToAll("a3", ep, per_peer, true);
    if (!Check(state, r)) return;
    state.SetIterationTime((r.values().at("create_ns") + r.values().at("run_ns")) * 1e-9);
  }
  int64_t start = INT64_MAX, end = 0;
  for (const TaskStat& t : r.tasks()) {
    start = std::min(start, t.start_ps());
    end = std::max(end, t.end_ps());
  }
  const double kernel_s = (end - start) * 1e-12;
  state.counters["per_peer_MB"] = per_peer / 1e6;
  state.counters["kernel_us"] = kernel_s * 1e6;
  state.counters["bw_GBps"] = (ep - 1) * static_cast<double>(per_peer) / kernel_s / 1e9;
  state.counters["wall_s"] = (r.values().at("create_ns") + r.values().at("run_ns")) * 1e-9;
  state.counters["load_avg"] = LoadAverage();
}
BENCHMARK(BM_MoeA3)
    ->ArgNames({"ep", "route_bytes"})
    ->ArgsProduct({{8, 16, 32, 64, 128}, {7168, 14336}})
    ->UseManualTime()
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// The SystemC kernel itself on this machine, the anchors the model's rate
// is read against: one SC_THREAD doing timed waits, one SC_METHOD re-armed
// with next_trigger.
struct Waiter : sc_core::sc_module {
  SC_HAS_PROCESS(Waiter);
  Waiter(sc_core::sc_module_name n, int64_t count, bool method)
      : sc_core::sc_module(n), left(count) {
    if (method) {
      SC_METHOD(Step);
    } else {
      SC_THREAD(Loop);
    }
  }
  void Loop() {
    while (left-- > 0) wait(1, sc_core::SC_NS);
  }
  void Step() {
    if (left-- > 0) next_trigger(1, sc_core::SC_NS);
  }
  int64_t left;
};

void BM_SystemCKernel(benchmark::State& state) {
  const bool method = state.range(0) == 1;
  constexpr int64_t kActivations = 2'000'000;
  double s = 0;
  for (auto _ : state) {
    RunReport r = RunIsolated([&] {
      RunReport out;
      Waiter w("w", kActivations, method);
      const Clock::time_point t0 = Clock::now();
      sc_core::sc_start();
      (*out.mutable_values())["ns"] = static_cast<int64_t>(Seconds(t0) * 1e9);
      return out;
    });
    if (!Check(state, r)) return;
    s = r.values().at("ns") * 1e-9;
    state.SetIterationTime(s);
  }
  state.counters["activations_per_s"] = kActivations / s;
  state.counters["load_avg"] = LoadAverage();
}
BENCHMARK(BM_SystemCKernel)
    ->ArgNames({"method"})
    ->Arg(0)
    ->Arg(1)
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
