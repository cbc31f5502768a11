// Functions and programs (docs/language.md).
#ifndef PTO_COMPILER_IR_FUNCTION_H_
#define PTO_COMPILER_IR_FUNCTION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/stmt.h"

namespace pto::ir {

// A function of the program: an orchestration, a kernel or a helper the
// pipeline inlines. Its parameters are Vars with a direction each, because
// the runtime's dependency tracking and the generated task descriptors need
// to know which tensors a call writes.
class Function : public Node {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kFunction; }

  // Derives level and role from func_type (spec §1.2) and rejects a conflicting
  // explicit level or role, or params/directions of different lengths, with a
  // located user error.
  static absl::StatusOr<std::shared_ptr<const Function>> Create(
      std::string name, std::vector<VarPtr> params, std::vector<ParamDirection> param_directions,
      std::vector<TypePtr> return_types, StmtPtr body, FunctionType func_type,
      std::optional<Level> level = std::nullopt, std::optional<Role> role = std::nullopt,
      AttrList attrs = {}, bool requires_runtime_binding = false, Span span = Span());

  const std::string& name() const { return name_; }
  const std::vector<VarPtr>& params() const { return params_; }
  const std::vector<ParamDirection>& param_directions() const { return param_directions_; }
  const std::vector<TypePtr>& return_types() const { return return_types_; }
  const StmtPtr& body() const { return body_; }
  FunctionType func_type() const { return func_type_; }
  const std::optional<Level>& level() const { return level_; }
  const std::optional<Role>& role() const { return role_; }
  const AttrList& attrs() const { return attrs_; }
  bool requires_runtime_binding() const { return requires_runtime_binding_; }

  // A copy with another body (level/role/attrs kept).
  std::shared_ptr<const Function> WithBody(StmtPtr body) const;

  // Spec §1.2 classification predicates.
  bool IsHostOrch() const;
  bool IsChipOrch() const;  // a dispatch target of a HOST orchestrator

  // Level/role implied by a func_type, if any.
  static std::optional<Level> DerivedLevel(FunctionType t);
  static std::optional<Role> DerivedRole(FunctionType t);

  // Use Create(); public for make_shared.
  struct Private {};
  Function(Private, std::string name, std::vector<VarPtr> params,
           std::vector<ParamDirection> param_directions, std::vector<TypePtr> return_types,
           StmtPtr body, FunctionType func_type, std::optional<Level> level,
           std::optional<Role> role, AttrList attrs, bool requires_runtime_binding, Span span);

 private:
  std::string name_;
  std::vector<VarPtr> params_;
  std::vector<ParamDirection> param_directions_;
  std::vector<TypePtr> return_types_;
  StmtPtr body_;
  FunctionType func_type_;
  std::optional<Level> level_;
  std::optional<Role> role_;
  AttrList attrs_;
  bool requires_runtime_binding_;
};
using FunctionPtr = std::shared_ptr<const Function>;

// The whole compilation unit. Functions are looked up by name on every call
// (`self.f(...)` holds a GlobalVar), and kept in name order so that printing
// and pass results do not depend on the order a pass created them in.
class Program : public Node {
 public:
  static bool Matches(NodeKind k) { return k == NodeKind::kProgram; }

  // Functions are keyed by GlobalVar and ordered by name; a duplicate name is a
  // located user error.
  static absl::StatusOr<std::shared_ptr<const Program>> Create(std::vector<FunctionPtr> functions,
                                                               std::string name,
                                                               Span span = Span());

  const std::string& name() const { return name_; }
  // (GlobalVar, Function) pairs ordered by name.
  const std::vector<std::pair<GlobalVarPtr, FunctionPtr>>& functions() const {
    return functions_;
  }
  FunctionPtr GetFunction(std::string_view name) const;
  GlobalVarPtr GetGlobalVar(std::string_view name) const;

  struct Private {};
  Program(Private, std::vector<std::pair<GlobalVarPtr, FunctionPtr>> functions, std::string name,
          Span span);

 private:
  std::vector<std::pair<GlobalVarPtr, FunctionPtr>> functions_;
  std::string name_;
};
using ProgramPtr = std::shared_ptr<const Program>;

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_FUNCTION_H_
