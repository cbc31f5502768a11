#include "compiler/passes/allocate_memory_addr.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ir/builder.h"
#include "compiler/passes/function_rewrite.h"
#include "compiler/passes/tile_liveness.h"
#include "compiler/passes/tile_memrefs.h"
#include "compiler/support/diagnostics.h"
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

absl::StatusOr<ir::StmtPtr> Allocate(const ir::FunctionPtr& fn,
                                     const AllocateMemoryAddrOptions& options) {
  if (!HoldsTiles(fn)) return fn->body();
  TileLiveness live = AnalyzeTileLiveness(fn->body());
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
    if (m->memory_space() != ir::MemorySpace::kUB) continue;
    auto [it, fresh] = index.emplace(m.get(), buffers.size());
    if (fresh) buffers.push_back(Buffer{m, {}, 0});
    buffers[it->second].tiles.push_back(var);
  }
  // PyPTO orders by name; ours are numbered, so by id (then first definition,
  // for parsed programs that repeat an id).
  std::stable_sort(buffers.begin(), buffers.end(), [](const Buffer& a, const Buffer& b) {
    return a.memref->id() < b.memref->id();
  });
  const int64_t block = std::max<int64_t>(1, options.ub_block_bytes);
  int64_t next = 0;
  for (Buffer& b : buffers) {
    b.addr = (next + block - 1) / block * block;
    next = b.addr + b.memref->size();
  }
  if (options.ub_bytes && next > *options.ub_bytes) {
    std::string over;
    const Buffer* first = nullptr;
    for (const Buffer& b : buffers) {
      if (b.addr + b.memref->size() <= *options.ub_bytes) continue;
      if (first == nullptr) first = &b;
      pto::StrAppend(&over, over.empty() ? "" : "; ", TileNames(b.tiles), " (",
                     b.memref->size(), " bytes at offset ", b.addr, ")");
    }
    return UserErrorF(first->tiles.front()->span(), "AllocateMemoryAddr: kernel '", fn->name(),
                      "' needs ", next, " bytes of UB, more than the ", *options.ub_bytes,
                      " bytes of an AIV core on ", options.platform,
                      "; these tiles do not fit: ", over);
  }
  absl::flat_hash_map<const ir::Var*, ir::MemRefPtr> retype;
  for (const Buffer& b : buffers) {
    auto placed = std::make_shared<ir::MemRef>(b.memref->name_hint(), b.memref->memory_space(),
                                               ir::ConstIndex(b.addr), b.memref->size(),
                                               b.memref->id(), b.memref->span());
    for (const ir::VarPtr& t : b.tiles) retype[t.get()] = placed;
  }
  return RetypeTileVars(fn->body(), retype);
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
