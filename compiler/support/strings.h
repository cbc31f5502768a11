// Debian's Abseil is built with its own absl::string_view (not std::), so
// absl::StrCat does not take std::string_view. pto::StrCat forwards to it and
// converts std::string_view arguments.
#ifndef PTO_COMPILER_SUPPORT_STRINGS_H_
#define PTO_COMPILER_SUPPORT_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace pto {
namespace strings_internal {
inline absl::string_view Arg(std::string_view s) { return absl::string_view(s.data(), s.size()); }
template <typename T>
const T& Arg(const T& t) {
  return t;
}
}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(strings_internal::Arg(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, strings_internal::Arg(args)...);
}

inline absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace pto

#endif  // PTO_COMPILER_SUPPORT_STRINGS_H_
