// Runtime-control operators the compiler inserts: comm fences and cache
// invalidation (InsertCommFence), asynchronous puts and their drains, and the
// dummy task that stands for a launch guarded away (LegalizeSpmdLaunches).
// They print in pass output, so the parser must know them like any operator.
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

TypeDeducer ArgCount(std::string op, size_t min, size_t max, ir::TypePtr result) {
  return [op, min, max, result](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
    if (s.args.size() < min || s.args.size() > max) {
      if (min == max) {
        return UserErrorF(s.span, op, " takes ", min, " arguments, got ", s.args.size());
      }
      return UserErrorF(s.span, op, " takes ", min, " to ", max, " arguments, got ",
                        s.args.size());
    }
    return result;
  };
}

ir::TypePtr TaskIdType() { return ir::ScalarType::Get(ir::DataType::kTaskId); }

// pl.array.create / get_element / update_element: PyPTO's small stack arrays
// (Array[N, dtype]); writes are functional, `a[i] = v` rebinds `a`.
void RegisterArrayOps(OpRegistry& r) {
  RegisterOp(r, "pl.array.create", {"array.create"}, OpCategory::kScalarOp, {},
             [](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
               std::optional<ir::DataType> dt = ir::GetAttr<ir::DataType>(s.kwargs, "dtype");
               if (s.args.size() != 1 || !dt.has_value()) {
                 return UserError(s.span,
                                  "pl.array.create takes an extent and a dtype, as in "
                                  "pl.array.create(4, pl.TASK_ID)");
               }
               std::optional<int64_t> n = ir::GetConstInt(s.args[0]);
               if (!n.has_value() || *n <= 0) {
                 return UserError(s.args[0]->span(),
                                  "the extent of pl.array.create must be a positive "
                                  "compile-time integer");
               }
               return ir::TypePtr(std::make_shared<ir::ArrayType>(
                   std::make_shared<ir::ConstInt>(*n, ir::DataType::kIndex, s.args[0]->span()),
                   *dt, s.span));
             });
  auto check_index = [](const CallSite& s, std::string_view op,
                        size_t n) -> absl::StatusOr<std::shared_ptr<const ir::ArrayType>> {
    if (s.args.size() != n) {
      return UserErrorF(s.span, op, " takes ", n, " arguments, got ", s.args.size());
    }
    auto at = ir::As<ir::ArrayType>(s.args[0]->type());
    if (at == nullptr) {
      return UserErrorF(s.args[0]->span(), op, " needs a pl.Array, got ",
                        TypeText(s.args[0]->type()));
    }
    auto it = ir::As<ir::ScalarType>(s.args[1]->type());
    if (it == nullptr || !ir::IsIntegral(it->dtype()) || it->dtype() == ir::DataType::kTaskId) {
      return UserErrorF(s.args[1]->span(), op, " needs an integer index, got ",
                        TypeText(s.args[1]->type()));
    }
    std::optional<int64_t> i = ir::GetConstInt(s.args[1]);
    std::optional<int64_t> extent = at->ConstExtent();
    if (i.has_value() && extent.has_value() && (*i < 0 || *i >= *extent)) {
      return UserErrorF(s.args[1]->span(), op, ": index ", *i, " is outside the array of ",
                        *extent, " elements");
    }
    return at;
  };
  RegisterOp(r, "pl.array.get_element", {"array.get_element"}, OpCategory::kScalarOp, {},
             [check_index](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
               ASSIGN_OR_RETURN(auto at, check_index(s, "pl.array.get_element", 2));
               return ir::TypePtr(ir::ScalarType::Get(at->dtype()));
             });
  RegisterOp(r, "pl.array.update_element", {"array.update_element"}, OpCategory::kScalarOp, {},
             [check_index](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
               ASSIGN_OR_RETURN(auto at, check_index(s, "pl.array.update_element", 3));
               auto vt = ir::As<ir::ScalarType>(s.args[2]->type());
               const bool task = at->dtype() == ir::DataType::kTaskId;
               if (vt == nullptr || (task != (vt->dtype() == ir::DataType::kTaskId))) {
                 return UserErrorF(s.args[2]->span(),
                                   "pl.array.update_element: the value stored into a pl.Array of ",
                                   ir::DataTypeName(at->dtype()), " must be a scalar ",
                                   task ? "TASK_ID" : "number", ", got ",
                                   TypeText(s.args[2]->type()));
               }
               return s.args[0]->type();
             });
}

}  // namespace

absl::Status CheckTaskDeps(const std::vector<ir::ExprPtr>& deps, std::string_view what) {
  for (const ir::ExprPtr& d : deps) {
    const ir::TypePtr& t = d->type();
    auto st = ir::As<ir::ScalarType>(t);
    auto at = ir::As<ir::ArrayType>(t);
    const bool task_typed = (st != nullptr && st->dtype() == ir::DataType::kTaskId) ||
                            (at != nullptr && at->dtype() == ir::DataType::kTaskId);
    if (!ir::Is<ir::Var>(d) || !task_typed) {
      return UserErrorF(d->span(), what,
                        " deps= entries must be task ids: a pl.Scalar[pl.TASK_ID] variable (the "
                        "id of `out, tid = pl.submit(...)`), a pl.Array[N, pl.TASK_ID] variable "
                        "or None; got ",
                        ir::Is<ir::Var>(d) ? TypeText(t) : std::string("an expression"),
                        " (bind an element to a name first: `t = tids[i]`)");
    }
  }
  return absl::OkStatus();
}

void RegisterRuntimeOps(OpRegistry& r) {
  constexpr ArgEffect R = ArgEffect::kRead, W = ArgEffect::kWrite, RW = ArgEffect::kReadWrite;
  ir::TypePtr unknown = ir::UnknownType::Get();
  ir::TypePtr event = ir::ScalarType::Get(ir::DataType::kInt64);
  auto add = [&r](std::string name, std::vector<std::string> aliases, OpCategory category,
                  std::vector<ArgEffect> effects, TypeDeducer deduce) {
    RegisterOp(r, std::move(name), std::move(aliases), category, std::move(effects),
               std::move(deduce));
  };
  // cacheinvalid() is whole-GM; cacheinvalid(t, shapes, offsets) a region.
  add("pl.system.cacheinvalid", {"system.cacheinvalid"}, OpCategory::kDistributedOp, {R, R, R},
      [unknown](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
        if (s.args.empty()) return unknown;
        if (s.args.size() != 3 || ir::AsTensorTypeLike(s.args[0]->type()) == nullptr) {
          return UserError(s.span,
                           "pl.system.cacheinvalid takes no arguments (whole GM) or (tensor, "
                           "shapes, offsets)");
        }
        return unknown;
      });
  add("pl.system.fence", {"system.fence"}, OpCategory::kDistributedOp, {},
      ArgCount("pl.system.fence", 0, 0, unknown));
  add("pld.tile.put_async", {}, OpCategory::kDistributedOp, {W, R, R, RW},
      ArgCount("pld.tile.put_async", 7, 8, event));
  add("pld.tensor.put_async", {}, OpCategory::kDistributedOp, {W, R, R, RW},
      ArgCount("pld.tensor.put_async", 7, 8, event));
  add("pld.tile.wait_async_event", {}, OpCategory::kDistributedOp, {R},
      ArgCount("pld.tile.wait_async_event", 1, 1, unknown));
  add("pld.system.wait_async_event", {}, OpCategory::kDistributedOp, {R},
      ArgCount("pld.system.wait_async_event", 1, 1, unknown));
  // A dependency-only task: it completes when every task of deps=[...] has
  // (scalar TASK_IDs and whole Array[N, TASK_ID]s); its result is its task id.
  add("pl.system.task_dummy", {"system.task_dummy"}, OpCategory::kBuiltinOp, {},
      [](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
        if (!s.args.empty()) {
          return UserErrorF(s.span, "pl.system.task_dummy takes no arguments, got ",
                            s.args.size());
        }
        if (auto deps = ir::GetAttr<std::vector<ir::ExprPtr>>(s.kwargs, ir::kAttrDeps)) {
          RETURN_IF_ERROR(CheckTaskDeps(*deps, "pl.system.task_dummy"));
        } else if (ir::FindAttr(s.kwargs, ir::kAttrDeps) != nullptr) {
          return UserError(s.span, "pl.system.task_dummy deps= must be a list of task ids");
        }
        return TaskIdType();
      });
  add("pl.system.task_invalid", {"system.task_invalid"}, OpCategory::kBuiltinOp, {},
      ArgCount("pl.system.task_invalid", 0, 0, TaskIdType()));
  RegisterArrayOps(r);
}

}  // namespace pto::ops
