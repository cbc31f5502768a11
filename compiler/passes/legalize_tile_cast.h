// LegalizeTileCast (PyPTO pass 14): a `pl.tile.cast` whose (source, target)
// dtype pair is not one `pto.tcvt` instruction on the target platform becomes
// the shortest chain of native casts through intermediate tiles. Without a
// platform there is no table to legalize against and the pass changes
// nothing (as PyPTO's without a backend). See docs/passes/LegalizeTileCast.md.
#ifndef PTO_COMPILER_PASSES_LEGALIZE_TILE_CAST_H_
#define PTO_COMPILER_PASSES_LEGALIZE_TILE_CAST_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/tcvt_table.h"

namespace pto::passes {

struct LegalizeTileCastOptions {
  std::string platform;  // empty: no platform, nothing to legalize against
  std::string arch;      // Target::arch; empty: a cast that needs it is an error
};

class LegalizeTileCastPass : public Pass {
 public:
  explicit LegalizeTileCastPass(LegalizeTileCastOptions options) : options_(std::move(options)) {}
  std::string_view name() const override { return "LegalizeTileCast"; }
  // PyPTO declares no properties for this pass.
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;

 private:
  LegalizeTileCastOptions options_;
};

std::unique_ptr<Pass> CreateLegalizeTileCastPass(LegalizeTileCastOptions options);

// The dtypes after `from` of the shortest chain of native casts from `from`
// to `to` (just {to} for a native pair), empty when there is none. Every
// intermediate keeps what `to` can represent; among chains of one length the
// one that first goes integer -> float of the same width, then changes width
// in floats, wins. Exposed for tests.
std::vector<ir::DataType> FindCastChain(const TcvtTable& table, ir::DataType from,
                                        ir::DataType to);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_LEGALIZE_TILE_CAST_H_
