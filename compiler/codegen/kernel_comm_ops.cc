// Kernel code of the InCore collective primitives: notify/wait on window
// cells, put/get of a box through a staging tile and remote loads
// (kernel_generator.h).
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/kernel_generator.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/stmt.h"
#include "compiler/ir/type.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen::kernel_internal {

// A window operand of `call` whose communication context is known.
absl::StatusOr<Generator::Value> Generator::WindowOperand(const ir::ExprPtr& e,
                                                          const ir::CallPtr& call) {
  const std::string& op = call->op()->name();
  ASSIGN_OR_RETURN(Value v, LookupKind(e, Kind::kTensor, "tensor"));
  if (!ir::Is<ir::DistributedTensorType>(e->type()) || v.ctx.empty()) {
    return Unsupported(call->span(), pto::StrCat(op,
                                                 " on a window whose communication context "
                                                 "is not one of the kernel's params"));
  }
  return v;
}

// pld.system.notify: TNOTIFY into the peer's cell; pld.system.wait: TWAIT
// on this rank's own cell.
absl::Status Generator::EmitSignal(const ir::CallPtr& call, int indent) {
  const std::string& op = call->op()->name();
  const auto& args = call->args();
  const bool notify = ir::IsOp(call, ir::OpId::kPldSystemNotify);
  if (args.size() != (notify ? 4u : 3u)) {
    return Unsupported(call->span(), op + " of this form");
  }
  ASSIGN_OR_RETURN(Value t, WindowOperand(args[0], call));
  if (t.dtype != ir::DataType::kInt32) {
    return Unsupported(call->span(), pto::StrCat(op, " on a non-INT32 window"));
  }
  ASSIGN_OR_RETURN(std::string idx, IndexList(args[notify ? 2 : 1]));
  ASSIGN_OR_RETURN(std::string value, Scalar(args[notify ? 3 : 2]));
  const std::string in = Indent(indent);
  if (notify) {
    ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
    // NotifyOp ABI values (collectives.md §2): 0 AtomicAdd, 1 Set.
    const int64_t kind = ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0);
    pto::StrAppend(&body_, in, "pto::TNOTIFY(pto::kernels::internal::RemoteCell(", t.ctx, ", ",
                   t.name, ", ", idx, ", static_cast<int64_t>(", peer,
                   ")), static_cast<int32_t>(", value,
                   "), pto::NotifyOp::", kind == 1 ? "Set" : "AtomicAdd", ");\n");
    return absl::OkStatus();
  }
  // WaitCmp ABI values: 0 Eq, 1 Ge.
  const int64_t cmp = ir::GetAttr<int64_t>(call->kwargs(), "cmp").value_or(0);
  pto::StrAppend(&body_, in, "pto::TWAIT(pto::kernels::internal::LocalCell(", t.name, ", ", idx,
                 "), static_cast<int32_t>(", value, "), pto::WaitCmp::", cmp == 1 ? "GE" : "EQ",
                 ");\n");
  return absl::OkStatus();
}

// put (dst_window, peer, src, stage, dst_offsets, src_offsets, shape
// [, stage2]) and get (dst, peer, src_window, stage, ...): one TPUT/TGET
// of the box through `stage` (a second staging tile only buys overlap).
absl::Status Generator::EmitPutGet(const ir::CallPtr& call, int indent) {
  const std::string& op = call->op()->name();
  const auto& args = call->args();
  const bool put = ir::IsOp(call, ir::OpId::kPldTilePut) || ir::IsOp(call, ir::OpId::kPldTensorPut);
  const bool tensor_form =
      ir::IsOp(call, ir::OpId::kPldTensorPut) || ir::IsOp(call, ir::OpId::kPldTensorGet);
  // PyPTO's tensor form without a staging tile, (dst, peer, src,
  // dst_offsets, src_offsets, shape), stages through a UB tile of the box.
  const bool staged = args.size() == 7 || args.size() == 8;
  if (!staged && !(args.size() == 6 && tensor_form)) {
    return Unsupported(call->span(), op + " of this form");
  }
  if (!put && ir::GetAttr<int64_t>(call->kwargs(), "atomic").value_or(0) != 0) {
    return Unsupported(call->span(), op + " with an atomic mode");
  }
  const size_t box = staged ? 4 : 3;  // the first of dst_offsets, src_offsets, shape
  const ir::ExprPtr& window_arg = put ? args[0] : args[2];
  const ir::ExprPtr& local_arg = put ? args[2] : args[0];
  ASSIGN_OR_RETURN(Value window, WindowOperand(window_arg, call));
  ASSIGN_OR_RETURN(Value local, LookupKind(local_arg, Kind::kTensor, "tensor"));
  if (window.dtype != local.dtype) {
    return Unsupported(call->span(), op + " between different dtypes");
  }
  ASSIGN_OR_RETURN(std::string elem, ElemType(window.dtype, call->span()));
  // An atomic-add put (pto-isa's TPUT<AtomicAdd>) adds into the peer's box.
  bool atomic_add = false;
  if (put) {
    ASSIGN_OR_RETURN(atomic_add, AtomicAdd(call, window.dtype));
  }
  const std::string in = Indent(indent);
  Value stage;
  if (staged) {
    ASSIGN_OR_RETURN(stage, LookupKind(args[3], Kind::kTile, "tile"));
    if (stage.dtype != window.dtype) {
      return Unsupported(call->span(), op + " between different dtypes");
    }
  } else {
    // AllocateMemoryAddr gives a constant box its staging tile (the
    // staged form); what reaches here has a dynamic box or skipped it.
    auto shape_tuple = ir::As<ir::MakeTuple>(args[box + 2]);
    bool constant = shape_tuple != nullptr;
    for (const ir::ExprPtr& d :
         shape_tuple ? shape_tuple->elements() : std::vector<ir::ExprPtr>{}) {
      constant = constant && ir::GetConstInt(d).has_value();
    }
    if (!constant) return Unsupported(args[box + 2]->span(), op + " of a non-constant box");
    return UserErrorF(call->span(), "code generation needs a UB staging tile for ", op,
                      ": run AllocateMemoryAddr (the default pipeline) first");
  }
  ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
  ASSIGN_OR_RETURN(std::string dst_off, IndexList(args[box]));
  ASSIGN_OR_RETURN(std::string src_off, IndexList(args[box + 1]));
  ASSIGN_OR_RETURN(std::string shape, IndexList(args[box + 2]));
  const std::string remote = Fresh("remote");
  pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                 " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                 ", static_cast<int64_t>(", peer, "));\n", in,
                 "  pto::kernels::internal::CopyGmBox<", elem, ">(", put ? "true, &" : "false, ",
                 put ? remote : local.name, ", ", dst_off, ", ", put ? "" : "&",
                 put ? local.name : remote, ", ", src_off, ", ", shape, ", ", stage.name,
                 atomic_add ? ", pto::AtomicType::AtomicAdd" : "", ");\n", in, "}\n");
  return absl::OkStatus();
}

// remote_load(tile, peer, window, offsets, shape): TLOAD of the peer's box.
absl::Status Generator::EmitRemoteLoad(const ir::CallPtr& call, int indent) {
  const std::string& op = call->op()->name();
  const auto& args = call->args();
  if (args.size() != 5) return Unsupported(call->span(), op + " without offsets and shape");
  ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(Value window, WindowOperand(args[2], call));
  if (tile.dtype != window.dtype) {
    return Unsupported(call->span(), op + " between different dtypes");
  }
  ASSIGN_OR_RETURN(auto tile_shape, TileShape(args[0]->type(), call->span()));
  auto shape_tuple = ir::As<ir::MakeTuple>(args[4]);
  int64_t count = 1;
  for (const ir::ExprPtr& d :
       shape_tuple ? shape_tuple->elements() : std::vector<ir::ExprPtr>{}) {
    std::optional<int64_t> v = ir::GetConstInt(d);
    count = v ? count * *v : -1;
    if (!v) break;
  }
  if (shape_tuple == nullptr || count != tile_shape.first) {
    return Unsupported(args[4]->span(), op + " of a box that is not the tile's constant shape");
  }
  ASSIGN_OR_RETURN(std::string peer, Scalar(args[1]));
  ASSIGN_OR_RETURN(std::string off, IndexList(args[3]));
  ASSIGN_OR_RETURN(std::string shape, IndexList(args[4]));
  const std::string in = Indent(indent);
  const std::string remote = Fresh("remote");
  pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                 " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                 ", static_cast<int64_t>(", peer, "));\n", in,
                 "  pto::kernels::internal::CopyBox(true, ", tile.name, ", &", remote, ", ", off,
                 ", ", shape, ");\n", in, "}\n");
  return absl::OkStatus();
}

// remote_store(src_tile, window, peer, offsets): TSTORE of the tile into the
// peer's box of the tile's shape (no GM staging on the way out).
absl::Status Generator::EmitRemoteStore(const ir::CallPtr& call, int indent) {
  const std::string& op = call->op()->name();
  const auto& args = call->args();
  if (args.size() != 4) return Unsupported(call->span(), op + " of this form");
  if (ir::GetAttr<int64_t>(call->kwargs(), "atomic").value_or(0) != 0) {
    return Unsupported(call->span(), op + " with an atomic mode");
  }
  ASSIGN_OR_RETURN(Value tile, LookupKind(args[0], Kind::kTile, "tile"));
  ASSIGN_OR_RETURN(Value window, WindowOperand(args[1], call));
  if (tile.dtype != window.dtype) {
    return Unsupported(call->span(), op + " between different dtypes");
  }
  ASSIGN_OR_RETURN(std::string peer, Scalar(args[2]));
  ASSIGN_OR_RETURN(std::string off, IndexList(args[3]));
  ASSIGN_OR_RETURN(std::string box, BoxShape(args[0]->type(), args[3], call->span()));
  const std::string in = Indent(indent);
  const std::string remote = Fresh("remote");
  pto::StrAppend(&body_, in, "{\n", in, "  const pto::TensorDesc ", remote,
                 " = pto::kernels::internal::RemoteView(", window.ctx, ", ", window.name,
                 ", static_cast<int64_t>(", peer, "));\n", in,
                 "  pto::kernels::internal::CopyBox(false, ", tile.name, ", &", remote, ", ", off,
                 ", ", box, ");\n", in, "}\n");
  return absl::OkStatus();
}

}  // namespace pto::codegen::kernel_internal
