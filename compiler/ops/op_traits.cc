// Every operator's OpTraits, in one place: what passes and code generation ask
// of an operator instead of its name. testdata/op_traits.txt lists the result
// for every OpId (op_traits_test), so a new operator's traits are reviewed.
#include <string>
#include <string_view>

#include "compiler/ir/op_id.h"
#include "compiler/ops/register_ops.h"

namespace pto::ops {
namespace {

using ir::OpId;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The tensor -> tile naming rule of PyPTO's ConvertTensorToTileOps.
constexpr std::string_view kTensorPrefix = "pl.tensor.";
constexpr std::string_view kTilePrefix = "pl.tile.";

// Zero-copy views of operand 0 (PyPTO's view operators share the source's
// MemRef: tensor.slice, tile.reshape, tile.slice, ...). One list for every
// pass: call_effects (buffer roots), MaterializeDistTensorCtx (a view shares
// its source's context) and LowerL2TensorCollectives (contiguity) used to keep
// four that disagreed; the union is right, because each member shares the
// source's buffer, and the kind says what a pass may assume of the layout.
struct ViewRow {
  OpId id;
  ViewKind kind;
};
constexpr ViewRow kViews[] = {
    {OpId::kPlTensorReshape, ViewKind::kReshape},
    {OpId::kPlTensorSetValidshape, ViewKind::kReshape},
    {OpId::kPlTensorView, ViewKind::kWindow},
    {OpId::kPlTensorSlice, ViewKind::kWindow},
    {OpId::kPlTensorIndex, ViewKind::kWindow},
    {OpId::kPlTensorTranspose, ViewKind::kPermute},
    {OpId::kPlTileReshape, ViewKind::kReshape},
    {OpId::kPlTileSetValidshape, ViewKind::kReshape},
    {OpId::kPlTileReinterpretView, ViewKind::kReshape},
    {OpId::kPlTileSlice, ViewKind::kWindow},
    {OpId::kPlTileTransposeView, ViewKind::kPermute},
};

// Operands accessed on a peer (bit i = operand i).
struct PeerRow {
  OpId id;
  uint32_t args;
};
constexpr PeerRow kPeerOperands[] = {
    {OpId::kPldTilePut, 1u << 0},           {OpId::kPldTensorPut, 1u << 0},
    {OpId::kPldTilePutAsync, 1u << 0},      {OpId::kPldTensorPutAsync, 1u << 0},
    {OpId::kPldTileGet, 1u << 2},           {OpId::kPldTensorGet, 1u << 2},
    {OpId::kPldTileRemoteLoad, 1u << 2},    {OpId::kPldTileRemoteStore, 1u << 0},
    {OpId::kPldTensorRemoteStore, 1u << 0}, {OpId::kPldSystemNotify, 1u << 0},
};

// Communication without a peer operand: waits on local signals or events.
constexpr OpId kLocalComm[] = {
    OpId::kPldSystemWait,
    OpId::kPldSystemDeferWait,
    OpId::kPldTileWaitAsyncEvent,
    OpId::kPldSystemWaitAsyncEvent,
};

// In-place updates: the result is this operand, updated in place (beyond the
// views and the signature table's "arg0" / "arg2" result rules, which
// op_signatures.cc sets). pl.tensor.assemble is an update, not a view: its
// result is the target (operand 0) with the source written into a box of it,
// so it shares the target's buffer but its contents change; passes that
// trace a buffer follow updated_arg through it, and view-only rules
// (contiguity, a view's context) do not apply to it.
struct ResultRow {
  OpId id;
  int8_t arg;
};
constexpr ResultRow kResultArgs[] = {
    {OpId::kPlTileStore, 2},
    {OpId::kPlTensorWrite, 0},
    {OpId::kPlTensorAssemble, 0},
};

// The AIC cube unit's operators (PyPTO's matmul family).
constexpr OpId kCube[] = {
    OpId::kPlTileMatmul,      OpId::kPlTileMatmulAcc,      OpId::kPlTileMatmulBias,
    OpId::kPlTileMatmulMx,    OpId::kPlTileMatmulMxAcc,    OpId::kPlTileMatmulMxBias,
    OpId::kPlTileBatchMatmul, OpId::kPlTileBatchMatmulAcc, OpId::kPlTileGemv,
    OpId::kPlTileGemvAcc,     OpId::kPlTileGemvBias,
    OpId::kPlTileTgetScaleAddr,  // binds an mx matmul's scale tile (InsertMxScaleAddr)
};

// Tile operators both cores run: data movement, allocation, block queries.
constexpr OpId kEitherCore[] = {
    OpId::kPlTileLoad,          OpId::kPlTileStore,          OpId::kPlTileMove,
    OpId::kPlTileAlloc,         OpId::kPlTileCreate,         OpId::kPlTileGetBlockIdx,
    OpId::kPlTileGetBlockNum,   OpId::kPlTileGetSubblockIdx, OpId::kPlTileReshape,
    OpId::kPlTileSlice,         OpId::kPlTileSetValidshape,  OpId::kPlTileReinterpretView,
    OpId::kPlTileTransposeView, OpId::kPlTileRead,           OpId::kPlTileWrite,
    OpId::kPlTileExtract,  // TEXTRACT: Mat -> Left / Right on the cube, Vec -> Vec on the vector
};

// Elementwise operators that read each element before writing it, so the
// result may reuse the buffer of an operand read last (tile_liveness); a
// narrowing pl.tile.cast qualifies too, decided per call there. TMATMUL_ACC
// accumulates into its accumulator in place (pto-isa TMATMUL_ACC.md: C_out
// may be C_in).
constexpr OpId kInPlaceSafe[] = {
    OpId::kPlTileAdd,      OpId::kPlTileSub,      OpId::kPlTileMul,       OpId::kPlTileMaximum,
    OpId::kPlTileMinimum,  OpId::kPlTileAdds,     OpId::kPlTileSubs,      OpId::kPlTileMuls,
    OpId::kPlTileMaximums, OpId::kPlTileMinimums, OpId::kPlTileNeg,       OpId::kPlTileLoad,
    OpId::kPlTileCreate,   OpId::kPlTileFull,     OpId::kPlTileMatmulAcc,
};

}  // namespace

void AttachTraits(OpRegistry& r) {
  auto traits = [&r](OpId id) -> OpTraits& { return const_cast<OpDef*>(r.Find(id))->traits; };
  for (size_t i = 1; i < ir::NumOpIds(); ++i) {
    const OpId id = static_cast<OpId>(i);
    const OpDef* def = r.Find(id);
    if (def == nullptr) continue;  // CheckEveryIdRegistered reports it
    OpTraits& t = traits(id);
    if (def->category == OpCategory::kTileOp) t.unit = ExecUnit::kVector;
    if (StartsWith(def->name, "builtin.tensor.")) {
      t.communicates = true;
      t.host_dispatch = true;
    }
    if (StartsWith(def->name, kTensorPrefix)) {
      const std::string tile = std::string(kTilePrefix) + def->name.substr(kTensorPrefix.size());
      if (const OpDef* d = r.Find(tile); d != nullptr && d->name == tile) t.tile_form = d->id;
      const std::string scalar = tile + "s";
      if (const OpDef* d = r.Find(scalar); d != nullptr && d->name == scalar) {
        t.tile_scalar_form = d->id;
      }
    }
  }
  for (const ViewRow& v : kViews) {
    traits(v.id).view = v.kind;
    traits(v.id).result_arg = 0;
  }
  for (const PeerRow& p : kPeerOperands) {
    traits(p.id).peer_args = p.args;
    traits(p.id).communicates = true;
  }
  for (OpId id : kLocalComm) traits(id).communicates = true;
  for (const ResultRow& row : kResultArgs) {
    traits(row.id).result_arg = row.arg;
    traits(row.id).updated_arg = row.arg;
  }
  // A collective and its HOST builtin dispatch return the operand the def
  // says the result aliases.
  for (const CollectiveDef& c : Collectives()) {
    for (const OpDef* def :
         {r.Find(c.op), c.builtin.empty() ? nullptr : r.Find(c.BuiltinOpName())}) {
      if (def == nullptr) continue;
      traits(def->id).communicates = true;
      traits(def->id).result_arg = static_cast<int8_t>(c.alias_arg);
    }
  }
  for (OpId id : kCube) traits(id).unit = ExecUnit::kCube;
  for (OpId id : kEitherCore) traits(id).unit = ExecUnit::kEither;
  for (OpId id : kInPlaceSafe) traits(id).in_place_safe = true;
}

}  // namespace pto::ops
