#include "compiler/passes/tile_memrefs.h"

#include <memory>
#include <utility>


namespace pto::passes {
ir::TypePtr TileWithMemRef(const ir::TileType& tile, ir::MemRefPtr memref) {
  return std::make_shared<ir::TileType>(tile.shape(), tile.dtype(), std::move(memref),
                                        tile.valid_shape(), tile.span(), tile.memory_space());
}

ir::VarPtr TileRetyper::MutateVarDef(const ir::VarPtr& var) {
  auto it = memrefs_.find(var.get());
  auto tile = ir::As<ir::TileType>(var->type());
  if (it == memrefs_.end() || tile == nullptr) return RemapVar(var);
  if (ir::VarPtr done = LookupVarReplacement(var.get())) return done;
  ir::VarPtr out = RetypedVarDef(var, TileWithMemRef(*tile, it->second),
                                 [&](const ir::ExprPtr& e) { return MutateExpr(e); });
  SetVarReplacement(var, out);
  return out;
}

ir::VarPtr RetypedVarDef(const ir::VarPtr& var, ir::TypePtr type,
                         const std::function<ir::ExprPtr(const ir::ExprPtr&)>& init) {
  if (auto ia = ir::As<ir::IterArg>(var)) {
    return std::make_shared<ir::IterArg>(ia->name_hint(), std::move(type),
                                         init(ia->init_value()), ia->span());
  }
  return std::make_shared<ir::Var>(var->name_hint(), std::move(type), var->span());
}

bool HoldsTiles(const ir::FunctionPtr& fn) {
  return fn->body() != nullptr && ir::IsInCoreType(fn->func_type());
}

ir::MemRefPtr TileMemRef(const ir::TypePtr& type) {
  auto tile = ir::As<ir::TileType>(type);
  if (tile == nullptr || !tile->memref().has_value()) return nullptr;
  return *tile->memref();
}

std::optional<int64_t> TileBytes(const ir::TileType& tile) {
  const int64_t elem = ir::DataTypeBytes(tile.dtype());
  int64_t count = 1;
  for (const ir::ExprPtr& d : tile.shape()) {
    std::optional<int64_t> v = ir::GetConstInt(d);
    if (!v || *v < 0) return std::nullopt;
    count *= *v;
  }
  std::optional<ir::MemorySpace> space = tile.Space();
  if (!space || !ir::IsCubeSpace(*space)) return count * elem;
  // A cube buffer stores fractals of 16 rows x 32 bytes (L0C: 16 x 16
  // elements; Bias: one row in 32-byte blocks): pto-isa's TASSIGN footprint,
  // the rule runtime/device/cube_api.h's CubeFootprint checks (the two are
  // compared in //testing/codegen:matmul_codegen_test).
  const int64_t cols = tile.shape().empty() ? 1 : *ir::GetConstInt(tile.shape().back());
  const int64_t rows = cols == 0 ? 0 : count / cols;
  auto up = [](int64_t v, int64_t a) { return (v + a - 1) / a * a; };
  switch (*space) {
    case ir::MemorySpace::kBias: return up(cols * elem, 32);
    case ir::MemorySpace::kL0C: return up(rows, 16) * up(cols, 16) * elem;
    default: return up(rows, 16) * up(cols * elem, 32);
  }
}

std::shared_ptr<const ir::YieldStmt> TrailingYield(const ir::StmtPtr& body) {
  if (auto y = ir::As<ir::YieldStmt>(body)) return y;
  auto seq = ir::As<ir::SeqStmts>(body);
  if (seq == nullptr || seq->stmts().empty()) return nullptr;
  return ir::As<ir::YieldStmt>(seq->stmts().back());
}

ir::StmtPtr RetypeTileVars(const ir::StmtPtr& body,
                           const absl::flat_hash_map<const ir::Var*, ir::MemRefPtr>& memrefs) {
  if (memrefs.empty()) return body;
  TileRetyper retyper(memrefs);
  return retyper.MutateStmt(body);
}

}  // namespace pto::passes
