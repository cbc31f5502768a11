// Element data types of scalars, tensors and tiles (PyPTO's DataType).
#ifndef PTO_COMPILER_IR_DTYPE_H_
#define PTO_COMPILER_IR_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::ir {

// PyPTO's list and order, so that its enum codes (printed in attrs and
// passed to the runtime ABI) mean the same here. INDEX and TASK_ID are not
// storage types: they type shapes, loop variables and task handles, which the
// orchestration holds as 64-bit integers.
enum class DataType : uint8_t {
  kBool,
  kInt4,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt4,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFP4,
  kFP8E4M3FN,
  kFP8E5M2,
  kFP16,
  kBF16,
  kFP32,
  kFP64,
  kHF4,
  kHF8,
  kIndex,   // machine index (shapes, offsets, loop variables)
  kTaskId,  // runtime task handle
};

// For tables indexed by dtype (names, widths).
inline constexpr int kNumDataTypes = static_cast<int>(DataType::kTaskId) + 1;

// The DSL spelling without the `pl.` prefix, e.g. "FP32", "INT8", "INDEX".
std::string_view DataTypeName(DataType t);
std::optional<DataType> DataTypeFromName(std::string_view name);
// Width in bits (INDEX and TASK_ID are 64-bit).
int DataTypeBits(DataType t);
// Size in bytes, rounded up for sub-byte types (`pl.FP32.get_byte()`).
int DataTypeBytes(DataType t);
bool IsFloat(DataType t);
bool IsSignedInt(DataType t);
bool IsUnsignedInt(DataType t);
// Integer-valued types that scalar arithmetic treats as integers (incl. INDEX).
bool IsIntegral(DataType t);

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_DTYPE_H_
