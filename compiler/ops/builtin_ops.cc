// builtin.tensor.* chip-dispatch operators (spec §2.5): created only by
// LowerHostTensorCollectives, never written by users; each names the template
// package its kernel is rendered from.
#include "compiler/ops/deduce_util.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

constexpr ArgEffect W = ArgEffect::kWrite;
constexpr ArgEffect RW = ArgEffect::kReadWrite;
constexpr ArgEffect R = ArgEffect::kRead;

// Every operand is a window view; the result is the data/target operand's type.
TypeDeducer DeduceBuiltin(std::string op, size_t arity, size_t result_arg) {
  return [=](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
    RETURN_IF_ERROR(CheckArgCount(s, op, arity, arity));
    for (size_t i = 0; i < s.args.size(); ++i) {
      RETURN_IF_ERROR(DistTensorArg(s, i, op, "operand").status());
    }
    return s.args[result_arg]->type();
  };
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  struct Entry {
    const char* short_name;
    size_t arity;
    size_t result_arg;
    std::vector<ArgEffect> effects;
  };
  const Entry entries[] = {
      {"allreduce", 2, 0, {RW, RW}},       {"allreduce_ring", 2, 0, {RW, RW}},
      {"barrier", 1, 0, {RW}},             {"broadcast", 2, 0, {RW, RW}},
      {"reduce_scatter", 2, 0, {RW, RW}},  {"allgather", 3, 1, {R, W, RW}},
      {"all_to_all", 3, 1, {R, W, RW}},    {"all_to_all_v", 5, 1, {R, W, RW, R, W}},
  };
  for (const Entry& e : entries) {
    OpDef def;
    def.name = pto::StrCat("builtin.tensor.", e.short_name);
    def.category = OpCategory::kBuiltinOp;
    def.effects = e.effects;
    def.internal_only = true;
    def.template_dir = pto::StrCat(":pypto.runtime.builtins.collectives.", e.short_name);
    def.deduce = DeduceBuiltin(def.name, e.arity, e.result_arg);
    r.Register(std::move(def));
  }
}

}  // namespace pto::ops
