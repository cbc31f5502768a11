#include "compiler/passes/pass_manager.h"

#include <chrono>
#include <cstdio>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/convert_tensor_to_tile_ops.h"
#include "compiler/passes/infer_tile_memory_space.h"
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

// The statements the parser reads and the pass of the pipeline that lowers
// each. A pass list that holds none of a construct's lowering passes meets it
// with a located error instead of passing it through unlowered.
class UnloweredFinder : public ir::IRVisitor {
 public:
  UnloweredFinder(const absl::flat_hash_set<std::string>& passes,
                  const std::vector<std::unique_ptr<Pass>>& list)
      : passes_(passes) {
    for (const std::unique_ptr<Pass>& p : list) {
      std::string n = PassRegistry::Global().PassNumber(p->name());
      if (!n.empty()) numbers_.push_back(n);
    }
  }
  const ir::Node* found = nullptr;
  std::string what;
  std::string lowered_by;

  void VisitStmt(const ir::StmtPtr& stmt) override {
    if (found == nullptr) ir::IRVisitor::VisitStmt(stmt);
  }
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& s) override {
    switch (s->GetScopeKind()) {
      case ir::ScopeKind::kSpmd:
        Check(s.get(), "a `with pl.spmd(...)` scope", "OutlineClusterScopes");
        break;
      case ir::ScopeKind::kCluster:
        Check(s.get(), "a `with pl.cluster(...)` scope", "OutlineClusterScopes");
        break;
      case ir::ScopeKind::kInCore:
        Check(s.get(), "a `with pl.at(level=pl.Level.CORE_GROUP)` scope", "OutlineIncoreScopes");
        break;
      case ir::ScopeKind::kSplitAiv: {
        // Passes 01-19 carry the region; 20 lowers it, 21 on must not meet it.
        bool past = false;
        for (const std::string& k : numbers_) past |= k > "19";
        if (past) Check(s.get(), "a `pl.split_aiv` region", "LowerAutoVectorSplit");
        break;
      }
      default:
        Check(s.get(), "a `with pl.at(...)` scope", "OutlineHierarchyScopes");
        break;
    }
    if (found == nullptr) ir::IRVisitor::VisitExecScopeStmt(s);
  }
  void VisitBreakStmt(const std::shared_ptr<const ir::BreakStmt>& s) override {
    Check(s.get(), "'break'", "CtrlFlowTransform");
  }
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& s) override {
    if (s->for_kind() == ir::ForKind::kPipeline) {
      bool reaches = false;
      for (const std::string& k : numbers_) reaches |= k > "28";
      if (reaches) Check(s.get(), "a `pl.pipeline` loop (ping-pong buffering)", "LowerPipelineLoops");
    }
    if (found == nullptr) ir::IRVisitor::VisitForStmt(s);
  }
  void VisitCall(const ir::CallPtr& call) override {
    if (found != nullptr) return;
    ir::IRVisitor::VisitCall(call);
  }
  void VisitContinueStmt(const std::shared_ptr<const ir::ContinueStmt>& s) override {
    Check(s.get(), "'continue'", "CtrlFlowTransform");
  }
  // A Var assigned again (the parser's non-SSA form), when the list runs a
  // pass that comes after 04 ConvertToSSA in the pipeline (the passes before
  // it read the non-SSA form).
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    if (found != nullptr) return;
    bool after_ssa = false;
    for (const std::string& k : numbers_) after_ssa |= k > "04";
    if (after_ssa && defined_.contains(s->var().get())) {
      Check(s.get(), pto::StrCat("the reassignment of '", s->var()->name_hint(), "'"),
            "ConvertToSSA");
      return;
    }
    ir::IRVisitor::VisitAssignStmt(s);
  }
  void Begin(const ir::FunctionPtr& f) {
    defined_.clear();
    for (const ir::VarPtr& p : f->params()) defined_.insert(p.get());
  }

 protected:
  void VisitVarDef(const ir::VarPtr& var) override {
    if (var != nullptr) defined_.insert(var.get());
  }

 private:
  void Check(const ir::Stmt* s, std::string_view construct, std::string_view pass) {
    if (found != nullptr || passes_.contains(ToAbsl(pass))) return;
    found = s;
    what = std::string(construct);
    lowered_by = std::string(pass);
  }
  // A construct only a PyPTO pass we do not have lowers: reported when the
  // pass list runs past that pass's place in PyPTO's pipeline.
  void OutOfScope(const ir::Node* n, std::string_view construct, std::string_view passes,
                  std::string_view number, std::string_view advice) {
    if (found != nullptr) return;
    bool reaches = false;
    for (const std::string& k : numbers_) reaches |= k > number;
    if (!reaches) return;
    found = n;
    what = pto::StrCat(construct, " needs PyPTO pass ", passes, "; out of scope here "
                       "(docs/language.md, \"Compatibility with PyPTO\")", advice);
    out_of_scope = true;
  }

  const absl::flat_hash_set<std::string>& passes_;
  std::vector<std::string> numbers_;
  absl::flat_hash_set<const ir::Var*> defined_;

 public:
  bool out_of_scope = false;
};

// "--passes=A,B,C": the list with `missing` put where the default pipeline
// runs it, which is what the user should run instead.
std::string WithPass(const std::vector<std::unique_ptr<Pass>>& passes, std::string_view missing) {
  const PassRegistry& reg = PassRegistry::Global();
  const std::string number = reg.PassNumber(missing);
  std::string out = "--passes=";
  bool placed = false;
  for (const std::unique_ptr<Pass>& p : passes) {
    if (!placed && !number.empty() && reg.PassNumber(p->name()) > number) {
      pto::StrAppend(&out, missing, ",");
      placed = true;
    }
    pto::StrAppend(&out, p->name(), ",");
  }
  if (!placed) pto::StrAppend(&out, missing, ",");
  out.pop_back();
  return out;
}

absl::Status CheckLowerable(const ir::ProgramPtr& program,
                            const std::vector<std::unique_ptr<Pass>>& passes) {
  absl::flat_hash_set<std::string> names;
  for (const std::unique_ptr<Pass>& p : passes) names.insert(std::string(p->name()));
  UnloweredFinder finder(names, passes);
  for (const auto& [gv, f] : program->functions()) {
    finder.Begin(f);
    finder.VisitStmt(f->body());
    if (finder.found != nullptr && finder.out_of_scope) {
      return UserError(finder.found->span(), finder.what);
    }
    if (finder.found != nullptr) {
      const std::string number = PassRegistry::Global().PassNumber(finder.lowered_by);
      return UserError(
          finder.found->span(),
          pto::StrCat(finder.what, " is lowered by pass ", number.empty() ? "" : number + " ",
                      finder.lowered_by, ", which this pass list (starting at ",
                      passes.front()->name(), ") does not run; add it (",
                      WithPass(passes, finder.lowered_by), ") or run the default pipeline"));
    }
  }
  // A value read after the loop or if body that first assigns it (Python's
  // scoping, the parser's non-SSA form): carried out by ConvertToSSA.
  bool after_ssa = false;
  for (const std::unique_ptr<Pass>& p : passes) {
    after_ssa |= PassRegistry::Global().PassNumber(p->name()) > "04";
  }
  if (after_ssa && !names.contains("ConvertToSSA")) {
    absl::Status scoping = ir::VerifyProgram(program, {.strict_scoping = true});
    if (!scoping.ok()) {
      absl::Status out(scoping.code(),
                       pto::StrCat(scoping.message(), ": such a value is carried out by pass "
                                   "04 ConvertToSSA, which this pass list (starting at ",
                                   passes.front()->name(), ") does not run; add it (",
                                   WithPass(passes, "ConvertToSSA"),
                                   ") or run the default pipeline"));
      scoping.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
        out.SetPayload(url, payload);
      });
      return out;
    }
  }
  return absl::OkStatus();
}

// Requires every property of `required` that `have` lacks to pass its
// verifier on `program`; such properties are then added to `have`.
absl::Status CheckRequired(const Pass& pass, const ir::ProgramPtr& program, IRPropertySet* have) {
  IRPropertySet missing = pass.required().Missing(*have);
  for (int i = 0; i < static_cast<int>(IRProperty::kCount); ++i) {
    IRProperty p = static_cast<IRProperty>(i);
    if (!missing.Contains(p)) continue;
    if (!HasPropertyVerifier(p)) {
      return absl::FailedPreconditionError(
          pto::StrCat("pass ", pass.name(), " requires IR properties that the program does not "
                      "have: ", IRPropertyName(p), " (run a pass that produces them first)"));
    }
    absl::Status s = VerifyProperty(p, program);
    if (!s.ok()) {
      absl::Status out(absl::StatusCode::kFailedPrecondition,
                       pto::StrCat("pass ", pass.name(), " requires IR property ",
                                   IRPropertyName(p), ", which the program does not have: ",
                                   s.message()));
      s.ForEachPayload([&out](absl::string_view key, const absl::Cord& value) {
        out.SetPayload(key, value);
      });
      return out;
    }
    have->Insert(p);
  }
  return absl::OkStatus();
}

bool ReachesPast(const std::vector<std::unique_ptr<Pass>>& passes, std::string_view number) {
  for (const std::unique_ptr<Pass>& p : passes) {
    if (PassRegistry::Global().PassNumber(p->name()) > number) return true;
  }
  return false;
}

bool Runs(const std::vector<std::unique_ptr<Pass>>& passes, std::string_view name) {
  for (const std::unique_ptr<Pass>& p : passes) {
    if (p->name() == name) return true;
  }
  return false;
}

bool Listed(bool all, const absl::flat_hash_set<std::string>& names, std::string_view pass) {
  return all || names.contains(ToAbsl(pass));
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
  if (!passes_.empty()) RETURN_IF_ERROR(CheckLowerable(program, passes_));
  if (options_.verify_each) {
    absl::Status s = ir::VerifyProgram(program);
    if (!s.ok()) {
      // The input is the user's program: its defects are user errors.
      return s;
    }
  }
  for (const std::unique_ptr<Pass>& pass : passes_) {
    RETURN_IF_ERROR(CheckRequired(*pass, program, &have));
    if (options_.dump != nullptr &&
        Listed(options_.print_before_all, options_.print_before, pass->name())) {
      *options_.dump << "# IR before " << pass->name() << "\n" << ir::PrintProgram(program);
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
    // A tensor-level matmul pass 10 did not convert has no lowering.
    if (pass->name() == "ConvertTensorToTileOps" && ReachesPast(passes_, "10")) {
      RETURN_IF_ERROR(CheckNoTensorMatmul(program));
    }
    // A mixed AIC + AIV kernel becomes visible once tiles have spaces; a
    // list that runs past 21 must split it there.
    if (pass->name() == "InferTileMemorySpace" && ReachesPast(passes_, "21") &&
        !Runs(passes_, "ExpandMixedKernel")) {
      RETURN_IF_ERROR(CheckNoMixedKernel(program));
    }
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
        Listed(options_.print_after_all, options_.print_after, pass->name())) {
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
