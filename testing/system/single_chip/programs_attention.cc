// Attention programs: flash attention (online softmax over key blocks) and
// paged attention (key / value blocks gathered through a block table). The
// golden follows the same online algorithm in double, with P rounded to FP16
// where the kernel stores it for the PV matmul; PyPTO's attention tests
// compare at 1e-3 .. 1e-2, we use 2e-3.
#include <cmath>

#include "testing/system/single_chip/golden.h"
#include "testing/system/single_chip/ref.h"

namespace pto::single_chip {
namespace {

// softmax(q k^T * scale) v by the online algorithm over blocks of `bk` keys:
// q [r, d], keys `k` [n * bk, d] (row j of block b at keys[(blocks[b] * bk +
// j) * d]), v alike.
Values OnlineAttention(const Values& q, const Values& k, const Values& v, int64_t r, int64_t d,
                       int64_t bk, const std::vector<int64_t>& blocks, double scale) {
  Values m(r, -1e30), l(r, 0.0), o(r * d, 0.0);
  for (int64_t blk : blocks) {
    for (int64_t i = 0; i < r; ++i) {
      Values s(bk);
      double mj = -INFINITY;
      for (int64_t j = 0; j < bk; ++j) {
        double acc = 0;
        for (int64_t x = 0; x < d; ++x) acc += q[i * d + x] * k[(blk * bk + j) * d + x];
        s[j] = RoundF32(acc) * scale;
        mj = std::fmax(mj, s[j]);
      }
      const double mn = std::fmax(m[i], mj), alpha = std::exp(m[i] - mn);
      double lj = 0;
      for (int64_t x = 0; x < d; ++x) o[i * d + x] *= alpha;
      for (int64_t j = 0; j < bk; ++j) {
        const double p = RoundF16(std::exp(s[j] - mn));
        lj += p;
        for (int64_t x = 0; x < d; ++x) o[i * d + x] += p * v[(blk * bk + j) * d + x];
      }
      l[i] = l[i] * alpha + lj;
      m[i] = mn;
    }
  }
  for (int64_t i = 0; i < r * d; ++i) o[i] /= l[i / d];
  return o;
}

// [rows, cols] -> [cols, rows].
Values Transpose(const Values& a, int64_t rows, int64_t cols) {
  Values t(a.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  }
  return t;
}

}  // namespace

void AddAttention(Registry& r) {
  r["flash_attention"] = [] {
    const int64_t rows = 64, d = 64, bk = 64, nb = 4, s = nb * bk;
    const Values q = Uniform(rows * d, -1, 1, 81, DType::kF16),
                 k = Uniform(s * d, -1, 1, 82, DType::kF16), v = Uniform(s * d, -1, 1, 83, DType::kF16);
    const Values out = OnlineAttention(q, k, v, rows, d, bk, {0, 1, 2, 3}, 0.125);
    return Case{{Make("q", {rows, d}, q, DType::kF16), Make("kt", {d, s}, Transpose(k, s, d), DType::kF16),
                 Make("v", {s, d}, v, DType::kF16)},
                {Make("out", {rows, d}, out, DType::kF32, 2e-3, 2e-3)}};
  };
  r["paged_attention"] = [] {
    // 2 requests of 16 query rows; request 0 holds 3 blocks, request 1 two,
    // scattered over a pool of 8 (the table's unused entry is never read).
    const int64_t b = 2, rows = 16, d = 64, bk = 64, pool = 8, maxb = 3;
    const std::vector<std::vector<int64_t>> tables = {{5, 1, 6}, {3, 7}};
    const Values q = Uniform(b * rows * d, -1, 1, 84, DType::kF16),
                 k = Uniform(pool * bk * d, -1, 1, 85, DType::kF16),
                 v = Uniform(pool * bk * d, -1, 1, 86, DType::kF16);
    Values out;
    for (int64_t i = 0; i < b; ++i) {
      const Values qi(q.begin() + i * rows * d, q.begin() + (i + 1) * rows * d);
      const Values oi = OnlineAttention(qi, k, v, rows, d, bk, tables[i], 0.125);
      out.insert(out.end(), oi.begin(), oi.end());
    }
    const Values table = {5, 1, 6, 3, 7, 0}, nblocks = {3, 2};
    return Case{{Make("q", {b * rows, d}, q, DType::kF16),
                 Make("kt_cache", {d, pool * bk}, Transpose(k, pool * bk, d), DType::kF16),
                 Make("v_cache", {pool * bk, d}, v, DType::kF16),
                 Make("block_table", {b, maxb}, table, DType::kI32),
                 Make("context_blocks", {b}, nblocks, DType::kI32)},
                {Make("out", {b * rows, d}, out, DType::kF32, 2e-3, 2e-3)}};
  };
}

}  // namespace pto::single_chip
