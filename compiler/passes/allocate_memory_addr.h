// AllocateMemoryAddr (PyPTO pass 34): places the MemRefs of every kernel at
// addresses of their buffer (UB, and the AIC's L1 / L0A / L0B / L0C / Bias),
// in MemRef id order, each at the next multiple of the platform's UB block
// (cube buffers: 32 bytes, pto-isa TASSIGN). A kernel whose buffers exceed a
// capacity of the platform is a located error naming the buffer and the tiles
// that do not fit. See docs/passes/AllocateMemoryAddr.md.
#ifndef PTO_COMPILER_PASSES_ALLOCATE_MEMORY_ADDR_H_
#define PTO_COMPILER_PASSES_ALLOCATE_MEMORY_ADDR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "compiler/passes/pass.h"

namespace pto::passes {

struct AllocateMemoryAddrOptions {
  std::string platform;             // named in the overflow error
  std::optional<int64_t> ub_bytes;  // no capacity check without one
  int64_t ub_block_bytes = 1;       // every address is a multiple of it
  // The cube buffers' capacities: L1, L0A, L0B, L0C, Bias (no check when unset).
  std::optional<int64_t> l1_bytes, l0a_bytes, l0b_bytes, l0c_bytes, bias_bytes;
};

class AllocateMemoryAddrPass : public Pass {
 public:
  explicit AllocateMemoryAddrPass(AllocateMemoryAddrOptions options)
      : options_(std::move(options)) {}
  std::string_view name() const override { return "AllocateMemoryAddr"; }
  IRPropertySet required() const override {
    return {IRProperty::kSplitIncoreOrch, IRProperty::kIncoreTileOps, IRProperty::kTileOps2D,
            IRProperty::kHasMemRefs};
  }
  IRPropertySet produced() const override { return {IRProperty::kAllocatedMemoryAddr}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;

 private:
  AllocateMemoryAddrOptions options_;
};

std::unique_ptr<Pass> CreateAllocateMemoryAddrPass(AllocateMemoryAddrOptions options);

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_ALLOCATE_MEMORY_ADDR_H_
