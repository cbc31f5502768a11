#include "runtime/core/error_latch.h"

#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"

namespace pto::rt {
namespace {

TEST(ErrorLatchTest, FirstWriterWins) {
  ErrorLatch latch;
  EXPECT_FALSE(latch.fatal());
  EXPECT_TRUE(latch.Latch(kErrorRequireSyncStartInvalid, "first"));
  EXPECT_FALSE(latch.Latch(kErrorInvalidArgs, "second"));
  EXPECT_EQ(latch.code(), 7);
  EXPECT_EQ(latch.message(), "first");
  ASSERT_EQ(latch.later().size(), 1u);
  EXPECT_EQ(latch.later()[0], "FATAL(code=5, latched=7): second");
  EXPECT_NE(latch.Text().find("code=7 REQUIRE_SYNC_START_INVALID: first"),
            std::string::npos);
}

TEST(ErrorCodesTest, EveryDocumentedCodeHasANameAndDetail) {
  for (int code : {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 100, 101, 102, 110}) {
    EXPECT_STRNE(ErrorName(code), "UNKNOWN") << code;
    EXPECT_STRNE(ErrorDetail(code), "unknown error code") << code;
  }
  EXPECT_STREQ(ErrorName(6), "UNKNOWN");  // retired in simpler
}

}  // namespace
}  // namespace pto::rt
