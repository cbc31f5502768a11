// Operator identity: every registered operator has an OpId, so passes and code
// generation ask `IsOp(call, OpId::kPlTileStore)` (expr.h) instead of comparing
// name strings. The enumerators come from op_list.inc, the one list of names.
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

// Number of OpIds including kUnknown (ids are 0 .. kNumOpIds - 1).
inline constexpr size_t kNumOpIds = 1
#define PTO_OP_COUNT(id, name) +1
    PTO_OP_LIST(PTO_OP_COUNT)
#undef PTO_OP_COUNT
    ;

// The canonical name of `id` ("" for kUnknown).
std::string_view OpIdName(OpId id);
// The id of a canonical name; kUnknown for an alias or an unknown name (the
// parser resolves aliases through the registry before it builds a call).
OpId OpIdFromName(std::string_view name);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_OP_ID_H_
