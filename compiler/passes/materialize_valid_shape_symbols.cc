#include "compiler/passes/materialize_valid_shape_symbols.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/attrs.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;

// A symbol the kernel cannot bind and the (param, dim) slots that name it
// bare.
struct Symbol {
  std::string name;
  std::vector<std::pair<size_t, size_t>> slots;
};

bool IsDeviceKernel(ir::FunctionType t) {
  return t == ir::FunctionType::kInCore || t == ir::FunctionType::kAIC ||
         t == ir::FunctionType::kAIV || t == ir::FunctionType::kSpmd;
}

// The pl.dynamic names `e` reads, in first-seen order.
void CollectDynDims(const ExprPtr& e, std::vector<std::string>* out) {
  if (e == nullptr) return;
  if (auto d = ir::As<ir::DynDim>(e)) {
    for (const std::string& n : *out) {
      if (n == d->name()) return;
    }
    out->push_back(d->name());
  } else if (auto b = ir::As<ir::BinaryExpr>(e)) {
    CollectDynDims(b->lhs(), out);
    CollectDynDims(b->rhs(), out);
  } else if (auto u = ir::As<ir::UnaryExpr>(e)) {
    CollectDynDims(u->operand(), out);
  } else if (auto c = ir::As<ir::Cast>(e)) {
    CollectDynDims(c->value(), out);
  }
}

const std::vector<ExprPtr>* DeclaredValidShape(const ir::TypePtr& type) {
  auto t = ir::AsTensorTypeLike(type);
  if (t == nullptr || !t->tensor_view().has_value() || t->tensor_view()->valid_shape.empty()) {
    return nullptr;
  }
  return &t->tensor_view()->valid_shape;
}

absl::StatusOr<std::vector<Symbol>> Plan(const ir::Function& f) {
  std::set<std::string> bound;
  for (const ir::VarPtr& p : f.params()) {
    auto t = ir::AsTensorTypeLike(p->type());
    if (t == nullptr) {
      bound.insert(p->name_hint());
      continue;
    }
    std::vector<std::string> names;
    for (const ExprPtr& d : t->shape()) CollectDynDims(d, &names);
    bound.insert(names.begin(), names.end());
  }
  std::vector<Symbol> symbols;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < f.params().size(); ++i) {
    const std::vector<ExprPtr>* valid = DeclaredValidShape(f.params()[i]->type());
    if (valid == nullptr) continue;
    for (size_t d = 0; d < valid->size(); ++d) {
      auto dyn = ir::As<ir::DynDim>((*valid)[d]);
      if (dyn == nullptr || bound.count(dyn->name()) > 0) continue;
      auto [it, fresh] = index.emplace(dyn->name(), symbols.size());
      if (fresh) symbols.push_back({dyn->name(), {}});
      symbols[it->second].slots.emplace_back(i, d);
    }
  }
  // A symbol only inside a compound dim cannot be read back from a call's
  // actual extent: a wrong valid extent would read or write the wrong region.
  for (size_t i = 0; i < f.params().size(); ++i) {
    const std::vector<ExprPtr>* valid = DeclaredValidShape(f.params()[i]->type());
    if (valid == nullptr) continue;
    for (const ExprPtr& dim : *valid) {
      if (ir::Is<ir::DynDim>(dim)) continue;
      std::vector<std::string> names;
      CollectDynDims(dim, &names);
      for (const std::string& n : names) {
        if (bound.count(n) > 0 || index.count(n) > 0) continue;
        return UserErrorF(
            f.params()[i]->span(), "MaterializeValidShapeSymbols: parameter '",
            f.params()[i]->name_hint(), "' of kernel '", f.name(), "' names symbol '", n,
            "' only inside the valid_shape dim '", ir::PrintExpr(dim),
            "', from which a call's extent cannot be read back; name the symbol on its own in a "
            "parameter's pl.TensorView(valid_shape=...), or pass the extent as a "
            "pl.Scalar[pl.INDEX] parameter");
      }
    }
  }
  return symbols;
}

class CallRewriter : public ir::IRMutator {
 public:
  explicit CallRewriter(const std::map<std::string, std::vector<Symbol>>& plans) : plans_(plans) {}
  absl::Status status() const { return status_; }

 protected:
  ExprPtr MutateCall(const ir::CallPtr& c) override {
    ExprPtr base = ir::IRMutator::MutateCall(c);
    auto call = ir::As<ir::Call>(base);
    if (call == nullptr || !ir::Is<ir::GlobalVar>(call->op()) || !status_.ok()) return base;
    auto plan = plans_.find(call->op()->name());
    if (plan == plans_.end()) return base;
    std::vector<ExprPtr> args;
    for (const Symbol& s : plan->second) {
      ExprPtr value;
      for (const auto& [p, d] : s.slots) {
        if (p >= call->args().size()) {
          status_ = InternalErrorF(call->span(), "MaterializeValidShapeSymbols: kernel '",
                               call->op()->name(), "' reads valid_shape symbol '", s.name,
                               "' from its parameter ", p, ", which this call does not pass");
          return base;
        }
        auto t = ir::AsTensorTypeLike(call->args()[p]->type());
        ExprPtr candidate;
        if (t != nullptr) {
          const std::vector<ExprPtr>* valid = DeclaredValidShape(t);
          const std::vector<ExprPtr>& dims = valid != nullptr ? *valid : t->shape();
          if (d < dims.size()) candidate = dims[d];
        }
        if (candidate == nullptr) {
          status_ = InternalErrorF(call->args()[p]->span(), "MaterializeValidShapeSymbols: argument ",
                               p, " of this call of '", call->op()->name(),
                               "' has no extent at dim ", d, " for valid_shape symbol '", s.name,
                               "'");
          return base;
        }
        if (value != nullptr && !ir::StructuralEqual(value, candidate)) {
          status_ = UserErrorF(
              call->span(), "MaterializeValidShapeSymbols: kernel '", call->op()->name(),
              "' declares valid_shape symbol '", s.name,
              "' on more than one parameter, and this call's arguments give it two extents ('",
              ir::PrintExpr(value), "' and '", ir::PrintExpr(candidate),
              "'); pass arguments whose valid_shape agrees there");
          return base;
        }
        value = candidate;
      }
      args.push_back(value);
    }
    args.insert(args.end(), call->args().begin(), call->args().end());
    ir::AttrList attrs = call->attrs();
    if (auto dirs = ir::GetAttr<std::vector<ir::ArgDirection>>(attrs, ir::kAttrArgDirections)) {
      std::vector<ir::ArgDirection> d(plan->second.size(), ir::ArgDirection::kScalar);
      d.insert(d.end(), dirs->begin(), dirs->end());
      attrs = ir::WithAttr(std::move(attrs), ir::kAttrArgDirections, std::move(d));
    }
    return std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(),
                                      std::move(attrs), call->type(), call->span());
  }

 private:
  const std::map<std::string, std::vector<Symbol>>& plans_;
  absl::Status status_;
};

// Makes the kernel read each symbol from its new parameter: every
// pl.dynamic of that name in the kernel's types and body becomes the
// parameter Var (PyPTO's symbol is that Var), so the printed kernel
// re-parses to the same IR and a second run finds the symbol bound.
class SymbolBinder : public ir::IRMutator {
 public:
  explicit SymbolBinder(std::map<std::string, ir::VarPtr> params) : params_(std::move(params)) {}

 protected:
  ExprPtr MutateLeafExpr(const ExprPtr& e) override {
    if (auto d = ir::As<ir::DynDim>(e)) {
      auto it = params_.find(d->name());
      if (it != params_.end()) return it->second;
    }
    return e;
  }

 private:
  std::map<std::string, ir::VarPtr> params_;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> MaterializeValidShapeSymbolsPass::Run(
    const ir::ProgramPtr& program) {
  std::map<std::string, std::vector<Symbol>> plans;
  for (const auto& [gv, func] : program->functions()) {
    if (!IsDeviceKernel(func->func_type())) continue;
    ASSIGN_OR_RETURN(std::vector<Symbol> symbols, Plan(*func));
    if (!symbols.empty()) plans.emplace(func->name(), std::move(symbols));
  }
  if (plans.empty()) return program;
  std::vector<ir::FunctionPtr> functions;
  for (const auto& [gv, func] : program->functions()) {
    CallRewriter rewriter(plans);
    ir::StmtPtr body = rewriter.MutateStmt(func->body());
    RETURN_IF_ERROR(rewriter.status());
    auto plan = plans.find(func->name());
    if (plan == plans.end()) {
      functions.push_back(body == func->body() ? func : func->WithBody(std::move(body)));
      continue;
    }
    // Leading parameters: the later annotations that name the symbol then
    // print after its declaration, so the output re-parses.
    std::vector<ir::VarPtr> params;
    std::vector<ir::ParamDirection> dirs;
    std::map<std::string, ir::VarPtr> by_name;
    for (const Symbol& s : plan->second) {
      params.push_back(std::make_shared<ir::Var>(
          s.name, ir::ScalarType::Get(ir::DataType::kIndex), func->span()));
      by_name.emplace(s.name, params.back());
      dirs.push_back(ir::ParamDirection::kIn);
    }
    params.insert(params.end(), func->params().begin(), func->params().end());
    dirs.insert(dirs.end(), func->param_directions().begin(), func->param_directions().end());
    ASSIGN_OR_RETURN(ir::FunctionPtr extended,
                     ir::Function::Create(func->name(), std::move(params), std::move(dirs),
                                          func->return_types(), std::move(body),
                                          func->func_type(), func->level(), func->role(),
                                          func->attrs(), func->requires_runtime_binding(),
                                          func->span()));
    SymbolBinder binder(std::move(by_name));
    functions.push_back(binder.MutateFunction(extended));
  }
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateMaterializeValidShapeSymbolsPass() {
  return std::make_unique<MaterializeValidShapeSymbolsPass>();
}

}  // namespace pto::passes
