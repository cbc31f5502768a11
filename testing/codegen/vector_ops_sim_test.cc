// testing/codegen/vector_ops.pto on one simulated chip: every output
// element compared with the value computed here in the same float
// arithmetic, and the elements outside a partial tile's valid box checked
// untouched (still -1).
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
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

constexpr int kR = 16;
constexpr int kC = 32;
constexpr float kInit = -1.0f;
// The partial tile of `reduce`: rows x cols valid.
constexpr int kVr = 12;
constexpr int kVc = 24;

// x in [0.5, 2.5): log, sqrt and rsqrt are defined, products stay finite.
float X(int64_t i) { return 0.5f + static_cast<float>((i * 37) % 64) / 32.0f; }
float Xrc(int r, int c) { return X(r * kC + c); }

class VectorOpsSimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto x = [](int, int64_t i) { return X(i); };
    auto init = [](int, int64_t) { return kInit; };
    report_ = new sim::RunReport(RunFloatProgram(1,
                                                 {{"x", {1, kR, kC}, x},
                                                  {"o", {1, 12, kR, kC}, init},
                                                  {"rows", {1, 5, kR, 1}, init},
                                                  {"cols", {1, 4, 1, kC}, init},
                                                  {"ex", {1, 5, kR, kC}, init},
                                                  {"pads", {1, 2, kR, kC}, init},
                                                  {"tr", {1, kC, kR}, init},
                                                  {"sl", {1, 8, 16}, init},
                                                  {"asm", {1, kR, kC}, init}},
                                                 &generated::RunHost));
  }
  static void TearDownTestSuite() { delete report_; }
  static const sim::RunReport& Report() { return *report_; }

  // Output `name`: slot k of [slots, rows, cols] against want(k, r, c).
  static void Check(const std::string& name, int slots, int rows, int cols,
                    const std::function<float(int, int, int)>& want) {
    ASSERT_EQ(report_->error_code(), 0) << report_->error_text();
    const std::vector<float> o = DeviceCopy(*report_, name, 0);
    ASSERT_EQ(o.size(), static_cast<size_t>(slots * rows * cols));
    for (int k = 0; k < slots; ++k) {
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          const float got = o[(k * rows + r) * cols + c];
          const float w = want(k, r, c);
          ASSERT_FLOAT_EQ(got, w) << name << " [" << k << ", " << r << ", " << c << "]";
        }
      }
    }
  }

 private:
  static sim::RunReport* report_;
};
sim::RunReport* VectorOpsSimTest::report_ = nullptr;

TEST_F(VectorOpsSimTest, UnaryMathDivisionAndScalarMinMax) {
  Check("o", 12, kR, kC, [](int k, int r, int c) {
    const float x = Xrc(r, c);
    const float y = x + 1.0f;
    switch (k) {
      case 0: return std::exp(x);
      case 1: return std::log(x);
      case 2: return std::sqrt(x);
      case 3: return 1.0f / std::sqrt(x);
      case 4: return std::sin(x);
      case 5: return std::fabs(x - 1.5f);
      case 6: return x / y;
      case 7: return std::fmod(x * 3.75f, y);
      case 8: return std::max(x, 1.5f);
      case 9: return std::min(x, 1.25f);
      case 10: return x / 4.0f;
      default: return 1.0f / x;
    }
  });
}

// The row reductions of the valid [12, 24] box, in column order.
float RowReduce(int k, int r) {
  float acc = Xrc(r, 0);
  for (int c = 1; c < kVc; ++c) {
    const float x = Xrc(r, c);
    acc = k == 0 ? acc + x : k == 1 ? std::max(acc, x) : k == 2 ? std::min(acc, x) : acc * x;
  }
  return acc;
}
float ColReduce(int k, int c) {
  float acc = Xrc(0, c);
  for (int r = 1; r < kVr; ++r) {
    const float x = Xrc(r, c);
    acc = k == 0 ? acc + x : k == 1 ? std::max(acc, x) : k == 2 ? std::min(acc, x) : acc * x;
  }
  return acc;
}
float RowArgMax(int r) {
  int best = 0;
  for (int c = 1; c < kVc; ++c) {
    if (Xrc(r, best) < Xrc(r, c)) best = c;
  }
  return static_cast<float>(best);
}

TEST_F(VectorOpsSimTest, RowReductionsOfAPartialTileCoverItsValidBox) {
  Check("rows", 5, kR, 1, [](int k, int r, int) {
    if (r >= kVr) return kInit;
    return k == 4 ? RowArgMax(r) : RowReduce(k, r);
  });
}

TEST_F(VectorOpsSimTest, ColReductionsOfAPartialTileCoverItsValidBox) {
  Check("cols", 4, 1, kC, [](int k, int, int c) { return c < kVc ? ColReduce(k, c) : kInit; });
}

TEST_F(VectorOpsSimTest, RowAndColExpansions) {
  Check("ex", 5, kR, kC, [](int k, int r, int c) {
    if (r >= kVr || c >= kVc) return kInit;
    const float x = Xrc(r, c);
    switch (k) {
      case 0: return x - RowReduce(1, r);
      case 1: return std::exp(x - RowReduce(1, r));
      case 2: return x * ColReduce(1, c);
      case 3: return RowReduce(0, r);
      default: return x + ColReduce(2, c);
    }
  });
}

TEST_F(VectorOpsSimTest, FillPadTransposeSliceAssemble) {
  Check("pads", 2, kR, kC, [](int k, int r, int c) {
    return r < 10 && c < 20 ? Xrc(r, c) : k == 0 ? 0.0f : 7.5f;
  });
  Check("tr", 1, kC, kR, [](int, int r, int c) { return Xrc(c, r); });
  Check("sl", 1, 8, 16, [](int, int r, int c) { return Xrc(r + 4, c + 8); });
  Check("asm", 1, kR, kC, [](int, int r, int c) {
    const bool in = r >= 2 && r < 10 && c >= 4 && c < 20;
    return in ? Xrc(r - 2 + 4, c - 4 + 8) : 0.0f;
  });
}

// The simulated vector time of the three kernels, call by call from the
// cost function (sim/aiv/vector_cost.h, docs/simulator.md "Per-instruction
// costs") on the shape each generated call passes: elementwise ops over the
// 16 rows of 32 FP32 (each 128-byte row a repeat), reductions and
// expansions over the valid [12, 24] box of the 32-column tile.
struct Call {
  VecOp op;
  int64_t rows, cols, pitch;
  int src_bytes = 0;
};

TEST_F(VectorOpsSimTest, VectorTimeIsTheSumOfEachCallsCost) {
  ASSERT_EQ(Report().error_code(), 0) << Report().error_text();
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform("a2a3");
  ASSERT_TRUE(p.ok()) << p.status();
  const Call full{VecOp::kAbs, kR, kC, kC};
  auto on_tile = [&](VecOp op) { return Call{op, full.rows, full.cols, full.pitch}; };
  auto on_box = [](VecOp op) { return Call{op, kVr, kVc, kC}; };
  std::vector<Call> calls = {
      // math: exp, log, sqrt, rsqrt, sin, subs + abs, adds + div, muls +
      // fmod, maximums, minimum, divs, recip.
      on_tile(VecOp::kExp), on_tile(VecOp::kMath), on_tile(VecOp::kSqrt),
      on_tile(VecOp::kRsqrt), on_tile(VecOp::kMath), on_tile(VecOp::kAddS),
      on_tile(VecOp::kAbs), on_tile(VecOp::kAddS), on_tile(VecOp::kDiv),
      on_tile(VecOp::kMulS), on_tile(VecOp::kDiv), on_tile(VecOp::kMaxS),
      on_tile(VecOp::kMaxS), on_tile(VecOp::kDiv), on_tile(VecOp::kRecip),
      // reduce: four row reductions, argmax and its [16, 1] cast, four col
      // reductions, five expansions (one by column).
      on_box(VecOp::kRowReduce), on_box(VecOp::kRowReduce), on_box(VecOp::kRowReduce),
      on_box(VecOp::kRowReduce), on_box(VecOp::kArgReduce), Call{VecOp::kCvt, kR, 1, 1, 4},
      on_box(VecOp::kColReduce), on_box(VecOp::kColReduce), on_box(VecOp::kColReduce),
      on_box(VecOp::kColReduce), on_box(VecOp::kExpand), on_box(VecOp::kExpand),
      on_box(VecOp::kColExpand), on_box(VecOp::kExpand), on_box(VecOp::kColExpand),
      // layout: two fillpads and the transpose of the whole tile, the [8, 16]
      // slice, full (a fill) and its copy as one 512-element row each, the
      // assemble of the slice.
      on_tile(VecOp::kFillPad), on_tile(VecOp::kFillPad), on_tile(VecOp::kTranspose),
      Call{VecOp::kBoxCopy, 8, 16, kC}, Call{VecOp::kFill, 1, kR * kC, kR * kC},
      Call{VecOp::kCopy, 1, kR * kC, kR * kC}, Call{VecOp::kBoxCopy, 8, 16, 16},
  };
  int64_t want = 0;
  for (const Call& c : calls) {
    const double cycles =
        sim::VectorCycles(*p, c.op, VecShape{4, c.rows, c.cols, c.pitch, c.src_bytes});
    want += std::llround(cycles * 1000.0 / p->clock_ghz());
  }
  int64_t got = 0;
  for (const sim::CoreStat& c : Report().cores()) got += c.vector_busy_ps();
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace pto::examples
