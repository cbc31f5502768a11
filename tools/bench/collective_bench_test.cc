#include "tools/bench/collective_bench.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace pto::bench {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderBenchProgram, EverySizeIsAViewOfTheLargestBufferCalledTwice) {
  BenchSpec s{"allreduce", "FP16", "max", 4, 5, 0, {64, 1024}};
  absl::StatusOr<std::string> p = RenderBenchProgram(s);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(absl::StrContains(*p, "MAX = 128\n"));  // 1024 B / (4 ranks * 2 B)
  EXPECT_TRUE(absl::StrContains(*p, "data0 = pld.window(data_buf, [NR, 8], dtype=pl.FP16)"));
  EXPECT_EQ(Count(*p, "data1 = pld.tensor.allreduce(data1, signal, op=1, core_num=5)"), 2);
  EXPECT_TRUE(absl::StrContains(*p, "signal = pld.window(signal_buf, [4, 5], dtype=pl.INT32)"));
}

TEST(RenderBenchProgram, CollectiveSpecificOperands) {
  BenchSpec ring{"allreduce_ring", "FP32", "sum", 8, 1, 0, {4096}};
  EXPECT_TRUE(absl::StrContains(*RenderBenchProgram(ring), "[15, 8], dtype=pl.INT32"));
  BenchSpec ag{"allgather", "INT8", "sum", 2, 1, 0, {64}};
  EXPECT_TRUE(absl::StrContains(*RenderBenchProgram(ag),
                                "data0 = pld.tensor.allgather(row0, data0, signal)"));
  BenchSpec a2av{"all_to_all_v", "FP32", "sum", 2, 2, 0, {64}};
  const std::string v = *RenderBenchProgram(a2av);
  EXPECT_TRUE(absl::StrContains(v, "self.counts_pipeline(counts, device=r)"));
  EXPECT_TRUE(absl::StrContains(v, "signal = pld.window(signal_buf, [2, 2], dtype=pl.INT32)"));
  EXPECT_TRUE(absl::StrContains(v, "all_to_all_v(stage0, data0, signal, counts, recv, core_num=2)"));
  BenchSpec bar{"barrier", "FP32", "sum", 2, 1, 0, {}};
  EXPECT_EQ(Count(*RenderBenchProgram(bar), "signal = pld.tensor.barrier(signal)"), 2);
}

TEST(RenderBenchProgram, RejectsBadSpecs) {
  // The known list is the defs' HOST builtins (not spelled here, so adding a
  // collective does not touch this file).
  EXPECT_EQ(RenderBenchProgram({"gather", "FP32", "sum", 2, 1, 0, {64}}).status().message(),
            "unknown collective 'gather' (" + absl::StrJoin(BenchCollectives(), ", ") + ")");
  EXPECT_TRUE(absl::StrContains(
      RenderBenchProgram({"gather", "FP32", "sum", 2, 1, 0, {64}}).status().message(),
      "(allreduce, allreduce_ring, barrier, broadcast, "));
  EXPECT_EQ(RenderBenchProgram({"allreduce", "BF16", "sum", 2, 1, 0, {64}}).status().message(),
            "unknown dtype 'BF16' (FP32, FP16, INT32, INT8)");
  EXPECT_EQ(RenderBenchProgram({"allreduce", "FP32", "avg", 2, 1, 0, {64}}).status().message(),
            "unknown reduce op 'avg' (sum, max, min, prod)");
  EXPECT_EQ(RenderBenchProgram({"allreduce", "FP32", "sum", 2, 1, 0, {12}}).status().message(),
            "size 12 is not a positive multiple of ranks * element bytes = 8");
  EXPECT_EQ(RenderBenchProgram({"allreduce", "FP32", "sum", 1, 1, 0, {64}}).status().message(),
            "ranks must be at least 2");
}

TEST(BusFactor, NcclFactors) {
  EXPECT_DOUBLE_EQ(BusFactor("allreduce", 8), 14.0 / 8);
  EXPECT_DOUBLE_EQ(BusFactor("allreduce_ring", 4), 6.0 / 4);
  EXPECT_DOUBLE_EQ(BusFactor("reduce_scatter", 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusFactor("allgather", 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusFactor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(BusFactor("broadcast", 8), 1.0);
  EXPECT_DOUBLE_EQ(BusFactor("barrier", 8), 0.0);
}

TEST(TimeBound, AlphaBetaPerAlgorithm) {
  const LinkModel link{2e-6, 50e9};
  EXPECT_DOUBLE_EQ(TimeBound("all_to_all", 8, 8e6, link), 2e-6 + 1e6 / 50e9);
  EXPECT_DOUBLE_EQ(TimeBound("allreduce", 8, 8e6, link), 2e-6 + 8e6 / 50e9);
  EXPECT_DOUBLE_EQ(TimeBound("allreduce_ring", 8, 8e6, link), 14 * (2e-6 + 1e6 / 50e9));
  EXPECT_DOUBLE_EQ(TimeBound("barrier", 8, 0, link), 2e-6);
}

sim::TaskStat* AddTask(sim::RunReport* r, int chip, int run, int64_t start, int64_t end,
                       const std::string& kernel = "builtin_tensor_allreduce__sum__fp32_kernel") {
  sim::TaskStat* t = r->add_tasks();
  t->set_chip(chip);
  t->set_run(run);
  t->set_kernel(kernel);
  t->set_start_ps(start);
  t->set_end_ps(end);
  return t;
}

TEST(MeasureRows, TimesTheSecondCallOfEverySizeOverEveryChip) {
  BenchSpec s{"allreduce", "FP32", "sum", 2, 1, 0, {1000 * 8}};
  sim::RunReport r;
  AddTask(&r, 0, 0, 0, 100);
  AddTask(&r, 1, 0, 0, 100);
  AddTask(&r, 0, 1, 1'000'000, 2'000'000);  // measured: 1 us .. 3 us
  AddTask(&r, 1, 1, 1'500'000, 3'000'000);
  AddTask(&r, 0, 2, 0, 5, "fill");           // not a collective task
  const LinkModel link{1e-6, 8e9};
  absl::StatusOr<std::vector<BenchRow>> rows = MeasureRows(s, r, link);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].count, 2000);
  EXPECT_DOUBLE_EQ((*rows)[0].seconds, 2e-6);
  EXPECT_DOUBLE_EQ((*rows)[0].algbw, 8000 / 2e-6);
  EXPECT_DOUBLE_EQ((*rows)[0].busbw, 8000 / 2e-6);  // 2(n-1)/n = 1 on 2 ranks
  EXPECT_DOUBLE_EQ((*rows)[0].bound_s, 1e-6 + 8000 / 8e9);
  EXPECT_DOUBLE_EQ((*rows)[0].of_bound, (1e-6 + 1e-6) / 2e-6);
  const std::string table = FormatTable(s, "a2a3", link, *rows);
  EXPECT_TRUE(absl::StrContains(table, "        8000         2000   fp32    sum        2.00"))
      << table;
}

TEST(MeasureRows, RejectsARunWithMissingCalls) {
  BenchSpec s{"allreduce", "FP32", "sum", 2, 1, 0, {8}};
  sim::RunReport r;
  AddTask(&r, 0, 0, 0, 1);
  AddTask(&r, 1, 0, 0, 1);
  AddTask(&r, 1, 1, 0, 1);
  EXPECT_EQ(MeasureRows(s, r, {}).status().message(),
            "chip 0 ran 1 collective tasks, want 2");
}

}  // namespace
}  // namespace pto::bench
