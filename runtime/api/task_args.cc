#include "runtime/api/task_args.h"

#include "absl/strings/str_cat.h"

namespace pto::rt {

Tensor Tensor::WithShape(std::initializer_list<uint64_t> dims) const {
  Tensor t = *this;
  t.ndims = static_cast<uint32_t>(dims.size());
  int i = 0;
  for (uint64_t d : dims) {
    if (i == kMaxTensorDims) break;
    t.shape[i++] = d;
  }
  for (; i < kMaxTensorDims; ++i) t.shape[i] = 0;
  return t;
}

Tensor Tensor::View(uint64_t off, uint64_t n) const {
  Tensor t = *this;
  t.offset = offset + off;
  t.bytes = n;
  if (ndims >= 1 && ndims <= kMaxTensorDims) {
    uint64_t row = elem_bytes == 0 ? 1 : elem_bytes;
    for (uint32_t i = 1; i < ndims; ++i) row *= shape[i];
    t.shape[0] = row == 0 ? 0 : n / row;
  }
  return t;
}

std::string ShapeError(const Tensor& t) {
  if (t.ndims == 0) return "";
  if (t.ndims > static_cast<uint32_t>(kMaxTensorDims)) {
    return absl::StrCat("ndims=", t.ndims, " > ", kMaxTensorDims);
  }
  const uint64_t elem = t.elem_bytes == 0 ? 1 : t.elem_bytes;
  std::string dims;
  // Multiplied in 128 bits: a shape whose product wraps must not pass.
  unsigned __int128 total = elem;
  for (uint32_t i = 0; i < t.ndims; ++i) {
    absl::StrAppend(&dims, i == 0 ? "" : ", ", t.shape[i]);
    total *= t.shape[i];
    if (total > t.bytes) total = static_cast<unsigned __int128>(t.bytes) + 1;
  }
  if (total == t.bytes) return "";
  return absl::StrCat("shape [", dims, "] x ", elem, " B != view of ",
                      t.bytes, " bytes");
}

void TaskArgs::SetError(std::string msg) {
  if (error_.empty()) error_ = std::move(msg);  // the first error explains
}

void TaskArgs::AddTensor(const Tensor& t, ArgDirection dir) {
  if (tensors_.size() >= static_cast<size_t>(kMaxTensorArgs)) {
    SetError(absl::StrCat("more than ", kMaxTensorArgs, " tensor arguments"));
    return;
  }
  if (!t.valid()) {
    SetError(absl::StrCat("tensor argument ", tensors_.size(),
                          " is not a valid tensor"));
    return;
  }
  tensors_.push_back(TensorArg{t, TensorCreateInfo{}, dir});
}

void TaskArgs::add_output(const TensorCreateInfo& info) {
  if (tensors_.size() >= static_cast<size_t>(kMaxTensorArgs)) {
    SetError(absl::StrCat("more than ", kMaxTensorArgs, " tensor arguments"));
    return;
  }
  if (info.bytes == 0) {
    SetError(absl::StrCat("output ", tensors_.size(), " has zero bytes"));
    return;
  }
  tensors_.push_back(TensorArg{Tensor{}, info, ArgDirection::kOutput});
}

void TaskArgs::add_scalar(uint64_t v) {
  if (scalars_.size() >= static_cast<size_t>(kMaxScalarArgs)) {
    SetError(absl::StrCat("more than ", kMaxScalarArgs, " scalar arguments"));
    return;
  }
  scalars_.push_back(v);
}

}  // namespace pto::rt
