// The interface a backend implements for kernels: one DeviceCore per AICore,
// reached through CurrentCore() while the core runs a kernel. Kernels do not
// use it directly; they call the intrinsics of device_api.h.
#ifndef PTO_RUNTIME_DEVICE_DEVICE_CORE_H_
#define PTO_RUNTIME_DEVICE_DEVICE_CORE_H_

#include <cstdint>

namespace pto {

enum class NotifyOp { AtomicAdd, Set };
enum class WaitCmp { EQ, NE, GT, GE, LT, LE };
enum Pipe { PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
enum DsbMode { DSB_DDR };
enum DcciMode { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE, CACHELINE_OUT };
// Vector instruction kinds, for the backend's cost (docs/simulator.md).
enum class VecOp {
  kAdd, kSub, kMul, kMax, kMin, kAddS, kMulS, kFill, kCopy,
  kAbs,        // abs, not: one pass
  kMath,       // log, sin, cos
  kExp,
  kSqrt,
  kRsqrt,
  kRecip,
  kCvt,        // an element type conversion (shape: the source's element size too)
  kDiv,        // div, fmod and their scalar forms
  kMaxS,       // maximum / minimum with a scalar
  kRowReduce,  // row_sum / max / min / prod (bytes = the source's)
  kColReduce,  // col_sum / max / min / prod (bytes = the source's)
  kArgReduce,  // row_argmax / argmin (bytes = the source's)
  kExpand,     // row expand and its binary forms (bytes = the result's)
  kColExpand,  // col expand and its binary forms (bytes = the result's)
  kFillPad,    // fillpad
  kTranspose,  // 2-D transpose
  kBoxCopy,    // slice, assemble, concat: a 2-D sub-box copy
};
// The shape of one vector instruction, for its cost: `elem_bytes` per
// element, the valid box of `rows` x `cols` elements (rows of a tile `pitch`
// elements apart; 0: cols), and for kCvt the source's element size.
struct VecShape {
  int elem_bytes = 4;
  int64_t rows = 1;
  int64_t cols = 0;
  int64_t pitch = 0;
  int src_elem_bytes = 0;
};
// TSTORE's atomic mode (pto-isa docs/isa/TSTORE.md, `AtomicType`).
enum class AtomicType { AtomicNone, AtomicAdd };
// Adds `bytes` of UB elements at `ub` into GM at `gm`, element by element
// (the typed half of an atomic-add store, instantiated per element type).
using AddInto = void (*)(void* gm, const void* ub, uint64_t bytes);

inline bool CompareSignal(int32_t v, int32_t target, WaitCmp cmp) {
  switch (cmp) {
    case WaitCmp::EQ: return v == target;
    case WaitCmp::NE: return v != target;
    case WaitCmp::GT: return v > target;
    case WaitCmp::GE: return v >= target;
    case WaitCmp::LT: return v < target;
    case WaitCmp::LE: return v <= target;
  }
  return false;
}

class DeviceCore {
 public:
  virtual ~DeviceCore() = default;
  // UB of this core: tiles live at [UbBase(), UbBase() + UbBytes()).
  virtual uint8_t* UbBase() = 0;
  virtual uint64_t UbBytes() = 0;
  // Checks that [p, p + bytes) lies in UB; ends the kernel with a fault if not.
  virtual void CheckUb(const void* p, uint64_t bytes, const char* what) = 0;
  // MTE2: GM -> UB. MTE3: UB -> GM (local or a peer window). Issue is in
  // order and may return before the transfer completes; later operations on
  // the same UB bytes wait for it, and pipe_barrier waits for everything.
  virtual void Load(void* ub, const void* gm, uint64_t bytes) = 0;
  // One MTE2 DMA of `rows` GM rows of `row_bytes`, `gm_pitch` bytes apart,
  // to UB rows `ub_pitch` apart (a 2-D box of an N-D GM view). A backend
  // without strided DMAs moves it row by row.
  virtual void LoadRows(void* ub, uint64_t ub_pitch, const void* gm, uint64_t gm_pitch,
                        uint64_t rows, uint64_t row_bytes) {
    for (uint64_t r = 0; r < rows; ++r) {
      Load(static_cast<uint8_t*>(ub) + r * ub_pitch,
           static_cast<const uint8_t*>(gm) + r * gm_pitch, row_bytes);
    }
  }
  virtual void Store(void* gm, const void* ub, uint64_t bytes) = 0;
  // MTE3 with an atomic add at GM (TSTORE<AtomicAdd>): GM becomes GM + UB,
  // `add` doing the element arithmetic. Concurrent adds to the same GM never
  // lose an update. A backend without it faults.
  virtual void StoreAdd(void* gm, const void* ub, uint64_t bytes, AddInto add) {
    (void)gm, (void)ub, (void)bytes, (void)add;
    Fault("TSTORE AtomicAdd is not supported by this backend");
  }
  // GM -> GM through a UB staging tile of `stage_bytes`.
  virtual void Copy(void* dst_gm, const void* src_gm, uint64_t bytes,
                    void* stage_ub, uint64_t stage_bytes) = 0;
  virtual void Notify(int32_t* signal, int32_t value, NotifyOp op) = 0;
  virtual void Wait(const int32_t* signal, int32_t value, WaitCmp cmp) = 0;
  virtual void PipeBarrier(Pipe pipe) = 0;
  // Cross-pipe events: set_flag records when `src`'s work so far is done;
  // wait_flag holds `dst` (the issuing core) until then.
  virtual void SetFlag(Pipe src, Pipe dst, int event_id) = 0;
  virtual void WaitFlag(Pipe src, Pipe dst, int event_id) = 0;
  virtual void Dsb() = 0;
  virtual void Dcci(const void* gm, DcciMode mode) = 0;
  // Scalar GM access through the core's non-coherent data cache.
  virtual void ScalarRead(const void* gm, void* out, int bytes) = 0;
  virtual void ScalarWrite(void* gm, const void* in, int bytes) = 0;
  // Charges the cost of a vector instruction block writing `bytes` at `dst`
  // from `a` and `b` (null when unused), all in UB.
  virtual void Vector(VecOp op, const void* dst, const void* a, const void* b,
                      uint64_t bytes) = 0;
  // The same with the instruction's shape (the device API calls this one);
  // a backend that costs nothing by shape keeps the default.
  virtual void VectorShaped(VecOp op, const void* dst, const void* a, const void* b,
                            uint64_t bytes, const VecShape& shape) {
    (void)shape;
    Vector(op, dst, a, b, bytes);
  }
  // URMA (A5): posts one WQE on the queue to the chip owning `remote`
  // (write = put, else get) and rings the doorbell. Returns the event handle
  // (dest << 32) | head_after_post.
  virtual uint64_t UrmaPost(bool write, void* remote, void* local,
                            uint64_t bytes) = 0;
  // Registers a deferred completion: the task completes only when the
  // scheduler has polled the condition READY (at most 64 per task).
  virtual void DeferCompletion(uint64_t handle) = 0;
  // Ends the kernel with a fault (error latched, run ends).
  [[noreturn]] virtual void Fault(const char* what) = 0;
};

// The core running the calling kernel (set by the backend per thread).
DeviceCore* CurrentCore();
void SetCurrentCore(DeviceCore* core);

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_DEVICE_CORE_H_
