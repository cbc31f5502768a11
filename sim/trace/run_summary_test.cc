#include "sim/trace/run_summary.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Two chips; chip 0 runs stage -> a2a -> consume, chip 1 runs stage -> a2a.
// The a2a tasks hold the collective; links c0->c1 and c1->c0 carry its bytes.
RunReport Report() {
  RunReport r;
  const char* text = R"pb(
    platform: "a2a3" chips: 2 sim_time_ps: 100000000
    tasks { chip: 0 run: 0 task: 0 kernel: "stage" ready_ps: 0 start_ps: 1000000 end_ps: 11000000 }
    tasks { chip: 0 run: 0 task: 1 kernel: "__builtin_a2a" ready_ps: 11000000 start_ps: 12000000 end_ps: 52000000 }
    tasks { chip: 0 run: 1 task: 2 kernel: "consume" ready_ps: 60000000 start_ps: 61000000 end_ps: 90000000 }
    tasks { chip: 1 run: 0 task: 0 kernel: "stage" ready_ps: 0 start_ps: 1000000 end_ps: 9000000 }
    tasks { chip: 1 run: 0 task: 1 kernel: "__builtin_a2a" ready_ps: 9000000 start_ps: 10000000 end_ps: 50000000 }
    cores { chip: 0 core: 0 kind: "AIV" wait_ps: 3000000 }
    cores { chip: 0 core: 1 kind: "AIV" wait_ps: 2000000 }
    cores { chip: 1 core: 0 kind: "AIV" wait_ps: 7000000 }
    links { name: "link c0->c1" bytes: 4096 utilization: 0.25 }
    links { name: "link c1->c0" bytes: 8192 utilization: 0.5 }
    gms { name: "gm c0" bytes: 100 utilization: 0.125 }
    gms { name: "gm c1" bytes: 200 utilization: 0.0625 }
    gms { name: "gm c2" bytes: 0 utilization: 0 }
  )pb";
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &r));
  return r;
}

TEST(RunSummaryTest, LinkEndpoints) {
  EXPECT_EQ(LinkSender("link c3->c12"), 3);
  EXPECT_EQ(LinkReceiver("link c3->c12"), 12);
  EXPECT_EQ(LinkSender("port c2->switch"), 2);
  EXPECT_EQ(LinkReceiver("port c2->switch"), std::nullopt);
  EXPECT_EQ(LinkSender("port switch->c5"), std::nullopt);
  EXPECT_EQ(LinkReceiver("port switch->c5"), 5);
  EXPECT_EQ(LinkSender("gm c0"), std::nullopt);
  EXPECT_EQ(LinkReceiver("link c1->cx"), std::nullopt);
}

TEST(RunSummaryTest, PerRankFigures) {
  const RunSummary s = Summarize(Report(), {});
  ASSERT_EQ(s.ranks.size(), 2u);
  EXPECT_EQ(s.ranks[0].tasks, 3);
  EXPECT_EQ(s.ranks[0].dispatches, 2);
  EXPECT_EQ(s.ranks[0].kernel_ps, 10000000 + 40000000 + 29000000);
  EXPECT_EQ(s.ranks[0].sent_bytes, 4096);
  EXPECT_EQ(s.ranks[0].received_bytes, 8192);
  EXPECT_EQ(s.ranks[0].wait_ps, 5000000);
  EXPECT_EQ(s.ranks[1].tasks, 2);
  EXPECT_EQ(s.ranks[1].sent_bytes, 8192);
  EXPECT_EQ(s.ranks[1].wait_ps, 7000000);
}

TEST(RunSummaryTest, BusiestFirstAndTopN) {
  SummaryOptions o;
  o.top = 1;
  const RunSummary s = Summarize(Report(), o);
  ASSERT_EQ(s.links.size(), 1u);
  EXPECT_EQ(s.links[0].name, "link c1->c0");
  ASSERT_EQ(s.gms.size(), 1u);
  EXPECT_EQ(s.gms[0].name, "gm c0");
}

TEST(RunSummaryTest, CriticalPathWalksBackFromTheLastTask) {
  const RunSummary s = Summarize(Report(), {});
  EXPECT_EQ(s.critical_path_ps, 90000000);
  // consume (29 us) <- __builtin_a2a (40 us) <- stage (10 us), on chip 0.
  ASSERT_EQ(s.critical_path.size(), 3u);
  EXPECT_EQ(s.critical_path[0].kernel, "__builtin_a2a");
  EXPECT_EQ(s.critical_path[0].ps, 40000000);
  EXPECT_EQ(s.critical_path[1].kernel, "consume");
  EXPECT_EQ(s.critical_path[2].kernel, "stage");
  EXPECT_EQ(s.critical_path[2].ps, 10000000);
}

TEST(RunSummaryTest, CollectiveBusBandwidth) {
  SummaryOptions o;
  o.link_bytes_per_s = 56e9;
  const RunSummary s = Summarize(Report(), o);
  ASSERT_TRUE(s.collective.has_value());
  EXPECT_EQ(s.collective->span_ps, 42000000);  // 10 us .. 52 us
  EXPECT_DOUBLE_EQ(s.collective->mean_peer_bytes, (4096 + 8192) / 2.0);
  EXPECT_DOUBLE_EQ(s.collective->busbw_bytes_per_s, 6144 / 42e-6);
  EXPECT_DOUBLE_EQ(s.collective->bound_bytes_per_s, 56e9);
  o.collective_kernel = "no_such_kernel";
  EXPECT_FALSE(Summarize(Report(), o).collective.has_value());
}

TEST(RunSummaryTest, FormattedTable) {
  SummaryOptions o;
  o.link_bytes_per_s = 56e9;
  const std::string t = FormatSummary(Summarize(Report(), o));
  EXPECT_THAT(t, HasSubstr("rank  tasks  dispatches  kernel us      sent  received   wait us\n"
                           "   0      3           2      79.00    4096 B    8192 B      5.00\n"));
  EXPECT_THAT(t, HasSubstr("busiest links: link c1->c0 50.0% (8192 B), link c0->c1 25.0% (4096 B)"));
  // No cube time: no cube / vector table.
  EXPECT_THAT(t, Not(HasSubstr("cube us")));
  EXPECT_THAT(t, HasSubstr("busiest GM ports: gm c0 12.5% (100 B), gm c1 6.2% (200 B)"));
  EXPECT_THAT(t, HasSubstr("critical path (to 90.00 us): __builtin_a2a 40.00 us, consume 29.00 us"));
  EXPECT_THAT(t, HasSubstr("collective (__builtin_*): 42.00 us, busbw 0.15 GB/s of the 56 GB/s"));
}

TEST(RunSummaryTest, CubeAndVectorTimeSplitPerRank) {
  RunReport r = Report();
  CoreStat* aic = r.add_cores();
  aic->set_chip(1);
  aic->set_kind("AIC");
  aic->set_cube_busy_ps(1500000);
  r.mutable_cores(0)->set_vector_busy_ps(2000000);
  const RunSummary s = Summarize(r, SummaryOptions{});
  EXPECT_EQ(s.ranks[0].vector_ps, 2000000);
  EXPECT_EQ(s.ranks[0].cube_ps, 0);
  EXPECT_EQ(s.ranks[1].cube_ps, 1500000);
  EXPECT_THAT(FormatSummary(s), HasSubstr("rank    cube us  vector us\n"
                                          "   0       0.00       2.00\n"
                                          "   1       1.50       0.00\n"));
}

}  // namespace
}  // namespace pto::sim
