// RETURN_IF_ERROR / ASSIGN_OR_RETURN: Debian's Abseil ships no status macros.
#ifndef PTO_COMPILER_SUPPORT_STATUS_MACROS_H_
#define PTO_COMPILER_SUPPORT_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PTO_STATUS_CONCAT_INNER_(a, b) a##b
#define PTO_STATUS_CONCAT_(a, b) PTO_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                                  \
  do {                                                         \
    ::absl::Status pto_status_ = (expr);                       \
    if (!pto_status_.ok()) return pto_status_;                 \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  PTO_ASSIGN_OR_RETURN_IMPL_(PTO_STATUS_CONCAT_(pto_statusor_, __LINE__), lhs, rexpr)

#define PTO_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                               \
  if (!statusor.ok()) return statusor.status();          \
  lhs = std::move(statusor).value()

#endif  // PTO_COMPILER_SUPPORT_STATUS_MACROS_H_
