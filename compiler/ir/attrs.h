// Ordered key/value metadata on calls (kwargs and attrs), functions and loops.
#ifndef PTO_COMPILER_IR_ATTRS_H_
#define PTO_COMPILER_IR_ATTRS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/ir/enums.h"

namespace pto::ir {

class Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// The value kinds the spec stores (§1.8): flags, ints, strings, dtypes, IR
// expressions (`device`, `core_num`), direction vectors, var lists.
using AttrValue = std::variant<bool, int64_t, double, std::string, DataType, ExprPtr,
                               std::vector<int64_t>, std::vector<ArgDirection>,
                               std::vector<ExprPtr>>;

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// Lookup helpers over an ordered AttrList.
const AttrValue* FindAttr(const AttrList& attrs, std::string_view key);
inline bool HasAttr(const AttrList& attrs, std::string_view key) {
  return FindAttr(attrs, key) != nullptr;
}
template <typename T>
std::optional<T> GetAttr(const AttrList& attrs, std::string_view key) {
  const AttrValue* v = FindAttr(attrs, key);
  if (v == nullptr || !std::holds_alternative<T>(*v)) return std::nullopt;
  return std::get<T>(*v);
}
// Replaces the value of `key` or appends it (keeps order otherwise).
AttrList WithAttr(AttrList attrs, std::string key, AttrValue value);

// Keys whose values are IR expressions and must be rewritten by SSA passes
// (spec §1.8 IsExprValuedCallAttr, plus `predicate`).
bool IsExprValuedAttrKey(std::string_view key);
// Keys whose values are lists of Vars.
bool IsVarListAttrKey(std::string_view key);

// Well-known keys.
inline constexpr char kAttrDevice[] = "device";
inline constexpr char kAttrCoreNum[] = "core_num";
inline constexpr char kAttrSyncStart[] = "sync_start";
inline constexpr char kAttrArgDirections[] = "arg_directions";
// `pl.submit(self.f, ...)`: a call between functions that also yields the
// submitted task's TASK_ID (its type is tuple[<f's results>, TASK_ID]).
inline constexpr char kAttrSubmit[] = "submit";
// `deps=[...]` of pl.submit (an attr) and pl.system.task_dummy (a kwarg): the
// task ids the task waits for, Vars of Scalar[TASK_ID] or Array[N, TASK_ID]
// (PyPTO's typed Submit::deps_).
inline constexpr char kAttrDeps[] = "deps";
// `with pl.at(...) as tid:` (an ExecScopeStmt attr, PyPTO's task_id_var): the
// Var of Scalar[TASK_ID] bound to the task the outlined scope submits. The
// printer writes it as the `as` target, not in the attrs dict.
inline constexpr char kAttrTaskIdVar[] = "task_id_var";
// pl.pipeline(n, stage=N): the pipeline depth of a ForKind::kPipeline loop.
inline constexpr char kAttrPipelineStages[] = "pipeline_stages";
// A pl.tile.load of a lowered pl.pipeline copy (LowerPipelineLoops): its
// "loop:stage" pairs, ';'-joined (PyPTO's pipeline_membership). MemoryReuse
// keeps loads of one loop's different stages in different buffers.
inline constexpr char kAttrPipelineMembership[] = "pipeline_membership";

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_ATTRS_H_
