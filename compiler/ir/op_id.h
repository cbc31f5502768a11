// Operator identity: every registered operator has an OpId, so passes and code
// generation ask `IsOp(call, OpId::kPlTileStore)` (expr.h) instead of comparing
// name strings. The enumerators come from op_list.inc, the one list of names.
// The collectives are not in that list: their ids are handed out at start-up,
// one per operator the registry builds from a CollectiveDef
// (compiler/ops/collective_def.cc), so a collective is added in its def alone
// and passes ask its def, not its id (docs/collectives.md).
#ifndef PTO_COMPILER_IR_OP_ID_H_
#define PTO_COMPILER_IR_OP_ID_H_

#include <cstdint>
#include <string_view>

#include "compiler/ir/op_list.inc"

namespace pto::ir {

enum class OpId : uint16_t {
  kUnknown = 0,  // not an operator: a function (GlobalVar) or an unregistered name
#define PTO_OP_ENUM(id, name) id,
  PTO_OP_LIST(PTO_OP_ENUM)
#undef PTO_OP_ENUM
};

// Number of the ids op_list.inc names, including kUnknown (0 .. kNumOpIds - 1).
inline constexpr size_t kNumOpIds = 1
#define PTO_OP_COUNT(id, name) +1
    PTO_OP_LIST(PTO_OP_COUNT)
#undef PTO_OP_COUNT
    ;

// Hands out the next id past op_list.inc to `name` (the same id again for a
// name that has one). Only the operator registry calls it, while it registers,
// before any Op node of that name is built (Op nodes resolve their id once).
OpId AllocateOpId(std::string_view name);
// kNumOpIds plus the ids handed out so far.
size_t NumOpIds();
// The registry's start-up, run once by the first lookup that misses before
// any id was handed out: an Op node built by name (ir::MakeOpCall) before the
// registry resolves a collective's id all the same.
void SetOpIdAllocator(void (*allocate_all)());

// The canonical name of `id` ("" for kUnknown or an id not handed out).
std::string_view OpIdName(OpId id);
// The id of a canonical name; kUnknown for an alias or an unknown name (the
// parser resolves aliases through the registry before it builds a call).
OpId OpIdFromName(std::string_view name);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_OP_ID_H_
