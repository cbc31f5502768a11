// The TileMemoryInferred verifier: it fails, located, on a kernel tile with
// no memory space and on an operand outside the space its operator needs,
// and passes on InferTileMemorySpace's output.
#include "compiler/passes/infer_tile_memory_space.h"

#include <string>

#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

using ::testing::HasSubstr;

constexpr char kProgram[] = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP16SPACE] = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        u = pl.matmul(t, t)
        o = pl.store(u, [0, 0], o)
        return o
)";

ir::ProgramPtr Parse(const std::string& space) {
  absl::StatusOr<ir::ProgramPtr> p =
      parser::ParseProgramText("t.pto", absl::StrReplaceAll(kProgram, {{"SPACE", space}}));
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

TEST(TileMemoryInferredTest, ATileWithoutASpaceFails) {
  ir::ProgramPtr p = Parse("");
  ASSERT_NE(p, nullptr);
  absl::Status s = VerifyTileMemoryInferred(p);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("TileMemoryInferred: in 'k', tile 't' has no memory space "
                        "(run InferTileMemorySpace)"));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 7);
}

TEST(TileMemoryInferredTest, AnOperandOutsideItsSpaceFails) {
  // Every tile annotated, but the matmul reads Mat tiles.
  ir::ProgramPtr p = Parse(", pl.MemorySpace.Mat");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<ir::ProgramPtr> typed = CreateInferTileMemorySpacePass()->Run(p);
  ASSERT_TRUE(typed.ok()) << typed.status();
  EXPECT_TRUE(VerifyTileMemoryInferred(*typed).ok()) << VerifyTileMemoryInferred(*typed);
  // The parsed program with u annotated too still reads t in Mat.
  ir::ProgramPtr raw = *parser::ParseProgramText(
      "t.pto", absl::StrReplaceAll(kProgram, {{"SPACE", ", pl.MemorySpace.Mat"},
                                     {"u = pl.matmul",
                                      "u: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Acc] = "
                                      "pl.matmul"}}));
  absl::Status s = VerifyTileMemoryInferred(raw);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("operand 0 of pl.tile.matmul is in Mat, not Left"));
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 8);
}

}  // namespace
}  // namespace pto::passes
