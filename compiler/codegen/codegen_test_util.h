// The set-up the code generator's tests share: example programs read from the
// runfiles, edited and compiled through the default pipeline.
#ifndef PTO_COMPILER_CODEGEN_CODEGEN_TEST_UTIL_H_
#define PTO_COMPILER_CODEGEN_CODEGEN_TEST_UTIL_H_

#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "gtest/gtest.h"

namespace pto::codegen::test_util {

// A file of the runfiles (rooted at the workspace, the test's working
// directory), e.g. "examples/all_to_all_v_chip.pto".
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.is_open()) << "missing runfile " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `s` with every `from` replaced by `to`. A pattern that is not in the
// program is a broken test, not a no-op.
inline std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  EXPECT_NE(s.find(from), std::string::npos) << "pattern not in the program: " << from;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// `text` parsed; nullptr (and a test failure) when it does not parse.
inline ir::ProgramPtr Parse(const std::string& text) {
  absl::StatusOr<ir::ProgramPtr> program = parser::ParseProgramText("test.pto", text);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : nullptr;
}

// `text` after the default pipeline; nullptr (and a test failure) on error.
inline ir::ProgramPtr Lower(const std::string& text) {
  ir::ProgramPtr program = Parse(text);
  if (program == nullptr) return nullptr;
  passes::PassManager pm;
  EXPECT_TRUE(pm.AddPipeline("default").ok());
  absl::StatusOr<ir::ProgramPtr> lowered = pm.Run(program);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  return lowered.ok() ? *lowered : nullptr;
}

}  // namespace pto::codegen::test_util

#endif  // PTO_COMPILER_CODEGEN_CODEGEN_TEST_UTIL_H_
