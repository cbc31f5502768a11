// testing/codegen/keyword_names.pto, whose kernel is called `double` and
// whose params are `int` and `new`, compiled with -Werror and run on 2
// simulated chips: device r doubles row r of its copy of xs into ys.
#include <cstdint>
#include <vector>

#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"

namespace pto::examples {
namespace {

constexpr int kN = 64;

TEST(KeywordNamesSimTest, KernelNamedDoubleDoubles) {
  auto x = [](int device, int64_t i) { return static_cast<float>(device * 1000 + i); };
  const sim::RunReport report =
      RunFloatProgram(2, {{"xs", {2, kN}, x}, {"ys", {2, kN}, [](int, int64_t) { return -1.0f; }}},
                      &generated::RunHost);
  ASSERT_EQ(report.error_code(), 0) << report.error_text();
  for (int d = 0; d < 2; ++d) {
    const std::vector<float> ys = DeviceCopy(report, "ys", d);
    ASSERT_EQ(ys.size(), 2u * kN);
    for (int64_t i = 0; i < 2 * kN; ++i) {
      const float want = i / kN == d ? 2 * x(d, i) : -1.0f;
      ASSERT_EQ(ys[i], want) << "device " << d << " element " << i;
    }
  }
}

}  // namespace
}  // namespace pto::examples
