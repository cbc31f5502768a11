#include "sim/chip/cross_core_pipes.h"

#include "absl/strings/str_cat.h"

namespace pto::sim {

CrossCorePipe* CrossCorePipes::Pipe(int cluster, int lane, const PipeSpec& spec,
                                    std::string* error) {
  auto& slot = pipes_[{cluster, lane, spec.id}];
  if (slot != nullptr) {
    const PipeSpec& s = slot->spec;
    if (s.dir != spec.dir || s.slots != spec.slots || s.slot_bytes != spec.slot_bytes) {
      *error = absl::StrCat(slot->Name(), " is declared here as ",
                            spec.dir == PipeDir::kC2V ? "C2V" : "V2C", ", ", spec.slots, " x ",
                            spec.slot_bytes, " B: both ends must declare the same pipe");
      return nullptr;
    }
    return slot.get();
  }
  auto p = std::make_unique<CrossCorePipe>();
  p->chip = chip_;
  p->cluster = cluster;
  p->lane = lane;
  p->spec = spec;
  p->spec.lane = lane;
  absl::StatusOr<uint64_t> base = gm_->Alloc(
      spec.slots * spec.slot_bytes, absl::StrCat("pipe cluster ", cluster, " lane ", lane, " id ",
                                                 spec.id));
  if (!base.ok()) {
    *error = absl::StrCat(p->Name(), ": ", base.status().message());
    pipes_.erase({cluster, lane, spec.id});
    return nullptr;
  }
  p->base = *base;
  p->ready_at.assign(spec.slots, 0);
  p->free_at.assign(spec.slots, 0);
  const std::string proc = absl::StrCat("chip ", chip_);
  for (uint32_t i = 0; i < spec.slots; ++i) {
    p->slot_tracks.push_back(trace_->AddTrack(
        chip_, proc, absl::StrCat("pipe ", spec.id, " cluster ", cluster, " lane ", lane,
                                  " slot ", i)));
  }
  slot = std::move(p);
  return slot.get();
}

void CrossCorePipes::FillStats(RunReport* r) const {
  for (const auto& [key, p] : pipes_) {
    ResourceStat* q = r->add_queues();
    q->set_name(absl::StrCat("pipe c", chip_, " cluster ", p->cluster, " lane ", p->lane, " id ",
                             p->spec.id));
    q->set_transfers(p->pushes);
    q->set_max_occupancy(p->max_count);
  }
}

}  // namespace pto::sim
