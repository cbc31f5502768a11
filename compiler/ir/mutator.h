// Rewriting traversal of the IR. Every Mutate* method returns the node itself
// when nothing below it changed and a new node otherwise ("identity when
// untouched", spec §1.1), so callers detect a change by pointer inequality and
// unchanged subtrees stay shared.
//
// Vars are rebuilt, not edited: when a Var's type (or an IterArg's init value,
// a MemRef's addr, a WindowBuffer's base/size) changes, the mutator makes one
// new Var and maps every later occurrence of the old one to it. The map lives
// as long as the mutator, so one object in (e.g. a WindowBuffer shared by many
// window views, spec §1.4) stays one object out.
//
// A subclass overrides the kinds it rewrites and calls the base method to keep
// the default recursion. Returning nullptr from MutateStmt for an element of a
// SeqStmts deletes it.
#ifndef PTO_COMPILER_IR_MUTATOR_H_
#define PTO_COMPILER_IR_MUTATOR_H_

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;

  // Entry points. Null in, null out. A Program is rebuilt only when some
  // function changed; GlobalVars of unchanged names are kept.
  virtual ProgramPtr MutateProgram(const ProgramPtr& program);
  virtual FunctionPtr MutateFunction(const FunctionPtr& func);
  virtual StmtPtr MutateStmt(const StmtPtr& stmt);
  virtual ExprPtr MutateExpr(const ExprPtr& expr);
  virtual TypePtr MutateType(const TypePtr& type);

 protected:
  // A definition site (param, assignment target, loop var, iter arg, return
  // var). Must return a Var of the same kind (an IterArg for an IterArg).
  // Default: RemapVar.
  virtual VarPtr MutateVarDef(const VarPtr& var);
  // ExprPtr and vector<ExprPtr> values are mutated; nullopt when unchanged.
  virtual std::optional<AttrList> MutateAttrs(const AttrList& attrs);

  // Types.
  virtual TypePtr MutateTensorType(const std::shared_ptr<const TensorType>& type);
  virtual TypePtr MutateDistributedTensorType(
      const std::shared_ptr<const DistributedTensorType>& type);
  virtual TypePtr MutateTileType(const std::shared_ptr<const TileType>& type);
  virtual TypePtr MutateTupleType(const std::shared_ptr<const TupleType>& type);
  virtual TypePtr MutateArrayType(const std::shared_ptr<const ArrayType>& type);

  // Expressions. A Var use (any Var subclass) goes to MutateVar; default:
  // RemapVar.
  virtual ExprPtr MutateVar(const VarPtr& var);
  virtual ExprPtr MutateLeafExpr(const ExprPtr& expr);  // Op, GlobalVar, constants
  virtual ExprPtr MutateBinaryExpr(const std::shared_ptr<const BinaryExpr>& expr);
  virtual ExprPtr MutateUnaryExpr(const std::shared_ptr<const UnaryExpr>& expr);
  virtual ExprPtr MutateCall(const CallPtr& call);
  virtual ExprPtr MutateMakeTuple(const std::shared_ptr<const MakeTuple>& expr);
  virtual ExprPtr MutateTupleGetItem(const std::shared_ptr<const TupleGetItem>& expr);
  virtual ExprPtr MutateCast(const std::shared_ptr<const Cast>& expr);

  // Statements.
  virtual StmtPtr MutateAssignStmt(const std::shared_ptr<const AssignStmt>& stmt);
  virtual StmtPtr MutateEvalStmt(const std::shared_ptr<const EvalStmt>& stmt);
  virtual StmtPtr MutateReturnStmt(const std::shared_ptr<const ReturnStmt>& stmt);
  virtual StmtPtr MutateSeqStmts(const std::shared_ptr<const SeqStmts>& stmt);
  virtual StmtPtr MutateIfStmt(const std::shared_ptr<const IfStmt>& stmt);
  virtual StmtPtr MutateForStmt(const std::shared_ptr<const ForStmt>& stmt);
  virtual StmtPtr MutateWhileStmt(const std::shared_ptr<const WhileStmt>& stmt);
  virtual StmtPtr MutateYieldStmt(const std::shared_ptr<const YieldStmt>& stmt);
  virtual StmtPtr MutateCommDomainScopeStmt(const std::shared_ptr<const CommDomainScopeStmt>& stmt);
  virtual StmtPtr MutateRuntimeScopeStmt(const std::shared_ptr<const RuntimeScopeStmt>& stmt);
  virtual StmtPtr MutateExecScopeStmt(const std::shared_ptr<const ExecScopeStmt>& stmt);

  // The var that stands for `var` from now on: the recorded replacement, or a
  // rebuilt var (new type / init value / fields) which is then recorded. The
  // same var when nothing changed.
  VarPtr RemapVar(const VarPtr& var);
  // Records that `from` is replaced by `to` at every later occurrence.
  void SetVarReplacement(const VarPtr& from, VarPtr to);
  // The recorded replacement of `var`, or nullptr.
  VarPtr LookupVarReplacement(const Var* var) const;

  // Helpers; `changed` is set to true when some element changed.
  std::vector<ExprPtr> MutateExprs(const std::vector<ExprPtr>& exprs, bool* changed);
  std::vector<VarPtr> MutateVarDefs(const std::vector<VarPtr>& vars, bool* changed);
  std::vector<IterArgPtr> MutateIterArgs(const std::vector<IterArgPtr>& iter_args, bool* changed);
  // A body mutated to nullptr becomes an empty SeqStmts.
  StmtPtr MutateBody(const StmtPtr& body, bool* changed);

 private:
  VarPtr RebuildVar(const VarPtr& var);
  std::optional<MemRefPtr> MutateMemRefField(const std::optional<MemRefPtr>& memref, bool* changed);
  std::optional<TensorView> MutateTensorViewField(const std::optional<TensorView>& view,
                                                  bool* changed);

  // Keyed by the original object; the original is kept alive so the address
  // cannot be reused while the entry exists.
  absl::flat_hash_map<const Var*, std::pair<VarPtr, VarPtr>> var_map_;
};

// An IRMutator that splices a statement rewritten into a SeqStmts into the
// enclosing sequence, so passes that expand one statement into several keep
// sequences flat (NormalizedStmtStructure).
class FlatteningMutator : public IRMutator {
 protected:
  StmtPtr MutateSeqStmts(const std::shared_ptr<const SeqStmts>& stmt) override;
};

// A FlatteningMutator that knows where it is: span() is the span of the
// innermost function, statement, var definition or call being mutated, for
// located errors raised from type rewrites (a type has no statement of its
// own). Calls are rewritten through MutateCallAt.
class SpanTrackingMutator : public FlatteningMutator {
 public:
  FunctionPtr MutateFunction(const FunctionPtr& func) override;
  StmtPtr MutateStmt(const StmtPtr& stmt) override;

 protected:
  VarPtr MutateVarDef(const VarPtr& var) override;
  ExprPtr MutateCall(const CallPtr& call) final;
  // The call rewrite with span() at the call; by default IRMutator's.
  virtual ExprPtr MutateCallAt(const CallPtr& call) { return IRMutator::MutateCall(call); }
  const Span& span() const { return span_; }

 private:
  Span span_;
};

using VarSubstMap = absl::flat_hash_map<const Var*, ExprPtr>;

// Replaces every use of a var in `map` by its value, including uses inside
// call kwargs/attrs (`device`, `core_num`, ...) and inside types (shapes,
// views, memrefs, window buffers); vars whose types change are rebuilt once
// and consistently. A definition site is replaced only by a Var of the same
// kind. Returns the input itself when nothing was replaced.
ExprPtr Substitute(const ExprPtr& expr, const VarSubstMap& map);
StmtPtr Substitute(const StmtPtr& stmt, const VarSubstMap& map);
TypePtr Substitute(const TypePtr& type, const VarSubstMap& map);
FunctionPtr Substitute(const FunctionPtr& func, const VarSubstMap& map);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_MUTATOR_H_
