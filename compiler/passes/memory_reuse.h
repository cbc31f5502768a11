// MemoryReuse (PyPTO pass 33): UB tiles of a kernel whose lifetimes do not
// overlap share one MemRef. A loop's yielded tile takes the buffer of its iter
// arg when the iter arg is no longer read (the update is in place); where that
// is not possible a `pl.tile.move` before the yield copies the value into the
// carried buffer, as PyPTO's yield fixup does. A branch's yields share one
// buffer when each is computed in its branch; otherwise the return var names
// either, and both live as long as it. Then the buffers are packed largest
// first. See docs/passes/MemoryReuse.md.
#ifndef PTO_COMPILER_PASSES_MEMORY_REUSE_H_
#define PTO_COMPILER_PASSES_MEMORY_REUSE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class MemoryReusePass : public Pass {
 public:
  std::string_view name() const override { return "MemoryReuse"; }
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps, IRProperty::kTileOps2D,
            IRProperty::kHasMemRefs, IRProperty::kNormalizedStmtStructure};
  }
  IRPropertySet produced() const override { return {IRProperty::kNormalizedStmtStructure}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateMemoryReusePass();

// The carry step (PyPTO's must-alias buffers, pass 32
// MaterializeSemanticAliases): each loop carry and if result made one
// buffer, with the pl.tile.move copies where a merge is not possible. The
// body of `fn` rewritten; the same body when there is nothing to do (so it
// is idempotent). MemoryReuse runs it first as well.
absl::StatusOr<ir::StmtPtr> MaterializeCarries(const ir::FunctionPtr& fn);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_MEMORY_REUSE_H_
