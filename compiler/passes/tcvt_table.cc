#include "compiler/passes/tcvt_table.h"

#include <algorithm>
#include <string>

namespace pto::passes {
namespace {

using ir::DataType;

// Rows of (from, every native to).
using Row = std::pair<DataType, std::vector<DataType>>;

TcvtTable Build(std::string_view arch, const std::vector<Row>& rows) {
  TcvtTable t{arch, {}};
  for (const auto& [from, tos] : rows) {
    for (DataType to : tos) t.native.emplace_back(from, to);
  }
  return t;
}

const TcvtTable& Ascend910B() {
  static const TcvtTable* table = new TcvtTable(Build(
      "Ascend910B",
      {
          {DataType::kBF16, {DataType::kFP32, DataType::kInt32}},
          {DataType::kFP16,
           {DataType::kFP32, DataType::kInt16, DataType::kInt32, DataType::kInt4, DataType::kInt8,
            DataType::kUInt8}},
          {DataType::kFP32,
           {DataType::kBF16, DataType::kFP16, DataType::kInt16, DataType::kInt32,
            DataType::kInt64}},
          {DataType::kInt16, {DataType::kFP16, DataType::kFP32}},
          {DataType::kInt32,
           {DataType::kFP16, DataType::kFP32, DataType::kInt16, DataType::kInt64}},
          {DataType::kInt4, {DataType::kFP16}},
          {DataType::kInt64, {DataType::kFP32, DataType::kInt32}},
          {DataType::kInt8, {DataType::kFP16}},
          {DataType::kUInt8, {DataType::kFP16}},
      }));
  return *table;
}

const TcvtTable& Ascend950() {
  static const TcvtTable* table = new TcvtTable(Build(
      "Ascend950",
      {
          {DataType::kBF16, {DataType::kFP16, DataType::kFP32, DataType::kFP4, DataType::kInt32}},
          {DataType::kFP16,
           {DataType::kFP32, DataType::kHF8, DataType::kInt16, DataType::kInt32, DataType::kInt8,
            DataType::kUInt8}},
          {DataType::kFP32,
           {DataType::kBF16, DataType::kFP16, DataType::kFP8E4M3FN, DataType::kFP8E5M2,
            DataType::kHF8, DataType::kInt16, DataType::kInt32, DataType::kInt64}},
          {DataType::kFP4, {DataType::kBF16}},
          {DataType::kFP8E4M3FN, {DataType::kFP32}},
          {DataType::kFP8E5M2, {DataType::kFP32}},
          {DataType::kHF8, {DataType::kFP32}},
          {DataType::kInt16,
           {DataType::kFP16, DataType::kFP32, DataType::kInt32, DataType::kUInt32,
            DataType::kUInt8}},
          {DataType::kInt32,
           {DataType::kFP32, DataType::kInt16, DataType::kInt64, DataType::kUInt16,
            DataType::kUInt8}},
          {DataType::kInt64, {DataType::kFP32, DataType::kInt32}},
          {DataType::kInt8, {DataType::kFP16, DataType::kInt16, DataType::kInt32}},
          {DataType::kUInt32, {DataType::kInt16, DataType::kUInt16, DataType::kUInt8}},
          {DataType::kUInt8, {DataType::kFP16, DataType::kUInt16}},
      }));
  return *table;
}

}  // namespace

bool TcvtTable::IsNative(DataType from, DataType to) const {
  return std::find(native.begin(), native.end(), std::make_pair(from, to)) != native.end();
}

const TcvtTable* TcvtTableForArch(std::string_view arch) {
  for (const TcvtTable* t : {&Ascend910B(), &Ascend950()}) {
    if (t->arch == arch) return t;
  }
  return nullptr;
}

}  // namespace pto::passes
