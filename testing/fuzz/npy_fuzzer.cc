// Fuzz target: the .npy reader (common/npy.h). Any bytes must parse or give
// an error, never crash; an array that parses must serialize, and the
// serialized file must parse back to the same array.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/npy.h"

namespace npy = pto::tools::npy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto array = npy::Parse(bytes);
  if (!array.ok()) return 0;
  auto out = npy::Serialize(*array);
  if (!out.ok()) {
    std::fprintf(stderr, "parsed array does not serialize: %s\n",
                 std::string(out.status().message()).c_str());
    std::abort();
  }
  auto back = npy::Parse(*out);
  if (!back.ok() || back->descr != array->descr || back->shape != array->shape ||
      back->data != array->data) {
    std::fprintf(stderr, "serialize -> parse does not give the array back\n");
    std::abort();
  }
  return 0;
}
