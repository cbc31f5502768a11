#include "compiler/passes/cross_core.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/diagnostics.h"

namespace pto::passes::cross_core {
namespace {

class UseFinder : public ir::IRVisitor {
 public:
  explicit UseFinder(const ir::Var* var) : var_(var) {}
  bool found = false;

 protected:
  void VisitVar(const ir::VarPtr& v) override { found |= v.get() == var_; }
  void VisitIterArg(const ir::IterArgPtr& v) override {
    found |= v.get() == var_;
    ir::IRVisitor::VisitIterArg(v);
  }
  void VisitType(const ir::TypePtr&) override {}

 private:
  const ir::Var* var_;
};

// The tpops, tfrees and pipe set-up of one function.
class PipeOps : public ir::IRVisitor {
 public:
  bool init = false;
  const ir::Node* first_cross = nullptr;
  absl::flat_hash_map<const ir::Var*, const ir::Call*> pops;  // popped tile -> tpop
  absl::flat_hash_map<const ir::Var*, const ir::Call*> frees;
  const ir::Node* bad = nullptr;
  std::string what;

 protected:
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    if (ir::IsOp(call, ir::OpId::kPlSystemTpopFromAic) ||
        ir::IsOp(call, ir::OpId::kPlSystemTpopFromAiv)) {
      pops[s->var().get()] = call.get();
      if (first_cross == nullptr) first_cross = s.get();
      auto tile = ir::As<ir::TileType>(s->var()->type());
      const bool aic = ir::IsOp(call, ir::OpId::kPlSystemTpopFromAiv);
      const ir::MemorySpace want = aic ? ir::MemorySpace::kL1 : ir::MemorySpace::kUB;
      if ((tile == nullptr || tile->Space() != want) && bad == nullptr) {
        bad = s.get();
        what = aic ? "an AIC tpop_from_aiv must land in Mat" : "an AIV tpop_from_aic must land in Vec";
      }
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (ir::IsOp(call, ir::OpId::kPlSystemAicInitializePipe) ||
        ir::IsOp(call, ir::OpId::kPlSystemAivInitializePipe)) {
      init = true;
    }
    if ((ir::IsOp(call, ir::OpId::kPlSystemTpushToAic) ||
         ir::IsOp(call, ir::OpId::kPlSystemTpushToAiv)) &&
        first_cross == nullptr) {
      first_cross = call.get();
    }
    if ((ir::IsOp(call, ir::OpId::kPlSystemTfreeToAic) ||
         ir::IsOp(call, ir::OpId::kPlSystemTfreeToAiv)) &&
        !call->args().empty()) {
      if (auto v = ir::As<ir::Var>(call->args()[0])) frees[v.get()] = call.get();
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

}  // namespace

uint8_t TypeSide(const ir::TypePtr& type) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr) return 0;
  std::optional<ir::MemorySpace> s = tile->Space();
  if (!s) return 0;
  return ir::IsCubeSpace(*s) ? Side::kCube : Side::kVector;
}

bool Uses(const ir::StmtPtr& stmt, const ir::Var* var) {
  UseFinder f(var);
  f.VisitStmt(stmt);
  return f.found;
}

absl::Status VerifyPipes(const ir::Function& fn) {
  PipeOps ops;
  ops.VisitStmt(fn.body());
  if (ops.bad != nullptr) {
    return InternalErrorF(ops.bad->span(), "MixedKernelExpanded: in '", fn.name(), "', ", ops.what);
  }
  if (ops.first_cross != nullptr && !ops.init) {
    return InternalErrorF(ops.first_cross->span(), "MixedKernelExpanded: '", fn.name(),
                          "' pushes or pops a cross-core tile without initialising its pipe "
                          "(aic_initialize_pipe / aiv_initialize_pipe)");
  }
  for (const auto& [var, pop] : ops.pops) {
    auto it = ops.frees.find(var);
    const bool from_aic = ir::IsOp(pop, ir::OpId::kPlSystemTpopFromAic);
    if (it == ops.frees.end()) {
      return InternalErrorF(pop->span(), "MixedKernelExpanded: in '", fn.name(), "', the tile '",
                            var->name_hint(), "' of this tpop is never freed (",
                            from_aic ? "tfree_to_aic" : "tfree_to_aiv", ")");
    }
    if (ir::IsOp(it->second, ir::OpId::kPlSystemTfreeToAic) != from_aic) {
      return InternalErrorF(it->second->span(), "MixedKernelExpanded: in '", fn.name(),
                            "', this tfree frees the tile '", var->name_hint(),
                            "' towards the wrong core (its tpop is ",
                            from_aic ? "tpop_from_aic" : "tpop_from_aiv", ")");
    }
  }
  return absl::OkStatus();
}

}  // namespace pto::passes::cross_core
