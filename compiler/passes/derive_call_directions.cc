#include "compiler/passes/derive_call_directions.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/call_effects.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ArgDirection;
using ir::ParamDirection;

// Directions the pass derives for the collective's operands are the
// operator's effects: Write is "overwritten, not updated" (spec §2), so it
// never becomes InOut.
ArgDirection DirectionOfEffect(ops::ArgEffect e) {
  switch (e) {
    case ops::ArgEffect::kRead:
      return ArgDirection::kInput;
    case ops::ArgEffect::kWrite:
      return ArgDirection::kOutputExisting;
    case ops::ArgEffect::kReadWrite:
      return ArgDirection::kInOut;
  }
  return ArgDirection::kInput;
}

ParamDirection ParamDirectionOfEffect(ops::ArgEffect e) {
  switch (e) {
    case ops::ArgEffect::kRead:
      return ParamDirection::kIn;
    case ops::ArgEffect::kWrite:
      return ParamDirection::kOut;
    case ops::ArgEffect::kReadWrite:
      return ParamDirection::kInOut;
  }
  return ParamDirection::kIn;
}

// The lattice In < Out < InOut of phase 0.
ParamDirection Join(ParamDirection a, ParamDirection b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

bool DirectionsApply(const ir::Function& func, const ir::Call& call,
                     const ir::FunctionPtr& callee) {
  if (call.args().empty()) return false;
  if (callee != nullptr) return true;
  // A collective of a chip pipeline is one of its tasks (LowerL2TensorCollectives
  // makes it a kernel call); HOST collectives become builtin dispatches with
  // their own directions, InCore ones are expanded in place.
  return !ir::IsInCoreType(func.func_type()) && !func.IsHostOrch() &&
         IsManagedCollectiveOp(call.op()->name());
}

// Visits every call of a body in program order (nested calls first) with the
// buffer roots known at that point.
class CallWalker : public ir::IRVisitor {
 public:
  CallWalker(const ir::Program* program, std::function<void(const ir::CallPtr&)> fn)
      : roots_(program), fn_(std::move(fn)) {}
  void VisitType(const ir::TypePtr&) override {}
  const BufferRoots& roots() const { return roots_; }

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    IRVisitor::VisitCall(call);
    fn_(call);
  }
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    IRVisitor::VisitAssignStmt(s);
    roots_.Define(s);
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    roots_.Define(s);
    IRVisitor::VisitForStmt(s);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    roots_.Define(s);
    IRVisitor::VisitWhileStmt(s);
  }

 private:
  BufferRoots roots_;
  std::function<void(const ir::CallPtr&)> fn_;
};

// Phase 0: a Group/Spmd wrapper's parameter is at least as written as the
// calls in its body make it. Returns the program with widened directions.
absl::StatusOr<ir::ProgramPtr> MaterializeWrapperDirections(const ir::ProgramPtr& program) {
  ir::ProgramPtr current = program;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<ir::FunctionPtr> funcs;
    for (const auto& [gv, f] : current->functions()) {
      if (!ir::IsWrapperType(f->func_type())) {
        funcs.push_back(f);
        continue;
      }
      std::vector<ParamDirection> dirs = f->param_directions();
      absl::flat_hash_map<const ir::Var*, size_t> param_index;
      for (size_t i = 0; i < f->params().size(); ++i) param_index[f->params()[i].get()] = i;
      CallWalker* walker_ptr = nullptr;
      CallWalker walker(current.get(), [&](const ir::CallPtr& call) {
        ir::FunctionPtr callee = CalleeOf(*current, *call);
        const ops::OpDef* def =
            callee == nullptr ? ops::OpRegistry::Global().Find(call->op()->name()) : nullptr;
        for (size_t i = 0; i < call->args().size(); ++i) {
          const ir::Var* root = walker_ptr->roots().RootOf(call->args()[i]);
          auto it = root == nullptr ? param_index.end() : param_index.find(root);
          if (it == param_index.end() || !IsTensorLikeValue(call->args()[i])) continue;
          if (callee != nullptr && i < callee->param_directions().size()) {
            dirs[it->second] = Join(dirs[it->second], callee->param_directions()[i]);
          } else if (def != nullptr) {
            dirs[it->second] = Join(dirs[it->second], ParamDirectionOfEffect(def->EffectOf(i)));
          }
        }
      });
      walker_ptr = &walker;
      walker.VisitStmt(f->body());
      if (dirs == f->param_directions()) {
        funcs.push_back(f);
        continue;
      }
      changed = true;
      ASSIGN_OR_RETURN(ir::FunctionPtr nf,
                       ir::Function::Create(f->name(), f->params(), dirs, f->return_types(),
                                            f->body(), f->func_type(), f->level(), f->role(),
                                            f->attrs(), f->requires_runtime_binding(), f->span()));
      funcs.push_back(nf);
    }
    if (changed) {
      ASSIGN_OR_RETURN(current, ir::Program::Create(funcs, current->name(), current->span()));
    }
  }
  return current;
}

class DirectionMutator : public ir::IRMutator {
 public:
  DirectionMutator(const ir::Program* program, const ir::Function* func)
      : program_(program), func_(func), roots_(program) {
    for (size_t i = 0; i < func->params().size(); ++i) {
      if (func->param_directions()[i] == ParamDirection::kInOut) {
        inout_params_.insert(func->params()[i].get());
      }
    }
  }

 protected:
  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    ir::ExprPtr mutated = IRMutator::MutateCall(call);
    auto c = ir::As<ir::Call>(mutated);
    ir::FunctionPtr callee = CalleeOf(*program_, *c);
    const ops::OpDef* def =
        callee == nullptr ? ops::OpRegistry::Global().Find(c->op()->name()) : nullptr;
    std::vector<ArgDirection> dirs = c->GetArgDirections();
    bool derive =
        DirectionsApply(*func_, *c, callee) && !ir::HasAttr(c->attrs(), ir::kAttrArgDirections);
    if (derive) {
      dirs.clear();
      for (size_t i = 0; i < c->args().size(); ++i) dirs.push_back(Derive(*c, callee, def, i));
    }
    // Whatever the call writes is a prior writer for the calls after it (R-prior).
    for (size_t i = 0; i < c->args().size(); ++i) {
      bool writes = false;
      if (i < dirs.size()) {
        writes = dirs[i] == ArgDirection::kInOut || dirs[i] == ArgDirection::kOutput ||
                 dirs[i] == ArgDirection::kOutputExisting;
      } else if (def != nullptr) {
        writes = def->EffectOf(i) != ops::ArgEffect::kRead;
      }
      if (writes) {
        if (const ir::Var* r = roots_.RootOf(c->args()[i])) written_.insert(r);
      }
    }
    if (!derive) return mutated;
    return std::make_shared<const ir::Call>(
        c->op(), c->args(), c->kwargs(),
        ir::WithAttr(c->attrs(), ir::kAttrArgDirections, std::move(dirs)), c->type(), c->span());
  }

  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ir::StmtPtr out = IRMutator::MutateAssignStmt(s);
    roots_.Define(out);
    return out;
  }
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    roots_.Define(s);
    bool seq = s->for_kind() != ir::ForKind::kParallel;
    sequential_depth_ += seq;
    ir::StmtPtr out = IRMutator::MutateForStmt(s);
    sequential_depth_ -= seq;
    return out;
  }
  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    roots_.Define(s);
    ++sequential_depth_;
    ir::StmtPtr out = IRMutator::MutateWhileStmt(s);
    --sequential_depth_;
    return out;
  }

 private:
  ArgDirection Derive(const ir::Call& c, const ir::FunctionPtr& callee, const ops::OpDef* def,
                      size_t i) {
    const ir::ExprPtr& arg = c.args()[i];
    if (!IsTensorLikeValue(arg)) return ArgDirection::kScalar;
    if (callee == nullptr) {
      return def != nullptr ? DirectionOfEffect(def->EffectOf(i)) : ArgDirection::kInput;
    }
    if (i >= callee->param_directions().size()) return ArgDirection::kInput;
    switch (callee->param_directions()[i]) {
      case ParamDirection::kIn:
        return ArgDirection::kInput;
      case ParamDirection::kInOut:
        return ArgDirection::kInOut;
      case ParamDirection::kOut: {
        const ir::Var* root = roots_.RootOf(arg);
        bool r_seq = sequential_depth_ > 0;
        bool r_prior = root != nullptr && written_.contains(root);
        bool r_enclosing = root != nullptr && inout_params_.contains(root);
        return r_seq || r_prior || r_enclosing ? ArgDirection::kInOut
                                               : ArgDirection::kOutputExisting;
      }
    }
    return ArgDirection::kInput;
  }

  const ir::Program* program_;
  const ir::Function* func_;
  BufferRoots roots_;
  int sequential_depth_ = 0;
  absl::flat_hash_set<const ir::Var*> written_;
  absl::flat_hash_set<const ir::Var*> inout_params_;
};

// A kernel that writes a parameter it declares In would give every call
// Input for it, so nothing would order later readers after the kernel (a
// silent race, e.g. a kernel collective whose target is a plain In
// parameter). PyPTO accepts such kernels (a window written through an In
// DistributedTensor parameter is common); here the parameter is promoted to
// InOut so its callers order around the write. Returns `kernel` itself when
// it writes no In parameter.
absl::StatusOr<ir::FunctionPtr> PromoteWrittenInParams(const ir::Program& program,
                                                       const ir::FunctionPtr& kernel) {
  absl::flat_hash_map<const ir::Var*, size_t> param_index;
  for (size_t i = 0; i < kernel->params().size(); ++i) param_index[kernel->params()[i].get()] = i;
  std::vector<ParamDirection> dirs = kernel->param_directions();
  bool promoted = false;
  CallWalker* walker_ptr = nullptr;
  CallWalker walker(&program, [&](const ir::CallPtr& call) {
    if (CalleeOf(program, *call) != nullptr) return;
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op()->name());
    if (def == nullptr) return;
    for (size_t i = 0; i < call->args().size(); ++i) {
      if (def->EffectOf(i) == ops::ArgEffect::kRead || !IsTensorLikeValue(call->args()[i])) {
        continue;
      }
      const ir::Var* root = walker_ptr->roots().RootOf(call->args()[i]);
      auto it = root == nullptr ? param_index.end() : param_index.find(root);
      if (it == param_index.end() || it->second >= dirs.size() ||
          dirs[it->second] != ParamDirection::kIn) {
        continue;
      }
      dirs[it->second] = ParamDirection::kInOut;
      promoted = true;
    }
  });
  walker_ptr = &walker;
  walker.VisitStmt(kernel->body());
  if (!promoted) return kernel;
  return ir::Function::Create(kernel->name(), kernel->params(), dirs, kernel->return_types(),
                              kernel->body(), kernel->func_type(), kernel->level(),
                              kernel->role(), kernel->attrs(), kernel->requires_runtime_binding(),
                              kernel->span());
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> DeriveCallDirectionsPass::Run(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> kernels;
  bool promoted = false;
  for (const auto& [gv, f] : program->functions()) {
    if (ir::IsInCoreType(f->func_type()) && f->body() != nullptr) {
      ASSIGN_OR_RETURN(ir::FunctionPtr k, PromoteWrittenInParams(*program, f));
      promoted |= k != f;
      kernels.push_back(k);
    } else {
      kernels.push_back(f);
    }
  }
  ir::ProgramPtr input = program;
  if (promoted) {
    ASSIGN_OR_RETURN(input, ir::Program::Create(kernels, program->name(), program->span()));
  }
  ASSIGN_OR_RETURN(ir::ProgramPtr current, MaterializeWrapperDirections(input));
  std::vector<ir::FunctionPtr> funcs;
  bool changed = current != program;
  for (const auto& [gv, f] : current->functions()) {
    DirectionMutator m(current.get(), f.get());
    ir::StmtPtr body = m.MutateStmt(f->body());
    if (body == f->body()) {
      funcs.push_back(f);
    } else {
      changed = true;
      funcs.push_back(f->WithBody(body));
    }
  }
  if (!changed) return program;
  return ir::Program::Create(funcs, current->name(), current->span());
}

absl::Status VerifyCallDirectionsResolved(const ir::ProgramPtr& program) {
  absl::Status status = absl::OkStatus();
  for (const auto& [gv, f] : program->functions()) {
    CallWalker walker(program.get(), [&](const ir::CallPtr& call) {
      if (!status.ok()) return;
      if (!DirectionsApply(*f, *call, CalleeOf(*program, *call))) return;
      size_t n = call->GetArgDirections().size();
      if (n != call->args().size()) {
        status = InternalErrorF(call->span(), "CallDirectionsResolved: call of '",
                                call->op()->name(), "' in function '", f->name(), "' has ", n,
                                " arg_directions for ", call->args().size(), " arguments");
      }
    });
    walker.VisitStmt(f->body());
    RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

std::unique_ptr<Pass> CreateDeriveCallDirectionsPass() {
  return std::make_unique<DeriveCallDirectionsPass>();
}

}  // namespace pto::passes
