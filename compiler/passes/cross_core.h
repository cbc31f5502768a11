// What the mixed-kernel passes (ExpandMixedKernel 21, StampTfreeSplit 24)
// share about the cross-core pipes of a 1C2V cluster: which core a tile's
// memory space belongs to, the pipe depth, and the pipe checks of PyPTO's
// MixedKernelExpanded verifier.
#ifndef PTO_COMPILER_PASSES_CROSS_CORE_H_
#define PTO_COMPILER_PASSES_CROSS_CORE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "compiler/ir/function.h"

namespace pto::passes::cross_core {

// A bit set: the cores a statement's tiles and operators run on.
struct Side {
  static constexpr uint8_t kCube = 1;    // the AIC: Mat, Left, Right, Acc, Bias
  static constexpr uint8_t kVector = 2;  // the AIV: Vec (UB)
  static constexpr uint8_t kMixed = 3;
};

// PyPTO's cross_core_pipe::kDefaultAutoPipeSlotNum: a ring of 2 slots in
// every direction.
inline constexpr int64_t kSlotNum = 2;

// The core a tile of `type` lives on; 0 for a non-tile or a tile without a
// space.
uint8_t TypeSide(const ir::TypePtr& type);

// Whether `stmt` reads `var`.
bool Uses(const ir::StmtPtr& stmt, const ir::Var* var);

// The pipe checks of MixedKernelExpanded for one AIC or AIV function: an AIC
// tpop lands in Mat, an AIV one in Vec; every tpop's tile is freed by a
// tfree of the matching direction; a function with tpush / tpop initialises
// its pipe. An internal error at the offender otherwise.
absl::Status VerifyPipes(const ir::Function& fn);

}  // namespace pto::passes::cross_core

#endif  // PTO_COMPILER_PASSES_CROSS_CORE_H_
