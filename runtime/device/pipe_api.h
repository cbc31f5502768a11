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

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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
// The split axis of a halved tile (pto-isa TileSplitAxis; PyPTO's split=1 / 2).
enum class SplitAxis : int { kUpDown = 1, kLeftRight = 2 };

namespace pipe_internal {
// LEFT_RIGHT: a rows x 2w tile's column halves as two dense rows x w blocks
// (to_halves) or back. In place in `full` for lane 0's half, `other` for
// lane 1's; the untimed movement of the one shared slot's bytes.
template <typename T>
void SplitColumns(T* full, T* other, uint64_t rows, uint64_t w, bool to_halves) {
  const std::vector<T> a(full, full + rows * 2 * w);  // the full tile, or lane 0's half
  for (uint64_t r = 0; r < rows; ++r) {
    if (to_halves) {
      std::copy(&a[r * 2 * w], &a[r * 2 * w] + w, full + r * w);
      std::copy(&a[r * 2 * w] + w, &a[r * 2 * w] + 2 * w, other + r * w);
    } else {
      std::copy(&a[r * w], &a[r * w] + w, full + r * 2 * w);
      std::copy(other + r * w, other + r * w + w, full + r * 2 * w + w);
    }
  }
}
}  // namespace pipe_internal

// AIC, C2V: the full Acc tile, converted to D, for both lanes. UP_DOWN: both
// slots hold the full tile and each lane reads its row block; LEFT_RIGHT:
// each lane's slot holds its column half dense (on a2a3 the lane reads that
// strided window of the shared slot; modelled as a contiguous load of the
// same bytes, an assumption).
template <typename D, typename S>
void TPUSH_SPLIT(const PipeSpec& lane0, const PipeSpec& lane1, const AccTile<S>& src,
                 SplitAxis axis = SplitAxis::kUpDown) {
  const uint64_t bytes = src.count() * sizeof(D);
  pipe_internal::Check(lane0, PipeDir::kC2V, bytes, "TPUSH_SPLIT Acc");
  pipe_internal::Check(lane1, PipeDir::kC2V, bytes, "TPUSH_SPLIT Acc");
  if (axis == SplitAxis::kLeftRight && src.cols % 2 != 0) {
    pipe_internal::Fail("TPUSH_SPLIT Acc: an odd number of columns");
  }
  PipeCore* pc = CurrentPipeCore();
  D* slot0 = static_cast<D*>(pc->PipeAcquire(lane0, /*push=*/true));
  TSTORE(GlobalTensor<D>{slot0, src.count()}, src);
  D* slot1 = static_cast<D*>(pc->PipeAcquire(lane1, /*push=*/true));
  if (axis == SplitAxis::kLeftRight) {
    pipe_internal::SplitColumns(slot0, slot1, src.rows, src.cols / 2, /*to_halves=*/true);
  } else {
    std::memcpy(slot1, slot0, bytes);
  }
  pc->PipeRelease(lane0, /*push=*/true);
  pc->PipeRelease(lane1, /*push=*/true);
}

// AIV, C2V: this lane's half into a UB tile of dst.count elements. UP_DOWN:
// rows [lane * h, (lane + 1) * h) of the full tile, one contiguous load;
// LEFT_RIGHT: the slot's dense half.
template <typename T>
void TPOP_SPLIT(const PipeSpec& p, Tile<T>& dst, uint32_t lane,
                SplitAxis axis = SplitAxis::kUpDown) {
  pipe_internal::Check(p, PipeDir::kC2V, 2 * dst.bytes(), "TPOP_SPLIT UB");
  if (lane > 1) pipe_internal::Fail("TPOP_SPLIT UB: lane " + std::to_string(lane) + " of 2");
  PipeCore* pc = CurrentPipeCore();
  T* slot = static_cast<T*>(pc->PipeAcquire(p, /*push=*/false));
  const uint64_t offset = axis == SplitAxis::kUpDown ? lane * dst.count : 0;
  TLOAD(dst, GlobalTensor<T>{slot + offset, dst.count});
  pc->PipeRelease(p, /*push=*/false);
}

// AIC, V2C: the two lanes' halves (each lane TPUSHes its half, dense, into
// its own pipe) joined into a full Mat tile. On a2a3 both lanes write one
// slot at their offsets; here lane 1's half is placed into lane 0's slot
// untimed (that shared slot), then one TLOAD.
template <typename T>
void TPOP_SPLIT(const PipeSpec& lane0, const PipeSpec& lane1, MatTile<T>& dst,
                SplitAxis axis = SplitAxis::kUpDown) {
  pipe_internal::Check(lane0, PipeDir::kV2C, dst.bytes(), "TPOP_SPLIT Mat");
  pipe_internal::Check(lane1, PipeDir::kV2C, dst.bytes(), "TPOP_SPLIT Mat");
  const bool up_down = axis == SplitAxis::kUpDown;
  if ((up_down ? dst.rows : dst.cols) % 2 != 0) {
    pipe_internal::Fail("TPOP_SPLIT Mat: an odd extent on the split axis");
  }
  PipeCore* pc = CurrentPipeCore();
  T* slot0 = static_cast<T*>(pc->PipeAcquire(lane0, /*push=*/false));
  T* slot1 = static_cast<T*>(pc->PipeAcquire(lane1, /*push=*/false));
  const uint64_t half = dst.count() / 2;
  if (up_down) {
    std::memcpy(slot0 + half, slot1, half * sizeof(T));
  } else {
    pipe_internal::SplitColumns(slot0, slot1, dst.rows, dst.cols / 2, /*to_halves=*/false);
  }
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
