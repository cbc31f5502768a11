// HCCL for bootstrap only (docs/hw.md): rank 0 writes the root info to a
// file every rank reads, every rank joins the communicator, and barriers
// order window export before import. No HCCL collective moves payload:
// every collective is one of our AIV kernels.
#ifndef PTO_HW_DEVICE_HCCL_BOOTSTRAP_H_
#define PTO_HW_DEVICE_HCCL_BOOTSTRAP_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hw/cann/cann_api.h"

namespace pto::hw {

class HcclBootstrap {
 public:
  // Rank 0 creates the root info and writes it to `rootinfo_path`; the
  // others wait for the file (up to `timeout_s`) and read it.
  static absl::StatusOr<HcclBootstrap> Join(int rank, int nranks, const std::string& rootinfo_path,
                                            int timeout_s = 120);
  absl::Status Barrier(aclrtStream stream);
  absl::Status Destroy();

 private:
  HcclComm comm_ = nullptr;
};

}  // namespace pto::hw

#endif  // PTO_HW_DEVICE_HCCL_BOOTSTRAP_H_
