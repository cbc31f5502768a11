// IR expressions (docs/language.md).
#ifndef PTO_COMPILER_IR_EXPR_H_
#define PTO_COMPILER_IR_EXPR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_id.h"
#include "compiler/ir/type.h"

namespace pto::ir {

// Every expression carries its type, computed once when it is built (by the
// operator's deducer for a Call), so passes read types without re-deducing
// and a verifier can check them against the operands.
class Expr : public Node {
 public:
  static bool Matches(NodeKind k) { return k >= NodeKind::kVar && k <= NodeKind::kDynDim; }
  const TypePtr& type() const { return type_; }

 protected:
  Expr(NodeKind kind, TypePtr type, Span span) : Node(kind, std::move(span)), type_(std::move(type)) {}

 private:
  TypePtr type_;
};

// A named SSA value. Identity is the object: two Vars with the same name hint
// are different values.
class Var : public Expr {
 public:
  static bool Matches(NodeKind k) {
    return k == NodeKind::kVar || k == NodeKind::kIterArg || k == NodeKind::kMemRef ||
           k == NodeKind::kWindowBuffer;
  }
  Var(std::string name_hint, TypePtr type, Span span = Span())
      : Var(NodeKind::kVar, std::move(name_hint), std::move(type), std::move(span)) {}
  const std::string& name_hint() const { return name_hint_; }

 protected:
  Var(NodeKind kind, std::string name_hint, TypePtr type, Span span)
      : Expr(kind, std::move(type), std::move(span)), name_hint_(std::move(name_hint)) {}

 private:
  std::string name_hint_;
};
using VarPtr = std::shared_ptr<const Var>;

// A loop-carried value of a For/While; `init_value` is its value on entry.
// It is a Var (the body reads it by name) that also holds its initial value,
// so a loop needs no separate phi list (PyPTO's IterArg).
class IterArg : public Var {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kIterArg; }
  IterArg(std::string name_hint, TypePtr type, ExprPtr init_value, Span span = Span())
      : Var(NodeKind::kIterArg, std::move(name_hint), std::move(type), std::move(span)),
        init_value_(std::move(init_value)) {}
  const ExprPtr& init_value() const { return init_value_; }

 private:
  ExprPtr init_value_;
};
using IterArgPtr = std::shared_ptr<const IterArg>;

// A buffer placement in an on-chip or global memory space (InitMemRef). A
// Var so that tiles sharing a buffer refer to one object (MemoryReuse (33)
// merges them by pointing types at the same MemRef); `addr` is filled in by
// AllocateMemoryAddr (34).
class MemRef : public Var {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kMemRef; }
  MemRef(std::string name_hint, MemorySpace space, ExprPtr addr, int64_t size, int64_t id,
         Span span = Span());
  MemorySpace memory_space() const { return memory_space_; }
  const ExprPtr& addr() const { return addr_; }
  int64_t size() const { return size_; }
  int64_t id() const { return id_; }

 private:
  MemorySpace memory_space_;
  ExprPtr addr_;
  int64_t size_;
  int64_t id_;
};

// One allocation of a communication window (spec §1.4). Every window view of
// the allocation shares the same object: pointer identity is load-bearing.
class WindowBuffer : public Var {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kWindowBuffer; }
  // The name hint is inherited from `base` (the runtime buffer name).
  WindowBuffer(VarPtr base, ExprPtr size, bool load_from_host = false,
               bool store_to_host = false, Span span = Span());
  const VarPtr& base() const { return base_; }
  const ExprPtr& size() const { return size_; }
  bool load_from_host() const { return load_from_host_; }
  bool store_to_host() const { return store_to_host_; }

 private:
  VarPtr base_;
  ExprPtr size_;
  bool load_from_host_;
  bool store_to_host_;
};

// An operator reference (`pld.tensor.window`, `pl.tensor.add`, ...). The
// name is kept for printing and diagnostics; passes dispatch on the OpId so
// that a renamed or aliased operator cannot silently miss a rewrite.
class Op : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kOp || k == NodeKind::kGlobalVar; }
  explicit Op(std::string name, Span span = Span())
      : Op(NodeKind::kOp, std::move(name), std::move(span)) {}
  const std::string& name() const { return name_; }
  // Resolved once, when the node is built: kUnknown for a GlobalVar or a name
  // the registry does not know.
  OpId id() const { return id_; }

 protected:
  Op(NodeKind kind, std::string name, Span span);

 private:
  std::string name_;
  OpId id_;
};
using OpPtr = std::shared_ptr<const Op>;

// Names a function of the Program (`self.f(...)` in the DSL).
class GlobalVar : public Op {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kGlobalVar; }
  explicit GlobalVar(std::string name, Span span = Span())
      : Op(NodeKind::kGlobalVar, std::move(name), std::move(span)) {}
};
using GlobalVarPtr = std::shared_ptr<const GlobalVar>;

// Integer literals carry their dtype: an INDEX 4 and an INT32 4 are different
// values, as the target's arithmetic and PyPTO's printer tell them apart.
class ConstInt : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kConstInt; }
  ConstInt(int64_t value, DataType dtype = DataType::kIndex, Span span = Span());
  int64_t value() const { return value_; }
  DataType dtype() const;

 private:
  int64_t value_;
};

// Float literals; FP32 unless written pl.const(x, dtype) or annotated.
class ConstFloat : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kConstFloat; }
  ConstFloat(double value, DataType dtype = DataType::kFP32, Span span = Span());
  double value() const { return value_; }
  DataType dtype() const;

 private:
  double value_;
};

class ConstBool : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kConstBool; }
  explicit ConstBool(bool value, Span span = Span());
  bool value() const { return value_; }

 private:
  bool value_;
};

// A string literal argument (e.g. an allreduce `mode` passed positionally).
class ConstString : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kConstString; }
  explicit ConstString(std::string value, Span span = Span());
  const std::string& value() const { return value_; }

 private:
  std::string value_;
};

// A shape dimension bound at run time (PyPTO's DynVar): `NR = pl.dynamic("NR")`
// at module level. An INDEX scalar known by its name; two with the same name
// are the same dimension. The printer declares every one a program uses.
class DynDim : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kDynDim; }
  explicit DynDim(std::string name, Span span = Span());
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Scalar operators only: tensor and tile arithmetic are operator Calls, so
// that each has a deducer, traits and code generation of its own.
enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kFloorDiv,
  kFloorMod,
  kDiv,  // true division `/`
  kPow,
  kMin,
  kMax,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,  // logical
  kOr,
  kBitAnd,
  kBitOr,
  kBitXor,
  kShl,
  kShr,
};

enum class UnaryOp : uint8_t { kNeg, kNot, kBitNot, kAbs };

bool IsComparison(BinaryOp op);
bool IsLogical(BinaryOp op);

// Operands are scalars of one dtype (the builder inserts no promotion; the
// parser reports a mismatch), so code generation maps each to one C++ op.
class BinaryExpr : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kBinaryExpr; }
  BinaryExpr(BinaryOp op, ExprPtr lhs, ExprPtr rhs, TypePtr type, Span span = Span())
      : Expr(NodeKind::kBinaryExpr, std::move(type), std::move(span)),
        op_(op),
        lhs_(std::move(lhs)),
        rhs_(std::move(rhs)) {}
  BinaryOp op() const { return op_; }
  const ExprPtr& lhs() const { return lhs_; }
  const ExprPtr& rhs() const { return rhs_; }

 private:
  BinaryOp op_;
  ExprPtr lhs_;
  ExprPtr rhs_;
};

class UnaryExpr : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kUnaryExpr; }
  UnaryExpr(UnaryOp op, ExprPtr operand, TypePtr type, Span span = Span())
      : Expr(NodeKind::kUnaryExpr, std::move(type), std::move(span)),
        op_(op),
        operand_(std::move(operand)) {}
  UnaryOp op() const { return op_; }
  const ExprPtr& operand() const { return operand_; }

 private:
  UnaryOp op_;
  ExprPtr operand_;
};

// A call of an operator or of a Program function (GlobalVar op). `kwargs` are
// operator metadata, `attrs` compiler metadata (device, core_num, ...).
class Call : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kCall; }
  Call(OpPtr op, std::vector<ExprPtr> args, AttrList kwargs, AttrList attrs, TypePtr type,
       Span span = Span())
      : Expr(NodeKind::kCall, std::move(type), std::move(span)),
        op_(std::move(op)),
        args_(std::move(args)),
        kwargs_(std::move(kwargs)),
        attrs_(std::move(attrs)) {}
  const OpPtr& op() const { return op_; }
  const std::vector<ExprPtr>& args() const { return args_; }
  const AttrList& kwargs() const { return kwargs_; }
  const AttrList& attrs() const { return attrs_; }
  // The arg directions attr, empty when absent.
  std::vector<ArgDirection> GetArgDirections() const;

 private:
  OpPtr op_;
  std::vector<ExprPtr> args_;
  AttrList kwargs_;
  AttrList attrs_;
};
using CallPtr = std::shared_ptr<const Call>;

// Whether `call` calls operator `id` (never true for a function call).
inline bool IsOp(const Call& call, OpId id) { return call.op()->id() == id; }
inline bool IsOp(const Call* call, OpId id) { return call != nullptr && IsOp(*call, id); }
inline bool IsOp(const CallPtr& call, OpId id) { return IsOp(call.get(), id); }
// Whether `e` is a call of operator `id`.
bool IsOp(const ExprPtr& e, OpId id);
// The operator `e` calls; kUnknown when `e` is not an operator call.
OpId OpIdOf(const ExprPtr& e);

// A tuple value: several results of a call, or a shape / offset list passed
// to an operator (the printer writes the latter as a list).
class MakeTuple : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kMakeTuple; }
  explicit MakeTuple(std::vector<ExprPtr> elements, Span span = Span());
  const std::vector<ExprPtr>& elements() const { return elements_; }

 private:
  std::vector<ExprPtr> elements_;
};

class TupleGetItem : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kTupleGetItem; }
  // `tuple` must have TupleType with index in range (checked by the builder/parser).
  TupleGetItem(ExprPtr tuple, int index, TypePtr type, Span span = Span())
      : Expr(NodeKind::kTupleGetItem, std::move(type), std::move(span)),
        tuple_(std::move(tuple)),
        index_(index) {}
  const ExprPtr& tuple() const { return tuple_; }
  int index() const { return index_; }

 private:
  ExprPtr tuple_;
  int index_;
};

// Scalar conversion (`pl.cast(x, pl.INT32)`).
class Cast : public Expr {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kCast; }
  Cast(ExprPtr value, DataType dtype, Span span = Span());
  const ExprPtr& value() const { return value_; }
  DataType dtype() const;

 private:
  ExprPtr value_;
};

// The integer value of a ConstInt, or nullopt.
std::optional<int64_t> GetConstInt(const ExprPtr& e);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_EXPR_H_
