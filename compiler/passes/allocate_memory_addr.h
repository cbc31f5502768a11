// AllocateMemoryAddr (PyPTO pass 34): places the UB MemRefs of every kernel at
// addresses, in MemRef id order, each at the next multiple of the platform's
// UB block. A kernel whose buffers exceed the platform's UB is a located error
// naming the tiles that do not fit. See docs/passes/AllocateMemoryAddr.md.
#ifndef PTO_COMPILER_PASSES_ALLOCATE_MEMORY_ADDR_H_
#define PTO_COMPILER_PASSES_ALLOCATE_MEMORY_ADDR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "compiler/passes/pass.h"

namespace pto::passes {

struct AllocateMemoryAddrOptions {
  std::string platform;             // named in the overflow error
  std::optional<int64_t> ub_bytes;  // no capacity check without one
  int64_t ub_block_bytes = 1;       // every address is a multiple of it
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
