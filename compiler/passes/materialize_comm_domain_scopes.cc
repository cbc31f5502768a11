#include "compiler/passes/materialize_comm_domain_scopes.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/collective_def.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::CallPtr;
using ir::ExprPtr;
using ir::StmtPtr;
using ir::VarPtr;

constexpr ir::OpId kAlloc = ir::OpId::kPldTensorAllocWindowBuffer;
constexpr ir::OpId kWindow = ir::OpId::kPldTensorWindow;
constexpr ir::OpId kWorldSize = ir::OpId::kPldSystemWorldSize;

// The call if `e` calls operator `name` (not a program function).
CallPtr AsOpCall(const ExprPtr& e, ir::OpId id) {
  CallPtr call = ir::As<ir::Call>(e);
  if (call == nullptr || call->op() == nullptr || !ir::IsOp(call, id)) return nullptr;
  return call;
}

// The devices one dispatch (or the union of several) runs on.
struct Descriptor {
  bool is_all = false;
  std::set<int64_t> subset;
};

// The device descriptors seen for one allocation, kept merged (any is_all =>
// all, else the union of subsets): merging is all the pass does with them, and
// a merged form keeps coverage inheritance linear.
struct Coverage {
  bool any = false;
  Descriptor merged;

  void Add(const Descriptor& d) {
    any = true;
    if (merged.is_all) return;
    if (d.is_all) {
      merged.is_all = true;
      merged.subset.clear();
      return;
    }
    merged.subset.insert(d.subset.begin(), d.subset.end());
  }
};

struct AllocRecord {
  CallPtr call;
  VarPtr ptr_var;
  ExprPtr size;
  std::string name;
  Span span;
  int views = 0;
  Coverage seen;
};

struct WindowRecord {
  CallPtr call;
  VarPtr old_view_var;
  size_t alloc;
};

// A collective's (data, signal) operands: the signal (or recv_counts) shares
// the data's device coverage. `data` is absent for a barrier.
struct CoveragePair {
  std::optional<size_t> data;
  size_t signal;
  std::string op;
  Span span;
};

// The collectives that consume window buffers on the HOST rail (spec §3.10
// step 3), from their CollectiveDef.
const ops::CollectiveDef* FindCollective(std::string_view op) {
  const ops::CollectiveDef* def = ops::FindCollective(op);
  return def != nullptr && def->OnRail(ops::CollectiveRail::kHost) ? def : nullptr;
}

// The (data, signal) operand pairs whose devices must agree: the signal, and
// every window count operand the collective writes (all_to_all_v's
// recv_counts), share the data's coverage; a barrier has no data (-1).
std::vector<std::pair<int, int>> CoveragePairs(const ops::CollectiveDef& def) {
  const int data = def.alias_arg == def.signal_arg ? -1 : static_cast<int>(def.alias_arg);
  std::vector<std::pair<int, int>> pairs = {{data, static_cast<int>(def.signal_arg)}};
  for (size_t c : def.count_args) {
    const ops::CollectiveOperand& o = def.operands[c];
    if (o.kind == ops::CollectiveOperandKind::kWindow && o.use != ops::OperandUse::kRead) {
      pairs.emplace_back(data, static_cast<int>(c));
    }
  }
  return pairs;
}

class HostAnalysis;

// Step 2: allocations, their window views, and every assignment's value.
class Collector : public ir::IRVisitor {
 public:
  explicit Collector(HostAnalysis* a) : a_(a) {}

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override;
  // A loop-carried view (ConvertToSSA's iter arg for `data = collective(data,
  // ...)` in a loop) stands for its init value, and so do the loop's results.
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    Carry(stmt->iter_args(), stmt->return_vars());
    IRVisitor::VisitForStmt(stmt);
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    Carry(stmt->iter_args(), stmt->return_vars());
    IRVisitor::VisitWhileStmt(stmt);
  }

 private:
  void Carry(const std::vector<ir::IterArgPtr>& iter_args,
             const std::vector<ir::VarPtr>& return_vars);
  HostAnalysis* a_;
};

// Step 3: dispatch sites and collective consumers.
class DispatchAnalyzer : public ir::IRVisitor {
 public:
  explicit DispatchAnalyzer(HostAnalysis* a) : a_(a) {}

 protected:
  void VisitType(const ir::TypePtr&) override {}
  void VisitForStmt(const std::shared_ptr<const ir::ForStmt>& stmt) override {
    loops_.push_back(stmt.get());
    ++repeating_scope_depth_;
    IRVisitor::VisitForStmt(stmt);
    --repeating_scope_depth_;
    loops_.pop_back();
  }
  void VisitWhileStmt(const std::shared_ptr<const ir::WhileStmt>& stmt) override {
    ++repeating_scope_depth_;
    IRVisitor::VisitWhileStmt(stmt);
    --repeating_scope_depth_;
  }
  void VisitCall(const CallPtr& call) override;

 private:
  absl::StatusOr<std::optional<Descriptor>> DescriptorOf(const ExprPtr& device,
                                                         const CallPtr& call) const;
  void AnalyzeCollective(const CallPtr& call, const ops::CollectiveDef& def);

  HostAnalysis* a_;
  std::vector<const ir::ForStmt*> loops_;
  int repeating_scope_depth_ = 0;
};

class HostAnalysis {
 public:
  HostAnalysis(const absl::flat_hash_set<std::string>& chip_orchs, const ir::FunctionPtr& func)
      : chip_orchs_(chip_orchs), func_(func) {}

  absl::StatusOr<StmtPtr> Run();

  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  bool failed() const { return !status_.ok(); }

  // Follows Var -> definition chains (cycle-safe) and returns the first
  // expression that is not a Var with a recorded definition.
  ExprPtr Unwrap(ExprPtr e) const {
    absl::flat_hash_set<const ir::Var*> visited;
    while (auto v = ir::As<ir::Var>(e)) {
      if (!visited.insert(v.get()).second) break;
      auto it = var_defs_.find(v.get());
      if (it == var_defs_.end()) break;
      e = it->second;
    }
    return e;
  }

  // The window view an expression stands for: a window result, or (through
  // aliases and collective results) the view it rebinds. Cycle-safe. Results
  // are memoized for every var on the walked chain, so long rebinding chains
  // (`x = pld.tensor.allreduce(x, s)` many times) resolve in linear total time.
  const WindowRecord* ResolveWindowRecord(const ExprPtr& expr) {
    return ResolveWindowRecordOf(ir::Is<ir::Var>(expr) ? static_cast<const ir::Var*>(expr.get())
                                                        : nullptr);
  }

  const WindowRecord* ResolveWindowRecordOf(const ir::Var* start) {
    std::vector<const ir::Var*> path;
    absl::flat_hash_set<const ir::Var*> on_path;
    const WindowRecord* result = nullptr;
    const ir::Var* v = start;
    while (v != nullptr) {
      if (auto m = resolved_.find(v); m != resolved_.end()) {
        result = m->second;
        break;
      }
      if (!on_path.insert(v).second) break;  // a cycle: no view
      path.push_back(v);
      if (auto w = window_by_var_.find(v); w != window_by_var_.end()) {
        result = &windows_[w->second];
        break;
      }
      auto it = var_defs_.find(v);
      if (it == var_defs_.end()) break;
      const ExprPtr& def = it->second;
      ExprPtr next;
      if (ir::Is<ir::Var>(def)) {
        next = def;
      } else if (CallPtr c = ir::As<ir::Call>(def)) {
        // A collective's result is the window it aliases (CollectiveDef).
        const ops::CollectiveDef* coll = ops::FindCollective(c);
        if (coll != nullptr && coll->alias_arg < c->args().size()) next = c->args()[coll->alias_arg];
      }
      v = ir::Is<ir::Var>(next) ? static_cast<const ir::Var*>(next.get()) : nullptr;
    }
    for (const ir::Var* v : path) resolved_[v] = result;
    return result;
  }

  const absl::flat_hash_set<std::string>& chip_orchs_;  // dispatch targets by name
  const ir::FunctionPtr& func_;
  std::vector<AllocRecord> allocs_;
  absl::flat_hash_map<const ir::Var*, size_t> alloc_by_ptr_;
  std::vector<WindowRecord> windows_;
  absl::flat_hash_map<const ir::Var*, size_t> window_by_var_;
  absl::flat_hash_map<const ir::Var*, ExprPtr> var_defs_;
  // Loop iter args, outer loops first (Collector::Carry).
  std::vector<ir::IterArgPtr> iter_args_;
  absl::flat_hash_map<const ir::Var*, const WindowRecord*> resolved_;
  std::vector<CoveragePair> pairs_;
  absl::Status status_;
};

void Collector::Carry(const std::vector<ir::IterArgPtr>& iter_args,
                      const std::vector<ir::VarPtr>& return_vars) {
  for (size_t i = 0; i < iter_args.size(); ++i) {
    if (iter_args[i] == nullptr || iter_args[i]->init_value() == nullptr) continue;
    a_->var_defs_[iter_args[i].get()] = iter_args[i]->init_value();
    a_->iter_args_.push_back(iter_args[i]);
    if (i < return_vars.size() && return_vars[i] != nullptr) {
      a_->var_defs_[return_vars[i].get()] = iter_args[i];
    }
  }
}

void Collector::VisitAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) {
  if (a_->failed()) return;
  a_->var_defs_[stmt->var().get()] = stmt->value();
  if (CallPtr call = AsOpCall(stmt->value(), kAlloc)) {
    // The op's deducer enforces both; S0 re-checks them as internal invariants.
    if (call->args().size() != 1) {
      return a_->Fail(InternalError(call->span(), "pld.tensor.alloc_window_buffer expects exactly "
                                                  "one arg (size)"));
    }
    std::optional<std::string> name = ir::GetAttr<std::string>(call->kwargs(), "name");
    if (!name.has_value() || name->empty()) {
      return a_->Fail(InternalError(
          call->span(), "pld.tensor.alloc_window_buffer requires a non-empty 'name' kwarg"));
    }
    a_->alloc_by_ptr_[stmt->var().get()] = a_->allocs_.size();
    a_->allocs_.push_back(
        AllocRecord{call, stmt->var(), call->args()[0], *name, stmt->span(), 0, {}});
  } else if (CallPtr call = AsOpCall(stmt->value(), kWindow)) {
    if (!call->args().empty()) {
      if (auto p = ir::As<ir::Var>(call->args()[0])) {
        if (auto it = a_->alloc_by_ptr_.find(p.get()); it != a_->alloc_by_ptr_.end()) {
          a_->window_by_var_[stmt->var().get()] = a_->windows_.size();
          a_->windows_.push_back(WindowRecord{call, stmt->var(), it->second});
          ++a_->allocs_[it->second].views;
        }
      }
    }
  }
  IRVisitor::VisitAssignStmt(stmt);
}

absl::StatusOr<std::optional<Descriptor>> DispatchAnalyzer::DescriptorOf(
    const ExprPtr& device, const CallPtr& call) const {
  // A Var's own span is its definition: report Var devices at the dispatch.
  const Span& span = device->span().known() && !ir::Is<ir::Var>(device) ? device->span()
                                                                          : call->span();
  if (auto c = ir::As<ir::ConstInt>(device)) {
    if (c->value() < 0) {
      return UserErrorF(span, "device=", c->value(), " is negative; a device index must be >= 0");
    }
    return Descriptor{false, {c->value()}};
  }
  auto var = ir::As<ir::Var>(device);
  if (var == nullptr) {
    return UserErrorF(span,
                      "device= expression must be ConstInt or the induction var of pl.range; got "
                      "an unsupported expression at ",
                      span.ToString());
  }
  const ir::ForStmt* loop = nullptr;
  for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
    if ((*it)->loop_var() == var) {
      loop = *it;
      break;
    }
  }
  if (loop == nullptr) {
    return UserError(span,
                     "device= Var is not the induction variable of any enclosing pl.range loop");
  }
  ExprPtr stop = a_->Unwrap(loop->stop());
  if (AsOpCall(stop, kWorldSize) != nullptr) return Descriptor{true, {}};
  auto stop_c = ir::As<ir::ConstInt>(stop);
  if (stop_c == nullptr) {
    return UserError(span, "device=r loop bound must be ConstInt or pld.system.world_size()");
  }
  auto start_c = ir::As<ir::ConstInt>(a_->Unwrap(loop->start()));
  auto step_c = ir::As<ir::ConstInt>(a_->Unwrap(loop->step()));
  if (start_c == nullptr || step_c == nullptr) {
    return UserErrorF(span, "device=r loop ", start_c == nullptr ? "start" : "step",
                          " must be ConstInt, got ",
                          ir::PrintExpr(start_c == nullptr ? loop->start() : loop->step()));
  }
  if (step_c->value() != 1) {
    // PyPTO's INTERNAL_CHECK, but a program reaches it: a located user error.
    return UserErrorF(span, "device=r over a non-unit-step loop is not supported (step=",
                      step_c->value(), "); dispatch over pl.range(start, stop)");
  }
  int64_t start = start_c->value();
  int64_t stop_v = stop_c->value();
  if (start < 0 || stop_v < start) {
    return UserErrorF(span, "device=r loop range [", start, ", ", stop_v,
                          ") must satisfy 0 <= start <= stop");
  }
  // An empty range dispatches to no device: it adds no coverage (see the doc).
  if (stop_v == start) return std::optional<Descriptor>();
  Descriptor d;
  for (int64_t i = start; i < stop_v; ++i) d.subset.insert(d.subset.end(), i);
  return d;
}

void DispatchAnalyzer::AnalyzeCollective(const CallPtr& call, const ops::CollectiveDef& def) {
  const std::string& op = call->op()->name();
  size_t n = call->args().size();
  if (n != def.operands.size()) {
    return a_->Fail(InternalErrorF(call->span(), op, " expects ", def.operands.size(),
                                   " positional args, got ", n));
  }
  // The counted exchange's signal protocol is single-use (its def's pattern).
  if (def.pattern == ops::CollectivePattern::kAllToAllV && repeating_scope_depth_ > 0) {
    return a_->Fail(UserErrorF(
        call->span(), op,
        " is not supported inside a for/while loop in a HOST orchestrator. "
        "The signal protocol is single-use and cannot reuse a signal across dynamic invocations "
        "(same restriction LowerCompositeOps enforces on the InCore path via "
        "CheckAllReduceLoopUse)."));
  }
  // INTERNAL in S0: the operands of a HOST collective are window views.
  auto operand = [&](int index) -> std::optional<size_t> {
    const ExprPtr& arg = call->args()[index];
    if (!ir::Is<ir::Var>(arg)) {
      a_->Fail(InternalErrorF(call->span(), op, " ", def.operands[index].role,
                              " must be a window view Var"));
      return std::nullopt;
    }
    const WindowRecord* w = a_->ResolveWindowRecord(arg);
    if (w == nullptr) {
      a_->Fail(InternalErrorF(call->span(), op, " ", def.operands[index].role,
                              " must be produced by pld.tensor.window"));
      return std::nullopt;
    }
    return w->alloc;
  };
  for (const auto& [data_index, signal_index] : CoveragePairs(def)) {
    std::optional<size_t> data;
    if (data_index >= 0) {
      data = operand(data_index);
      if (!data.has_value()) return;
    }
    std::optional<size_t> signal = operand(signal_index);
    if (!signal.has_value()) return;
    a_->pairs_.push_back(CoveragePair{data, *signal, op, call->span()});
  }
}

void DispatchAnalyzer::VisitCall(const CallPtr& call) {
  if (a_->failed()) return;
  if (auto gv = ir::As<ir::GlobalVar>(call->op())) {
    const ir::AttrValue* device = ir::FindAttr(call->attrs(), ir::kAttrDevice);
    if (device != nullptr && a_->chip_orchs_.contains(gv->name())) {
      ExprPtr dev;
      if (const auto* e = std::get_if<ExprPtr>(device)) {
        dev = *e;
      } else if (const auto* i = std::get_if<int64_t>(device)) {
        dev = std::make_shared<ir::ConstInt>(*i, ir::DataType::kIndex, call->span());
      } else {
        return a_->Fail(InternalError(call->span(), "device= attr must be an expression"));
      }
      absl::StatusOr<std::optional<Descriptor>> desc = DescriptorOf(dev, call);
      if (!desc.ok()) return a_->Fail(desc.status());
      if (desc->has_value()) {
        for (const ExprPtr& arg : call->args()) {
          if (!ir::Is<ir::Var>(arg)) continue;
          if (const WindowRecord* w = a_->ResolveWindowRecord(arg)) {
            a_->allocs_[w->alloc].seen.Add(**desc);
          }
        }
      }
    }
  } else if (call->op() != nullptr) {
    if (const ops::CollectiveDef* def = FindCollective(call->op()->name())) {
      AnalyzeCollective(call, *def);
      if (a_->failed()) return;
    }
  }
  IRVisitor::VisitCall(call);
}

// A host body already wrapped by this pass (also after a print/parse round
// trip, which puts the scope in a one-statement sequence).
bool AlreadyMaterialized(const StmtPtr& body) {
  if (ir::Is<ir::CommDomainScopeStmt>(body)) return true;
  auto seq = ir::As<ir::SeqStmts>(body);
  return seq != nullptr && seq->stmts().size() == 1 &&
         ir::Is<ir::CommDomainScopeStmt>(seq->stmts()[0]);
}

absl::StatusOr<StmtPtr> HostAnalysis::Run() {
  const StmtPtr& body = func_->body();
  if (AlreadyMaterialized(body)) return body;

  Collector collector(this);
  collector.VisitStmt(body);
  RETURN_IF_ERROR(status_);
  if (allocs_.empty()) return body;

  DispatchAnalyzer dispatches(this);
  dispatches.VisitStmt(body);
  RETURN_IF_ERROR(status_);

  // Step 4: a collective's signal (and all_to_all_v's recv_counts) lives on
  // the devices of its data buffer.
  for (const CoveragePair& pair : pairs_) {
    if (pair.data.has_value()) {
      const Coverage& from = allocs_[*pair.data].seen;
      if (!from.any) {
        return InternalErrorF(pair.span,
                              "MaterializeCommDomainScopes: collective data/target buffer has no "
                              "inferred comm-domain coverage to share with its signal buffer (",
                              pair.op, " on '", allocs_[*pair.data].name, "')");
      }
      if (*pair.data != pair.signal) allocs_[pair.signal].seen.Add(from.merged);
    } else if (!allocs_[pair.signal].seen.any) {
      // Never widened to all devices: that would hang a device-subset barrier.
      return UserError(pair.span,
                       "MaterializeCommDomainScopes: pld.tensor.barrier signal buffer has no "
                       "inferred comm-domain coverage — add a device= annotation or ensure the "
                       "signal window is consumed by a device-tagged chip dispatch");
    }
  }

  // Step 5. S0 raises InternalError, but a program reaches both (a window
  // buffer no chip dispatch takes), so they are user errors, the ValueError
  // of the seed doc.
  for (const AllocRecord& a : allocs_) {
    if (a.views == 0) {
      return UserErrorF(a.span, "pld.tensor.alloc_window_buffer '", a.name,
                        "' has no pld.tensor.window materialisation (dead allocation)");
    }
    if (!a.seen.any) {
      return UserErrorF(a.span, "pld.tensor.alloc_window_buffer '", a.name,
                        "' is not consumed by any chip_orch dispatch");
    }
  }

  // Steps 6-7: one WindowBuffer per allocation, shared by all its views.
  std::vector<ir::WindowBufferPtr> buffers;
  buffers.reserve(allocs_.size());
  for (const AllocRecord& a : allocs_) {
    buffers.push_back(std::make_shared<const ir::WindowBuffer>(a.ptr_var, a.size, false, false,
                                                               a.span));
  }
  ir::VarSubstMap subst;
  for (const WindowRecord& w : windows_) {
    auto old_type = ir::As<ir::DistributedTensorType>(w.old_view_var->type());
    if (old_type == nullptr) {
      return InternalErrorF(w.old_view_var->span(), "pld.tensor.window result '",
                            w.old_view_var->name_hint(), "' is not a DistributedTensor");
    }
    auto type = std::make_shared<const ir::DistributedTensorType>(
        old_type->shape(), old_type->dtype(), old_type->memref(), old_type->tensor_view(),
        buffers[w.alloc], old_type->span());
    subst[w.old_view_var.get()] = std::make_shared<const ir::Var>(w.old_view_var->name_hint(),
                                                                  type, w.old_view_var->span());
  }
  // Results of collectives and plain aliases of a view keep the window lineage
  // of the view they rebind (S0 test_ssa_allreduce_result_keeps_source_window_lineage):
  // `d = pld.tensor.allreduce(d, s)` twice must find a window-bound `d` the
  // second time, or LowerHostTensorCollectives rejects it as unbound.
  for (const auto& [var, value] : var_defs_) {
    if (window_by_var_.contains(var)) continue;
    auto old_type = ir::As<ir::DistributedTensorType>(var->type());
    if (old_type == nullptr || old_type->window_buffer()) continue;
    const WindowRecord* w = ResolveWindowRecordOf(var);
    if (w == nullptr) continue;
    auto type = std::make_shared<const ir::DistributedTensorType>(
        old_type->shape(), old_type->dtype(), old_type->memref(), old_type->tensor_view(),
        buffers[w->alloc], old_type->span());
    subst[var] = std::make_shared<const ir::Var>(var->name_hint(), type, var->span());
  }
  // A window-bound iter arg stays an iter arg, its init value rewritten too
  // (outer loops first, so an inner init sees the outer iter arg's final form).
  for (const ir::IterArgPtr& ia : iter_args_) {
    auto it = subst.find(ia.get());
    if (it == subst.end()) continue;
    it->second = std::make_shared<const ir::IterArg>(ia->name_hint(), it->second->type(),
                                                     ir::Substitute(ia->init_value(), subst),
                                                     ia->span());
  }
  StmtPtr new_body = ir::Substitute(body, subst);

  // Step 8: allocations with equal merged descriptors share a domain; domains
  // are ordered by their first allocation.
  struct Domain {
    Descriptor devices;
    std::vector<size_t> allocs;
    absl::flat_hash_set<std::string> names;
  };
  std::vector<Domain> domains;
  std::map<std::pair<bool, std::vector<int64_t>>, size_t> by_key;
  for (size_t i = 0; i < allocs_.size(); ++i) {
    const Descriptor& merged = allocs_[i].seen.merged;
    std::pair<bool, std::vector<int64_t>> key(
        merged.is_all, std::vector<int64_t>(merged.subset.begin(), merged.subset.end()));
    auto [it, inserted] = by_key.emplace(std::move(key), domains.size());
    if (inserted) domains.push_back(Domain{merged, {}, {}});
    Domain& domain = domains[it->second];
    if (!domain.names.insert(allocs_[i].name).second) {
      return InternalErrorF(allocs_[i].span, "duplicate allocation name '", allocs_[i].name,
                            "' within the same comm domain");
    }
    domain.allocs.push_back(i);
  }

  // Step 9: the first domain is the outermost scope.
  for (size_t d = domains.size(); d-- > 0;) {
    const Domain& domain = domains[d];
    std::vector<int64_t> devices;
    if (!domain.devices.is_all) {
      devices.assign(domain.devices.subset.begin(), domain.devices.subset.end());
    }
    std::vector<ir::WindowBufferPtr> slots;
    for (size_t i : domain.allocs) slots.push_back(buffers[i]);
    new_body = std::make_shared<const ir::CommDomainScopeStmt>(
        pto::StrCat("comm_d", d), std::move(devices), std::move(slots), std::move(new_body),
        ir::AttrList{}, allocs_[domain.allocs.front()].span);
  }
  return new_body;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> MaterializeCommDomainScopes::Run(const ir::ProgramPtr& program) {
  // Step 0: the dispatch targets (Graph functions excluded).
  absl::flat_hash_set<std::string> chip_orchs;
  for (const auto& [gv, func] : program->functions()) {
    if (func->IsChipOrch()) chip_orchs.insert(func->name());
  }
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& [gv, func] : program->functions()) {
    if (!func->IsHostOrch()) {
      functions.push_back(func);
      continue;
    }
    HostAnalysis analysis(chip_orchs, func);
    ASSIGN_OR_RETURN(StmtPtr body, analysis.Run());
    if (body == func->body()) {
      functions.push_back(func);
    } else {
      functions.push_back(func->WithBody(std::move(body)));
      changed = true;
    }
  }
  if (!changed) return program;
  return ir::Program::Create(std::move(functions), program->name(), program->span());
}

std::unique_ptr<Pass> CreateMaterializeCommDomainScopesPass() {
  return std::make_unique<MaterializeCommDomainScopes>();
}

}  // namespace pto::passes
