#include "compiler/ir/dtype.h"

#include <array>

namespace pto::ir {
namespace {

struct DTypeInfo {
  DataType type;
  std::string_view name;
  int bits;
};

constexpr std::array<DTypeInfo, kNumDataTypes> kInfo = {{
    {DataType::kBool, "BOOL", 8},
    {DataType::kInt4, "INT4", 4},
    {DataType::kInt8, "INT8", 8},
    {DataType::kInt16, "INT16", 16},
    {DataType::kInt32, "INT32", 32},
    {DataType::kInt64, "INT64", 64},
    {DataType::kUInt4, "UINT4", 4},
    {DataType::kUInt8, "UINT8", 8},
    {DataType::kUInt16, "UINT16", 16},
    {DataType::kUInt32, "UINT32", 32},
    {DataType::kUInt64, "UINT64", 64},
    {DataType::kFP4, "FP4", 4},
    {DataType::kFP8E4M3FN, "FP8E4M3FN", 8},
    {DataType::kFP8E5M2, "FP8E5M2", 8},
    {DataType::kFP16, "FP16", 16},
    {DataType::kBF16, "BF16", 16},
    {DataType::kFP32, "FP32", 32},
    {DataType::kFP64, "FP64", 64},
    {DataType::kHF4, "HF4", 4},
    {DataType::kHF8, "HF8", 8},
    {DataType::kIndex, "INDEX", 64},
    {DataType::kTaskId, "TASK_ID", 64},
}};

const DTypeInfo& Info(DataType t) { return kInfo[static_cast<int>(t)]; }

}  // namespace

std::string_view DataTypeName(DataType t) { return Info(t).name; }

std::optional<DataType> DataTypeFromName(std::string_view name) {
  // Every name is upper case: the parser asks about every `pl.<attribute>`.
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return std::nullopt;
  for (const DTypeInfo& i : kInfo) {
    if (i.name.size() == name.size() && i.name[0] == name[0] && i.name == name) return i.type;
  }
  // Common aliases accepted by the DSL.
  if (name == "FLOAT32") return DataType::kFP32;
  if (name == "FLOAT16") return DataType::kFP16;
  if (name == "BFLOAT16") return DataType::kBF16;
  return std::nullopt;
}

int DataTypeBits(DataType t) { return Info(t).bits; }
int DataTypeBytes(DataType t) { return (Info(t).bits + 7) / 8; }

bool IsFloat(DataType t) {
  switch (t) {
    case DataType::kFP4:
    case DataType::kFP8E4M3FN:
    case DataType::kFP8E5M2:
    case DataType::kFP16:
    case DataType::kBF16:
    case DataType::kFP32:
    case DataType::kFP64:
    case DataType::kHF4:
    case DataType::kHF8:
      return true;
    default:
      return false;
  }
}

bool IsSignedInt(DataType t) {
  switch (t) {
    case DataType::kInt4:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kIndex:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedInt(DataType t) {
  switch (t) {
    case DataType::kUInt4:
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

bool IsIntegral(DataType t) {
  return IsSignedInt(t) || IsUnsignedInt(t) || t == DataType::kTaskId;
}

}  // namespace pto::ir
