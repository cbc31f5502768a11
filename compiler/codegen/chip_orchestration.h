// The C++ orchestration of a chip pipeline (docs/codegen.md;
// runtime-and-sim.md §1.4): what the chip's AICPU runs to submit the
// pipeline's kernels as tasks. compiler/ only writes the text; it #includes
// runtime/api headers but does not link them.
#ifndef PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_H_
#define PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::codegen {

// One translation unit defining
//
//   void aicpu_orchestration_entry(pto::rt::Orchestrator& orch,
//                                  const pto::rt::ChipArgs& args);
//
// (the entry the pipeline's kernel config names; a pto::rt::ChipCallable's
// `entry`). The pipeline's tensor params are args.tensors in order, its
// CommCtx and scalar params args.scalars in order. Each kernel call in body
// order becomes one TaskArgs built from the call's arg_directions, the launch
// spec from its core_num / sync_start, an explicit add_dep per
// (compiler_)manual_dep_edges entry, and one submit with the callee's func_id
// of ChipKernelConfig (first-call order). Before the submit of a
// require_contiguous_operands callee each tensor operand is checked; the first
// violation latches INVALID_ARGS and returns. A pl.tensor.slice is a
// strided view of its source (bounds checked at compile time when static,
// else at run time with the same latch). Runtime scopes become
// scope_begin/scope_end, comm-fence markers a comment. Any other construct is
// a located user error; an unknown pipeline is NotFound.
absl::StatusOr<std::string> GenerateChipOrchestration(const ir::ProgramPtr& program,
                                                      std::string_view pipeline);

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_CHIP_ORCHESTRATION_H_
