// Convenience constructors for tests and passes: vars, constants, types from
// integer shapes, scalar arithmetic with type deduction, calls, and builders
// for functions (with structured for/if bodies) and programs.
//
//   FunctionBuilder fb("main", FunctionType::kOrchestration);
//   VarPtr x = fb.Param("x", TensorOf({64}, DataType::kFP32));
//   VarPtr n = fb.Param("n", ScalarOf(DataType::kIndex));
//   std::vector<VarPtr> out = fb.For(
//       "i", ConstIndex(0), n, ConstIndex(1), {{"acc", x}},
//       [&](const VarPtr& i, const std::vector<IterArgPtr>& acc) {
//         VarPtr y = fb.Let("y", MakeOpCall("pl.tensor.add", {acc[0], x}, x->type()));
//         return std::vector<ExprPtr>{y};
//       });
//   fb.Return({out[0]});
//   ASSIGN_OR_RETURN(FunctionPtr f, fb.Build());
#ifndef PTO_COMPILER_IR_BUILDER_H_
#define PTO_COMPILER_IR_BUILDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"

namespace pto::ir {

// ---- Vars, constants and types ----

VarPtr MakeVar(std::string name, TypePtr type, Span span = Span());
ExprPtr ConstIndex(int64_t value, Span span = Span());
ExprPtr MakeConstInt(int64_t value, DataType dtype, Span span = Span());
ExprPtr MakeConstFloat(double value, DataType dtype = DataType::kFP32, Span span = Span());
ExprPtr MakeConstBool(bool value, Span span = Span());

TypePtr ScalarOf(DataType dtype);
// INDEX ConstInt dims.
std::vector<ExprPtr> ShapeOf(const std::vector<int64_t>& dims);
std::shared_ptr<const TensorType> TensorOf(const std::vector<int64_t>& shape, DataType dtype);
std::shared_ptr<const DistributedTensorType> DistTensorOf(
    const std::vector<int64_t>& shape, DataType dtype,
    std::optional<WindowBufferPtr> window_buffer = std::nullopt);
std::shared_ptr<const TileType> TileOf(const std::vector<int64_t>& shape, DataType dtype);
// The type of a call returning `types`: UnknownType for none, the type itself
// for one, a TupleType otherwise.
TypePtr ReturnTypeOf(const std::vector<TypePtr>& types);

// ---- Scalar arithmetic ----

// The common dtype of two scalar operands, or nullopt if they do not mix.
//  - equal dtypes: that dtype;
//  - BOOL with another dtype: the other one;
//  - float with integer: the float; two floats: the wider (FP32 on a tie
//    between different formats, e.g. FP16 and BF16);
//  - INDEX with a sized integer: the sized integer (INDEX is the type of
//    untyped literals); two sized integers: the wider, unsigned on a tie;
//  - TASK_ID mixes with nothing else.
std::optional<DataType> PromoteDataTypes(DataType a, DataType b);

// A scalar BinaryExpr with its type deduced: comparisons and logical and/or
// give BOOL; true division `/` of integers gives FP32; shifts keep the lhs
// dtype; the others the promoted dtype. Bit operations and shifts need
// integer (or BOOL) operands. A non-scalar operand or dtypes that do not mix
// is a user error at `span`.
absl::StatusOr<ExprPtr> MakeBinary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span = Span());
// Neg/Abs keep the dtype; Not gives BOOL; BitNot needs an integer.
absl::StatusOr<ExprPtr> MakeUnary(UnaryOp op, ExprPtr operand, Span span = Span());

// ---- Calls ----

// A call of operator `op_name` with an explicit result type (the operator
// registry in compiler/ops deduces types; this is the raw form).
CallPtr MakeOpCall(std::string op_name, std::vector<ExprPtr> args, TypePtr type,
                   AttrList kwargs = {}, AttrList attrs = {}, Span span = Span());
// The same by id, so passes never spell an operator's name (op_list.inc does).
CallPtr MakeOpCall(OpId id, std::vector<ExprPtr> args, TypePtr type, AttrList kwargs = {},
                   AttrList attrs = {}, Span span = Span());
// A call of a program function by name with an explicit result type.
CallPtr MakeGlobalCall(std::string func_name, std::vector<ExprPtr> args, TypePtr type,
                       AttrList attrs = {}, Span span = Span());
// A call of `callee` typed by its return types.
CallPtr MakeFunctionCall(const FunctionPtr& callee, std::vector<ExprPtr> args, AttrList attrs = {},
                         Span span = Span());

// ---- Functions ----

// Builds a function statement by statement. Nested bodies (for/if) are
// filled by callbacks. The first error (e.g. a rejected MakeBinary through
// Binary()) is kept and returned by Build(); later calls are still accepted so
// straight-line test code needs no error checks.
class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name, FunctionType func_type = FunctionType::kOpaque,
                           Span span = Span());

  FunctionBuilder& SetLevel(Level level);
  FunctionBuilder& SetRole(Role role);
  FunctionBuilder& SetAttr(std::string key, AttrValue value);
  FunctionBuilder& SetRequiresRuntimeBinding(bool value);
  // Without this, the types of the first Return's values are used.
  FunctionBuilder& SetReturnTypes(std::vector<TypePtr> types);

  VarPtr Param(std::string name, TypePtr type, ParamDirection direction = ParamDirection::kIn,
               Span span = Span());

  // `name = value`: a new var typed like the value (or `type` if given).
  VarPtr Let(std::string name, ExprPtr value, Span span = Span());
  VarPtr Let(std::string name, TypePtr type, ExprPtr value, Span span = Span());
  void Eval(ExprPtr expr, Span span = Span());
  void Return(std::vector<ExprPtr> values = {}, Span span = Span());
  void Yield(std::vector<ExprPtr> values, Span span = Span());
  void Emit(StmtPtr stmt);

  // MakeBinary/MakeUnary; an error is recorded and nullptr returned.
  ExprPtr Binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span = Span());
  ExprPtr Unary(UnaryOp op, ExprPtr operand, Span span = Span());

  struct IterArgInit {
    std::string name;
    ExprPtr init;
  };
  using LoopBody = std::function<std::vector<ExprPtr>(const VarPtr& loop_var,
                                                      const std::vector<IterArgPtr>& iter_args)>;
  // `for <loop_var> in range(start, stop, step)` with loop-carried values:
  // `body` fills the loop body and returns the values to yield (one per iter
  // arg). Returns the loop's return vars, named `<iter arg name>_out` and
  // typed like the iter args. The loop var is INDEX.
  std::vector<VarPtr> For(std::string loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
                          std::vector<IterArgInit> iter_args, const LoopBody& body,
                          ForKind kind = ForKind::kSequential, Span span = Span());
  // A loop without carried values.
  void ForRange(std::string loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
                const std::function<void(const VarPtr&)>& body, ForKind kind = ForKind::kSequential,
                Span span = Span());

  using BranchBody = std::function<std::vector<ExprPtr>()>;
  // `if cond: ... else: ...`: each branch returns the values it yields; with
  // `return_names`, both branches must yield that many values and the if's
  // return vars (typed like the then-branch values) are returned.
  // `else_body` may be empty (no else branch).
  std::vector<VarPtr> If(ExprPtr cond, const BranchBody& then_body, const BranchBody& else_body,
                         std::vector<std::string> return_names = {}, Span span = Span());

  absl::StatusOr<FunctionPtr> Build();

 private:
  void RecordError(absl::Status status);
  StmtPtr PopBlock(const Span& span);

  std::string name_;
  FunctionType func_type_;
  Span span_;
  std::optional<Level> level_;
  std::optional<Role> role_;
  AttrList attrs_;
  bool requires_runtime_binding_ = false;
  std::optional<std::vector<TypePtr>> return_types_;
  std::vector<VarPtr> params_;
  std::vector<ParamDirection> directions_;
  std::vector<std::vector<StmtPtr>> blocks_;  // innermost last
  absl::Status status_;
};

// Collects functions into a Program (ordered by name; duplicates are an error).
class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name, Span span = Span());
  ProgramBuilder& Add(FunctionPtr func);
  // Keeps the first error of a failed FunctionBuilder::Build.
  ProgramBuilder& Add(absl::StatusOr<FunctionPtr> func);
  absl::StatusOr<ProgramPtr> Build();

 private:
  std::string name_;
  Span span_;
  std::vector<FunctionPtr> functions_;
  absl::Status status_;
};

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_BUILDER_H_
