// URMA on the A5 model through cores and the scheduler: WQEs posted by
// kernels, CQEs polled by the scheduler, deferred task completion, the
// 256 MiB WQE limit. The engine alone is sim/urma/urma_engine_test.cc.
#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using testing::Opts;
using testing::Simulate;

// t0 = src (local GM), t1 = dst (window); s0 = &CommContext, s1 = bytes per
// WQE, s2 = WQE count. Rank 0 posts s2 puts to rank 1 and defers completion.
void UrmaPutKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[2]);
  if (ctx->rankId != 0) return;
  const uint64_t bytes = static_cast<uint64_t>(args[3]);
  const int64_t count = args[4];
  uint8_t* src = TensorArg(args, 0)->data<uint8_t>();
  uint8_t* dst = TensorArg(args, 1)->data<uint8_t>();
  AsyncEvent last = 0;
  for (int64_t i = 0; i < count; ++i) {
    last = TPUT_ASYNC(
        GlobalTensor<uint8_t>{CommRemotePtr(ctx, dst + i * bytes, 1u), bytes},
        GlobalTensor<uint8_t>{src + i * bytes, bytes});
  }
  defer_completion(last);
}

// Then a consumer of the same source buffer on rank 0 (RAW via INOUT).
void NopKernel(int64_t*) {}

struct UrmaResult {
  RunReport report;
};

RunReport UrmaPut(const std::string& platform, uint64_t bytes, int count) {
  const uint64_t total = bytes * count;
  std::optional<rt::Domain> dom;
  return Simulate(
      Opts(2, platform),
      [&](SimSystem& sys) -> absl::Status {
        auto d = sys.CreateDomain({"u", {0, 1}, total + 4096, {{"dst", total}}});
        if (!d.ok()) return d.status();
        dom = *d;
        std::vector<rt::ChipArgs> args;
        for (int r = 0; r < 2; ++r) {
          auto src = sys.Alloc(r, total, "src");
          if (!src.ok()) return src.status();
          std::vector<uint8_t> v(total);
          for (uint64_t i = 0; i < total; ++i) v[i] = static_cast<uint8_t>(i * 7 + 1);
          (void)sys.CopyTo(*src, v.data(), total);
          args.push_back({{*src, dom->ranks[r].buffers.at("dst")},
                          {dom->ranks[r].device_ctx.addr(), bytes,
                           static_cast<uint64_t>(count)}});
        }
        rt::ChipCallable c;
        c.name = "urma";
        c.kernels = {&UrmaPutKernel, &NopKernel};
        c.kernel_names = {"urma_put", "after"};
        c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
          rt::TaskArgs put;
          put.add_inout(a.tensors[0]);
          put.add_no_dep(a.tensors[1]);
          for (uint64_t s : a.scalars) put.add_scalar(s);
          o.submit_aiv_task(0, put);
          rt::TaskArgs after;
          after.add_inout(a.tensors[0]);  // may overwrite src: RAW/WAW on put
          o.submit_aiv_task(1, after);
        };
        return sys.DispatchGroup({0, 1}, c, args);
      },
      [&](SimSystem& sys, RunReport& r) {
        std::vector<uint8_t> v(total);
        (void)sys.CopyFrom(v.data(), dom->ranks[1].buffers.at("dst"), total);
        int64_t errors = 0;
        for (uint64_t i = 0; i < total; ++i) {
          errors += v[i] != static_cast<uint8_t>(i * 7 + 1);
        }
        (*r.mutable_values())["errors"] = errors;
      });
}

const ResourceStat* UrmaQueue(const RunReport& r) {
  const ResourceStat* found = nullptr;
  for (const ResourceStat& q : r.queues()) {
    if (q.name().rfind("urma", 0) == 0) {
      EXPECT_EQ(found, nullptr) << "more than one URMA queue used";
      found = &q;
    }
  }
  return found;
}

const TaskStat* Task(const RunReport& r, int chip, int64_t id) {
  for (const TaskStat& t : r.tasks()) {
    if (t.chip() == chip && t.task() == id) return &t;
  }
  return nullptr;
}

TEST(UrmaTest, PutCompletesThroughTheCqAndReleasesTheConsumerAfter) {
  RunReport r = UrmaPut("a5", 1 << 20, 1);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
  const ResourceStat* q = UrmaQueue(r);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->name(), "urma c0->c1");
  EXPECT_EQ(q->transfers(), 1);
  EXPECT_EQ(q->bytes(), 1 << 20);
  const TaskStat* put = Task(r, 0, 0);
  const TaskStat* after = Task(r, 0, 1);
  ASSERT_NE(put, nullptr);
  ASSERT_NE(after, nullptr);
  // 1 MiB over a 2 TB/s port takes 0.52 us plus two 500 ns hops: the task
  // completes (CQE polled) after the transfer, and only then its consumer.
  EXPECT_GE(put->end_ps() - put->start_ps(), 1000000 + 524288);
  EXPECT_GE(after->start_ps(), put->end_ps());
}

TEST(UrmaTest, MoreWqesThanTheSqDepthBackPressureTheKernel) {
  // SQ and CQ depth 256: the CQ fills first (the scheduler polls only after
  // FIN), the engine stops fetching, the SQ fills, and the poster drains the
  // CQ itself to make room.
  RunReport r = UrmaPut("a5", 4096, 600);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
  const ResourceStat* q = UrmaQueue(r);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->transfers(), 600);
  EXPECT_EQ(q->max_occupancy(), 256);
}

TEST(UrmaTest, NoUrmaOnA2a3IsAnAsyncCompletionError) {
  RunReport r = UrmaPut("a2a3", 4096, 1);
  EXPECT_EQ(r.error_code(), rt::kErrorAsyncCompletionInvalid);
  EXPECT_NE(r.error_text().find("URMA is not present on platform a2a3"),
            std::string::npos)
      << r.error_text();
}

// Posts one WQE above the 256 MiB limit straight to the engine.
void OversizeKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[2]);
  if (ctx->rankId != 0) return;
  uint8_t* src = TensorArg(args, 0)->data<uint8_t>();
  uint8_t* dst = TensorArg(args, 1)->data<uint8_t>();
  defer_completion(CurrentCore()->UrmaPost(
      true, CommRemotePtr(ctx, dst, 1u), src, (256ull << 20) + 32));
}

TEST(UrmaTest, WqeAboveTheLimitCompletesWithAnErrorCqe) {
  constexpr uint64_t kBytes = (256ull << 20) + 32;
  RunReport r = Simulate(Opts(2, "a5"), [&](SimSystem& sys) -> absl::Status {
    auto d = sys.CreateDomain({"u", {0, 1}, kBytes, {{"dst", kBytes}}});
    if (!d.ok()) return d.status();
    std::vector<rt::ChipArgs> args;
    for (int rk = 0; rk < 2; ++rk) {
      auto src = sys.Alloc(rk, kBytes, "src");
      if (!src.ok()) return src.status();
      args.push_back({{*src, d->ranks[rk].buffers.at("dst")},
                      {d->ranks[rk].device_ctx.addr()}});
    }
    return sys.DispatchGroup(
        {0, 1}, testing::SingleTask("oversize", &OversizeKernel, 1, false), args);
  });
  EXPECT_EQ(r.error_code(), rt::kErrorAsyncCompletionInvalid);
  EXPECT_NE(r.error_text().find("WQE longer than the 256 MiB limit"),
            std::string::npos)
      << r.error_text();
}

}  // namespace
}  // namespace pto::sim
