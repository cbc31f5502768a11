// The GM race detector end to end (SimOptions.race_detection, on in every
// test through testing::Opts): races between tasks with no TensorMap edge
// and between ranks with no signal are reported with both accesses; the
// same programs with the edge or the signal report none. A race fails the
// run unless SimOptions::races says warn.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device/device_api.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::Opts;
using testing::Simulate;

constexpr uint64_t kBytes = 1024;

// t0 = a 1 KiB buffer, s0 = value: fills it with the value.
void FillKernel(int64_t* args) {
  const TensorDesc* buf = TensorArg(args, 0);
  Tile<float> t = TASSIGN<float>(0, kBytes / 4);
  TEXPANDS(t, static_cast<float>(args[1]));
  TSTORE(GlobalTensor<float>{buf->data<float>(), kBytes / 4}, t);
}

// Opts whose races only warn: these tests read RunReport.races themselves.
SimOptions Warn(int chips) {
  SimOptions o = Opts(chips);
  o.races = SimOptions::RacePolicy::kWarn;
  return o;
}

// Two fill tasks on one buffer; `ordered` declares it InOut in both (a
// TensorMap WAW edge), otherwise NoDep (no edge: the bug).
RunReport TwoWriters(bool ordered, SimOptions o = Warn(1)) {
  return Simulate(o, [&](SimSystem& sys) -> absl::Status {
    auto buf = sys.Alloc(0, kBytes, "buf");
    if (!buf.ok()) return buf.status();
    rt::ChipCallable c;
    c.name = "two_writers";
    c.kernels = {&FillKernel};
    c.kernel_names = {"fill"};
    c.entry = [ordered](rt::Orchestrator& o, const rt::ChipArgs& a) {
      for (uint64_t v : {1, 2}) {
        rt::TaskArgs t;
        if (ordered) {
          t.add_inout(a.tensors[0]);
        } else {
          t.add_no_dep(a.tensors[0]);
        }
        t.add_scalar(v);
        o.submit_aiv_task(0, t);
      }
    };
    return sys.Dispatch(0, c, rt::ChipArgs{{*buf}, {}});
  });
}

TEST(RaceTest, TwoTasksWritingOneBufferWithoutAnEdgeRace) {
  RunReport r = TwoWriters(false);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ASSERT_EQ(r.races_size(), 1) << absl::StrJoin(r.races(), "\n");
  EXPECT_THAT(r.races(0), HasSubstr("race: write of 1024 bytes at c0:buf+0x0 by rank 0 AIV24 "
                                    "task 0 block 0 (kernel fill) at "));
  EXPECT_THAT(r.races(0), HasSubstr(" and write of 1024 bytes at c0:buf+0x0 by rank 0 AIV25 task "
                                    "1 block 0 (kernel fill) at "));
}

TEST(RaceTest, ARaceFailsTheRunByDefault) {
  RunReport r = TwoWriters(false, Opts(1));
  EXPECT_EQ(r.error_code(), kRaceErrorCode);
  EXPECT_THAT(r.error_text(), HasSubstr("1 GM race (unordered accesses, docs/simulator.md):\n"
                                        "  race: write of 1024 bytes at c0:buf+0x0 by rank 0"));
  EXPECT_EQ(r.races_size(), 1);
  // The ordered twin passes under the same default.
  EXPECT_EQ(TwoWriters(true, Opts(1)).error_code(), 0);
}

TEST(RaceTest, TheTensorMapEdgeOrdersThem) {
  RunReport r = TwoWriters(true);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.races_size(), 0) << absl::StrJoin(r.races(), "\n");
}

// t0 = this rank's "data" buffer, t1 = this rank's "sig"; s0 = &CommContext,
// s1 = 1 to wait for the signal before reading. Rank 0 puts its data into
// rank 1's, fences, and notifies rank 1; rank 1 reads its data.
void PutThenReadKernel(int64_t* args) {
  const TensorDesc* data = TensorArg(args, 0);
  int32_t* sig = TensorArg(args, 1)->data<int32_t>();
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[2]);
  const bool wait_first = args[3] != 0;
  Tile<uint8_t> t = TASSIGN<uint8_t>(0, kBytes);
  if (ctx->rankId == 0) {
    GlobalTensor<uint8_t> local{data->data<uint8_t>(), kBytes};
    GlobalTensor<uint8_t> remote{CommRemotePtr(ctx, data->data<uint8_t>(), 1), kBytes};
    TPUT(remote, local, t);
    pipe_barrier(PIPE_ALL);
    TNOTIFY(CommRemotePtr(ctx, sig, 1), 1, NotifyOp::Set);
    return;
  }
  if (wait_first) TWAIT(sig, 1, WaitCmp::EQ);
  TLOAD(t, GlobalTensor<uint8_t>{data->data<uint8_t>(), kBytes});
  if (!wait_first) TWAIT(sig, 1, WaitCmp::EQ);
}

RunReport PutThenRead(bool wait_first) {
  return Simulate(Warn(2), [&](SimSystem& sys) -> absl::Status {
    rt::DomainSpec spec{"ep", {0, 1}, 4096, {{"data", kBytes}, {"sig", 64}}};
    auto d = sys.CreateDomain(spec);
    if (!d.ok()) return d.status();
    std::vector<rt::ChipArgs> args;
    for (const auto& c : d->ranks) {
      args.push_back({{c.buffers.at("data"), c.buffers.at("sig")},
                      {c.device_ctx.addr(), wait_first ? 1u : 0u}});
    }
    return sys.DispatchGroup({0, 1}, testing::SingleTask("put_read", &PutThenReadKernel, 1, false),
                             args);
  });
}

TEST(RaceTest, AReadBeforeTheSignalRacesWithThePeersPut) {
  RunReport r = PutThenRead(false);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ASSERT_EQ(r.races_size(), 1) << absl::StrJoin(r.races(), "\n");
  EXPECT_THAT(r.races(0), HasSubstr("by rank 0 AIV24 task 0 block 0 (kernel put_read)"));
  EXPECT_THAT(r.races(0), HasSubstr("by rank 1 AIV24 task 0 block 0 (kernel put_read)"));
  EXPECT_THAT(r.races(0), HasSubstr("c1:window ep r1+0x0"));
}

TEST(RaceTest, WaitingForTheSignalOrdersTheRead) {
  RunReport r = PutThenRead(true);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.races_size(), 0) << absl::StrJoin(r.races(), "\n");
}

}  // namespace
}  // namespace pto::sim
