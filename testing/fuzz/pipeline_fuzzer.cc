// Fuzz target, end to end: a (mutated) program through the parser, the
// verifier, the default pipeline with every pass verified (for a2a3) and
// code generation. Every stage may reject the program with an error; none
// may crash, hang or hand the next stage IR its verifier rejects (the pass
// manager checks that, and an internal error here is a bug: abort).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "compiler/codegen/program_codegen.h"
#include "compiler/codegen/template_source.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/target.h"

namespace {

// Internal errors are compiler bugs; everything else is a user error.
void CheckNotInternal(const absl::Status& s, const char* stage) {
  if (s.ok() || s.code() != absl::StatusCode::kInternal) return;
  std::fprintf(stderr, "%s: internal error: %s\n", stage, std::string(s.message()).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Keep each run short: the pipeline is superlinear in nothing, but codegen
  // of a huge program only slows the search down.
  if (size > 16 * 1024) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto program = pto::parser::ParseProgramText("fuzz.pto", text);
  if (!program.ok()) return 0;
  if (!pto::ir::VerifyProgram(*program).ok()) return 0;
  pto::passes::PassManagerOptions options;
  options.verify_each = true;
  options.target = *pto::passes::TargetForPlatform("a2a3");
  pto::passes::PassManager pm(options);
  if (!pm.AddPipeline("default").ok()) std::abort();
  auto lowered = pm.Run(*program);
  if (!lowered.ok()) {
    CheckNotInternal(lowered.status(), "default pipeline");
    return 0;
  }
  const char* root = std::getenv("PTO_TEMPLATES");
  pto::codegen::DirectoryTemplateSource templates(root != nullptr ? root : "runtime/builtins");
  auto bundle = pto::codegen::GenerateProgram(*lowered, templates);
  if (!bundle.ok()) CheckNotInternal(bundle.status(), "codegen");
  return 0;
}
