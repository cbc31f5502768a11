// A mixed (AIC + 2 AIV) kernel for //hw/pto_isa:pto_isa_vs_sim_test, built
// against the pto-isa overlay and against the simulator's kernel API. Per
// block: the AIC multiplies its 32 rows of a (FP16, 32 x 32) by b (32 x 16)
// in FP32 and pushes the top 16 rows to lane 0 and the bottom 16 to lane 1
// as FP16 (TPUSH converts as FIXPIPE's TSTORE does), twice through a
// two-slot pipe; each lane pops both, adds them, scales by 0.5 and stores
// its rows of c (FP16). Then each lane pushes its result back (V2C) and the
// AIC pops both halves into L1 and stores them to d: a round trip through
// both pipe directions.
#include <cstdint>

#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/kernel_abi.h"
#include "runtime/device/pipe_api.h"

namespace pto::kernels {
namespace {

constexpr uint32_t kRows = 32, kK = 32, kN = 16, kHalfRows = kRows / 2;
constexpr uint64_t kHalfElems = uint64_t{kHalfRows} * kN;

PipeSpec Down(int lane) { return PipeSpec{0, PipeDir::kC2V, 2, kHalfElems * sizeof(half), lane}; }
PipeSpec Up(int lane) { return PipeSpec{1, PipeDir::kV2C, 1, kHalfElems * sizeof(half), lane}; }

}  // namespace

// args: a, b, c, d (tensors).
void mix_cube(int64_t* args) {
  const TensorDesc* a = TensorArg(args, 0);
  const TensorDesc* b = TensorArg(args, 1);
  const TensorDesc* d = TensorArg(args, 3);
  const uint64_t r0 = static_cast<uint64_t>(get_block_idx(args)) * kRows;
  auto a_l1 = TASSIGN<MatTile<half>>(0, kRows, kK);
  auto b_l1 = TASSIGN<MatTile<half>>(32 * 1024, kK, kN);
  auto a_l0 = TASSIGN<LeftTile<half>>(0, kRows, kK);
  auto b_l0 = TASSIGN<RightTile<half>>(0, kK, kN);
  auto acc = TASSIGN<AccTile<float>>(0, kRows, kN);
  TLOAD(a_l1, GlobalTensor<half>{a->data<half>() + r0 * kK, uint64_t{kRows} * kK});
  TLOAD(b_l1, GlobalTensor<half>{b->data<half>(), uint64_t{kK} * kN});
  set_flag(PIPE_MTE2, PIPE_MTE1, 0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
  TMOV(a_l0, a_l1);
  TMOV(b_l0, b_l1);
  set_flag(PIPE_MTE1, PIPE_M, 0);
  wait_flag(PIPE_MTE1, PIPE_M, 0);
  TMATMUL(acc, a_l0, b_l0);
  set_flag(PIPE_M, PIPE_FIX, 0);
  wait_flag(PIPE_M, PIPE_FIX, 0);
  AccTile<float> top{acc.data, kHalfRows, kN};
  AccTile<float> bottom{acc.data + kHalfElems, kHalfRows, kN};
  for (int rep = 0; rep < 2; ++rep) {
    TPUSH<half>(Down(0), top);
    TPUSH<half>(Down(1), bottom);
  }
  for (int lane = 0; lane < 2; ++lane) {
    auto back = TASSIGN<MatTile<half>>(64 * 1024, kHalfRows, kN);
    TPOP(Up(lane), back);
    // L1 -> GM through L0A and the cube is not a path; the half goes out
    // as the product with an identity matrix.
    auto eye_l1 = TASSIGN<MatTile<half>>(96 * 1024, kN, kN);
    for (uint32_t i = 0; i < kN; ++i)
      for (uint32_t j = 0; j < kN; ++j) eye_l1.at(i, j) = half(i == j ? 1.0f : 0.0f);
    auto l = TASSIGN<LeftTile<half>>(32 * 1024, kHalfRows, kN);
    auto r = TASSIGN<RightTile<half>>(32 * 1024, kN, kN);
    auto o = TASSIGN<AccTile<float>>(64 * 1024, kHalfRows, kN);
    TMOV(l, back);
    TMOV(r, eye_l1);
    TMATMUL(o, l, r);
    const uint64_t row0 = r0 + static_cast<uint64_t>(lane) * kHalfRows;
    TSTORE(GlobalTensor<float>{d->data<float>() + row0 * kN, kHalfElems}, o);
  }
}

void mix_vec(int64_t* args) {
  const TensorDesc* c = TensorArg(args, 2);
  const int lane = get_subblockid(args);
  Tile<half> x = TASSIGN<half>(0, kHalfElems);
  Tile<half> y = TASSIGN<half>(kHalfElems * sizeof(half), kHalfElems);
  TPOP(Down(lane), x);
  TPOP(Down(lane), y);
  TADD(x, x, y);
  TMULS(x, x, half(0.5f));
  const uint64_t row0 =
      static_cast<uint64_t>(get_block_idx(args)) * kRows + static_cast<uint64_t>(lane) * kHalfRows;
  TSTORE(GlobalTensor<half>{c->data<half>() + row0 * kN, kHalfElems}, x);
  TPUSH(Up(lane), x);
}

}  // namespace pto::kernels
