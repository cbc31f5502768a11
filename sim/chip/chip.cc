#include "sim/chip/chip.h"

#include "absl/strings/str_cat.h"

namespace pto::sim {

Chip::Chip(sc_core::sc_module_name name, int chip, int chips,
           const platforms::Platform& platform, MemorySystem* mem, RunObserver* observer,
           Trace* trace, bool timing_only, GmIndex* gm_index)
    : sc_core::sc_module(name) {
  gm_ = std::make_unique<Gm>("gm", chip, platform, timing_only, gm_index);
  pipes_ = std::make_unique<CrossCorePipes>(chip, gm_.get(), trace);
  std::vector<ChipCore*> aic, aiv;
  const int b = static_cast<int>(platform.aic_cores());
  for (int i = 0; i < b; ++i) {
    aic_.push_back(std::make_unique<AicCore>(absl::StrCat("aic", i).c_str(), chip, i, platform,
                                             mem, nullptr));
    aic.push_back(aic_.back().get());
  }
  for (int i = 0; i < static_cast<int>(platform.aiv_cores()); ++i) {
    aiv_.push_back(std::make_unique<AivCore>(
        absl::StrCat("aiv", i).c_str(), chip, b + i, /*is_aic=*/false, i % 2,
        platform, mem, nullptr));
    aiv.push_back(aiv_.back().get());
  }
  cores_ = aic;
  cores_.insert(cores_.end(), aiv.begin(), aiv.end());
  aicpu_ = std::make_unique<Aicpu>("aicpu", chip, platform, gm_.get(), aiv,
                                   aic, observer, trace);
  for (ChipCore* c : cores_) {
    c->set_observer(aicpu_.get());
    c->set_world_chips(chips);
    c->set_pipes(pipes_.get());
  }
  if (platform.urma().present()) {
    urma_ = std::make_unique<UrmaEngine>("urma", chip, chips, platform, mem);
    for (ChipCore* c : cores_) c->set_urma(urma_.get());
    aicpu_->set_urma(urma_.get());
  }
}

}  // namespace pto::sim
