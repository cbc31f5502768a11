// One chip (one device id): GM, the AIC and AIV cores, and the AICPU.
#ifndef PTO_SIM_CHIP_CHIP_H_
#define PTO_SIM_CHIP_CHIP_H_

#include <memory>
#include <vector>

#include <systemc>

#include "sim/aic/aic_core.h"
#include "sim/aicpu/aicpu.h"
#include "sim/aiv/aiv_core.h"
#include "sim/chip/cross_core_pipes.h"
#include "sim/common/chip_core.h"
#include "sim/gm/gm.h"
#include "platforms/platform.pb.h"
#include "sim/urma/urma_engine.h"

namespace pto::sim {

class Chip : public sc_core::sc_module {
 public:
  Chip(sc_core::sc_module_name name, int chip, int chips,
       const platforms::Platform& platform, MemorySystem* mem, RunObserver* observer,
       Trace* trace, bool timing_only = false, GmIndex* gm_index = nullptr);

  Gm& gm() { return *gm_; }
  Aicpu& aicpu() { return *aicpu_; }
  UrmaEngine* urma() { return urma_.get(); }  // null without URMA
  const CrossCorePipes& pipes() const { return *pipes_; }
  // Every core by flattened id: AIC [0, B), AIV [B, 3B).
  const std::vector<ChipCore*>& cores() const { return cores_; }
  const std::vector<std::unique_ptr<AicCore>>& aic_cores() const { return aic_; }
  const std::vector<std::unique_ptr<AivCore>>& aiv_cores() const { return aiv_; }

 private:
  std::unique_ptr<Gm> gm_;
  std::unique_ptr<CrossCorePipes> pipes_;
  std::vector<std::unique_ptr<AicCore>> aic_;
  std::vector<std::unique_ptr<AivCore>> aiv_;
  std::vector<ChipCore*> cores_;
  std::unique_ptr<Aicpu> aicpu_;
  std::unique_ptr<UrmaEngine> urma_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_CHIP_CHIP_H_
