// Operator signatures as PyPTO declares them: parameter names, order, defaults,
// and for each parameter whether it is an operand (an IR argument) or a
// compile-time attribute (an IR kwarg). The binder (op_binding.h) uses them to
// accept positional and keyword arguments; the generic deducer uses the
// operand kinds to type-check operators that have no hand-written deducer.
#ifndef PTO_COMPILER_OPS_OP_SIGNATURE_H_
#define PTO_COMPILER_OPS_OP_SIGNATURE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"

namespace pto::ops {

// Operand kinds a parameter accepts (a bit set).
enum OperandKind : uint32_t {
  kTensorOperand = 1u << 0,    // Tensor or DistributedTensor
  kWindowOperand = 1u << 1,    // DistributedTensor (a pld.window view)
  kTileOperand = 1u << 2,      // Tile
  kScalarOperand = 1u << 3,    // Scalar
  kShapeOperand = 1u << 4,     // a list / tuple of integer scalars
  kPtrOperand = 1u << 5,       // Ptr
  kCommCtxOperand = 1u << 6,   // CommCtx
  kAnyOperand = 0xffffffffu,
};

struct Param {
  std::string name;
  bool is_attr = false;
  uint32_t operand_kinds = kAnyOperand;  // operands only
  // Attributes only: "dtype", "int", "bool", "float", "str", "any" or an enum
  // name of enum_spellings.h ("MemorySpace", "ReduceOp", ...).
  std::vector<std::string> attr_kinds;
  bool keyword_only = false;
  bool has_default = false;
  std::string default_text;  // as PyPTO writes it: None, False, 0, "round", Vec, Sum
  bool DefaultIsNone() const { return has_default && default_text == "None"; }
};

struct Signature {
  std::vector<Param> params;
  // Result rule of the generic deducer (generic_deducer.cc); empty when the
  // operator has its own deducer.
  std::string result;
  bool variadic = false;  // PyPTO's *args: extra positionals are kept as operands

  const Param* Find(std::string_view name) const;
  // Index among the operand parameters (= IR argument index), or -1.
  int OperandIndex(std::string_view name) const;
  std::vector<const Param*> Operands() const;
  // "name: Tile, rhs: Tile | Scalar = None, *, mode: str = \"round\"" for docs and messages.
  std::string Text() const;
};

// Parses the compact form of pypto_signatures.inc:
//   "tile: @Tile, shape: @Shape = None, *, mode: str|int = \"round\""
// `@Kind|Kind` marks an operand; a bare kind list an attribute; `*` starts the
// keyword-only parameters; a trailing `*args` makes the operator variadic.
absl::StatusOr<Signature> ParseSignature(std::string_view text, std::string_view result);

// Whether `args` fit the operands of `sig`: no more than it takes, every
// operand without a default given, each of an accepted kind.
bool FitsOperands(const Signature& sig, const std::vector<ir::ExprPtr>& args);

// Human name of an operand kind set: "a Tile", "a Tensor or a Tile", ...
std::string OperandKindText(uint32_t kinds);
// Whether `type` is one of `kinds`.
bool OperandKindAccepts(uint32_t kinds, const ir::TypePtr& type);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_OP_SIGNATURE_H_
