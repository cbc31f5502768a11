// ChooseL0Tile against a2a3's L0 capacities (platforms/a2a3.textproto:
// L0A 64 KB, L0B 64 KB, L0C 128 KB), the blocks AutoTileMatmulL0 emits.
#include "compiler/passes/auto_tile_matmul_l0.h"

#include <optional>

#include "gtest/gtest.h"

namespace pto::passes {
namespace {

using ir::DataType;

constexpr AutoTileMatmulL0Options kA2a3{65536, 65536, 131072};

TEST(ChooseL0TileTest, AMatmulThatFitsIsNotTiled) {
  EXPECT_FALSE(ChooseL0Tile(kA2a3, 64, 64, 64, DataType::kFP16, DataType::kFP32).has_value());
}

TEST(ChooseL0TileTest, KSplitsIntoTheLargestFittingFractalMultiple) {
  // Left [64, 512] FP32 is 128 KB: k = 256 (exactly 64 KB).
  std::optional<L0Tile> t = ChooseL0Tile(kA2a3, 64, 64, 512, DataType::kFP32, DataType::kFP32);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->m, 64);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->k, 256);
}

TEST(ChooseL0TileTest, AnOutputOverL0CTakesTheFewestSubTiles) {
  // [272, 272] FP32 is 289 KB: three [112, 272] row blocks (not six [128, 256]).
  std::optional<L0Tile> t = ChooseL0Tile(kA2a3, 272, 272, 64, DataType::kBF16, DataType::kFP32);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->m, 112);
  EXPECT_EQ(t->n, 272);
  EXPECT_EQ(t->k, 64);
}

TEST(ChooseL0TileTest, WholeNKeepsTheColumns) {
  // [64, 1024] FP32 is 256 KB; with whole_n (a bias row) only m shrinks.
  std::optional<L0Tile> t =
      ChooseL0Tile(kA2a3, 64, 1024, 16, DataType::kFP32, DataType::kFP32, /*whole_n=*/true);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->n, 1024);
  EXPECT_EQ(t->m, 32);
}

TEST(ChooseL0TileTest, AnUnalignedKThatDoesNotFitIsLeftAlone) {
  EXPECT_FALSE(ChooseL0Tile(kA2a3, 64, 64, 520, DataType::kFP32, DataType::kFP32).has_value());
}

TEST(ChooseL0TileTest, NoCapacitiesNoBlock) {
  EXPECT_FALSE(ChooseL0Tile(AutoTileMatmulL0Options{}, 16, 16, 16, DataType::kFP32,
                            DataType::kFP32).has_value());
}

}  // namespace
}  // namespace pto::passes
