// Runtime-control operators the compiler inserts: comm fences and cache
// invalidation (InsertCommFence), asynchronous puts and their drains, and the
// dummy task that stands for a launch guarded away (LegalizeSpmdLaunches).
// They print in pass output, so the parser must know them like any operator.
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/diagnostics.h"
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

}  // namespace

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
  add("pl.system.task_dummy", {"system.task_dummy"}, OpCategory::kBuiltinOp, {},
      [](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
        if (!s.args.empty()) {
          return UserErrorF(s.span, "pl.system.task_dummy takes no arguments, got ",
                            s.args.size());
        }
        return ir::TypePtr(ir::UnknownType::Get());
      });
}

}  // namespace pto::ops
