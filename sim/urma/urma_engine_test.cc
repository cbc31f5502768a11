// The URMA engine of one A5 chip (sim/urma/urma_engine.h) alone, on the
// module harness: the test posts WQEs and rings doorbells as a core would
// (UrmaPort) and polls CQEs as the scheduler would, against a stub memory
// system of two chips joined by one link each way. No SimSystem, no core.
#include "sim/urma/urma_engine.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "sim/common/sc_time.h"
#include "sim/common/time.h"
#include "sim/testing/module_harness.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::ModuleRun;
using testing::RunModule;
using testing::StubMemory;

const platforms::Platform& A5() {
  static const platforms::Platform p = *platforms::LoadPlatform("a5");
  return p;
}

uint64_t Handle(int peer, uint64_t head) {
  return (static_cast<uint64_t>(peer) << 32) | static_cast<uint32_t>(head);
}

// One WQE from chip 0 to chip 1 (a put, or a get when !write) of `len`
// bytes, between a buffer of each chip (or `remote_override`); runs until
// the engine is idle. Values: cqe_ps (when the CQE was written), poll
// (0 ready, 1 pending, 2 error), landed (1 if the destination holds the
// source's bytes), bytes and wqes of the queue; text: error.
ModuleRun OneWqe(bool write, uint64_t len, bool remote_on_self = false) {
  return RunModule([=](ModuleRun& r) {
    StubMemory mem(A5(), 2);
    const double gbps = A5().fabric().link_bandwidth_gbps();
    const Ps hop = NsToPs(A5().fabric().hop_latency_ns());
    mem.AddLink(0, 1, gbps, hop);
    mem.AddLink(1, 0, gbps, hop);
    UrmaEngine urma("urma", /*chip=*/0, /*chips=*/2, A5(), &mem);
    Ps cqe_ps = -1;
    urma.set_on_cqe([&] { cqe_ps = Stamp(); });
    const uint64_t n = std::min<uint64_t>(len, 1 << 20);
    const uint64_t local = *mem.GmOf(0).Alloc(n, "local");
    const uint64_t remote = *mem.GmOf(remote_on_self ? 0 : 1).Alloc(n, "remote");
    std::vector<uint8_t> bytes(n);
    for (uint64_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 5 + 3);
    std::memcpy(reinterpret_cast<void*>(write ? local : remote), bytes.data(), n);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // the engine waits for a doorbell
    EXPECT_FALSE(urma.SqFull(1));
    const uint64_t head = urma.PostWqe(1, write, remote, local, len);
    urma.RingDoorbell(1, head);
    sc_core::sc_start();
    std::string error;
    const UrmaEngine::Poll poll = urma.PollHandle(Handle(1, head), &error);
    r.values["cqe_ps"] = cqe_ps;
    r.values["poll"] = poll == UrmaEngine::Poll::kReady ? 0 : poll == UrmaEngine::Poll::kPending ? 1 : 2;
    r.texts["error"] = error;
    r.values["landed"] =
        std::memcmp(reinterpret_cast<const void*>(write ? remote : local), bytes.data(), n) == 0;
    RunReport report;
    urma.FillStats(&report);
    if (report.queues_size() == 1) {
      r.values["bytes"] = report.queues(0).bytes();
      r.texts["queue"] = report.queues(0).name();
    }
  });
}

// Engine fetch, then the bytes through both GM ports and the link (the
// slowest: GM at 1.6 TB/s), then the destination GM's latency and the hop.
Ps TransferDone(uint64_t len) {
  const Ps wqe = NsToPs(A5().urma().wqe_process_ns());
  const Ps gm = static_cast<Ps>(std::llround(len * 1000.0 / A5().gm().bandwidth_gbps()));
  return wqe + gm + NsToPs(A5().gm().latency_ns()) + NsToPs(A5().fabric().hop_latency_ns());
}

TEST(UrmaEngineTest, APutLandsInThePeersGmAndItsCqeCompletesTheHandle) {
  constexpr uint64_t kLen = 1 << 20;
  ModuleRun r = OneWqe(/*write=*/true, kLen);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("poll"), 0) << r.text("error");
  EXPECT_EQ(r.value("landed"), 1);
  EXPECT_EQ(r.value("cqe_ps"), TransferDone(kLen));
  EXPECT_EQ(r.value("bytes"), static_cast<int64_t>(kLen));
  EXPECT_EQ(r.text("queue"), "urma c0->c1");
}

TEST(UrmaEngineTest, AGetBringsThePeersBytesIntoTheLocalGm) {
  constexpr uint64_t kLen = 64 * 1024;
  ModuleRun r = OneWqe(/*write=*/false, kLen);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("poll"), 0) << r.text("error");
  EXPECT_EQ(r.value("landed"), 1);
  EXPECT_EQ(r.value("cqe_ps"), TransferDone(kLen));
}

TEST(UrmaEngineTest, AWqeAboveTheLimitCompletesWithAnErrorCqe) {
  ModuleRun r = OneWqe(/*write=*/true, A5().urma().max_wqe_bytes() + 1);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("poll"), 2);
  EXPECT_THAT(r.text("error"),
              HasSubstr("URMA CQE status 0x11 for WQE 0 to chip 1 (WQE longer than the 256 MiB "
                        "limit)"));
  EXPECT_EQ(r.value("landed"), 0);
}

TEST(UrmaEngineTest, ARemoteAddressOffTheQueuesPeerIsABadAddressCqe) {
  ModuleRun r = OneWqe(/*write=*/true, 4096, /*remote_on_self=*/true);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("poll"), 2);
  EXPECT_THAT(r.text("error"), HasSubstr("status 0x12 for WQE 0 to chip 1 (address outside the "
                                         "queue's GM)"));
}

// The SQ holds sq_depth WQEs: one more waits until the engine fetched one,
// which a doorbell starts.
TEST(UrmaEngineTest, TheSendQueueIsFullAtItsDepthUntilTheDoorbellIsRung) {
  ModuleRun r = RunModule([](ModuleRun& out) {
    StubMemory mem(A5(), 2);
    mem.AddLink(0, 1, A5().fabric().link_bandwidth_gbps(), 0);
    UrmaEngine urma("urma", 0, 2, A5(), &mem);
    const uint64_t local = *mem.GmOf(0).Alloc(64, "l");
    const uint64_t remote = *mem.GmOf(1).Alloc(64, "r");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    uint64_t head = 0;
    for (uint32_t i = 0; i < A5().urma().sq_depth(); ++i) {
      head = urma.PostWqe(1, true, remote, local, 64);
    }
    out.values["full_before"] = urma.SqFull(1);
    urma.RingDoorbell(1, head);
    sc_core::sc_start();
    out.values["full_after"] = urma.SqFull(1);
    std::string error;
    out.values["ready"] = urma.PollHandle(Handle(1, head), &error) == UrmaEngine::Poll::kReady;
  });
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("full_before"), 1);
  EXPECT_EQ(r.value("full_after"), 0);
  EXPECT_EQ(r.value("ready"), 1);
}

}  // namespace
}  // namespace pto::sim
