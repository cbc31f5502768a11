#include "tools/dyn_dims.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op_names.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "tools/npy.h"

namespace pto::tools::run {
namespace {

namespace fs = std::filesystem;

absl::Status Bind(DimValues& values, const std::string& name, int64_t value, std::string source) {
  if (value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("dynamic dimension '", name, "' would be ",
                                                   value, " from ", source,
                                                   "; a dimension must be positive"));
  }
  auto [it, inserted] = values.emplace(name, DimValue{value, source});
  if (!inserted && it->second.value != value) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dynamic dimension '", name, "' is ", it->second.value, " from ", it->second.source,
        " but ", value, " from ", source, "; give inputs that agree"));
  }
  return absl::OkStatus();
}

// Replaces each DynDim by its value (an INDEX constant, like a literal
// dimension); the mutator rebuilds every type and Var that mentions one.
class Specializer : public ir::IRMutator {
 public:
  Specializer(const DimValues& values, int world_size)
      : values_(values), world_size_(world_size) {}
  const absl::Status& status() const { return status_; }

 protected:
  ir::ExprPtr MutateLeafExpr(const ir::ExprPtr& expr) override {
    auto dim = ir::As<ir::DynDim>(expr);
    if (dim == nullptr) return expr;
    auto it = values_.find(dim->name());
    if (it == values_.end()) {
      if (status_.ok()) {
        status_ = UserError(dim->span(),
                            absl::StrCat("dynamic dimension '", dim->name(),
                                         "' has no value for this run: only dimensions of the "
                                         "HOST orchestrator's parameters are bound (the first "
                                         "from --ranks, the others from --inputs=DIR/"
                                         "<param>.npy)"));
      }
      return expr;
    }
    return std::make_shared<ir::ConstInt>(it->second.value, ir::DataType::kIndex, dim->span());
  }

  ir::FunctionPtr MutateFunction(const ir::FunctionPtr& func) override {
    in_host_ = func->IsHostOrch();
    return ir::IRMutator::MutateFunction(func);
  }

  // A HOST dispatch loop keeps `pl.range(pld.world_size())`: it runs over the
  // devices the runtime has, which the HOST code generation checks. A loop
  // over the ranks inside a kernel gets the constant like any other use.
  ir::StmtPtr MutateForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    keep_ = in_host_ ? stmt->stop().get() : nullptr;
    return ir::IRMutator::MutateForStmt(stmt);
  }

  ir::ExprPtr MutateCall(const ir::CallPtr& call) override {
    if (world_size_ > 0 && call.get() != keep_ && call->op()->name() == ops::names::kWorldSize &&
        call->args().empty()) {
      return std::make_shared<ir::ConstInt>(world_size_, ir::DataType::kInt64, call->span());
    }
    return ir::IRMutator::MutateCall(call);
  }

 private:
  const DimValues& values_;
  const int world_size_;
  const ir::Expr* keep_ = nullptr;
  bool in_host_ = false;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<DimValues> BindDynDims(const ir::ProgramPtr& program, int ranks,
                                      const std::string& inputs_dir) {
  DimValues values;
  for (const auto& [gv, f] : program->functions()) {
    if (!f->IsHostOrch()) continue;
    for (const ir::VarPtr& v : f->params()) {
      auto t = ir::AsTensorTypeLike(v->type());
      if (t == nullptr) continue;
      const std::vector<ir::ExprPtr>& dims = t->shape();
      if (!dims.empty()) {
        if (auto d = ir::As<ir::DynDim>(dims[0])) {
          RETURN_IF_ERROR(Bind(values, d->name(), ranks,
                               absl::StrCat("--ranks=", ranks, " (the first dimension of '",
                                            v->name_hint(), "')")));
        }
      }
      if (inputs_dir.empty()) continue;
      const std::string path = (fs::path(inputs_dir) / (v->name_hint() + ".npy")).string();
      if (!fs::exists(path)) continue;
      absl::StatusOr<npy::Array> a = npy::ReadFile(path);
      if (!a.ok()) return a.status();
      if (a->shape.size() != dims.size()) continue;  // LoadInputs reports the mismatch
      for (size_t k = 0; k < dims.size(); ++k) {
        if (auto d = ir::As<ir::DynDim>(dims[k])) {
          RETURN_IF_ERROR(Bind(values, d->name(), a->shape[k],
                               absl::StrCat(path, " (dimension ", k, " of '", v->name_hint(),
                                            "')")));
        }
      }
    }
  }
  return values;
}

absl::StatusOr<ir::ProgramPtr> SpecializeDynDims(const ir::ProgramPtr& program,
                                                 const DimValues& values, int world_size) {
  Specializer s(values, world_size);
  ir::ProgramPtr out = s.MutateProgram(program);
  RETURN_IF_ERROR(s.status());
  RETURN_IF_ERROR(ir::VerifyProgram(out));
  return out;
}

}  // namespace pto::tools::run
