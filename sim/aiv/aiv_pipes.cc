// The AIV end of a cluster's cross-core pipes (runtime/device/pipe_api.h):
// the data moves are the core's own TLOAD / TSTORE; this file waits for the
// slot and publishes or frees it.
#include "sim/aiv/aiv_core.h"
#include "sim/common/pipe_end.h"
#include "sim/common/sc_time.h"

namespace pto::sim {

PipeEnd AivCore::PipeEndOf() {
  return PipeEnd{this, this, pipes_, races_, &waiting_pipe_, [this] { mem_->CountWait(); }};
}

void* AivCore::PipeAcquire(const PipeSpec& spec, bool push) {
  const PipeEnd end = PipeEndOf();
  CrossCorePipe& p = ClusterPipe(end, global_ctx_.sub_block_id, spec);
  Advance(Cycles(p_.scalar_op_cycles()));
  Sync();
  return AcquireSlot(end, p, push, [this](Ps t) { AdvanceTo(std::max(Now(), t)); });
}

void AivCore::PipeRelease(const PipeSpec& spec, bool push) {
  const PipeEnd end = PipeEndOf();
  CrossCorePipe& p = ClusterPipe(end, global_ctx_.sub_block_id, spec);
  Sync();
  // The flag follows the store that filled the slot (MTE3) or the load that
  // drained it (MTE2).
  ReleaseSlot(end, p, push, push ? mte3_done_ : mte2_done_,
              NsToPs(p_.cube().cross_core_flag_ns()), mem_->trace());
}

}  // namespace pto::sim
