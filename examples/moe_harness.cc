#include "examples/moe_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/example_main.h"
#include "platforms/platform.h"
#include "tools/bench/collective_metrics.h"

namespace pto::examples::moe {

int8_t X(int r, int t, int d) { return static_cast<int8_t>((r * 37 + t * 11 + d * 3) % 255 - 127); }

float Gate(int r, int t, int k) { return static_cast<float>((r + 1) * 0.01 + t * 0.1 + k * 0.001); }

float RoundFp16TiesAway(float v) {
  const float even = static_cast<float>(static_cast<_Float16>(v));
  if (even == v || v != v) return even;
  // At a tie the other neighbour is 2v - even, exact in double and an FP16
  // value; anywhere else it lies strictly between two FP16 values.
  const double other = 2.0 * static_cast<double>(v) - even;
  const bool is_tie = static_cast<double>(static_cast<_Float16>(other)) == other;
  return is_tie && std::fabs(other) > std::fabs(even) ? static_cast<float>(other) : even;
}

std::vector<int32_t> Routing(int ranks, int tokens, int topk, int experts) {
  std::vector<int32_t> idx(static_cast<size_t>(ranks) * tokens * topk);
  uint64_t state = 20260510;
  auto next = [&state]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < tokens; ++t) {
      std::vector<int32_t> perm(experts);
      for (int e = 0; e < experts; ++e) perm[e] = e;
      for (int k = 0; k < topk; ++k) {  // partial Fisher-Yates
        const int j = k + static_cast<int>(next() % (experts - k));
        std::swap(perm[k], perm[j]);
        idx[(static_cast<size_t>(r) * tokens + t) * topk + k] = perm[k];
      }
    }
  }
  return idx;
}

bool ParseFlags(int argc, char** argv, const std::string& default_trace_file, FlagSet set,
                Flags* flags) {
  flags->trace_path = DefaultTracePath(default_trace_file);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--trace=", 0) == 0) {
      flags->trace_path = UserPath(arg.substr(8));
      flags->trace_asked = true;
    } else if (set.record_golden && arg.rfind("--record-golden=", 0) == 0) {
      flags->golden_path = UserPath(arg.substr(16));
    } else if (arg.rfind("--platform=", 0) == 0) {
      flags->platform = arg.substr(11);
    } else if (arg == "--timing-only") {
      flags->timing_only = true;
    } else if (set.race_detection && arg == "--race-detection") {
      flags->race_detection = true;
    } else if (arg.rfind("--op-timeout-ms=", 0) == 0 &&
               absl::SimpleAtod(arg.substr(16), &flags->op_timeout_ms) &&
               flags->op_timeout_ms > 0) {
    } else {
      std::fprintf(stderr, "usage: %s [--trace=PATH]%s [--platform=NAME] [--timing-only]%s "
                   "[--op-timeout-ms=N]\n",
                   argv[0], set.record_golden ? " [--record-golden=FILE]" : "",
                   set.race_detection ? " [--race-detection]" : "");
      return false;
    }
  }
  return true;
}

absl::StatusOr<std::unique_ptr<sim::SimSystem>> CreateSystem(const Flags& flags, int chips) {
  sim::SimOptions o;
  o.platform = flags.platform;
  o.chips = chips;
  o.trace = !flags.timing_only || flags.trace_asked;
  o.timing_only = flags.timing_only;
  o.race_detection = flags.race_detection;
  if (flags.op_timeout_ms > 0) {
    const double ms = flags.op_timeout_ms;
    o.tweak = [ms](platforms::Platform& p) {
      p.mutable_timeouts()->set_op_timeout_ns(ms * 1e6);
      p.mutable_timeouts()->set_op_deadline_factor(0);  // fixed: the floor alone
    };
  }
  return sim::SimSystem::Create(o);
}

absl::StatusOr<std::vector<std::vector<rt::Tensor>>> StageParams(sim::SimSystem& sys,
                                                                 const std::vector<Param>& spec) {
  std::vector<std::vector<rt::Tensor>> params;
  for (const Param& p : spec) {
    absl::StatusOr<std::vector<rt::Tensor>> t =
        bench::StageParam(sys, p.dims, p.elem, p.name, [&](int) { return p.bytes; });
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("staging ", p.name, ": ", t.status().message()));
    params.push_back(*std::move(t));
  }
  return params;
}

std::string FirstMismatch(const char* name, const std::vector<float>& got, const float* want,
                          int cols) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      return absl::StrFormat("%s[%d, %d] = %g, want %g", name, static_cast<int>(i / cols),
                             static_cast<int>(i % cols), got[i], want[i]);
    }
  }
  return "";
}

bool WithinCap(const std::vector<int>& expert_rows, int cap) {
  for (int c : expert_rows) {
    if (c > cap) {
      std::fprintf(stderr, "routing: an expert receives %d rows, over the cap %d\n", c, cap);
      return false;
    }
  }
  return true;
}

absl::StatusOr<LayerRun> RunLayer(
    const Flags& flags, int chips, const std::vector<Param>& spec,
    absl::FunctionRef<absl::Status(sim::SimSystem&, const std::vector<std::vector<rt::Tensor>>&)>
        run_host) {
  LayerRun run;
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = CreateSystem(flags, chips);
  if (!sys.ok()) return absl::Status(sys.status().code(), absl::StrCat("simulator: ", sys.status().message()));
  run.sys = *std::move(sys);
  absl::StatusOr<std::vector<std::vector<rt::Tensor>>> params = StageParams(*run.sys, spec);
  if (!params.ok()) return params.status();
  run.params = *std::move(params);
  if (absl::Status st = run_host(*run.sys, run.params); !st.ok()) {
    return absl::Status(st.code(), absl::StrCat("host orchestration: ", st.message()));
  }
  run.report = run.sys->Run();
  return run;
}

bool PrintRunFailure(const sim::RunReport& report) {
  if (report.error_code() == 0) return false;
  std::printf("run failed at %.2f us: error %d: %s\n", report.sim_time_ps() * 1e-6,
              report.error_code(), report.error_text().c_str());
  for (const std::string& b : report.blocked()) std::printf("  blocked: %s\n", b.c_str());
  return true;
}

bool PrintPhase(const sim::RunReport& report, const sim::SimSystem& sys, int ranks,
                const char* kernel, const char* label, double mean_peer_bytes, double* seconds) {
  absl::StatusOr<bench::TaskSpan> span = bench::KernelSpan(report, kernel);
  if (!span.ok()) {
    std::printf("%-14s %s\n", label, std::string(span.status().message()).c_str());
    return false;
  }
  *seconds = span->seconds();
  std::printf("%-14s %9.2f us", label, *seconds * 1e6);
  if (mean_peer_bytes > 0) {
    const double busbw = bench::AllToAllBusBandwidth((ranks - 1) * mean_peer_bytes, *seconds);
    std::printf("  %7.0f B per peer (mean)  busbw %6.2f GB/s", mean_peer_bytes, busbw / 1e9);
    if (sys.platform().fabric().kind() == platforms::FabricSpec::FULL_MESH) {
      // The links' sum, or the chip's egress port where that is narrower
      // (a2a3's HCCS, docs/simulator.md).
      const double links = bench::FullMeshBusBound(bench::LinkModelOf(sys.platform()), ranks);
      const double egress = sys.platform().fabric().chip_egress_gbps() * 1e9;
      const bool port = egress > 0 && egress < links;
      const double bound = port ? egress : links;
      std::printf(" of %3.0f GB/s%s (%.1f%%)", bound / 1e9, port ? " egress" : "", 100 * busbw / bound);
    }
  }
  std::printf("\n");
  return true;
}

int PrintTimingOnlyVerdict(int failures) {
  std::printf("%s\n", failures == 0 ? "result: timing-only run complete (outputs not checked)"
                                    : absl::StrCat("result: ", failures, " failing").c_str());
  return failures == 0 ? 0 : 1;
}

int Finish(const sim::RunReport& report, const Flags& flags, int failures) {
  if (flags.race_detection) {
    std::printf("GM races: %d\n", report.races_size());
    for (int i = 0; i < std::min(report.races_size(), 5); ++i) {
      std::printf("  %s\n", report.races(i).c_str());
    }
    failures += report.races_size() > 0 ? 1 : 0;
  }
  if ((!flags.timing_only || flags.trace_asked) && !WriteTrace(report, flags.trace_path)) return 1;
  if (flags.timing_only) return PrintTimingOnlyVerdict(failures);
  return PrintVerdict(failures);
}

}  // namespace pto::examples::moe
