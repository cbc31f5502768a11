// testing/codegen/tile_store_forms.pto on one simulated chip: each kernel's
// output compared element by element with values computed here, inside the
// box it must write and outside it (still the initial -1).
#include <cstdint>
#include <vector>

#include "examples/sim_run.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"

namespace pto::examples {
namespace {

constexpr int kR = 32;
constexpr int kC = 64;
constexpr float kInit = -1.0f;

float X(int64_t i) { return 0.25f * static_cast<float>(i % 513) - 40.0f; }

class TileStoreFormsSimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto x = [](int, int64_t i) { return X(i); };
    auto init = [](int, int64_t) { return kInit; };
    auto o3 = [](int, int64_t i) { return static_cast<float>(i % 7); };
    report_ = new sim::RunReport(RunFloatProgram(1,
                                                 {{"x", {1, kR, kC}, x},
                                                  {"x3", {1, 8, 32, 60}, x},
                                                  {"o1", {1, kR, kC}, init},
                                                  {"o2", {1, kR, kC}, init},
                                                  {"o3", {1, kR, kC}, o3},
                                                  {"o4", {1, 8, 32, 60}, init}},
                                                 &generated::RunHost));
  }
  static void TearDownTestSuite() { delete report_; }
  static const sim::RunReport& Report() { return *report_; }

  // Checks output `name` ([kR, kC]) against want(r, c).
  template <typename F>
  static void Check2d(const char* name, F want) {
    ASSERT_EQ(Report().error_code(), 0) << Report().error_text();
    const std::vector<float> o = DeviceCopy(Report(), name, 0);
    ASSERT_EQ(o.size(), static_cast<size_t>(kR * kC));
    for (int r = 0; r < kR; ++r) {
      for (int c = 0; c < kC; ++c) {
        ASSERT_EQ(o[r * kC + c], want(r, c)) << name << " [" << r << ", " << c << "]";
      }
    }
  }

 private:
  static sim::RunReport* report_;
};
sim::RunReport* TileStoreFormsSimTest::report_ = nullptr;

TEST_F(TileStoreFormsSimTest, AddsAndSubsKeepTheValidShape) {
  Check2d("o1", [](int r, int c) {
    return r < 16 && c < 48 ? X(r * kC + c) + 1.0f - 3.0f : kInit;
  });
}

TEST_F(TileStoreFormsSimTest, TypedAssignmentKeepsThePartialLoad) {
  Check2d("o2", [](int r, int c) { return r < 8 && c < 40 ? X(r * kC + c) : kInit; });
}

TEST_F(TileStoreFormsSimTest, AtomicAddStoreAddsIntoTheOutput) {
  Check2d("o3", [](int r, int c) {
    const int64_t i = r * kC + c;
    return static_cast<float>(i % 7) + X(i);
  });
}

TEST_F(TileStoreFormsSimTest, PartialLoadOfRank3MovesItsValidBox) {
  ASSERT_EQ(Report().error_code(), 0) << Report().error_text();
  const std::vector<float> o = DeviceCopy(Report(), "o4", 0);
  ASSERT_EQ(o.size(), 8u * 32 * 60);
  constexpr int64_t kBlock = 32 * 60;
  for (int64_t i = 0; i < 8 * kBlock; ++i) {
    const bool written = i >= 2 * kBlock && i < 4 * kBlock;
    ASSERT_EQ(o[i], written ? 2.0f * X(i - 2 * kBlock) : kInit) << "o4 element " << i;
  }
}

}  // namespace
}  // namespace pto::examples
