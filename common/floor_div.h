// Python's // and % on integers (PyPTO's FloorDiv / FloorMod): the quotient
// rounds toward minus infinity and the remainder takes the divisor's sign.
// One definition for the parser's constant folding and for kernels
// (runtime/device/kernel_support.h), so both round the same way. The divisor
// must not be 0; callers check it.
#ifndef PTO_COMMON_FLOOR_DIV_H_
#define PTO_COMMON_FLOOR_DIV_H_

namespace pto {

template <typename T>
constexpr T FloorDiv(T a, T b) {
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

template <typename T>
constexpr T FloorMod(T a, T b) {
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace pto

#endif  // PTO_COMMON_FLOOR_DIV_H_
