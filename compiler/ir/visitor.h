// Read-only traversal of the IR. VisitExpr/VisitStmt/VisitType dispatch on
// NodeKind to one virtual method per node kind; every default recurses into all
// children of the node, so a subclass overrides only the kinds it cares about
// and calls the base method to keep descending.
//
// Children include the expressions inside types (shapes, tensor views, memrefs,
// window buffers), ExprPtr-valued kwargs/attrs, IterArg init values, loop
// bounds and CommDomainScopeStmt slots. The type of every visited expression
// is visited too (a Var's type at each occurrence); override VisitType with an
// empty body to skip types.
//
// Var definitions (params, assignment targets, loop vars, iter args, return
// vars) go to VisitVarDef, uses go through VisitExpr, so analyses can tell them
// apart. An IterArg's init value belongs to its loop statement: it is visited
// once by VisitForStmt/VisitWhileStmt (before the iter arg is defined), not at
// the iter arg's uses.
//
// Recursion depth is bounded by the nesting depth of the IR.
#ifndef PTO_COMPILER_IR_VISITOR_H_
#define PTO_COMPILER_IR_VISITOR_H_

#include <memory>

#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;

  // Entry points. Null pointers are ignored.
  virtual void VisitProgram(const ProgramPtr& program);
  virtual void VisitFunction(const FunctionPtr& func);
  virtual void VisitStmt(const StmtPtr& stmt);
  virtual void VisitExpr(const ExprPtr& expr);
  virtual void VisitType(const TypePtr& type);

 protected:
  // A definition site. Default: the var's type, plus the fields of a MemRef or
  // WindowBuffer (an IterArg's init value is visited by its loop).
  virtual void VisitVarDef(const VarPtr& var);
  // ExprPtr and vector<ExprPtr> values; other values are plain data.
  virtual void VisitAttrs(const AttrList& attrs);

  // Types.
  virtual void VisitScalarType(const std::shared_ptr<const ScalarType>& type);
  virtual void VisitTensorType(const std::shared_ptr<const TensorType>& type);
  virtual void VisitDistributedTensorType(const std::shared_ptr<const DistributedTensorType>& type);
  virtual void VisitTileType(const std::shared_ptr<const TileType>& type);
  virtual void VisitTupleType(const std::shared_ptr<const TupleType>& type);
  virtual void VisitArrayType(const std::shared_ptr<const ArrayType>& type);
  // UnknownType, PtrType, MemRefType, WindowBufferType, CommCtxType (no children).
  virtual void VisitLeafType(const TypePtr& type);

  // Expressions (uses).
  virtual void VisitVar(const VarPtr& var);
  virtual void VisitIterArg(const IterArgPtr& var);
  virtual void VisitMemRef(const MemRefPtr& var);
  virtual void VisitWindowBuffer(const WindowBufferPtr& var);
  virtual void VisitOp(const OpPtr& op);
  virtual void VisitGlobalVar(const GlobalVarPtr& gv);
  virtual void VisitConstInt(const std::shared_ptr<const ConstInt>& expr);
  virtual void VisitConstFloat(const std::shared_ptr<const ConstFloat>& expr);
  virtual void VisitConstBool(const std::shared_ptr<const ConstBool>& expr);
  virtual void VisitConstString(const std::shared_ptr<const ConstString>& expr);
  virtual void VisitDynDim(const std::shared_ptr<const DynDim>& expr) {}
  virtual void VisitBinaryExpr(const std::shared_ptr<const BinaryExpr>& expr);
  virtual void VisitUnaryExpr(const std::shared_ptr<const UnaryExpr>& expr);
  virtual void VisitCall(const CallPtr& call);
  virtual void VisitMakeTuple(const std::shared_ptr<const MakeTuple>& expr);
  virtual void VisitTupleGetItem(const std::shared_ptr<const TupleGetItem>& expr);
  virtual void VisitCast(const std::shared_ptr<const Cast>& expr);

  // Statements.
  virtual void VisitAssignStmt(const std::shared_ptr<const AssignStmt>& stmt);
  virtual void VisitEvalStmt(const std::shared_ptr<const EvalStmt>& stmt);
  virtual void VisitReturnStmt(const std::shared_ptr<const ReturnStmt>& stmt);
  virtual void VisitSeqStmts(const std::shared_ptr<const SeqStmts>& stmt);
  virtual void VisitIfStmt(const std::shared_ptr<const IfStmt>& stmt);
  virtual void VisitForStmt(const std::shared_ptr<const ForStmt>& stmt);
  virtual void VisitWhileStmt(const std::shared_ptr<const WhileStmt>& stmt);
  virtual void VisitYieldStmt(const std::shared_ptr<const YieldStmt>& stmt);
  virtual void VisitCommDomainScopeStmt(const std::shared_ptr<const CommDomainScopeStmt>& stmt);
  virtual void VisitRuntimeScopeStmt(const std::shared_ptr<const RuntimeScopeStmt>& stmt);
  virtual void VisitExecScopeStmt(const std::shared_ptr<const ExecScopeStmt>& stmt);
  virtual void VisitBreakStmt(const std::shared_ptr<const BreakStmt>& stmt) {}
  virtual void VisitContinueStmt(const std::shared_ptr<const ContinueStmt>& stmt) {}

  // Helpers for overrides.
  void VisitExprs(const std::vector<ExprPtr>& exprs);
  void VisitShapedFields(const ShapedType& type);
  void VisitTensorFields(const TensorType& type);
};

// The Var `with pl.at(...) as tid:` binds (the scope's kAttrTaskIdVar), or
// nullptr. Visitors see it as a definition after the scope's body.
VarPtr ScopeTaskIdVar(const ExecScopeStmt& stmt);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_VISITOR_H_
