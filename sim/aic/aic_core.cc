#include "sim/aic/aic_core.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "sim/common/sc_time.h"

namespace pto::sim {
namespace {

constexpr int kFlagIds = 8;  // event ids 0..7 per pipe pair, as the AIV core

// The AIC's pipes: the scalar unit and the four of the cube path.
bool IsAicPipe(int pipe) {
  return pipe == PIPE_S || pipe == PIPE_MTE2 || pipe == PIPE_MTE1 || pipe == PIPE_M ||
         pipe == PIPE_FIX;
}

}  // namespace

AicCore::AicCore(sc_core::sc_module_name name, int core_id, const platforms::Platform& platform)
    : sc_core::sc_module(name), p_(platform), core_id_(core_id), cost_(platform.cube()) {
  const platforms::CubeSpec& c = platform.cube();
  const uint64_t caps[kNumTileKinds] = {c.l1_bytes(), c.l0a_bytes(), c.l0b_bytes(), c.l0c_bytes(),
                                        c.bias_bytes()};
  for (int i = 0; i < kNumTileKinds; ++i) bufs_[i].assign(caps[i], 0);
  SC_THREAD(Run);
  set_stack_size(256 * 1024);  // kernels run on this coroutine's stack
}

Ps AicCore::Cycles(double c) const {
  return static_cast<Ps>(std::llround(c * 1000.0 / p_.clock_ghz()));
}
double AicCore::ToCycles(Ps ps) const { return static_cast<double>(ps) * p_.clock_ghz() / 1000.0; }

Ps AicCore::Now() const { return Stamp() + static_cast<Ps>(qk_.get_local_time().value()); }

void AicCore::Sync() {
  if (qk_.get_local_time() == sc_core::SC_ZERO_TIME) return;
  qk_.sync();
  SetCurrentCore(this);
}

void AicCore::AdvanceTo(Ps t) {
  if (t > Now()) {
    qk_.set(PsTime(t - Stamp()));
    if (qk_.need_sync()) Sync();
  }
  if (busy_ && Now() > deadline_) {
    Error(rt::kErrorSchedulerTimeout,
          absl::StrCat("block ran past the op timeout of ", p_.timeouts().op_timeout_ns(),
                       " ns of simulated time"));
  }
}

void AicCore::Issue() { AdvanceTo(Now() + Cycles(p_.scalar_op_cycles())); }

Ps AicCore::AllDone() const {
  Ps t = 0;
  for (Ps f : pipe_free_) t = std::max(t, f);
  return t;
}

void AicCore::Error(int code, const std::string& msg) {
  if (error_code_ == 0) {
    error_code_ = code;
    error_ = absl::StrCat("AIC", core_id_, ": ", msg);
  }
  throw Abort{};
}

void AicCore::Fault(const char* what) { Error(rt::kErrorAicoreFault, what); }

void AicCore::Start(std::function<void()> kernel, Ps start_at) {
  kernel_ = std::move(kernel);
  busy_ = true;
  start_at_ = start_at;
  start_event_.notify(sc_core::SC_ZERO_TIME);
}

void AicCore::Run() {
  while (true) {
    // busy_ already set: started before the simulation did.
    while (!busy_) wait(start_event_);
    if (start_at_ > Stamp()) wait(PsTime(start_at_ - Stamp()));
    SetCurrentCore(this);
    qk_.reset();
    block_start_ = Now();
    deadline_ = block_start_ + NsToPs(p_.timeouts().op_timeout_ns());
    error_code_ = 0;
    error_.clear();
    records_.clear();
    pending_.clear();
    flags_.clear();
    for (int i = 0; i < kNumPipes; ++i) pipe_free_[i] = pipe_gate_[i] = pipe_busy_[i] = 0;
    try {
      kernel_();
      AdvanceTo(std::max(Now(), AllDone()));  // the block ends when its pipes drained
    } catch (const Abort&) {
    } catch (...) {
      try {
        Error(rt::kErrorAicoreFault, "the kernel threw a C++ exception");
      } catch (const Abort&) {
      }
    }
    Sync();
    block_end_ = Now();
    busy_ = false;
    done_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

std::string AicCore::Describe(const void* p) const {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  for (int i = 0; i < kNumTileKinds; ++i) {
    const uint8_t* base = bufs_[i].data();
    if (b >= base && b < base + bufs_[i].size()) {
      return absl::StrCat(TileKindName(static_cast<TileKind>(i)), "+", b - base);
    }
  }
  return "GM";
}

void AicCore::CheckHazard(const CubeRange& r, bool write, int pipe, Ps start, CubeOpcode op) {
  const uint8_t* b = static_cast<const uint8_t*>(r.p);
  const uint8_t* e = b + r.bytes;
  for (const Pending& q : pending_) {
    if (q.pipe == pipe || q.done <= start || q.end <= b || e <= q.begin) continue;
    if (!write && !q.write) continue;  // two reads never conflict
    Error(
        rt::kErrorAicoreFault,
        absl::StrCat("missing flag: ", CubeOpcodeName(op), " on ", PipeName(pipe),
                     write ? " writes " : " reads ", r.bytes, " bytes at ", Describe(r.p),
                     " at cycle ", ToCycles(start - block_start_), ", but ", CubeOpcodeName(q.op),
                     " on ", PipeName(q.pipe), q.write ? " writes" : " reads", " them until cycle ",
                     ToCycles(q.done - block_start_), "; order the pipes with set_flag/wait_flag"));
  }
}

void AicCore::CheckRange(const CubeRange& r, CubeOpcode op) {
  const uint8_t* b = static_cast<const uint8_t*>(r.p);
  if (r.gm) {
    if (b == nullptr && r.bytes > 0) {
      Error(rt::kErrorAicoreFault, absl::StrCat(CubeOpcodeName(op), ": null GM address"));
    }
    return;
  }
  const std::vector<uint8_t>& buf = bufs_[static_cast<int>(r.kind)];
  if (b < buf.data() || b + r.bytes > buf.data() + buf.size() || b + r.bytes < b) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat(CubeOpcodeName(op), ": ", r.bytes, " bytes outside ", TileKindName(r.kind),
                       " (", buf.size(), " bytes; place tiles with TASSIGN)"));
  }
}

void AicCore::Cube(const CubeInstr& in) {
  Issue();
  for (int i = 0; i < in.num_reads; ++i) CheckRange(in.reads[i], in.op);
  CheckRange(in.write, in.op);
  const int pipe = CubeOpcodePipe(in.op);
  const Ps start = std::max({Now(), pipe_free_[pipe], pipe_gate_[pipe]});
  const Ps end = start + Cycles(static_cast<double>(cost_.Cycles(in)));
  for (int i = 0; i < in.num_reads; ++i) CheckHazard(in.reads[i], false, pipe, start, in.op);
  CheckHazard(in.write, true, pipe, start, in.op);
  // Accesses that ended before now can conflict with nothing issued later.
  const Ps now = Now();
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [now](const Pending& q) { return q.done <= now; }),
                 pending_.end());
  auto add = [&](const CubeRange& r, bool write) {
    const uint8_t* b = static_cast<const uint8_t*>(r.p);
    pending_.push_back(Pending{b, b + r.bytes, pipe, write, end, in.op});
  };
  for (int i = 0; i < in.num_reads; ++i) add(in.reads[i], false);
  add(in.write, true);
  pipe_free_[pipe] = end;
  pipe_busy_[pipe] += end - start;
  records_.push_back(Record{in, pipe, start, end});
}

void AicCore::CubeSetFlag(int src, int dst, int id) {
  Issue();
  if (!IsAicPipe(src) || !IsAicPipe(dst) || id < 0 || id >= kFlagIds) {
    Error(rt::kErrorAicoreFault, absl::StrCat("set_flag(", PipeName(src), ", ", PipeName(dst), ", ",
                                              id, "): not a pipe pair and event of the AIC"));
  }
  // The flag is raised when `src` finished everything issued to it so far.
  flags_[{src, dst, id}].push_back(src == PIPE_S ? Now() : std::max(Now(), pipe_free_[src]));
}

void AicCore::CubeWaitFlag(int src, int dst, int id) {
  Issue();
  if (!IsAicPipe(src) || !IsAicPipe(dst) || id < 0 || id >= kFlagIds) {
    Error(rt::kErrorAicoreFault, absl::StrCat("wait_flag(", PipeName(src), ", ", PipeName(dst),
                                              ", ", id, "): not a pipe pair and event of the AIC"));
  }
  std::deque<Ps>& q = flags_[{src, dst, id}];
  if (q.empty()) {
    Error(rt::kErrorSchedulerTimeout,
          absl::StrCat("wait_flag(", PipeName(src), ", ", PipeName(dst), ", ", id,
                       ") has no matching set_flag: pipe ", PipeName(dst), " would wait forever"));
  }
  const Ps t = q.front();
  q.pop_front();
  if (dst == PIPE_S) {
    AdvanceTo(t);
  } else {
    pipe_gate_[dst] = std::max(pipe_gate_[dst], t);
  }
}

void AicCore::CubePipeBarrier(int pipe) {
  Issue();
  if (pipe == PIPE_ALL) {
    AdvanceTo(AllDone());
  } else if (IsAicPipe(pipe)) {
    AdvanceTo(pipe_free_[pipe]);
  } else {
    Error(rt::kErrorAicoreFault,
          absl::StrCat("pipe_barrier(", PipeName(pipe), "): not an AIC pipe"));
  }
}

void AicCore::CheckUb(const void*, uint64_t, const char* what) {
  Error(rt::kErrorAicoreFault, absl::StrCat(what, ": the AIC has no UB (use Mat tiles)"));
}
void AicCore::Load(void*, const void*, uint64_t) {
  Error(rt::kErrorAicoreFault, "TLOAD to UB on the AIC, which has no UB (load a Mat tile)");
}
void AicCore::Store(void*, const void*, uint64_t) {
  Error(rt::kErrorAicoreFault, "TSTORE from UB on the AIC, which has no UB (store an Acc tile)");
}
void AicCore::Copy(void*, const void*, uint64_t, void*, uint64_t) {
  Error(rt::kErrorAicoreFault, "TPUT/TGET stage through UB, which the AIC has not");
}
void AicCore::Vector(VecOp, const void*, const void*, const void*, uint64_t) {
  Error(rt::kErrorAicoreFault, "a vector instruction on the AIC, which has no vector unit");
}
uint64_t AicCore::UrmaPost(bool, void*, void*, uint64_t) {
  Error(rt::kErrorAicoreFault, "URMA from the AIC is not modelled yet");
}
void AicCore::DeferCompletion(uint64_t) {
  Error(rt::kErrorAicoreFault, "deferred completion from the AIC is not modelled yet");
}

// Signals and scalar GM access: host memory the harness owns (no GM port
// model yet), at the scalar unit's cost; a TWAIT polls in simulated time.
void AicCore::Notify(int32_t* signal, int32_t value, NotifyOp op) {
  Issue();
  Sync();  // other processes see the write at this core's time
  if (op == NotifyOp::AtomicAdd) {
    *signal += value;
  } else {
    *signal = value;
  }
}

void AicCore::Wait(const int32_t* signal, int32_t value, WaitCmp cmp) {
  Issue();
  Sync();
  while (!CompareSignal(*signal, value, cmp)) {
    if (Now() > deadline_) {
      Error(rt::kErrorSchedulerTimeout,
            absl::StrCat("TWAIT on a signal past the op timeout (value ", *signal, ", wants ",
                         value, ")"));
    }
    wait(PsTime(Cycles(64)));
    SetCurrentCore(this);
  }
}

void AicCore::Dsb() {
  Issue();
  AdvanceTo(AllDone());
}
void AicCore::Dcci(const void*, DcciMode) { Issue(); }
void AicCore::ScalarRead(const void* gm, void* out, int bytes) {
  Issue();
  std::memcpy(out, gm, bytes);
}
void AicCore::ScalarWrite(void* gm, const void* in, int bytes) {
  Issue();
  std::memcpy(gm, in, bytes);
}

}  // namespace pto::sim
