// The golden's own test: for every program, its expected outputs pass the
// check, and the same outputs with one element moved just past the tolerance
// fail it, so a wrong result of any program fails its system test.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "testing/system/single_chip/golden.h"

namespace pto::single_chip {
namespace {

std::string Dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/golden_test_" + name;
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(GoldenTest, EveryProgramHasOutputsAndItsCheckCanFail) {
  ASSERT_GE(Programs().size(), 40u);
  for (const auto& [name, make] : Programs()) {
    SCOPED_TRACE(name);
    const Case c = make();
    ASSERT_FALSE(c.expected.empty());
    const std::string dir = Dir(name);
    for (const Tensor& t : c.inputs) ASSERT_TRUE(Write(t, dir).ok()) << t.name;
    for (const Tensor& want : c.expected) {
      SCOPED_TRACE(want.name);
      ASSERT_EQ(static_cast<int64_t>(want.values.size()), Count(want.shape));
      ASSERT_TRUE(Write(want, dir).ok());
      EXPECT_TRUE(Check(want, dir).ok());
      // The tolerance of this element, doubled (and at least one unit of an
      // integer), as the wrong value: every output element counts.
      Tensor wrong = want;
      const size_t i = want.values.size() / 2;
      const double bound = want.atol + want.rtol * std::fabs(want.values[i]);
      wrong.values[i] = RoundTo(want.dtype, want.values[i] + std::fmax(2 * bound, 1e-3) + 
                                                (want.dtype == DType::kI32 ? 1 : 0));
      ASSERT_NE(wrong.values[i], want.values[i]);
      ASSERT_TRUE(Write(wrong, dir).ok());
      const absl::Status s = Check(want, dir);
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("element " + std::to_string(i)), std::string::npos) << s;
    }
  }
}

TEST(GoldenTest, AMissingOutputOrAnotherDtypeFails) {
  const std::string dir = Dir("dtype");
  const Tensor f32 = Make("t", {2, 2}, {1, 2, 3, 4});
  EXPECT_FALSE(Check(f32, dir).ok());  // not written
  Tensor i32 = f32;
  i32.dtype = DType::kI32;
  ASSERT_TRUE(Write(i32, dir).ok());
  const absl::Status s = Check(f32, dir);
  EXPECT_NE(s.message().find("<i4 (2, 2), want <f4 (2, 2)"), std::string::npos) << s;
}

TEST(GoldenTest, RoundingIsNearestEven) {
  EXPECT_EQ(RoundF16(1.0 + 1.0 / 2048), 1.0);               // a tie goes to even
  EXPECT_EQ(RoundF16(1.0 + 3.0 / 2048), 1.0 + 2.0 / 1024);
  EXPECT_EQ(RoundBf16(1.0 + 1.0 / 256), 1.0);
  EXPECT_EQ(RoundBf16(1.0 + 3.0 / 256), 1.0 + 2.0 / 128);
}

}  // namespace
}  // namespace pto::single_chip
