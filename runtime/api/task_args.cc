#include "runtime/api/task_args.h"

#include "absl/strings/str_cat.h"

namespace pto::rt {

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
