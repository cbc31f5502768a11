// The InCore composite rail end to end: testing/codegen/incore_collectives.pto
// compiled by pto-compile (pto_program) and run on 2 simulated 910B chips. One
// kernel runs every collective LowerCompositeOps expands (allreduce mesh Sum
// and Min, ring allreduce, allgather, all_to_all, broadcast, reduce_scatter,
// barrier) on one shared signal; each result is checked against the golden of
// //testing/reference, and every signal cell must read 0 afterwards (the
// credit protocol is self-clearing).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/collectives.h"

namespace pto::sim {
namespace {

namespace ref = ::pto::reference;

// The constants of incore_collectives.pto.
constexpr int kNr = 2;
constexpr int kSize = 64;
constexpr int kBlocks = 7;
constexpr int kCells = kNr + 2 * (kNr - 1) * kNr;
constexpr int kIn = kNr * kSize;             // inp [NR, SIZE]
constexpr int kOut = kBlocks * kNr * kSize;  // out [BLOCKS * NR, SIZE]

// Device d's data (small integers: sums are exact in any order).
float InputOf(int device, int i) { return static_cast<float>((device * 37 + i * 11) % 29 - 14); }
float RowOf(int device, int i) { return static_cast<float>(100 * (device + 1) + i); }
constexpr float kOutputInit = -999.0f;
constexpr int32_t kCellInit = 12345;

// Host param p of device d, as allocated: [NR, ...] with `elems` per device.
struct Param {
  std::vector<uint64_t> shape;
  int elems;
  uint32_t elem_bytes;
};

struct Outcome {
  RunReport report;
  ref::PerRank<float> out;      // [rank][BLOCKS * NR * SIZE]
  ref::PerRank<int32_t> cells;  // [rank][CELLS]
};

Outcome RunProgram() {
  const Param params[] = {{{kNr, kNr, kSize}, kIn, 4},
                          {{kNr, 1, kSize}, kSize, 4},
                          {{kNr, kBlocks * kNr, kSize}, kOut, 4},
                          {{kNr, kCells}, kCells, 4}};
  std::vector<std::vector<rt::Tensor>> tensors(4);
  SimOptions o = testing::Opts(kNr);
  o.trace = false;
  Outcome out;
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        for (int d = 0; d < kNr; ++d) {
          for (int p = 0; p < 4; ++p) {
            const uint64_t bytes = uint64_t{kNr} * params[p].elems * params[p].elem_bytes;
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, absl::StrCat("param", p));
            if (!t.ok()) return t.status();
            t->elem_bytes = params[p].elem_bytes;
            tensors[p].push_back(
                params[p].shape.size() == 3
                    ? t->WithShape({params[p].shape[0], params[p].shape[1], params[p].shape[2]})
                    : t->WithShape({params[p].shape[0], params[p].shape[1]}));
            std::vector<char> init(bytes);
            for (int i = 0; i < kNr * params[p].elems; ++i) {
              const int local = i % params[p].elems;
              if (p == 3) {
                const int32_t v = kCellInit;
                std::memcpy(&init[i * 4], &v, 4);
                continue;
              }
              const float v = p == 0 ? InputOf(d, local) : p == 1 ? RowOf(d, local) : kOutputInit;
              std::memcpy(&init[i * 4], &v, 4);
            }
            if (absl::Status st = sys.CopyTo(tensors[p][d], init.data(), bytes); !st.ok()) {
              return st;
            }
          }
        }
        return generated::RunHost(sys, tensors);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int p : {2, 3}) {
          for (int d = 0; d < kNr; ++d) {
            std::string bytes(uint64_t{kNr} * params[p].elems * 4, '\0');
            if (sys.CopyFrom(bytes.data(), tensors[p][d], bytes.size()).ok()) {
              (*r.mutable_outputs())[absl::StrCat("param", p, "@", d)] = bytes;
            }
          }
        }
      });
  for (int d = 0; d < kNr; ++d) {
    // Device d uses slice d of its copy of each host param.
    auto slice = [&](int p, int elems, auto* dst) {
      auto it = out.report.outputs().find(absl::StrCat("param", p, "@", d));
      dst->resize(elems);
      if (it == out.report.outputs().end()) return;
      std::memcpy(dst->data(), it->second.data() + uint64_t{4} * d * elems, uint64_t{4} * elems);
    };
    out.out.emplace_back();
    out.cells.emplace_back();
    slice(2, kOut, &out.out.back());
    slice(3, kCells, &out.cells.back());
  }
  return out;
}

// Block b ([NR, SIZE]) of every rank's out.
ref::PerRank<float> Block(const ref::PerRank<float>& out, int b) {
  ref::PerRank<float> r;
  for (const std::vector<float>& o : out) {
    r.emplace_back(o.begin() + b * kIn, o.begin() + (b + 1) * kIn);
  }
  return r;
}

TEST(InCoreCollectivesSimTest, EveryCollectiveMatchesTheGolden) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  ref::PerRank<float> x(kNr, std::vector<float>(kIn));
  ref::PerRank<float> row(kNr, std::vector<float>(kSize));
  for (int r = 0; r < kNr; ++r) {
    for (int i = 0; i < kIn; ++i) x[r][i] = InputOf(r, i);
    for (int i = 0; i < kSize; ++i) row[r][i] = RowOf(r, i);
  }
  ref::PerRank<float> sum = x, mn = x, bc = x, rs = x;
  ASSERT_TRUE(ref::AllReduce(ref::ReduceOp::kSum, &sum).ok());
  ASSERT_TRUE(ref::AllReduce(ref::ReduceOp::kMin, &mn).ok());
  ASSERT_TRUE(ref::Broadcast(1, &bc).ok());
  ASSERT_TRUE(ref::ReduceScatterSum(&rs).ok());
  absl::StatusOr<ref::PerRank<float>> ag = ref::AllGather(row);
  absl::StatusOr<ref::PerRank<float>> a2a = ref::AllToAll(x);
  ASSERT_TRUE(ag.ok() && a2a.ok());
  const struct {
    const char* name;
    const ref::PerRank<float>& want;
  } blocks[kBlocks] = {{"allreduce mesh sum", sum}, {"allreduce mesh min", mn},
                       {"allreduce ring sum", sum}, {"allgather", *ag},
                       {"all_to_all", *a2a},        {"broadcast root 1", bc},
                       {"reduce_scatter sum", rs}};
  for (int b = 0; b < kBlocks; ++b) {
    const ref::PerRank<float> got = Block(run.out, b);
    for (int r = 0; r < kNr; ++r) {
      for (int i = 0; i < kIn; ++i) {
        ASSERT_EQ(got[r][i], blocks[b].want[r][i])
            << blocks[b].name << ": rank " << r << " element " << i;
      }
    }
  }
}

TEST(InCoreCollectivesSimTest, EverySignalCellIsZeroAfterwards) {
  const Outcome run = RunProgram();
  ASSERT_EQ(run.report.error_code(), 0) << run.report.error_text();
  for (int r = 0; r < kNr; ++r) {
    for (int c = 0; c < kCells; ++c) {
      EXPECT_EQ(run.cells[r][c], 0) << "rank " << r << " cell " << c;
    }
  }
}

}  // namespace
}  // namespace pto::sim
