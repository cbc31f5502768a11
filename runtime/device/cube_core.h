// The backend interface of the cube unit (AIC), next to DeviceCore: a core
// with a cube unit implements both. Kernels do not use it directly; they call
// the instructions of cube_api.h, which compute the values (the reference
// semantics) and report every instruction here for checks and timing.
#ifndef PTO_RUNTIME_DEVICE_CUBE_CORE_H_
#define PTO_RUNTIME_DEVICE_CUBE_CORE_H_

#include <cstdint>

#include "runtime/device/device_core.h"

namespace pto {

// The AIC's local buffers, as pto-isa's TileType names them
// (docs/isa/TASSIGN.md): Mat = L1, Left = L0A, Right = L0B, Acc = L0C, Bias =
// the bias table.
enum class TileKind { kMat, kLeft, kRight, kAcc, kBias };
inline constexpr int kNumTileKinds = 5;
const char* TileKindName(TileKind k);  // "Mat(L1)", "Left(L0A)", ...

// The AIC's pipes beyond device_core.h's Pipe: MTE1 (L1 -> L0A/L0B/Bias), M
// (the cube) and FIX (FIXPIPE, out of L0C). Numbered after Pipe so one int
// names any pipe; PIPE_MTE2 is the AIC's GM -> L1 pipe.
enum CubePipe { PIPE_MTE1 = PIPE_ALL + 1, PIPE_M, PIPE_FIX };
inline constexpr int kNumPipes = PIPE_FIX + 1;
const char* PipeName(int pipe);  // "MTE2", "MTE1", "M", "FIX", ...

// Element types of cube tiles.
enum class CubeDType { kInt8, kHalf, kBf16, kFloat, kInt32 };
const char* CubeDTypeName(CubeDType t);
inline int CubeDTypeBytes(CubeDType t) {
  switch (t) {
    case CubeDType::kInt8:
      return 1;
    case CubeDType::kHalf:
    case CubeDType::kBf16:
      return 2;
    case CubeDType::kFloat:
    case CubeDType::kInt32:
      return 4;
  }
  return 0;
}

enum class CubeOpcode {
  kLoadL1,      // TLOAD GM -> Mat (MTE2)
  kExtract,     // TEXTRACT / TMOV Mat -> Left / Right (MTE1)
  kMovBias,     // TMOV Mat -> Bias (MTE1)
  kMatmul,      // TMATMUL (M)
  kMatmulAcc,   // TMATMUL_ACC (M)
  kMatmulBias,  // TMATMUL_BIAS (M)
  kAccToMat,    // TMOV Acc -> Mat (FIX)
  kStoreAcc,    // TSTORE Acc -> GM (FIX)
};
const char* CubeOpcodeName(CubeOpcode op);
int CubeOpcodePipe(CubeOpcode op);  // the pipe that executes it

// A byte range of a local buffer (kind) or of GM (gm = true).
struct CubeRange {
  bool gm = false;
  TileKind kind = TileKind::kMat;
  const void* p = nullptr;
  uint64_t bytes = 0;
};

// One issued instruction. Shapes are the valid (logical) rows x cols of the
// operands: for a matmul m x k times k x n; for moves rows x cols of the
// destination.
struct CubeInstr {
  CubeOpcode op;
  CubeDType src_type;            // matmul: A's (and B's) type
  CubeDType dst_type;            // matmul: C's type
  uint32_t m = 0, k = 0, n = 0;  // matmul
  uint32_t rows = 0, cols = 0;   // moves
  CubeRange reads[3];
  int num_reads = 0;
  CubeRange write;
};

class CubeCore {
 public:
  virtual ~CubeCore() = default;
  // The buffer of `kind`: tiles live at [CubeBase(kind), + CubeBytes(kind)).
  virtual uint8_t* CubeBase(TileKind kind) = 0;
  virtual uint64_t CubeBytes(TileKind kind) = 0;
  // Called by every cube instruction after its operands were checked and
  // before its values are computed: the backend checks the GM ranges (and
  // faults through DeviceCore::Fault), orders the instruction on its pipe and
  // charges its cost.
  virtual void Cube(const CubeInstr& instr) = 0;
  // Flags and barriers over the full pipe numbering (Pipe and CubePipe).
  virtual void CubeSetFlag(int src_pipe, int dst_pipe, int event_id) = 0;
  virtual void CubeWaitFlag(int src_pipe, int dst_pipe, int event_id) = 0;
  virtual void CubePipeBarrier(int pipe) = 0;
};

// The cube unit of the calling kernel's core; faults through CurrentCore()
// when that core has none (a cube instruction in an AIV kernel).
CubeCore* CurrentCubeCore();

}  // namespace pto

#endif  // PTO_RUNTIME_DEVICE_CUBE_CORE_H_
