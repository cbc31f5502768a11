// What the three memory passes (InitMemRef 31, MemoryReuse 33,
// AllocateMemoryAddr 34) share: which functions hold UB tiles, a tile's
// MemRef and byte size, and the rewrite that moves tile definitions onto new
// MemRefs (every use follows the definition).
#ifndef PTO_COMPILER_PASSES_TILE_MEMREFS_H_
#define PTO_COMPILER_PASSES_TILE_MEMREFS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::passes {

// InCore, AIC and AIV functions: the kernels whose tiles live in UB.
bool HoldsTiles(const ir::FunctionPtr& fn);

// The MemRef of a tile-typed value, or nullptr (not a tile, or none yet).
ir::MemRefPtr TileMemRef(const ir::TypePtr& type);

// The bytes of a tile type with constant dims in its buffer (a cube space's
// padded footprint); nullopt for a dynamic dim.
std::optional<int64_t> TileBytes(const ir::TileType& tile);

// A new definition of `var` with `type`: an IterArg keeps its init value,
// given by `init` (the caller's mutation of it).
ir::VarPtr RetypedVarDef(const ir::VarPtr& var, ir::TypePtr type,
                         const std::function<ir::ExprPtr(const ir::ExprPtr&)>& init);

// The trailing yield of a loop or branch body, or nullptr.
std::shared_ptr<const ir::YieldStmt> TrailingYield(const ir::StmtPtr& body);

// Rebinds the definitions of the tile vars of a map (keyed by the defining
// Var) to types carrying their new MemRef; every later use follows.
class TileRetyper : public ir::IRMutator {
 public:
  explicit TileRetyper(absl::flat_hash_map<const ir::Var*, ir::MemRefPtr> memrefs)
      : memrefs_(std::move(memrefs)) {}

 protected:
  ir::VarPtr MutateVarDef(const ir::VarPtr& var) override;

 private:
  absl::flat_hash_map<const ir::Var*, ir::MemRefPtr> memrefs_;
};

// `tile` carrying `memref`.
ir::TypePtr TileWithMemRef(const ir::TileType& tile, ir::MemRefPtr memref);

// `body` with each tile var of `memrefs` (keyed by its defining Var) defined
// with that MemRef in its type, and every use rebound to the new var.
ir::StmtPtr RetypeTileVars(const ir::StmtPtr& body,
                           const absl::flat_hash_map<const ir::Var*, ir::MemRefPtr>& memrefs);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TILE_MEMREFS_H_
