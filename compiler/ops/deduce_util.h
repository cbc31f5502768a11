// Small checks shared by the type deducers.
#ifndef PTO_COMPILER_OPS_DEDUCE_UTIL_H_
#define PTO_COMPILER_OPS_DEDUCE_UTIL_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"
#include "compiler/ops/op_registry.h"

namespace pto::ops {

absl::Status CheckArgCount(const CallSite& site, std::string_view op, size_t min, size_t max);
// The arg as a tensor-like type (Tensor or DistributedTensor) or a user error
// "<op> <role> must be a tensor, got <type>".
absl::StatusOr<std::shared_ptr<const ir::TensorType>> TensorArg(const CallSite& site, size_t i,
                                                                std::string_view op,
                                                                std::string_view role);
absl::StatusOr<std::shared_ptr<const ir::DistributedTensorType>> DistTensorArg(
    const CallSite& site, size_t i, std::string_view op, std::string_view role);
absl::StatusOr<std::shared_ptr<const ir::TileType>> TileArg(const CallSite& site, size_t i,
                                                            std::string_view op,
                                                            std::string_view role);
absl::Status ScalarArg(const CallSite& site, size_t i, std::string_view op, std::string_view role);
// A MakeTuple argument (shape / offsets); returns its elements.
absl::StatusOr<std::vector<ir::ExprPtr>> TupleArg(const CallSite& site, size_t i,
                                                  std::string_view op, std::string_view role);
absl::StatusOr<ir::DataType> DTypeKwarg(const CallSite& site, std::string_view key,
                                        std::string_view op);
// Short human text of a type for messages.
std::string TypeText(const ir::TypePtr& type);
// Span of arg i if it has one, else the call's.
const Span& ArgSpan(const CallSite& site, size_t i);

}  // namespace pto::ops

#endif  // PTO_COMPILER_OPS_DEDUCE_UTIL_H_
