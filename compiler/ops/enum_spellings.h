// The enums operator attributes take, with PyPTO's spellings
// (`pld.ReduceOp.Sum`, `pld.NotifyOp.AtomicAdd`, `pl.MemorySpace.Vec`, ...).
// ABI enums (ReduceOp, NotifyOp, WaitCmp, AtomicType, PipeType) are stored in
// a Call's kwargs as their integer code, the others (MemorySpace,
// TensorLayout, TileLayout, PadValue) as the member's name; both forms print
// and re-parse. Function-level enums (pl.Level, pl.Role, pl.ArgDirection,
// pl.FunctionType) are compiler/ir/enums.h's and are read by the parser.
#ifndef PTO_COMPILER_OPS_ENUM_SPELLINGS_H_
#define PTO_COMPILER_OPS_ENUM_SPELLINGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/attrs.h"

namespace pto::ops {

struct EnumDef {
  std::string_view name;       // "ReduceOp"
  std::string_view short_name; // another spelling of the enum (pl.Mem for pl.MemorySpace)
  bool int_coded;              // stored as the member's code (else as its name)
  std::vector<std::string_view> members;  // in code order
  std::vector<std::pair<std::string_view, std::string_view>> aliases;  // alias -> member
};

// nullptr if `name` is not an operator-attribute enum.
const EnumDef* FindEnum(std::string_view name);

// The stored value of a spelling of `enum_name`: "pld.ReduceOp.Max",
// "pl.ReduceOp.Max", "ReduceOp.Max" (and "Max" when `bare` is true).
std::optional<ir::AttrValue> EnumValueFromPath(std::string_view enum_name, std::string_view path);

// The canonical stored value for an already-converted attribute (an int code
// or a member name); nullopt if `value` is not a member.
std::optional<ir::AttrValue> EnumValueFromAttr(const EnumDef& e, const ir::AttrValue& value);

// "pld.ReduceOp.Sum, pld.ReduceOp.Max, ..." for messages.
std::string EnumMemberList(const EnumDef& e);

// Integer value of a spelled ABI enum member regardless of its enum, or of a
// named integer constant of the language (pl.AUTO = -1), for the parser's
// constant evaluation ("pld.ReduceOp.Max" -> 1); nullopt otherwise.
std::optional<int64_t> IntEnumConstant(std::string_view path);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_ENUM_SPELLINGS_H_
