// Adding a collective is four places (docs/collectives.md): its
// CollectiveDef, its kernel template, its golden in testing/reference and its
// test rows. This test walks the defs and fails for one that lacks any of the
// last three.
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/ops/collective_def.h"
#include "gtest/gtest.h"
#include "testing/reference/collective_goldens.h"

namespace {

namespace ops = ::pto::ops;
namespace ref = ::pto::reference;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Quoted(const std::string& text, std::string_view name) {
  return text.find("\"" + std::string(name) + "\"") != std::string::npos;
}

TEST(CollectiveDefCompleteTest, EveryHostBuiltinHasItsTemplateGoldenAndRows) {
  const std::string matrix = Read("testing/system/collectives/BUILD.bazel");
  const std::string counted = Read("testing/system/BUILD.bazel");
  ASSERT_FALSE(matrix.empty());
  ASSERT_FALSE(counted.empty());
  const std::vector<std::string> goldens = ref::MatrixGoldenNames();
  int checked = 0;
  for (const ops::CollectiveDef& def : ops::Collectives()) {
    if (def.builtin.empty()) continue;
    const std::string name(def.builtin);
    ++checked;
    EXPECT_FALSE(Read("runtime/builtins/" + name + "/kernel.cpp.in").empty())
        << name << ": no kernel template runtime/builtins/" << name << "/kernel.cpp.in";
    if (!def.count_args.empty()) {
      // A counted exchange (all_to_all_v): its golden takes the counts
      // (ref::AllToAllV) and its rows are the skew matrix of testing/system.
      EXPECT_TRUE(Quoted(counted, name) || counted.find(name) != std::string::npos)
          << name << ": no rows in testing/system/BUILD.bazel";
      continue;
    }
    EXPECT_NE(std::find(goldens.begin(), goldens.end(), name), goldens.end())
        << name << ": no golden registered in testing/reference/collective_goldens.h";
    EXPECT_TRUE(Quoted(matrix, name))
        << name << ": no rows in testing/system/collectives/BUILD.bazel";
  }
  // Not a count of today's builtins: adding or removing a collective must
  // not need this file (AMissingCollectiveIsFound keeps the check honest).
  EXPECT_GT(checked, 0);
}

// The check is not vacuous: a name no def has is reported as missing.
TEST(CollectiveDefCompleteTest, AMissingCollectiveIsFound) {
  const std::string matrix = Read("testing/system/collectives/BUILD.bazel");
  EXPECT_FALSE(Quoted(matrix, "no_such_collective"));
  const std::vector<std::string> goldens = ref::MatrixGoldenNames();
  EXPECT_EQ(std::find(goldens.begin(), goldens.end(), "no_such_collective"), goldens.end());
  EXPECT_TRUE(Read("runtime/builtins/no_such_collective/kernel.cpp.in").empty());
}

}  // namespace
