#include "compiler/passes/tile_memrefs.h"

#include <memory>
#include <utility>


namespace pto::passes {
ir::TypePtr TileWithMemRef(const ir::TileType& tile, ir::MemRefPtr memref) {
  return std::make_shared<ir::TileType>(tile.shape(), tile.dtype(), std::move(memref),
                                        tile.valid_shape(), tile.span());
}

ir::VarPtr TileRetyper::MutateVarDef(const ir::VarPtr& var) {
  auto it = memrefs_.find(var.get());
  auto tile = ir::As<ir::TileType>(var->type());
  if (it == memrefs_.end() || tile == nullptr) return RemapVar(var);
  if (ir::VarPtr done = LookupVarReplacement(var.get())) return done;
  ir::TypePtr type = TileWithMemRef(*tile, it->second);
  ir::VarPtr out;
  if (auto ia = ir::As<ir::IterArg>(var)) {
    out = std::make_shared<ir::IterArg>(ia->name_hint(), type, MutateExpr(ia->init_value()),
                                        ia->span());
  } else {
    out = std::make_shared<ir::Var>(var->name_hint(), type, var->span());
  }
  SetVarReplacement(var, out);
  return out;
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
  int64_t bytes = ir::DataTypeBytes(tile.dtype());
  for (const ir::ExprPtr& d : tile.shape()) {
    std::optional<int64_t> v = ir::GetConstInt(d);
    if (!v || *v < 0) return std::nullopt;
    bytes *= *v;
  }
  return bytes;
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
