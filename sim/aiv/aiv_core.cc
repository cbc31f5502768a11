#include "sim/aiv/aiv_core.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "runtime/core/kernel_launch.h"
#include "sim/common/sc_time.h"
#include "sim/aiv/vector_cost.h"

namespace pto::sim {

const char* WaitCmpName(WaitCmp c) {
  switch (c) {
    case WaitCmp::EQ: return "==";
    case WaitCmp::NE: return "!=";
    case WaitCmp::GT: return ">";
    case WaitCmp::GE: return ">=";
    case WaitCmp::LT: return "<";
    case WaitCmp::LE: return "<=";
  }
  return "?";
}

AivCore::AivCore(sc_core::sc_module_name name, int chip, int core_id,
                 bool is_aic, int lane, const platforms::Platform& platform,
                 MemorySystem* mem, CoreObserver* observer)
    : sc_core::sc_module(name),
      p_(platform),
      chip_(chip),
      core_id_(core_id),
      is_aic_(is_aic),
      mem_(mem),
      observer_(observer),
      ub_bytes_(platform.ub_bytes()),
      ub_(platform.ub_bytes()),
      dcache_(platform.dcache_line_bytes(), platform.dcache_bytes()),
      mte2_("mte2", platform.mte_bytes_per_cycle() * platform.clock_ghz()),
      mte3_("mte3", platform.mte_bytes_per_cycle() * platform.clock_ghz()) {
  if (ub_.data() == nullptr) throw std::bad_alloc();
  global_ctx_.sub_block_id = lane;
  global_ctx_.core_id = core_id;
  const std::string proc = absl::StrCat("chip ", chip);
  // msprof's names: the core, then its pipes; TWAIT/TNOTIFY run on the
  // scalar unit. Tracks of a core that runs nothing are left out of the JSON.
  const std::string who =
      absl::StrCat(is_aic ? "AIC" : "AIV", " core ", core_id);
  Trace& tr = mem_->trace();
  track_core_ = tr.AddTrack(chip, proc, who);
  track_mte2_ = tr.AddTrack(chip, proc, absl::StrCat(who, " MTE2"));
  track_mte3_ = tr.AddTrack(chip, proc, absl::StrCat(who, " MTE3"));
  track_vec_ = tr.AddTrack(chip, proc, absl::StrCat(who, " VECTOR"));
  track_wait_ = tr.AddTrack(chip, proc, absl::StrCat(who, " SCALAR"));
  dcache_.set_writeback_hook([this](const DataCache::WriteBack& wb) { OnWriteBack(wb); });
  SC_THREAD(Run);
  // Kernels run on this coroutine's stack.
  set_stack_size(256 * 1024);
}

Ps AivCore::Cycles(double c) const {
  return static_cast<Ps>(std::llround(c * 1000.0 / p_.clock_ghz()));
}

Ps AivCore::Now() const {
  return Stamp() + static_cast<Ps>(qk_.get_local_time().value());
}

void AivCore::Sync() {
  if (qk_.get_local_time() == sc_core::SC_ZERO_TIME) return;
  mem_->CountWait();
  qk_.sync();
  SetCurrentCore(this);
}

void AivCore::WaitUntil(Ps t) {
  Sync();
  const Ps now = Stamp();
  if (t > now) {
    mem_->CountWait();
    wait(PsTime(t - now));
    SetCurrentCore(this);
  }
}

void AivCore::AdvanceTo(Ps t) {
  if (t > Now()) {
    qk_.set(PsTime(t - Stamp()));
    if (qk_.need_sync()) Sync();
  }
  if (busy_ && Now() > deadline_) {
    timed_out_ = true;
    Error(rt::kErrorSchedulerTimeout,
          absl::StrCat("block ran past ", DescribeDeadline(p_, deadline_info_)));
  }
}

void AivCore::Error(int code, const std::string& msg) {
  observer_->KernelError(
      this, code,
      absl::StrCat("chip ", chip_, " ", is_aic_ ? "AIC" : "AIV", core_id_,
                   " kernel ", block_.kernel_name, " block ", block_.block_idx,
                   "/", block_.block_num, ": ", msg));
  throw Abort{};
}

void AivCore::Fault(const char* what) { Error(rt::kErrorAicoreFault, what); }

void AivCore::CheckUb(const void* p, uint64_t bytes, const char* what) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  if (b < ub_.data() || b + bytes > ub_.data() + ub_bytes_ || b + bytes < b) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat(what, ": ub address out of bounds (", bytes,
                       " bytes, UB is ", ub_bytes_, ")"));
  }
}

int AivCore::OwnerOrFault(const void* p, uint64_t bytes, const char* what) {
  const int owner = mem_->OwnerChip(reinterpret_cast<uint64_t>(p), bytes);
  if (owner < 0) {
    Error(rt::kErrorAicoreFault,
          absl::StrCat(what, ": ", bytes,
                       " bytes at an address outside every GM allocation"));
  }
  return owner;
}

void AivCore::CheckReal(int owner, const void* p, uint64_t bytes, const char* what) {
  Gm& gm = mem_->GmOf(owner);
  if (!gm.HoldsPayload(reinterpret_cast<uint64_t>(p), bytes)) return;
  Error(rt::kErrorAicoreFault,
        absl::StrCat("timing-only mode: ", what, " of ", bytes, " bytes at ",
                     gm.Describe(reinterpret_cast<uint64_t>(p)),
                     " reads bytes only a DMA wrote, and DMAs move no payload in this mode; "
                     "run in full mode"));
}

void AivCore::Start(BlockAssignment block, Ps start_at) {
  block_ = std::move(block);
  local_ctx_ = LocalContext{block_.block_idx, block_.block_num};
  // The slots as hw/ builds them (runtime/core/kernel_launch.h). TaskArgs
  // already bounds the counts, so marshalling cannot fail here.
  std::vector<uint64_t> descs;
  for (const TensorDesc* t : block_.tensors) descs.push_back(reinterpret_cast<uint64_t>(t));
  absl::StatusOr<rt::KernelArgSlots> slots =
      rt::MarshalKernelArgs(descs, block_.scalars, reinterpret_cast<uint64_t>(&local_ctx_),
                            reinterpret_cast<uint64_t>(&global_ctx_));
  std::fill(std::begin(args_), std::end(args_), 0);
  if (slots.ok()) std::copy(slots->begin(), slots->end(), std::begin(args_));
  busy_ = true;
  warm_ = true;
  start_event_.notify(PsTime(std::max<Ps>(0, start_at - Stamp())));
}

void AivCore::Run() {
  while (true) {
    wait(start_event_);
    SetCurrentCore(this);
    qk_.reset();
    block_start_ = Now();
    deferred_.clear();
    uint64_t arg_bytes = 0;
    for (const TensorDesc* t : block_.tensors) arg_bytes += t != nullptr ? t->bytes : 0;
    deadline_info_ = BlockDeadline(p_, arg_bytes, world_chips_);
    deadline_ = block_start_ + NsToPs(deadline_info_.ns);
    ub_pending_.clear();
    last_read_addr_ = 0;
    block_reads_ = 0;
    timed_out_ = false;
    mte2_done_ = mte3_done_ = 0;
    if (races_ != nullptr) races_->BlockStart(race_agent_, block_.start_clock);
    std::memset(flags_, 0, sizeof(flags_));
    try {
      block_.kernel(args_);
      // FIN only after the block's DMAs drained.
      AdvanceTo(std::max(Now(), AllDone()));
    } catch (const Abort&) {
    } catch (...) {
      try {
        Error(rt::kErrorAicoreFault, "the kernel threw a C++ exception");
      } catch (const Abort&) {
      }
    }
    Sync();
    const Ps end = Now();
    busy_ps_ += end - block_start_;
    ++blocks_;
    mem_->trace().Slice(
        track_core_,
        absl::StrCat(block_.kernel_name, " t", block_.task, " b",
                     block_.block_idx),
        block_start_, end, BlockArgs({{"blocks", block_.block_num}}));
    busy_ = false;
    wait_signal_ = nullptr;
    observer_->BlockDone(this);
  }
}

void AivCore::Load(void* ub, const void* gm, uint64_t bytes) {
  MteLoad(ub, gm, bytes, /*copy=*/true);
}

void AivCore::Store(void* gm, const void* ub, uint64_t bytes) {
  MteStore(gm, ub, bytes, /*copy=*/true);
}

void AivCore::StoreAdd(void* gm, const void* ub, uint64_t bytes, AddInto add) {
  MteMove(/*load=*/false, const_cast<void*>(ub), gm, bytes, /*copy=*/true, add);
}

void AivCore::MteLoad(void* ub, const void* gm, uint64_t bytes, bool copy) {
  MteMove(/*load=*/true, ub, const_cast<void*>(gm), bytes, copy);
}

void AivCore::MteStore(void* gm, const void* ub, uint64_t bytes, bool copy) {
  MteMove(/*load=*/false, const_cast<void*>(ub), gm, bytes, copy);
}

void AivCore::LoadRows(void* ub, uint64_t ub_pitch, const void* gm, uint64_t gm_pitch,
                       uint64_t rows, uint64_t row_bytes) {
  if (rows == 0 || row_bytes == 0) return;
  if (row_bytes > ub_pitch || row_bytes > gm_pitch) Fault("TLOAD: a row is wider than its pitch");
  MteMove(/*load=*/true, ub, const_cast<void*>(gm), row_bytes, /*copy=*/true, nullptr,
          DmaRows{rows, ub_pitch, gm_pitch});
}

void AivCore::MteMove(bool load, void* ub, void* gm, uint64_t row_bytes, bool copy,
                      AddInto add, DmaRows dma) {
  const char* op = load ? "TLOAD" : add != nullptr ? "TSTORE AtomicAdd" : "TSTORE";
  if (dma.rows == 1) dma.ub_pitch = dma.gm_pitch = row_bytes;
  const uint64_t bytes = dma.rows * row_bytes;
  const uint64_t ub_span = (dma.rows - 1) * dma.ub_pitch + row_bytes;
  const uint64_t gm_span = (dma.rows - 1) * dma.gm_pitch + row_bytes;
  CheckUb(ub, ub_span, op);
  const int peer = OwnerOrFault(gm, gm_span, op);
  const bool tracing = mem_->trace().enabled();
  const auto& route = load ? mem_->Route(peer, chip_) : mem_->Route(chip_, peer);
  // In-order issue: a load waits until the tile is free (WAR/WAW on UB), a
  // store until it has arrived (RAW).
  AdvanceTo(std::max(Now(), UbReady(ub, ub_span)));
  if (!route.empty()) Sync();  // link bandwidth is shared in time order
  // Every row moves whole bursts.
  const uint64_t b = dma.rows * ((row_bytes + p_.mte_burst_bytes() - 1) / p_.mte_burst_bytes() *
                                 p_.mte_burst_bytes());
  const Ps t = Now();
  // The DMA's fixed cost holds the pipe: local GM's round trip is inside it
  // (docs/simulator.md, "Per-instruction costs"), so only hops add latency.
  Slot pipe = (load ? mte2_ : mte3_)
                  .Reserve(t, b, Cycles(load ? p_.mte_dma_cycles() : p_.mte3_dma_cycles()));
  Ps end = pipe.end;
  Gm& gm_of_peer = mem_->GmOf(peer);
  end = std::max(end, gm_of_peer.port().Reserve(t, b).end);
  Ps lat = 0;
  for (Link* l : route) {
    // The trace slice's args cost strings; built only when tracing.
    end = std::max(end, l->Transfer(t, b, tracing ? BlockArgs({{"peer", peer}}) : TraceArgs{}).end);
    lat += l->hop_latency();
  }
  if (add != nullptr) lat += gm_of_peer.atomic_cost();
  end += lat;
  if (add != nullptr) {
    // The sum lands at issue, like a copy (the simulation is sequential, so
    // no other core's add interleaves). Timing-only: real only when both
    // sides are.
    const uint64_t g = reinterpret_cast<uint64_t>(gm);
    const uint64_t u = reinterpret_cast<uint64_t>(ub);
    if (!gm_of_peer.timing_only() ||
        (gm_of_peer.HoldsReal(g, bytes) && ub_real_.Covers(u, u + bytes))) {
      add(gm, ub, bytes);
    } else {
      gm_of_peer.MarkPayload(g, bytes);
    }
  } else if (copy) {
    for (uint64_t r = 0; r < dma.rows; ++r) {
      uint8_t* u = static_cast<uint8_t*>(ub) + r * dma.ub_pitch;
      uint8_t* g = static_cast<uint8_t*>(gm) + r * dma.gm_pitch;
      MoveBytes(load ? u : g, load ? g : u, row_bytes, load ? peer : -1, load ? -1 : peer);
    }
  }
  // Atomic adds commute: they are not ordered accesses for the race check.
  if (add == nullptr) RecordAccess(gm, gm_span, /*write=*/!load, t, end);
  if (!load) gm_of_peer.NotifyWrite();
  // A loaded tile is ready when its bytes arrive; a stored one is read until
  // the store has drained it (WAR for the next TLOAD).
  UbBusy(ub, ub_span, load ? end : pipe.end);
  Ps& done = load ? mte2_done_ : mte3_done_;
  done = std::max(done, end);
  if (tracing) {
    mem_->trace().Slice(load ? track_mte2_ : track_mte3_, absl::StrCat(op, " ", bytes, " B"),
                        pipe.start, pipe.end,
                        BlockArgs({{"bytes", static_cast<int64_t>(bytes)}, {"peer", peer}}));
  }
  // The issue itself takes a scalar slot; the transfer runs on.
  AdvanceTo(std::max(Now() + Cycles(p_.scalar_op_cycles()), pipe.start));
}

Ps AivCore::UbReady(const void* p, uint64_t bytes) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  const uint8_t* e = b + bytes;
  const Ps now = Now();
  Ps ready = 0;
  size_t keep = 0;
  for (const UbPending& u : ub_pending_) {
    if (u.done <= now) continue;  // retired
    if (u.begin < e && b < u.end) ready = std::max(ready, u.done);
    ub_pending_[keep++] = u;
  }
  ub_pending_.resize(keep);
  return ready;
}

void AivCore::UbBusy(const void* p, uint64_t bytes, Ps until) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  ub_pending_.push_back(UbPending{b, b + bytes, until});
}

void AivCore::Copy(void* dst_gm, const void* src_gm, uint64_t bytes,
                   void* stage_ub, uint64_t stage_bytes) {
  if (stage_bytes == 0) Fault("TPUT/TGET: empty staging tile");
  CheckUb(stage_ub, stage_bytes, "TPUT/TGET staging tile");
  OwnerOrFault(src_gm, bytes, "TPUT/TGET source");
  OwnerOrFault(dst_gm, bytes, "TPUT/TGET destination");
  // One staging tile: each chunk is loaded (MTE2) then stored (MTE3).
  const char* src = static_cast<const char*>(src_gm);
  char* dst = static_cast<char*>(dst_gm);
  // The bytes move once, GM to GM (the staging tile's contents afterwards
  // are unspecified, as a kernel must not rely on them).
  for (uint64_t done = 0; done < bytes; done += stage_bytes) {
    const uint64_t n = std::min(stage_bytes, bytes - done);
    // pto-isa's single-tile TPUT reloads the tile only after the MTE3 event
    // of the previous chunk, i.e. once its store has completed (landed at
    // the destination, hops included), not merely left UB. Calibrated
    // against PyPTO's all_to_all_v baseline (docs/simulator.md,
    // "Calibration"): remote chunks cost a hop more than local ones.
    if (done > 0) AdvanceTo(std::max(Now(), mte3_done_));
    MteLoad(stage_ub, src + done, n, /*copy=*/false);
    MteStore(dst + done, stage_ub, n, /*copy=*/false);
  }
  if (bytes > 0) {
    MoveBytes(dst, src, bytes, mem_->OwnerChip(reinterpret_cast<uint64_t>(src_gm), bytes),
              mem_->OwnerChip(reinterpret_cast<uint64_t>(dst_gm), bytes));
    // Waiters re-check now that the bytes are really there.
    mem_->GmOf(mem_->OwnerChip(reinterpret_cast<uint64_t>(dst_gm), bytes))
        .NotifyWrite();
  }
}

void AivCore::MoveBytes(void* dst, const void* src, uint64_t bytes, int src_chip,
                        int dst_chip) {
  if (!mem_->GmOf(chip_).timing_only()) {
    std::memmove(dst, src, bytes);
    return;
  }
  // Timing-only: real bytes move (counts, indices, anything written with
  // its value); payload stays where it was and only its marks move.
  const uint64_t s = reinterpret_cast<uint64_t>(src);
  const uint64_t d = reinterpret_cast<uint64_t>(dst);
  const bool real = src_chip >= 0 ? mem_->GmOf(src_chip).HoldsReal(s, bytes)
                                  : ub_real_.Overlaps(s, s + bytes);
  if (real) std::memmove(dst, src, bytes);
  if (dst_chip < 0) {
    if (real) {
      ub_real_.Add(d, d + bytes);
    } else {
      ub_real_.Remove(d, d + bytes);
    }
  } else if (real) {
    mem_->GmOf(dst_chip).MarkReal(d, bytes);
  } else {
    mem_->GmOf(dst_chip).MarkPayload(d, bytes);
  }
}

void AivCore::Notify(int32_t* signal, int32_t value, NotifyOp op) {
  if (reinterpret_cast<uint64_t>(signal) % 4 != 0) {
    Fault("TNOTIFY: signal is not 4-byte aligned");
  }
  const int owner = OwnerOrFault(signal, 4, "TNOTIFY");
  if (mte3_done_ > Now()) ++unfenced_notifies_;
  Sync();
  const Ps t0 = Stamp();
  if (op == NotifyOp::AtomicAdd) {
    Ps lat = mem_->GmOf(owner).atomic_cost();
    for (Link* l : mem_->Route(chip_, owner)) lat += l->hop_latency();
    // dcci of the signal line, then the atomic lands at the destination.
    dcache_.Flush(reinterpret_cast<uint64_t>(signal), /*invalidate=*/true);
    WaitUntil(t0 + lat);
    // An add reads the cell.
    CheckReal(owner, signal, 4, "TNOTIFY AtomicAdd");
    mem_->GmOf(owner).MarkReal(reinterpret_cast<uint64_t>(signal), 4);
    *signal += value;
  } else if (p_.notify_set() == platforms::NOTIFY_SET_ATOMIC_DELTA) {
    SetByAtomicDelta(owner, signal, value);
  } else {
    SetByLineWriteBack(owner, signal, value);
  }
  if (races_ != nullptr) races_->Notify(race_agent_, reinterpret_cast<uint64_t>(signal));
  mem_->GmOf(owner).RecordCellWrite(reinterpret_cast<uint64_t>(signal),
                                    Writer(value, op == NotifyOp::AtomicAdd));
  mem_->GmOf(owner).NotifyWrite();
  mem_->trace().Slice(
      track_wait_,
      absl::StrCat("TNOTIFY ", op == NotifyOp::AtomicAdd ? "+" : "=", value),
      t0, Stamp(), BlockArgs({{"bytes", 4}, {"peer", owner}, {"value", value}}));
  AdvanceTo(Now());
}

CellWrite AivCore::Writer(int32_t value, bool add) const {
  return CellWrite{chip_, core_id_, is_aic_, block_.task, block_.kernel_name, block_.block_idx,
                   Now(), add, value};
}

// pto-isa before #323: dcci; *cell = value; dcci; dsb. The store misses (the
// first dcci dropped the line), so the line is read from the owner's GM;
// the second dcci sends the whole line back, and every word of it that
// another agent changed in between reverts (pto-isa#322).
void AivCore::SetByLineWriteBack(int owner, int32_t* signal, int32_t value) {
  const uint64_t a = reinterpret_cast<uint64_t>(signal);
  Gm& gm = mem_->GmOf(owner);
  Ps read = gm.latency();
  for (Link* l : mem_->Route(owner, chip_)) read += l->hop_latency();
  Ps write = gm.latency();
  for (Link* l : mem_->Route(chip_, owner)) write += l->hop_latency();
  const int before = dcache_.Flush(a, /*invalidate=*/true);
  WaitUntil(Stamp() + Cycles(p_.scalar_op_cycles()) + before * write + read);
  DataCache::Access acc = dcache_.Line(a);
  std::memcpy(acc.data + (a - dcache_.LineOf(a)), &value, 4);
  dcache_.MarkDirty(a, 4);
  WaitUntil(Stamp() + acc.writebacks * mem_->GmOf(chip_).latency() + write);
  set_target_ = a;
  dcache_.Flush(a, /*invalidate=*/true);
  set_target_ = 0;
  gm.MarkReal(a, 4);
}

// pto-isa#323: old = ld_dev(cell) (uncached), then st_atomic(value - old)
// between two dcci. Word-safe; two Sets of one word racing may publish
// neither value, as on the board.
void AivCore::SetByAtomicDelta(int owner, int32_t* signal, int32_t value) {
  const uint64_t a = reinterpret_cast<uint64_t>(signal);
  Gm& gm = mem_->GmOf(owner);
  Ps read = gm.latency();
  for (Link* l : mem_->Route(owner, chip_)) read += l->hop_latency();
  Ps atomic = gm.atomic_cost();
  for (Link* l : mem_->Route(chip_, owner)) atomic += l->hop_latency();
  WaitUntil(Stamp() + read);
  CheckReal(owner, signal, 4, "TNOTIFY Set (the read of the old value)");
  const uint32_t old = static_cast<uint32_t>(*signal);
  const uint32_t delta = static_cast<uint32_t>(value) - old;
  dcache_.Flush(a, /*invalidate=*/true);
  WaitUntil(Stamp() + atomic);
  *signal = static_cast<int32_t>(static_cast<uint32_t>(*signal) + delta);
  gm.MarkReal(a, 4);
}

void AivCore::OnWriteBack(const DataCache::WriteBack& wb) {
  bool partial = false;
  for (uint32_t i = 0; i < wb.bytes && !partial; ++i) partial = wb.stored[i] == 0;
  if (!partial) return;
  const int owner = mem_->OwnerChip(wb.line, wb.bytes);
  if (owner < 0) return;
  Gm& gm = mem_->GmOf(owner);
  const uint8_t* now = reinterpret_cast<const uint8_t*>(wb.line);
  uint64_t first_stored = 0;
  for (uint32_t i = 0; i < wb.bytes && first_stored == 0; ++i) {
    if (wb.stored[i] != 0) first_stored = (wb.line + i) & ~uint64_t{3};
  }
  CellWrite by = Writer(0, false);
  by.line_writeback = true;
  by.by_set = set_target_ != 0;
  by.target = set_target_ != 0 ? set_target_ : first_stored;
  for (uint32_t w = 0; w + 4 <= wb.bytes; w += 4) {
    bool reverted = false;
    for (uint32_t i = w; i < w + 4; ++i) {
      reverted = reverted || (wb.stored[i] == 0 && now[i] != wb.fill[i]);
    }
    if (!reverted) continue;
    CellWrite c = by;
    std::memcpy(&c.value, wb.data + w, 4);
    std::memcpy(&c.lost, now + w, 4);
    gm.RecordCellWrite(wb.line + w, std::move(c));
  }
  gm.RecordPartialWriteBack(wb.line, wb.bytes, wb.stored, by);
}

void AivCore::Wait(const int32_t* signal, int32_t value, WaitCmp cmp) {
  if (reinterpret_cast<uint64_t>(signal) % 4 != 0) {
    Fault("TWAIT: signal is not 4-byte aligned");
  }
  const int owner = OwnerOrFault(signal, 4, "TWAIT");
  Sync();
  const Ps t0 = Stamp();
  Gm& gm = mem_->GmOf(owner);
  CheckReal(owner, signal, 4, "TWAIT");
  wait_signal_ = signal;
  wait_value_ = value;
  wait_cmp_ = cmp;
  while (!CompareSignal(*static_cast<const volatile int32_t*>(signal), value,
                        cmp)) {
    mem_->CountWait();
    wait(gm.write_event());
    SetCurrentCore(this);
  }
  wait_signal_ = nullptr;
  if (races_ != nullptr) races_->Observe(race_agent_, reinterpret_cast<uint64_t>(signal));
  // The poll that saw the value is a GM read.
  Ps lat = gm.latency();
  for (Link* l : mem_->Route(owner, chip_)) lat += l->hop_latency();
  WaitUntil(Stamp() + lat);
  wait_ps_ += Stamp() - t0;
  mem_->trace().Slice(track_wait_,
                      absl::StrCat("TWAIT ", WaitCmpName(cmp), " ", value), t0,
                      Stamp(), BlockArgs({{"bytes", 4}, {"peer", owner}, {"value", value}}));
  AdvanceTo(Now());
}

uint64_t AivCore::UrmaPost(bool write, void* remote, void* local,
                           uint64_t bytes) {
  if (urma_ == nullptr) {
    Error(rt::kErrorAsyncCompletionInvalid,
          absl::StrCat("URMA is not present on platform ", p_.name()));
  }
  const int peer = mem_->OwnerChip(reinterpret_cast<uint64_t>(remote), 1);
  if (peer < 0) {
    Error(rt::kErrorAsyncCompletionInvalid,
          "URMA: the remote address is outside every GM allocation");
  }
  Sync();
  waiting_sq_ = true;
  while (urma_->SqFull(peer)) {
    // Nearly full: poll the CQ first (a GM read), then wait for the engine.
    urma_->DrainCq(peer);
    WaitUntil(Stamp() + mem_->GmOf(chip_).latency());
    if (!urma_->SqFull(peer)) break;
    mem_->CountWait();
    wait(urma_->sq_space_event());
    SetCurrentCore(this);
  }
  waiting_sq_ = false;
  // Write the WQE, dcci its line, then store the head to the doorbell.
  WaitUntil(Stamp() + mem_->GmOf(chip_).latency() +
            NsToPs(p_.urma().doorbell_ns()));
  const uint64_t head =
      urma_->PostWqe(peer, write, reinterpret_cast<uint64_t>(remote),
                     reinterpret_cast<uint64_t>(local), bytes);
  urma_->RingDoorbell(peer, head);
  AdvanceTo(Now());
  return (static_cast<uint64_t>(peer) << 32) | static_cast<uint32_t>(head);
}

void AivCore::DeferCompletion(uint64_t handle) {
  if (deferred_.size() >= 64) {
    Error(rt::kErrorAsyncWaitOverflow,
          "more than 64 completion conditions in one block");
  }
  deferred_.push_back(handle);
}

void AivCore::PipeBarrier(Pipe pipe) {
  Ps until = Now();
  if (pipe == PIPE_ALL) until = std::max(until, AllDone());
  if (pipe == PIPE_MTE2) until = std::max(until, mte2_done_);
  if (pipe == PIPE_MTE3) until = std::max(until, mte3_done_);
  AdvanceTo(until + Cycles(p_.scalar_op_cycles()));
}

void AivCore::SetFlag(Pipe src, Pipe dst, int event_id) {
  if (event_id < 0 || event_id >= kFlagIds) Fault("set_flag: event id out of range");
  Ps done = Now();
  if (src == PIPE_MTE2) done = std::max(done, mte2_done_);
  if (src == PIPE_MTE3) done = std::max(done, mte3_done_);
  if (src == PIPE_ALL) done = std::max(done, AllDone());
  flags_[src][dst][event_id] = done;
  Advance(Cycles(p_.scalar_op_cycles()));
}

void AivCore::WaitFlag(Pipe src, Pipe dst, int event_id) {
  if (event_id < 0 || event_id >= kFlagIds) Fault("wait_flag: event id out of range");
  AdvanceTo(std::max(Now(), flags_[src][dst][event_id]) +
            Cycles(p_.scalar_op_cycles()));
}

// dsb(DSB_DDR): every GM write issued so far has landed.
void AivCore::Dsb() {
  AdvanceTo(std::max(Now(), mte3_done_) + Cycles(p_.scalar_op_cycles()));
}

void AivCore::Dcci(const void* gm, DcciMode mode) {
  int wb = 0;
  if (mode == ENTIRE_DATA_CACHE) {
    wb = dcache_.FlushAll(/*invalidate=*/true);
  } else {
    OwnerOrFault(gm, 1, "dcci");
    wb = dcache_.Flush(reinterpret_cast<uint64_t>(gm),
                       /*invalidate=*/mode == SINGLE_CACHE_LINE);
  }
  Ps cost = Cycles(p_.scalar_op_cycles());
  if (wb > 0) {
    cost += mem_->GmOf(chip_).latency();
    mem_->GmOf(chip_).NotifyWrite();
    if (mode != ENTIRE_DATA_CACHE) {
      const int owner = mem_->OwnerChip(reinterpret_cast<uint64_t>(gm), 1);
      if (owner >= 0) mem_->GmOf(owner).NotifyWrite();
    }
  }
  Advance(cost);
}

// A dcache miss fills the whole line from the GM that owns it, for a load
// and a store alike: a write-back emits the entire line, bytes the core
// never wrote included (simpler docs/hardware/cache-coherency.md, "dcci is
// whole-cache-line"), so a store miss fetched the line first. A peer's line
// crosses every link of the route back.
Ps AivCore::LineFill(int owner) {
  Ps cost = mem_->GmOf(owner).latency();
  for (Link* l : mem_->Route(owner, chip_)) cost += l->hop_latency();
  return cost;
}

void AivCore::ScalarRead(const void* gm, void* out, int bytes) {
  const uint64_t a = reinterpret_cast<uint64_t>(gm);
  if (a % bytes != 0) Fault("scalar GM read is not naturally aligned");
  const int owner = OwnerOrFault(gm, bytes, "scalar GM read");
  CheckReal(owner, gm, bytes, "scalar GM read");
  last_read_addr_ = a;
  ++block_reads_;
  RecordAccess(gm, bytes, /*write=*/false, Now(), Now());
  DataCache::Access acc = dcache_.Line(a);
  std::memcpy(out, acc.data + (a - dcache_.LineOf(a)), bytes);
  Ps cost = Cycles(p_.dcache_hit_cycles());
  if (acc.hit) {
    ++hits_;
  } else {
    ++misses_;
    cost += LineFill(owner);
  }
  Advance(cost + acc.writebacks * mem_->GmOf(chip_).latency());
}

void AivCore::ScalarWrite(void* gm, const void* in, int bytes) {
  const uint64_t a = reinterpret_cast<uint64_t>(gm);
  if (a % bytes != 0) Fault("scalar GM write is not naturally aligned");
  const int owner = OwnerOrFault(gm, bytes, "scalar GM write");
  RecordAccess(gm, bytes, /*write=*/true, Now(), Now());
  mem_->GmOf(owner).MarkReal(a, bytes);
  DataCache::Access acc = dcache_.Line(a);
  std::memcpy(acc.data + (a - dcache_.LineOf(a)), in, bytes);
  dcache_.MarkDirty(a, static_cast<uint32_t>(bytes));
  Ps cost = Cycles(p_.dcache_hit_cycles());
  if (acc.hit) {
    ++hits_;
  } else {
    ++misses_;
    cost += LineFill(owner);
  }
  Advance(cost + acc.writebacks * mem_->GmOf(chip_).latency());
}

void AivCore::Vector(VecOp op, const void* dst, const void* a, const void* b,
                     uint64_t bytes) {
  // No shape: the bytes as one row of 4-byte elements.
  VectorShaped(op, dst, a, b, bytes, VecShape{4, 1, static_cast<int64_t>((bytes + 3) / 4), 0});
}

void AivCore::VectorShaped(VecOp op, const void* dst, const void* a, const void* b,
                           uint64_t bytes, const VecShape& shape) {
  const double cycles = VectorCycles(p_, op, shape);
  // Timing-only: the result is real when every operand is.
  if (mem_->GmOf(chip_).timing_only()) {
    auto real = [&](const void* p) {
      const uint64_t x = reinterpret_cast<uint64_t>(p);
      return p == nullptr || ub_real_.Covers(x, x + bytes);
    };
    const uint64_t x = reinterpret_cast<uint64_t>(dst);
    if (real(a) && real(b)) {
      ub_real_.Add(x, x + bytes);
    } else {
      ub_real_.Remove(x, x + bytes);
    }
  }
  // Operands wait for in-flight DMAs on their UB bytes.
  Ps dep = UbReady(dst, bytes);
  if (a != nullptr) dep = std::max(dep, UbReady(a, bytes));
  if (b != nullptr) dep = std::max(dep, UbReady(b, bytes));
  AdvanceTo(std::max(Now(), dep));
  const Ps t0 = Now();
  const Ps d = Cycles(cycles);
  vector_ps_ += d;
  mem_->trace().Slice(track_vec_, absl::StrCat("VEC ", bytes, " B"), t0,
                      t0 + d, BlockArgs({{"bytes", static_cast<int64_t>(bytes)}}));
  AdvanceTo(t0 + d);
}

std::string AivCore::DescribeState() const {
  if (!busy_) return "";
  std::string s = absl::StrCat("chip ", chip_, " ", is_aic_ ? "AIC" : "AIV",
                               core_id_, " kernel ", block_.kernel_name,
                               " task ", block_.task, " block ",
                               block_.block_idx, "/", block_.block_num, ": ");
  if (waiting_sq_) {
    absl::StrAppend(&s, "waits for space in a full URMA send queue");
  } else if (!waiting_pipe_.empty()) {
    absl::StrAppend(&s, waiting_pipe_);
  } else if (wait_signal_ != nullptr) {
    const uint64_t a = reinterpret_cast<uint64_t>(wait_signal_);
    absl::StrAppend(&s, "TWAIT on ", mem_->Describe(a), " for value ",
                    WaitCmpName(wait_cmp_), " ", wait_value_, " (current ",
                    *wait_signal_, ")");
  } else {
    absl::StrAppend(&s, "running");
  }
  return s;
}

void AivCore::FillStats(CoreStat* s) const {
  s->set_chip(chip_);
  s->set_core(core_id_);
  s->set_kind(is_aic_ ? "AIC" : "AIV");
  s->set_blocks(blocks_);
  s->set_busy_ps(busy_ps_);
  s->set_wait_ps(wait_ps_);
  s->set_mte2_bytes(mte2_.bytes());
  s->set_mte2_busy_ps(mte2_.busy());
  s->set_mte3_bytes(mte3_.bytes());
  s->set_mte3_busy_ps(mte3_.busy());
  s->set_vector_busy_ps(vector_ps_);
  s->set_dcache_hits(hits_);
  s->set_dcache_misses(misses_);
  s->set_unfenced_notifies(unfenced_notifies_);
}

void AivCore::RecordAccess(const void* gm, uint64_t bytes, bool write, Ps t0, Ps t1) {
  if (races_ == nullptr) return;
  const uint64_t a = reinterpret_cast<uint64_t>(gm);
  races_->Access(race_agent_,
                 AccessSite{chip_, core_id_, is_aic_, block_.task, block_.kernel_name,
                            block_.block_idx},
                 a, bytes, write, t0, t1);
}

}  // namespace pto::sim
