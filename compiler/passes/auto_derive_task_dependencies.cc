#include "compiler/passes/auto_derive_task_dependencies.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/call_effects.h"
#include "compiler/passes/function_rewrite.h"

namespace pto::passes {
namespace {

using ir::ArgDirection;

bool Reads(ArgDirection d) { return d == ArgDirection::kInput || d == ArgDirection::kInOut; }
bool Writes(ArgDirection d) {
  return d == ArgDirection::kInOut || d == ArgDirection::kOutput ||
         d == ArgDirection::kOutputExisting;
}

bool IsOrchestrationBody(const ir::Function& f) {
  return ir::IsOrchestrationLike(f.func_type()) || f.role() == ir::Role::kOrchestrator;
}

// What the tasks seen so far did to one buffer. A null handle is a task that
// has no name (its hazards stay with the runtime TensorMap).
struct BufferState {
  ir::VarPtr writer;
  std::vector<ir::VarPtr> readers;
};

class DependencyMutator : public ir::IRMutator {
 public:
  explicit DependencyMutator(const ir::Program* program) : roots_(program) {}

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    ir::StmtPtr out = s;
    if (ir::CallPtr c = ir::As<ir::Call>(s->value())) {
      if (ir::CallPtr nc = Task(c, s->var()); nc != c) {
        out = std::make_shared<const ir::AssignStmt>(s->var(), nc, s->span());
      }
    }
    roots_.Define(s);
    return out;
  }
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& s) override {
    ir::CallPtr c = ir::As<ir::Call>(s->expr());
    if (c == nullptr) return s;
    ir::CallPtr nc = Task(c, nullptr);
    if (nc == c) return s;
    return std::make_shared<const ir::EvalStmt>(nc, s->leading_comments(), s->span());
  }
  ir::StmtPtr MutateReturnStmt(const std::shared_ptr<const ir::ReturnStmt>& s) override {
    std::vector<ir::ExprPtr> values = s->value();
    bool changed = false;
    for (ir::ExprPtr& v : values) {
      ir::CallPtr c = ir::As<ir::Call>(v);
      if (c == nullptr) continue;
      ir::CallPtr nc = Task(c, nullptr);
      changed |= nc != c;
      v = nc;
    }
    if (!changed) return s;
    return std::make_shared<const ir::ReturnStmt>(values, s->leading_comments(), s->span());
  }
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    roots_.Define(s);
    Enter();
    ir::StmtPtr out = IRMutator::MutateForStmt(s);
    Leave();
    return out;
  }
  ir::StmtPtr MutateWhileStmt(const std::shared_ptr<const ir::WhileStmt>& s) override {
    roots_.Define(s);
    Enter();
    ir::StmtPtr out = IRMutator::MutateWhileStmt(s);
    Leave();
    return out;
  }
  ir::StmtPtr MutateIfStmt(const std::shared_ptr<const ir::IfStmt>& s) override {
    // Each branch starts from the state before the `if`; neither sees the other.
    Enter();
    ir::StmtPtr then_body = MutateStmt(s->then_body());
    Reset();
    std::optional<ir::StmtPtr> else_body = s->else_body();
    if (else_body) else_body = MutateStmt(*else_body);
    Leave();
    if (then_body == s->then_body() && else_body == s->else_body()) return s;
    return std::make_shared<const ir::IfStmt>(s->condition(), then_body, else_body,
                                              s->return_vars(), s->span());
  }
  ir::StmtPtr MutateRuntimeScopeStmt(
      const std::shared_ptr<const ir::RuntimeScopeStmt>& s) override {
    // MANUAL scopes carry the user's own edges; nothing crosses them.
    if (s->manual()) {
      state_.clear();
      return s;
    }
    return IRMutator::MutateRuntimeScopeStmt(s);
  }

 private:
  // A nested body: the tasks in it are not in scope after it, so the buffers
  // it touches lose their static producers when it ends.
  void Enter() {
    saved_.push_back(state_);
    touched_.emplace_back();
  }
  void Reset() { state_ = saved_.back(); }
  void Leave() {
    state_ = std::move(saved_.back());
    saved_.pop_back();
    absl::flat_hash_set<const ir::Var*> touched = std::move(touched_.back());
    touched_.pop_back();
    for (const ir::Var* r : touched) {
      state_.erase(r);
      if (!touched_.empty()) touched_.back().insert(r);
    }
  }

  // The call with its edges recorded (the call itself when unchanged); updates
  // the buffer states with what it does.
  ir::CallPtr Task(const ir::CallPtr& c, const ir::VarPtr& handle) {
    std::vector<ArgDirection> dirs = c->GetArgDirections();
    if (dirs.size() != c->args().size() || dirs.empty()) return c;
    std::vector<ir::VarPtr> edges;
    auto add = [&](const ir::VarPtr& v) {
      if (v == nullptr || v == handle) return;
      for (const ir::VarPtr& e : edges) {
        if (e == v) return;
      }
      edges.push_back(v);
    };
    std::vector<std::pair<const ir::Var*, ArgDirection>> accesses;
    for (size_t i = 0; i < dirs.size(); ++i) {
      if (!Reads(dirs[i]) && !Writes(dirs[i])) continue;
      const ir::Var* root = roots_.RootOf(c->args()[i]);
      if (root == nullptr) continue;
      accesses.emplace_back(root, dirs[i]);
      auto it = state_.find(root);
      if (it == state_.end()) continue;
      add(it->second.writer);  // RAW / WAW
      if (Writes(dirs[i])) {
        for (const ir::VarPtr& r : it->second.readers) add(r);  // WAR
      }
    }
    for (const auto& [root, d] : accesses) {
      BufferState& st = state_[root];
      if (Writes(d)) {
        st.writer = handle;
        st.readers.clear();
      } else {
        st.readers.push_back(handle);
      }
      if (!touched_.empty()) touched_.back().insert(root);
    }
    std::vector<ir::ExprPtr> value(edges.begin(), edges.end());
    std::optional<std::vector<ir::ExprPtr>> old =
        ir::GetAttr<std::vector<ir::ExprPtr>>(c->attrs(), kAttrCompilerManualDepEdges);
    if (old ? *old == value : value.empty()) return c;
    return std::make_shared<const ir::Call>(
        c->op(), c->args(), c->kwargs(),
        ir::WithAttr(c->attrs(), kAttrCompilerManualDepEdges, std::move(value)), c->type(),
        c->span());
  }

  BufferRoots roots_;
  absl::flat_hash_map<const ir::Var*, BufferState> state_;
  std::vector<absl::flat_hash_map<const ir::Var*, BufferState>> saved_;
  std::vector<absl::flat_hash_set<const ir::Var*>> touched_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> AutoDeriveTaskDependenciesPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [&](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
        if (!IsOrchestrationBody(*f)) return f->body();
        DependencyMutator m(program.get());
        return m.MutateStmt(f->body());
      });
}

std::unique_ptr<Pass> CreateAutoDeriveTaskDependenciesPass() {
  return std::make_unique<AutoDeriveTaskDependenciesPass>();
}

}  // namespace pto::passes
