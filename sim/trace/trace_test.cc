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

TEST(TraceTest, SlicesCarryArgs) {
  Trace t;
  const int a = t.AddTrack(0, "chip 0", "AIV core 0 MTE2");
  t.Slice(a, "TLOAD 64 B", 0, 10, {{"bytes", 64}, {"peer", 1}, {"kernel", "k\"1"}});
  t.Slice(a, "bare", 10, 20);
  const std::string j = t.Json();
  EXPECT_NE(j.find("\"args\":{\"bytes\":64,\"peer\":1,\"kernel\":\"k\\\"1\"}}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"name\":\"bare\",\"pid\":0,\"tid\":0,\"ts\":0.000010,\"dur\":0.000010,"
                   "\"args\":{}}"),
            std::string::npos)
      << j;
}

TEST(TraceTest, TracksWithoutSlicesAreLeftOut) {
  Trace t;
  t.AddTrack(0, "chip 0", "AIC core 0");  // never used
  const int v = t.AddTrack(0, "chip 0", "AIV core 0");
  t.AddTrack(2, "chip 2", "AIV core 1");  // a process with no slice at all
  t.Slice(v, "k", 0, 1);
  const std::string j = t.Json();
  EXPECT_EQ(j.find("AIC core 0"), std::string::npos) << j;
  EXPECT_EQ(j.find("chip 2"), std::string::npos) << j;
  EXPECT_NE(j.find("\"tid\":1,\"args\":{\"name\":\"AIV core 0\"}"), std::string::npos) << j;
}

TEST(TraceTest, DisabledTraceRecordsNothing) {
  Trace t(false);
  t.Slice(t.AddTrack(0, "c", "x"), "e", 0, 1);
  EXPECT_EQ(t.event_count(), 0u);
}

}  // namespace
}  // namespace pto::sim
