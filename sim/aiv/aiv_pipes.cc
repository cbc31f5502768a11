// The AIV end of a cluster's cross-core pipes (runtime/device/pipe_api.h):
// the data moves are the core's own TLOAD / TSTORE; this file waits for the
// slot and publishes or frees it.
#include "absl/strings/str_cat.h"
#include "sim/aiv/aiv_core.h"
#include "sim/common/sc_time.h"

namespace pto::sim {

CrossCorePipe* AivCore::GetPipe(const PipeSpec& spec) {
  if (pipes_ == nullptr || block_.cluster < 0) {
    Fault("TPUSH/TPOP outside a MIX task: only a MIX task's cores share a cluster's pipes");
  }
  std::string error;
  CrossCorePipe* p = pipes_->Pipe(block_.cluster, global_ctx_.sub_block_id, spec, &error);
  if (p == nullptr) Fault(error.c_str());
  return p;
}

void* AivCore::PipeAcquire(const PipeSpec& spec, bool push) {
  CrossCorePipe* p = GetPipe(spec);
  Advance(Cycles(p_.scalar_op_cycles()));
  Sync();
  Ps not_before = 0;
  const uint32_t i = WaitForSlot(
      *p, push,
      [&](bool blocked) {
        waiting_pipe_ = blocked ? PipeWaitText(*p, push) : "";
        if (blocked) mem_->CountWait();
        SetCurrentCore(this);
      },
      &not_before);
  AdvanceTo(std::max(Now(), not_before));
  if (races_ != nullptr) races_->Observe(race_agent_, reinterpret_cast<uint64_t>(p->Slot(i)));
  return p->Slot(i);
}

void AivCore::PipeRelease(const PipeSpec& spec, bool push) {
  CrossCorePipe* p = GetPipe(spec);
  Sync();
  const void* slot = p->Slot(push ? p->head : p->tail);
  // The flag follows the store that filled the slot (MTE3) or the load that
  // drained it (MTE2).
  FinishSlot(*p, push, push ? mte3_done_ : mte2_done_, NsToPs(p_.cube().cross_core_flag_ns()),
             mem_->trace());
  if (races_ != nullptr) races_->Notify(race_agent_, reinterpret_cast<uint64_t>(slot));
}

}  // namespace pto::sim
