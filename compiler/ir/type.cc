#include "compiler/ir/type.h"

#include <array>

#include "compiler/ir/expr.h"

namespace pto::ir {

std::shared_ptr<const UnknownType> UnknownType::Get() {
  static const auto* t = new std::shared_ptr<const UnknownType>(std::make_shared<UnknownType>());
  return *t;
}

std::shared_ptr<const ScalarType> ScalarType::Get(DataType dtype) {
  static const auto* table = [] {
    auto* a = new std::array<std::shared_ptr<const ScalarType>, kNumDataTypes>();
    for (int i = 0; i < kNumDataTypes; ++i) {
      (*a)[i] = std::make_shared<ScalarType>(static_cast<DataType>(i));
    }
    return a;
  }();
  return (*table)[static_cast<int>(dtype)];
}

std::shared_ptr<const TensorType> AsTensorTypeLike(const TypePtr& type) {
  if (type != nullptr && (type->kind() == NodeKind::kTensorType ||
                          type->kind() == NodeKind::kDistributedTensorType)) {
    return std::static_pointer_cast<const TensorType>(type);
  }
  return nullptr;
}

std::optional<MemorySpace> TileType::Space() const {
  if (memory_space_) return memory_space_;
  if (memref() && *memref()) return (*memref())->memory_space();
  return std::nullopt;
}

std::optional<int64_t> ArrayType::ConstExtent() const {
  if (auto c = As<ConstInt>(extent_)) return c->value();
  return std::nullopt;
}

std::shared_ptr<const PtrType> PtrType::Get() {
  static const auto* t = new std::shared_ptr<const PtrType>(std::make_shared<PtrType>());
  return *t;
}

std::shared_ptr<const MemRefType> MemRefType::Get() {
  static const auto* t = new std::shared_ptr<const MemRefType>(std::make_shared<MemRefType>());
  return *t;
}

std::shared_ptr<const WindowBufferType> WindowBufferType::Get() {
  static const auto* t =
      new std::shared_ptr<const WindowBufferType>(std::make_shared<WindowBufferType>());
  return *t;
}

std::shared_ptr<const CommCtxType> CommCtxType::Get() {
  static const auto* t = new std::shared_ptr<const CommCtxType>(std::make_shared<CommCtxType>());
  return *t;
}

}  // namespace pto::ir
