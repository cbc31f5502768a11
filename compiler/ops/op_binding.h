// Binding a written operator call to the IR form: positional and keyword
// arguments by PyPTO's signatures (op_signature.h), unified operators
// (`pl.add`, `pl.cast`, `pld.remote_store`, ...) resolved to the `pl.tile.*` /
// `pl.tensor.*` operator their operands' types select, as PyPTO does.
//
// Binding rules (Python's, with one extension so that printed IR re-parses):
//  * keywords bind by name; an unknown or repeated keyword is an error;
//  * positionals fill the parameters in order, skipping attribute parameters
//    already given by keyword (so `pl.tile.full([8], 0.0, dtype=pl.FP32)`, the
//    printed form of `pl.tile.full([8], pl.FP32, 0.0)`, binds the same);
//  * an operand given both by position and by keyword is a duplicate;
//  * a parameter without a default must be given;
//  * operands become the Call's args in signature order (omitted trailing
//    optional operands are left out), attributes its kwargs in signature order;
//    an omitted attribute is left out and means its default.
// Operators without a signature (builtin.*, the runtime operators passes
// insert) bind positionals to args and keywords to kwargs unchanged.
#ifndef PTO_COMPILER_OPS_OP_BINDING_H_
#define PTO_COMPILER_OPS_OP_BINDING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/ops/op_registry.h"
#include "compiler/ops/op_signature.h"

namespace pto::ops {

// One written argument: positional #index or keyword #index.
struct ArgRef {
  bool keyword = false;
  size_t index = 0;
};

// The written arguments of one call, lowered on demand by the front end.
class CallArgs {
 public:
  virtual ~CallArgs() = default;
  virtual size_t NumPositional() const = 0;
  virtual size_t NumKeywords() const = 0;
  virtual std::string_view KeywordName(size_t i) const = 0;
  virtual Span SpanOf(ArgRef r) const = 0;
  // The literal `None`.
  virtual bool IsNone(ArgRef r) const = 0;
  // The dotted name the argument is, e.g. "pl.MemorySpace.Vec", if it is one.
  virtual std::optional<std::string> DottedName(ArgRef r) const = 0;
  // As an operand (lists and tuples become a MakeTuple).
  virtual absl::StatusOr<ir::ExprPtr> LowerOperand(ArgRef r) = 0;
  // As a compile-time attribute value.
  virtual absl::StatusOr<ir::AttrValue> LowerAttr(ArgRef r) = 0;
};

struct BoundCall {
  // The operator the call resolved to; nullptr when it resolved to a plain
  // expression (`value`: the scalar form of a unified operator, e.g.
  // `pl.add(a, b)` of two scalars or `pl.cast(x, pl.INDEX)`).
  const OpDef* op = nullptr;
  std::vector<ir::ExprPtr> args;
  ir::AttrList kwargs;
  ir::ExprPtr value;
};

// Binds a call of `name` (canonical, alias or unified name). Errors are user
// errors located at the offending argument, or at `span` for a missing one.
absl::StatusOr<BoundCall> BindCall(const OpRegistry& registry, std::string_view name,
                                   CallArgs& args, const Span& span);

// A unified operator: dispatches on the type of its first operand.
struct UnifiedOp {
  std::string name;     // "pl.add"
  Signature signature;  // its own parameter names (for keywords)
  std::string tile_op;         // Tile lhs, Tile (or no) rhs: "pl.tile.add"
  std::string tile_scalar_op;  // Tile lhs, scalar rhs: "pl.tile.adds" (may be empty)
  std::string tensor_op;       // Tensor lhs: "pl.tensor.add"
  bool scalar_form = false;    // Scalar operands give a scalar expression
};
const UnifiedOp* FindUnifiedOp(std::string_view name);
std::vector<std::string> UnifiedOpNames();

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_OP_BINDING_H_
