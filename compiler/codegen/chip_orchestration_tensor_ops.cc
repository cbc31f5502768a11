#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/chip_callees.h"
#include "compiler/codegen/chip_orchestration_generator.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::chip_orch_internal {

// Compile-time integers of a tuple/list operand (shapes, offsets).
absl::StatusOr<std::vector<int64_t>> Generator::ConstInts(const ir::ExprPtr& e,
                                                          std::string_view what) {
  std::vector<ir::ExprPtr> items;
  if (auto tuple = ir::As<ir::MakeTuple>(e)) {
    items = tuple->elements();
  } else {
    return Unsupported(e->span(), pto::StrCat("a ", what, " that is not a literal list"));
  }
  std::vector<int64_t> out;
  for (const ir::ExprPtr& item : items) {
    auto c = ir::As<ir::ConstInt>(item);
    if (c == nullptr) return Unsupported(item->span(), pto::StrCat("a runtime ", what));
    out.push_back(c->value());
  }
  return out;
}

// A C++ int64_t expression of an index: a constant, a scalar of the entry
// (its uint64_t read back as signed), or +, -, * of those.
absl::StatusOr<std::string> Generator::IndexExpr(const ir::ExprPtr& e) {
  if (auto c = ir::As<ir::ConstInt>(e)) return pto::StrCat("int64_t{", c->value(), "}");
  if (auto b = ir::As<ir::BinaryExpr>(e)) {
    std::string_view op;
    switch (b->op()) {
      case ir::BinaryOp::kAdd:
        op = " + ";
        break;
      case ir::BinaryOp::kSub:
        op = " - ";
        break;
      case ir::BinaryOp::kMul:
        op = " * ";
        break;
      default:
        return Unsupported(e->span(), "index arithmetic other than +, - and *");
    }
    ASSIGN_OR_RETURN(std::string lhs, IndexExpr(b->lhs()));
    ASSIGN_OR_RETURN(std::string rhs, IndexExpr(b->rhs()));
    return pto::StrCat("(", lhs, op, rhs, ")");
  }
  if (!ir::Is<ir::Var>(e)) return Unsupported(e->span(), "this index expression");
  ASSIGN_OR_RETURN(Value v, Lookup(e));
  if (v.kind != Kind::kScalar) return Unsupported(e->span(), "a non-scalar index");
  return pto::StrCat("static_cast<int64_t>(", v.name, ")");
}

// The elements of a literal list operand.
absl::StatusOr<std::vector<ir::ExprPtr>> Generator::ListItems(const ir::ExprPtr& e,
                                                              std::string_view what) {
  auto tuple = ir::As<ir::MakeTuple>(e);
  if (tuple == nullptr) {
    return Unsupported(e->span(), pto::StrCat("a ", what, " that is not a literal list"));
  }
  return tuple->elements();
}

// pl.tensor.slice(src, shape, offsets): a view of the box of `src` with
// src's strides (pto::rt::Tensor::Slice), no copy. Kernels see its shape;
// the runtime tracks its dependencies on its span. A box outside a static
// source is a compile-time error; with runtime offsets the entry checks it,
// latches INVALID_ARGS and returns.
absl::StatusOr<Generator::Value> Generator::EmitSlice(const ir::Call& call, std::string_view hint,
                                                      int indent) {
  if (call.args().size() != 3) return Unsupported(call.span(), "this form of pl.tensor.slice");
  ASSIGN_OR_RETURN(Value src, Lookup(call.args()[0]));
  if (src.kind != Kind::kTensor) return Unsupported(call.span(), "a slice of a non-tensor");
  auto type = ir::AsTensorTypeLike(call.args()[0]->type());
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, ConstInts(call.args()[1], "slice shape"));
  ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> offsets, ListItems(call.args()[2], "slice offset"));
  if (type == nullptr || shape.size() != type->shape().size() ||
      offsets.size() != shape.size() || shape.empty() ||
      shape.size() > static_cast<size_t>(kMaxViewDims)) {
    return Unsupported(call.span(), "a pl.tensor.slice of this rank");
  }
  bool dynamic = false;
  std::string offset_list;
  std::string shape_list;
  for (size_t k = 0; k < shape.size(); ++k) {
    auto c = ir::As<ir::ConstInt>(offsets[k]);
    auto extent = ir::As<ir::ConstInt>(type->shape()[k]);
    if (shape[k] < 0) {
      return UserErrorF(call.span(), "pl.tensor.slice: dim ", k, " has the negative extent ",
                        shape[k]);
    }
    if (c != nullptr && extent != nullptr &&
        (c->value() < 0 || c->value() + shape[k] > extent->value())) {
      return UserErrorF(offsets[k]->span(), "pl.tensor.slice: dim ", k, ": the box [",
                        c->value(), ", ", c->value() + shape[k],
                        ") is outside the source's extent ", extent->value());
    }
    dynamic |= c == nullptr || extent == nullptr;
    ASSIGN_OR_RETURN(std::string o, IndexExpr(offsets[k]));
    pto::StrAppend(&offset_list, k == 0 ? "" : ", ", o);
    pto::StrAppend(&shape_list, k == 0 ? "" : ", ", "int64_t{", shape[k], "}");
  }
  Value v{Kind::kTensor, Fresh(hint)};
  v.task = src.task;
  const std::string error = Fresh(pto::StrCat(v.name, "_error"));
  needs_string_ = true;
  Line(indent, pto::StrCat("std::string ", error, ";"));
  Line(indent, pto::StrCat("const pto::rt::Tensor ", v.name, " = ", src.name, ".Slice({",
                           offset_list, "}, {", shape_list, "}, &", error, ");"));
  if (dynamic) {
    Line(indent, pto::StrCat("if (!", v.name, ".valid()) {"));
    Line(indent + 1,
         pto::StrCat("orch.report_fatal(pto::rt::kErrorInvalidArgs, ",
                     CppString(pto::StrCat(pipeline_, ": pl.tensor.slice at ",
                                           call.span().ToString(), ": ")),
                     " + ", error, ");"));
    Line(indent + 1, "return;");
    Line(indent, "}");
  }
  return v;
}

// pl.tensor.read(t, [i, ...]) of an integer tensor: the element, read on
// the AICPU (Orchestrator::get_tensor_data waits for its producer), as an
// index scalar (a block-table entry, a sequence length). Each index is
// checked against its dim at run time: outside, the entry latches
// INVALID_ARGS with the read's source location and returns.
absl::StatusOr<Generator::Value> Generator::EmitRead(const ir::Call& call, std::string_view hint,
                                                     int indent) {
  if (call.args().size() != 2) return Unsupported(call.span(), "this form of pl.tensor.read");
  ASSIGN_OR_RETURN(Value src, Lookup(call.args()[0]));
  auto type = ir::AsTensorTypeLike(call.args()[0]->type());
  if (src.kind != Kind::kTensor || type == nullptr) {
    return Unsupported(call.span(), "a pl.tensor.read of a non-tensor");
  }
  const ir::DataType dt = type->dtype();
  if (!ir::IsSignedInt(dt) && !ir::IsUnsignedInt(dt)) {
    return Unsupported(call.span(), pto::StrCat("a pl.tensor.read of a ", ir::DataTypeName(dt),
                                                " tensor (integer tensors only)"));
  }
  ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> indices, ListItems(call.args()[1], "read index"));
  if (indices.size() != type->shape().size() ||
      indices.size() > static_cast<size_t>(kMaxViewDims)) {
    return Unsupported(call.span(), "a pl.tensor.read with one index per dim of this rank");
  }
  const std::string ctype = pto::StrCat(ir::IsSignedInt(dt) ? "int" : "uint",
                                        ir::DataTypeBits(dt), "_t");
  Value v{Kind::kScalar, Fresh(hint)};
  std::string flat = "int64_t{0}";
  std::string outside;
  for (size_t k = 0; k < indices.size(); ++k) {
    ASSIGN_OR_RETURN(std::string index, IndexExpr(indices[k]));
    const std::string i = Fresh(pto::StrCat(v.name, "_i", k));
    Line(indent, pto::StrCat("const int64_t ", i, " = ", index, ";"));
    pto::StrAppend(&outside, k == 0 ? "" : " || ", i, " < 0 || ", i,
                   " >= static_cast<int64_t>(", src.name, ".ndims == 0 ? ", src.name,
                   ".bytes / ", src.name, ".elem_bytes : ", src.name, ".shape[", k, "])");
    flat = pto::StrCat(flat, " + ", i, " * static_cast<int64_t>(", src.name, ".Stride(", k, "))");
  }
  Line(indent, pto::StrCat("if (", outside, ") {"));
  Line(indent + 1, pto::StrCat("orch.report_fatal(pto::rt::kErrorInvalidArgs, ",
                               CppString(pto::StrCat(pipeline_, ": pl.tensor.read at ",
                                                     call.span().ToString(),
                                                     ": an index is outside the tensor")),
                               ");"));
  Line(indent + 1, "return;");
  Line(indent, "}");
  Line(indent,
       pto::StrCat("const uint64_t ", v.name, " = static_cast<uint64_t>(static_cast<int64_t>(",
                   "orch.get_tensor_data<", ctype, ">(", src.name, ", static_cast<uint64_t>(", flat,
                   "))));"));
  return v;
}

// The static shape of a tensor-typed expression.
absl::StatusOr<std::vector<int64_t>> Generator::StaticShape(const ir::ExprPtr& e) {
  auto type = ir::AsTensorTypeLike(e->type());
  if (type == nullptr) return Unsupported(e->span(), "a non-tensor operand");
  std::vector<int64_t> dims;
  for (const ir::ExprPtr& d : type->shape()) {
    auto c = ir::As<ir::ConstInt>(d);
    if (c == nullptr) return Unsupported(e->span(), "a tensor of dynamic shape");
    dims.push_back(c->value());
  }
  return dims;
}

// pl.tensor.view(src, shape, offsets): a byte range of `src`, so only a
// view that is one contiguous run of it (dims after the first one wider
// than 1 are whole); pl.tensor.slice keeps src's strides instead.
absl::StatusOr<Generator::Value> Generator::EmitView(const ir::Call& call, std::string_view hint,
                                                     int indent) {
  if (call.args().size() != 3) return Unsupported(call.span(), "this form of pl.tensor.view");
  ASSIGN_OR_RETURN(Value src, Lookup(call.args()[0]));
  ASSIGN_OR_RETURN(std::vector<int64_t> parent, StaticShape(call.args()[0]));
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, ConstInts(call.args()[1], "view shape"));
  ASSIGN_OR_RETURN(std::vector<int64_t> offsets, ConstInts(call.args()[2], "view offset"));
  auto type = ir::AsTensorTypeLike(call.args()[0]->type());
  if (shape.size() != parent.size() || offsets.size() != parent.size() || parent.empty()) {
    return Unsupported(call.span(), "a pl.tensor.view that changes the rank");
  }
  size_t first_wide = 0;
  while (first_wide + 1 < shape.size() && shape[first_wide] == 1) ++first_wide;
  for (size_t k = first_wide + 1; k < shape.size(); ++k) {
    if (offsets[k] != 0 || shape[k] != parent[k]) {
      return UserErrorF(call.span(),
                        "code generation supports only a pl.tensor.view that is one contiguous "
                        "run of its source in a chip orchestration (dim ",
                        k, " must start at 0 and span all ", parent[k],
                        " elements); a pl.tensor.view is a byte range — take a strided box with "
                        "pl.tensor.slice instead");
    }
  }
  const int64_t elem_bytes = ir::DataTypeBytes(type->dtype());
  int64_t offset = 0;
  int64_t bytes = elem_bytes;
  std::string dims;
  for (size_t k = 0; k < parent.size(); ++k) {
    offset = offset * parent[k] + offsets[k];
    bytes *= shape[k];
    pto::StrAppend(&dims, k == 0 ? "" : ", ", shape[k]);
  }
  Value v{Kind::kTensor, Fresh(hint)};
  v.task = src.task;
  Line(indent, pto::StrCat("const pto::rt::Tensor ", v.name, " = ", src.name, ".View(",
                           offset * elem_bytes, ", ", bytes, ", {", dims, "});"));
  return v;
}

// pl.tensor.assemble(target, src, offsets): one task of kAssembleKernel
// that copies `src` into the box of `target` (which it reads and writes).
absl::StatusOr<Generator::Value> Generator::EmitAssemble(const ir::Call& call, int indent) {
  if (call.args().size() != 3) {
    return Unsupported(call.span(), "this form of pl.tensor.assemble");
  }
  ASSIGN_OR_RETURN(Value target, Lookup(call.args()[0]));
  ASSIGN_OR_RETURN(Value src, Lookup(call.args()[1]));
  ASSIGN_OR_RETURN(std::vector<ir::ExprPtr> offsets, ListItems(call.args()[2], "assemble offset"));
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, StaticShape(call.args()[0]));
  if (target.kind != Kind::kTensor || src.kind != Kind::kTensor ||
      offsets.size() != shape.size()) {
    return Unsupported(call.span(), "this form of pl.tensor.assemble");
  }
  const int n = next_task_++;
  const std::string args = pto::StrCat("args", n);
  const std::string task = pto::StrCat("task", n);
  names_.insert(args);
  names_.insert(task);
  Line(indent, pto::StrCat("// pl.tensor.assemble (func_id ", func_ids_.at(kAssembleKernel),
                           ")"));
  Line(indent, pto::StrCat("pto::rt::TaskArgs ", args, ";"));
  Line(indent, pto::StrCat(args, ".add_inout(", target.name, ");"));
  Line(indent, pto::StrCat(args, ".add_input(", src.name, ");"));
  for (const ir::ExprPtr& o : offsets) {
    std::string index;
    if (auto c = ir::As<ir::ConstInt>(o)) {
      index = pto::StrCat(c->value());
    } else {
      ASSIGN_OR_RETURN(index, IndexExpr(o));
    }
    Line(indent, pto::StrCat(args, ".add_scalar(static_cast<uint64_t>(", index, "));"));
  }
  Line(indent, pto::StrCat("const pto::rt::TaskOutputs ", task, " = orch.submit_aiv_task(",
                           func_ids_.at(kAssembleKernel), ", ", args, ");"));
  target.task = task;
  return target;
}

// pl.tensor.create(shape, dtype=...): a device GM tensor the runtime
// allocates when its first writer (a kernel's pl.Out argument) is submitted,
// as TaskArgs::add_output(TensorCreateInfo) does; until then it has no C++
// value, so any other use first is a located error (Lookup).
absl::StatusOr<Generator::Value> Generator::EmitCreate(const ir::Call& call,
                                                       std::string_view hint) {
  for (const auto& [key, value] : call.kwargs()) {
    if (key != "dtype") {
      return Unsupported(call.span(), pto::StrCat("pl.tensor.create's '", key, "'"));
    }
  }
  Value v{Kind::kTensor, Fresh(hint)};
  ASSIGN_OR_RETURN(v.create, CreateInfo(call.type(), call.span()));
  v.create_depth = loops_.size();
  return v;
}

}  // namespace pto::codegen::chip_orch_internal
