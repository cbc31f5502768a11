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

std::string AssembleKernelSource() {
  return "// Kernel builtin_tensor_assemble (pl.tensor.assemble of a chip orchestration).\n"
         "#include \"runtime/builtins/tensor_assemble/kernel.h\"\n";
}

}  // namespace pto::codegen
