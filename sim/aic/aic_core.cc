#include "sim/aic/aic_core.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "runtime/core/kernel_launch.h"
#include "sim/common/sc_time.h"
#include "sim/gm/gm.h"
#include "sim/link/link.h"

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
    : AicCore(name, 0, core_id, platform, nullptr, nullptr) {}

AicCore::AicCore(sc_core::sc_module_name name, int chip, int core_id,
                 const platforms::Platform& platform, MemorySystem* mem, CoreObserver* observer)
    : sc_core::sc_module(name),
      p_(platform),
      chip_(chip),
      core_id_(core_id),
      mem_(mem),
      observer_(observer),
      cost_(platform.cube()) {
  const platforms::CubeSpec& c = platform.cube();
  const uint64_t caps[kNumTileKinds] = {c.l1_bytes(), c.l0a_bytes(), c.l0b_bytes(), c.l0c_bytes(),
                                        c.bias_bytes()};
  // One lazily backed mapping carved into the five buffers: a core that
  // runs no cube kernel holds no memory, and costs one mapping as a UB does.
  uint64_t total = 0;
  for (uint64_t c : caps) total += c;
  mem_buf_ = LazyBuffer(total);
  if (mem_buf_.data() == nullptr) throw std::bad_alloc();
  uint64_t off = 0;
  for (int i = 0; i < kNumTileKinds; ++i) {
    buf_base_[i] = mem_buf_.data() + off;
    buf_bytes_[i] = caps[i];
    off += caps[i];
  }
  global_ctx_.sub_block_id = 0;
  global_ctx_.core_id = core_id;
  for (int& t : track_pipe_) t = -1;
  if (mem_ != nullptr) {
    // msprof's names for the cube core and its pipes. Five tracks, as the
    // AIV-shaped AIC had, so the other tracks keep their ids.
    const std::string proc = absl::StrCat("chip ", chip);
    const std::string who = absl::StrCat("AIC core ", core_id);
    Trace& tr = mem_->trace();
    track_core_ = tr.AddTrack(chip, proc, who);
    track_pipe_[PIPE_MTE2] = tr.AddTrack(chip, proc, absl::StrCat(who, " MTE2"));
    track_pipe_[PIPE_MTE1] = tr.AddTrack(chip, proc, absl::StrCat(who, " MTE1"));
    track_pipe_[PIPE_M] = tr.AddTrack(chip, proc, absl::StrCat(who, " CUBE"));
    track_pipe_[PIPE_FIX] = tr.AddTrack(chip, proc, absl::StrCat(who, " FIXPIPE"));
  }
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
    timed_out_ = true;
    Error(rt::kErrorSchedulerTimeout,
          mem_ == nullptr ? absl::StrCat("block ran past the op timeout of ",
                                         p_.timeouts().op_timeout_ns(), " ns of simulated time")
                          : absl::StrCat("block ran past ", DescribeDeadline(p_, deadline_info_)));
  }
}

void AicCore::Issue() { AdvanceTo(Now() + Cycles(p_.scalar_op_cycles())); }

Ps AicCore::AllDone() const {
  Ps t = 0;
  for (Ps f : pipe_done_) t = std::max(t, f);
  return t;
}

void AicCore::Error(int code, const std::string& msg) {
  if (error_code_ == 0) {
    error_code_ = code;
    error_ = absl::StrCat("AIC", core_id_, ": ", msg);
  }
  if (observer_ != nullptr) {
    observer_->KernelError(this, code,
                           absl::StrCat("chip ", chip_, " AIC", core_id_, " kernel ",
                                        block_.kernel_name, " block ", block_.block_idx, "/",
                                        block_.block_num, ": ", msg));
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

void AicCore::Start(BlockAssignment block, Ps start_at) {
  block_ = std::move(block);
  local_ctx_ = LocalContext{block_.block_idx, block_.block_num};
  // The slots as hw/ builds them (runtime/core/kernel_launch.h); TaskArgs
  // already bounds the counts.
  std::vector<uint64_t> descs;
  for (const TensorDesc* t : block_.tensors) descs.push_back(reinterpret_cast<uint64_t>(t));
  absl::StatusOr<rt::KernelArgSlots> slots =
      rt::MarshalKernelArgs(descs, block_.scalars, reinterpret_cast<uint64_t>(&local_ctx_),
                            reinterpret_cast<uint64_t>(&global_ctx_));
  std::fill(std::begin(args_), std::end(args_), 0);
  if (slots.ok()) std::copy(slots->begin(), slots->end(), std::begin(args_));
  warm_ = true;
  Start([this] { block_.kernel(args_); }, start_at);
}

void AicCore::Run() {
  while (true) {
    // busy_ already set: started before the simulation did.
    while (!busy_) wait(start_event_);
    if (start_at_ > Stamp()) wait(PsTime(start_at_ - Stamp()));
    SetCurrentCore(this);
    qk_.reset();
    block_start_ = Now();
    if (mem_ == nullptr) {
      deadline_ = block_start_ + NsToPs(p_.timeouts().op_timeout_ns());
    } else {
      uint64_t arg_bytes = 0;
      for (const TensorDesc* t : block_.tensors) arg_bytes += t != nullptr ? t->bytes : 0;
      deadline_info_ = BlockDeadline(p_, arg_bytes, world_chips_);
      deadline_ = block_start_ + NsToPs(deadline_info_.ns);
    }
    if (races_ != nullptr) races_->BlockStart(race_agent_, block_.start_clock);
    timed_out_ = false;
    error_code_ = 0;
    error_.clear();
    records_.clear();
    pending_.clear();
    flags_.clear();
    for (int i = 0; i < kNumPipes; ++i) {
      pipe_free_[i] = pipe_done_[i] = pipe_gate_[i] = pipe_busy_[i] = 0;
    }
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
    ++blocks_;
    busy_ps_ += block_end_ - block_start_;
    for (int i = 0; i < kNumPipes; ++i) total_busy_[i] += pipe_busy_[i];
    if (track_core_ >= 0) {
      mem_->trace().Slice(
          track_core_, absl::StrCat(block_.kernel_name, " t", block_.task, " b", block_.block_idx),
          block_start_, block_end_, BlockArgs({{"blocks", block_.block_num}}));
    }
    busy_ = false;
    waiting_pipe_.clear();
    done_event_.notify(sc_core::SC_ZERO_TIME);
    if (observer_ != nullptr) observer_->BlockDone(this);
  }
}

TraceArgs AicCore::BlockArgs(TraceArgs more) const {
  TraceArgs a = {{"task", block_.task}, {"kernel", block_.kernel_name},
                 {"block", block_.block_idx}};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::string AicCore::DescribeState() const {
  if (!busy_) return "";
  return absl::StrCat("chip ", chip_, " AIC", core_id_, " kernel ", block_.kernel_name, " task ",
                      block_.task, " block ", block_.block_idx, "/", block_.block_num, ": ",
                      waiting_pipe_.empty() ? "running" : waiting_pipe_);
}

void AicCore::FillStats(CoreStat* s) const {
  s->set_chip(chip_);
  s->set_core(core_id_);
  s->set_kind("AIC");
  s->set_blocks(blocks_);
  s->set_busy_ps(busy_ps_);
  s->set_mte2_bytes(mte2_bytes_);
  s->set_mte2_busy_ps(total_busy_[PIPE_MTE2]);
  s->set_mte1_busy_ps(total_busy_[PIPE_MTE1]);
  s->set_cube_busy_ps(total_busy_[PIPE_M]);
  s->set_fix_busy_ps(total_busy_[PIPE_FIX]);
  s->set_fix_bytes(fix_bytes_);
}

std::string AicCore::Describe(const void* p) const {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  for (int i = 0; i < kNumTileKinds; ++i) {
    const uint8_t* base = buf_base_[i];
    if (b >= base && b < base + buf_bytes_[i]) {
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
  const uint8_t* base = buf_base_[static_cast<int>(r.kind)];
  const uint64_t size = buf_bytes_[static_cast<int>(r.kind)];
  if (b < base || b + r.bytes > base + size || b + r.bytes < b) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat(CubeOpcodeName(op), ": ", r.bytes, " bytes outside ", TileKindName(r.kind),
                       " (", size, " bytes; place tiles with TASSIGN)"));
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
  // The pipe is held for the instruction's cost; its GM bytes land later.
  Ps done = end;
  if (mem_ != nullptr) {
    for (int i = 0; i < in.num_reads; ++i) {
      if (in.reads[i].gm) done = std::max(done, GmTransfer(in.reads[i], false, start, end));
    }
    if (in.write.gm) done = std::max(done, GmTransfer(in.write, true, start, end));
  }
  if (in.op == CubeOpcode::kLoadL1) mte2_bytes_ += in.reads[0].bytes;
  if (in.op == CubeOpcode::kStoreAcc) fix_bytes_ += in.write.bytes;
  // Accesses that ended before now can conflict with nothing issued later.
  const Ps now = Now();
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [now](const Pending& q) { return q.done <= now; }),
                 pending_.end());
  auto add = [&](const CubeRange& r, bool write) {
    const uint8_t* b = static_cast<const uint8_t*>(r.p);
    pending_.push_back(Pending{b, b + r.bytes, pipe, write, done, in.op});
  };
  for (int i = 0; i < in.num_reads; ++i) add(in.reads[i], false);
  add(in.write, true);
  pipe_free_[pipe] = end;
  pipe_done_[pipe] = std::max(pipe_done_[pipe], done);
  pipe_busy_[pipe] += end - start;
  records_.push_back(Record{in, pipe, start, end});
  if (track_pipe_[pipe] >= 0 && mem_->trace().enabled()) TraceInstr(in, pipe, start, end);
}

Ps AicCore::GmTransfer(const CubeRange& r, bool write, Ps start, Ps pipe_end) {
  const uint64_t a = reinterpret_cast<uint64_t>(r.p);
  const int owner = mem_->OwnerChip(a, r.bytes);
  const char* what = write ? "TSTORE Acc" : "TLOAD Mat";
  if (owner < 0) {
    Error(rt::kErrorAicoreFault, absl::StrCat(what, ": ", r.bytes,
                                              " bytes at an address outside every GM allocation"));
  }
  const auto& route = write ? mem_->Route(chip_, owner) : mem_->Route(owner, chip_);
  if (!route.empty()) Sync();  // link bandwidth is shared in time order
  Gm& gm = mem_->GmOf(owner);
  const uint64_t b = (r.bytes + p_.mte_burst_bytes() - 1) / p_.mte_burst_bytes() *
                     p_.mte_burst_bytes();
  Ps end = std::max(pipe_end, gm.port().Reserve(start, b).end);
  Ps lat = gm.latency();
  for (Link* l : route) {
    end = std::max(end, l->Transfer(start, b, BlockArgs({{"peer", owner}})).end);
    lat += l->hop_latency();
  }
  end += lat;
  if (races_ != nullptr) {
    races_->Access(race_agent_,
                   AccessSite{chip_, core_id_, true, block_.task, block_.kernel_name,
                              block_.block_idx},
                   a, r.bytes, write, start, end);
  }
  if (write) {
    // Timing-only mode: the cube's results derive from loaded payload, so
    // they are payload too; a control read of them faults (docs/simulator.md).
    gm.MarkPayload(a, r.bytes);
    gm.NotifyWrite();
  }
  return end;
}

void AicCore::TraceInstr(const CubeInstr& in, int pipe, Ps start, Ps end) {
  std::string shape = in.m > 0 ? absl::StrCat(in.m, "x", in.k, "x", in.n)
                               : absl::StrCat(in.rows, "x", in.cols);
  mem_->trace().Slice(track_pipe_[pipe], absl::StrCat(CubeOpcodeName(in.op), " ", shape), start,
                      end,
                      BlockArgs({{"src", CubeDTypeName(in.src_type)},
                                 {"dst", CubeDTypeName(in.dst_type)}}));
}

void AicCore::CubeSetFlag(int src, int dst, int id) {
  Issue();
  if (!IsAicPipe(src) || !IsAicPipe(dst) || id < 0 || id >= kFlagIds) {
    Error(rt::kErrorAicoreFault, absl::StrCat("set_flag(", PipeName(src), ", ", PipeName(dst), ", ",
                                              id, "): not a pipe pair and event of the AIC"));
  }
  // The flag is raised when `src` finished everything issued to it so far.
  flags_[{src, dst, id}].push_back(src == PIPE_S ? Now() : std::max(Now(), pipe_done_[src]));
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
    AdvanceTo(pipe_done_[pipe]);
  } else {
    Error(rt::kErrorAicoreFault,
          absl::StrCat("pipe_barrier(", PipeName(pipe), "): not an AIC pipe"));
  }
}

PipeEnd AicCore::PipeEndOf() {
  return PipeEnd{this, this, pipes_, races_, &waiting_pipe_,
                 [this] {
                   if (mem_ != nullptr) mem_->CountWait();
                 }};
}

void* AicCore::PipeAcquire(const PipeSpec& spec, bool push) {
  Issue();
  const PipeEnd end = PipeEndOf();
  CrossCorePipe& p = ClusterPipe(end, spec.lane, spec);
  Sync();
  return AcquireSlot(end, p, push, [this](Ps t) { AdvanceTo(std::max(Now(), t)); });
}

void AicCore::PipeRelease(const PipeSpec& spec, bool push) {
  const PipeEnd end = PipeEndOf();
  CrossCorePipe& p = ClusterPipe(end, spec.lane, spec);
  Sync();
  // The flag follows the move that filled (FIX) or drained (MTE2) the slot.
  ReleaseSlot(end, p, push, pipe_done_[push ? static_cast<int>(PIPE_FIX) : PIPE_MTE2],
              NsToPs(p_.cube().cross_core_flag_ns()), mem_->trace());
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

// Signals and scalar GM access. Alone: host memory the harness owns, at the
// scalar unit's cost; a TWAIT polls in simulated time. In a chip, scalar GM
// accesses go uncached to the owning GM (its latency and hops: an
// assumption, the AIC's data cache is not modelled) and signals fault: a
// cube kernel synchronises with its cluster through TPUSH / TPOP.
void AicCore::Notify(int32_t* signal, int32_t value, NotifyOp op) {
  if (mem_ != nullptr) Fault("TNOTIFY on the AIC is not modelled (use TPUSH/TPOP to its AIVs)");
  Issue();
  Sync();  // other processes see the write at this core's time
  if (op == NotifyOp::AtomicAdd) {
    *signal += value;
  } else {
    *signal = value;
  }
}

void AicCore::Wait(const int32_t* signal, int32_t value, WaitCmp cmp) {
  if (mem_ != nullptr) Fault("TWAIT on the AIC is not modelled (use TPUSH/TPOP to its AIVs)");
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

int AicCore::ScalarGm(const void* gm, int bytes, const char* what, bool read) {
  Issue();
  if (mem_ == nullptr) return 0;
  const int owner = mem_->OwnerChip(reinterpret_cast<uint64_t>(gm), bytes);
  if (owner < 0) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat(what, ": ", bytes, " bytes at an address outside every GM allocation"));
  }
  Gm& g = mem_->GmOf(owner);
  if (read && g.HoldsPayload(reinterpret_cast<uint64_t>(gm), bytes)) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat("timing-only mode: ", what, " of ", bytes, " bytes at ",
                       g.Describe(reinterpret_cast<uint64_t>(gm)),
                       " reads bytes only a DMA wrote; run in full mode"));
  }
  Ps lat = g.latency();
  for (Link* l : mem_->Route(chip_, owner)) lat += l->hop_latency();
  AdvanceTo(Now() + lat);
  return owner;
}

void AicCore::Dsb() {
  Issue();
  AdvanceTo(AllDone());
}
void AicCore::Dcci(const void*, DcciMode) { Issue(); }
void AicCore::ScalarRead(const void* gm, void* out, int bytes) {
  ScalarGm(gm, bytes, "scalar GM read", /*read=*/true);
  std::memcpy(out, gm, bytes);
}
void AicCore::ScalarWrite(void* gm, const void* in, int bytes) {
  const int owner = ScalarGm(gm, bytes, "scalar GM write", /*read=*/false);
  std::memcpy(gm, in, bytes);
  if (mem_ != nullptr) {
    Gm& g = mem_->GmOf(owner);
    g.MarkReal(reinterpret_cast<uint64_t>(gm), bytes);
    g.NotifyWrite();
  }
}

}  // namespace pto::sim
