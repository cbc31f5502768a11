// The cube programs: matmul, split K, INT8, bias, gemv, batch and tiled
// matmul. FP16 operands are exact products in FP32 accumulation: PyPTO's
// matmul tolerance (1e-3); INT8 -> INT32 is exact.
#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {
namespace {

Case Mm(int64_t m, int64_t k, int64_t n, uint64_t seed) {
  const Values a = Uniform(m * k, -1, 1, seed, DType::kF16),
               b = Uniform(k * n, -1, 1, seed + 1, DType::kF16);
  return {{Make("a", {m, k}, a, DType::kF16), Make("b", {k, n}, b, DType::kF16)},
          {Make("c", {m, n}, Matmul(a, b, m, k, n), DType::kF32, 1e-3, 1e-3)}};
}

}  // namespace

void AddMatmul(Registry& r) {
  r["matmul_fp16"] = [] { return Mm(64, 64, 64, 41); };
  r["matmul_k_loop"] = [] { return Mm(32, 256, 64, 43); };
  r["matmul_tiled"] = [] { return Mm(128, 64, 128, 45); };
  r["matmul_int8"] = [] {
    const Values a = Integers(32 * 128, -128, 127, 47), b = Integers(128 * 64, -128, 127, 48);
    return Case{{Make("a", {32, 128}, a, DType::kI8), Make("b", {128, 64}, b, DType::kI8)},
                {Make("c", {32, 64}, Matmul(a, b, 32, 128, 64), DType::kI32, 0, 0)}};
  };
  r["matmul_bias"] = [] {
    const Values a = Uniform(32 * 32, -1, 1, 49), b = Uniform(32 * 64, -1, 1, 50),
                 z = Uniform(64, -1, 1, 51);
    Values c = Matmul(a, b, 32, 32, 64);
    for (size_t i = 0; i < c.size(); ++i) c[i] += z[i % 64];
    return Case{{Make("a", {32, 32}, a), Make("b", {32, 64}, b), Make("bias", {1, 64}, z)},
                {Make("c", {32, 64}, c, DType::kF32, 1e-4, 1e-4)}};
  };
  r["gemv"] = [] {
    const Values x = Uniform(128, -1, 1, 52, DType::kF16), w = Uniform(128 * 64, -1, 1, 53, DType::kF16);
    return Case{{Make("x", {1, 128}, x, DType::kF16), Make("w", {128, 64}, w, DType::kF16)},
                {Make("y", {1, 64}, Matmul(x, w, 1, 128, 64), DType::kF32, 1e-3, 1e-3)}};
  };
  r["ffn"] = [] {
    // h in FP32 accumulation of exact FP16 products; a = fp16(silu(h)), so
    // a rounding that flips at a tie is one FP16 ulp (1e-3 relative).
    const int64_t m = 32, hd = 64, f = 128;
    const Values x = Uniform(m * hd, -1, 1, 56, DType::kF16),
                 w1 = Uniform(hd * f, -0.25, 0.25, 57, DType::kF16),
                 w2 = Uniform(f * hd, -0.25, 0.25, 58, DType::kF16);
    const Values h = Matmul(x, w1, m, hd, f);
    const Values a = Map(h, [](double v) { return RoundF16(RoundF32(v) * Sigmoid(RoundF32(v))); });
    return Case{{Make("x", {m, hd}, x, DType::kF16), Make("w1", {hd, f}, w1, DType::kF16),
                 Make("w2", {f, hd}, w2, DType::kF16)},
                {Make("h", {m, f}, h, DType::kF32, 1e-4, 1e-4),
                 Make("a", {m, f}, a, DType::kF16, 1e-3, 1e-3),
                 Make("y", {m, hd}, Matmul(a, w2, m, f, hd), DType::kF32, 2e-3, 2e-3)}};
  };
  r["ffn_create"] = [ffn = r["ffn"]] {
    // ffn with h and a allocated by the orchestration: y only.
    Case c = ffn();
    c.expected.erase(c.expected.begin(), c.expected.begin() + 2);
    return c;
  };
  r["fused_linear"] = [] {
    const Values x = Uniform(64 * 32, -1, 1, 59), w = Uniform(32 * 64, -1, 1, 60),
                 z0 = Uniform(64, -1, 1, 61);
    Values z = Matmul(x, w, 64, 32, 64);
    for (size_t i = 0; i < z.size(); ++i) z[i] += z0[i % 64];
    return Case{{Make("x", {64, 32}, x), Make("w", {32, 64}, w), Make("bias", {1, 64}, z0)},
                {Make("z", {64, 64}, z, DType::kF32, 1e-4, 1e-4),
                 Make("y", {64, 64}, Map(z, [](double v) { return v > 0 ? v : 0; }), DType::kF32,
                      1e-4, 1e-4)}};
  };
  r["batch_matmul"] = [] {
    const int64_t bs = 4, m = 32, k = 64, n = 32;
    const Values a = Uniform(bs * m * k, -1, 1, 54, DType::kF16),
                 b = Uniform(bs * k * n, -1, 1, 55, DType::kF16);
    Values c;
    for (int64_t i = 0; i < bs; ++i) {
      const Values ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k);
      const Values bi(b.begin() + i * k * n, b.begin() + (i + 1) * k * n);
      const Values ci = Matmul(ai, bi, m, k, n);
      c.insert(c.end(), ci.begin(), ci.end());
    }
    return Case{{Make("a", {bs, m, k}, a, DType::kF16), Make("b", {bs, k, n}, b, DType::kF16)},
                {Make("c", {bs, m, n}, c, DType::kF32, 1e-3, 1e-3)}};
  };
}

}  // namespace pto::single_chip
