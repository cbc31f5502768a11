#include "examples/sim_run.h"

#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::examples {

sim::RunReport RunFloatProgram(int chips, const std::vector<FloatParam>& params, RunHostFn run_host,
                               const std::string& platform) {
  std::vector<std::vector<rt::Tensor>> tensors(params.size());
  sim::SimOptions o = sim::testing::Opts(chips, platform);
  o.trace = false;
  return sim::testing::Simulate(
      o,
      [&](sim::SimSystem& sys) -> absl::Status {
        for (size_t p = 0; p < params.size(); ++p) {
          int64_t elems = 1;
          for (uint64_t d : params[p].dims) elems *= static_cast<int64_t>(d);
          const uint64_t bytes = elems * sizeof(float);
          for (int d = 0; d < chips; ++d) {
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, params[p].name);
            if (!t.ok()) return t.status();
            t->elem_bytes = sizeof(float);
            rt::Tensor shaped = *t;
            shaped.ndims = params[p].dims.size();
            for (size_t k = 0; k < params[p].dims.size(); ++k) shaped.shape[k] = params[p].dims[k];
            tensors[p].push_back(shaped);
            std::vector<float> init(elems);
            for (int64_t i = 0; i < elems; ++i) init[i] = params[p].init(d, i);
            if (absl::Status st = sys.CopyTo(shaped, init.data(), bytes); !st.ok()) return st;
          }
        }
        return run_host(sys, tensors);
      },
      [&](sim::SimSystem& sys, sim::RunReport& r) {
        for (size_t p = 0; p < params.size(); ++p) {
          for (size_t d = 0; d < tensors[p].size(); ++d) {
            sim::testing::CaptureOutput(sys, tensors[p][d], absl::StrCat(params[p].name, "@", d),
                                        r);
          }
        }
      });
}

std::vector<float> DeviceCopy(const sim::RunReport& report, const std::string& name, int device) {
  return sim::testing::OutputAs<float>(report, absl::StrCat(name, "@", device));
}

namespace a2av {

float InputOf(int device, int64_t i) {
  return static_cast<float>((device * 7919 + i * 31) % 1021) * 0.25f - 64.0f;
}

Outcome Run(RunHostFn run_host) {
  Outcome out;
  out.report =
      RunFloatProgram(kNr,
                      {{"inputs", {kNr, kTotal, kSize}, InputOf},
                       {"outputs", {kNr, kTotal, kSize}, [](int, int64_t) { return kOutputInit; }}},
                      run_host);
  for (int d = 0; d < kNr; ++d) out.outputs.push_back(DeviceCopy(out.report, "outputs", d));
  return out;
}

}  // namespace a2av

}  // namespace pto::examples
