#include "runtime/device/cube_core.h"

namespace pto {

const char* TileKindName(TileKind k) {
  switch (k) {
    case TileKind::kMat:
      return "Mat(L1)";
    case TileKind::kLeft:
      return "Left(L0A)";
    case TileKind::kRight:
      return "Right(L0B)";
    case TileKind::kAcc:
      return "Acc(L0C)";
    case TileKind::kBias:
      return "Bias";
  }
  return "?";
}

const char* PipeName(int pipe) {
  switch (pipe) {
    case PIPE_S:
      return "S";
    case PIPE_V:
      return "V";
    case PIPE_MTE2:
      return "MTE2";
    case PIPE_MTE3:
      return "MTE3";
    case PIPE_ALL:
      return "ALL";
    case PIPE_MTE1:
      return "MTE1";
    case PIPE_M:
      return "M";
    case PIPE_FIX:
      return "FIX";
  }
  return "?";
}

const char* CubeDTypeName(CubeDType t) {
  switch (t) {
    case CubeDType::kInt8:
      return "int8";
    case CubeDType::kHalf:
      return "half";
    case CubeDType::kBf16:
      return "bfloat16";
    case CubeDType::kFloat:
      return "float";
    case CubeDType::kInt32:
      return "int32";
  }
  return "?";
}

const char* CubeOpcodeName(CubeOpcode op) {
  switch (op) {
    case CubeOpcode::kLoadL1:
      return "TLOAD";
    case CubeOpcode::kExtract:
      return "TEXTRACT";
    case CubeOpcode::kMovBias:
      return "TMOV.bias";
    case CubeOpcode::kMatmul:
      return "TMATMUL";
    case CubeOpcode::kMatmulAcc:
      return "TMATMUL_ACC";
    case CubeOpcode::kMatmulBias:
      return "TMATMUL_BIAS";
    case CubeOpcode::kAccToMat:
      return "TMOV.acc";
    case CubeOpcode::kStoreAcc:
      return "TSTORE.acc";
  }
  return "?";
}

int CubeOpcodePipe(CubeOpcode op) {
  switch (op) {
    case CubeOpcode::kLoadL1:
      return PIPE_MTE2;
    case CubeOpcode::kExtract:
    case CubeOpcode::kMovBias:
      return PIPE_MTE1;
    case CubeOpcode::kMatmul:
    case CubeOpcode::kMatmulAcc:
    case CubeOpcode::kMatmulBias:
      return PIPE_M;
    case CubeOpcode::kAccToMat:
    case CubeOpcode::kStoreAcc:
      return PIPE_FIX;
  }
  return PIPE_ALL;
}

CubeCore* CurrentCubeCore() {
  DeviceCore* c = CurrentCore();
  CubeCore* cube = dynamic_cast<CubeCore*>(c);
  if (cube == nullptr) c->Fault("cube instruction on a core without a cube unit (AIV)");
  return cube;
}

}  // namespace pto
