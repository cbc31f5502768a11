// Whole-system tests of the sim backend with hand-written kernels: several
// chips, their links and schedulers together (all-to-all, put/get, barriers,
// dcci between tasks, deadlock reports, dispatch FIFOs). Each module alone is
// tested beside it on the module harness (sim/testing). Results and
// simulated time, never wall-clock time.
#include "sim/system/system.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"
#include "sim/system/test_kernels.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::AllToAllErrors;
using testing::NopKernel;
using testing::OnlyTask;
using testing::SetUpAllToAll;
using testing::Opts;
using testing::Simulate;
using testing::SingleTask;

RunReport AllToAll(SimOptions o, uint64_t chunk, int blocks) {
  std::optional<testing::AllToAllSetup> setup;
  return Simulate(
      o,
      [&](SimSystem& sys) {
        auto s = SetUpAllToAll(sys, chunk, blocks);
        if (!s.ok()) return s.status();
        setup = *s;
        return absl::OkStatus();
      },
      [&](SimSystem& sys, RunReport& r) {
        (*r.mutable_values())["errors"] = AllToAllErrors(sys, *setup);
      });
}

// ---------------------------------------------------------------- all-to-all

TEST(AllToAllTest, TwoChipsMoveEveryWord) {
  RunReport r = AllToAll(Opts(2), 4096, 4);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
}

TEST(AllToAllTest, FourChipsMoveEveryWord) {
  RunReport r = AllToAll(Opts(4), 64 * 1024, 16);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
}

TEST(AllToAllTest, EightChipsFullWidthMoveEveryWord) {
  RunReport r = AllToAll(Opts(8), 96 * 1024, 48);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
  for (const CoreStat& c : r.cores()) EXPECT_EQ(c.unfenced_notifies(), 0);
  // Every directed link carried exactly one chunk.
  ASSERT_EQ(r.links_size(), 56);
  for (const ResourceStat& l : r.links()) {
    EXPECT_EQ(l.bytes(), 96 * 1024) << l.name();
  }
}

TEST(AllToAllTest, A5SwitchFabricMovesEveryWord) {
  RunReport r = AllToAll(Opts(4, "a5"), 64 * 1024, 72);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
  // Each chip's uplink carries its three outgoing chunks.
  for (const ResourceStat& l : r.links()) {
    EXPECT_EQ(l.bytes(), 3 * 64 * 1024) << l.name();
  }
}

TEST(AllToAllTest, TwoRunsGiveIdenticalTraceAndStats) {
  RunReport a = AllToAll(Opts(4), 32 * 1024, 8);
  RunReport b = AllToAll(Opts(4), 32 * 1024, 8);
  ASSERT_EQ(a.error_code(), 0) << a.error_text();
  EXPECT_FALSE(a.trace_json().empty());
  EXPECT_TRUE(a.trace_json() == b.trace_json());
  EXPECT_EQ(StatsText(a), StatsText(b));
}

// ------------------------------------------------------------ put / get

// args: t0 = src, t1 = dst, t2 = got, t3 = sig; s0 = &CommContext, s1 = bytes.
// Rank r puts src into rank r+1's dst, signals it, waits for its own signal,
// then gets rank r+1's src into got.
void PutGetKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[4]);
  const uint64_t n = static_cast<uint64_t>(args[5]) / 4;
  const uint32_t next = (ctx->rankId + 1) % ctx->rankNum;
  uint32_t* src = TensorArg(args, 0)->data<uint32_t>();
  uint32_t* dst = TensorArg(args, 1)->data<uint32_t>();
  uint32_t* got = TensorArg(args, 2)->data<uint32_t>();
  int32_t* sig = TensorArg(args, 3)->data<int32_t>();
  Tile<uint32_t> stage = TASSIGN<uint32_t>(0, 1024);
  TPUT(GlobalTensor<uint32_t>{CommRemotePtr(ctx, dst, next), n},
       GlobalTensor<uint32_t>{src, n}, stage);
  pipe_barrier(PIPE_ALL);
  TNOTIFY(CommRemotePtr(ctx, sig, next), 1, NotifyOp::Set);
  TWAIT(sig, 1, WaitCmp::EQ);
  TGET(GlobalTensor<uint32_t>{got, n},
       GlobalTensor<uint32_t>{CommRemotePtr(ctx, src, next), n}, stage);
}

TEST(PutGetTest, RingPutAndGetOnFourChips) {
  constexpr uint64_t kBytes = 40000;  // not a multiple of the staging tile
  std::optional<rt::Domain> dom;
  RunReport r = Simulate(
      Opts(4),
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec{"pg", {0, 1, 2, 3}, 1 << 20,
                            {{"src", kBytes}, {"dst", kBytes},
                             {"got", kBytes}, {"sig", 64}}};
        auto d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        dom = *d;
        std::vector<rt::ChipArgs> args;
        for (int rk = 0; rk < 4; ++rk) {
          std::vector<uint32_t> w(kBytes / 4);
          for (size_t j = 0; j < w.size(); ++j) w[j] = rk * 1000003u + j;
          const auto& c = dom->ranks[rk];
          auto st = sys.CopyTo(c.buffers.at("src"), w.data(), kBytes);
          if (!st.ok()) return st;
          args.push_back(rt::ChipArgs{{c.buffers.at("src"), c.buffers.at("dst"),
                                       c.buffers.at("got"), c.buffers.at("sig")},
                                      {c.device_ctx.addr(), kBytes}});
        }
        return sys.DispatchGroup({0, 1, 2, 3},
                                 SingleTask("put_get", &PutGetKernel, 1, false),
                                 args);
      },
      [&](SimSystem& sys, RunReport& r) {
        int64_t errors = 0;
        for (int rk = 0; rk < 4; ++rk) {
          std::vector<uint32_t> dst(kBytes / 4), got(kBytes / 4);
          (void)sys.CopyFrom(dst.data(), dom->ranks[rk].buffers.at("dst"), kBytes);
          (void)sys.CopyFrom(got.data(), dom->ranks[rk].buffers.at("got"), kBytes);
          const uint32_t prev = (rk + 3) % 4, next = (rk + 1) % 4;
          for (size_t j = 0; j < dst.size(); ++j) {
            errors += dst[j] != prev * 1000003u + j;
            errors += got[j] != next * 1000003u + j;
          }
        }
        (*r.mutable_values())["errors"] = errors;
      });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("errors"), 0);
}

// ------------------------------------------------------------- barrier

// s0 = &CommContext, t0 = sig (64 words), t1 = out (8 words).
// Every rank adds 1 to every peer's counter, then waits for n - 1 arrivals.
void BarrierKernel(int64_t* args) {
  int32_t* sig = TensorArg(args, 0)->data<int32_t>();
  int32_t* out = TensorArg(args, 1)->data<int32_t>();
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[2]);
  const int n = static_cast<int>(ctx->rankNum);
  for (int p = 0; p < n; ++p) {
    if (p == static_cast<int>(ctx->rankId)) continue;
    TNOTIFY(CommRemotePtr(ctx, sig, p), 1, NotifyOp::AtomicAdd);
  }
  TWAIT(sig, n - 1, WaitCmp::GE);
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  t.data[0] = *static_cast<volatile int32_t*>(sig);
  TSTORE(GlobalTensor<int32_t>{out, 8}, t);
}

TEST(BarrierTest, NotifyWaitBarrierOnEightChips) {
  std::optional<rt::Domain> dom;
  RunReport r = Simulate(
      Opts(8),
      [&](SimSystem& sys) -> absl::Status {
        rt::DomainSpec spec{"bar", {0, 1, 2, 3, 4, 5, 6, 7}, 4096,
                            {{"sig", 256}, {"out", 32}}};
        auto d = sys.CreateDomain(spec);
        if (!d.ok()) return d.status();
        dom = *d;
        std::vector<rt::ChipArgs> args;
        for (const auto& c : dom->ranks) {
          args.push_back(rt::ChipArgs{{c.buffers.at("sig"), c.buffers.at("out")},
                                      {c.device_ctx.addr()}});
        }
        return sys.DispatchGroup({0, 1, 2, 3, 4, 5, 6, 7},
                                 SingleTask("barrier", &BarrierKernel, 1, false),
                                 args);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int rk = 0; rk < 8; ++rk) {
          int32_t v = 0;
          (void)sys.CopyFrom(&v, dom->ranks[rk].buffers.at("out"), 4);
          (*r.mutable_values())[absl::StrCat("count", rk)] = v;
        }
      });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  for (int rk = 0; rk < 8; ++rk) {
    EXPECT_EQ(r.values().at(absl::StrCat("count", rk)), 7) << rk;
  }
  // Group dispatch: every rank started its task at the same simulated time.
  for (int c = 1; c < 8; ++c) {
    EXPECT_EQ(OnlyTask(r, c).start_ps(), OnlyTask(r, 0).start_ps());
  }
}

// s0 = &CommContext, s1 = fence (0 none, 1 pipe_barrier, 2 set/wait_flag).
// t0 = src, t1 = dst, t2 = sig. Rank 0 puts 64 KiB to rank 1 and signals.
void FencedPutKernel(int64_t* args) {
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[3]);
  if (ctx->rankId != 0) return;
  uint8_t* src = TensorArg(args, 0)->data<uint8_t>();
  uint8_t* dst = TensorArg(args, 1)->data<uint8_t>();
  int32_t* sig = TensorArg(args, 2)->data<int32_t>();
  Tile<uint8_t> stage = TASSIGN<uint8_t>(0, 65536);
  TPUT(GlobalTensor<uint8_t>{CommRemotePtr(ctx, dst, 1u), 65536},
       GlobalTensor<uint8_t>{src, 65536}, stage);
  if (args[4] == 1) pipe_barrier(PIPE_ALL);
  if (args[4] == 2) {
    set_flag(PIPE_MTE3, PIPE_S, 0);
    wait_flag(PIPE_MTE3, PIPE_S, 0);
  }
  TNOTIFY(CommRemotePtr(ctx, sig, 1u), 1, NotifyOp::Set);
}

int64_t UnfencedNotifies(int fence) {
  RunReport r = Simulate(Opts(2), [&](SimSystem& sys) -> absl::Status {
    auto d = sys.CreateDomain({"f", {0, 1}, 1 << 20,
                               {{"src", 65536}, {"dst", 65536}, {"sig", 64}}});
    if (!d.ok()) return d.status();
    std::vector<rt::ChipArgs> args;
    for (const auto& c : d->ranks) {
      args.push_back({{c.buffers.at("src"), c.buffers.at("dst"), c.buffers.at("sig")},
                      {c.device_ctx.addr(), static_cast<uint64_t>(fence)}});
    }
    return sys.DispatchGroup({0, 1}, SingleTask("fenced", &FencedPutKernel, 1, false),
                             args);
  });
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  int64_t n = 0;
  for (const CoreStat& c : r.cores()) n += c.unfenced_notifies();
  return n;
}

TEST(OrderingTest, NotifyWithoutAFenceAfterAPutIsCounted) {
  EXPECT_EQ(UnfencedNotifies(0), 1);
  EXPECT_EQ(UnfencedNotifies(1), 0);
  EXPECT_EQ(UnfencedNotifies(2), 0);
}

// ---------------------------------------------------------------- dcci

// Block 1 overwrites data[0] by DMA and signals; block 0 had read data[0]
// through its data cache and reads it again after the signal, with dcci
// (s0 = 1) or without. t0 = data (64 B), t1 = sig, t2 = out.
void DcciKernel(int64_t* args) {
  int32_t* data = TensorArg(args, 0)->data<int32_t>();
  int32_t* sig = TensorArg(args, 1)->data<int32_t>();
  int32_t* out = TensorArg(args, 2)->data<int32_t>();
  const bool use_dcci = args[3] != 0;
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  if (get_block_idx(args) == 0) {
    t.data[0] = ReadGm(data);  // caches the line
    TNOTIFY(sig, 1, NotifyOp::AtomicAdd);
    TWAIT(sig, 2, WaitCmp::EQ);
    if (use_dcci) dcci(data, SINGLE_CACHE_LINE);
    t.data[1] = ReadGm(data);
    TSTORE(GlobalTensor<int32_t>{out, 8}, t);
  } else {
    TWAIT(sig, 1, WaitCmp::EQ);
    t.data[0] = 42;
    TSTORE(GlobalTensor<int32_t>{data, 8}, t);
    pipe_barrier(PIPE_ALL);
    TNOTIFY(sig, 1, NotifyOp::AtomicAdd);
  }
}

std::pair<int, int> DcciRun(bool use_dcci) {
  std::optional<rt::Tensor> out;
  RunReport r = Simulate(
      Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        auto data = sys.Alloc(0, 64, "data");
        auto sig = sys.Alloc(0, 64, "sig");
        auto o = sys.Alloc(0, 64, "out");
        if (!data.ok() || !sig.ok() || !o.ok()) return absl::InternalError("alloc");
        out = *o;
        int32_t seven = 7;
        auto st = sys.CopyTo(*data, &seven, 4);
        if (!st.ok()) return st;
        return sys.Dispatch(0, SingleTask("dcci", &DcciKernel, 2, true),
                            rt::ChipArgs{{*data, *sig, *o}, {use_dcci ? 1u : 0u}});
      },
      [&](SimSystem& sys, RunReport& r) {
        int32_t v[2] = {};
        (void)sys.CopyFrom(v, *out, 8);
        (*r.mutable_values())["first"] = v[0];
        (*r.mutable_values())["second"] = v[1];
      });
  EXPECT_EQ(r.error_code(), 0) << r.error_text();
  return {static_cast<int>(r.values().at("first")),
          static_cast<int>(r.values().at("second"))};
}

TEST(DcciTest, KernelWithoutDcciReadsStaleData) {
  EXPECT_EQ(DcciRun(false), std::make_pair(7, 7));
}

TEST(DcciTest, KernelWithDcciReadsFreshData) {
  EXPECT_EQ(DcciRun(true), std::make_pair(7, 42));
}

// ---------------------------------------------------------------- errors

// s0 = &CommContext, t0 = sig. Waits for a signal nobody sends.
void DeadlockKernel(int64_t* args) {
  TWAIT(TensorArg(args, 0)->data<int32_t>() + 3, 1, WaitCmp::GE);
}

TEST(DeadlockTest, ReportNamesEveryBlockedBlockAndWhatItWaitsFor) {
  RunReport r = Simulate(Opts(2), [&](SimSystem& sys) -> absl::Status {
    rt::DomainSpec spec{"dl", {0, 1}, 4096, {{"sig", 64}}};
    auto d = sys.CreateDomain(spec);
    if (!d.ok()) return d.status();
    std::vector<rt::ChipArgs> args;
    for (const auto& c : d->ranks) args.push_back({{c.buffers.at("sig")}, {}});
    return sys.DispatchGroup({0, 1}, SingleTask("stuck", &DeadlockKernel, 1, false),
                             args);
  });
  EXPECT_EQ(r.error_code(), rt::kErrorSchedulerTimeout);
  EXPECT_NE(r.error_text().find("deadlock"), std::string::npos) << r.error_text();
  std::string all;
  for (const std::string& b : r.blocked()) all += b + "\n";
  EXPECT_NE(all.find("chip 0 AIV24 kernel stuck task 0 block 0/1: TWAIT on "
                     "c0:window dl r0+0xc for value >= 1 (current 0)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("chip 1 AIV24 kernel stuck"), std::string::npos) << all;
  EXPECT_NE(all.find("chip 1 orchestrator: callable stuck waits for 1 of 1 tasks"),
            std::string::npos)
      << all;
}

void UbOverflowKernel(int64_t*) {
  Tile<float> t = TASSIGN<float>(0, 64 * 1024);  // 256 KiB > 192 KiB
  TEXPANDS(t, 1.0f);
}

TEST(ErrorTest, KernelFaultIsLatchedAndEndsTheRun) {
  RunReport r = Simulate(Opts(1), [&](SimSystem& sys) {
    return sys.Dispatch(0, SingleTask("ub_overflow", &UbOverflowKernel, 2, false),
                        rt::ChipArgs{});
  });
  EXPECT_EQ(r.error_code(), rt::kErrorAicoreFault);
  EXPECT_NE(r.error_text().find("kernel ub_overflow block 0/2: TASSIGN: ub "
                                "address out of bounds (262144 bytes, UB is "
                                "196608)"),
            std::string::npos)
      << r.error_text();
}

// The orchestrator's reported and thrown errors, log lines and argument
// count are the AICPU's (sim/aicpu/aicpu_test.cc); the runtime rules behind
// them, the domain layout included, runtime/core's tests. A core's faults,
// exceptions and op timeout are sim/aiv/aiv_core_test.cc's.

// One chip's scheduling of the runtime's dependences and of AIC / AIV tasks
// is sim/aicpu/aicpu_test.cc's; a core's vector ops, sim/aiv/aiv_core_test.cc's.

// ------------------------------------------------------ dispatch FIFO

// t0 = 1 MiB of floats: reads it `s0` times in 16 KiB tiles.
void StreamKernel(int64_t* args) {
  constexpr uint64_t kTile = 4096;  // floats
  const TensorDesc* src = TensorArg(args, 0);
  const uint64_t n = src->bytes / 4;
  Tile<float> t = TASSIGN<float>(0, kTile);
  for (uint64_t pass = 0; pass < static_cast<uint64_t>(args[1]); ++pass) {
    for (uint64_t off = 0; off < n; off += kTile) {
      TLOAD(t, GlobalTensor<float>{src->data<float>() + off, kTile});
    }
  }
  pipe_barrier(PIPE_ALL);
}

RunReport Stream(double factor) {
  SimOptions o = Opts(1);
  o.timing_only = true;
  o.tweak = [factor](platforms::Platform& p) {
    p.mutable_timeouts()->set_op_timeout_ns(20000);
    p.mutable_timeouts()->set_op_deadline_factor(factor);
  };
  return Simulate(o, [&](SimSystem& sys) -> absl::Status {
    auto buf = sys.Alloc(0, 1 << 20, "buf");
    if (!buf.ok()) return buf.status();
    return sys.Dispatch(0, SingleTask("stream", &StreamKernel, 1, false),
                        rt::ChipArgs{{*buf}, {8}});
  });
}

TEST(ErrorTest, TheDeadlineScalesWithTheWork) {
  // 8 MiB of TLOADs run far past the 20 us floor; the deadline adds 64 x
  // 1 MiB at 56 GB/s (1.2 ms), so the block finishes with no flag.
  RunReport big = Stream(64);
  ASSERT_EQ(big.error_code(), 0) << big.error_text();
  EXPECT_GT(big.tasks(0).end_ps() - big.tasks(0).start_ps(), 20000 * 1000);
  // The same block with a fixed 20 us budget (factor 0) is cut off.
  RunReport fixed = Stream(0);
  EXPECT_EQ(fixed.error_code(), rt::kErrorSchedulerTimeout);
  EXPECT_THAT(fixed.error_text(), HasSubstr("block ran past its deadline of 20000 ns"));
}


// t0 = a, t1 = b, t2 = out (float x 16384): out = a + b, one tile per block.
void VectorAddKernel(int64_t* args) {
  constexpr uint64_t kN = 4096;
  const uint64_t off = kN * get_block_idx(args);
  Tile<float> a = TASSIGN<float>(0, kN);
  Tile<float> b = TASSIGN<float>(kN * 4, kN);
  TLOAD(a, GlobalTensor<float>{TensorArg(args, 0)->data<float>() + off, kN});
  TLOAD(b, GlobalTensor<float>{TensorArg(args, 1)->data<float>() + off, kN});
  TADD(a, a, b);
  TMULS(a, a, 2.0f);
  TSTORE(GlobalTensor<float>{TensorArg(args, 2)->data<float>() + off, kN}, a);
}

RunReport VectorAdd(int dispatches) {
  std::optional<rt::Tensor> out;
  return Simulate(
      Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        auto a = sys.Alloc(0, 65536, "a");
        auto b = sys.Alloc(0, 65536, "b");
        auto o = sys.Alloc(0, 65536, "out");
        if (!a.ok() || !b.ok() || !o.ok()) return absl::InternalError("alloc");
        out = *o;
        std::vector<float> va(16384), vb(16384);
        for (int i = 0; i < 16384; ++i) {
          va[i] = i;
          vb[i] = 0.5f;
        }
        (void)sys.CopyTo(*a, va.data(), 65536);
        (void)sys.CopyTo(*b, vb.data(), 65536);
        rt::ChipCallable c;
        c.name = "vadd";
        c.kernels = {&VectorAddKernel};
        c.kernel_names = {"vadd"};
        c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& args) {
          rt::TaskArgs t;
          t.add_input(args.tensors[0]);
          t.add_input(args.tensors[1]);
          t.add_output(args.tensors[2]);
          t.launch_spec.set_core_num(4);
          o.submit_aiv_task(0, t);
        };
        for (int i = 0; i < dispatches; ++i) {
          auto st = sys.Dispatch(0, c, rt::ChipArgs{{*a, *b, *o}, {}});
          if (!st.ok()) return st;
        }
        return absl::OkStatus();
      },
      [&](SimSystem& sys, RunReport& r) {
        std::vector<float> v(16384);
        (void)sys.CopyFrom(v.data(), *out, 65536);
        int64_t errors = 0;
        for (int i = 0; i < 16384; ++i) errors += v[i] != 2 * (i + 0.5f);
        (*r.mutable_values())["errors"] = errors;
      });
}

TEST(DispatchTest, DeviceFifoRunsDispatchesInOrderWithTheHostRoundTrip) {
  RunReport r = VectorAdd(2);
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  ASSERT_EQ(r.tasks_size(), 2);
  const TaskStat& first = r.tasks(0);
  const TaskStat& second = r.tasks(1);
  EXPECT_EQ(first.run(), 0);
  EXPECT_EQ(second.run(), 1);
  // The second chip run starts after the first finished plus the L3 -> L2
  // dispatch round trip (51 us).
  EXPECT_GE(second.ready_ps() - first.end_ps(), 51000000);
  // Warm cores: the second task's head is the steady 0.4 us, not 2.3+ us.
  EXPECT_LT(second.start_ps() - second.ready_ps(),
            first.start_ps() - first.ready_ps());
}

// t0 = out (int32 x 8, runtime-allocated): out[i] = i * s0.
void IotaKernel(int64_t* args) {
  Tile<int32_t> t = TASSIGN<int32_t>(0, 8);
  for (int i = 0; i < 8; ++i) t.data[i] = i * static_cast<int32_t>(args[1]);
  TSTORE(GlobalTensor<int32_t>{TensorArg(args, 0)->data<int32_t>(), 8}, t);
}

TEST(OrchestrationTest, RuntimeAllocatedOutputIsReadBackByTheOrchestration) {
  std::optional<rt::Tensor> result;
  RunReport r = Simulate(
      Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        auto res = sys.Alloc(0, 8, "result");
        if (!res.ok()) return res.status();
        result = *res;
        rt::ChipCallable c;
        c.name = "iota";
        c.kernels = {&IotaKernel};
        c.kernel_names = {"iota"};
        c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
          rt::TaskArgs t;
          t.add_output(rt::TensorCreateInfo{32, 4});
          t.add_scalar(3);
          rt::TaskOutputs out = o.submit_aiv_task(0, t);
          // Reads wait for the producer in simulated time.
          const int32_t v = o.get_tensor_data<int32_t>(out.outputs[0], 5);
          o.set_tensor_data<int32_t>(a.tensors[0], 0, v);
          o.set_tensor_data<int32_t>(a.tensors[0], 1, o.available_aiv_count());
        };
        return sys.Dispatch(0, c, rt::ChipArgs{{*res}, {}});
      },
      [&](SimSystem& sys, RunReport& r) {
        int32_t v[2] = {};
        (void)sys.CopyFrom(v, *result, 8);
        (*r.mutable_values())["v"] = v[0];
        (*r.mutable_values())["aiv"] = v[1];
      });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  EXPECT_EQ(r.values().at("v"), 15);
  EXPECT_EQ(r.values().at("aiv"), 48);
}

// ------------------------------------------------------------- bad input

TEST(BadInputTest, ErrorsAreReportedNotCrashes) {
  RunReport r = RunIsolated([] {
    RunReport out;
    SimOptions nine = Opts(9);
    (*out.mutable_values())["nine_chips"] = SimSystem::Create(nine).ok();
    auto sys = SimSystem::Create(Opts(2));
    rt::DomainSpec too_big{"d", {0, 1}, 100, {{"a", 64}, {"b", 64}}};
    (*out.mutable_values())["domain_too_big"] = (*sys)->CreateDomain(too_big).ok();
    rt::DomainSpec dup{"d", {0, 0}, 4096, {}};
    (*out.mutable_values())["domain_dup"] = (*sys)->CreateDomain(dup).ok();
    (*out.mutable_values())["bad_device"] =
        (*sys)->Dispatch(5, SingleTask("nop", &NopKernel, 1, false), {}).ok();
    rt::ChipCallable no_entry;
    (*out.mutable_values())["no_entry"] = (*sys)->Dispatch(0, no_entry, {}).ok();
    return out;
  });
  ASSERT_EQ(r.error_code(), 0) << r.error_text();
  for (const auto& [k, v] : r.values()) EXPECT_EQ(v, 0) << k;
  EXPECT_EQ(r.values_size(), 5);
}

}  // namespace
}  // namespace pto::sim
