#include "sim/system/matmul_fixture.h"

#include "runtime/device/device_api.h"
#include "sim/system/test_kernels.h"

namespace pto::sim::testing {

RunReport RunMatmul(const MatmulOperands& m, const rt::ChipCallable& callable) {
  rt::Tensor out;
  return Simulate(
      Opts(1),
      [&](SimSystem& sys) -> absl::Status {
        std::vector<half> a(m.rows * m.k), b(m.k * m.n);
        for (uint32_t i = 0; i < m.rows; ++i)
          for (uint32_t k = 0; k < m.k; ++k) a[i * m.k + k] = static_cast<half>(m.a(i, k));
        for (uint32_t k = 0; k < m.k; ++k)
          for (uint32_t j = 0; j < m.n; ++j) b[k * m.n + j] = static_cast<half>(m.b(k, j));
        auto ta = sys.Alloc(0, a.size() * sizeof(half), "a");
        auto tb = sys.Alloc(0, b.size() * sizeof(half), "b");
        auto tc = sys.Alloc(0, m.rows * m.n * sizeof(float), "c");
        if (!ta.ok() || !tb.ok() || !tc.ok()) return absl::InternalError("alloc");
        out = *tc;
        absl::Status s = sys.CopyTo(*ta, a.data(), ta->bytes);
        if (s.ok()) s = sys.CopyTo(*tb, b.data(), tb->bytes);
        if (!s.ok()) return s;
        rt::ChipArgs args;
        args.tensors = {*ta, *tb, *tc};
        return sys.Dispatch(0, callable, args);
      },
      [&](SimSystem& sys, RunReport& r) { CaptureOutput(sys, out, "c", r); });
}

std::vector<float> MatmulGolden(const MatmulOperands& m, float bias) {
  std::vector<float> c(m.rows * m.n);
  for (uint32_t i = 0; i < m.rows; ++i) {
    for (uint32_t j = 0; j < m.n; ++j) {
      float s = 0;
      for (uint32_t k = 0; k < m.k; ++k) {
        s += static_cast<float>(static_cast<half>(m.a(i, k))) *
             static_cast<float>(static_cast<half>(m.b(k, j)));
      }
      c[i * m.n + j] = s + bias;
    }
  }
  return c;
}

}  // namespace pto::sim::testing
