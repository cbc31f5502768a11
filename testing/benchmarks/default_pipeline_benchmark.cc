// The whole default pass pipeline on a program of N CHIP pipelines (the seed's
// stage -> all_to_all_v -> consume) dispatched by one HOST orchestrator.
// Parsing is outside the timed loop; every iteration runs all passes.
//
//   bazel run //testing/benchmarks:default_pipeline_benchmark
//
// 500 / 1,000 / 2,000 pipelines show whether the pipeline scales linearly.
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "testing/generators/chip_program_generator.h"

namespace pto {
namespace {

void BM_DefaultPipeline(benchmark::State& state) {
  const int pipelines = static_cast<int>(state.range(0));
  auto program =
      parser::ParseProgramText("chip.pto", testing::GenerateChipPipelines(pipelines));
  if (!program.ok()) {
    state.SkipWithError(std::string(program.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    passes::PassManager pm;
    if (absl::Status s = pm.AddPipeline("default"); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    auto out = pm.Run(*program);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->get());
  }
  state.counters["pipelines"] = pipelines;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * pipelines);
}
BENCHMARK(BM_DefaultPipeline)->Arg(500)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
