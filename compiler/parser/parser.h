// Front end of the PTO program language (docs/language.md): reads the text of a
// program and builds its IR (compiler/ir). Every bad input is a located user
// error (pto::UserError); the parser never crashes, recurses without bound or
// hangs, and runs in time linear in the input.
#ifndef PTO_COMPILER_PARSER_PARSER_H_
#define PTO_COMPILER_PARSER_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/function.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/jit_bindings.h"
#include "compiler/support/source.h"

namespace pto::parser {

// Nesting of brackets, unary operators, blocks and elif chains.
inline constexpr int kMaxNestingDepth = 200;
// Height of one expression tree (long operator chains such as a + b + ... + z).
inline constexpr int kMaxExpressionHeight = 1000;

struct ParseOptions {
  // Operators for `ns.op(...)` calls; nullptr means ops::OpRegistry::Global().
  const ops::OpRegistry* registry = nullptr;
  // Accept internal-only operators (builtin.tensor.*), which only passes may
  // create; set to re-parse lowered IR (pto-opt --allow-internal-ops).
  bool allow_internal_ops = false;
  // Shapes of @pl.jit functions' bare `pl.Tensor` parameters (jit_bindings.h).
  // A bare parameter without a binding is a located error that says how to bind it.
  JitBindings jit_bindings;
  // Where located warnings go (made with UserError: FormatDiagnostic prints
  // them; a tool says "warning"). Dropped when nullptr.
  std::vector<absl::Status>* warnings = nullptr;
};

absl::StatusOr<ir::ProgramPtr> ParseProgram(std::shared_ptr<const SourceFile> file,
                                            const ParseOptions& options = {});

// Convenience wrapper: wraps the text in a SourceFile named `path`.
absl::StatusOr<ir::ProgramPtr> ParseProgramText(std::string path, std::string text,
                                                const ParseOptions& options = {});

}  // namespace pto::parser

#endif  // PTO_COMPILER_PARSER_PARSER_H_
