// OptimizeOrchTensors pattern 1, iter-arg reuse (PyPTO's
// IterArgReuseOptimizer): see docs/passes/OptimizeOrchTensors.md.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/optimize_orch_tensors_internal.h"
#include "compiler/support/status_macros.h"

namespace pto::passes::orch_tensors {
namespace {

bool SameTensorType(const ir::TypePtr& a, const ir::TypePtr& b) {
  auto x = ir::As<ir::TensorType>(a);
  auto y = ir::As<ir::TensorType>(b);
  if (x == nullptr || y == nullptr || x->dtype() != y->dtype() ||
      x->shape().size() != y->shape().size()) {
    return false;
  }
  for (size_t i = 0; i < x->shape().size(); ++i) {
    std::optional<int64_t> p = ir::GetConstInt(x->shape()[i]);
    if (!p || p != ir::GetConstInt(y->shape()[i])) return false;
  }
  return true;
}

struct Merge {
  size_t out = 0;  // the Out param, dropped
  size_t in = 0;   // the In param, now InOut
  const ir::Var* create = nullptr;
};

class ReuseFinder : public ir::IRVisitor {
 public:
  ReuseFinder(const ir::ProgramPtr& program, const UseCounter& counts)
      : program_(program), counts_(counts) {}
  absl::flat_hash_map<std::string, Merge> merges;

 protected:
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    ir::IRVisitor::VisitForStmt(s);
    Loop(s->iter_args(), s->body());
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    ir::IRVisitor::VisitWhileStmt(s);
    Loop(s->iter_args(), s->body());
  }

 private:
  void Loop(const std::vector<ir::IterArgPtr>& iter_args, const ir::StmtPtr& body) {
    std::vector<ir::StmtPtr> stmts = TopLevel(body);
    if (iter_args.empty() || stmts.empty()) return;
    auto yield = ir::As<ir::YieldStmt>(stmts.back());
    if (yield == nullptr) return;
    absl::flat_hash_set<const ir::Var*> creates;
    for (const ir::StmtPtr& s : stmts) {
      auto a = ir::As<ir::AssignStmt>(s);
      if (a == nullptr) continue;
      if (ir::IsOp(a->value(), ir::OpId::kPlTensorCreate)) {
        creates.insert(a->var().get());
        continue;
      }
      ir::FunctionPtr f = KernelOf(program_, a->value());
      // One call site: the merged param changes what every call passes.
      if (f == nullptr || merges.contains(f->name()) || counts_.calls.at(f->name()) != 1) continue;
      std::optional<FinalStore> fs = FindFinalStore(f);
      const auto& args = ir::As<ir::Call>(a->value())->args();
      if (!fs || fs->out >= args.size()) continue;
      auto out_arg = ir::As<ir::Var>(args[fs->out]);
      if (out_arg == nullptr || !creates.contains(out_arg.get())) continue;
      for (size_t y = 0; y < yield->value().size() && y < iter_args.size(); ++y) {
        if (yield->value()[y] != a->var()) continue;
        for (size_t i = 0; i < args.size(); ++i) {
          if (args[i] != iter_args[y] || f->param_directions()[i] != ir::ParamDirection::kIn ||
              !SameTensorType(f->params()[i]->type(), f->params()[fs->out]->type())) {
            continue;
          }
          merges[f->name()] = Merge{fs->out, i, out_arg.get()};
          break;
        }
      }
    }
  }

  const ir::ProgramPtr& program_;
  const UseCounter& counts_;
};

absl::StatusOr<ir::FunctionPtr> MergeParams(const ir::FunctionPtr& f, const Merge& m) {
  std::vector<ir::VarPtr> params;
  std::vector<ir::ParamDirection> dirs;
  for (size_t i = 0; i < f->params().size(); ++i) {
    if (i == m.out) continue;
    params.push_back(f->params()[i]);
    dirs.push_back(i == m.in ? ir::ParamDirection::kInOut : f->param_directions()[i]);
  }
  ir::VarSubstMap subst = {{f->params()[m.out].get(), f->params()[m.in]}};
  return Rebuilt(f, f->name(), std::move(params), std::move(dirs), f->return_types(),
                 ir::Substitute(f->body(), subst));
}

// Call sites of merged kernels drop the Out argument (an arg_directions
// attr follows: the In argument becomes InOut); the creates they passed go.
class ReuseCallRewriter : public ir::IRMutator {
 public:
  ReuseCallRewriter(const absl::flat_hash_map<std::string, Merge>& merges,
                    const UseCounter& counts)
      : merges_(merges) {
    for (const auto& [name, m] : merges) {
      if (counts.uses.contains(m.create) && counts.uses.at(m.create) == 1) dead_.insert(m.create);
    }
  }

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    if (dead_.contains(stmt->var().get())) return nullptr;
    return ir::IRMutator::MutateAssignStmt(stmt);
  }
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    ir::ExprPtr base = ir::IRMutator::MutateCall(call);
    auto it = ir::Is<ir::GlobalVar>(call->op()) ? merges_.find(call->op()->name()) : merges_.end();
    if (it == merges_.end()) return base;
    const Merge& m = it->second;
    auto c = ir::As<ir::Call>(base);
    std::vector<ir::ExprPtr> args;
    for (size_t i = 0; i < c->args().size(); ++i) {
      if (i != m.out) args.push_back(c->args()[i]);
    }
    ir::AttrList attrs = c->attrs();
    std::vector<ir::ArgDirection> dirs = c->GetArgDirections();
    if (dirs.size() == c->args().size()) {
      dirs[m.in] = ir::ArgDirection::kInOut;
      dirs.erase(dirs.begin() + static_cast<std::ptrdiff_t>(m.out));
      attrs = ir::WithAttr(attrs, std::string(ir::kAttrArgDirections), dirs);
    }
    return std::make_shared<ir::Call>(c->op(), std::move(args), c->kwargs(), std::move(attrs),
                                      c->type(), c->span());
  }

 private:
  const absl::flat_hash_map<std::string, Merge>& merges_;
  absl::flat_hash_set<const ir::Var*> dead_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> ReuseIterArgs(const ir::ProgramPtr& program) {
  UseCounter counts = CountUses(program);
  ReuseFinder finder(program, counts);
  for (const auto& [gv, f] : program->functions()) {
    if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) finder.VisitStmt(f->body());
  }
  if (finder.merges.empty()) return program;
  std::vector<ir::FunctionPtr> funcs;
  for (const auto& [gv, f] : program->functions()) {
    if (auto it = finder.merges.find(f->name()); it != finder.merges.end()) {
      ASSIGN_OR_RETURN(ir::FunctionPtr merged, MergeParams(f, it->second));
      funcs.push_back(merged);
    } else if (f->body() != nullptr && !ir::IsInCoreType(f->func_type())) {
      ReuseCallRewriter rewriter(finder.merges, counts);
      funcs.push_back(f->WithBody(rewriter.MutateStmt(f->body())));
    } else {
      funcs.push_back(f);
    }
  }
  return Rebuild(program, std::move(funcs));
}

}  // namespace pto::passes::orch_tensors
