#include "runtime/core/error_latch.h"

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {

bool ErrorLatch::Latch(int code, const std::string& message) {
  if (code == 0) return false;
  if (code_ != 0) {
    later_.push_back(absl::StrCat("FATAL(code=", code, ", latched=", code_,
                                  "): ", message));
    return false;
  }
  code_ = code;
  message_ = message;
  return true;
}

std::string ErrorLatch::Text() const {
  if (code_ == 0) return "";
  return absl::StrCat("code=", code_, " ", ErrorName(code_), ": ", message_,
                      " (", ErrorDetail(code_), ")");
}

}  // namespace pto::rt
