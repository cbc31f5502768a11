// Base of every IR node: a kind tag and a source span. Nodes are immutable and
// shared (`std::shared_ptr<const T>`); passes build new nodes instead of editing.
#ifndef PTO_COMPILER_IR_NODE_H_
#define PTO_COMPILER_IR_NODE_H_

#include <cstdint>
#include <memory>

#include "compiler/support/source.h"

namespace pto::ir {

// One tag per concrete class, grouped so that each abstract base (Type, Expr,
// Stmt) is a contiguous range: `Matches` is a range test and a switch over
// the kind replaces dynamic_cast in every visitor. Adding a node means adding
// its kind inside its group's range.
enum class NodeKind : uint8_t {
  // Types.
  kUnknownType,
  kScalarType,
  kTensorType,
  kDistributedTensorType,
  kTileType,
  kTupleType,
  kArrayType,
  kPtrType,
  kMemRefType,
  kWindowBufferType,
  kCommCtxType,
  // Expressions.
  kVar,
  kIterArg,
  kMemRef,
  kWindowBuffer,
  kOp,
  kGlobalVar,
  kConstInt,
  kConstFloat,
  kConstBool,
  kConstString,
  kBinaryExpr,
  kUnaryExpr,
  kCall,
  kMakeTuple,
  kTupleGetItem,
  kCast,
  kDynDim,
  // Statements.
  kAssignStmt,
  kEvalStmt,
  kReturnStmt,
  kSeqStmts,
  kIfStmt,
  kForStmt,
  kWhileStmt,
  kYieldStmt,
  kCommDomainScopeStmt,
  kRuntimeScopeStmt,
  kExecScopeStmt,
  kBreakStmt,
  kContinueStmt,
  // Top level.
  kFunction,
  kProgram,
};

// The span is where the node came from in the source (or the span of the
// construct a pass lowered it from), so every later error can be located.
class Node {
 public:
  virtual ~Node() = default;
  NodeKind kind() const { return kind_; }
  const Span& span() const { return span_; }

 protected:
  Node(NodeKind kind, Span span) : kind_(kind), span_(std::move(span)) {}

 private:
  NodeKind kind_;
  Span span_;
};

// Kind-checked downcast. `T::Matches(kind)` decides; DistributedTensorType is a
// distinct kind, so As<TensorType> does not match it (spec §1.3), while
// As<Var> matches every Var subclass (IterArg, MemRef, WindowBuffer).
template <typename T, typename U>
std::shared_ptr<const T> As(const std::shared_ptr<const U>& node) {
  if (node != nullptr && T::Matches(node->kind())) {
    return std::static_pointer_cast<const T>(node);
  }
  return nullptr;
}

// Kind test without the cast, for conditions that do not need the node.
template <typename T, typename U>
bool Is(const std::shared_ptr<const U>& node) {
  return node != nullptr && T::Matches(node->kind());
}

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_NODE_H_
