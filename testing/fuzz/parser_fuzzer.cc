// Fuzz target: the program parser (compiler/parser). Any bytes must give a
// program or a located error, never a crash or a hang; a program that parses
// must print to text that parses again and prints the same (the printer /
// parser fixed point of docs/language.md).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto program = pto::parser::ParseProgramText("fuzz.pto", text);
  if (!program.ok()) return 0;
  const std::string printed = pto::ir::PrintProgram(*program);
  auto again = pto::parser::ParseProgramText("printed.pto", printed);
  if (!again.ok()) {
    std::fprintf(stderr, "printed program does not parse: %s\n--- printed:\n%s\n",
                 std::string(again.status().message()).c_str(), printed.c_str());
    std::abort();
  }
  if (pto::ir::PrintProgram(*again) != printed) {
    std::fprintf(stderr, "print -> parse -> print is not a fixed point:\n%s\n",
                 printed.c_str());
    std::abort();
  }
  return 0;
}
