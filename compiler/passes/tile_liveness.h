// Where each UB tile of a kernel is defined and used, in program order: the
// lifetime analysis of MemoryReuse (PyPTO pass 33). Statements are numbered in
// a pre-order walk; a loop or branch has a start and an end number around its
// body, so one number orders every definition and use of a kernel.
#ifndef PTO_COMPILER_PASSES_TILE_LIVENESS_H_
#define PTO_COMPILER_PASSES_TILE_LIVENESS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"

namespace pto::passes {

struct TileUse {
  int pos = 0;
  std::vector<int> loops;  // indices into TileLiveness::regions, outermost first
};

struct TileDef {
  int pos = 0;
  // The operator that writes the tile ("" for an alias, an iter arg or a
  // return var) and whether it may write the buffer one of its operands is
  // read from at the same statement (an elementwise operator reads before it
  // writes; a move or a widening cast does not).
  std::string op;
  bool in_place_safe = false;
};

// A loop (For/While) or an if, with its numbers and the values it carries.
struct Region {
  bool is_loop = false;
  int start = 0;
  int end = 0;
  int else_start = 0;  // if: the first number of the else branch (end if none)
  const ir::Stmt* stmt = nullptr;
  std::vector<ir::IterArgPtr> iter_args;
  std::vector<ir::VarPtr> return_vars;
  std::vector<ir::ExprPtr> yields;       // loop: the body's trailing yield
  std::vector<ir::ExprPtr> else_yields;  // if: the else branch's trailing yield
};

struct TileLiveness {
  absl::flat_hash_map<const ir::Var*, TileDef> defs;
  absl::flat_hash_map<const ir::Var*, std::vector<TileUse>> uses;
  absl::flat_hash_map<const ir::Var*, ir::VarPtr> vars;  // keeps each key's Var
  std::vector<Region> regions;  // in post-order: inner regions first
};

// The liveness of the tile vars of `body`.
TileLiveness AnalyzeTileLiveness(const ir::StmtPtr& body);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_TILE_LIVENESS_H_
