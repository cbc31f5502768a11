#include "tools/dyn_dims.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_names.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "common/npy.h"

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
                                         "HOST orchestrator's parameters are bound (the first, "
                                         "and one a device loop indexes, from --ranks, the "
                                         "others from --inputs=DIR/"
                                         "<param>.npy), and a callee's from the arguments "
                                         "of its calls"));
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

// The value of a dimension expression when every leaf has one: constants,
// bound dimensions and `pld.world_size()` (the run's rank count) under
// + - * // % min max.
std::optional<int64_t> Eval(const ir::ExprPtr& e, const DimValues& values, int ranks) {
  if (std::optional<int64_t> c = ir::GetConstInt(e)) return c;
  if (auto d = ir::As<ir::DynDim>(e)) {
    auto it = values.find(d->name());
    if (it == values.end()) return std::nullopt;
    return it->second.value;
  }
  if (auto call = ir::As<ir::Call>(e)) {
    if (call->op()->name() == ops::names::kWorldSize && call->args().empty()) return ranks;
    return std::nullopt;
  }
  auto bin = ir::As<ir::BinaryExpr>(e);
  if (bin == nullptr) return std::nullopt;
  std::optional<int64_t> a = Eval(bin->lhs(), values, ranks);
  std::optional<int64_t> b = Eval(bin->rhs(), values, ranks);
  if (!a.has_value() || !b.has_value()) return std::nullopt;
  switch (bin->op()) {
    case ir::BinaryOp::kAdd: return *a + *b;
    case ir::BinaryOp::kSub: return *a - *b;
    case ir::BinaryOp::kMul: return *a * *b;
    case ir::BinaryOp::kMin: return std::min(*a, *b);
    case ir::BinaryOp::kMax: return std::max(*a, *b);
    case ir::BinaryOp::kFloorDiv:
    case ir::BinaryOp::kFloorMod: {
      if (*b == 0) return std::nullopt;
      int64_t q = *a / *b;
      if (*a % *b != 0 && ((*a < 0) != (*b < 0))) --q;
      return bin->op() == ir::BinaryOp::kFloorDiv ? q : *a - q * *b;
    }
    default: return std::nullopt;
  }
}

// A dynamic dimension that only a callee's parameters name (PyPTO's
// `STAGED = pl.dynamic("STAGED")` of a kernel called with `inputs[r]` of
// shape [1, NR * SIZE]) takes the size of the argument at its call, as it
// does at run time in PyPTO. Each call binds what it can; a callee called
// with two sizes is a user error naming both calls.
class CallDims : public ir::IRVisitor {
 public:
  CallDims(const ir::ProgramPtr& program, DimValues& values, int ranks)
      : program_(program), values_(values), ranks_(ranks) {}
  const absl::Status& status() const { return status_; }
  bool changed() const { return changed_; }

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    ir::IRVisitor::VisitCall(call);
    if (!ir::Is<ir::GlobalVar>(call->op()) || !status_.ok()) return;
    ir::FunctionPtr callee = program_->GetFunction(call->op()->name());
    if (callee == nullptr) return;
    const size_t n = std::min(call->args().size(), callee->params().size());
    for (size_t i = 0; i < n && status_.ok(); ++i) {
      auto at = ir::AsTensorTypeLike(call->args()[i]->type());
      auto pt = ir::AsTensorTypeLike(callee->params()[i]->type());
      if (at == nullptr || pt == nullptr || at->shape().size() != pt->shape().size()) continue;
      for (size_t k = 0; k < pt->shape().size() && status_.ok(); ++k) {
        auto d = ir::As<ir::DynDim>(pt->shape()[k]);
        if (d == nullptr) continue;
        std::optional<int64_t> v = Eval(at->shape()[k], values_, ranks_);
        if (!v.has_value()) continue;
        changed_ |= values_.count(d->name()) == 0;
        status_ = Bind(values_, d->name(), *v,
                       absl::StrCat("the call of '", callee->name(), "' at ",
                                    call->span().ToString(), " (dimension ", k, " of '",
                                    callee->params()[i]->name_hint(), "')"));
      }
    }
  }

 private:
  const ir::ProgramPtr& program_;
  DimValues& values_;
  const int ranks_;
  absl::Status status_;
  bool changed_ = false;
};

// PyPTO's per-round HOST tensors (`[ROUNDS, NR, 1, SIZE]`, read as
// `inputs[rd, r]` in `for r in pl.range(pld.world_size())`): a dynamic
// dimension of a HOST parameter that a device loop's variable indexes has one
// row per device, so it is the rank count as a first dimension is.
class DeviceIndexedDims : public ir::IRVisitor {
 public:
  struct Found {
    std::string dim, param;
    int k = 0;
  };
  explicit DeviceIndexedDims(const ir::FunctionPtr& host) {
    for (const ir::VarPtr& v : host->params()) params_.insert(v.get());
  }
  const std::vector<Found>& found() const { return found_; }

 protected:
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    auto stop = ir::As<ir::Call>(stmt->stop());
    if (ir::GetConstInt(stmt->start()) == 0 && stop != nullptr &&
        stop->op()->name() == ops::names::kWorldSize && stop->args().empty()) {
      device_vars_.insert(stmt->loop_var().get());
    }
    ir::IRVisitor::VisitForStmt(stmt);
  }

  void VisitCall(const ir::CallPtr& call) override {
    ir::IRVisitor::VisitCall(call);
    if (call->op()->name() != "pl.tensor.index" || call->args().size() != 2) return;
    auto base = ir::As<ir::Var>(call->args()[0]);
    auto indices = ir::As<ir::MakeTuple>(call->args()[1]);
    if (base == nullptr || indices == nullptr || params_.count(base.get()) == 0) return;
    auto t = ir::AsTensorTypeLike(base->type());
    if (t == nullptr) return;
    // Dimension 0 is bound by the first-dimension rule, under its own name.
    for (size_t k = 1; k < indices->elements().size() && k < t->shape().size(); ++k) {
      auto index = ir::As<ir::Var>(indices->elements()[k]);
      auto d = ir::As<ir::DynDim>(t->shape()[k]);
      if (index != nullptr && d != nullptr && device_vars_.count(index.get()) > 0) {
        found_.push_back({d->name(), base->name_hint(), static_cast<int>(k)});
      }
    }
  }

 private:
  std::set<const ir::Var*> params_;
  std::set<const ir::Var*> device_vars_;
  std::vector<Found> found_;
};

}  // namespace

absl::StatusOr<DimValues> BindDynDims(const ir::ProgramPtr& program, int ranks,
                                      const std::string& inputs_dir, const std::string& entry) {
  DimValues values;
  for (const auto& [gv, f] : program->functions()) {
    if (entry.empty() ? !f->IsHostOrch() : f->name() != entry) continue;
    if (entry.empty()) {
      DeviceIndexedDims device_dims(f);
      device_dims.VisitFunction(f);
      for (const DeviceIndexedDims::Found& d : device_dims.found()) {
        RETURN_IF_ERROR(Bind(values, d.dim, ranks,
                             absl::StrCat("--ranks=", ranks, " (dimension ", d.k, " of '", d.param,
                                          "', indexed by the device loop)")));
      }
    }
    for (const ir::VarPtr& v : f->params()) {
      auto t = ir::AsTensorTypeLike(v->type());
      if (t == nullptr) continue;
      const std::vector<ir::ExprPtr>& dims = t->shape();
      if (!dims.empty() && entry.empty()) {
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
  // Calls bind their callees' dimensions; a chain of calls binds one level
  // per sweep.
  for (bool changed = true; changed;) {
    CallDims calls(program, values, ranks);
    calls.VisitProgram(program);
    RETURN_IF_ERROR(calls.status());
    changed = calls.changed();
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
