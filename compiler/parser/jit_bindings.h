// Shapes of a @pl.jit function's bare `pl.Tensor` parameters, bound at the
// call. PyPTO's JIT (python/pypto/jit/specializer.py) specializes a function
// whose parameters are written `a: pl.Tensor` (or `pl.Out[pl.Tensor]`) to the
// shapes and dtypes of the tensors it is called with; a tool does the same by
// handing the parser one binding per parameter: from the command line
// (`pto-opt --bind a=[128,128]:FP32`) or from the inputs it runs with.
#ifndef PTO_COMPILER_PARSER_JIT_BINDINGS_H_
#define PTO_COMPILER_PARSER_JIT_BINDINGS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "compiler/ir/dtype.h"

namespace pto::parser {

struct TensorBinding {
  std::vector<int64_t> shape;  // every extent >= 1
  ir::DataType dtype = ir::DataType::kFP32;
};

// Key: `param` (every @pl.jit function's bare parameter of that name) or
// `function.param` (that function's only; it wins over `param`).
using JitBindings = absl::flat_hash_map<std::string, TensorBinding>;

// Reads one binding `NAME=[d0,d1,...]:DTYPE` (NAME is `param` or
// `function.param`; DTYPE a PyPTO dtype name such as FP32, case-insensitive,
// default FP32 when `:DTYPE` is left out) and adds it to `out`. An error says
// what is wrong with `spec`; binding a name twice is an error.
absl::Status AddJitBinding(std::string_view spec, JitBindings* out);

// The binding of `function`'s parameter `param`, or nullptr.
const TensorBinding* FindJitBinding(const JitBindings& bindings, std::string_view function,
                                    std::string_view param);

// `spec`'s text for messages: `[128, 128]:FP32`.
std::string JitBindingText(const TensorBinding& b);

}  // namespace pto::parser

#endif  // PTO_COMPILER_PARSER_JIT_BINDINGS_H_
