// One generated vector kernel (scaled_add of vector_kernel.pto, FP16), one
// builtin (all_to_all_v, fp32, 2 ranks), the generated AIC kernels of
// cube_kernel.pto (FP16 with TMATMUL_ACC, FP32 with a bias, INT8) and a
// mixed AIC + 2 AIV kernel through TPUSH / TPOP (mix_kernel.cc) run on
// fixed inputs; built twice,
// against the pto-isa device layer and against the simulator's kernel API
// (BUILD.bazel). Each binary checks its results against the definition and
// prints them, so pto_isa_vs_sim_test can also require the two to be
// identical byte for byte. Exit status 1 on a fault or a wrong result.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hw/pto_isa/testing/concurrent_blocks.h"
#include "runtime/device/comm_context.h"
#include "runtime/device/kernel_abi.h"

namespace pto::kernels {
void scaled_add(int64_t* args);
}  // namespace pto::kernels
namespace pto::kernels {
void mm_acc_f16(int64_t* args);
void mm_bias_f32(int64_t* args);
void mm_int8(int64_t* args);
void mm_btrans_f16(int64_t* args);
void mix_cube(int64_t* args);
void mix_vec(int64_t* args);
}  // namespace pto::kernels
namespace pto::builtins::all_to_all_v_float {
void AllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::all_to_all_v_float

namespace pto::hw::testing {
namespace {

using Fp16 = _Float16;

int failures = 0;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "MISMATCH (%s): %s\n", BackendName(), what.c_str());
    ++failures;
  }
}

template <typename T>
TensorDesc Desc(T* data, std::vector<uint64_t> shape) {
  TensorDesc t{};
  t.addr = reinterpret_cast<uint64_t>(data);
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  t.bytes = n * sizeof(T);
  t.elem_bytes = sizeof(T);
  t.ndims = static_cast<uint32_t>(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) t.shape[k] = shape[k];
  return t;
}

void Print(const char* name, const void* data, size_t bytes) {
  std::printf("%s", name);
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) std::printf("%s%02x", i % 32 == 0 ? "\n  " : "", p[i]);
  std::printf("\n");
}

// out = (a + b) * 0.5 on rows 0..3, relu of it on rows 4..7 (vector_kernel.pto).
void ScaledAdd() {
  constexpr int kRows = 8, kCols = 256;
  std::vector<Fp16> a(kRows * kCols), b(kRows * kCols), out(kRows * kCols, Fp16(7));
  for (int i = 0; i < kRows * kCols; ++i) {
    a[i] = static_cast<Fp16>((i % 7) * 0.25f);
    b[i] = static_cast<Fp16>((i % 5) * 0.5f - 1.5f);
  }
  TensorDesc da = Desc(a.data(), {kRows, kCols}), db = Desc(b.data(), {kRows, kCols}),
             dout = Desc(out.data(), {kRows, kCols});
  BlockLaunch l;
  l.kernel = pto::kernels::scaled_add;
  l.slots[0] = reinterpret_cast<int64_t>(&da);
  l.slots[1] = reinterpret_cast<int64_t>(&db);
  l.slots[2] = reinterpret_cast<int64_t>(&dout);
  const std::string fault = RunConcurrently({l});
  Check(fault.empty(), "scaled_add faulted: " + fault);
  for (int i = 0; i < kRows * kCols; ++i) {
    Fp16 want = static_cast<Fp16>(static_cast<Fp16>(a[i] + b[i]) * Fp16(0.5f));
    if (i / kCols >= kRows / 2 && want < Fp16(0)) want = Fp16(0);
    if (out[i] != want) {
      Check(false, "scaled_add element " + std::to_string(i) + ": " +
                       std::to_string(static_cast<float>(out[i])) +
                       " != " + std::to_string(static_cast<float>(want)));
      break;
    }
  }
  Print("scaled_add.out", out.data(), out.size() * sizeof(Fp16));
}

// all_to_all_v on 2 ranks, one block each: rank s sends rows(s, d) rows of
// its slot d to rank d, which lands them in its slot s of target.
void AllToAllV() {
  constexpr int kRanks = 2, kMaxRecv = 4, kRow = 64;
  constexpr uint64_t kSlot = kMaxRecv * kRow;
  auto rows = [](int s, int d) { return 1 + (s + 2 * d) % kMaxRecv; };
  // Each rank's window: target, then signal, then send_counts, each at a
  // 32-byte boundary, at the same offsets on every rank.
  constexpr uint64_t kTargetBytes = kRanks * kSlot * sizeof(float);
  constexpr uint64_t kSignalOff = kTargetBytes, kCountsOff = kTargetBytes + 32;
  struct alignas(64) Window {
    uint8_t bytes[kCountsOff + 32];
  };
  std::vector<Window> windows(kRanks);
  std::memset(windows.data(), 0, sizeof(Window) * kRanks);
  std::vector<std::vector<float>> input(kRanks, std::vector<float>(kRanks * kSlot));
  std::vector<std::vector<int32_t>> recv(kRanks, std::vector<int32_t>(kRanks, -1));
  std::vector<CommContext> ctx(kRanks);
  std::vector<TensorDesc> descs;
  descs.reserve(kRanks * 5);
  std::vector<BlockLaunch> launches;
  for (int r = 0; r < kRanks; ++r) {
    for (uint64_t i = 0; i < input[r].size(); ++i) input[r][i] = 1000.0f * r + i;
    int32_t* counts = reinterpret_cast<int32_t*>(windows[r].bytes + kCountsOff);
    for (int d = 0; d < kRanks; ++d) counts[d] = rows(r, d);
    ctx[r] = CommContext{};
    ctx[r].rankId = r;
    ctx[r].rankNum = kRanks;
    ctx[r].winSize = sizeof(Window);
    for (int pe = 0; pe < kRanks; ++pe) {
      ctx[r].windowsIn[pe] = ctx[r].windowsOut[pe] = reinterpret_cast<uint64_t>(windows[pe].bytes);
    }
    float* target = reinterpret_cast<float*>(windows[r].bytes);
    int32_t* signal = reinterpret_cast<int32_t*>(windows[r].bytes + kSignalOff);
    BlockLaunch l;
    l.kernel = pto::builtins::all_to_all_v_float::AllToAllVKernel;
    const size_t first = descs.size();
    descs.push_back(Desc(input[r].data(), {kRanks * kMaxRecv, kRow}));
    descs.push_back(Desc(target, {kRanks * kMaxRecv, kRow}));
    descs.push_back(Desc(signal, {kRanks}));
    descs.push_back(Desc(counts, {kRanks}));
    descs.push_back(Desc(recv[r].data(), {kRanks}));
    for (int k = 0; k < 5; ++k) l.slots[k] = reinterpret_cast<int64_t>(&descs[first + k]);
    l.slots[5] = reinterpret_cast<int64_t>(&ctx[r]);
    launches.push_back(l);
  }
  const std::string fault = RunConcurrently(launches);
  Check(fault.empty(), "all_to_all_v faulted: " + fault);
  for (int d = 0; d < kRanks; ++d) {
    const float* target = reinterpret_cast<const float*>(windows[d].bytes);
    const int32_t* signal = reinterpret_cast<const int32_t*>(windows[d].bytes + kSignalOff);
    for (int s = 0; s < kRanks; ++s) {
      Check(recv[d][s] == rows(s, d), "recv_counts[" + std::to_string(d) + "][" +
                                          std::to_string(s) + "] = " + std::to_string(recv[d][s]));
      Check(signal[s] == 0, "signal not zero again on rank " + std::to_string(d));
      for (uint64_t i = 0; i < kSlot; ++i) {
        const float want =
            i < static_cast<uint64_t>(rows(s, d)) * kRow ? input[s][d * kSlot + i] : 0;
        if (target[s * kSlot + i] != want) {
          Check(false, "rank " + std::to_string(d) + " slot " + std::to_string(s) + " element " +
                           std::to_string(i));
          break;
        }
      }
    }
    Print(("all_to_all_v.rank" + std::to_string(d) + ".target").c_str(), target, kTargetBytes);
    Print(("all_to_all_v.rank" + std::to_string(d) + ".recv_counts").c_str(), recv[d].data(),
          kRanks * sizeof(int32_t));
  }
}

// One AIC block of `kernel` over `descs` (its tensor args).
std::string RunAic(KernelEntry kernel, std::vector<TensorDesc>& descs) {
  BlockLaunch l;
  l.kernel = kernel;
  l.core = BlockCore::kAic;
  for (size_t k = 0; k < descs.size(); ++k) l.slots[k] = reinterpret_cast<int64_t>(&descs[k]);
  return RunConcurrently({l});
}

template <typename T>
std::vector<T> Pattern(size_t n, float scale, int mod, float offset) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(scale * static_cast<float>(i % mod) - offset);
  return v;
}

// sum_{p in [p0, p1)} a[i][p] * b[p][j] by FP32 fused multiply-adds from 0,
// in p order (cube_api.h's TMATMUL).
template <typename T>
float Dot(const std::vector<T>& a, const std::vector<T>& b, int k, int n, int i, int j, int p0,
          int p1) {
  float s = 0;
  for (int p = p0; p < p1; ++p) {
    s = std::fma(static_cast<float>(a[i * k + p]), static_cast<float>(b[p * n + j]), s);
  }
  return s;
}

// The generated AIC kernels of cube_kernel.pto, one block each.
void CubeKernels() {
  {  // c = A.B over the first half of k, then + (the second half's A.B)
    constexpr int m = 48, k = 64, n = 32;
    std::vector<Fp16> a = Pattern<Fp16>(m * k, 0.125f, 11, 0.5f), b = Pattern<Fp16>(k * n, 0.25f, 7, 0.75f);
    std::vector<float> c(m * n, -7.0f);
    std::vector<TensorDesc> d = {Desc(a.data(), {m, k}), Desc(b.data(), {k, n}), Desc(c.data(), {m, n})};
    const std::string fault = RunAic(pto::kernels::mm_acc_f16, d);
    Check(fault.empty(), "mm_acc_f16 faulted: " + fault);
    for (int i = 0; i < m * n; ++i) {
      const float want = Dot(a, b, k, n, i / n, i % n, 0, 32) + Dot(a, b, k, n, i / n, i % n, 32, 64);
      if (c[i] != want) {
        Check(false, "mm_acc_f16 element " + std::to_string(i) + ": " + std::to_string(c[i]) +
                         " != " + std::to_string(want));
        break;
      }
    }
    Print("mm_acc_f16.c", c.data(), c.size() * sizeof(float));
  }
  {  // c = bias + A.B in FP32
    constexpr int m = 16, k = 8, n = 16;
    std::vector<float> a = Pattern<float>(m * k, 0.3f, 7, 1.0f), b = Pattern<float>(k * n, 0.7f, 13, 2.0f);
    std::vector<float> bias = Pattern<float>(n, 3.1f, 16, 20.0f), c(m * n, -7.0f);
    std::vector<TensorDesc> d = {Desc(a.data(), {m, k}), Desc(b.data(), {k, n}),
                                 Desc(bias.data(), {1, n}), Desc(c.data(), {m, n})};
    const std::string fault = RunAic(pto::kernels::mm_bias_f32, d);
    Check(fault.empty(), "mm_bias_f32 faulted: " + fault);
    for (int i = 0; i < m * n; ++i) {
      const float want = bias[i % n] + Dot(a, b, k, n, i / n, i % n, 0, k);
      if (c[i] != want) {
        Check(false, "mm_bias_f32 element " + std::to_string(i) + ": " + std::to_string(c[i]) +
                         " != " + std::to_string(want));
        break;
      }
    }
    Print("mm_bias_f32.c", c.data(), c.size() * sizeof(float));
  }
  {  // c = A.B^T, b given [n, k]
    constexpr int m = 32, k = 64, n = 48;
    std::vector<Fp16> a = Pattern<Fp16>(m * k, 0.125f, 11, 0.5f), b = Pattern<Fp16>(n * k, 0.25f, 7, 0.75f);
    std::vector<Fp16> bt(k * n);
    for (int p = 0; p < k; ++p) {
      for (int j = 0; j < n; ++j) bt[p * n + j] = b[j * k + p];
    }
    std::vector<float> c(m * n, -7.0f);
    std::vector<TensorDesc> d = {Desc(a.data(), {m, k}), Desc(b.data(), {n, k}), Desc(c.data(), {m, n})};
    const std::string fault = RunAic(pto::kernels::mm_btrans_f16, d);
    Check(fault.empty(), "mm_btrans_f16 faulted: " + fault);
    for (int i = 0; i < m * n; ++i) {
      const float want = Dot(a, bt, k, n, i / n, i % n, 0, k);
      if (c[i] != want) {
        Check(false, "mm_btrans_f16 element " + std::to_string(i) + ": " + std::to_string(c[i]) +
                         " != " + std::to_string(want));
        break;
      }
    }
    Print("mm_btrans_f16.c", c.data(), c.size() * sizeof(float));
  }
  {  // INT8 products summed exactly in INT32
    constexpr int m = 32, k = 64, n = 32;
    std::vector<int8_t> a(m * k), b(k * n);
    for (int i = 0; i < m * k; ++i) a[i] = static_cast<int8_t>((i * 37) % 256 - 128);
    for (int i = 0; i < k * n; ++i) b[i] = static_cast<int8_t>((i * 53) % 256 - 128);
    std::vector<int32_t> c(m * n, -7);
    std::vector<TensorDesc> d = {Desc(a.data(), {m, k}), Desc(b.data(), {k, n}), Desc(c.data(), {m, n})};
    const std::string fault = RunAic(pto::kernels::mm_int8, d);
    Check(fault.empty(), "mm_int8 faulted: " + fault);
    for (int i = 0; i < m * n; ++i) {
      int32_t want = 0;
      for (int p = 0; p < k; ++p) want += int32_t{a[(i / n) * k + p]} * int32_t{b[p * n + i % n]};
      if (c[i] != want) {
        Check(false, "mm_int8 element " + std::to_string(i));
        break;
      }
    }
    Print("mm_int8.c", c.data(), c.size() * sizeof(int32_t));
  }
}

// mix_kernel.cc on 2 blocks, each a cluster of the AIC and both lanes.
void MixKernel() {
  constexpr int kBlocks = 2, kRows = 32, kK = 32, kN = 16;
  std::vector<Fp16> a = Pattern<Fp16>(kBlocks * kRows * kK, 0.25f, 9, 1.0f);
  std::vector<Fp16> b = Pattern<Fp16>(kK * kN, 0.125f, 13, 0.75f);
  std::vector<Fp16> c(kBlocks * kRows * kN, Fp16(7));
  std::vector<float> d(kBlocks * kRows * kN, -7.0f);
  std::vector<TensorDesc> descs = {Desc(a.data(), {kBlocks * kRows, kK}), Desc(b.data(), {kK, kN}),
                                   Desc(c.data(), {kBlocks * kRows, kN}),
                                   Desc(d.data(), {kBlocks * kRows, kN})};
  std::vector<pto::testing::ThreadPipes> pipes(kBlocks);
  std::vector<BlockLaunch> launches;
  for (int blk = 0; blk < kBlocks; ++blk) {
    for (int core = 0; core < 3; ++core) {
      BlockLaunch l;
      l.kernel = core == 0 ? pto::kernels::mix_cube : pto::kernels::mix_vec;
      l.core = core == 0 ? BlockCore::kAic : BlockCore::kLane;
      l.lane = core - 1;
      l.pipes = &pipes[blk];
      l.block_idx = blk;
      l.block_num = kBlocks;
      for (size_t k = 0; k < descs.size(); ++k) l.slots[k] = reinterpret_cast<int64_t>(&descs[k]);
      launches.push_back(l);
    }
  }
  const std::string fault = RunConcurrently(launches);
  Check(fault.empty(), "mix kernel faulted: " + fault);
  for (int i = 0; i < kBlocks * kRows * kN; ++i) {
    // The AIC's FP32 product pushed as FP16; the lane adds two copies in FP16
    // and halves it; the AIC gets that back and multiplies it by I in FP32.
    const Fp16 x = static_cast<Fp16>(Dot(a, b, kK, kN, i / kN, i % kN, 0, kK));
    const Fp16 want = static_cast<Fp16>(static_cast<Fp16>(x + x) * Fp16(0.5f));
    if (c[i] != want || d[i] != static_cast<float>(want)) {
      Check(false, "mix element " + std::to_string(i) + ": c " + std::to_string(float(c[i])) +
                       ", d " + std::to_string(d[i]) + ", want " + std::to_string(float(want)));
      break;
    }
  }
  Print("mix.c", c.data(), c.size() * sizeof(Fp16));
  Print("mix.d", d.data(), d.size() * sizeof(float));
}

}  // namespace
}  // namespace pto::hw::testing

int main() {
  pto::hw::testing::ScaledAdd();
  pto::hw::testing::AllToAllV();
  pto::hw::testing::CubeKernels();
  pto::hw::testing::MixKernel();
  std::fprintf(stderr, "%s: %s\n", pto::hw::testing::BackendName(),
               pto::hw::testing::failures == 0 ? "all results as defined" : "FAILED");
  return pto::hw::testing::failures == 0 ? 0 : 1;
}
