// Registration entry points, one per operator family (one file each).
#ifndef PTO_COMPILER_OPS_REGISTER_OPS_H_
#define PTO_COMPILER_OPS_REGISTER_OPS_H_

#include "compiler/ops/op_registry.h"

namespace pto::ops {

void RegisterDistributedOps(OpRegistry& registry);  // pld.tensor.*, pld.system.*, pld.tile.*
void RegisterBuiltinOps(OpRegistry& registry);      // builtin.tensor.* (internal only)
void RegisterTensorOps(OpRegistry& registry);       // pl.tensor.*
void RegisterTileOps(OpRegistry& registry);         // pl.tile.*
void RegisterRuntimeOps(OpRegistry& registry);      // fences, cache invalidation, async puts, task_dummy

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_REGISTER_OPS_H_
