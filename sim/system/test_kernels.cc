#include "sim/system/test_kernels.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/device/device_api.h"
#include "sim/system/isolated_run.h"

namespace pto::sim::testing {
namespace {

// args: t0 = send, t1 = recv, t2 = sig (all this rank's window slices);
// s0 = &CommContext, s1 = chunk bytes, s2 = staging tile bytes.
// Push protocol (runtime-and-sim.md §2.5): every (peer, slice) item is put
// into peer.recv[me], then counted into peer.sig[me]; blocks then wait until
// every source has delivered all its slices.
void AllToAllKernel(int64_t* args) {
  const TensorDesc* send = TensorArg(args, 0);
  const TensorDesc* recv = TensorArg(args, 1);
  const TensorDesc* sig = TensorArg(args, 2);
  const CommContext* ctx = reinterpret_cast<const CommContext*>(args[3]);
  const uint64_t chunk = static_cast<uint64_t>(args[4]);
  const uint64_t stage_bytes = static_cast<uint64_t>(args[5]);
  const int me = static_cast<int>(ctx->rankId);
  const int n = static_cast<int>(ctx->rankNum);
  const int b = get_block_idx(args);
  const int nb = get_block_num(args);
  const int slices = std::max(1, nb / n);
  const uint64_t slice = (chunk / slices + 31) / 32 * 32;
  // Two staging tiles (ping-pong): the load of one piece overlaps the store
  // of the previous one.
  Tile<uint8_t> stage[2] = {TASSIGN<uint8_t>(0, stage_bytes),
                            TASSIGN<uint8_t>(stage_bytes, stage_bytes)};
  int pp = 0;
  uint8_t* my_send = send->data<uint8_t>();
  uint8_t* my_recv = recv->data<uint8_t>();
  int32_t* my_sig = sig->data<int32_t>();
  auto peer_of = [&](int item) { return (me + 1 + item / slices) % n; };
  for (int item = b; item < n * slices; item += nb) {
    // Start with the next peer so links are loaded evenly.
    const int peer = peer_of(item);
    const uint64_t off = (item % slices) * slice;
    if (off >= chunk) continue;
    const uint64_t len = std::min(slice, chunk - off);
    for (uint64_t p = 0; p < len; p += stage_bytes) {
      const uint64_t m = std::min(stage_bytes, len - p);
      GlobalTensor<uint8_t> src{my_send + peer * chunk + off + p, m};
      GlobalTensor<uint8_t> dst{CommRemotePtr(ctx, my_recv + me * chunk + off + p, peer), m};
      Tile<uint8_t> t{stage[pp].data, m};
      TPUT(dst, src, t);
      pp ^= 1;
    }
  }
  // Every put has landed before any peer is told.
  pipe_barrier(PIPE_ALL);
  for (int item = b; item < n * slices; item += nb) {
    if ((item % slices) * slice >= chunk) continue;
    TNOTIFY(CommRemotePtr(ctx, my_sig + me, peer_of(item)), 1, NotifyOp::AtomicAdd);
  }
  int expected = 0;
  for (int s = 0; s < slices; ++s) expected += (s * slice < chunk) ? 1 : 0;
  for (int src = b; src < n; src += nb) {
    TWAIT(my_sig + src, expected, WaitCmp::GE);
  }
}

}  // namespace

rt::ChipCallable SingleTask(const std::string& name, KernelEntry kernel, int core_num,
                            bool sync_start) {
  rt::ChipCallable c;
  c.name = name;
  c.kernels = {kernel};
  c.kernel_names = {name};
  c.entry = [core_num, sync_start](rt::Orchestrator& orch, const rt::ChipArgs& a) {
    rt::TaskArgs args;
    for (const rt::Tensor& t : a.tensors) args.add_inout(t);
    for (uint64_t s : a.scalars) args.add_scalar(s);
    args.launch_spec.set_core_num(core_num);
    args.launch_spec.set_require_sync_start(sync_start);
    orch.submit_aiv_task(0, args);
  };
  return c;
}

absl::StatusOr<AllToAllSetup> SetUpAllToAll(SimSystem& sys, uint64_t chunk_bytes, int blocks,
                                            uint64_t stage_bytes, bool stage_payload) {
  const int n = sys.device_count();
  rt::DomainSpec spec;
  spec.name = "a2a";
  for (int i = 0; i < n; ++i) spec.devices.push_back(i);
  // One signal word per source rank.
  const uint64_t sig_bytes = std::max(64, n) * sizeof(int32_t);
  spec.buffers = {{"send", n * chunk_bytes}, {"recv", n * chunk_bytes}, {"sig", sig_bytes}};
  spec.window_size = 2 * n * chunk_bytes + sig_bytes + 4096;
  absl::StatusOr<rt::Domain> dom = sys.CreateDomain(spec);
  if (!dom.ok()) return dom.status();
  AllToAllSetup s{*dom, chunk_bytes};
  std::vector<uint32_t> words(stage_payload ? n * chunk_bytes / 4 : 0);
  std::vector<rt::ChipArgs> args;
  for (int r = 0; r < n; ++r) {
    const rt::ChipDomainContext& c = s.domain.ranks[r];
    if (stage_payload) {
      for (int d = 0; d < n; ++d) {
        for (uint64_t j = 0; j < chunk_bytes / 4; ++j) {
          words[d * chunk_bytes / 4 + j] = A2aWord(r, d, j);
        }
      }
      absl::Status st = sys.CopyTo(c.buffers.at("send"), words.data(), words.size() * 4);
      if (!st.ok()) return st;
    }
    rt::ChipArgs a;
    a.tensors = {c.buffers.at("send"), c.buffers.at("recv"), c.buffers.at("sig")};
    a.scalars = {c.device_ctx.addr(), chunk_bytes, stage_bytes};
    args.push_back(a);
  }
  std::vector<int> devices;
  for (int i = 0; i < n; ++i) devices.push_back(i);
  absl::Status st =
      sys.DispatchGroup(devices, SingleTask("all_to_all", &AllToAllKernel, blocks, true), args);
  if (!st.ok()) return st;
  return s;
}

uint64_t AllToAllErrors(SimSystem& sys, const AllToAllSetup& s) {
  const int n = static_cast<int>(s.domain.ranks.size());
  uint64_t errors = 0;
  std::vector<uint32_t> words(n * s.chunk_bytes / 4);
  for (int r = 0; r < n; ++r) {
    if (!sys.CopyFrom(words.data(), s.domain.ranks[r].buffers.at("recv"), words.size() * 4).ok()) {
      return ~uint64_t{0};
    }
    for (int src = 0; src < n; ++src) {
      for (uint64_t j = 0; j < s.chunk_bytes / 4; ++j) {
        if (words[src * s.chunk_bytes / 4 + j] != A2aWord(src, r, j)) {
          ++errors;
        }
      }
    }
  }
  return errors;
}

RunReport Simulate(SimOptions o, const std::function<absl::Status(SimSystem&)>& setup,
                   const std::function<void(SimSystem&, RunReport&)>& collect) {
  return RunIsolated([&] {
    RunReport r;
    auto sys = SimSystem::Create(o);
    if (!sys.ok()) {
      r.set_error_code(-2);
      r.set_error_text(std::string(sys.status().message()));
      return r;
    }
    absl::Status s = setup(**sys);
    if (!s.ok()) {
      r.set_error_code(-3);
      r.set_error_text(std::string(s.message()));
      return r;
    }
    r = (*sys)->Run();
    if (collect) collect(**sys, r);
    return r;
  });
}

SimOptions Opts(int chips, const std::string& platform) {
  SimOptions o;
  o.chips = chips;
  o.platform = platform;
  o.race_detection = true;  // on in tests (docs/simulator.md)
  return o;
}

void CaptureOutput(SimSystem& sys, const rt::Tensor& t, const std::string& key, RunReport& r) {
  std::string bytes(t.bytes, '\0');
  if (sys.CopyFrom(bytes.data(), t, t.bytes).ok()) (*r.mutable_outputs())[key] = std::move(bytes);
}

const TaskStat& OnlyTask(const RunReport& r, int chip) {
  for (const TaskStat& t : r.tasks()) {
    if (t.chip() == chip) return t;
  }
  static TaskStat none;
  ADD_FAILURE() << "no task on chip " << chip;
  return none;
}

void NopKernel(int64_t*) {}

}  // namespace pto::sim::testing
