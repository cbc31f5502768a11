#include "compiler/passes/init_mem_ref.h"

#include <cctype>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

// Assigns the MemRefs of one kernel, in program order.
class MemRefAssigner {
 public:
  absl::Status Stmt(const ir::StmtPtr& stmt) {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
      for (const ir::StmtPtr& s : seq->stmts()) RETURN_IF_ERROR(Stmt(s));
      return absl::OkStatus();
    }
    if (auto a = ir::As<ir::AssignStmt>(stmt)) {
      if (!ir::Is<ir::TileType>(a->var()->type())) return absl::OkStatus();
      // `b = a` names a's buffer, and so do the views `b = pl.tile.reshape(a,
      // shape)` and `b = pl.tile.transpose_view(a)` (PyPTO's view ops); an
      // operator writes a buffer of its own.
      if (ir::MemRefPtr shared = Of(ViewSource(a->value()))) {
        memrefs_[a->var().get()] = shared;
        return absl::OkStatus();
      }
      return Fresh(a->var());
    }
    if (auto f = ir::As<ir::ForStmt>(stmt)) {
      RETURN_IF_ERROR(IterArgs(f->iter_args()));
      RETURN_IF_ERROR(Stmt(f->body()));
      return ReturnVars(f->return_vars(), f->body(), std::nullopt);
    }
    if (auto w = ir::As<ir::WhileStmt>(stmt)) {
      RETURN_IF_ERROR(IterArgs(w->iter_args()));
      RETURN_IF_ERROR(Stmt(w->body()));
      return ReturnVars(w->return_vars(), w->body(), std::nullopt);
    }
    if (auto i = ir::As<ir::IfStmt>(stmt)) {
      RETURN_IF_ERROR(Stmt(i->then_body()));
      if (i->else_body()) RETURN_IF_ERROR(Stmt(*i->else_body()));
      return ReturnVars(i->return_vars(), i->then_body(), i->else_body());
    }
    if (auto s = ir::As<ir::ScopeStmt>(stmt)) return Stmt(s->body());
    return absl::OkStatus();
  }

  absl::flat_hash_map<const ir::Var*, ir::MemRefPtr>& memrefs() { return memrefs_; }

 private:
  // The tile a view operator reinterprets, else the value itself.
  static ir::ExprPtr ViewSource(const ir::ExprPtr& e) {
    auto call = ir::As<ir::Call>(e);
    if (call != nullptr && !ir::Is<ir::GlobalVar>(call->op()) &&
        (ir::IsOp(call, ir::OpId::kPlTileReshape) ||
         ir::IsOp(call, ir::OpId::kPlTileTransposeView)) &&
        !call->args().empty()) {
      return call->args()[0];
    }
    return e;
  }

  // The MemRef a value already has: a tile var's.
  ir::MemRefPtr Of(const ir::ExprPtr& e) const {
    auto var = ir::As<ir::Var>(e);
    if (var == nullptr) return nullptr;
    auto it = memrefs_.find(var.get());
    return it == memrefs_.end() ? nullptr : it->second;
  }

  absl::Status Fresh(const ir::VarPtr& var) {
    const auto& tile = static_cast<const ir::TileType&>(*var->type());
    std::optional<int64_t> bytes = TileBytes(tile);
    if (!bytes) {
      return UserErrorF(var->span(), "InitMemRef: tile '", var->name_hint(),
                        "' has a shape that is not a compile-time constant; a UB tile needs a "
                        "static shape (keep the runtime extent in valid_shape)");
    }
    const int64_t id = next_id_++;
    // InferTileMemorySpace (17) gave the tile its space; unset is UB (Vec).
    const ir::MemorySpace space = tile.Space().value_or(ir::MemorySpace::kUB);
    std::string prefix(ir::MemorySpaceName(space));
    for (char& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    memrefs_[var.get()] = std::make_shared<ir::MemRef>(pto::StrCat("mem_", prefix, "_", id), space,
                                                       ir::ConstIndex(-1), *bytes, id, var->span());
    return absl::OkStatus();
  }

  // An iter arg holds its init value's buffer (PyPTO's group A).
  absl::Status IterArgs(const std::vector<ir::IterArgPtr>& iter_args) {
    for (const ir::IterArgPtr& ia : iter_args) {
      if (!ir::Is<ir::TileType>(ia->type())) continue;
      if (ir::MemRefPtr shared = Of(ia->init_value())) {
        memrefs_[ia.get()] = shared;
      } else {
        RETURN_IF_ERROR(Fresh(ia));
      }
    }
    return absl::OkStatus();
  }

  // A return var holds the buffer yielded into it (PyPTO's group B; for a
  // branch, the then-branch's), else a fresh one.
  absl::Status ReturnVars(const std::vector<ir::VarPtr>& return_vars, const ir::StmtPtr& first,
                          const std::optional<ir::StmtPtr>& second) {
    auto y1 = TrailingYield(first);
    auto y2 = second ? TrailingYield(*second) : nullptr;
    for (size_t i = 0; i < return_vars.size(); ++i) {
      const ir::VarPtr& rv = return_vars[i];
      if (rv == nullptr || !ir::Is<ir::TileType>(rv->type())) continue;
      ir::MemRefPtr shared;
      if (y1 != nullptr && i < y1->value().size()) shared = Of(y1->value()[i]);
      if (shared == nullptr && y2 != nullptr && i < y2->value().size()) {
        shared = Of(y2->value()[i]);
      }
      if (shared != nullptr) {
        memrefs_[rv.get()] = shared;
      } else {
        RETURN_IF_ERROR(Fresh(rv));
      }
    }
    return absl::OkStatus();
  }

  absl::flat_hash_map<const ir::Var*, ir::MemRefPtr> memrefs_;
  int64_t next_id_ = 0;
};

}  // namespace

absl::StatusOr<ir::ProgramPtr> InitMemRefPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(
      program, [](const ir::FunctionPtr& fn) -> absl::StatusOr<ir::StmtPtr> {
        if (!HoldsTiles(fn)) return fn->body();
        MemRefAssigner assigner;
        RETURN_IF_ERROR(assigner.Stmt(fn->body()));
        return RetypeTileVars(fn->body(), assigner.memrefs());
      });
}

std::unique_ptr<Pass> CreateInitMemRefPass() { return std::make_unique<InitMemRefPass>(); }

}  // namespace pto::passes
