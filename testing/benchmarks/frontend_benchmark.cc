// Front-end throughput: parse + verify + print of a generated program, and
// each phase alone. Bytes/second are of the input text.
//
//   bazel run -c opt //testing/benchmarks:frontend_benchmark
//
// The 5/10/20 MB sizes show whether the front end scales linearly.
#include <map>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "testing/generators/program_generator.h"

namespace pto {
namespace {

const std::string& Program(size_t mb) {
  static auto* cache = new std::map<size_t, std::string>();
  auto it = cache->find(mb);
  if (it == cache->end()) it = cache->emplace(mb, testing::GenerateProgram(mb << 20)).first;
  return it->second;
}

void BM_ParseVerifyPrint(benchmark::State& state) {
  const std::string& text = Program(state.range(0));
  for (auto _ : state) {
    auto file = std::make_shared<SourceFile>("generated.pto", text);
    auto program = parser::ParseProgram(file);
    if (!program.ok()) {
      state.SkipWithError(std::string(program.status().message()).c_str());
      return;
    }
    absl::Status verified = ir::VerifyProgram(*program);
    if (!verified.ok()) {
      state.SkipWithError(std::string(verified.message()).c_str());
      return;
    }
    std::string printed = ir::PrintProgram(*program);
    benchmark::DoNotOptimize(printed.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["input_MB"] = static_cast<double>(text.size()) / (1 << 20);
}
BENCHMARK(BM_ParseVerifyPrint)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state) {
  const std::string& text = Program(state.range(0));
  for (auto _ : state) {
    auto program = parser::ParseProgram(std::make_shared<SourceFile>("generated.pto", text));
    benchmark::DoNotOptimize(program);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_Parse)->Arg(10)->Unit(benchmark::kMillisecond);

// The parsed program of `mb` MB, or nullptr (and the benchmark marked failed).
ir::ProgramPtr ParsedOrSkip(benchmark::State& state, size_t mb) {
  auto program =
      parser::ParseProgram(std::make_shared<SourceFile>("generated.pto", Program(mb)));
  if (!program.ok()) {
    state.SkipWithError(std::string(program.status().message()).c_str());
    return nullptr;
  }
  return *program;
}

void BM_Verify(benchmark::State& state) {
  ir::ProgramPtr program = ParsedOrSkip(state, state.range(0));
  if (program == nullptr) return;
  for (auto _ : state) {
    absl::Status s = ir::VerifyProgram(program);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(Program(state.range(0)).size()));
}
BENCHMARK(BM_Verify)->Arg(10)->Unit(benchmark::kMillisecond);

void BM_Print(benchmark::State& state) {
  ir::ProgramPtr program = ParsedOrSkip(state, state.range(0));
  if (program == nullptr) return;
  for (auto _ : state) {
    std::string printed = ir::PrintProgram(program);
    benchmark::DoNotOptimize(printed.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(Program(state.range(0)).size()));
}
BENCHMARK(BM_Print)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pto

BENCHMARK_MAIN();
