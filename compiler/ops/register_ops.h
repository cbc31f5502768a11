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

void RegisterDistributedOps(OpRegistry& registry);  // pld.tensor.*, pld.system.*, pld.tile.*
void RegisterBuiltinOps(OpRegistry& registry);      // builtin.tensor.* (internal only)
void RegisterTensorOps(OpRegistry& registry);       // pl.tensor.*
void RegisterTileOps(OpRegistry& registry);         // pl.tile.*
void RegisterRuntimeOps(OpRegistry& registry);      // fences, cache invalidation, async puts, task_dummy

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_REGISTER_OPS_H_
