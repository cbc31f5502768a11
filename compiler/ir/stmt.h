// IR statements (docs/language.md).
#ifndef PTO_COMPILER_IR_STMT_H_
#define PTO_COMPILER_IR_STMT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"

namespace pto::ir {

// Statements are immutable and shared: passes rebuild the path to a change
// (IRMutator) instead of editing in place, so an unchanged subtree is reused
// by every version of a program and structural equality stays cheap.
class Stmt : public Node {
 public:
  // The statement kinds are one contiguous range of NodeKind, so a kind test
  // is two compares (spec §1.3).
  static bool Matches(NodeKind k) {
    return k >= NodeKind::kAssignStmt && k <= NodeKind::kContinueStmt;
  }

 protected:
  using Node::Node;
};
using StmtPtr = std::shared_ptr<const Stmt>;

// `var = value`. The IR is not SSA until ConvertToSSA (04): before it, a name
// reassigned in a loop or branch is the same Var assigned twice, as in
// PyPTO's front end; after it every Var has one AssignStmt.
class AssignStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kAssignStmt; }
  AssignStmt(VarPtr var, ExprPtr value, Span span = Span())
      : Stmt(NodeKind::kAssignStmt, std::move(span)), var_(std::move(var)), value_(std::move(value)) {}
  const VarPtr& var() const { return var_; }
  const ExprPtr& value() const { return value_; }

 private:
  VarPtr var_;
  ExprPtr value_;
};

// An expression evaluated for its effect. Comments on the lines just above it
// are kept (they do not take part in structural equality).
class EvalStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kEvalStmt; }
  EvalStmt(ExprPtr expr, std::vector<std::string> leading_comments = {}, Span span = Span())
      : Stmt(NodeKind::kEvalStmt, std::move(span)),
        expr_(std::move(expr)),
        leading_comments_(std::move(leading_comments)) {}
  const ExprPtr& expr() const { return expr_; }
  const std::vector<std::string>& leading_comments() const { return leading_comments_; }

 private:
  ExprPtr expr_;
  std::vector<std::string> leading_comments_;
};

// Leaves the function with its results; several values are a tuple result.
// Comments above it are kept for the printer, as for EvalStmt, so that the
// comment that explains a result survives a round trip.
class ReturnStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kReturnStmt; }
  ReturnStmt(std::vector<ExprPtr> value, std::vector<std::string> leading_comments = {},
             Span span = Span())
      : Stmt(NodeKind::kReturnStmt, std::move(span)),
        value_(std::move(value)),
        leading_comments_(std::move(leading_comments)) {}
  const std::vector<ExprPtr>& value() const { return value_; }
  const std::vector<std::string>& leading_comments() const { return leading_comments_; }

 private:
  std::vector<ExprPtr> value_;
  std::vector<std::string> leading_comments_;
};

// A block. Bodies are always one StmtPtr (a SeqStmts or a single statement),
// so passes that replace one statement by several need not change the
// parent's type; Flatten keeps the nesting from growing.
class SeqStmts : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kSeqStmts; }
  explicit SeqStmts(std::vector<StmtPtr> stmts, Span span = Span())
      : Stmt(NodeKind::kSeqStmts, std::move(span)), stmts_(std::move(stmts)) {}
  const std::vector<StmtPtr>& stmts() const { return stmts_; }
  // Splices nested SeqStmts into one flat sequence; a single statement is
  // returned as itself.
  static StmtPtr Flatten(const std::vector<StmtPtr>& stmts, Span span = Span());

 private:
  std::vector<StmtPtr> stmts_;
};

// `return_vars` are defined by the trailing YieldStmt of each branch. They
// are how a value leaves a branch in SSA form: the IR has no phi nodes, the
// if statement itself is the join (PyPTO's IfStmt).
class IfStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kIfStmt; }
  IfStmt(ExprPtr condition, StmtPtr then_body, std::optional<StmtPtr> else_body,
         std::vector<VarPtr> return_vars, Span span = Span())
      : Stmt(NodeKind::kIfStmt, std::move(span)),
        condition_(std::move(condition)),
        then_body_(std::move(then_body)),
        else_body_(std::move(else_body)),
        return_vars_(std::move(return_vars)) {}
  const ExprPtr& condition() const { return condition_; }
  const StmtPtr& then_body() const { return then_body_; }
  const std::optional<StmtPtr>& else_body() const { return else_body_; }
  const std::vector<VarPtr>& return_vars() const { return return_vars_; }

 private:
  ExprPtr condition_;
  StmtPtr then_body_;
  std::optional<StmtPtr> else_body_;
  std::vector<VarPtr> return_vars_;
};

// A counted loop `for loop_var in pl.<kind>(start, stop, step)`. Values
// carried from one iteration to the next are iter args (initialised before
// the loop, updated by the body's trailing YieldStmt) and come out as
// return_vars: the loop is its own join, as an IfStmt is. The kind says how
// it may run (sequential, parallel, unrolled, pipelined); attrs keep the
// pass-specific facts (e.g. pipeline_stages) without a field per pass.
class ForStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kForStmt; }
  ForStmt(VarPtr loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
          std::vector<IterArgPtr> iter_args, StmtPtr body, std::vector<VarPtr> return_vars,
          ForKind kind = ForKind::kSequential, AttrList attrs = {}, Span span = Span())
      : Stmt(NodeKind::kForStmt, std::move(span)),
        loop_var_(std::move(loop_var)),
        start_(std::move(start)),
        stop_(std::move(stop)),
        step_(std::move(step)),
        iter_args_(std::move(iter_args)),
        body_(std::move(body)),
        return_vars_(std::move(return_vars)),
        kind_(kind),
        attrs_(std::move(attrs)) {}
  const VarPtr& loop_var() const { return loop_var_; }
  const ExprPtr& start() const { return start_; }
  const ExprPtr& stop() const { return stop_; }
  const ExprPtr& step() const { return step_; }
  const std::vector<IterArgPtr>& iter_args() const { return iter_args_; }
  const StmtPtr& body() const { return body_; }
  const std::vector<VarPtr>& return_vars() const { return return_vars_; }
  ForKind for_kind() const { return kind_; }
  const AttrList& attrs() const { return attrs_; }

 private:
  VarPtr loop_var_;
  ExprPtr start_;
  ExprPtr stop_;
  ExprPtr step_;
  std::vector<IterArgPtr> iter_args_;
  StmtPtr body_;
  std::vector<VarPtr> return_vars_;
  ForKind kind_;
  AttrList attrs_;
};

// `while condition:`, or PyPTO's `pl.while_(init_values=...)` with iter
// args; the condition is evaluated over the iter args before each
// iteration, so a loop-carried value can decide the exit.
class WhileStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kWhileStmt; }
  WhileStmt(ExprPtr condition, std::vector<IterArgPtr> iter_args, StmtPtr body,
            std::vector<VarPtr> return_vars, Span span = Span())
      : Stmt(NodeKind::kWhileStmt, std::move(span)),
        condition_(std::move(condition)),
        iter_args_(std::move(iter_args)),
        body_(std::move(body)),
        return_vars_(std::move(return_vars)) {}
  const ExprPtr& condition() const { return condition_; }
  const std::vector<IterArgPtr>& iter_args() const { return iter_args_; }
  const StmtPtr& body() const { return body_; }
  const std::vector<VarPtr>& return_vars() const { return return_vars_; }

 private:
  ExprPtr condition_;
  std::vector<IterArgPtr> iter_args_;
  StmtPtr body_;
  std::vector<VarPtr> return_vars_;
};

// Ends a loop or branch body with the values of the enclosing statement's
// return vars (the next iteration's iter args in a loop).
class YieldStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kYieldStmt; }
  explicit YieldStmt(std::vector<ExprPtr> value, Span span = Span())
      : Stmt(NodeKind::kYieldStmt, std::move(span)), value_(std::move(value)) {}
  const std::vector<ExprPtr>& value() const { return value_; }

 private:
  std::vector<ExprPtr> value_;
};

// Base of scoped regions. A scope holds a body and does not open a name
// scope (its definitions are visible after it, as in Python); the subclasses
// say what the region means to the runtime or the pipeline, and the passes
// that lower them remove them.
class ScopeStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) {
    return k == NodeKind::kCommDomainScopeStmt || k == NodeKind::kRuntimeScopeStmt ||
           k == NodeKind::kExecScopeStmt;
  }
  const std::string& name_hint() const { return name_hint_; }
  const StmtPtr& body() const { return body_; }
  const AttrList& attrs() const { return attrs_; }
  virtual ScopeKind GetScopeKind() const = 0;

 protected:
  ScopeStmt(NodeKind kind, std::string name_hint, StmtPtr body, AttrList attrs, Span span)
      : Stmt(kind, std::move(span)),
        name_hint_(std::move(name_hint)),
        body_(std::move(body)),
        attrs_(std::move(attrs)) {}

 private:
  std::string name_hint_;
  StmtPtr body_;
  AttrList attrs_;
};

// A communication domain of a HOST orchestrator: the devices taking part (empty
// = all, resolved at run time to range(world_size)) and the window buffers
// allocated in it, in allocation order.
class CommDomainScopeStmt : public ScopeStmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kCommDomainScopeStmt; }
  CommDomainScopeStmt(std::string name_hint, std::vector<int64_t> devices,
                      std::vector<WindowBufferPtr> slots, StmtPtr body, AttrList attrs = {},
                      Span span = Span())
      : ScopeStmt(NodeKind::kCommDomainScopeStmt, std::move(name_hint), std::move(body),
                  std::move(attrs), std::move(span)),
        devices_(std::move(devices)),
        slots_(std::move(slots)) {}
  ScopeKind GetScopeKind() const override { return ScopeKind::kCommDomain; }
  const std::vector<int64_t>& devices() const { return devices_; }
  const std::vector<WindowBufferPtr>& slots() const { return slots_; }

 private:
  std::vector<int64_t> devices_;
  std::vector<WindowBufferPtr> slots_;
};

// A runtime task scope (PTO2_SCOPE): automatic or manual dependencies.
class RuntimeScopeStmt : public ScopeStmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kRuntimeScopeStmt; }
  RuntimeScopeStmt(std::string name_hint, bool manual, StmtPtr body, AttrList attrs = {},
                   Span span = Span())
      : ScopeStmt(NodeKind::kRuntimeScopeStmt, std::move(name_hint), std::move(body),
                  std::move(attrs), std::move(span)),
        manual_(manual) {}
  ScopeKind GetScopeKind() const override { return ScopeKind::kRuntime; }
  bool manual() const { return manual_; }

 private:
  bool manual_;
};

// Where a region runs, as PyPTO's DSL places it: `with pl.at(level=, role=)`
// (kInCore for the CORE_GROUP level, kHierarchy otherwise), `with
// pl.cluster()` (kCluster) and `with pl.spmd(core_num)` (kSpmd). PyPTO has one
// IR class per kind; here one node holds the fields of all four. The parser
// builds them; lowering them is the pipeline's job, and a pass that does not
// handle one reports it at its span.
class ExecScopeStmt : public ScopeStmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kExecScopeStmt; }
  ExecScopeStmt(ScopeKind scope_kind, std::string name_hint, std::optional<Level> level,
                std::optional<Role> role, ExprPtr core_num, bool sync_start, StmtPtr body,
                AttrList attrs = {}, Span span = Span())
      : ScopeStmt(NodeKind::kExecScopeStmt, std::move(name_hint), std::move(body),
                  std::move(attrs), std::move(span)),
        scope_kind_(scope_kind),
        level_(level),
        role_(role),
        core_num_(std::move(core_num)),
        sync_start_(sync_start) {}
  ScopeKind GetScopeKind() const override { return scope_kind_; }
  // Only the fields of the scope's kind are set; the others are empty, so
  // structural equality compares all of them without a per-kind switch.
  const std::optional<Level>& level() const { return level_; }  // kInCore, kHierarchy
  const std::optional<Role>& role() const { return role_; }     // kHierarchy
  const ExprPtr& core_num() const { return core_num_; }         // kSpmd, else nullptr
  bool sync_start() const { return sync_start_; }               // kSpmd

 private:
  ScopeKind scope_kind_;
  std::optional<Level> level_;
  std::optional<Role> role_;
  ExprPtr core_num_;
  bool sync_start_;
};

// `break` / `continue` of the innermost enclosing loop.
class BreakStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kBreakStmt; }
  explicit BreakStmt(Span span = Span()) : Stmt(NodeKind::kBreakStmt, std::move(span)) {}
};

// Both are lowered by CtrlFlowTransform (03) into loop conditions and
// guarded bodies, because the generated kernels and orchestrations have
// structured loops only.
class ContinueStmt : public Stmt {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kContinueStmt; }
  explicit ContinueStmt(Span span = Span()) : Stmt(NodeKind::kContinueStmt, std::move(span)) {}
};

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_STMT_H_
