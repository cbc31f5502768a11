#include "compiler/passes/synthesize_allreduce_signals.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::CallPtr;
using ir::DataType;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::VarPtr;

constexpr ir::OpId kAllocWindowBuffer = ir::OpId::kPldTensorAllocWindowBuffer;
constexpr char kWorldSizePrefix[] = "__allreduce_signal_world_size_";
constexpr char kBufPrefix[] = "__allreduce_signal_buf_";
constexpr char kSignalPrefix[] = "__allreduce_signal_";
constexpr char kResultPrefix[] = "__allreduce_result_";

// The call if `e` calls operator `id` (not a program function).
CallPtr AsOpCall(const ExprPtr& e, ir::OpId id) {
  CallPtr call = ir::As<ir::Call>(e);
  if (call == nullptr || call->op() == nullptr || !ir::IsOp(call, id)) return nullptr;
  return call;
}

// The call if `e` calls a collective whose def lets the signal be omitted
// (allreduce), whether or not this call gave one.
CallPtr AsSignalOptionalCall(const ExprPtr& e) {
  CallPtr call = ir::As<ir::Call>(e);
  const ops::CollectiveDef* def = ops::FindCollective(call);
  return def != nullptr && def->signal_optional ? call : nullptr;
}

// Every name the program already uses: var name hints and allocation names.
class NameCollector : public ir::IRVisitor {
 public:
  explicit NameCollector(absl::flat_hash_set<std::string>* names) : names_(names) {}
  // Names live in definitions and uses; types only repeat them.
  void VisitType(const ir::TypePtr&) override {}

 protected:
  void VisitVarDef(const VarPtr& var) override {
    names_->insert(var->name_hint());
    IRVisitor::VisitVarDef(var);
  }
  void VisitVar(const VarPtr& var) override {
    names_->insert(var->name_hint());
    IRVisitor::VisitVar(var);
  }
  void VisitCall(const CallPtr& call) override {
    if (AsOpCall(call, kAllocWindowBuffer) != nullptr) {
      if (auto name = ir::GetAttr<std::string>(call->kwargs(), "name")) names_->insert(*name);
    }
    IRVisitor::VisitCall(call);
  }

 private:
  absl::flat_hash_set<std::string>* names_;
};

class Synthesizer : public ir::IRMutator {
 public:
  Synthesizer(absl::flat_hash_set<std::string>* used, int64_t* next_id)
      : used_(used), next_id_(next_id) {}
  const absl::Status& status() const { return status_; }

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    CallPtr call = AsSignalOptionalCall(stmt->value());
    if (!status_.ok() || call == nullptr) return IRMutator::MutateAssignStmt(stmt);
    std::vector<StmtPtr> out;
    ExprPtr rewritten = Rewrite(call, /*lift=*/false, &out).call;
    if (!status_.ok()) return stmt;
    VarPtr var = MutateVarDef(stmt->var());
    if (rewritten == call && var == stmt->var()) return stmt;
    out.push_back(std::make_shared<ir::AssignStmt>(var, rewritten, stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    CallPtr call = AsSignalOptionalCall(stmt->expr());
    if (!status_.ok() || call == nullptr) return IRMutator::MutateEvalStmt(stmt);
    std::vector<StmtPtr> out;
    ExprPtr rewritten = Rewrite(call, /*lift=*/false, &out).call;
    if (!status_.ok() || rewritten == call) return stmt;
    out.push_back(
        std::make_shared<ir::EvalStmt>(rewritten, stmt->leading_comments(), stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  // `return allreduce(...)` becomes `__allreduce_result_<n> = allreduce(...)`
  // followed by `return __allreduce_result_<n>`, explicit signal or not.
  StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& stmt) override {
    if (!status_.ok()) return stmt;
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> values;
    bool changed = false;
    for (const ExprPtr& v : stmt->value()) {
      CallPtr call = AsSignalOptionalCall(v);
      if (call == nullptr) {
        ExprPtr n = MutateExpr(v);
        changed |= n != v;
        values.push_back(n);
        continue;
      }
      Rewritten r = Rewrite(call, /*lift=*/true, &out);
      if (!status_.ok()) return stmt;
      VarPtr result = ir::MakeVar(pto::StrCat(kResultPrefix, r.id), r.call->type(), call->span());
      out.push_back(std::make_shared<ir::AssignStmt>(result, r.call, stmt->span()));
      values.push_back(result);
      changed = true;
    }
    if (!changed) return stmt;
    out.push_back(std::make_shared<ir::ReturnStmt>(std::move(values), stmt->leading_comments(),
                                                   stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

  StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    ++repeating_scope_depth_;
    StmtPtr out = IRMutator::MutateForStmt(stmt);
    --repeating_scope_depth_;
    return out;
  }
  StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    ++repeating_scope_depth_;
    StmtPtr out = IRMutator::MutateWhileStmt(stmt);
    --repeating_scope_depth_;
    return out;
  }

  // Direct forms never get here: any allreduce reached as a sub-expression is
  // nested inside another expression.
  ExprPtr MutateCall(const CallPtr& call) override {
    if (AsSignalOptionalCall(call) != nullptr) {
      Fail(UserError(call->span(),
                     "pld.tensor.allreduce must be a direct assignment, expression statement, or "
                     "return value before allreduce signal synthesis."));
      return call;
    }
    return IRMutator::MutateCall(call);
  }

  // A statement-level pass: flatten the sequences its rewrites produce.
  StmtPtr MutateSeqStmts(const std::shared_ptr<const ir::SeqStmts>& stmt) override {
    StmtPtr out = IRMutator::MutateSeqStmts(stmt);
    if (out == stmt) return out;
    return ir::SeqStmts::Flatten(ir::As<ir::SeqStmts>(out)->stmts(), stmt->span());
  }

 private:
  struct Rewritten {
    ExprPtr call;
    int64_t id = -1;
  };

  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  // The smallest id >= next_id for which every `<prefix><id>` is unused; the
  // names are then reserved.
  int64_t FreshId(const std::vector<std::string_view>& prefixes) {
    for (int64_t n = *next_id_;; ++n) {
      bool free = true;
      for (std::string_view p : prefixes) free = free && !used_->contains(pto::StrCat(p, n));
      if (!free) continue;
      for (std::string_view p : prefixes) used_->insert(pto::StrCat(p, n));
      *next_id_ = n + 1;
      return n;
    }
  }

  // Rebuilds one direct allreduce: synthesizes its signal (statements appended
  // to `out`) when it has none. With `lift`, the id also reserves a result name.
  Rewritten Rewrite(const CallPtr& call, bool lift, std::vector<StmtPtr>* out) {
    const Span& span = call->span();
    size_t n_args = call->args().size();
    if (n_args != 1 && n_args != 2) {
      Fail(UserErrorF(span, "pld.tensor.allreduce expects target[, signal], got ", n_args,
                      " positional arguments"));
      return {call};
    }
    bool changed = false;
    std::vector<ExprPtr> args = MutateExprs(call->args(), &changed);
    std::optional<ir::AttrList> kwargs = MutateAttrs(call->kwargs());
    std::optional<ir::AttrList> attrs = MutateAttrs(call->attrs());
    if (!status_.ok()) return {call};
    changed |= kwargs.has_value() || attrs.has_value();
    const ir::AttrList& kw = kwargs.has_value() ? *kwargs : call->kwargs();
    const ir::AttrList& at = attrs.has_value() ? *attrs : call->attrs();

    if (n_args == 2) {
      if (!lift && !changed) return {call};
      int64_t id = lift ? FreshId({kResultPrefix}) : -1;
      return {std::make_shared<ir::Call>(call->op(), std::move(args), kw, at, call->type(), span),
              id};
    }
    if (repeating_scope_depth_ > 0) {
      Fail(UserError(span,
                     "pld.tensor.allreduce without an explicit signal is not supported inside a "
                     "for/while loop on the HOST rail: the synthesized signal binding cannot be "
                     "allocated per dynamic iteration. Pass an explicit signal buffer — it is "
                     "self-clearing and reusable across iterations — or hoist the call out of the "
                     "loop."));
      return {call};
    }
    // The synthesized signal has core_num lanes per device, so it needs a
    // constant; a runtime core_num is the user's to size (the HOST entry
    // checks it at run time). The deducer range-checked a constant one
    // (ops::CheckCoreNum), so one outside the range here is a compiler bug.
    std::optional<int64_t> core_num = ops::DecodeCoreNum(ir::FindAttr(kw, ir::kAttrCoreNum), 1).value;
    if (!core_num) {
      Fail(UserError(span,
                     "pld.tensor.allreduce without an explicit signal needs a compile-time "
                     "core_num: the synthesized signal has core_num lanes per device. Pass an "
                     "INT32 signal window of [world_size, L] for the largest L the call may "
                     "request, or a constant core_num"));
      return {call};
    }
    if (absl::Status range = CheckRequestedCoreNum(*core_num); !range.ok()) {
      Fail(InternalErrorF(span, "pld.tensor.allreduce ", range.message()));
      return {call};
    }
    std::vector<std::string_view> prefixes = {kWorldSizePrefix, kBufPrefix, kSignalPrefix};
    if (lift) prefixes.push_back(kResultPrefix);
    int64_t id = FreshId(prefixes);
    std::string buf_name = pto::StrCat(kBufPrefix, id);

    const ops::OpRegistry& reg = ops::OpRegistry::Global();
    absl::StatusOr<CallPtr> ws_call = reg.MakeCall(ir::OpId::kPldSystemWorldSize, {}, {}, {}, span);
    if (!ws_call.ok()) return Failed(ws_call.status(), call);
    VarPtr ws = ir::MakeVar(pto::StrCat(kWorldSizePrefix, id), (*ws_call)->type(), span);
    out->push_back(std::make_shared<ir::AssignStmt>(ws, *ws_call, span));

    ExprPtr lanes = ir::MakeConstInt(*core_num, DataType::kInt64, span);
    absl::StatusOr<ExprPtr> bytes = ir::MakeBinary(ir::BinaryOp::kMul, ws, lanes, span);
    if (bytes.ok()) {
      bytes = ir::MakeBinary(ir::BinaryOp::kMul, *bytes,
                             ir::MakeConstInt(4, DataType::kInt64, span), span);
    }
    if (!bytes.ok()) return Failed(bytes.status(), call);
    absl::StatusOr<CallPtr> alloc =
        reg.MakeCall(kAllocWindowBuffer, {*bytes}, {{"name", buf_name}}, {}, span);
    if (!alloc.ok()) return Failed(alloc.status(), call);
    VarPtr buf = ir::MakeVar(buf_name, (*alloc)->type(), span);
    out->push_back(std::make_shared<ir::AssignStmt>(buf, *alloc, span));

    auto shape = std::make_shared<ir::MakeTuple>(std::vector<ExprPtr>{ws, lanes}, span);
    absl::StatusOr<CallPtr> window = reg.MakeCall(ir::OpId::kPldTensorWindow, {buf, shape},
                                                  {{"dtype", DataType::kInt32}}, {}, span);
    if (!window.ok()) return Failed(window.status(), call);
    VarPtr sig = ir::MakeVar(pto::StrCat(kSignalPrefix, id), (*window)->type(), span);
    out->push_back(std::make_shared<ir::AssignStmt>(sig, *window, span));

    args.push_back(sig);
    return {std::make_shared<ir::Call>(call->op(), std::move(args), kw, at, call->type(), span),
            id};
  }

  Rewritten Failed(const absl::Status& s, const CallPtr& call) {
    Fail(s);
    return {call};
  }

  absl::flat_hash_set<std::string>* used_;
  int64_t* next_id_;
  int repeating_scope_depth_ = 0;
  absl::Status status_;
};

// Whether some HOST orchestrator calls pld.tensor.allreduce at all: most
// programs do not, and then nothing is checked or rewritten.
class AllReduceFinder : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitType(const ir::TypePtr&) override {}

 protected:
  void VisitCall(const CallPtr& call) override {
    if (AsSignalOptionalCall(call) != nullptr) found = true;
    if (!found) IRVisitor::VisitCall(call);
  }
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> SynthesizeAllReduceSignals::Run(const ir::ProgramPtr& program) {
  AllReduceFinder finder;
  for (const auto& [gv, func] : program->functions()) {
    if (func->IsHostOrch() && !finder.found) finder.VisitStmt(func->body());
  }
  if (!finder.found) return program;
  absl::flat_hash_set<std::string> used;
  NameCollector collector(&used);
  collector.VisitProgram(program);
  int64_t next_id = 0;  // program-wide, so names are unique across functions

  return RewriteFunctionBodies(
      program, [&](const ir::FunctionPtr& func) -> absl::StatusOr<StmtPtr> {
        if (!func->IsHostOrch()) return func->body();
        Synthesizer synth(&used, &next_id);
        StmtPtr body = synth.MutateStmt(func->body());
        RETURN_IF_ERROR(synth.status());
        return body;
      });
}

std::unique_ptr<Pass> CreateSynthesizeAllReduceSignalsPass() {
  return std::make_unique<SynthesizeAllReduceSignals>();
}

}  // namespace pto::passes
