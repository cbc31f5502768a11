// Canonical names of the distributed operators (docs/operators.md), so
// passes compare against one spelling instead of string literals.
#ifndef PTO_COMPILER_OPS_OP_NAMES_H_
#define PTO_COMPILER_OPS_OP_NAMES_H_

#include <string_view>

namespace pto::ops::names {

// Windows and system ops (§2.1, §2.2).
inline constexpr std::string_view kAllocWindowBuffer = "pld.tensor.alloc_window_buffer";
inline constexpr std::string_view kWindow = "pld.tensor.window";
inline constexpr std::string_view kWorldSize = "pld.system.world_size";
inline constexpr std::string_view kGetCommCtx = "pld.system.get_comm_ctx";
inline constexpr std::string_view kRank = "pld.system.rank";
inline constexpr std::string_view kNranks = "pld.system.nranks";
inline constexpr std::string_view kNotify = "pld.system.notify";
inline constexpr std::string_view kWait = "pld.system.wait";
inline constexpr std::string_view kDeferWait = "pld.system.defer_wait";

// Point-to-point data ops (§2.3).
inline constexpr std::string_view kTensorPut = "pld.tensor.put";
inline constexpr std::string_view kTilePut = "pld.tile.put";
inline constexpr std::string_view kTensorGet = "pld.tensor.get";
inline constexpr std::string_view kTileGet = "pld.tile.get";
inline constexpr std::string_view kTileRemoteLoad = "pld.tile.remote_load";
inline constexpr std::string_view kTileRemoteStore = "pld.tile.remote_store";
inline constexpr std::string_view kTensorRemoteStore = "pld.tensor.remote_store";

// The public collectives are spelled in compiler/ir/op_list.inc only and
// described by their CollectiveDef (compiler/ops/collective_def.h).

// Prefix of the internal HOST-rail chip dispatches (§2.5).
inline constexpr std::string_view kBuiltinTensorPrefix = "builtin.tensor.";

}  // namespace pto::ops::names

#endif  // PTO_COMPILER_OPS_OP_NAMES_H_
