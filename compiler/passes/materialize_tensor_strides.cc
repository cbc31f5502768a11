#include "compiler/passes/materialize_tensor_strides.h"

#include <limits>
#include <utility>

#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// a * b for index expressions: constants fold (unless the product would
// overflow), a factor 1 vanishes.
ir::ExprPtr Mul(const ir::ExprPtr& a, const ir::ExprPtr& b) {
  std::optional<int64_t> x = ir::GetConstInt(a);
  std::optional<int64_t> y = ir::GetConstInt(b);
  if (x == 1) return b;
  if (y == 1) return a;
  int64_t p = 0;
  if (x && y && !__builtin_mul_overflow(*x, *y, &p)) return ir::ConstIndex(p);
  absl::StatusOr<ir::ExprPtr> m = ir::MakeBinary(ir::BinaryOp::kMul, a, b);
  return m.ok() ? *m : nullptr;
}

class StrideMaterializer : public ir::SpanTrackingMutator {
 public:
  absl::Status status;

 protected:
  ir::TypePtr MutateTensorType(const std::shared_ptr<const ir::TensorType>& type) override {
    ir::TypePtr base = ir::IRMutator::MutateTensorType(type);
    auto t = std::static_pointer_cast<const ir::TensorType>(base);
    std::optional<ir::TensorView> view = Materialized(*t);
    if (!view) return base;
    return std::make_shared<ir::TensorType>(t->shape(), t->dtype(), t->memref(), std::move(view),
                                            t->span());
  }
  ir::TypePtr MutateDistributedTensorType(
      const std::shared_ptr<const ir::DistributedTensorType>& type) override {
    ir::TypePtr base = ir::IRMutator::MutateDistributedTensorType(type);
    auto t = std::static_pointer_cast<const ir::DistributedTensorType>(base);
    std::optional<ir::TensorView> view = Materialized(*t);
    if (!view) return base;
    return std::make_shared<ir::DistributedTensorType>(t->shape(), t->dtype(), t->memref(),
                                                       std::move(view), t->window_buffer(),
                                                       t->span());
  }

 private:
  // The view of `t` with its strides filled in, or nullopt to keep `t`.
  std::optional<ir::TensorView> Materialized(const ir::TensorType& t) {
    if (!t.tensor_view().has_value() || !status.ok()) return std::nullopt;
    const ir::TensorView& v = *t.tensor_view();
    const Span& at = t.span().known() ? t.span() : span();
    if (v.layout == ir::TensorLayout::kNZ) {
      status = UserErrorF(at, "MaterializeTensorStrides: a tensor cannot have layout NZ (a "
                              "fractal tile layout with no strides); use ND or DN");
      return std::nullopt;
    }
    if (!v.stride.empty()) return std::nullopt;
    absl::StatusOr<std::vector<ir::ExprPtr>> strides = PackedStrides(t.shape(), v.layout, at);
    if (!strides.ok()) {
      status = strides.status();
      return std::nullopt;
    }
    if (strides->empty()) return std::nullopt;  // rank 0
    ir::TensorView out = v;
    out.stride = *std::move(strides);
    return out;
  }
};

}  // namespace

absl::StatusOr<std::vector<ir::ExprPtr>> PackedStrides(const std::vector<ir::ExprPtr>& shape,
                                                       ir::TensorLayout layout, const Span& span) {
  const size_t n = shape.size();
  std::vector<ir::ExprPtr> s(n);
  if (n == 0) return s;
  if (layout == ir::TensorLayout::kNZ) {
    return UserErrorF(span, "MaterializeTensorStrides: layout NZ has no strides");
  }
  if (layout != ir::TensorLayout::kDN) {
    s[n - 1] = ir::ConstIndex(1);
    for (size_t k = n - 1; k-- > 0;) s[k] = Mul(s[k + 1], shape[k + 1]);
  } else {
    if (n < 2) {
      return UserErrorF(span, "MaterializeTensorStrides: layout DN needs a tensor of rank 2 or "
                              "more, got rank ", n);
    }
    s[n - 2] = ir::ConstIndex(1);
    s[n - 1] = shape[n - 2];
    if (n >= 3) s[n - 3] = Mul(shape[n - 2], shape[n - 1]);
    for (size_t k = n >= 3 ? n - 3 : 0; k-- > 0;) s[k] = Mul(s[k + 1], shape[k + 1]);
  }
  for (const ir::ExprPtr& e : s) {
    if (e == nullptr) return InternalErrorF(span, "MaterializeTensorStrides: bad stride product");
  }
  return s;
}

absl::StatusOr<ir::ProgramPtr> MaterializeTensorStridesPass::Run(const ir::ProgramPtr& program) {
  StrideMaterializer m;
  ir::ProgramPtr out = m.MutateProgram(program);
  if (!m.status.ok()) return m.status;
  return out;
}

std::unique_ptr<Pass> CreateMaterializeTensorStridesPass() {
  return std::make_unique<MaterializeTensorStridesPass>();
}

}  // namespace pto::passes
