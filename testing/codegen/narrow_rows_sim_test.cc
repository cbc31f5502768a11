// testing/codegen/narrow_rows.pto on one simulated chip: the compiled
// [256, 16] FP32 add computes x + x and costs what the per-instruction rule
// says for 256 rows of 64 bytes, each row a whole repeat (docs/simulator.md,
// "Per-instruction costs"), not the 16 repeats of its 16 KiB as one row.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/generated_program.h"
#include "runtime/device/device_core.h"
#include "sim/aiv/vector_cost.h"

namespace pto::examples {
namespace {

constexpr int kR = 256;
constexpr int kC = 16;

float X(int64_t i) { return static_cast<float>(i % 97) * 0.25f; }

TEST(NarrowRowsSimTest, ACompiledAddOfNarrowRowsCostsARepeatPerRow) {
  const sim::RunReport r = RunFloatProgram(
      1,
      {{"x", {1, kR, kC}, [](int, int64_t i) { return X(i); }},
       {"o", {1, kR, kC}, [](int, int64_t) { return -1.0f; }}},
      &generated::RunHost);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  const std::vector<float> o = DeviceCopy(r, "o", 0);
  ASSERT_EQ(o.size(), static_cast<size_t>(kR * kC));
  for (int64_t i = 0; i < kR * kC; ++i) ASSERT_FLOAT_EQ(o[i], X(i) + X(i)) << i;

  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform("a2a3");
  ASSERT_TRUE(p.ok()) << p.status();
  const VecShape rows{4, kR, kC, kC};
  EXPECT_EQ(sim::VectorRepeats(*p, rows, 4), kR);  // one repeat per 64-byte row
  const double cycles = sim::VectorCycles(*p, VecOp::kAdd, rows);
  EXPECT_EQ(cycles, p->vector_startup_cycles() + p->vector_cost().binary_cycles_per_repeat() * kR);
  int64_t got = 0;
  for (const sim::CoreStat& c : r.cores()) got += c.vector_busy_ps();
  EXPECT_EQ(got, std::llround(cycles * 1000.0 / p->clock_ghz()));
}

}  // namespace
}  // namespace pto::examples
