#include "tools/run_params.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/npy.h"

namespace pto::tools::run {
namespace {

using ::testing::HasSubstr;

ir::ProgramPtr Parse(const std::string& params) {
  const std::string text =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n"
      "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
      "    def host_orch(self, " +
      params + "):\n        return\n";
  absl::StatusOr<ir::ProgramPtr> p = parser::ParseProgramText("p.pto", text);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(RunParamsTest, HostParamsFromTheIr) {
  absl::StatusOr<std::vector<Param>> params =
      HostParams(Parse("a: pl.Tensor[[2, 3], pl.FP32], b: pl.Out[pl.Tensor[[4], pl.INT8]], "
                       "c: pl.InOut[pl.Tensor[[2, 2, 2], pl.FP16]]"));
  ASSERT_TRUE(params.ok()) << params.status();
  ASSERT_EQ(params->size(), 3u);
  const Param& a = (*params)[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.item, 4);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(a.output);
  EXPECT_EQ((*params)[1].descr, "|i1");
  EXPECT_TRUE((*params)[1].output);
  EXPECT_EQ((*params)[2].descr, "<f2");
  EXPECT_TRUE((*params)[2].output);  // InOut is written back too
}

TEST(RunParamsTest, HostParamErrors) {
  absl::StatusOr<std::vector<Param>> fp8 = HostParams(Parse("d: pl.Tensor[[3], pl.FP8E4M3FN]"));
  ASSERT_FALSE(fp8.ok());
  EXPECT_THAT(std::string(fp8.status().message()),
              HasSubstr("parameter 'd' has dtype FP8E4M3FN, which has no NumPy type"));
  absl::StatusOr<std::vector<Param>> scalar = HostParams(Parse("n: pl.Scalar[pl.INT32]"));
  ASSERT_FALSE(scalar.ok());
  EXPECT_THAT(std::string(scalar.status().message()),
              HasSubstr("parameter 'n' of host_orch is not a tensor"));
}

TEST(RunParamsTest, PatternIsTheDocumentedOne) {
  Param f{"f", ir::DataType::kFP32, "<f4", 4, {40}};
  const std::string fb = Pattern(f);
  ASSERT_EQ(fb.size(), 160u);
  for (int i = 0; i < 40; ++i) {
    float v;
    std::memcpy(&v, fb.data() + 4 * i, 4);
    EXPECT_EQ(v, ((i * 31 + 7) % 1021) * 0.25f - 64.0f) << i;
  }
  Param h{"h", ir::DataType::kFP16, "<f2", 2, {2}};
  // Elements 0 and 1: 7 * 0.25 - 64 = -62.25 (0xd3c8), 38 * 0.25 - 64 = -54.5 (0xd2d0).
  EXPECT_EQ(Pattern(h), std::string("\xc8\xd3\xd0\xd2", 4));
  Param i8{"i", ir::DataType::kInt8, "|i1", 1, {5}};
  const std::string ib = Pattern(i8);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(static_cast<int8_t>(ib[i]), (i * 31 + 7) % 127 - 63) << i;
  Param i32{"j", ir::DataType::kInt32, "<i4", 4, {1}};
  int32_t j0;
  std::memcpy(&j0, Pattern(i32).data(), 4);
  EXPECT_EQ(j0, -56);
  Param b{"b", ir::DataType::kBool, "|b1", 1, {3}};
  EXPECT_EQ(Pattern(b), std::string("\x01\x00\x01", 3));  // 7, 38, 69 mod 2
}

// BF16 (no NumPy type): "<u2" bit patterns, also read from "|V2" (np.save of
// an ml_dtypes.bfloat16 array); the pattern rounded to BF16.
TEST(RunParamsTest, Bf16IsStoredAsItsBits) {
  EXPECT_EQ(NumpyDescr(ir::DataType::kBF16), "<u2");
  EXPECT_EQ(ToBf16(1.0f), 0x3f80);
  EXPECT_EQ(ToBf16(-62.25f), 0xc279);            // exact
  EXPECT_EQ(ToBf16(190.75f), 0x433f);            // 190.75 -> 191
  EXPECT_EQ(ToBf16(1.0f + 1.0f / 256), 0x3f80);  // tie -> even
  Param b{"b", ir::DataType::kBF16, "<u2", 2, {2}};
  // Elements 0 and 1: -62.25 (0xc279), -54.5 (0xc25a).
  EXPECT_EQ(Pattern(b), std::string("\x79\xc2\x5a\xc2", 4));

  const std::string dir = ::testing::TempDir() + "/run_params_bf16";
  std::filesystem::create_directories(dir);
  std::vector<Param> params = {b};
  ASSERT_TRUE(npy::WriteFile(dir + "/b.npy", {"|V2", {2}, std::string("\x80\x3f\x00\x40", 4)}).ok());
  ASSERT_TRUE(LoadInputs(dir, params).ok());
  EXPECT_EQ(params[0].initial, std::string("\x80\x3f\x00\x40", 4));  // 1.0, 2.0
  ASSERT_TRUE(npy::WriteFile(dir + "/b.npy", {"<u2", {2}, std::string("\x80\x7f\x00\x40", 4)}).ok());
  absl::Status s = LoadInputs(dir, params);
  EXPECT_THAT(std::string(s.message()), HasSubstr("b.npy: parameter 'b' element [0] is Inf"));
  ASSERT_TRUE(npy::WriteFile(dir + "/b.npy", {"<f2", {2}, std::string(4, '\0')}).ok());
  s = LoadInputs(dir, params);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("parameter 'b' is BF16 of shape (2,) ('<u2'), but the file holds '<f2'"));
}

TEST(RunParamsTest, ToHalfRoundsToNearestEven) {
  EXPECT_EQ(ToHalf(1.0f), 0x3c00);
  EXPECT_EQ(ToHalf(-2.5f), 0xc100);
  EXPECT_EQ(ToHalf(0.0f), 0x0000);
  EXPECT_EQ(ToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(ToHalf(1e6f), 0x7c00);                // overflow -> inf
  EXPECT_EQ(ToHalf(1.0f + 1.0f / 2048), 0x3c00);  // tie -> even
  EXPECT_EQ(ToHalf(5.9604645e-8f), 0x0001);       // smallest subnormal
}

TEST(RunParamsTest, LoadInputsReadsFilesAndChecksThem) {
  const std::string dir = ::testing::TempDir() + "/run_params_inputs";
  std::filesystem::create_directories(dir);
  std::vector<Param> params = {{"x", ir::DataType::kInt32, "<i4", 4, {2}},
                               {"y", ir::DataType::kInt32, "<i4", 4, {2}}};
  ASSERT_TRUE(
      npy::WriteFile(dir + "/x.npy", {"<i4", {2}, std::string("\x05\0\0\0\x06\0\0\0", 8)}).ok());
  ASSERT_TRUE(LoadInputs(dir, params).ok());
  EXPECT_EQ(params[0].initial, std::string("\x05\0\0\0\x06\0\0\0", 8));
  EXPECT_EQ(params[1].initial, Pattern(params[1]));  // no y.npy

  ASSERT_TRUE(npy::WriteFile(dir + "/y.npy", {"<i4", {1, 2}, std::string(8, '\0')}).ok());
  absl::Status s = LoadInputs(dir, params);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("y.npy: parameter 'y' is INT32 of shape (2,) ('<i4'), but the file "
                        "holds '<i4' of shape (1, 2)"));
}

TEST(RunParamsTest, NonFiniteInputsAreRejectedUnlessAllowed) {
  const std::string dir = ::testing::TempDir() + "/run_params_nonfinite";
  std::filesystem::create_directories(dir);
  const float f32[] = {1.0f, std::nanf(""), 2.0f};
  ASSERT_TRUE(npy::WriteFile(dir + "/x.npy",
                             {"<f4", {3}, std::string(reinterpret_cast<const char*>(f32), 12)})
                  .ok());
  std::vector<Param> params = {{"x", ir::DataType::kFP32, "<f4", 4, {3}}};
  absl::Status s = LoadInputs(dir, params);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("x.npy: parameter 'x' element [1] is NaN; pass --allow-nonfinite"));
  EXPECT_TRUE(LoadInputs(dir, params, /*allow_nonfinite=*/true).ok());

  // FP16 +Inf (0x7c00) and FP64 -Inf; FP16 NaN (0x7e00); integers never.
  const Param h{"h", ir::DataType::kFP16, "<f2", 2, {2, 2}};
  EXPECT_THAT(std::string(CheckFinite(h, std::string("\0\0\0\0\0\0\0\x7c", 8), "h.npy").message()),
              HasSubstr("element [1, 1] is Inf"));
  EXPECT_THAT(std::string(CheckFinite(h, std::string("\0\x7e\0\0\0\0\0\0", 8), "h.npy").message()),
              HasSubstr("element [0, 0] is NaN"));
  const double inf = -std::numeric_limits<double>::infinity();
  const Param d{"d", ir::DataType::kFP64, "<f8", 8, {1}};
  EXPECT_THAT(std::string(CheckFinite(d, std::string(reinterpret_cast<const char*>(&inf), 8), "d.npy").message()),
              HasSubstr("element [0] is Inf"));
  const Param i{"i", ir::DataType::kInt32, "<i4", 4, {1}};
  EXPECT_TRUE(CheckFinite(i, std::string("\0\0\x80\x7f", 4), "i.npy").ok());
}

TEST(RunParamsTest, ParamsThatDoNotFitGmAreRejectedBeforeAllocating) {
  std::vector<Param> params = {{"a", ir::DataType::kFP32, "<f4", 4, {1024}},
                               {"b", ir::DataType::kFP32, "<f4", 4, {1024, 1024}}};
  EXPECT_TRUE(CheckFitsGm(params, 2, 8u << 20, "a2a3").ok());
  absl::Status s = CheckFitsGm(params, 2, 1u << 20, "a2a3");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the HOST parameters need 4198400 bytes on every device (each of the 2 "
                        "devices holds a full copy of every parameter) by 'b', more than the "
                        "1048576 bytes of a2a3 GM"));
  params[1].shape = {int64_t{1} << 40, int64_t{1} << 40};
  s = CheckFitsGm(params, 2, 8u << 20, "a2a3");
  EXPECT_THAT(std::string(s.message()), HasSubstr("parameter 'b': shape (1099511627776, "
                                                  "1099511627776) is too large"));
}

TEST(RunParamsTest, MergeTakesEachElementFromTheDeviceThatChangedIt) {
  Param p{"out", ir::DataType::kInt32, "<i4", 4, {2, 2}};
  auto ints = [](std::vector<int32_t> v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  };
  p.initial = ints({0, 0, 0, 0});
  absl::StatusOr<std::string> m =
      Merge(p, {ints({1, 0, 0, 0}), ints({0, 2, 0, 0}), ints({1, 0, 0, 4})});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, ints({1, 2, 0, 4}));  // device 2 agrees with device 0 on [0, 0]

  absl::StatusOr<std::string> conflict = Merge(p, {ints({0, 0, 7, 0}), ints({0, 0, -8, 0})});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().message(),
            "output 'out' element [1, 0]: device 0 wrote 7 and device 1 wrote -8; pto-run "
            "cannot merge the copies");
}

}  // namespace
}  // namespace pto::tools::run
