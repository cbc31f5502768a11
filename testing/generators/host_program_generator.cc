#include "testing/generators/host_program_generator.h"

#include "absl/strings/str_cat.h"

namespace pto::testing {

std::string GenerateHostProgram(const HostProgramShape& shape) {
  const int windows = shape.windows > 0 ? shape.windows : 1;
  std::string out = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class HostRail:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[256], pl.FP32]], x: pl.Tensor[[256], pl.FP32]) -> pld.DistributedTensor[[256], pl.FP32]:
        return data

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[256], pl.FP32], data: pld.DistributedTensor[[256], pl.FP32], sig: pld.DistributedTensor[[8, 1], pl.INT32]) -> pld.DistributedTensor[[256], pl.FP32]:
        out = self.kernel(data, x)
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[256], pl.FP32], n: pl.Scalar[pl.INDEX]):
)";
  for (int w = 0; w < windows; ++w) {
    absl::StrAppend(&out, "        buf", w, " = pld.alloc_window_buffer(256 * 4)\n",
                    "        sbuf", w, " = pld.alloc_window_buffer(8 * 4)\n",
                    "        d", w, " = pld.window(buf", w, ", [256], dtype=pl.FP32)\n",
                    "        s", w, " = pld.window(sbuf", w, ", [8, 1], dtype=pl.INT32)\n");
  }
  const int loops = shape.dispatch_loops > 0 ? shape.dispatch_loops : 1;
  int emitted = 0;
  for (int i = 0; i < loops; ++i) {
    int w = i % windows;
    absl::StrAppend(&out, "        for r in pl.range(pld.world_size()):\n",
                    "            self.chip(x, d", w, ", s", w, ", device=r)\n",
                    // Scalar work for Simplify: a folded constant and a dead temp.
                    "        k", i, " = ", i, " * 4 + 2 * 8\n",
                    "        t", i, " = n * k", i, " + 1\n");
    int until = static_cast<int>(static_cast<long long>(shape.collectives) * (i + 1) / loops);
    for (; emitted < until; ++emitted) {
      int c = emitted % windows;
      absl::StrAppend(&out, "        pld.tensor.allreduce(d", c, ", s", c, ", op=", emitted % 4,
                      ")\n");
    }
  }
  return out;
}

}  // namespace pto::testing
