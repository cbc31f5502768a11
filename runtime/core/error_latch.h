// The fatal latch (runtime-and-sim.md §4.2): the first code wins; later codes
// are recorded in the log but never replace it.
#ifndef PTO_RUNTIME_CORE_ERROR_LATCH_H_
#define PTO_RUNTIME_CORE_ERROR_LATCH_H_

#include <string>
#include <vector>

namespace pto::rt {

class ErrorLatch {
 public:
  // Returns true if this call latched (it was the first).
  bool Latch(int code, const std::string& message);
  bool fatal() const { return code_ != 0; }
  int code() const { return code_; }
  const std::string& message() const { return message_; }
  // "code=7 REQUIRE_SYNC_START_INVALID: <message>" or "" when not fatal.
  std::string Text() const;
  // Every Latch call after the first, as "FATAL(code=.., latched=..): msg".
  const std::vector<std::string>& later() const { return later_; }

 private:
  int code_ = 0;
  std::string message_;
  std::vector<std::string> later_;
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_ERROR_LATCH_H_
