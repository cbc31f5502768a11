// Package handles and the two template sources (docs/codegen.md).
#include "compiler/codegen/template_source.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::codegen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;

constexpr char kHandle[] = ":pypto.runtime.builtins.collectives.all_to_all_v";

TEST(BuiltinPackageNameTest, MapsTheHandleToItsDirectory) {
  absl::StatusOr<std::string> name = BuiltinPackageName(kHandle);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "all_to_all_v");
}

TEST(BuiltinPackageNameTest, RejectsAHandleWithoutColon) {
  absl::StatusOr<std::string> name =
      BuiltinPackageName("pypto.runtime.builtins.collectives.all_to_all_v");
  EXPECT_EQ(name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(name.status().message()), HasSubstr("starting with ':'"));
  EXPECT_EQ(BuiltinPackageName("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BuiltinPackageNameTest, RejectsOtherPackagesAndPathLikeNames) {
  for (const char* bad :
       {":other.pkg.all_to_all_v", ":pypto.runtime.builtins.collectives.",
        ":pypto.runtime.builtins.collectives.a/b", ":pypto.runtime.builtins.collectives..."}) {
    EXPECT_EQ(BuiltinPackageName(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

class DirectoryTemplateSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(std::getenv("TEST_TMPDIR")) / "builtins";
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "all_to_all_v");
    std::filesystem::create_directories(root_ / "empty");
    Write("all_to_all_v/kernel.cpp.in", "k {{dtype_cpp}}\n");
    Write("all_to_all_v/entry.cpp.in", "e\n");
    Write("all_to_all_v/BUILD.bazel", "not a template\n");
    Write("empty/README.md", "no templates here\n");
    // A directory named like a template is not one.
    std::filesystem::create_directories(root_ / "all_to_all_v" / "old.in");
  }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel, std::ios::binary) << text;
  }
  std::filesystem::path root_;
};

TEST_F(DirectoryTemplateSourceTest, ReadsOnlyTheInFilesSortedByName) {
  DirectoryTemplateSource source(root_.string());
  absl::StatusOr<TemplateFiles> files = source.Load(kHandle);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(Key("entry.cpp.in"), Key("kernel.cpp.in")));
  EXPECT_EQ(files->at("kernel.cpp.in"), "k {{dtype_cpp}}\n");
}

TEST_F(DirectoryTemplateSourceTest, APackageWithoutTemplatesIsNotFound) {
  DirectoryTemplateSource source(root_.string());
  for (const char* handle : {":pypto.runtime.builtins.collectives.empty",
                             ":pypto.runtime.builtins.collectives.missing"}) {
    absl::Status status = source.Load(handle).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << handle;
    EXPECT_THAT(std::string(status.message()), HasSubstr("has no templates")) << handle;
  }
}

TEST_F(DirectoryTemplateSourceTest, ABadHandleIsInvalidArgument) {
  DirectoryTemplateSource source(root_.string());
  EXPECT_EQ(source.Load("all_to_all_v").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MapTemplateSourceTest, LoadsByPackageNameAndRejectsMissingOrEmptyPackages) {
  MapTemplateSource source({{"all_to_all_v", {{"kernel.cpp.in", "k"}}}, {"empty", {}}});
  absl::StatusOr<TemplateFiles> files = source.Load(kHandle);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->at("kernel.cpp.in"), "k");
  EXPECT_EQ(source.Load(":pypto.runtime.builtins.collectives.empty").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(source.Load(":pypto.runtime.builtins.collectives.barrier").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(source.Load("pypto").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pto::codegen
