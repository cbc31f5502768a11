#include "compiler/passes/stamp_tfree_split.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"

namespace pto::passes {
namespace {

using ir::OpId;

struct Pop {
  bool from_aic = false;
  ir::AttrList stamp;  // split and id, as the tpop has them
};

// Every tpop result of a function.
class PopCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_map<const ir::Var*, Pop> pops;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    const bool aic = ir::IsOp(call, OpId::kPlSystemTpopFromAic);
    if (aic || ir::IsOp(call, OpId::kPlSystemTpopFromAiv)) {
      Pop p{aic, {}};
      for (const char* key : {"split", "id"}) {
        if (const ir::AttrValue* v = ir::FindAttr(call->kwargs(), key)) p.stamp.emplace_back(key, *v);
      }
      pops[s->var().get()] = std::move(p);
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitType(const ir::TypePtr&) override {}
};

// A tpop's `id` is a scalar, a tfree's an int: the same constant agrees.
std::optional<int64_t> IntOf(const ir::AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* e = std::get_if<ir::ExprPtr>(&v)) return ir::GetConstInt(*e);
  return std::nullopt;
}
bool SameInt(const ir::AttrValue& a, const ir::AttrValue& b) {
  return a == b || (IntOf(a).has_value() && IntOf(a) == IntOf(b));
}

class Stamper : public ir::IRMutator {
 public:
  explicit Stamper(const absl::flat_hash_map<const ir::Var*, Pop>& pops) : pops_(pops) {}
  absl::Status status;

 protected:
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    const bool to_aic = ir::IsOp(call, OpId::kPlSystemTfreeToAic);
    if (!to_aic && !ir::IsOp(call, OpId::kPlSystemTfreeToAiv)) {
      return ir::IRMutator::MutateCall(call);
    }
    auto tile = call->args().empty() ? nullptr : ir::As<ir::Var>(call->args()[0]);
    auto it = tile != nullptr ? pops_.find(tile.get()) : pops_.end();
    if (it == pops_.end()) {
      Fail(UserErrorF(call->span(), "StampTfreeSplit: the tile this ", call->op()->name(),
                      " frees comes from no tpop of the function"));
      return call;
    }
    if (it->second.from_aic != to_aic) {
      Fail(UserErrorF(call->span(), "StampTfreeSplit: ", call->op()->name(), " frees '",
                      tile->name_hint(), "', which a ",
                      it->second.from_aic ? "tpop_from_aic" : "tpop_from_aiv",
                      " popped: free it towards the core it came from"));
      return call;
    }
    ir::AttrList kwargs = call->kwargs();
    for (const auto& [key, value] : it->second.stamp) {
      const ir::AttrValue* own = ir::FindAttr(kwargs, key);
      if (own != nullptr && key == "id" && !SameInt(*own, value)) {
        Fail(UserErrorF(call->span(), "StampTfreeSplit: this tfree's id differs from the id of "
                        "the tpop of '", tile->name_hint(), "'"));
        return call;
      }
      kwargs = ir::WithAttr(std::move(kwargs), key, value);
    }
    return ir::MakeOpCall(call->op()->id(), call->args(), call->type(), std::move(kwargs),
                          call->attrs(), call->span());
  }

 private:
  void Fail(absl::Status s) {
    if (status.ok()) status = std::move(s);
  }
  const absl::flat_hash_map<const ir::Var*, Pop>& pops_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> StampTfreeSplitPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [](const ir::FunctionPtr& fn) -> absl::StatusOr<ir::StmtPtr> {
    if (fn->body() == nullptr || !ir::IsInCoreType(fn->func_type())) return fn->body();
    PopCollector pops;
    pops.VisitStmt(fn->body());
    Stamper stamper(pops.pops);
    ir::StmtPtr body = stamper.MutateStmt(fn->body());
    RETURN_IF_ERROR(stamper.status);
    return body;
  });
}

std::unique_ptr<Pass> CreateStampTfreeSplitPass() {
  return std::make_unique<StampTfreeSplitPass>();
}

}  // namespace pto::passes
