#include "testing/calibration/measured_all_to_all_v.h"

#include <algorithm>

#include "runtime/device/device_api.h"

namespace pto::calibration {

void MeasuredAllToAllVKernel(int64_t* args) {
  const TensorDesc* input = TensorArg(args, 0);
  const TensorDesc* target = TensorArg(args, 1);
  const TensorDesc* signal = TensorArg(args, 2);
  const TensorDesc* send_counts = TensorArg(args, 3);
  const TensorDesc* recv_counts = TensorArg(args, 4);
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[5]);
  const uint64_t block = static_cast<uint64_t>(args[6]);
  const uint64_t tile = static_cast<uint64_t>(args[7]);
  const int64_t p = ReadGm(&ctx->rankNum);
  const int64_t me = ReadGm(&ctx->rankId);
  int8_t* in = input->data<int8_t>();
  int8_t* tgt = target->data<int8_t>();
  int32_t* sig = signal->data<int32_t>();
  int32_t* sc = send_counts->data<int32_t>();
  int32_t* rc = recv_counts->data<int32_t>();
  const int32_t max_recv = static_cast<int32_t>(block);  // counts are in bytes here
  Tile<int8_t> stage = TASSIGN<int8_t>(0, tile);
  for (int64_t d = 0; d < p; ++d) {
    // tensor.read of the count, clamped, published with a Set notify.
    const int32_t rows = std::clamp<int32_t>(ReadGm(sc + d), 0, max_recv);
    TNOTIFY(CommRemotePtr(ctx, rc + me, static_cast<uint32_t>(d)), rows, NotifyOp::Set);
    // The full block crosses, not just `rows`: the transfer shape is static.
    GlobalTensor<int8_t> dst{CommRemotePtr(ctx, tgt + me * block, static_cast<uint32_t>(d)),
                             block};
    GlobalTensor<int8_t> src{in + d * block, block};
    TPUT(dst, src, stage);
  }
  // The puts land before the barrier tells anyone.
  pipe_barrier(PIPE_ALL);
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) {
      TNOTIFY(CommRemotePtr(ctx, sig + me, static_cast<uint32_t>(q)), 1, NotifyOp::AtomicAdd);
    }
  }
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) TWAIT(sig + q, 1, WaitCmp::GE);
  }
  // Self-clearing epilogue: one credit per peer.
  for (int64_t q = 0; q < p; ++q) {
    if (q != me) TNOTIFY(sig + q, -1, NotifyOp::AtomicAdd);
  }
  pipe_barrier(PIPE_ALL);
}

}  // namespace pto::calibration
