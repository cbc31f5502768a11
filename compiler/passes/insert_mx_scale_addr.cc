#include "compiler/passes/insert_mx_scale_addr.h"

#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

using ir::ExprPtr;
using ir::MemorySpace;
using ir::OpId;
using ir::StmtPtr;

class Binder : public ir::FlatteningMutator {
 public:
  absl::Status status;

 protected:
  StmtPtr MutateAssignStmt(const std::shared_ptr<const ir::AssignStmt>& s) override {
    auto call = ir::As<ir::Call>(s->value());
    const bool acc = ir::IsOp(call, OpId::kPlTileMatmulMxAcc);
    if (!acc && !ir::IsOp(call, OpId::kPlTileMatmulMx) &&
        !ir::IsOp(call, OpId::kPlTileMatmulMxBias)) {
      return ir::IRMutator::MutateAssignStmt(s);
    }
    // (data, scale) operand pairs: (0, 1) and (2, 3), shifted by the
    // accumulator of _acc.
    const size_t first = acc ? 1 : 0;
    std::vector<ExprPtr> args = call->args();
    if (args.size() < first + 4) return ir::IRMutator::MutateAssignStmt(s);
    std::vector<StmtPtr> out;
    for (auto [data, side] : {std::pair{first, MemorySpace::kL0A}, {first + 2, MemorySpace::kL0B}}) {
      const size_t scale = data + 1;
      auto d = ir::As<ir::Var>(args[data]);
      auto sc = ir::As<ir::Var>(args[scale]);
      auto tile = d ? ir::As<ir::TileType>(d->type()) : nullptr;
      const char* want = side == MemorySpace::kL0A ? "Left" : "Right";
      if (d == nullptr || sc == nullptr || tile == nullptr || tile->Space() != side) {
        // TileMemoryInferred (required, verified) already puts the data in
        // Left / Right and FlattenCallExpr names every operand.
        Fail(InternalErrorF(call->span(), "InsertMxScaleAddr: ", call->op()->name(), " operand ",
                            data, " must be a ", want, " tile and operand ", scale,
                            " its scale tile, both named vars"));
        return s;
      }
      // A fresh binding per consumer: the bind rewrites the scale buffer's
      // address in place, so an earlier binding proves nothing.
      auto bound = ir::MakeVar(pto::StrCat(sc->name_hint(), "_bound"), sc->type(), call->span());
      out.push_back(std::make_shared<ir::AssignStmt>(
          bound,
          ir::MakeOpCall(OpId::kPlTileTgetScaleAddr, {sc, d}, sc->type(), {}, {}, call->span()),
          call->span()));
      args[scale] = bound;
    }
    out.push_back(std::make_shared<ir::AssignStmt>(
        s->var(),
        std::make_shared<ir::Call>(call->op(), std::move(args), call->kwargs(), call->attrs(),
                                   call->type(), call->span()),
        s->span()));
    return ir::SeqStmts::Flatten(out, s->span());
  }

 private:
  void Fail(absl::Status st) {
    if (status.ok()) status = std::move(st);
  }
};

absl::StatusOr<StmtPtr> Bind(const ir::FunctionPtr& fn) {
  if (fn->body() == nullptr || !ir::IsInCoreType(fn->func_type())) return fn->body();
  Binder b;
  StmtPtr body = b.MutateStmt(fn->body());
  RETURN_IF_ERROR(b.status);
  return body;
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> InsertMxScaleAddrPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, Bind);
}

std::unique_ptr<Pass> CreateInsertMxScaleAddrPass() {
  return std::make_unique<InsertMxScaleAddrPass>();
}

}  // namespace pto::passes
