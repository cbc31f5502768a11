#include "tools/single_chip.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/diagnostics.h"

namespace pto::tools::run {
namespace {

bool IsUserKernel(const ir::FunctionPtr& f) {
  using ir::FunctionType;
  const FunctionType t = f->func_type();
  return (t == FunctionType::kInCore || t == FunctionType::kAIV || t == FunctionType::kAIC) &&
         ir::FindAttr(f->attrs(), "builtin_template_dir") == nullptr;
}

// Whether `f` has a scope to outline (`with pl.at(...)`, `with pl.incore()`).
class HasExecScope : public ir::IRVisitor {
 public:
  bool found = false;

 protected:
  void VisitExecScopeStmt(const std::shared_ptr<const ir::ExecScopeStmt>& stmt) override {
    found = true;
  }
};

// PyPTO's single-chip `@pl.function(type=pl.FunctionType.Opaque)` with a
// scope: the pipeline outlines the scope into a kernel and makes the function
// the orchestration (OutlineIncoreScopes), so it is one here.
bool IsChipOrchestration(const ir::FunctionPtr& f) {
  if (f->IsChipOrch()) return true;
  if (f->func_type() != ir::FunctionType::kOpaque || f->IsHostOrch()) return false;
  HasExecScope scopes;
  scopes.VisitStmt(f->body());
  return scopes.found;
}

std::string Quoted(const std::vector<std::string>& names) {
  return absl::StrCat("'", absl::StrJoin(names, "', '"), "'");
}

}  // namespace

bool HasHostOrchestrator(const ir::ProgramPtr& program) {
  for (const auto& [gv, f] : program->functions()) {
    if (f->IsHostOrch()) return true;
  }
  return false;
}

absl::StatusOr<ChipEntry> ChooseChipEntry(const ir::ProgramPtr& program,
                                          std::string_view requested) {
  std::vector<std::string> orchestrations, kernels;
  for (const auto& [gv, f] : program->functions()) {
    if (IsChipOrchestration(f)) orchestrations.push_back(f->name());
    if (IsUserKernel(f)) kernels.push_back(f->name());
  }
  auto candidates = [&] {
    std::vector<std::string> all = orchestrations;
    all.insert(all.end(), kernels.begin(), kernels.end());
    return all.empty() ? std::string("none") : Quoted(all);
  };
  if (!requested.empty()) {
    for (const std::string& n : orchestrations) {
      if (n == requested) return ChipEntry{n, false};
    }
    for (const std::string& n : kernels) {
      if (n == requested) return ChipEntry{n, true};
    }
    return UserErrorF(program->span(), "--entry=", requested,
                      ": the program has no CHIP orchestration or kernel of that name "
                      "(candidates: ",
                      candidates(), ")");
  }
  if (orchestrations.size() == 1) return ChipEntry{orchestrations[0], false};
  if (orchestrations.size() > 1) {
    return UserErrorF(program->span(), "the program has no HOST orchestrator and ",
                      orchestrations.size(), " CHIP orchestrations (", Quoted(orchestrations),
                      "); choose the one to run with --entry=NAME");
  }
  if (kernels.size() == 1) return ChipEntry{kernels[0], true};
  if (kernels.size() > 1) {
    return UserErrorF(program->span(), "the program has no orchestration and ", kernels.size(),
                      " kernels (", Quoted(kernels),
                      "); choose the one to run with --entry=NAME, or add an orchestration");
  }
  return UserErrorF(program->span(),
                    "the program has no HOST orchestrator, no orchestration and no kernel; "
                    "pto-run has nothing to run");
}

absl::StatusOr<ir::ProgramPtr> WrapKernel(const ir::ProgramPtr& program, const std::string& kernel,
                                          std::string* orchestration) {
  ir::FunctionPtr k = program->GetFunction(kernel);
  if (k == nullptr) {
    return absl::InternalError(absl::StrCat("WrapKernel: no function '", kernel, "'"));
  }
  std::string name = kernel + "_entry";
  for (int i = 2; program->GetFunction(name) != nullptr; ++i) {
    name = absl::StrCat(kernel, "_entry", i);
  }
  const Span span = k->span();
  std::vector<ir::VarPtr> params;
  std::vector<ir::ExprPtr> args;
  for (const ir::VarPtr& p : k->params()) {
    auto v = std::make_shared<ir::Var>(p->name_hint(), p->type(), p->span());
    params.push_back(v);
    args.push_back(v);
  }
  const std::vector<ir::TypePtr>& rets = k->return_types();
  ir::TypePtr call_type = rets.size() == 1 ? rets[0] : std::make_shared<ir::TupleType>(rets, span);
  auto call = std::make_shared<ir::Call>(program->GetGlobalVar(kernel), std::move(args),
                                         ir::AttrList{}, ir::AttrList{}, call_type, span);
  std::vector<ir::StmtPtr> body;
  if (rets.empty()) {
    body.push_back(std::make_shared<ir::EvalStmt>(call, std::vector<std::string>{}, span));
    body.push_back(std::make_shared<ir::ReturnStmt>(std::vector<ir::ExprPtr>{},
                                                    std::vector<std::string>{}, span));
  } else {
    auto result = std::make_shared<ir::Var>("result", call_type, span);
    body.push_back(std::make_shared<ir::AssignStmt>(result, call, span));
    std::vector<ir::ExprPtr> values;
    if (rets.size() == 1) {
      values.push_back(result);
    } else {
      for (size_t i = 0; i < rets.size(); ++i) {
        values.push_back(
            std::make_shared<ir::TupleGetItem>(result, static_cast<int>(i), rets[i], span));
      }
    }
    body.push_back(std::make_shared<ir::ReturnStmt>(std::move(values),
                                                    std::vector<std::string>{}, span));
  }
  absl::StatusOr<ir::FunctionPtr> orch = ir::Function::Create(
      name, std::move(params), k->param_directions(), rets,
      std::make_shared<ir::SeqStmts>(std::move(body), span), ir::FunctionType::kOrchestration,
      std::nullopt, std::nullopt, {}, false, span);
  if (!orch.ok()) return orch.status();
  std::vector<ir::FunctionPtr> functions;
  for (const auto& [gv, f] : program->functions()) functions.push_back(f);
  functions.push_back(*orch);
  absl::StatusOr<ir::ProgramPtr> out =
      ir::Program::Create(std::move(functions), program->name(), program->span());
  if (out.ok()) *orchestration = name;
  return out;
}

absl::StatusOr<ir::ProgramPtr> PrepareSingleChip(const ir::ProgramPtr& program,
                                                 std::string_view requested,
                                                 std::string* orchestration,
                                                 ChipEntry* chosen) {
  absl::StatusOr<ChipEntry> entry = ChooseChipEntry(program, requested);
  if (!entry.ok()) return entry.status();
  if (chosen != nullptr) *chosen = *entry;
  if (!entry->kernel) {
    *orchestration = entry->name;
    return program;
  }
  return WrapKernel(program, entry->name, orchestration);
}

}  // namespace pto::tools::run
