#include "tools/cli_flags.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(std::string, out_dir, "", "DIR: where to write");
ABSL_FLAG(int32_t, count, 3, "N: how many");
ABSL_FLAG(bool, fast_mode, false, "go fast");
ABSL_FLAG(bool, color, true, "colour the output");
ABSL_FLAG(std::vector<std::string>, passes, {}, "A,B,...: passes; repeatable");

namespace pto::tools {
namespace {

using ::testing::HasSubstr;

const ToolInfo kInfo{"tool", "FILE [flags]", "About the tool.\n", "exit status: 0 ok.\n",
                     __FILE__};

struct Args {
  explicit Args(std::vector<std::string> a) : strings(std::move(a)) {
    strings.insert(strings.begin(), "tool");
    for (std::string& s : strings) ptrs.push_back(s.data());
  }
  std::vector<std::string> strings;
  std::vector<char*> ptrs;
};

int Parse(std::vector<std::string> a, std::vector<std::string>* positional,
          std::string* err = nullptr) {
  absl::SetFlag(&FLAGS_out_dir, "");
  absl::SetFlag(&FLAGS_count, 3);
  absl::SetFlag(&FLAGS_fast_mode, false);
  absl::SetFlag(&FLAGS_color, true);
  absl::SetFlag(&FLAGS_passes, {});
  Args args(std::move(a));
  ::testing::internal::CaptureStderr();
  const int rc = ParseCommandLine(static_cast<int>(args.ptrs.size()), args.ptrs.data(), kInfo,
                                  positional);
  const std::string e = ::testing::internal::GetCapturedStderr();
  if (err != nullptr) *err = e;
  return rc;
}

TEST(CliFlagsTest, SpellingRules) {
  std::vector<std::string> pos;
  ASSERT_EQ(Parse({"--out-dir=x", "--count", "7", "--fast_mode", "--nocolor",
                   "-passes=A,B", "--passes", "C", "--", "--not-a-flag"},
                  &pos),
            -1);
  EXPECT_EQ(pos, (std::vector<std::string>{"--not-a-flag"}));  // after "--"
  EXPECT_EQ(absl::GetFlag(FLAGS_out_dir), "x");
  EXPECT_EQ(absl::GetFlag(FLAGS_count), 7);
  EXPECT_TRUE(absl::GetFlag(FLAGS_fast_mode));
  EXPECT_FALSE(absl::GetFlag(FLAGS_color));
  EXPECT_EQ(absl::GetFlag(FLAGS_passes), (std::vector<std::string>{"A", "B", "C"}));
  pos.clear();
  ASSERT_EQ(Parse({"-", "--fast-mode=false", "--color=true"}, &pos), -1);
  EXPECT_EQ(pos, (std::vector<std::string>{"-"}));
  EXPECT_FALSE(absl::GetFlag(FLAGS_fast_mode));
}

TEST(CliFlagsTest, UsageErrorsExitWithTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--bogus"}, "tool: unknown flag '--bogus'\n(see tool --help)\n"},
           {{"--count=many"}, "tool: --count=many: "},
           {{"--count"}, "tool: --count needs a value\n"},
           {{"--fast-mode=maybe"}, "tool: --fast-mode=maybe: "},
           {{"--nocount"}, "tool: unknown flag '--nocount'"},
           {{"a", "b"}, "tool: more than 1 input file ('a' and 'b')"},
           {{"--gtest_color=no"}, "unknown flag"},  // another file's flag
       }) {
    std::vector<std::string> pos;
    std::string err;
    EXPECT_EQ(Parse(c.args, &pos, &err), kUsageExit) << c.message;
    EXPECT_THAT(err, HasSubstr(c.message));
  }
}

TEST(CliFlagsTest, HelpIsGeneratedFromTheDefinitions) {
  const std::string h = HelpText(kInfo);
  EXPECT_THAT(h, HasSubstr("usage: tool FILE [flags]\n\nAbout the tool.\n\nflags:\n"));
  // Wrapped at 79 columns, a default never split.
  EXPECT_THAT(h, HasSubstr("  --color                 colour the output\n"
                           "                          (default: on; --nocolor turns it off)\n"));
  EXPECT_THAT(h, HasSubstr("  --count=N               how many (default: 3)\n"));
  EXPECT_THAT(h, HasSubstr("  --fast-mode             go fast\n"));
  EXPECT_THAT(h, HasSubstr("  --out-dir=DIR           where to write\n"));
  EXPECT_THAT(h, HasSubstr("  --passes=A,B,...        passes; repeatable\n"));
  EXPECT_THAT(h, HasSubstr("  -h, --help              show this help and exit\n\nexit status: 0 ok.\n"));
  EXPECT_THAT(h, ::testing::Not(HasSubstr("gtest")));
  std::vector<std::string> pos;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Parse({"--count=1", "-h"}, &pos), 0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), h);
}

}  // namespace
}  // namespace pto::tools
