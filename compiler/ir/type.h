// IR types (docs/language.md).
#ifndef PTO_COMPILER_IR_TYPE_H_
#define PTO_COMPILER_IR_TYPE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/ir/enums.h"
#include "compiler/ir/node.h"

namespace pto::ir {

class Expr;
class MemRef;
class WindowBuffer;
using ExprPtr = std::shared_ptr<const Expr>;
using MemRefPtr = std::shared_ptr<const MemRef>;
using WindowBufferPtr = std::shared_ptr<const WindowBuffer>;

// Types are values: two types are the same when they are structurally equal,
// never by identity, so passes may rebuild a type freely (the singletons
// below only save allocations).
class Type : public Node {
 public:
  static bool Matches(NodeKind k) {
    return k >= NodeKind::kUnknownType && k <= NodeKind::kCommCtxType;
  }

 protected:
  using Node::Node;
};
using TypePtr = std::shared_ptr<const Type>;

// Result of side-effect-only operations.
class UnknownType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kUnknownType; }
  static std::shared_ptr<const UnknownType> Get();
  UnknownType() : Type(NodeKind::kUnknownType, Span()) {}
};

class ScalarType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kScalarType; }
  explicit ScalarType(DataType dtype, Span span = Span())
      : Type(NodeKind::kScalarType, std::move(span)), dtype_(dtype) {}
  DataType dtype() const { return dtype_; }
  // Shared instances per dtype (types have no identity).
  static std::shared_ptr<const ScalarType> Get(DataType dtype);

 private:
  DataType dtype_;
};

// Stride/layout/valid-shape/pad of a tensor (empty valid_shape = full). Kept
// beside the shape rather than folded into it, because a view of a larger
// tensor (a slice, a window) is addressed with the parent's strides while its
// shape is the box it covers.
struct TensorView {
  std::vector<ExprPtr> stride;
  TensorLayout layout = TensorLayout::kND;
  std::vector<ExprPtr> valid_shape;
  PadValue pad = PadValue::kNull;
};

// Common base of tensors and tiles. Dimensions are expressions, not
// integers: a dynamic dimension (DynDim) or a scalar parameter may give a
// size that is known only at run time.
class ShapedType : public Type {
 public:
  static bool Matches(NodeKind k) {
    return k == NodeKind::kTensorType || k == NodeKind::kDistributedTensorType ||
           k == NodeKind::kTileType;
  }
  DataType dtype() const { return dtype_; }
  const std::vector<ExprPtr>& shape() const { return shape_; }
  const std::optional<MemRefPtr>& memref() const { return memref_; }

 protected:
  ShapedType(NodeKind kind, std::vector<ExprPtr> shape, DataType dtype,
             std::optional<MemRefPtr> memref, Span span)
      : Type(kind, std::move(span)),
        dtype_(dtype),
        shape_(std::move(shape)),
        memref_(std::move(memref)) {}

 private:
  DataType dtype_;
  std::vector<ExprPtr> shape_;
  std::optional<MemRefPtr> memref_;
};

// A tensor in DDR (global memory). Orchestrations pass tensors between
// tasks; kernels move their contents into tiles with loads and stores.
class TensorType : public ShapedType {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kTensorType; }
  TensorType(std::vector<ExprPtr> shape, DataType dtype,
             std::optional<MemRefPtr> memref = std::nullopt,
             std::optional<TensorView> view = std::nullopt, Span span = Span())
      : TensorType(NodeKind::kTensorType, std::move(shape), dtype, std::move(memref),
                   std::move(view), std::move(span)) {}
  const std::optional<TensorView>& tensor_view() const { return tensor_view_; }

 protected:
  TensorType(NodeKind kind, std::vector<ExprPtr> shape, DataType dtype,
             std::optional<MemRefPtr> memref, std::optional<TensorView> view, Span span)
      : ShapedType(kind, std::move(shape), dtype, std::move(memref), std::move(span)),
        tensor_view_(std::move(view)) {}

 private:
  std::optional<TensorView> tensor_view_;
};

// A per-rank slice of a symmetric communication window. A distinct kind:
// As<TensorType> does not match it; use AsTensorTypeLike for both.
class DistributedTensorType : public TensorType {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kDistributedTensorType; }
  DistributedTensorType(std::vector<ExprPtr> shape, DataType dtype,
                        std::optional<MemRefPtr> memref = std::nullopt,
                        std::optional<TensorView> view = std::nullopt,
                        std::optional<WindowBufferPtr> window_buffer = std::nullopt,
                        Span span = Span())
      : TensorType(NodeKind::kDistributedTensorType, std::move(shape), dtype, std::move(memref),
                   std::move(view), std::move(span)),
        window_buffer_(std::move(window_buffer)) {}
  const std::optional<WindowBufferPtr>& window_buffer() const { return window_buffer_; }

 private:
  std::optional<WindowBufferPtr> window_buffer_;
};

// Matches TensorType and DistributedTensorType.
std::shared_ptr<const TensorType> AsTensorTypeLike(const TypePtr& type);

// On-chip tile (appears inside kernels and composite lowerings). The shape is
// the buffer's (what UB placement sizes); valid_shape is the part that holds
// data (PyPTO's partial tiles), which loads, stores and elementwise results
// must respect or the padding would be written out.
class TileType : public ShapedType {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kTileType; }
  TileType(std::vector<ExprPtr> shape, DataType dtype,
           std::optional<MemRefPtr> memref = std::nullopt,
           std::vector<ExprPtr> valid_shape = {}, Span span = Span(),
           std::optional<MemorySpace> memory_space = std::nullopt)
      : ShapedType(NodeKind::kTileType, std::move(shape), dtype, std::move(memref),
                   std::move(span)),
        valid_shape_(std::move(valid_shape)),
        memory_space_(memory_space) {}
  // Empty = the full shape.
  const std::vector<ExprPtr>& valid_shape() const { return valid_shape_; }
  // PyPTO's TileType::memory_space_: set by InferTileMemorySpace (17) or an
  // annotation; unset before it.
  const std::optional<MemorySpace>& memory_space() const { return memory_space_; }
  // The space the tile lives in: its memory_space, else its MemRef's.
  std::optional<MemorySpace> Space() const;

 private:
  std::vector<ExprPtr> valid_shape_;
  std::optional<MemorySpace> memory_space_;
};

// Several results of one call (pl.submit, a multi-result function); taken
// apart with TupleGetItem, since statements bind one Var each.
class TupleType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kTupleType; }
  explicit TupleType(std::vector<TypePtr> types, Span span = Span())
      : Type(NodeKind::kTupleType, std::move(span)), types_(std::move(types)) {}
  const std::vector<TypePtr>& types() const { return types_; }

 private:
  std::vector<TypePtr> types_;
};

// pl.Array[extent, dtype]: a small fixed-size 1-D array of scalars that lives
// on the orchestration's stack (PyPTO's ArrayType), e.g. the task ids of one
// loop's fan-out, Array[N, TASK_ID].
class ArrayType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kArrayType; }
  ArrayType(ExprPtr extent, DataType dtype, Span span = Span())
      : Type(NodeKind::kArrayType, std::move(span)), extent_(std::move(extent)), dtype_(dtype) {}
  const ExprPtr& extent() const { return extent_; }
  DataType dtype() const { return dtype_; }
  // The extent when it is a compile-time constant.
  std::optional<int64_t> ConstExtent() const;

 private:
  ExprPtr extent_;
  DataType dtype_;
};

// Singleton types: allocation identity token, MemRef and WindowBuffer SSA
// edges, and the runtime CommContext*.
class PtrType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kPtrType; }
  static std::shared_ptr<const PtrType> Get();
  PtrType() : Type(NodeKind::kPtrType, Span()) {}
};

class MemRefType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kMemRefType; }
  static std::shared_ptr<const MemRefType> Get();
  MemRefType() : Type(NodeKind::kMemRefType, Span()) {}
};

class WindowBufferType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kWindowBufferType; }
  static std::shared_ptr<const WindowBufferType> Get();
  WindowBufferType() : Type(NodeKind::kWindowBufferType, Span()) {}
};

class CommCtxType : public Type {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kCommCtxType; }
  static std::shared_ptr<const CommCtxType> Get();
  CommCtxType() : Type(NodeKind::kCommCtxType, Span()) {}
};

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_TYPE_H_
