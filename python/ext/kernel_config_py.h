// PyPTO's `kernel_config.py` beside each `kernel_config.textproto` of a
// generated bundle (docs/python.md). PyPTO's tests read the Python file
// (hw-native-sys/pypto, python/pypto/backend/pto_backend.py writes it); our
// code generation writes the protobuf text (runtime/builtins/kernel_config.proto).
// The Python file is rendered from the parsed text, so the facts have one
// source: the textproto codegen wrote.
#ifndef PTO_PYTHON_EXT_KERNEL_CONFIG_PY_H_
#define PTO_PYTHON_EXT_KERNEL_CONFIG_PY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace pto::python {

// Renders one pto.builtins.KernelConfig (protobuf text) as PyPTO's
// kernel_config.py: RUNTIME_CONFIG, ORCHESTRATION and KERNELS with sources
// under the file's own directory. Directions are the ArgDirection member
// names as strings ("IN", "OUT") so the file imports without PyPTO's runtime.
// InvalidArgument for text that does not parse.
absl::StatusOr<std::string> KernelConfigPy(const std::string& textproto);

// `bundle` with a kernel_config.py added beside every kernel_config.textproto.
absl::StatusOr<std::map<std::string, std::string>> WithKernelConfigPy(
    const std::map<std::string, std::string>& bundle);

}  // namespace pto::python

#endif  // PTO_PYTHON_EXT_KERNEL_CONFIG_PY_H_
