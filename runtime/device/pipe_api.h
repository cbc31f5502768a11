// TPUSH / TPOP: tiles through the cross-core pipes of a 1C2V cluster, the
// channels of a MIX task's AIC and AIVs (pto-isa include/pto/npu/a2a3/
// TPush.hpp, TPop.hpp: TPipe<FlagID, DirType, SlotSize, SlotNum>).
//
// The reference semantics: a pipe is a ring of `slots` slots. TPUSH waits for
// a free slot, writes the tile into it and publishes it; TPOP waits for the
// oldest published slot, reads the tile out of it and frees it (TPOP
// includes PyPTO's tfree). A full pipe blocks its producer, an empty one its
// consumer. The slot's bytes move as on a2a3, where the slots are a GM
// buffer (PyPTO's InjectGMPipeBuffer pass): the AIC's TPUSH is a FIXPIPE
// TSTORE of its Acc tile into the slot and the AIV's TPOP a TLOAD into UB;
// V2C is the AIV's TSTORE from UB and the AIC's TLOAD into L1. So a pushed
// tile reads back with TSTORE's conversion, and costs what those moves cost
// plus the cross-core flag.
#ifndef PTO_RUNTIME_DEVICE_PIPE_API_H_
#define PTO_RUNTIME_DEVICE_PIPE_API_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/pipe_core.h"

namespace pto {

namespace pipe_internal {
// Through DeviceCore only, so this header also builds over the pto-isa
// overlay's cube_api.h (hw/pto_isa), which implements the moves below.
[[noreturn]] inline void Fail(const std::string& msg) {
  CurrentCore()->Fault(msg.c_str());
  __builtin_unreachable();
}
inline void Check(const PipeSpec& p, PipeDir want, uint64_t bytes, const char* what) {
  if (p.dir != want) {
    Fail(std::string(what) + ": pipe " + std::to_string(p.id) + " is " +
                        (p.dir == PipeDir::kC2V ? "C2V" : "V2C") + ", this end cannot use it so");
  }
  if (p.slots == 0 || bytes > p.slot_bytes) {
    Fail(std::string(what) + ": a tile of " + std::to_string(bytes) +
                        " bytes does not fit pipe " + std::to_string(p.id) + "'s slots of " +
                        std::to_string(p.slot_bytes) + " bytes");
  }
}
}  // namespace pipe_internal

// AIC, C2V: the Acc tile into the next slot, converted to D as TSTORE does.
template <typename D, typename S>
void TPUSH(const PipeSpec& p, const AccTile<S>& src) {
  pipe_internal::Check(p, PipeDir::kC2V, src.count() * sizeof(D), "TPUSH Acc");
  PipeCore* pc = CurrentPipeCore();
  D* slot = static_cast<D*>(pc->PipeAcquire(p, /*push=*/true));
  TSTORE(GlobalTensor<D>{slot, src.count()}, src);
  pc->PipeRelease(p, /*push=*/true);
}

// AIV, C2V: the oldest slot into a UB tile.
template <typename T>
void TPOP(const PipeSpec& p, Tile<T>& dst) {
  pipe_internal::Check(p, PipeDir::kC2V, dst.bytes(), "TPOP UB");
  PipeCore* pc = CurrentPipeCore();
  T* slot = static_cast<T*>(pc->PipeAcquire(p, /*push=*/false));
  TLOAD(dst, GlobalTensor<T>{slot, dst.count});
  pc->PipeRelease(p, /*push=*/false);
}

// AIV, V2C: a UB tile into the next slot.
template <typename T>
void TPUSH(const PipeSpec& p, const Tile<T>& src) {
  pipe_internal::Check(p, PipeDir::kV2C, src.bytes(), "TPUSH UB");
  PipeCore* pc = CurrentPipeCore();
  T* slot = static_cast<T*>(pc->PipeAcquire(p, /*push=*/true));
  TSTORE(GlobalTensor<T>{slot, src.count}, src);
  pc->PipeRelease(p, /*push=*/true);
}

// AIC, V2C: the oldest slot into a Mat (L1) tile, rows x cols dense.
template <typename T>
void TPOP(const PipeSpec& p, MatTile<T>& dst) {
  pipe_internal::Check(p, PipeDir::kV2C, dst.bytes(), "TPOP Mat");
  PipeCore* pc = CurrentPipeCore();
  T* slot = static_cast<T*>(pc->PipeAcquire(p, /*push=*/false));
  TLOAD(dst, GlobalTensor<T>{slot, dst.count()});
  pc->PipeRelease(p, /*push=*/false);
}

// A tile halved over the two AIV lanes (pl.split_aiv, PyPTO's split=1
// UP_DOWN / 2 LEFT_RIGHT; pto-isa's TileSplitAxis). On a2a3 the AIC writes
// its full tile into one GM slot and each AIV reads its half at its offset
// (pto-isa a2a3/TPush.hpp: lane 1 starts at the second row block, or at the
// half column). Here each lane has its own pipe, so the AIC's one FIXPIPE
// store goes to lane 0's slot and lane 1's slot receives the same bytes
// untimed: the one shared slot, seen through two pipes.
// AIC, C2V: the full Acc tile, converted to D, for both lanes.
template <typename D, typename S>
void TPUSH_SPLIT(const PipeSpec& lane0, const PipeSpec& lane1, const AccTile<S>& src) {
  const uint64_t bytes = src.count() * sizeof(D);
  pipe_internal::Check(lane0, PipeDir::kC2V, bytes, "TPUSH_SPLIT Acc");
  pipe_internal::Check(lane1, PipeDir::kC2V, bytes, "TPUSH_SPLIT Acc");
  PipeCore* pc = CurrentPipeCore();
  D* slot0 = static_cast<D*>(pc->PipeAcquire(lane0, /*push=*/true));
  TSTORE(GlobalTensor<D>{slot0, src.count()}, src);
  D* slot1 = static_cast<D*>(pc->PipeAcquire(lane1, /*push=*/true));
  std::memcpy(slot1, slot0, bytes);
  pc->PipeRelease(lane0, /*push=*/true);
  pc->PipeRelease(lane1, /*push=*/true);
}

// AIV, C2V: this lane's half of the full tile in the slot, UP_DOWN: the
// slot's rows are dst.count elements each lane, lane 1's after lane 0's, so
// the half is one contiguous load. (LEFT_RIGHT, a strided half, is not here
// yet; code generation rejects it.)
template <typename T>
void TPOP_SPLIT(const PipeSpec& p, Tile<T>& dst, uint32_t lane) {
  pipe_internal::Check(p, PipeDir::kC2V, 2 * dst.bytes(), "TPOP_SPLIT UB");
  if (lane > 1) pipe_internal::Fail("TPOP_SPLIT UB: lane " + std::to_string(lane) + " of 2");
  PipeCore* pc = CurrentPipeCore();
  T* slot = static_cast<T*>(pc->PipeAcquire(p, /*push=*/false));
  TLOAD(dst, GlobalTensor<T>{slot + lane * dst.count, dst.count});
  pc->PipeRelease(p, /*push=*/false);
}

// AIC, V2C: the two lanes' UP_DOWN halves (each lane TPUSHes its half into
// its own pipe) joined into a full Mat tile. On a2a3 both lanes write one
// slot, lane 1 at the second row block; here lane 1's half is placed after
// lane 0's in lane 0's slot untimed (that shared slot), then one TLOAD.
template <typename T>
void TPOP_SPLIT(const PipeSpec& lane0, const PipeSpec& lane1, MatTile<T>& dst) {
  pipe_internal::Check(lane0, PipeDir::kV2C, dst.bytes(), "TPOP_SPLIT Mat");
  pipe_internal::Check(lane1, PipeDir::kV2C, dst.bytes(), "TPOP_SPLIT Mat");
  if (dst.rows % 2 != 0) pipe_internal::Fail("TPOP_SPLIT Mat: an odd number of rows");
  PipeCore* pc = CurrentPipeCore();
  T* slot0 = static_cast<T*>(pc->PipeAcquire(lane0, /*push=*/false));
  const T* slot1 = static_cast<const T*>(pc->PipeAcquire(lane1, /*push=*/false));
  const uint64_t half = dst.count() / 2;
  std::memcpy(slot0 + half, slot1, half * sizeof(T));
  TLOAD(dst, GlobalTensor<T>{slot0, dst.count()});
  pc->PipeRelease(lane0, /*push=*/false);
  pc->PipeRelease(lane1, /*push=*/false);
}

// Either end, either direction: a slot handed over with no data (a
// statically empty tile, 0 rows). A no-split MIX task dispatched on both AIV
// lanes (PyPTO's SplitVectorKernel) replays its handshakes on lane 1 with
// these, so every pipe of the cluster sees as many pushes as pops.
inline void TPUSH_EMPTY(const PipeSpec& p) {
  PipeCore* pc = CurrentPipeCore();
  pc->PipeAcquire(p, /*push=*/true);
  pc->PipeRelease(p, /*push=*/true);
}
inline void TPOP_EMPTY(const PipeSpec& p) {
  PipeCore* pc = CurrentPipeCore();
  pc->PipeAcquire(p, /*push=*/false);
  pc->PipeRelease(p, /*push=*/false);
}

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_PIPE_API_H_
