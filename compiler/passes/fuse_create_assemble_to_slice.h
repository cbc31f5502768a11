// FuseCreateAssembleToSlice (PyPTO pass 36): in Orchestration functions, a
// `pl.tensor.create` whose buffer is assembled into a target exactly once
// becomes a `pl.tensor.slice` view of that target at the assemble's offsets
// (its shape padded with leading 1s to the target's rank), and the assemble
// is dropped: the kernels that fill the staging tensor write the target
// directly. Loop iter args left passing the target through are removed.
// See docs/passes/FuseCreateAssembleToSlice.md.
#ifndef PTO_COMPILER_PASSES_FUSE_CREATE_ASSEMBLE_TO_SLICE_H_
#define PTO_COMPILER_PASSES_FUSE_CREATE_ASSEMBLE_TO_SLICE_H_

#include <memory>

#include "compiler/passes/pass.h"

namespace pto::passes {

class FuseCreateAssembleToSlicePass : public Pass {
 public:
  std::string_view name() const override { return "FuseCreateAssembleToSlice"; }
  IRPropertySet required() const override { return {IRProperty::kSplitIncoreOrch}; }
  absl::StatusOr<ir::ProgramPtr> Run(const ir::ProgramPtr& program) override;
};

std::unique_ptr<Pass> CreateFuseCreateAssembleToSlicePass();

}  // namespace pto::passes

#endif  // PTO_COMPILER_PASSES_FUSE_CREATE_ASSEMBLE_TO_SLICE_H_
