#include "runtime/api/task_args.h"

#include "absl/strings/str_cat.h"

namespace pto::rt {

// WithShape and View reinterpret bytes as row-major: of a strided view (whose
// bytes have gaps) they give an invalid tensor, which a submit rejects.
Tensor Tensor::WithShape(std::initializer_list<uint64_t> dims) const {
  if (strided()) return Tensor{};
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
  if (strided()) return Tensor{};
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

uint64_t Tensor::Stride(uint32_t k) const {
  if (strided()) return strides[k];
  uint64_t s = 1;
  for (uint32_t j = k + 1; j < ndims && j < static_cast<uint32_t>(kMaxTensorDims); ++j) {
    s *= shape[j];
  }
  return s;
}

namespace {

// Bytes from the first to one past the last element of `shape` laid out with
// `stride`; 0 for an empty box. 128 bits: a span that wraps must not pass.
unsigned __int128 SpanBytes(uint32_t ndims, const uint64_t* shape, const uint64_t* stride,
                            uint64_t elem) {
  unsigned __int128 last = 0;
  for (uint32_t k = 0; k < ndims; ++k) {
    if (shape[k] == 0) return 0;
    last += static_cast<unsigned __int128>(shape[k] - 1) * stride[k];
  }
  return (last + 1) * elem;
}

}  // namespace

Tensor Tensor::Slice(std::initializer_list<int64_t> offsets,
                     std::initializer_list<int64_t> shape, std::string* error) const {
  const uint32_t rank = ndims == 0 ? 1 : ndims;
  auto dim = [&](uint32_t k) -> uint64_t {
    return ndims == 0 ? bytes / (elem_bytes == 0 ? 1 : elem_bytes) : this->shape[k];
  };
  auto fail = [&](std::string msg) {
    *error = std::move(msg);
    return Tensor{};
  };
  if (offsets.size() != rank || shape.size() != rank || rank > static_cast<uint32_t>(kMaxTensorDims)) {
    return fail(absl::StrCat("a slice of rank ", shape.size(), " with ", offsets.size(),
                             " offsets of a tensor of rank ", rank));
  }
  Tensor t = *this;
  t.ndims = rank;
  const uint64_t elem = elem_bytes == 0 ? 1 : elem_bytes;
  uint64_t stride[kMaxTensorDims] = {};
  uint64_t first = 0;  // element offset of the box from this view's start
  uint32_t k = 0;
  for (auto o = offsets.begin(), n = shape.begin(); k < rank; ++k, ++o, ++n) {
    stride[k] = ndims == 0 ? 1 : Stride(k);
    if (*o < 0 || *n < 0 || static_cast<uint64_t>(*o) + static_cast<uint64_t>(*n) > dim(k)) {
      return fail(absl::StrCat("dim ", k, ": the box [", *o, ", ", *o + *n,
                               ") is outside the tensor's extent ", dim(k)));
    }
    t.shape[k] = static_cast<uint64_t>(*n);
    first += static_cast<uint64_t>(*o) * stride[k];
  }
  for (; k < static_cast<uint32_t>(kMaxTensorDims); ++k) t.shape[k] = 0;
  t.offset = offset + first * elem;
  t.bytes = static_cast<uint64_t>(SpanBytes(rank, t.shape, stride, elem));
  // One run of elements (every dim wider than 1 dense inside the next) is a
  // row-major tensor of its own; anything else keeps the strides.
  uint64_t dense = 1;
  bool row_major = true;
  for (int j = static_cast<int>(rank) - 1; j >= 0; --j) {
    if (t.shape[j] > 1 && stride[j] != dense) row_major = false;
    dense *= t.shape[j];
  }
  for (uint32_t j = 0; j < static_cast<uint32_t>(kMaxTensorDims); ++j) {
    t.strides[j] = row_major || j >= rank ? 0 : stride[j];
  }
  error->clear();
  return t;
}

Tensor Tensor::DropLeadingDims(uint32_t n) const {
  if (n == 0 || n >= ndims || ndims > static_cast<uint32_t>(kMaxTensorDims)) return *this;
  Tensor t = *this;
  t.ndims = ndims - n;
  for (uint32_t k = 0; k < static_cast<uint32_t>(kMaxTensorDims); ++k) {
    t.shape[k] = k < t.ndims ? shape[k + n] : 0;
    t.strides[k] = k < t.ndims ? strides[k + n] : 0;
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
  for (uint32_t i = 0; i < t.ndims; ++i) absl::StrAppend(&dims, i == 0 ? "" : ", ", t.shape[i]);
  if (t.strided()) {
    if (t.strides[t.ndims - 1] != 1) {
      return absl::StrCat("shape [", dims, "]: a strided view whose innermost stride is ",
                          t.strides[t.ndims - 1], ", not 1");
    }
    if (SpanBytes(t.ndims, t.shape, t.strides, elem) == t.bytes) return "";
    return absl::StrCat("shape [", dims, "] with strides spans ",
                        static_cast<uint64_t>(SpanBytes(t.ndims, t.shape, t.strides, elem)),
                        " B != view of ", t.bytes, " bytes");
  }
  // Multiplied in 128 bits: a shape whose product wraps must not pass.
  unsigned __int128 total = elem;
  for (uint32_t i = 0; i < t.ndims; ++i) {
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
