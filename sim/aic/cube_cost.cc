#include "sim/aic/cube_cost.h"

#include <cmath>

namespace pto::sim {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A transfer of `bytes` at `rate` bytes per cycle, whole cycles.
int64_t Transfer(uint64_t bytes, double rate) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / rate - 1e-9));
}

// Bytes of rows x cols elements moved as whole 32-byte blocks per row.
uint64_t BlockBytes(uint32_t rows, uint32_t cols, int elem) {
  return static_cast<uint64_t>(rows) * CeilDiv(static_cast<int64_t>(cols) * elem, 32) * 32;
}

}  // namespace

int64_t CubeCost::FractalSteps(uint32_t m, uint32_t k, uint32_t n, int a_bytes) {
  return CeilDiv(m, 16) * CeilDiv(k, 32 / a_bytes) * CeilDiv(n, 16);
}

int64_t CubeCost::Cycles(const CubeInstr& in) const {
  const int src = CubeDTypeBytes(in.src_type);
  const int dst = CubeDTypeBytes(in.dst_type);
  switch (in.op) {
    case CubeOpcode::kLoadL1:
      return s_.mte2_head_cycles() +
             Transfer(BlockBytes(in.rows, in.cols, src), s_.mte2_bytes_per_cycle());
    case CubeOpcode::kExtract: {
      // L0A/L0B hold whole fractals: rows padded to 16.
      const uint64_t bytes =
          BlockBytes(static_cast<uint32_t>(CeilDiv(in.rows, 16) * 16), in.cols, src);
      return Transfer(bytes, in.write.kind == TileKind::kLeft ? s_.mte1_l0a_bytes_per_cycle()
                                                              : s_.mte1_l0b_bytes_per_cycle());
    }
    case CubeOpcode::kMovBias:
      return Transfer(BlockBytes(1, in.cols, src), s_.mte1_bias_bytes_per_cycle());
    case CubeOpcode::kMatmul:
    case CubeOpcode::kMatmulAcc:
    case CubeOpcode::kMatmulBias: {
      const int64_t per = in.src_type == CubeDType::kFloat ? s_.cube_fp32_cycles_per_fractal() : 1;
      return s_.cube_head_cycles() + FractalSteps(in.m, in.k, in.n, src) * per;
    }
    case CubeOpcode::kStoreAcc:
      return Transfer(static_cast<uint64_t>(in.rows) * in.cols * dst, s_.fix_gm_bytes_per_cycle());
    case CubeOpcode::kAccToMat:
      return Transfer(BlockBytes(in.rows, in.cols, dst), s_.fix_l1_bytes_per_cycle());
  }
  return 0;
}

}  // namespace pto::sim
