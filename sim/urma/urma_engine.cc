#include "sim/urma/urma_engine.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "sim/common/sc_time.h"
#include "sim/gm/gm.h"
#include "sim/link/link.h"
#include "sim/trace/trace.h"

namespace pto::sim {
UrmaEngine::UrmaEngine(sc_core::sc_module_name name, int chip, int chips,
                       const platforms::Platform& platform, MemorySystem* mem)
    : sc_core::sc_module(name),
      chip_(chip),
      p_(platform),
      mem_(mem),
      sq_depth_(platform.urma().sq_depth()),
      cq_depth_(platform.urma().cq_depth()),
      queues_(chips) {
  for (int d = 0; d < chips; ++d) {
    queues_[d].sq.resize(sq_depth_);
    queues_[d].cq.resize(cq_depth_);
    // Slots start with the owner bit of "lap -1" so nothing looks valid.
    for (UrmaWqe& w : queues_[d].sq) w.owner = true;
    for (UrmaCqe& c : queues_[d].cq) c.owner = false;
    queues_[d].track = mem_->trace().AddTrack(
        chip, absl::StrCat("chip ", chip), absl::StrCat("URMA SQ ->c", d));
  }
  SC_THREAD(Run);
}

bool UrmaEngine::SqFull(int peer) const {
  const Queue& q = queues_[peer];
  return q.sq_head - q.sq_tail >= sq_depth_;
}

uint64_t UrmaEngine::PostWqe(int peer, bool write, uint64_t remote,
                             uint64_t local, uint64_t len) {
  Queue& q = queues_[peer];
  UrmaWqe wqe;
  wqe.opcode = write ? kWrite : kRead;
  wqe.remote = remote;
  wqe.local = local;
  wqe.len = len;
  wqe.owner = ((q.sq_head / sq_depth_) & 1) != 0;
  q.sq[q.sq_head % sq_depth_] = wqe;
  ++q.sq_head;
  q.max_sq_occupancy = std::max<int64_t>(q.max_sq_occupancy,
                                         q.sq_head - q.sq_tail);
  return q.sq_head;
}

void UrmaEngine::RingDoorbell(int peer, uint64_t head) {
  queues_[peer].doorbell = std::max(queues_[peer].doorbell, head);
  doorbell_.notify(sc_core::SC_ZERO_TIME);
}

void UrmaEngine::Fetch() {
  const Ps wqe_cost = NsToPs(p_.urma().wqe_process_ns());
  for (int d = 0; d < static_cast<int>(queues_.size()); ++d) {
    Queue& q = queues_[d];
    // A CQE slot must be free for every fetched WQE (CQ back-pressure).
    while (q.sq_tail < q.doorbell &&
           q.cq_head + q.inflight - q.cq_tail < cq_depth_) {
      const UrmaWqe& w = q.sq[q.sq_tail % sq_depth_];
      if (w.owner != (((q.sq_tail / sq_depth_) & 1) != 0)) break;  // not written
      const uint32_t index = static_cast<uint32_t>(q.sq_tail);
      ++q.sq_tail;
      ++q.inflight;
      sq_space_.notify(sc_core::SC_ZERO_TIME);
      const Ps t = std::max(Stamp(), engine_busy_) + wqe_cost;
      engine_busy_ = t;
      uint8_t status = kStatusOk;
      Ps done = t;
      const int local_chip = mem_->OwnerChip(w.local, w.len);
      const int remote_chip = mem_->OwnerChip(w.remote, w.len);
      if (w.len > p_.urma().max_wqe_bytes()) {
        status = kStatusTooLong;
      } else if (local_chip != chip_ || remote_chip != d) {
        status = kStatusBadAddress;
      } else {
        const int from = w.opcode == kWrite ? chip_ : d;
        const int to = w.opcode == kWrite ? d : chip_;
        Ps end = mem_->GmOf(from).port().Reserve(t, w.len).end;
        end = std::max(end, mem_->GmOf(to).port().Reserve(t, w.len).end);
        Ps lat = mem_->GmOf(to).latency();
        for (Link* l : mem_->Route(from, to)) {
          end = std::max(end, l->Transfer(t, w.len, {{"peer", d}}).end);
          lat += l->hop_latency();
        }
        done = end + lat;
        q.bytes += w.len;
      }
      ++q.wqes;
      mem_->trace().Slice(
          q.track,
          absl::StrCat(w.opcode == kWrite ? "WRITE " : "READ ", w.len, " B"),
          t, done, {{"bytes", static_cast<int64_t>(w.len)}, {"peer", d}});
      inflight_.push_back(Inflight{done, seq_++, d, w, index, status});
    }
  }
}

void UrmaEngine::Retire() {
  std::sort(inflight_.begin(), inflight_.end(),
            [](const Inflight& a, const Inflight& b) {
              return a.done != b.done ? a.done < b.done : a.seq < b.seq;
            });
  const Ps now = Stamp();
  size_t n = 0;
  while (n < inflight_.size() && inflight_[n].done <= now) {
    const Inflight& f = inflight_[n];
    Queue& q = queues_[f.peer];
    if (f.status == kStatusOk) {
      // The bytes land when the transfer completes; in timing-only mode
      // only real bytes do, payload moves its marks (docs/simulator.md).
      const bool put = f.wqe.opcode == kWrite;
      Gm& dst = mem_->GmOf(put ? f.peer : chip_);
      const uint64_t to = put ? f.wqe.remote : f.wqe.local;
      const uint64_t from = put ? f.wqe.local : f.wqe.remote;
      Gm& src = mem_->GmOf(put ? chip_ : f.peer);
      if (src.HoldsReal(from, f.wqe.len)) {
        std::memmove(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from),
                     f.wqe.len);
        dst.MarkReal(to, f.wqe.len);
      } else {
        dst.MarkPayload(to, f.wqe.len);
      }
      dst.NotifyWrite();
    } else {
      ++q.errors;
    }
    UrmaCqe& c = q.cq[q.cq_head % cq_depth_];
    c.owner = ((q.cq_head / cq_depth_) & 1) == 0;  // != the consumer's phase
    c.status = f.status;
    c.wqe_index = f.index;
    ++q.cq_head;
    --q.inflight;
    ++n;
  }
  inflight_.erase(inflight_.begin(), inflight_.begin() + n);
  if (n > 0 && on_cqe_) on_cqe_();
}

void UrmaEngine::Run() {
  while (true) {
    Fetch();
    Retire();
    if (inflight_.empty()) {
      wait(doorbell_);
    } else {
      Ps next = inflight_.front().done;
      for (const Inflight& f : inflight_) next = std::min(next, f.done);
      mem_->CountWait();
      wait(PsTime(std::max<Ps>(0, next - Stamp())), doorbell_);
    }
  }
}

UrmaEngine::Poll UrmaEngine::PollHandle(uint64_t handle, std::string* error) {
  const int peer = static_cast<int>(handle >> 32);
  const uint32_t target = static_cast<uint32_t>(handle);
  if (peer < 0 || peer >= static_cast<int>(queues_.size())) {
    *error = absl::StrCat("URMA handle names chip ", peer, " of ",
                          queues_.size());
    return Poll::kError;
  }
  Queue& q = queues_[peer];
  const uint64_t tail_before = q.cq_tail;
  // The consumer writes the new tail to the CQ doorbell: the engine may
  // fetch the WQEs it held back for lack of CQ space.
  struct RingOnExit {
    UrmaEngine* e;
    Queue& q;
    uint64_t before;
    ~RingOnExit() {
      if (q.cq_tail != before) e->doorbell_.notify(sc_core::SC_ZERO_TIME);
    }
  } ring{this, q, tail_before};
  while (q.cq_tail < q.cq_head) {
    const UrmaCqe& c = q.cq[q.cq_tail % cq_depth_];
    const bool phase = ((q.cq_tail / cq_depth_) & 1) != 0;
    if (c.owner == phase) break;  // not yet written in this lap
    ++q.cq_tail;
    if (c.status != kStatusOk) {
      *error = absl::StrCat("URMA CQE status 0x", absl::Hex(c.status),
                            " for WQE ", c.wqe_index, " to chip ", peer,
                            c.status == kStatusTooLong
                                ? " (WQE longer than the 256 MiB limit)"
                                : " (address outside the queue's GM)");
      return Poll::kError;
    }
  }
  // Wrap-safe: READY once the consumed count reaches the post's head.
  return static_cast<int32_t>(static_cast<uint32_t>(q.cq_tail) - target) >= 0
             ? Poll::kReady
             : Poll::kPending;
}

void UrmaEngine::DrainCq(int peer) {
  Queue& q = queues_[peer];
  const uint64_t before = q.cq_tail;
  while (q.cq_tail < q.cq_head) {
    const UrmaCqe& c = q.cq[q.cq_tail % cq_depth_];
    const bool phase = ((q.cq_tail / cq_depth_) & 1) != 0;
    if (c.owner == phase || c.status != kStatusOk) break;
    ++q.cq_tail;
  }
  if (q.cq_tail != before) doorbell_.notify(sc_core::SC_ZERO_TIME);
}

void UrmaEngine::FillStats(RunReport* r) const {
  for (size_t d = 0; d < queues_.size(); ++d) {
    const Queue& q = queues_[d];
    if (q.wqes == 0) continue;
    ResourceStat* s = r->add_queues();
    s->set_name(absl::StrCat("urma c", chip_, "->c", d));
    s->set_bytes(q.bytes);
    s->set_transfers(q.wqes);
    s->set_max_occupancy(q.max_sq_occupancy);
    s->set_errors(q.errors);
  }
}

}  // namespace pto::sim
