// AutoTileMatmulL0 (PyPTO pass 15): a `pl.tile.matmul` / `_acc` / `_bias`
// of Mat (L1) operands whose Left (L0A), Right (L0B) or Acc (L0C) tile would
// not fit its buffer on the platform becomes a chain of L0-sized blocks:
// `pl.tile.extract` of an [m, k] / [k, n] window into Left / Right, a matmul
// of the first k block, matmul_acc of the others; an output over L0C becomes
// a grid of [m, n] sub-tiles, each stored to its window of the output.
// Without a platform cube model there are no capacities and the pass
// changes nothing. See docs/passes/AutoTileMatmulL0.md.
#ifndef PTO_COMPILER_PASSES_AUTO_TILE_MATMUL_L0_H_
#define PTO_COMPILER_PASSES_AUTO_TILE_MATMUL_L0_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "compiler/ir/dtype.h"
#include "compiler/passes/pass.h"

namespace pto::passes {

struct AutoTileMatmulL0Options {
  int64_t l0a_bytes = 0;  // 0: no cube model, nothing to tile against
  int64_t l0b_bytes = 0;
  int64_t l0c_bytes = 0;
};

// The L0 block of an [M, K] x [K, N] matmul: m, n, k.
struct L0Tile {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// The block a matmul is tiled into, or nullopt when it fits L0 whole or no
// block of the cube's 16-element fractal fits (then it is left alone and
// AllocateMemoryAddr reports the buffer it overflows). The output keeps its
// whole [M, N] when that fits L0C (otherwise the fractal multiples needing
// the fewest sub-tiles, then the largest area, then the widest n); k is
// the largest multiple of 16 whose Left and Right windows fit (K itself when
// it does). `whole_n` keeps n = N (a matmul_bias). Exposed for tests.
std::optional<L0Tile> ChooseL0Tile(const AutoTileMatmulL0Options& caps, int64_t m, int64_t n,
                                   int64_t k, ir::DataType operand, ir::DataType acc,
                                   bool whole_n = false);

class AutoTileMatmulL0Pass : public Pass {
 public:
  explicit AutoTileMatmulL0Pass(AutoTileMatmulL0Options options) : options_(options) {}
  std::string_view name() const override { return "AutoTileMatmulL0"; }
  // PyPTO: requires and produces SSAForm, SplitIncoreOrch, IncoreTileOps,
  // TileOps2D (and NormalizedStmtStructure, which our builders keep).
  IRPropertySet required() const override {
    return {IRProperty::kSSAForm, IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps,
            IRProperty::kTileOps2D};
  }
  IRPropertySet produced() const override { return required(); }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;

 private:
  AutoTileMatmulL0Options options_;
};

std::unique_ptr<Pass> CreateAutoTileMatmulL0Pass(AutoTileMatmulL0Options options);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_AUTO_TILE_MATMUL_L0_H_
