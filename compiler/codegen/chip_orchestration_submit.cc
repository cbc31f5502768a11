#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/aic_kernel.h"
#include "compiler/codegen/chip_callees.h"
#include "compiler/codegen/chip_orchestration_generator.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::chip_orch_internal {

namespace {

constexpr char kRequireContiguous[] = "require_contiguous_operands";

const ir::AttrValue* FindCallAttr(const ir::Call& call, std::string_view key) {
  const ir::AttrValue* v = ir::FindAttr(call.attrs(), key);
  return v != nullptr ? v : ir::FindAttr(call.kwargs(), key);
}

// A compile-time integer attr (int64_t or ConstInt), if present.
absl::StatusOr<std::optional<int64_t>> IntAttr(const ir::Call& call, std::string_view key) {
  const ir::AttrValue* v = FindCallAttr(call, key);
  if (v == nullptr) return std::optional<int64_t>();
  if (const auto* i = std::get_if<int64_t>(v)) return std::optional<int64_t>(*i);
  if (const auto* e = std::get_if<ir::ExprPtr>(v)) {
    if (auto c = ir::As<ir::ConstInt>(*e)) return std::optional<int64_t>(c->value());
  }
  return UserErrorF(call.span(), "code generation does not support a runtime '", key,
                    "' in a chip orchestration yet");
}

absl::StatusOr<bool> BoolAttr(const ir::Call& call, std::string_view key) {
  const ir::AttrValue* v = FindCallAttr(call, key);
  if (v == nullptr) return false;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  if (const auto* e = std::get_if<ir::ExprPtr>(v)) {
    if (auto c = ir::As<ir::ConstBool>(*e)) return c->value();
  }
  return UserErrorF(call.span(), "code generation does not support a runtime '", key,
                    "' in a chip orchestration yet");
}

}  // namespace

// `name` as the kernel parameter sees it: a rank-padded slice (pass 36
// pads a [2, 4] create assembled into [2, 4, 8] to the view [1, 2, 4])
// passed to a parameter of lower rank drops its leading 1s.
absl::StatusOr<std::string> Generator::MatchParamRank(const std::string& name,
                                                      const ir::ExprPtr& arg, const ir::Var& param,
                                                      const Span& at, int indent) {
  auto arg_type = ir::AsTensorTypeLike(arg->type());
  auto param_type = ir::AsTensorTypeLike(param.type());
  if (arg_type == nullptr || param_type == nullptr ||
      arg_type->shape().size() <= param_type->shape().size() || param_type->shape().empty()) {
    return name;
  }
  const size_t drop = arg_type->shape().size() - param_type->shape().size();
  for (size_t k = 0; k < drop; ++k) {
    std::optional<int64_t> d = ir::GetConstInt(arg_type->shape()[k]);
    if (!d.has_value() || *d != 1) {
      return UserErrorF(at, "a tensor of rank ", arg_type->shape().size(),
                        " passed to the parameter '", param.name_hint(), "' of rank ",
                        param_type->shape().size(), " must have leading dims of 1");
    }
  }
  const std::string view = Fresh(pto::StrCat(name, "_", param.name_hint()));
  Line(indent, pto::StrCat("const pto::rt::Tensor ", view, " = ", name, ".DropLeadingDims(",
                           drop, ");"));
  return view;
}

// The orchestrator call that submits a kernel of `type`; "" for a
// function that is not a kernel.
std::string_view Generator::SubmitFunction(const ir::Function& callee) {
  switch (callee.func_type()) {
    case ir::FunctionType::kAIC:
      return "submit_aic_task";
    case ir::FunctionType::kAIV:
      return "submit_aiv_task";
    case ir::FunctionType::kInCore:
      // Cube work only: an AIC kernel (kernel_config.cc lists it as AIC).
      return IsAicKernel(callee) ? "submit_aic_task" : "submit_aiv_task";
    default:
      return "";
  }
}

// The kernels argument of a submit and the comment naming them: a func_id,
// or a MIX task's AIC and AIV func_ids (lane 1 unused).
std::pair<std::string, std::string> Generator::KernelIds(const std::optional<MixMembers>& mix,
                                                         const std::string& callee) const {
  if (!mix) {
    const std::string id = pto::StrCat(func_ids_.at(callee));
    return {id, pto::StrCat("func_id ", id)};
  }
  const int aic = func_ids_.at(mix->aic->name());
  const int aiv = func_ids_.at(mix->aiv->name());
  // SplitVectorKernel (pass 23) marks an AIV half that runs on both lanes.
  const bool dual = ir::GetAttr<bool>(mix->aiv->attrs(), "dual_aiv_dispatch").value_or(false);
  return {pto::StrCat("pto::rt::MixKernels{", aic, ", ", aiv, ", ", dual ? aiv : -1, "}"),
          pto::StrCat("MIX task, func_ids ", aic, ", ", aiv, dual ? " on both AIV lanes" : "")};
}

// Emits one task; returns what the call evaluates to.
absl::StatusOr<Generator::Value> Generator::EmitSubmit(const ir::Call& call, int indent) {
  const std::string& callee_name = call.op()->name();
  ir::FunctionPtr callee = program_->GetFunction(callee_name);
  if (callee == nullptr) {
    return InternalErrorF(call.span(), "call of '", callee_name, "', which is not in the program");
  }
  // A mixed kernel's Group is one MIX task: its AIC and one AIV lane.
  const std::optional<MixMembers> mix = MixMembersOf(*program_, *callee);
  const std::string_view submit = mix ? "submit_mix_task" : SubmitFunction(*callee);
  if (submit.empty()) {
    return Unsupported(call.span(), pto::StrCat("a call of the non-kernel '", callee_name, "'"));
  }
  auto dirs = ir::GetAttr<std::vector<ir::ArgDirection>>(call.attrs(), ir::kAttrArgDirections);
  if (!dirs.has_value()) {
    dirs = ir::GetAttr<std::vector<ir::ArgDirection>>(call.kwargs(), ir::kAttrArgDirections);
  }
  if (!dirs.has_value() || dirs->size() != call.args().size() ||
      callee->params().size() != call.args().size()) {
    return Unsupported(call.span(), "a kernel call without one arg direction per argument");
  }
  const int n = next_task_++;
  const std::string args = pto::StrCat("args", n);
  const std::string task = pto::StrCat("task", n);
  names_.insert(args);
  names_.insert(task);
  const auto [kernel_ids, ids_comment] = KernelIds(mix, callee_name);
  Line(indent, pto::StrCat("// ", callee_name, " (", ids_comment, ")"));
  const bool contiguous = ir::GetAttr<bool>(callee->attrs(), kRequireContiguous).value_or(false);

  // Per argument: the tensor passed (or "" for a runtime-allocated output).
  std::vector<Value> passed(call.args().size());
  std::vector<std::string> adds;
  int outputs = 0;
  std::map<int, int> output_index;  // arg -> TaskOutputs::outputs index
  for (size_t i = 0; i < call.args().size(); ++i) {
    const ir::ExprPtr& arg = call.args()[i];
    const ir::ArgDirection dir = (*dirs)[i];
    if (dir == ir::ArgDirection::kScalar) {
      if (auto c = ir::As<ir::ConstInt>(arg)) {
        adds.push_back(pto::StrCat("add_scalar(static_cast<uint64_t>(", c->value(), "));"));
        continue;
      }
      ASSIGN_OR_RETURN(Value v, Lookup(arg));
      if (v.kind != Kind::kScalar) return Unsupported(arg->span(), "a non-scalar Scalar argument");
      adds.push_back(pto::StrCat("add_scalar(", v.name, ");"));
      continue;
    }
    if (dir == ir::ArgDirection::kOutput) {
      ASSIGN_OR_RETURN(std::string info, CreateInfo(callee->params()[i]->type(), arg->span()));
      adds.push_back(pto::StrCat("add_output(", info, ");"));
      output_index[static_cast<int>(i)] = outputs++;
      continue;
    }
    // A pl.Out parameter only writes (in a sequential loop DeriveCallDirections
    // says InOut, for the order of the iterations' writes).
    const bool out_param = i < callee->param_directions().size() &&
                           callee->param_directions()[i] == ir::ParamDirection::kOut;
    if (dir == ir::ArgDirection::kOutputExisting ||
        (dir == ir::ArgDirection::kInOut && out_param)) {
      ASSIGN_OR_RETURN(bool created,
                       AddCreatedOutput(arg, *callee->params()[i], call.span(), passed,
                                        &passed[i], &adds));
      if (created) {
        output_index[static_cast<int>(i)] = outputs++;
        continue;
      }
    }
    ASSIGN_OR_RETURN(passed[i], Lookup(arg));
    if (passed[i].kind != Kind::kTensor) {
      return Unsupported(arg->span(), "a non-tensor tensor argument");
    }
    ASSIGN_OR_RETURN(passed[i].name,
                     MatchParamRank(passed[i].name, arg, *callee->params()[i], call.span(),
                                    indent));
    std::string_view method;
    switch (dir) {
      case ir::ArgDirection::kInput:
        method = "add_input";
        break;
      case ir::ArgDirection::kInOut:
        method = "add_inout";
        break;
      case ir::ArgDirection::kOutputExisting:
        method = "add_output";
        break;
      default:
        method = "add_no_dep";
        break;
    }
    adds.push_back(pto::StrCat(method, "(", passed[i].name, ");"));
    if (contiguous) {
      needs_contiguity_ = true;
      Line(indent, pto::StrCat("if (!is_contiguous(", passed[i].name, ")) {"));
      Line(indent + 1, pto::StrCat("orch.report_fatal(pto::rt::kErrorInvalidArgs, ",
                                   CppString(pto::StrCat(callee_name, ": operand ", i, " (",
                                                         passed[i].name,
                                                         ") is not contiguous")),
                                   ");"));
      Line(indent + 1, "return;");
      Line(indent, "}");
    }
  }
  Line(indent, pto::StrCat("pto::rt::TaskArgs ", args, ";"));
  for (const std::string& add : adds) Line(indent, pto::StrCat(args, ".", add));
  ASSIGN_OR_RETURN(std::optional<int64_t> core_num, IntAttr(call, ir::kAttrCoreNum));
  ASSIGN_OR_RETURN(bool sync_start, BoolAttr(call, ir::kAttrSyncStart));
  if (core_num.has_value()) {
    Line(indent, pto::StrCat(args, ".launch_spec.set_core_num(", *core_num, ");"));
  }
  if (sync_start) Line(indent, pto::StrCat(args, ".launch_spec.set_require_sync_start(true);"));
  RETURN_IF_ERROR(EmitDeps(call, ir::kAttrDeps, args, indent));
  for (std::string_view key : {"manual_dep_edges", "compiler_manual_dep_edges"}) {
    auto edges = ir::GetAttr<std::vector<ir::ExprPtr>>(call.attrs(), key);
    if (!edges.has_value()) edges = ir::GetAttr<std::vector<ir::ExprPtr>>(call.kwargs(), key);
    for (const ir::ExprPtr& e : edges.value_or(std::vector<ir::ExprPtr>{})) {
      ASSIGN_OR_RETURN(Value producer, Lookup(e));
      if (producer.task.empty()) {
        return Unsupported(e->span(), "a dependency edge on a value no task produced");
      }
      Line(indent, pto::StrCat(args, ".add_dep(", producer.task, ".task);"));
    }
  }
  Line(indent, pto::StrCat("const pto::rt::TaskOutputs ", task, " = orch.", submit, "(",
                           kernel_ids, ", ", args, ");"));
  for (size_t i = 0; i < passed.size(); ++i) {
    if (passed[i].create.empty()) continue;
    Line(indent, pto::StrCat("const pto::rt::Tensor ", passed[i].name, " = ", task, ".outputs[",
                             output_index.at(static_cast<int>(i)), "];"));
    for (auto& [var, bound] : values_) {
      if (bound.name == passed[i].name) bound.create.clear();
    }
  }
  return CallValue(call, callee, mix, task, passed, output_index, indent);
}

// A pl.tensor.create's first writer: `arg`, still unallocated, becomes the
// task's runtime-allocated output (false: `arg` is an ordinary tensor). Its
// C++ name is declared after the submit, so the writer must be in the loop
// body the create is in.
absl::StatusOr<bool> Generator::AddCreatedOutput(const ir::ExprPtr& arg, const ir::Var& param,
                                                 const Span& at, const std::vector<Value>& passed,
                                                 Value* out, std::vector<std::string>* adds) {
  absl::StatusOr<Value> v = LookupIn(values_, arg);
  if (!v.ok() || v->create.empty()) return false;
  if (v->create_depth != loops_.size()) {
    return Unsupported(at,
                       "a pl.tensor.create first written inside a loop it was not created in "
                       "(create it in the loop body, or pass a pl.Out parameter)");
  }
  ASSIGN_OR_RETURN(std::string info, CreateInfo(param.type(), arg->span()));
  if (info != v->create) {
    return Unsupported(at, pto::StrCat("a pl.tensor.create passed to the parameter '",
                                       param.name_hint(), "' of another shape"));
  }
  for (const Value& p : passed) {
    if (p.name == v->name) {
      return Unsupported(at, "a pl.tensor.create passed twice to one call");
    }
  }
  adds->push_back(pto::StrCat("add_output(", v->create, ");"));
  *out = *v;
  return true;
}

// The call's value: the args its ReturnStmt names (a Group's are its AIV
// member's, whose params are the Group's, in order).
absl::StatusOr<Generator::Value> Generator::CallValue(
    const ir::Call& call, const ir::FunctionPtr& callee, const std::optional<MixMembers>& mix,
    const std::string& task, const std::vector<Value>& passed,
    const std::map<int, int>& output_index, int indent) {
  const std::string& callee_name = call.op()->name();
  const ir::FunctionPtr& returner = mix ? mix->aiv : callee;
  std::vector<ir::ExprPtr> returned;
  if (auto ret = FinalReturn(returner->body())) returned = ret->value();
  std::vector<Value> results;
  std::map<const ir::Var*, ir::ExprPtr> sources;
  CollectSources(returner->body(), &sources);
  for (ir::ExprPtr r : returned) {
    for (auto it = sources.find(ir::As<ir::Var>(r).get()); it != sources.end();
         it = sources.find(ir::As<ir::Var>(r).get())) {
      r = it->second;
    }
    size_t p = 0;
    while (p < returner->params().size() && returner->params()[p].get() != r.get()) ++p;
    if (p == returner->params().size()) {
      return Unsupported(call.span(),
                         pto::StrCat("a call of '", callee_name,
                                     "', whose result is not one of its parameters,"));
    }
    Value v;
    if (!passed[p].create.empty()) {
      v = passed[p];  // declared after the submit
      v.create.clear();
    } else if (auto out = output_index.find(static_cast<int>(p)); out != output_index.end()) {
      v = {Kind::kTensor, Fresh(callee->params()[p]->name_hint())};
      Line(indent, pto::StrCat("const pto::rt::Tensor ", v.name, " = ", task, ".outputs[",
                               out->second, "];"));
    } else {
      v = passed[p];
    }
    v.task = task;
    results.push_back(std::move(v));
  }
  if (ir::GetAttr<bool>(call.attrs(), ir::kAttrSubmit).value_or(false)) {
    // pl.submit: the flat tuple (<results>, task id).
    results.push_back(Value{Kind::kTaskId, pto::StrCat(task, ".task"), {}, task});
  }
  if (results.size() == 1) return results[0];
  Value tuple{Kind::kTuple, "", std::move(results), task};
  return tuple;
}

// deps=[...] of `call` (its attrs or kwargs under `key`): each task id that
// is valid becomes one add_dep (in an AUTO scope on top of the TensorMap's) (an unwritten array
// slot or a pl.system.task_invalid() holds kInvalidTaskId and adds none).
absl::Status Generator::EmitDeps(const ir::Call& call, std::string_view key,
                                 const std::string& args, int indent) {
  auto deps = ir::GetAttr<std::vector<ir::ExprPtr>>(call.attrs(), key);
  if (!deps.has_value()) deps = ir::GetAttr<std::vector<ir::ExprPtr>>(call.kwargs(), key);
  for (const ir::ExprPtr& e : deps.value_or(std::vector<ir::ExprPtr>{})) {
    ASSIGN_OR_RETURN(Value d, Lookup(e));
    if (d.kind == Kind::kTaskId) {
      Line(indent, pto::StrCat("if (", d.name, " != pto::rt::kInvalidTaskId) ", args,
                               ".add_dep(", d.name, ");"));
    } else if (d.kind == Kind::kTaskArray) {
      Line(indent, pto::StrCat("for (const pto::rt::TaskId dep : ", d.name, ") {"));
      Line(indent + 1, pto::StrCat("if (dep != pto::rt::kInvalidTaskId) ", args,
                                   ".add_dep(dep);"));
      Line(indent, "}");
    } else {
      return InternalErrorF(e->span(), "a deps= entry that is not a task id");
    }
  }
  return absl::OkStatus();
}

// Where a kernel's loop results, aliases and in-place writes come from:
// kernels write tensors in place, so a loop's result is the buffer its iter
// arg started as and a store's or write's result is the tensor it writes.
void Generator::CollectSources(const ir::StmtPtr& stmt,
                               std::map<const ir::Var*, ir::ExprPtr>* sources) {
  if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
    for (const ir::StmtPtr& s : seq->stmts()) CollectSources(s, sources);
  } else if (auto assign = ir::As<ir::AssignStmt>(stmt)) {
    if (ir::Is<ir::Var>(assign->value())) {
      (*sources)[assign->var().get()] = assign->value();
    } else if (auto call = ir::As<ir::Call>(assign->value())) {
      const ops::OpDef* def = ops::DefOf(*call);
      std::optional<size_t> arg =
          def == nullptr ? std::nullopt : def->UpdatedArg(call->args().size());
      if (arg) {
        (*sources)[assign->var().get()] = call->args()[*arg];
      }
    }
  } else if (auto loop = ir::As<ir::ForStmt>(stmt)) {
    for (size_t i = 0; i < loop->return_vars().size() && i < loop->iter_args().size(); ++i) {
      (*sources)[loop->return_vars()[i].get()] = loop->iter_args()[i]->init_value();
    }
    CollectSources(loop->body(), sources);
  } else if (auto loop = ir::As<ir::WhileStmt>(stmt)) {
    for (size_t i = 0; i < loop->return_vars().size() && i < loop->iter_args().size(); ++i) {
      (*sources)[loop->return_vars()[i].get()] = loop->iter_args()[i]->init_value();
    }
    CollectSources(loop->body(), sources);
  } else if (auto scope = ir::As<ir::ScopeStmt>(stmt)) {
    CollectSources(scope->body(), sources);
  } else if (auto branch = ir::As<ir::IfStmt>(stmt)) {
    // An if result is the tensor its then branch yields (a dual-dispatched
    // AIV half's lanes, SplitVectorKernel, write the same parameter).
    auto seq = ir::As<ir::SeqStmts>(branch->then_body());
    auto yield = ir::As<ir::YieldStmt>(seq != nullptr && !seq->stmts().empty()
                                           ? seq->stmts().back()
                                           : branch->then_body());
    for (size_t i = 0; yield != nullptr && i < branch->return_vars().size() &&
                       i < yield->value().size();
         ++i) {
      (*sources)[branch->return_vars()[i].get()] = yield->value()[i];
    }
    CollectSources(branch->then_body(), sources);
    if (branch->else_body()) CollectSources(*branch->else_body(), sources);
  }
}

std::shared_ptr<const ir::ReturnStmt> Generator::FinalReturn(const ir::StmtPtr& body) {
  if (auto ret = ir::As<ir::ReturnStmt>(body)) return ret;
  if (auto seq = ir::As<ir::SeqStmts>(body); seq != nullptr && !seq->stmts().empty()) {
    return FinalReturn(seq->stmts().back());
  }
  return nullptr;
}

// `pto::rt::TensorCreateInfo{...}` for a runtime-allocated output param.
absl::StatusOr<std::string> Generator::CreateInfo(const ir::TypePtr& ir_type,
                                                  const Span& span) {
  auto type = ir::AsTensorTypeLike(ir_type);
  if (type == nullptr || type->shape().size() > 5) {
    return Unsupported(span, "a runtime-allocated output of this type");
  }
  int64_t elems = 1;
  std::string dims;
  for (const ir::ExprPtr& d : type->shape()) {
    auto c = ir::As<ir::ConstInt>(d);
    if (c == nullptr) return Unsupported(span, "a runtime-allocated output of dynamic shape");
    elems *= c->value();
    pto::StrAppend(&dims, dims.empty() ? "" : ", ", c->value());
  }
  const int bytes = ir::DataTypeBytes(type->dtype());
  return pto::StrCat("pto::rt::TensorCreateInfo{", elems * bytes, ", ", bytes, ", ",
                     type->shape().size(), ", {", dims, "}}");
}

}  // namespace pto::codegen::chip_orch_internal
