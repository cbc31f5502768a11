#include "sim/aiv/vector_cost.h"

#include <algorithm>
#include <cmath>

namespace pto::sim {

double VectorRepeats(const platforms::Platform& p, const VecShape& s, int elem_bytes) {
  const double row_bytes = static_cast<double>(s.cols) * elem_bytes;
  return static_cast<double>(s.rows) * std::ceil(row_bytes / p.vector_bytes_per_cycle());
}

double VectorCycles(const platforms::Platform& p, VecOp op, const VecShape& s) {
  const platforms::VectorCostSpec& c = p.vector_cost();
  if (s.rows <= 0 || s.cols <= 0) return p.vector_startup_cycles();
  const double startup = p.vector_startup_cycles();
  const double reps = VectorRepeats(p, s, s.elem_bytes);
  // Transcendental units work per element whatever the width (fp16 as fp32).
  const double per64 = std::ceil(static_cast<double>(s.rows * s.cols) / 64.0);
  const double row_reps = std::ceil(s.cols * s.elem_bytes / p.vector_bytes_per_cycle());
  switch (op) {
    case VecOp::kAdd:
    case VecOp::kSub:
    case VecOp::kMul:
    case VecOp::kMax:
    case VecOp::kMin:
      return startup + c.binary_cycles_per_repeat() * reps;
    case VecOp::kAddS:
    case VecOp::kMulS:
    case VecOp::kMaxS:
      return c.scalar_startup_cycles() + c.unary_cycles_per_repeat() * reps;
    case VecOp::kCvt:
      // Repeats of the wider side.
      return startup + c.unary_cycles_per_repeat() *
                           VectorRepeats(p, s, std::max(s.elem_bytes, s.src_elem_bytes));
    case VecOp::kAbs:
    case VecOp::kFill:
    case VecOp::kCopy:
    case VecOp::kFillPad:
    case VecOp::kBoxCopy:
    case VecOp::kColExpand:
      return startup + c.unary_cycles_per_repeat() * reps;
    case VecOp::kExp:
    case VecOp::kSqrt:
    case VecOp::kRsqrt:
    case VecOp::kRecip:
    case VecOp::kMath:
      return c.math_startup_cycles() + c.math_cycles_per_64() * per64;
    case VecOp::kDiv:
      return c.math_startup_cycles() + c.div_cycles_per_64() * per64;
    case VecOp::kRowReduce:
      // Each row: its repeats folded elementwise into one, then the in-repeat tree.
      return s.rows * (c.row_reduce_cycles_per_row() +
                       c.binary_cycles_per_repeat() * (row_reps - 1));
    case VecOp::kArgReduce:
      // A value pass and an index pass (assumption).
      return 2 * s.rows * (c.row_reduce_cycles_per_row() +
                           c.binary_cycles_per_repeat() * (row_reps - 1));
    case VecOp::kColReduce:
      // Per repeat-wide strip: a chain of dependent row folds.
      return row_reps * (c.col_reduce_strip_cycles() + (s.rows - 1) * c.col_reduce_step_cycles());
    case VecOp::kExpand:
      return s.rows * c.row_expand_cycles_per_row();
    case VecOp::kTranspose:
      return startup + c.transpose_cycles_per_repeat() *
                           std::ceil(static_cast<double>(s.rows * s.cols * s.elem_bytes) /
                                     p.vector_bytes_per_cycle());
  }
  return startup + reps;
}

}  // namespace pto::sim
