#include "sim/trace/trace.h"

#include "gtest/gtest.h"

namespace pto::sim {
namespace {

TEST(TraceTest, WritesChromeJsonWithMicrosecondTimestamps) {
  Trace t;
  int a = t.AddTrack(0, "chip 0", "AIV0 MTE2");
  int b = t.AddTrack(1000, "fabric", "link c0->c1");
  t.Slice(a, "TLOAD 64 B", 1500, 2750);  // ps
  t.Slice(b, "x\"y", 1000000, 3000000);
  const std::string j = t.Json();
  EXPECT_NE(j.find("\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":"
                   "\"chip 0\"}"),
            std::string::npos);
  EXPECT_NE(j.find("\"tid\":0,\"ts\":0.001500,\"dur\":0.001250"),
            std::string::npos);
  EXPECT_NE(j.find("\"name\":\"x\\\"y\""), std::string::npos);
  EXPECT_NE(j.find("\"ts\":1.000000,\"dur\":2.000000"), std::string::npos);
  EXPECT_EQ(j, t.Json());
}

TEST(TraceTest, DisabledTraceRecordsNothing) {
  Trace t(false);
  t.Slice(t.AddTrack(0, "c", "x"), "e", 0, 1);
  EXPECT_EQ(t.event_count(), 0u);
}

}  // namespace
}  // namespace pto::sim
