// Fuzz target: kernel-config text protos (runtime/builtins/kernel_config.proto,
// what codegen writes for every chip pipeline and the builtins render). Any
// text must parse or fail cleanly; a config that parses must survive
// printing and re-parsing unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/builtins/kernel_config.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pto::builtins::KernelConfig config;
  google::protobuf::TextFormat::Parser parser;
  struct Quiet : google::protobuf::io::ErrorCollector {
    void AddError(int, int, const std::string&) override {}
  } quiet;
  parser.RecordErrorsTo(&quiet);
  if (!parser.ParseFromString(text, &config)) return 0;
  std::string printed;
  if (!google::protobuf::TextFormat::PrintToString(config, &printed)) std::abort();
  pto::builtins::KernelConfig again;
  if (!parser.ParseFromString(printed, &again) ||
      !google::protobuf::util::MessageDifferencer::Equals(config, again)) {
    std::abort();
  }
  return 0;
}
