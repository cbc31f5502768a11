// Checks that the Debian libraries wrapped in @system_libs link and work together
// with the project's compiler flags (C++20, SystemC's C++17 API symbol).
#include <systemc>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "third_party/system/link_test.pb.h"

namespace {

TEST(SystemLibsTest, AbseilStatusOr) {
  absl::StatusOr<int> v = 42;
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(absl::StrCat("v=", *v), "v=42");
}

TEST(SystemLibsTest, SystemCTime) {
  sc_core::sc_time t(1, sc_core::SC_US);
  EXPECT_EQ(t.to_string(), "1 us");
}

TEST(SystemLibsTest, ProtobufMessage) {
  pto::thirdparty::LinkProbe probe;
  probe.set_name("probe");
  std::string wire;
  ASSERT_TRUE(probe.SerializeToString(&wire));
  pto::thirdparty::LinkProbe back;
  ASSERT_TRUE(back.ParseFromString(wire));
  EXPECT_EQ(back.name(), "probe");
}

}  // namespace

// libsystemc.so calls sc_main from its own main(); run the tests from there.
int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
