#include "compiler/codegen/chip_callees.h"

#include <set>

#include "compiler/ir/expr.h"
#include "compiler/ir/visitor.h"

namespace pto::codegen {
namespace {

class CalleeCollector : public ir::IRVisitor {
 public:
  std::vector<ChipCallee> callees;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    if (ir::Is<ir::GlobalVar>(call->op())) {
      Add(call->op()->name(), call);
    } else if (ir::IsOp(call, ir::OpId::kPlTensorAssemble)) {
      Add(kAssembleKernel, call);
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}

 private:
  void Add(const std::string& name, const ir::CallPtr& call) {
    if (seen_.insert(name).second) callees.push_back({name, call});
  }
  std::set<std::string> seen_;
};

}  // namespace

std::vector<ChipCallee> ChipCallees(const ir::Function& orch) {
  CalleeCollector collector;
  collector.VisitStmt(orch.body());
  return collector.callees;
}

std::optional<MixMembers> MixMembersOf(const ir::Program& program, const ir::Function& group) {
  if (group.func_type() != ir::FunctionType::kGroup) return std::nullopt;
  MixMembers m;
  for (const ChipCallee& c : ChipCallees(group)) {
    ir::FunctionPtr f = program.GetFunction(c.name);
    if (f == nullptr) return std::nullopt;
    ir::FunctionPtr& slot = f->func_type() == ir::FunctionType::kAIC   ? m.aic
                            : f->func_type() == ir::FunctionType::kAIV ? m.aiv
                                                                       : m.aic;
    if (f->func_type() != ir::FunctionType::kAIC && f->func_type() != ir::FunctionType::kAIV) {
      return std::nullopt;
    }
    if (slot != nullptr) return std::nullopt;
    slot = f;
  }
  if (m.aic == nullptr || m.aiv == nullptr) return std::nullopt;
  return m;
}

std::vector<ChipCallee> KernelCallees(const ir::Program& program, const ir::Function& orch) {
  std::vector<ChipCallee> out;
  std::set<std::string> seen;
  for (const ChipCallee& c : ChipCallees(orch)) {
    ir::FunctionPtr f = program.GetFunction(c.name);
    std::optional<MixMembers> mix = f != nullptr ? MixMembersOf(program, *f) : std::nullopt;
    if (!mix) {
      if (seen.insert(c.name).second) out.push_back(c);
      continue;
    }
    for (const ir::FunctionPtr& m : {mix->aic, mix->aiv}) {
      if (seen.insert(m->name()).second) out.push_back({m->name(), c.first_call});
    }
  }
  return out;
}

std::string AssembleKernelSource() {
  return "// Kernel builtin_tensor_assemble (pl.tensor.assemble of a chip orchestration).\n"
         "#include \"runtime/builtins/tensor_assemble/kernel.h\"\n";
}

}  // namespace pto::codegen
