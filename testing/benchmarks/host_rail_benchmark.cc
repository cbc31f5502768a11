// The HOST-rail passes on a generated HOST program: the chain as pto-opt runs
// it, and each pass alone on the output of the passes before it.
//
//   bazel run -c opt //testing/benchmarks:host_rail_benchmark
//
// Sizes (dispatch loops / collectives): 500/2500, 1000/5000 (the issue's
// figure) and 2000/10000, to show linear scaling. The passes come from the
// registry in pipeline order; passes not registered yet are skipped and the
// ones that ran are printed at start-up.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/pass_registry.h"
#include "testing/generators/host_program_generator.h"

namespace pto {
namespace {

constexpr const char* kHostRail[] = {
    "SynthesizeAllReduceSignals", "MaterializeCommDomainScopes", "LowerHostTensorCollectives",
    "MaterializeDistTensorCtx", "Simplify"};

const std::vector<std::string>& PassNames() {
  static auto* names = [] {
    auto* v = new std::vector<std::string>();
    auto known = passes::PassRegistry::Global().PassNames();
    for (const char* n : kHostRail) {
      bool have = false;
      for (const std::string& k : known) have |= k == n;
      std::fprintf(stderr, "host_rail_benchmark: %-28s %s\n", n, have ? "runs" : "missing, skipped");
      if (have) v->push_back(n);
    }
    return v;
  }();
  return *names;
}

// Inputs of each pass (index i = output of passes [0, i)) for one size.
struct Stages {
  std::string text;
  std::vector<ir::ProgramPtr> inputs;  // inputs[PassNames().size()] = final output
  absl::Status status;
};

const Stages& StagesFor(int loops) {
  static auto* cache = new std::map<int, Stages>();
  auto it = cache->find(loops);
  if (it != cache->end()) return it->second;
  Stages s;
  s.text = testing::GenerateHostProgram({loops, loops * 5, 16});
  auto program = parser::ParseProgramText("host_rail.pto", s.text);
  if (!program.ok()) {
    s.status = program.status();
  } else {
    s.inputs.push_back(*program);
    for (const std::string& name : PassNames()) {
      auto pass = passes::PassRegistry::Global().Create(name);
      auto out = pass.ok() ? (*pass)->Run(s.inputs.back())
                           : absl::StatusOr<ir::ProgramPtr>(pass.status());
      if (!out.ok()) {
        s.status = out.status();
        break;
      }
      s.inputs.push_back(*out);
    }
    // The lowered program must be well formed for the figures to mean anything.
    if (s.status.ok()) s.status = ir::VerifyProgram(s.inputs.back());
  }
  return cache->emplace(loops, std::move(s)).first->second;
}

// The whole chain through the pass manager (property checks included).
void BM_HostRailChain(benchmark::State& state) {
  const Stages& s = StagesFor(static_cast<int>(state.range(0)));
  if (!s.status.ok()) {
    state.SkipWithError(std::string(s.status.message()).c_str());
    return;
  }
  for (auto _ : state) {
    passes::PassManager pm;
    for (const std::string& n : PassNames()) {
      if (!pm.AddPass(n).ok()) state.SkipWithError("unknown pass");
    }
    auto out = pm.Run(s.inputs.front());
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(*out);
  }
  state.counters["loops"] = static_cast<double>(state.range(0));
  state.counters["collectives"] = static_cast<double>(state.range(0) * 5);
  state.SetItemsProcessed(state.iterations() * state.range(0) * 6);  // loops + collectives
}
BENCHMARK(BM_HostRailChain)->Arg(500)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond);

// One pass (range(1) = its index in PassNames()) on its own input.
void BM_HostRailPass(benchmark::State& state) {
  const Stages& s = StagesFor(static_cast<int>(state.range(0)));
  size_t index = static_cast<size_t>(state.range(1));
  if (!s.status.ok() || index >= PassNames().size()) {
    state.SkipWithError(s.status.ok() ? "no such pass" : std::string(s.status.message()).c_str());
    return;
  }
  state.SetLabel(PassNames()[index]);
  auto pass = passes::PassRegistry::Global().Create(PassNames()[index]);
  for (auto _ : state) {
    auto out = (*pass)->Run(s.inputs[index]);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_HostRailPass)
    ->ArgsProduct({{500, 1000, 2000}, {0, 1, 2, 3, 4}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
