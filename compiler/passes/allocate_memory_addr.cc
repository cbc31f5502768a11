#include "compiler/passes/allocate_memory_addr.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_liveness.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::passes {
namespace {

struct Buffer {
  ir::MemRefPtr memref;
  std::vector<ir::VarPtr> tiles;  // in definition order
  int64_t addr = 0;
};

std::string TileNames(const std::vector<ir::VarPtr>& tiles) {
  std::string out;
  for (size_t i = 0; i < tiles.size(); ++i) {
    pto::StrAppend(&out, i == 0 ? "" : (i + 1 == tiles.size() ? " and " : ", "), "'",
                   tiles[i]->name_hint(), "'");
  }
  return out;
}

// The largest MemRef id of a body (-1 for none): staging boxes number on.
class MaxMemRefId : public ir::IRVisitor {
 public:
  int64_t id = -1;
  void VisitMemRef(const ir::MemRefPtr& m) override {
    id = std::max(id, m->id());
    ir::IRVisitor::VisitMemRef(m);
  }
};

// PyPTO's tensor form of a put or get without a staging tile, (dst, peer,
// src, dst_offsets, src_offsets, shape), moves its box through UB. Each such
// call with a constant box gets a staging tile of its own, defined just
// before it with a fresh UB MemRef and passed as the staged form's `stage`
// operand, so the box is placed and counted like every other buffer. A box
// with a dynamic shape is left for code generation to reject. PyPTO's
// whole-window form (dst, peer, src) is the box of the window at offsets 0;
// its `chunk_rows` / `chunk_cols` (pto-isa's staging chunk) and `pipeline`
// (ping-pong staging) are accepted, the box moving through one tile (a second
// tile only buys overlap, as the staged form's `stage2`). A form with other
// kwargs is left as it is.
std::vector<ir::ExprPtr> WholeWindowBox(const ir::CallPtr& call, bool put) {
  const std::vector<ir::ExprPtr>& args = call->args();
  for (const auto& [key, value] : call->kwargs()) {
    if (key != "atomic" && key != "chunk_rows" && key != "chunk_cols" && key != "pipeline") {
      return args;
    }
  }
  auto window = ir::AsTensorTypeLike(args[put ? 0 : 2]->type());
  if (window == nullptr) return args;
  const Span& span = call->span();
  std::vector<ir::ExprPtr> zeros;
  for (size_t k = 0; k < window->shape().size(); ++k) zeros.push_back(ir::ConstIndex(0, span));
  std::vector<ir::ExprPtr> out = args;
  out.push_back(std::make_shared<ir::MakeTuple>(zeros, span));
  out.push_back(std::make_shared<ir::MakeTuple>(zeros, span));
  out.push_back(std::make_shared<ir::MakeTuple>(window->shape(), span));
  return out;
}

class StageBoxes : public ir::FlatteningMutator {
 public:
  explicit StageBoxes(int64_t next_id) : next_id_(next_id) {}

 protected:
  ir::StmtPtr MutateEvalStmt(const std::shared_ptr<const ir::EvalStmt>& stmt) override {
    auto call = ir::As<ir::Call>(stmt->expr());
    if (call == nullptr || ir::Is<ir::GlobalVar>(call->op()) ||
        (call->args().size() != 6 && call->args().size() != 3) ||
        (!ir::IsOp(call, ir::OpId::kPldTensorPut) && !ir::IsOp(call, ir::OpId::kPldTensorGet))) {
      return ir::IRMutator::MutateEvalStmt(stmt);
    }
    const bool put = ir::IsOp(call, ir::OpId::kPldTensorPut);
    const std::vector<ir::ExprPtr> args =
        call->args().size() == 3 ? WholeWindowBox(call, put) : call->args();
    if (args.size() != 6) return ir::IRMutator::MutateEvalStmt(stmt);
    auto window = ir::AsTensorTypeLike(args[put ? 0 : 2]->type());
    auto shape = ir::As<ir::MakeTuple>(args[5]);
    int64_t count = 1;
    for (const ir::ExprPtr& d : shape ? shape->elements() : std::vector<ir::ExprPtr>{}) {
      std::optional<int64_t> v = ir::GetConstInt(d);
      count = v && *v > 0 ? count * *v : -1;
      if (count < 0) break;
    }
    if (window == nullptr || shape == nullptr || count <= 0) {
      return ir::IRMutator::MutateEvalStmt(stmt);
    }
    const Span& span = call->span();
    const int64_t id = next_id_++;
    auto memref = std::make_shared<ir::MemRef>(pto::StrCat("mem_ub_", id), ir::MemorySpace::kUB,
                                               ir::ConstIndex(-1),
                                               count * ir::DataTypeBytes(window->dtype()), id, span);
    std::vector<ir::ExprPtr> dims = {ir::ConstIndex(count, span)};
    auto type = std::make_shared<ir::TileType>(dims, window->dtype(), memref);
    auto stage = std::make_shared<ir::Var>("stage", type, span);
    auto create = ir::MakeOpCall(
        ir::OpId::kPlTileCreate, {std::make_shared<ir::MakeTuple>(dims, span)}, type,
        {{"dtype", window->dtype()}, {"target_memory", std::string("Vec")}}, {}, span);
    std::vector<ir::ExprPtr> staged;
    for (const ir::ExprPtr& a : args) staged.push_back(MutateExpr(a));
    staged.insert(staged.begin() + 3, stage);
    auto moved = ir::MakeOpCall(call->op()->name(), staged, call->type(), call->kwargs(),
                                call->attrs(), span);
    return ir::SeqStmts::Flatten(
        {std::make_shared<ir::AssignStmt>(stage, create, stmt->span()),
         std::make_shared<ir::EvalStmt>(moved, stmt->leading_comments(), stmt->span())},
        stmt->span());
  }

 private:
  int64_t next_id_;
};

// The capacity of `space` and the core it belongs to.
std::pair<std::optional<int64_t>, std::string_view> Capacity(const AllocateMemoryAddrOptions& o,
                                                             ir::MemorySpace space) {
  switch (space) {
    case ir::MemorySpace::kL1: return {o.l1_bytes, "an AIC core"};
    case ir::MemorySpace::kL0A: return {o.l0a_bytes, "an AIC core"};
    case ir::MemorySpace::kL0B: return {o.l0b_bytes, "an AIC core"};
    case ir::MemorySpace::kL0C: return {o.l0c_bytes, "an AIC core"};
    case ir::MemorySpace::kBias: return {o.bias_bytes, "an AIC core"};
    default: return {o.ub_bytes, "an AIV core"};
  }
}

// Places the buffers of `space` (in order) and checks its capacity.
absl::Status Place(const ir::FunctionPtr& fn, const AllocateMemoryAddrOptions& options,
                   ir::MemorySpace space, std::vector<Buffer>* buffers) {
  const int64_t block = space == ir::MemorySpace::kUB
                            ? std::max<int64_t>(1, options.ub_block_bytes)
                            : 32;  // pto-isa TASSIGN: cube tiles are 32-byte aligned
  int64_t next = 0;
  for (Buffer& b : *buffers) {
    if (b.memref->memory_space() != space) continue;
    b.addr = (next + block - 1) / block * block;
    next = b.addr + b.memref->size();
  }
  auto [cap, core] = Capacity(options, space);
  if (!cap || next <= *cap) return absl::OkStatus();
  std::string over;
  const Buffer* first = nullptr;
  for (const Buffer& b : *buffers) {
    if (b.memref->memory_space() != space || b.addr + b.memref->size() <= *cap) continue;
    if (first == nullptr) first = &b;
    pto::StrAppend(&over, over.empty() ? "" : "; ", TileNames(b.tiles), " (", b.memref->size(),
                   " bytes at offset ", b.addr, ")");
  }
  std::string name(ir::MemorySpaceName(space));
  if (space != ir::MemorySpace::kUB && space != ir::MemorySpace::kBias) {
    pto::StrAppend(&name, " (", ir::MemorySpacePyptoName(space), ")");
  }
  return UserErrorF(first->tiles.front()->span(), "AllocateMemoryAddr: kernel '", fn->name(),
                    "' needs ", next, " bytes of ", name, ", more than the ", *cap, " bytes of ",
                    core, " on ", options.platform, "; these tiles do not fit: ", over);
}

absl::StatusOr<ir::StmtPtr> Allocate(const ir::FunctionPtr& fn,
                                     const AllocateMemoryAddrOptions& options) {
  if (!HoldsTiles(fn)) return fn->body();
  MaxMemRefId max_id;
  max_id.VisitStmt(fn->body());
  ir::StmtPtr body = StageBoxes(max_id.id + 1).MutateStmt(fn->body());
  TileLiveness live = AnalyzeTileLiveness(body);
  std::vector<std::pair<int, const ir::Var*>> defs;
  for (const auto& [var, def] : live.defs) defs.push_back({def.pos, var});
  std::sort(defs.begin(), defs.end());
  std::vector<Buffer> buffers;
  absl::flat_hash_map<const ir::MemRef*, size_t> index;
  for (const auto& [pos, key] : defs) {
    const ir::VarPtr& var = live.vars.at(key);
    ir::MemRefPtr m = TileMemRef(var->type());
    if (m == nullptr) {
      return InternalErrorF(var->span(), "AllocateMemoryAddr: tile '", var->name_hint(),
                            "' has no MemRef; InitMemRef must run first");
    }
    if (m->memory_space() == ir::MemorySpace::kDDR) continue;
    auto [it, fresh] = index.emplace(m.get(), buffers.size());
    if (fresh) buffers.push_back(Buffer{m, {}, 0});
    buffers[it->second].tiles.push_back(var);
  }
  // PyPTO orders by name; ours are numbered, so by id (then first definition,
  // for parsed programs that repeat an id).
  std::stable_sort(buffers.begin(), buffers.end(), [](const Buffer& a, const Buffer& b) {
    return a.memref->id() < b.memref->id();
  });
  // Each buffer is placed on its own, from address 0.
  for (ir::MemorySpace space : {ir::MemorySpace::kUB, ir::MemorySpace::kL1, ir::MemorySpace::kL0A,
                                ir::MemorySpace::kL0B, ir::MemorySpace::kL0C,
                                ir::MemorySpace::kBias}) {
    RETURN_IF_ERROR(Place(fn, options, space, &buffers));
  }
  absl::flat_hash_map<const ir::Var*, ir::MemRefPtr> retype;
  for (const Buffer& b : buffers) {
    auto placed = std::make_shared<ir::MemRef>(b.memref->name_hint(), b.memref->memory_space(),
                                               ir::ConstIndex(b.addr), b.memref->size(),
                                               b.memref->id(), b.memref->span());
    for (const ir::VarPtr& t : b.tiles) retype[t.get()] = placed;
  }
  return RetypeTileVars(body, retype);
}

}  // namespace

absl::StatusOr<ir::ProgramPtr> AllocateMemoryAddrPass::Run(const ir::ProgramPtr& program) {
  return RewriteFunctionBodies(program, [this](const ir::FunctionPtr& fn) {
    return Allocate(fn, options_);
  });
}

std::unique_ptr<Pass> CreateAllocateMemoryAddrPass(AllocateMemoryAddrOptions options) {
  return std::make_unique<AllocateMemoryAddrPass>(std::move(options));
}

}  // namespace pto::passes
