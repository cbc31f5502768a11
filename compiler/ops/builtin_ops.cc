// builtin.tensor.* chip-dispatch operators (spec §2.5): created only by
// LowerHostTensorCollectives, never written by users; each names the template
// package its kernel is rendered from. One per CollectiveDef with a HOST
// builtin, registered from the def: every operand a window view, the def's
// effects, its builtin check, its reduce ops and its HOST dtype allowlist of
// §2.6 (what the kernel templates assume).
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using ir::DataType;

absl::Status CheckDTypeKwarg(const CollectiveDef& def, const CallSite& s, const std::string& op) {
  ASSIGN_OR_RETURN(DataType dt, DTypeKwarg(s, "dtype", op));
  DataType data = ir::AsTensorTypeLike(s.args[def.alias_arg]->type())->dtype();
  if (dt != data) {
    return UserErrorF(s.span, op, " dtype kwarg (", ir::DataTypeName(dt),
                      ") must equal the data dtype (", ir::DataTypeName(data), ")");
  }
  return CheckCollectiveDType(CollectiveRail::kHost, def.builtin, dt, op, s.span);
}

// The reduce ops the HOST kernel implements (CollectiveDef).
absl::Status CheckReduceOp(const CollectiveDef& def, const CallSite& s, const std::string& op) {
  int64_t v = ir::GetAttr<int64_t>(s.kwargs, "op").value_or(0);
  if (v < 0 || v > 3) return UserErrorF(s.span, op, " op must be in [0, 3] (Sum..Prod), got ", v);
  for (ReduceOp r : def.ReduceOps(CollectiveRail::kHost)) {
    if (static_cast<int64_t>(r) == v) return absl::OkStatus();
  }
  return UserErrorF(s.span, op, " does not support op ", ReduceOpName(v));
}

TypeDeducer DeduceBuiltin(const CollectiveDef& def) {
  return [&def](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
    const std::string op = def.BuiltinOpName();
    const size_t n = def.operands.size();
    RETURN_IF_ERROR(CheckArgCount(s, op, n, n));
    for (size_t i = 0; i < n; ++i) {
      RETURN_IF_ERROR(DistTensorArg(s, i, op, def.operands[i].role).status());
    }
    if (def.alias_arg > 0 && s.args[0] == s.args[def.alias_arg]) {
      return UserErrorF(s.span, op, " input and target must not be the same expression");
    }
    RETURN_IF_ERROR(CheckCoreNum(op, s.kwargs, s.span));
    if (def.builtin_check != nullptr) RETURN_IF_ERROR(def.builtin_check(def, s));
    if (!def.ReduceOps(CollectiveRail::kHost).empty()) RETURN_IF_ERROR(CheckReduceOp(def, s, op));
    // barrier carries no data, so no dtype.
    if (def.DTypes(CollectiveRail::kHost)) RETURN_IF_ERROR(CheckDTypeKwarg(def, s, op));
    return s.args[def.alias_arg]->type();
  };
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  for (const CollectiveDef& c : Collectives()) {
    if (c.builtin.empty()) continue;
    OpDef def;
    def.name = c.BuiltinOpName();
    def.category = OpCategory::kBuiltinOp;
    for (const CollectiveOperand& o : c.operands) def.effects.push_back(EffectOfUse(o.use));
    def.internal_only = true;
    def.template_dir = c.TemplateDir();
    def.deduce = DeduceBuiltin(c);
    r.RegisterCollectiveOp(std::move(def));
  }
}

}  // namespace pto::ops
