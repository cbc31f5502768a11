// Values of a program's dynamic dimensions (`NR = pl.dynamic("NR")`) for one
// run, and the program specialised to them. pto-run compiles the program when
// it runs it, so it binds every dynamic dimension first and the passes and the
// code generator see the bound sizes (docs/pto-run.md, "Dynamic dimensions").
#ifndef PTO_TOOLS_DYN_DIMS_H_
#define PTO_TOOLS_DYN_DIMS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"

namespace pto::tools::run {

struct DimValue {
  int64_t value = 0;
  std::string source;  // where it came from, for messages: "--ranks=4", "x.npy"
};
using DimValues = std::map<std::string, DimValue>;

// Binds the dynamic dimensions of the HOST orchestrator's tensor parameters:
// the first dimension of a parameter is the rank count (`--ranks`, one row per
// device, as PyPTO's host world tensors `[NR, ...]`), and the shape of
// DIR/<param>.npy binds every dimension of that parameter. Two sources that
// disagree are a user error naming both. With `entry` (pto-run's single-chip
// entry, tools/single_chip.h), that function's parameters bind instead, from
// their input files only: a chip's tensors have no rank dimension.
absl::StatusOr<DimValues> BindDynDims(const ir::ProgramPtr& program, int ranks,
                                      const std::string& inputs_dir,
                                      const std::string& entry = "");

// The program with every dynamic dimension replaced by its value; a dimension
// without a value is a user error located at its `pl.dynamic` declaration.
// With world_size > 0, every `pld.world_size()` becomes that constant too: the
// run's world is known when it is compiled, as PyPTO compiles a program for
// its DistributedConfig's devices, so window sizes and signal shapes written
// as `pld.world_size() * ...` are static for the passes and code generation.
absl::StatusOr<ir::ProgramPtr> SpecializeDynDims(const ir::ProgramPtr& program,
                                                 const DimValues& values, int world_size = 0);

}  // namespace pto::tools::run

#endif  // PTO_TOOLS_DYN_DIMS_H_
