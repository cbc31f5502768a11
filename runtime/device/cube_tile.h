// The cube tiles of the kernel API, shared by the reference (cube_api.h) and
// the pto-isa overlay of hw/ (hw/pto_isa/overlay/runtime/device/cube_api.h):
// a tile of one of the AIC's buffers and the limits pto-isa documents (docs/isa/TASSIGN.md, TLOAD.md, TMATMUL.md, TSTORE.md of
// hw-native-sys/pto-isa).
#ifndef PTO_RUNTIME_DEVICE_CUBE_TILE_H_
#define PTO_RUNTIME_DEVICE_CUBE_TILE_H_

#include <cstdint>
#include <type_traits>

#include "runtime/device/cube_core.h"
#include "runtime/device/device_api.h"

namespace pto {

// A tile in one of the cube buffers: its valid rows x cols. Row-major (the
// board's ND / NZ Mat layouts) unless `col_major`: a Mat tile in pto-isa's
// ZN layout (a DN view), whose elements lie column by column, which is how
// an NZ tile's bytes read as its transpose (TRESHAPE). The board's fractals
// are a placement detail of the hw overlay and never change values.
template <TileKind K, typename T>
struct CubeTile {
  static constexpr TileKind kKind = K;
  using DType = T;
  T* data = nullptr;
  uint32_t rows = 0;
  uint32_t cols = 0;
  bool col_major = false;
  uint64_t count() const { return static_cast<uint64_t>(rows) * cols; }
  uint64_t bytes() const { return count() * sizeof(T); }
  T& at(uint32_t r, uint32_t c) const {
    return col_major ? data[static_cast<uint64_t>(c) * rows + r]
                     : data[static_cast<uint64_t>(r) * cols + c];
  }
};
template <typename T>
using MatTile = CubeTile<TileKind::kMat, T>;
template <typename T>
using LeftTile = CubeTile<TileKind::kLeft, T>;
template <typename T>
using RightTile = CubeTile<TileKind::kRight, T>;
template <typename T>
using AccTile = CubeTile<TileKind::kAcc, T>;
template <typename T>
using BiasTile = CubeTile<TileKind::kBias, T>;

template <typename X>
struct IsCubeTile : std::false_type {};
template <TileKind K, typename T>
struct IsCubeTile<CubeTile<K, T>> : std::true_type {};

// Limits pto-isa documents (A2A3 and A5 alike).
inline constexpr uint32_t kCubeMaxMkn = 4095;       // TMATMUL.md: m, k, n in [1, 4095]
inline constexpr uint32_t kMatMaxRows = 16384;      // TLOAD.md: Mat tile rows
inline constexpr uint32_t kAccStoreMaxCols = 4095;  // TSTORE.md: Acc valid cols
inline constexpr uint32_t kAccStoreMaxRows = 8192;  // TSTORE.md: ND rows
inline constexpr uint64_t kCubeAlignBytes = 32;     // TASSIGN.md: 32-B alignment

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_CUBE_TILE_H_
