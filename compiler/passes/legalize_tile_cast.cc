#include "compiler/passes/legalize_tile_cast.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::DataType;

// (significand bits with the implicit one, exponent bits) of the floats
// whose precision a chain must not lose.
std::optional<std::pair<int, int>> FloatFormat(DataType t) {
  switch (t) {
    case DataType::kFP32:
      return std::make_pair(24, 8);
    case DataType::kFP16:
      return std::make_pair(11, 5);
    case DataType::kBF16:
      return std::make_pair(8, 8);
    default:
      return std::nullopt;
  }
}

int ValueBits(DataType t) {
  return ir::IsSignedInt(t) ? ir::DataTypeBits(t) - 1 : ir::DataTypeBits(t);
}

bool IsInt(DataType t) { return ir::IsSignedInt(t) || ir::IsUnsignedInt(t); }

// Whether an intermediate `mid` loses values that `to` represents.
bool Narrows(DataType mid, DataType to) {
  if (mid == to) return false;
  if (IsInt(mid) && ir::IsFloat(to)) return true;  // fractions are lost
  auto m = FloatFormat(mid);
  if (ir::IsFloat(mid) && ir::IsFloat(to)) {
    auto d = FloatFormat(to);
    return m && d && (m->first < d->first || m->second < d->second);
  }
  if (ir::IsFloat(mid) && IsInt(to)) return m && m->first < ValueBits(to);
  if (IsInt(mid) && IsInt(to)) {
    if (ir::IsUnsignedInt(mid) && ir::IsSignedInt(to)) return true;  // negatives are lost
    return ValueBits(mid) < ValueBits(to);
  }
  return false;
}

// Lower is preferred: integer -> float of one width, then float -> float.
int HopCost(DataType from, DataType to) {
  if (!ir::IsFloat(from) && ir::IsFloat(to) && ir::DataTypeBits(from) == ir::DataTypeBits(to)) {
    return 0;
  }
  return ir::IsFloat(from) && ir::IsFloat(to) ? 1 : 2;
}

class CastLegalizer : public ir::FlatteningMutator {
 public:
  // `table` is null for a platform that names no architecture.
  CastLegalizer(const TcvtTable* table, std::string platform)
      : table_(table), platform_(std::move(platform)) {}
  absl::Status status;

 protected:
  ir::StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& stmt) override {
    auto call = ir::As<ir::Call>(stmt->value());
    if (call == nullptr || ir::Is<ir::GlobalVar>(call->op()) ||
        !ir::IsOp(call, ir::OpId::kPlTileCast) || call->args().size() != 1 || !status.ok()) {
      return ir::IRMutator::MutateAssignStmt(stmt);
    }
    auto src = ir::As<ir::TileType>(call->args()[0]->type());
    auto dst = ir::As<ir::TileType>(stmt->var()->type());
    if (src == nullptr || dst == nullptr || src->dtype() == dst->dtype()) {
      return ir::IRMutator::MutateAssignStmt(stmt);
    }
    if (table_ == nullptr) {
      status = UserErrorF(call->span(), "LegalizeTileCast: platform '", platform_,
                          "' names no architecture (field 'arch' of its platform file), so which ",
                          "conversions one pto.tcvt performs is unknown; this cast converts ",
                          ir::DataTypeName(src->dtype()), " to ", ir::DataTypeName(dst->dtype()));
      return stmt;
    }
    if (table_->IsNative(src->dtype(), dst->dtype())) return ir::IRMutator::MutateAssignStmt(stmt);
    std::vector<DataType> chain = FindCastChain(*table_, src->dtype(), dst->dtype());
    if (chain.empty()) {
      status = UserErrorF(call->span(), "LegalizeTileCast: no chain of native casts converts ",
                          ir::DataTypeName(src->dtype()), " to ", ir::DataTypeName(dst->dtype()),
                          " on ", platform_, " (", table_->arch,
                          "); pto.tcvt cannot perform this conversion");
      return stmt;
    }
    std::vector<ir::StmtPtr> out;
    ir::ExprPtr cur = MutateExpr(call->args()[0]);
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
      auto type = std::make_shared<ir::TileType>(dst->shape(), chain[i], std::nullopt,
                                                 dst->valid_shape());
      auto mid = std::make_shared<ir::Var>(
          pto::StrCat(stmt->var()->name_hint(), "_", ir::DataTypeName(chain[i])), type,
          stmt->var()->span());
      out.push_back(std::make_shared<ir::AssignStmt>(mid, Cast(call, cur, chain[i], type),
                                                     stmt->span()));
      cur = mid;
    }
    ir::VarPtr var = MutateVarDef(stmt->var());
    out.push_back(std::make_shared<ir::AssignStmt>(
        var, Cast(call, cur, chain.back(), var->type()), stmt->span()));
    return ir::SeqStmts::Flatten(out, stmt->span());
  }

 private:
  // One hop: the original call's kwargs (the rounding mode) with `to`.
  static ir::ExprPtr Cast(const ir::CallPtr& call, ir::ExprPtr in, DataType to,
                          ir::TypePtr type) {
    return ir::MakeOpCall(ir::OpId::kPlTileCast, {std::move(in)}, std::move(type),
                          ir::WithAttr(call->kwargs(), "target_type", to), call->attrs(),
                          call->span());
  }

  const TcvtTable* table_;
  std::string platform_;
};

}  // namespace

std::vector<DataType> FindCastChain(const TcvtTable& table, DataType from, DataType to) {
  if (from == to) return {};
  if (table.IsNative(from, to)) return {to};
  // Breadth-first over the native edges; a node keeps the cheapest parent
  // among those at its depth. Edges are tried in table order: deterministic.
  struct Node {
    DataType parent;
    int depth;
    int cost;
  };
  absl::flat_hash_map<DataType, Node> seen;
  seen[from] = {from, 0, 0};
  std::vector<DataType> frontier = {from};
  while (!frontier.empty() && !seen.contains(to)) {
    std::vector<DataType> next;
    for (DataType cur : frontier) {
      const Node here = seen.at(cur);
      for (const auto& [a, b] : table.native) {
        if (a != cur || (b != to && Narrows(b, to))) continue;
        const int cost = here.cost + HopCost(cur, b);
        auto it = seen.find(b);
        if (it == seen.end()) {
          seen[b] = {cur, here.depth + 1, cost};
          next.push_back(b);
        } else if (it->second.depth == here.depth + 1 && cost < it->second.cost) {
          it->second = {cur, here.depth + 1, cost};
        }
      }
    }
    frontier = std::move(next);
  }
  if (!seen.contains(to)) return {};
  std::vector<DataType> chain;
  for (DataType t = to; t != from; t = seen.at(t).parent) chain.push_back(t);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

absl::StatusOr<ir::ProgramPtr> LegalizeTileCastPass::Run(const ir::ProgramPtr& program) {
  if (options_.platform.empty()) return program;
  const TcvtTable* table = TcvtTableForArch(options_.arch);
  if (table == nullptr && !options_.arch.empty()) {
    return absl::InternalError(pto::StrCat("LegalizeTileCast: no pto.tcvt table for architecture '",
                                           options_.arch, "' of platform '", options_.platform,
                                           "'"));
  }
  return RewriteFunctionBodies(program, [&](const ir::FunctionPtr& f) -> absl::StatusOr<ir::StmtPtr> {
    if (f->body() == nullptr || !ir::IsInCoreType(f->func_type())) return f->body();
    CastLegalizer legalizer(table, options_.platform);
    ir::StmtPtr body = legalizer.MutateStmt(f->body());
    if (!legalizer.status.ok()) return legalizer.status;
    return body;
  });
}

std::unique_ptr<Pass> CreateLegalizeTileCastPass(LegalizeTileCastOptions options) {
  return std::make_unique<LegalizeTileCastPass>(std::move(options));
}

}  // namespace pto::passes
