#include "hw/device/hccl_bootstrap.h"

#include <chrono>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "runtime/core/device_error.h"

namespace pto::hw {

using ::pto::rt::HcclStatus;

absl::StatusOr<HcclBootstrap> HcclBootstrap::Join(int rank, int nranks,
                                                  const std::string& rootinfo_path,
                                                  int timeout_s) {
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " of ", nranks));
  }
  HcclRootInfo root{};
  if (rank == 0) {
    if (absl::Status s = HcclStatus("HcclGetRootInfo", HcclGetRootInfo(&root)); !s.ok()) return s;
    // Written to a temporary name and renamed, so a reader never sees half.
    const std::string tmp = rootinfo_path + ".tmp";
    std::ofstream f(tmp, std::ios::binary);
    f.write(root.internal, sizeof(root.internal));
    f.close();
    if (!f || std::rename(tmp.c_str(), rootinfo_path.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("cannot write HCCL root info '", rootinfo_path, "'"));
    }
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (true) {
      std::ifstream f(rootinfo_path, std::ios::binary);
      if (f.read(root.internal, sizeof(root.internal))) break;
      if (std::chrono::steady_clock::now() > deadline) {
        return absl::DeadlineExceededError(absl::StrCat(
            "rank ", rank, ": no HCCL root info at '", rootinfo_path, "' after ", timeout_s, " s"));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  HcclBootstrap b;
  if (absl::Status s = HcclStatus("HcclCommInitRootInfo",
                                  HcclCommInitRootInfo(static_cast<uint32_t>(nranks), &root,
                                                       static_cast<uint32_t>(rank), &b.comm_));
      !s.ok()) {
    return s;
  }
  return b;
}

absl::Status HcclBootstrap::Barrier(aclrtStream stream) {
  return HcclStatus("HcclBarrier", HcclBarrier(comm_, stream));
}

absl::Status HcclBootstrap::Destroy() {
  if (comm_ == nullptr) return absl::OkStatus();
  absl::Status s = HcclStatus("HcclCommDestroy", HcclCommDestroy(comm_));
  comm_ = nullptr;
  return s;
}

}  // namespace pto::hw
