// The AIV core (sim/aiv/aiv_core.h) alone: one core on chip 0 with the
// module harness's stub memory system (the GMs of chips 0 and 1 and one link
// each way) and a recording scheduler; no SimSystem. Each test runs one
// block and asserts its results and its simulated time.
#include "sim/aiv/aiv_core.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "platforms/platform.h"
#include "runtime/api/error_codes.h"
#include "runtime/device/device_api.h"
#include "sim/common/time.h"
#include "sim/testing/module_harness.h"
#include "sim/trace/report.pb.h"

namespace pto::sim {
namespace {

using ::testing::HasSubstr;
using testing::ModuleRun;
using testing::RecordingObserver;
using testing::RunModule;
using testing::StubMemory;

const platforms::Platform& A2a3() {
  static const platforms::Platform p = *platforms::LoadPlatform("a2a3");
  return p;
}

Ps Cycles(double c) { return static_cast<Ps>(std::llround(c * 1000.0 / A2a3().clock_ghz())); }
Ps GmLatency() { return NsToPs(A2a3().gm().latency_ns()); }
Ps Hop() { return NsToPs(A2a3().fabric().hop_latency_ns()); }

// Runs `kernel` as one block on AIV core 0 of chip 0, with the scalars
// `setup` returns (it allocates in the stub's GMs). Values: end_ps (when the
// scheduler saw the block done), blocks_done, errors, error_code, dcache
// hits and misses, vector_ps, mte2_bytes, mte3_bytes, value (the first 4
// bytes of the first allocation after the run), and what `check` records;
// text: error.
using Check = std::function<void(const std::vector<uint64_t>& scalars, ModuleRun&)>;

ModuleRun RunBlock(KernelEntry kernel,
                   const std::function<std::vector<uint64_t>(StubMemory&)>& setup,
                   const platforms::Platform& platform = A2a3(), const Check& check = nullptr) {
  return RunModule([&](ModuleRun& r) {
    StubMemory mem(platform, /*chips=*/2);
    const double gbps = A2a3().fabric().link_bandwidth_gbps();
    mem.AddLink(0, 1, gbps, Hop());
    mem.AddLink(1, 0, gbps, Hop());
    RecordingObserver obs;
    AivCore core("aiv", /*chip=*/0, /*core_id=*/0, /*is_aic=*/false, /*lane=*/0, platform, &mem,
                 &obs);
    const std::vector<uint64_t> scalars = setup(mem);
    BlockAssignment b;
    b.kernel = kernel;
    b.kernel_name = "k";
    b.task = 1;
    b.scalars = scalars;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // the core's thread waits for a block
    core.Start(std::move(b), /*start_at=*/0);
    sc_core::sc_start();
    r.values["blocks_done"] = static_cast<int64_t>(obs.done().size());
    if (!obs.done().empty()) r.values["end_ps"] = obs.done().back().time;
    r.values["errors"] = static_cast<int64_t>(obs.errors().size());
    if (!obs.errors().empty()) {
      r.values["error_code"] = obs.errors()[0].code;
      r.texts["error"] = obs.errors()[0].message;
    }
    r.values["timed_out"] = core.timed_out();
    CoreStat s;
    core.FillStats(&s);
    r.values["hits"] = s.dcache_hits();
    r.values["misses"] = s.dcache_misses();
    r.values["vector_ps"] = s.vector_busy_ps();
    r.values["mte2_bytes"] = s.mte2_bytes();
    r.values["mte3_bytes"] = s.mte3_bytes();
    if (check) check(scalars, r);
    if (!scalars.empty()) {
      r.values["value"] = *reinterpret_cast<const int32_t*>(scalars[0]);
    }
  });
}

// A 64-byte aligned word in chip `chip`'s GM, holding `v`.
std::function<std::vector<uint64_t>(StubMemory&)> WordOn(int chip, int32_t v = 0) {
  return [chip, v](StubMemory& mem) -> std::vector<uint64_t> {
    const uint64_t a = *mem.GmOf(chip).Alloc(256, "word");
    *reinterpret_cast<int32_t*>(a) = v;
    return {a};
  };
}

void ReadOnce(int64_t* args) { (void)ReadGm(reinterpret_cast<const int32_t*>(args[0])); }
void ReadTwice(int64_t* args) {
  const int32_t* p = reinterpret_cast<const int32_t*>(args[0]);
  (void)ReadGm(p);
  (void)ReadGm(p + 1);  // the same line
}
void WriteOnce(int64_t* args) { WriteGm(reinterpret_cast<int32_t*>(args[0]), 7); }
void WriteThenFlush(int64_t* args) {
  int32_t* p = reinterpret_cast<int32_t*>(args[0]);
  WriteGm(p, 7);
  dcci(p, SINGLE_CACHE_LINE);
}
void ReadMisaligned(int64_t* args) {
  (void)ReadGm(reinterpret_cast<const int32_t*>(args[0] + 2));
}
void ReadOutsideGm(int64_t*) {
  static int32_t host_word = 0;
  (void)ReadGm(&host_word);
}
void LoadTile(int64_t* args) {
  Tile<uint8_t> t = TASSIGN<uint8_t>(0, 64 * 1024);
  TLOAD(t, GlobalTensor<uint8_t>{reinterpret_cast<uint8_t*>(args[0]), t.count});
}
void NoOp(int64_t*) {}

std::function<std::vector<uint64_t>(StubMemory&)> BufferOn(int chip, uint64_t bytes) {
  return [chip, bytes](StubMemory& mem) -> std::vector<uint64_t> {
    return {*mem.GmOf(chip).Alloc(bytes, "buf")};
  };
}

TEST(AivCoreTest, AnEmptyBlockIsDoneAtItsStart) {
  ModuleRun r = RunBlock(&NoOp, [](StubMemory&) { return std::vector<uint64_t>{}; });
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("blocks_done"), 1);
  EXPECT_EQ(r.value("errors"), 0);
  EXPECT_EQ(r.value("end_ps"), 0);
}

TEST(AivCoreTest, ALocalScalarReadMissPaysTheGmLatencyAndAHitOnlyTheCache) {
  ModuleRun once = RunBlock(&ReadOnce, WordOn(0));
  ModuleRun twice = RunBlock(&ReadTwice, WordOn(0));
  ASSERT_EQ(once.failure, "");
  ASSERT_EQ(twice.failure, "");
  const Ps hit = Cycles(A2a3().dcache_hit_cycles());
  EXPECT_EQ(once.value("end_ps"), hit + GmLatency());
  EXPECT_EQ(twice.value("end_ps"), 2 * hit + GmLatency());
  EXPECT_EQ(twice.value("hits"), 1);
  EXPECT_EQ(twice.value("misses"), 1);
}

// A miss fills the whole line from the GM that owns it (simpler
// docs/hardware/cache-coherency.md: a write-back emits the entire line,
// bytes the core never wrote included, so a store miss fetched the line
// first); a remote owner's line crosses the route's links, for a load and a
// store alike.
TEST(AivCoreTest, ARemoteScalarReadMissPaysTheHopLatency) {
  ModuleRun local = RunBlock(&ReadOnce, WordOn(0));
  ModuleRun remote = RunBlock(&ReadOnce, WordOn(1));
  ASSERT_EQ(remote.failure, "");
  EXPECT_EQ(remote.value("errors"), 0) << remote.text("error");
  EXPECT_EQ(remote.value("end_ps") - local.value("end_ps"), Hop());
}

TEST(AivCoreTest, ARemoteScalarWriteMissPaysTheHopLatencyAsAReadDoes) {
  ModuleRun local = RunBlock(&WriteOnce, WordOn(0));
  ModuleRun remote = RunBlock(&WriteOnce, WordOn(1));
  ASSERT_EQ(remote.failure, "");
  EXPECT_EQ(remote.value("errors"), 0) << remote.text("error");
  EXPECT_EQ(local.value("end_ps"), Cycles(A2a3().dcache_hit_cycles()) + GmLatency());
  EXPECT_EQ(remote.value("end_ps") - local.value("end_ps"), Hop());
}

TEST(AivCoreTest, AScalarWriteStaysInTheCacheUntilDcci) {
  ModuleRun cached = RunBlock(&WriteOnce, WordOn(0, /*v=*/1));
  ModuleRun flushed = RunBlock(&WriteThenFlush, WordOn(0, /*v=*/1));
  ASSERT_EQ(cached.failure, "");
  ASSERT_EQ(flushed.failure, "");
  EXPECT_EQ(cached.value("value"), 1);  // GM still holds the old word
  EXPECT_EQ(flushed.value("value"), 7);
}

TEST(AivCoreTest, AMisalignedScalarReadIsAnAicoreFault) {
  ModuleRun r = RunBlock(&ReadMisaligned, WordOn(0));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("errors"), 1);
  EXPECT_EQ(r.value("error_code"), rt::kErrorAicoreFault);
  EXPECT_THAT(r.text("error"),
              HasSubstr("chip 0 AIV0 kernel k block 0/1: scalar GM read is not naturally aligned"));
  EXPECT_EQ(r.value("blocks_done"), 1);  // the scheduler still sees the block end
}

TEST(AivCoreTest, AScalarReadOutsideEveryGmAllocationIsAnAicoreFault) {
  ModuleRun r = RunBlock(&ReadOutsideGm, WordOn(0));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorAicoreFault);
  EXPECT_THAT(r.text("error"),
              HasSubstr("scalar GM read: 4 bytes at an address outside every GM allocation"));
}

// One 64 KiB TLOAD holds the MTE2 pipe for its DMA cost and its bytes
// (local GM's round trip is inside the DMA cost); from the peer's GM it is
// bound by the 56 GB/s link and pays its hop.
TEST(AivCoreTest, ATileLoadIsBoundByTheMtePipeLocallyAndByTheLinkRemotely) {
  constexpr uint64_t kBytes = 64 * 1024;
  ModuleRun local = RunBlock(&LoadTile, BufferOn(0, kBytes));
  ModuleRun remote = RunBlock(&LoadTile, BufferOn(1, kBytes));
  ASSERT_EQ(local.failure, "");
  ASSERT_EQ(remote.failure, "");
  EXPECT_EQ(local.value("errors"), 0) << local.text("error");
  EXPECT_EQ(remote.value("errors"), 0) << remote.text("error");
  EXPECT_NEAR(local.value("end_ps"),
              Cycles(A2a3().mte_dma_cycles() + kBytes / A2a3().mte_bytes_per_cycle()), 1000);
  const double link_gbps = A2a3().fabric().link_bandwidth_gbps();
  EXPECT_NEAR(remote.value("end_ps"), kBytes * 1000 / link_gbps + Hop(), 1000);
}

// s0 = src: 4 slabs of 8 rows x 60 floats, GM rows 64 apart; the tile
// takes them as 32 rows x 60 floats in rows of 64.
void LoadBox(int64_t* args) {
  Tile<float> t = TASSIGN<float>(0, 32 * 64);
  TLOAD(t, GlobalTensor<float>{reinterpret_cast<float*>(args[0]), 32 * 64},
        GmBox{4, 8, 60, 64, 8 * 64, 64});
  TSTORE(GlobalTensor<float>{reinterpret_cast<float*>(args[1]), t.count}, t);
}

// An N-D GM view is one DMA per slab, each with its DMA cost; every row
// moves whole bursts (240 B -> 256 B) and lands at its row of the tile.
TEST(AivCoreTest, AnNdGmViewLoadsOneDmaPerSlabIntoTheTileRows) {
  constexpr int kN = 32 * 64;
  ModuleRun r = RunBlock(
      &LoadBox,
      [](StubMemory& mem) -> std::vector<uint64_t> {
        const uint64_t src = *mem.GmOf(0).Alloc(kN * 4, "src");
        const uint64_t out = *mem.GmOf(0).Alloc(kN * 4, "out");
        for (int i = 0; i < kN; ++i) reinterpret_cast<float*>(src)[i] = static_cast<float>(i);
        std::memset(reinterpret_cast<void*>(out), 0, kN * 4);
        return {src, out};
      },
      A2a3(),
      [](const std::vector<uint64_t>& bufs, ModuleRun& out) {
        const float* o = reinterpret_cast<const float*>(bufs[1]);
        int64_t wrong = 0;
        for (int row = 0; row < 32; ++row) {
          for (int c = 0; c < 60; ++c) wrong += o[row * 64 + c] != static_cast<float>(row * 64 + c);
        }
        out.values["wrong"] = wrong;
      });
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("errors"), 0) << r.text("error");
  EXPECT_EQ(r.value("wrong"), 0);
  EXPECT_EQ(r.value("mte2_bytes"), 4 * 8 * 256);
}

// s0 = a (a 256 x 16 float tile): one add over the whole tile, then over
// its 256 x 16 box; rows of 64 B cost a repeat each.
void NarrowRows(int64_t* args) {
  Tile<float> a = TASSIGN<float>(0, 4096);
  TADDS(a, a, 1.0f);
  TADDS(a, a, 1.0f, Dims2{256, 16, 256, 16});
  TSTORE(GlobalTensor<float>{reinterpret_cast<float*>(args[0]), a.count}, a);
}

TEST(AivCoreTest, RowsNarrowerThanARepeatCostARepeatEach) {
  ModuleRun r = RunBlock(&NarrowRows, BufferOn(0, 4096 * 4));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("errors"), 0) << r.text("error");
  const auto& v = A2a3().vector_cost();
  const double flat = v.scalar_startup_cycles() + v.unary_cycles_per_repeat() * 64;
  const double rows = v.scalar_startup_cycles() + v.unary_cycles_per_repeat() * 256;
  EXPECT_NEAR(r.value("vector_ps"), Cycles(flat) + Cycles(rows), 2);
}


void UbOverflow(int64_t*) {
  Tile<float> t = TASSIGN<float>(0, 64 * 1024);  // 256 KiB > 192 KiB of UB
  TEXPANDS(t, 1.0f);
}
void Throws(int64_t*) { throw std::runtime_error("boom"); }
void Spin(int64_t* args) {
  const int32_t* flag = reinterpret_cast<const int32_t*>(args[0]);
  while (ReadGm(flag) == 0) {
  }
}

TEST(AivCoreTest, ATileOutsideTheUbIsAnAicoreFault) {
  ModuleRun r = RunBlock(&UbOverflow, WordOn(0));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorAicoreFault);
  EXPECT_THAT(r.text("error"), HasSubstr("kernel k block 0/1: TASSIGN: ub address out of bounds "
                                         "(262144 bytes, UB is 196608)"));
}

TEST(AivCoreTest, AKernelsCppExceptionIsAFaultNotACrash) {
  ModuleRun r = RunBlock(&Throws, WordOn(0));
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorAicoreFault);
  EXPECT_THAT(r.text("error"), HasSubstr("the kernel threw a C++ exception"));
  EXPECT_EQ(r.value("blocks_done"), 1);
}

// A block spinning on a flag nobody sets ends at its deadline in simulated
// time (the floor: the harness passes no tensor bytes) (a latched timeout, not a hang of the test).
TEST(AivCoreTest, ASpinningBlockEndsAtTheSimulatedOpTimeout) {
  platforms::Platform p = A2a3();
  p.mutable_timeouts()->set_op_timeout_ns(20000);
  ModuleRun r = RunBlock(&Spin, WordOn(0), p);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("error_code"), rt::kErrorSchedulerTimeout);
  EXPECT_THAT(r.text("error"), HasSubstr("block ran past its deadline of 20000 ns of simulated time (floor 20000 ns"));
  EXPECT_EQ(r.value("timed_out"), 1);
  EXPECT_GE(r.value("end_ps"), NsToPs(20000));
  EXPECT_LT(r.value("end_ps"), NsToPs(21000));
}


// s0 = a, s1 = b, s2 = out (float x 4096): out = (a + b) * 2.
void VectorAdd(int64_t* args) {
  constexpr uint64_t kN = 4096;
  Tile<float> a = TASSIGN<float>(0, kN);
  Tile<float> b = TASSIGN<float>(kN * 4, kN);
  TLOAD(a, GlobalTensor<float>{reinterpret_cast<float*>(args[0]), kN});
  TLOAD(b, GlobalTensor<float>{reinterpret_cast<float*>(args[1]), kN});
  TADD(a, a, b);
  TMULS(a, a, 2.0f);
  TSTORE(GlobalTensor<float>{reinterpret_cast<float*>(args[2]), kN}, a);
}

TEST(AivCoreTest, VectorOpsComputeOnTheTilesAndCostPerRepeat) {
  constexpr int kN = 4096;
  ModuleRun r = RunBlock(
      &VectorAdd,
      [](StubMemory& mem) -> std::vector<uint64_t> {
        std::vector<uint64_t> bufs;
        for (const char* name : {"a", "b", "out"}) bufs.push_back(*mem.GmOf(0).Alloc(kN * 4, name));
        for (int i = 0; i < kN; ++i) {
          reinterpret_cast<float*>(bufs[0])[i] = static_cast<float>(i);
          reinterpret_cast<float*>(bufs[1])[i] = 0.5f;
        }
        return bufs;
      },
      A2a3(),
      [](const std::vector<uint64_t>& bufs, ModuleRun& out) {
        const float* o = reinterpret_cast<const float*>(bufs[2]);
        int64_t errors = 0;
        for (int i = 0; i < kN; ++i) errors += o[i] != 2 * (i + 0.5f);
        out.values["wrong"] = errors;
      });
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.value("errors"), 0) << r.text("error");
  EXPECT_EQ(r.value("wrong"), 0);
  // Two 16 KiB ops of 64 repeats: an add, then a multiply by a scalar.
  const auto& v = A2a3().vector_cost();
  const double add = A2a3().vector_startup_cycles() + v.binary_cycles_per_repeat() * 64;
  const double muls = v.scalar_startup_cycles() + v.unary_cycles_per_repeat() * 64;
  EXPECT_NEAR(r.value("vector_ps"), Cycles(add) + Cycles(muls), 2);
  EXPECT_EQ(r.value("mte2_bytes"), 2 * 16384);
  EXPECT_EQ(r.value("mte3_bytes"), 16384);
}

}  // namespace
}  // namespace pto::sim
