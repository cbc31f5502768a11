// pto-run's view of the HOST orchestrator's tensor parameters: what they are
// (from the IR), their initial content (an input .npy file or the documented
// pattern) and how the devices' copies of an output merge after the run
// (docs/pto-run.md).
#ifndef PTO_TOOLS_RUN_PARAMS_H_
#define PTO_TOOLS_RUN_PARAMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/function.h"

namespace pto::tools::run {

struct Param {
  std::string name;
  ir::DataType dtype = ir::DataType::kFP32;
  std::string descr;  // NumPy type string
  int item = 0;       // bytes per element
  std::vector<int64_t> shape;
  bool output = false;  // pl.Out or pl.InOut: written back after the run
  std::string initial;  // the content every device's copy starts from
};

// The NumPy type string of `t` ("<f4", "|i1", ...), if NumPy has one; BF16,
// which NumPy lacks, is stored as its bit patterns, "<u2".
std::optional<std::string> NumpyDescr(ir::DataType t);

// IEEE binary16 bits of `f`, rounded to nearest even.
uint16_t ToHalf(float f);

// bfloat16 bits of `f` (the upper half of its FP32 bits), rounded to nearest
// even; a NaN stays a (quiet) NaN.
uint16_t ToBf16(float f);

// The content of a parameter without an input file, element i in C order:
// floats ((i * 31 + 7) % 1021) * 0.25 - 64 (BF16: rounded); integers (i * 31 + 7) % 127 - 63
// (modulo 2^bits for unsigned types); BOOL ((i * 31 + 7) % 127) % 2.
std::string Pattern(const Param& p);

// The tensor params of the program's single HOST orchestrator, in order.
// Errors (no or several HOST orchestrators, a non-tensor or dynamic-shape
// param, a dtype without a NumPy type) are the user's.
absl::StatusOr<std::vector<Param>> HostParams(const ir::ProgramPtr& program);

// The tensor params of `function`, in order (the single-chip entry of
// tools/single_chip.h): the same errors as HostParams for a param pto-run
// cannot stage.
absl::StatusOr<std::vector<Param>> FunctionParams(const ir::FunctionPtr& function);

// Every device holds a full copy of every param: an error (before anything is
// allocated) when a param's size overflows or their sum exceeds the
// platform's GM capacity.
absl::Status CheckFitsGm(const std::vector<Param>& params, int ranks, uint64_t gm_capacity,
                         const std::string& platform);

// Fills every param's `initial` from DIR/<name>.npy, which must match the
// dtype and shape exactly (and hold no NaN or Inf unless `allow_nonfinite`),
// or from Pattern() when there is no such file (or `dir` is empty).
absl::Status LoadInputs(const std::string& dir, std::vector<Param>& params,
                        bool allow_nonfinite = false);

// The first NaN or Inf of a floating-point `p` whose content is `bytes`, as
// an error naming `path`, the param and the element; OK for other dtypes.
absl::Status CheckFinite(const Param& p, const std::string& bytes, const std::string& path);

// Merges the devices' copies of output `p`: an element is taken from the
// device whose copy changed it (from `p.initial`); two devices changing it
// to different values is an error naming the param, element and values.
absl::StatusOr<std::string> Merge(const Param& p, const std::vector<std::string>& copies);

}  // namespace pto::tools::run

#endif  // PTO_TOOLS_RUN_PARAMS_H_
