// Small IR helpers shared by DeriveCallDirections, AutoDeriveTaskDependencies,
// LegalizeSpmdLaunches and InsertCommFence: which calls are tasks, what a call
// does to each argument, and which buffer a tensor value lives in.
#ifndef PTO_COMPILER_PASSES_CALL_EFFECTS_H_
#define PTO_COMPILER_PASSES_CALL_EFFECTS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/ops/op_registry.h"

namespace pto::passes {

// The managed tensor collectives (`pld.tensor.allreduce`, ..., `all_to_all_v`,
// `indexed_all_to_all_v`): in an orchestration body each one becomes a task.
bool IsManagedCollectiveOp(std::string_view op_name);

// The Program function a call names, or nullptr for operator calls and unknown
// names.
ir::FunctionPtr CalleeOf(const ir::Program& program, const ir::Call& call);

// The index of the parameter whose buffer `callee` returns as its `index`-th
// result (directly, or through loop-carried values, views and writebacks in
// its body), or nullopt. `program` resolves nested kernel calls (may be null).
std::optional<int> ReturnedParamIndex(const ir::Function& callee, int index,
                                      const ir::Program* program = nullptr);

bool IsTensorLikeValue(const ir::ExprPtr& e);

// Tracks which buffer every tensor value of one function body lives in: views,
// writebacks of operators and kernel calls (the argument they return), tuple
// elements, loop-carried values and branch results all resolve to the Var that
// first names the buffer (a parameter or an allocation result).
class BufferRoots {
 public:
  explicit BufferRoots(const ir::Program* program) : program_(program) {}
  // Records the definitions an assignment / loop / branch makes.
  void Define(const ir::StmtPtr& stmt);
  // The root Var of `e`, or nullptr when `e` is not a (tracked) tensor value.
  const ir::Var* RootOf(const ir::ExprPtr& e) const;

 private:
  void Alias(const ir::Var* v, const ir::ExprPtr& source);
  const ir::Program* program_;
  absl::flat_hash_map<const ir::Var*, const ir::Var*> root_;
  // Tuple-valued kernel call results, for their elements.
  absl::flat_hash_map<const ir::Var*, ir::CallPtr> tuple_calls_;
};

// The Call a statement evaluates directly: an AssignStmt value, an EvalStmt
// expression or the single value of a ReturnStmt; nullptr otherwise.
ir::CallPtr StmtCall(const ir::StmtPtr& stmt);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_CALL_EFFECTS_H_
