// Registration entry points, one per operator family (one file each).
#ifndef PTO_COMPILER_OPS_REGISTER_OPS_H_
#define PTO_COMPILER_OPS_REGISTER_OPS_H_

#include <string>
#include <vector>

#include "compiler/ops/op_registry.h"

namespace pto::ops {

// Registers one operator (the common body of every family's registration).
void RegisterOp(OpRegistry& registry, std::string name, std::vector<std::string> aliases,
                OpCategory category, std::vector<ArgEffect> effects, TypeDeducer deduce);

// The registry effect of a collective operand's use (CollectiveDef).
inline ArgEffect EffectOfUse(OperandUse use) {
  switch (use) {
    case OperandUse::kRead:
      return ArgEffect::kRead;
    case OperandUse::kWrite:
      return ArgEffect::kWrite;
    case OperandUse::kReadWrite:
      break;
  }
  return ArgEffect::kReadWrite;
}

void RegisterDistributedOps(OpRegistry& registry);  // pld.tensor.*, pld.system.*, pld.tile.*
void RegisterBuiltinOps(OpRegistry& registry);      // builtin.tensor.* (internal only)
void RegisterTensorOps(OpRegistry& registry);       // pl.tensor.*
void RegisterTileOps(OpRegistry& registry);         // pl.tile.*
void RegisterRuntimeOps(OpRegistry& registry);      // fences, cache invalidation, async puts, task_dummy
// PyPTO's signatures for every operator of its pl.* / pld.* surface: attached to
// the operators above, the rest registered with the generic deducer; plus the
// promoted short names (pl.load, pld.window). Runs last.
void RegisterPyptoSignatures(OpRegistry& registry);
// Every operator's OpTraits (op_traits.cc). Runs after the registrations.
void AttachTraits(OpRegistry& registry);
// The signature-driven deducer of operators without a hand-written one.
TypeDeducer GenericDeducer(std::string op, std::shared_ptr<const Signature> signature);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_REGISTER_OPS_H_
