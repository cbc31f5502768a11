// What the pattern files of OptimizeOrchTensors (pass 11) share: the pass is
// one registered pass whose patterns run in PyPTO's order, each in its own
// file (optimize_orch_tensors_{iter_arg_reuse,assemble_loop,windows}.cc).
// Not part of the passes' public interface.
#ifndef PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_INTERNAL_H_
#define PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_INTERNAL_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "compiler/ir/function.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/visitor.h"

namespace pto::passes::orch_tensors {

// A body's statements, SeqStmts flattened one level.
std::vector<ir::StmtPtr> TopLevel(const ir::StmtPtr& body);

// The kernel (an InCore-type function with a body) a call runs, or nullptr.
ir::FunctionPtr KernelOf(const ir::ProgramPtr& program, const ir::ExprPtr& e);

// Calls per callee name, and uses per var, over what it visits.
class UseCounter : public ir::IRVisitor {
 public:
  absl::flat_hash_map<std::string, int> calls;
  absl::flat_hash_map<const ir::Var*, int> uses;
  int Uses(const ir::Var* v) const {
    auto it = uses.find(v);
    return it == uses.end() ? 0 : it->second;
  }

 protected:
  void VisitCall(const ir::CallPtr& call) override;
  void VisitVar(const ir::VarPtr& var) override;
  void VisitIterArg(const ir::IterArgPtr& var) override;
};

// Counts over every function of `program`.
UseCounter CountUses(const ir::ProgramPtr& program);

// The vars an expression or statement reads.
class VarCollector : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::Var*> vars;

 protected:
  void VisitVar(const ir::VarPtr& var) override { vars.insert(var.get()); }
  void VisitIterArg(const ir::IterArgPtr& var) override { vars.insert(var.get()); }
};

// A kernel's single result that is its final store into an Out param.
struct FinalStore {
  size_t out = 0;                               // the Out param's index
  std::shared_ptr<const ir::AssignStmt> store;  // r = pl.tile.store(t, offsets, param)
};
std::optional<FinalStore> FindFinalStore(const ir::FunctionPtr& f);

// `f` with a new name, signature and body, its other fields kept.
absl::StatusOr<ir::FunctionPtr> Rebuilt(const ir::FunctionPtr& f, std::string name, std::vector<ir::VarPtr> params,
                        std::vector<ir::ParamDirection> dirs, std::vector<ir::TypePtr> returns,
                        ir::StmtPtr body);

absl::StatusOr<ir::ProgramPtr> Rebuild(const ir::ProgramPtr& program,
                                       std::vector<ir::FunctionPtr> funcs);

// ---- Pattern 5 (static windows): the plan analysis hands the rewrite ----

// An integer expression sum(coeff * var) + constant, or what ParseLinear
// cannot read as one. Terms keep their first-seen order (deterministic output).
struct Linear {
  std::vector<std::pair<ir::VarPtr, int64_t>> terms;  // nonzero coefficients
  int64_t constant = 0;
  int64_t Coeff(const ir::Var* v) const;
  bool operator==(const Linear& o) const;  // same terms (any order) and constant
};
// `defs` maps scalar vars defined in the body to their values (read through).
std::optional<Linear> ParseLinear(const ir::ExprPtr& e, const ir::VarSubstMap& defs = {});
std::optional<Linear> AddLinear(const Linear& a, const Linear& b, int64_t scale_b = 1);
// An INDEX expression for `l`.
ir::ExprPtr LinearExpr(const Linear& l, const Span& span);

// One Out param written only inside one window of it.
struct OutWindow {
  size_t param = 0;                 // the Out param
  size_t ret = 0;                   // the return value that carries it
  std::vector<int64_t> box;         // window shape, tensor rank
  std::vector<ir::ExprPtr> base;    // window offsets over the kernel's params
  // The calls whose offsets become window-relative ({call, offsets arg}) and
  // the vars that now carry the window instead of the whole tensor.
  std::vector<std::pair<const ir::Call*, ir::ExprPtr>> accesses;
  std::vector<const ir::Var*> carriers;
  bool aggregate = false;           // AggregateWindowLoop (else FinalStore)
};

// One In param read only through one window of it.
struct InWindow {
  size_t param = 0;
  std::vector<int64_t> box;
  std::vector<ir::ExprPtr> base;
  std::vector<std::pair<const ir::Call*, ir::ExprPtr>> accesses;
};

struct WindowPlan {
  std::string name;  // of the clone, <kernel>__windowed
  std::vector<OutWindow> outs;
  std::vector<InWindow> ins;
};

// The plan for a windowize=True kernel, or nullopt when nothing is provable.
std::optional<WindowPlan> PlanWindows(const ir::FunctionPtr& f);

// The patterns, in PyPTO's order. Each returns `program` itself when it
// changes nothing.
absl::StatusOr<ir::ProgramPtr> ReuseIterArgs(const ir::ProgramPtr& program);        // 1
absl::StatusOr<ir::ProgramPtr> RewriteAssembleLoops(const ir::ProgramPtr& program); // 3
absl::StatusOr<ir::ProgramPtr> ExternalizeWindows(const ir::ProgramPtr& program);   // 5

}  // namespace pto::passes::orch_tensors

#endif  // PTO_COMPILER_PASSES_OPTIMIZE_ORCH_TENSORS_INTERNAL_H_
