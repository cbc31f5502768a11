// Kernel API types shared by the reference (device_api.h) and the pto-isa
// overlay of hw/ (hw/pto_isa/overlay/runtime/device/device_api.h): the 2-D
// view of a UB tile an instruction works on, and the rounding modes of TCVT.
#ifndef PTO_RUNTIME_DEVICE_TILE_BOX_H_
#define PTO_RUNTIME_DEVICE_TILE_BOX_H_

#include <cstdint>

namespace pto {

// The 2-D view of a tile of rows x cols elements (row-major) and its valid
// box, the top-left valid_rows x valid_cols. All zero: the whole tile as one
// row (the instruction's default).
struct Dims2 {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t valid_rows = 0;
  int64_t valid_cols = 0;
};

// TCVT's rounding of an inexact conversion, numbered as PyPTO's cast modes
// and pto-isa's RoundMode (docs/isa TCVT.md): none (the conversion's default,
// to nearest even), rint (to nearest, ties to even), round (to nearest, ties
// away from zero), floor (toward -inf), ceil (toward +inf), trunc (toward
// zero), odd (to the neighbour whose last bit is 1).
enum class RoundMode : int { kNone = 0, kRint, kRound, kFloor, kCeil, kTrunc, kOdd };

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_TILE_BOX_H_
