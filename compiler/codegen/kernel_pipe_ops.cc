// The cross-core pipe operators of a mixed kernel's AIC and AIV halves
// (ExpandMixedKernel, PyPTO pass 21), against runtime/device/pipe_api.h:
// aic_ / aiv_initialize_pipe declare the pipes, tpush_to_aiv / tpush_to_aic
// are TPUSH, tpop_from_aic / tpop_from_aiv are TPOP into the popped tile's
// buffer. A pipe of the kernel API has one direction, so PyPTO's pipe `id`
// is the API's pipes 2 * id (C2V) and 2 * id + 1 (V2C).
#include <optional>
#include <string>

#include "compiler/codegen/kernel_generator.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/expr.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::kernel_internal {
namespace {

using ir::OpId;

// A pipe operator's int kwarg: an int, or a constant (tpop's `id` and
// `split` are scalars in PyPTO's signatures).
std::optional<int64_t> IntKwarg(const ir::Call& call, std::string_view key) {
  if (auto v = ir::GetAttr<int64_t>(call.kwargs(), key)) return v;
  if (auto e = ir::GetAttr<ir::ExprPtr>(call.kwargs(), key)) return ir::GetConstInt(*e);
  return std::nullopt;
}

int64_t PipeId(const ir::Call& call) { return IntKwarg(call, "id").value_or(0); }

// A tile whose valid box is statically empty: lane 1's replay of a no-split
// dual-AIV dispatch (SplitVectorKernel) pushes and pops these, moving no data.
bool EmptyTile(const ir::TypePtr& type) {
  auto t = ir::As<ir::TileType>(type);
  if (t == nullptr || t->valid_shape().empty()) return false;
  for (const ir::ExprPtr& d : t->valid_shape()) {
    if (ir::GetConstInt(d) != std::optional<int64_t>(0)) return false;
  }
  return true;
}

}  // namespace

bool Generator::IsPipeOp(const ir::Call& call) {
  for (OpId id : {OpId::kPlSystemAicInitializePipe, OpId::kPlSystemAivInitializePipe,
                  OpId::kPlSystemReserveBuffer, OpId::kPlSystemImportPeerBuffer,
                  OpId::kPlSystemTpushToAiv, OpId::kPlSystemTpushToAic,
                  OpId::kPlSystemTpopFromAic, OpId::kPlSystemTpopFromAiv,
                  OpId::kPlSystemTfreeToAic, OpId::kPlSystemTfreeToAiv}) {
    if (ir::IsOp(call, id)) return true;
  }
  return false;
}

absl::StatusOr<std::string> Generator::PipeName(const ir::Call& call, bool c2v) {
  auto it = pipes_.find({PipeId(call), c2v});
  if (it == pipes_.end()) {
    return UserErrorF(call.span(), "code generation needs the pipe set-up before this ",
                      call.op()->name(), ": a ",
                      ir::OpIdName(aic_ ? OpId::kPlSystemAicInitializePipe
                                        : OpId::kPlSystemAivInitializePipe),
                      " with id ", PipeId(call), " and dir_mask ",
                      c2v ? "1 or 3" : "2 or 3", " (ExpandMixedKernel writes it)");
  }
  return it->second;
}

absl::Status Generator::EmitPipeCall(const ir::VarPtr& var, const ir::CallPtr& call, int indent) {
  const std::string in = Indent(indent);
  const auto& args = call->args();
  // ExpandMixedKernel writes pipes into the AIC and AIV halves only.
  if (!mix_half_) return Unsupported(call->span(), call->op()->name());
  uses_pipes_ = true;
  const bool is_aic_fn = aic_;
  if (ir::IsOp(call, OpId::kPlSystemReserveBuffer) ||
      ir::IsOp(call, OpId::kPlSystemImportPeerBuffer)) {
    // The backend owns the slots (on a2a3 a GM buffer, allocated on the
    // pipe's first use): the buffer's handle has no value of its own.
    std::string name = ir::GetAttr<std::string>(call->kwargs(), "name").value_or("");
    pto::StrAppend(&body_, in, "// ", name, ": the pipe's slots, allocated by the backend "
                   "(runtime/device/pipe_api.h)\n");
    if (var != nullptr) values_[var.get()] = {Kind::kScalar, "0", ir::DataType::kIndex};
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlSystemAicInitializePipe) ||
      ir::IsOp(call, OpId::kPlSystemAivInitializePipe)) {
    if (ir::IsOp(call, OpId::kPlSystemAicInitializePipe) != is_aic_fn) {
      return Unsupported(call->span(), pto::StrCat(call->op()->name(), " in an ",
                                                   is_aic_fn ? "AIC" : "AIV", " kernel"));
    }
    std::optional<int64_t> mask = ir::GetAttr<int64_t>(call->kwargs(), "dir_mask");
    std::optional<int64_t> size = ir::GetAttr<int64_t>(call->kwargs(), "slot_size");
    const int64_t slots = ir::GetAttr<int64_t>(call->kwargs(), "slot_num").value_or(2);
    if (!mask || *mask < 1 || *mask > 3 || !size || *size <= 0 || slots <= 0) {
      return UserErrorF(call->span(), call->op()->name(),
                        " needs dir_mask 1, 2 or 3 and a positive slot_size and slot_num");
    }
    const int64_t id = PipeId(*call);
    for (bool c2v : {true, false}) {
      if ((*mask & (c2v ? 1 : 2)) == 0) continue;
      const std::string name = Fresh(pto::StrCat("pipe_", c2v ? "c2v" : "v2c", "_", id));
      pipes_[{id, c2v}] = name;
      for (int lane = 0; lane < (is_aic_fn && dual_aiv_ ? 2 : 1); ++lane) {
        const std::string spec = lane == 0 ? name : Fresh(name + "_lane1");
        if (lane == 1) lane1_pipes_[{id, c2v}] = spec;
        pto::StrAppend(&body_, in, "const pto::PipeSpec ", spec, "{", 2 * id + (c2v ? 0 : 1),
                       ", pto::PipeDir::", c2v ? "kC2V" : "kV2C", ", ", slots, ", ", *size,
                       ", /*lane=*/", lane, "};\n");
      }
    }
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlSystemTfreeToAic) || ir::IsOp(call, OpId::kPlSystemTfreeToAiv)) {
    pto::StrAppend(&body_, in, "// tfree: TPOP gave the slot back once it copied it\n");
    return absl::OkStatus();
  }
  const bool push = ir::IsOp(call, OpId::kPlSystemTpushToAiv) ||
                    ir::IsOp(call, OpId::kPlSystemTpushToAic);
  // The AIC pushes C2V and pops V2C; the AIV the other way round.
  const bool from_aic = ir::IsOp(call, OpId::kPlSystemTpushToAiv) ||
                        ir::IsOp(call, OpId::kPlSystemTpopFromAiv);
  if (from_aic != is_aic_fn) {
    return Unsupported(call->span(), pto::StrCat(call->op()->name(), " in an ",
                                                 is_aic_fn ? "AIC" : "AIV", " kernel"));
  }
  const bool c2v = push == is_aic_fn;
  ASSIGN_OR_RETURN(std::string pipe, PipeName(*call, c2v));
  if (const int64_t split = IntKwarg(*call, "split").value_or(0); split != 0) {
    return EmitSplitPipeCall(var, call, split, pipe, indent);
  }
  const char* barrier = is_aic_fn ? "pto::pipe_barrier(pto::PIPE_ALL);\n" : "";
  // Dual dispatch: the AIC's lane-1 end moves no data (lane 1 replays).
  auto lane1 = [&]() {
    auto it = lane1_pipes_.find({PipeId(*call), c2v});
    if (is_aic_fn && it != lane1_pipes_.end()) {
      pto::StrAppend(&body_, in, push ? "pto::TPUSH_EMPTY(" : "pto::TPOP_EMPTY(", it->second,
                     ");  // lane 1's replay\n");
    }
  };
  if (push && !args.empty() && !is_aic_fn && EmptyTile(args[0]->type())) {
    pto::StrAppend(&body_, in, "pto::TPUSH_EMPTY(", pipe, ");\n");
    return absl::OkStatus();
  }
  if (push) {
    if (args.empty()) return InternalErrorF(call->span(), call->op()->name(), " without a tile");
    ASSIGN_OR_RETURN(Value t, LookupKind(args[0], Kind::kTile, "tile"));
    std::string cast;
    if (is_aic_fn) {
      ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(args[0]->type()), call->span()));
      cast = pto::StrCat("<", elem, ">");
    }
    pto::StrAppend(&body_, in, "pto::TPUSH", cast, "(", pipe, ", ", t.name, ");\n");
    if (*barrier != '\0') pto::StrAppend(&body_, in, barrier);
    lane1();
    return absl::OkStatus();
  }
  if (var == nullptr) return Unsupported(call->span(), "a tpop whose tile is not named");
  std::string tile;
  if (is_aic_fn) {
    ASSIGN_OR_RETURN(tile, NewCubeTile(var, indent));
  } else {
    ASSIGN_OR_RETURN(tile, NewTile(var, indent));
  }
  if (!is_aic_fn && EmptyTile(var->type())) {
    pto::StrAppend(&body_, in, "pto::TPOP_EMPTY(", pipe, ");\n");
    return absl::OkStatus();
  }
  pto::StrAppend(&body_, in, "pto::TPOP(", pipe, ", ", tile, ");\n");
  if (*barrier != '\0') pto::StrAppend(&body_, in, barrier);
  lane1();
  return absl::OkStatus();
}

// A tile halved over the AIV lanes (pl.aiv_shard, LowerAutoVectorSplit):
// the AIC pushes its full tile for both lanes, each lane pops its half
// (runtime/device/pipe_api.h, TPUSH_SPLIT / TPOP_SPLIT); V2C each lane pushes
// its half and the AIC joins them. UP_DOWN and LEFT_RIGHT.
absl::Status Generator::EmitSplitPipeCall(const ir::VarPtr& var, const ir::CallPtr& call,
                                          int64_t split, const std::string& pipe, int indent) {
  const std::string in = Indent(indent);
  const bool c2v_push = ir::IsOp(call, OpId::kPlSystemTpushToAiv);
  if (split != 1 && split != 2) {
    return Unsupported(call->span(), pto::StrCat(call->op()->name(), " with split=", split,
                                                 " (UP_DOWN is 1, LEFT_RIGHT 2)"));
  }
  const std::string axis =
      split == 1 ? "pto::SplitAxis::kUpDown" : "pto::SplitAxis::kLeftRight";
  if (ir::IsOp(call, OpId::kPlSystemTpushToAic)) {
    // Each lane's half goes through its own pipe; the AIC joins them.
    if (call->args().empty()) return InternalErrorF(call->span(), "a tpush without a tile");
    ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTile, "tile"));
    pto::StrAppend(&body_, in, "pto::TPUSH(", pipe, ", ", t.name, ");  // this lane's half\n");
    return absl::OkStatus();
  }
  if (ir::IsOp(call, OpId::kPlSystemTpopFromAiv)) {
    auto it = lane1_pipes_.find({PipeId(*call), false});
    if (it == lane1_pipes_.end() || var == nullptr) {
      return InternalErrorF(call->span(), call->op()->name(),
                            " with split=1 in an AIC kernel without dual_aiv_dispatch");
    }
    ASSIGN_OR_RETURN(std::string tile, NewCubeTile(var, indent));
    pto::StrAppend(&body_, in, "pto::TPOP_SPLIT(", pipe, ", ", it->second, ", ", tile, ", ", axis,
                   ");\n", in, "pto::pipe_barrier(pto::PIPE_ALL);\n");
    return absl::OkStatus();
  }
  if (c2v_push) {
    auto it = lane1_pipes_.find({PipeId(*call), true});
    if (it == lane1_pipes_.end() || call->args().empty()) {
      return InternalErrorF(call->span(), call->op()->name(),
                            " with split=1 in an AIC kernel without dual_aiv_dispatch");
    }
    ASSIGN_OR_RETURN(Value t, LookupKind(call->args()[0], Kind::kTile, "tile"));
    ASSIGN_OR_RETURN(std::string elem, ElemType(DTypeOf(call->args()[0]->type()), call->span()));
    pto::StrAppend(&body_, in, "pto::TPUSH_SPLIT<", elem, ">(", pipe, ", ", it->second, ", ",
                   t.name, ", ", axis, ");\n", in, "pto::pipe_barrier(pto::PIPE_ALL);\n");
    return absl::OkStatus();
  }
  if (var == nullptr) return Unsupported(call->span(), "a tpop whose tile is not named");
  ASSIGN_OR_RETURN(std::string tile, NewTile(var, indent));
  pto::StrAppend(&body_, in, "pto::TPOP_SPLIT(", pipe, ", ", tile,
                 ", static_cast<uint32_t>(pto::get_subblockid(args)), ", axis, ");\n");
  return absl::OkStatus();
}

}  // namespace pto::codegen::kernel_internal
