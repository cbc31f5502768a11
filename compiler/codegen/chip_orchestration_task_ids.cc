#include <string>
#include <vector>

#include "compiler/codegen/chip_orchestration_generator.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::chip_orch_internal {

bool Generator::IsTaskIdOp(ir::OpId id) {
  return id == ir::OpId::kPlSystemTaskDummy || id == ir::OpId::kPlSystemTaskInvalid ||
         id == ir::OpId::kPlArrayCreate || id == ir::OpId::kPlArrayGetElement ||
         id == ir::OpId::kPlArrayUpdateElement;
}

// The index operand of an array access, checked against the extent at run
// time (a bad index latches INVALID_ARGS instead of writing past the array).
absl::StatusOr<std::string> Generator::ArrayIndex(const ir::ExprPtr& index, const Value& array,
                                                  int indent) {
  std::string i;
  if (auto c = ir::As<ir::ConstInt>(index)) {
    i = pto::StrCat(c->value());
  } else {
    ASSIGN_OR_RETURN(Value v, Lookup(index));
    if (v.kind != Kind::kScalar) return Unsupported(index->span(), "a non-scalar array index");
    i = v.name;
  }
  Line(indent, pto::StrCat("if (static_cast<uint64_t>(", i, ") >= ", array.extent, ") {"));
  Line(indent + 1,
       pto::StrCat("orch.report_fatal(pto::rt::kErrorInvalidArgs, ",
                   CppString(pto::StrCat(index->span().ToString(), ": index of ", array.name,
                                         " outside its ", array.extent, " task ids")),
                   ");"));
  Line(indent + 1, "return;");
  Line(indent, "}");
  return i;
}

// pl.system.task_invalid / task_dummy and the Array[N, TASK_ID] operators.
absl::StatusOr<Generator::Value> Generator::EmitTaskIdOp(const ir::Call& call,
                                                         std::string_view hint, int indent) {
  const ir::OpId id = call.op()->id();
  if (id == ir::OpId::kPlSystemTaskInvalid) {
    Value v{Kind::kTaskId, Fresh(hint)};
    Line(indent, pto::StrCat("const pto::rt::TaskId ", v.name, " = pto::rt::kInvalidTaskId;"));
    return v;
  }
  if (id == ir::OpId::kPlSystemTaskDummy) {
    const int n = next_task_++;
    const std::string args = pto::StrCat("args", n);
    names_.insert(args);
    Value v{Kind::kTaskId, Fresh(hint)};
    Line(indent, "// pl.system.task_dummy: a dependency-only task");
    Line(indent, pto::StrCat("pto::rt::TaskArgs ", args, ";"));
    RETURN_IF_ERROR(EmitDeps(call, ir::kAttrDeps, args, indent));
    auto deps = ir::GetAttr<std::vector<ir::ExprPtr>>(call.kwargs(), ir::kAttrDeps);
    if (deps.has_value() && !deps->empty()) {
      // As PyPTO: a fence whose deps are all still invalid fences nothing
      // and is not submitted; its id stays invalid.
      Line(indent, pto::StrCat("pto::rt::TaskId ", v.name, " = pto::rt::kInvalidTaskId;"));
      Line(indent, pto::StrCat("if (!", args, ".deps().empty()) ", v.name,
                               " = orch.submit_dummy_task(", args, ").task;"));
    } else {
      Line(indent, pto::StrCat("const pto::rt::TaskId ", v.name, " = orch.submit_dummy_task(",
                               args, ").task;"));
    }
    return v;
  }
  if (id == ir::OpId::kPlArrayCreate) {
    auto at = ir::As<ir::ArrayType>(call.type());
    if (at == nullptr || at->dtype() != ir::DataType::kTaskId || !at->ConstExtent()) {
      return Unsupported(call.span(), "a pl.Array of anything but TASK_ID");
    }
    Value v{Kind::kTaskArray, Fresh(hint)};
    v.extent = *at->ConstExtent();
    Line(indent, pto::StrCat(CppType(v), " ", v.name, ";"));
    Line(indent, pto::StrCat(v.name, ".fill(pto::rt::kInvalidTaskId);"));
    return v;
  }
  ASSIGN_OR_RETURN(Value array, Lookup(call.args()[0]));
  if (array.kind != Kind::kTaskArray) {
    return Unsupported(call.span(), "a pl.Array of anything but TASK_ID");
  }
  ASSIGN_OR_RETURN(std::string i, ArrayIndex(call.args()[1], array, indent));
  if (id == ir::OpId::kPlArrayGetElement) {
    Value v{Kind::kTaskId, Fresh(hint)};
    Line(indent, pto::StrCat("const pto::rt::TaskId ", v.name, " = ", array.name, "[", i, "];"));
    return v;
  }
  ASSIGN_OR_RETURN(Value elem, Lookup(call.args()[2]));
  if (elem.kind != Kind::kTaskId) return Unsupported(call.span(), "storing a non-task id");
  Value v = array;
  v.name = Fresh(hint);
  v.task.clear();
  Line(indent, pto::StrCat(CppType(v), " ", v.name, " = ", array.name, ";"));
  Line(indent, pto::StrCat(v.name, "[", i, "] = ", elem.name, ";"));
  return v;
}

}  // namespace pto::codegen::chip_orch_internal
