// Fuzz target: platform text protos (platforms/platform.h). Any text
// must give a validated platform or an error, never crash; a platform that
// validates must survive printing and re-parsing unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "platforms/platform.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto platform = pto::platforms::ParsePlatform(text);
  if (!platform.ok()) return 0;
  std::string printed;
  if (!google::protobuf::TextFormat::PrintToString(*platform, &printed)) std::abort();
  auto again = pto::platforms::ParsePlatform(printed);
  if (!again.ok() ||
      !google::protobuf::util::MessageDifferencer::Equals(*platform, *again)) {
    std::fprintf(stderr, "a valid platform does not survive print -> parse\n");
    std::abort();
  }
  return 0;
}
