#include "compiler/codegen/aic_kernel.h"

#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"

namespace pto::codegen {
namespace {

// Counts the tile variables defined in a body by where they live.
class TileSpaces : public ir::IRVisitor {
 public:
  int cube = 0;
  int other = 0;

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    auto t = var != nullptr ? ir::As<ir::TileType>(var->type()) : nullptr;
    if (t == nullptr) return;
    std::optional<ir::MemorySpace> s = t->Space();
    (s && ir::IsCubeSpace(*s) ? cube : other)++;
  }
};

}  // namespace

bool IsAicKernel(const ir::Function& fn) {
  if (fn.func_type() == ir::FunctionType::kAIC) return true;
  if (fn.func_type() != ir::FunctionType::kInCore) return false;
  TileSpaces spaces;
  spaces.VisitStmt(fn.body());
  return spaces.cube > 0 && spaces.other == 0;
}

}  // namespace pto::codegen
