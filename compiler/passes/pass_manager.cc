#include "compiler/passes/pass_manager.h"

#include <chrono>
#include <cstdio>

#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_registry.h"
#include "compiler/passes/property_verifiers.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// Keeps the location of a verifier error while saying which pass broke the IR.
absl::Status VerificationFailure(const absl::Status& s, std::string_view when) {
  absl::Status out(absl::StatusCode::kInternal,
                   pto::StrCat("IR verification failed ", when, ": ", s.message()));
  s.ForEachPayload([&out](absl::string_view key, const absl::Cord& value) {
    out.SetPayload(key, value);
  });
  return out;
}

}  // namespace

namespace {

// The statements the parser reads that no pass lowers yet (issue 10 parses
// them; their lowering is the pipeline's next step). A pipeline meets them
// with a located error instead of passing them through unlowered.
class UnloweredFinder : public ir::IRVisitor {
 public:
  const ir::Stmt* found = nullptr;
  std::string what;

  void VisitStmt(const ir::StmtPtr& stmt) override {
    if (found == nullptr) ir::IRVisitor::VisitStmt(stmt);
  }
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override {
    switch (s->GetScopeKind()) {
      case ir::ScopeKind::kSpmd: what = "a `with pl.spmd(...)` scope"; break;
      case ir::ScopeKind::kCluster: what = "a `with pl.cluster(...)` scope"; break;
      default: what = "a `with pl.at(...)` scope"; break;
    }
    found = s.get();
  }
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    what = "'break'";
    found = s.get();
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    what = "'continue'";
    found = s.get();
  }
};

absl::Status CheckLowerable(const ir::ProgramPtr& program, std::string_view first_pass) {
  UnloweredFinder finder;
  for (const auto& [gv, f] : program->functions()) {
    finder.VisitStmt(f->body());
    if (finder.found != nullptr) {
      return UserError(finder.found->span(),
                       pto::StrCat("pass ", first_pass, " cannot lower ", finder.what,
                                   " yet: the front end reads and prints it, but no pass of "
                                   "the pipeline handles it; remove it or run pto-opt without "
                                   "passes"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PassManager::AddPass(std::string_view name) {
  ASSIGN_OR_RETURN(std::unique_ptr<Pass> pass, PassRegistry::Global().Create(name, options_.target));
  passes_.push_back(std::move(pass));
  return absl::OkStatus();
}

absl::Status PassManager::AddPipeline(std::string_view name) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, PassRegistry::Global().Pipeline(name));
  for (const std::string& n : names) RETURN_IF_ERROR(AddPass(n));
  return absl::OkStatus();
}

absl::StatusOr<ir::ProgramPtr> PassManager::Run(ir::ProgramPtr program,
                                                IRPropertySet* properties) {
  IRPropertySet have = properties != nullptr ? *properties : IRPropertySet();
  if (!passes_.empty()) RETURN_IF_ERROR(CheckLowerable(program, passes_.front()->name()));
  if (options_.verify_each) {
    absl::Status s = ir::VerifyProgram(program);
    if (!s.ok()) {
      // The input is the user's program: its defects are user errors.
      return s;
    }
  }
  for (const std::unique_ptr<Pass>& pass : passes_) {
    IRPropertySet missing = pass->required().Missing(have);
    if (!missing.empty()) {
      return absl::FailedPreconditionError(
          pto::StrCat("pass ", pass->name(), " requires IR properties that the program does not "
                      "have: ",
                      missing.ToString(), " (run a pass that produces them first)"));
    }
    auto start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(ir::ProgramPtr out, pass->Run(program));
    auto end = std::chrono::steady_clock::now();
    bool changed = out != program;
    if (options_.timing) {
      timings_.push_back({std::string(pass->name()),
                          std::chrono::duration<double>(end - start).count(), changed});
    }
    program = std::move(out);
    have |= pass->produced();
    have = have.Without(pass->invalidated());
    if (options_.verify_each) {
      absl::Status s = ir::VerifyProgram(program);
      if (!s.ok()) return VerificationFailure(s, pto::StrCat("after pass ", pass->name()));
      // The pass's claims: every property it produces must hold.
      for (int i = 0; i < static_cast<int>(IRProperty::kCount); ++i) {
        IRProperty p = static_cast<IRProperty>(i);
        if (!pass->produced().Contains(p)) continue;
        s = VerifyProperty(p, program);
        if (!s.ok()) {
          return VerificationFailure(
              s, pto::StrCat("after pass ", pass->name(), " (property ", IRPropertyName(p), ")"));
        }
      }
    }
    if (options_.dump != nullptr &&
        (options_.print_after_all || options_.print_after.contains(ToAbsl(pass->name())))) {
      *options_.dump << "# IR after " << pass->name() << (changed ? "" : " (unchanged)") << "\n"
                     << ir::PrintProgram(program);
    }
  }
  if (properties != nullptr) *properties = have;
  return program;
}

std::string PassManager::TimingReport() const {
  std::string out = "pass timing (wall seconds):\n";
  double total = 0;
  for (const PassTiming& t : timings_) {
    char line[160];
    std::snprintf(line, sizeof(line), "  %10.6f  %s%s\n", t.seconds, t.pass.c_str(),
                  t.changed ? "" : " (unchanged)");
    out += line;
    total += t.seconds;
  }
  char line[80];
  std::snprintf(line, sizeof(line), "  %10.6f  total\n", total);
  return out + line;
}

}  // namespace pto::passes
