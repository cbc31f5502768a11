// The cost of one cube instruction on its pipe, in core cycles, from the
// platform's CubeSpec. The rules follow the structure pto-isa's device
// profiling shows (tests/costmodel/st/testcase/tmatmul, tloadconv of
// hw-native-sys/pto-isa): the cube steps through 16 x (32 bytes) x 16
// fractals after a fixed head; the MTEs and FIXPIPE move whole 32-byte blocks
// at a rate. docs/simulator.md "AIC cost table" lists rows and errors.
#ifndef PTO_SIM_AIC_CUBE_COST_H_
#define PTO_SIM_AIC_CUBE_COST_H_

#include <cstdint>

#include "platforms/platform.pb.h"
#include "runtime/device/cube_core.h"

namespace pto::sim {

class CubeCost {
 public:
  explicit CubeCost(const platforms::CubeSpec& spec) : s_(spec) {}

  // Cycles `in` occupies its pipe (CubeOpcodePipe(in.op)).
  int64_t Cycles(const CubeInstr& in) const;

  // The fractal steps of an m x k x n matmul with A elements of `a_bytes`:
  // ceil(m/16) * ceil(k/(32/a_bytes)) * ceil(n/16).
  static int64_t FractalSteps(uint32_t m, uint32_t k, uint32_t n, int a_bytes);

 private:
  const platforms::CubeSpec& s_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_AIC_CUBE_COST_H_
