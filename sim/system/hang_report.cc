// Hang diagnosis: when a run ends with blocked agents (a deadlock, a
// livelock cut by its block's deadline (sim/aiv/op_deadline.h), or a fatal
// error that left peers waiting),
// names who waits on what, for whom, and why (docs/simulator.md, "Hang
// reports").
//
// The wait-for graph is inferred from the signal-cell write log (Gm): a
// blocked TWAIT on a cell of a domain buffer waits for the domain's ranks
// that have not written the cell yet; when nobody wrote it, for the ranks
// that wrote the same slot of the buffer on the other ranks (per-source
// flags). Each awaited rank is then classified: never dispatched, finished,
// stopped by the fatal error, blocked at the same slot without having
// notified (a missing notify), or blocked elsewhere (an edge; a cycle of
// such edges is reported as the cause).
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/aiv/op_deadline.h"
#include "sim/system/system.h"

namespace pto::sim {
namespace {

// "rank 3", "ranks 0-4, 6-15".
std::string RankList(const std::set<int>& ranks) {
  std::vector<std::string> parts;
  for (auto it = ranks.begin(); it != ranks.end();) {
    int lo = *it, hi = lo;
    for (++it; it != ranks.end() && *it == hi + 1; ++it) hi = *it;
    parts.push_back(lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "-", hi));
  }
  return absl::StrCat(ranks.size() == 1 ? "rank " : "ranks ", absl::StrJoin(parts, ", "));
}

std::string Who(const ChipCore& c) {
  const BlockAssignment& b = c.block();
  return absl::StrCat("rank ", c.chip(), " ", c.is_aic() ? "AIC" : "AIV", c.core_id(), " task ",
                      b.task, " block ", b.block_idx, "/", b.block_num, " (kernel ", b.kernel_name,
                      ")");
}

// What one blocked agent waits on.
struct Wait {
  const ChipCore* core = nullptr;
  uint64_t cell = 0;        // 0: not a signal wait
  bool spinning = false;    // scalar reads past its deadline
  std::set<int> awaited;    // ranks it waits for
  bool all_wrote = false;   // every rank of the domain wrote the cell
};

}  // namespace

const SimSystem::DomainBuffer* SimSystem::FindBuffer(uint64_t addr) const {
  for (const DomainBuffer& b : domain_buffers_) {
    if (addr >= b.addr && addr < b.addr + b.bytes) return &b;
  }
  return nullptr;
}

std::string SimSystem::CellName(uint64_t addr) const {
  const DomainBuffer* b = FindBuffer(addr);
  if (b == nullptr) return Describe(addr);
  return absl::StrCat("window ", b->domain, " r", b->rank, " buffer ", b->buffer, " slot ",
                      (addr - b->addr) / 4, " (", Describe(addr), ")");
}

// One diagnosis of the run's end state, in the order the report reads:
// collect the blocked agents, resolve whom each signal wait waits for, then
// the wait-for lines, one summary per rank, and the cause.
class SimSystem::HangDiagnosis {
 public:
  HangDiagnosis(const SimSystem& sys, RunReport* r)
      : sys_(sys), r_(r), n_(static_cast<int>(sys.chips_.size())), state_(n_), waits_(n_) {}

  void Run() {
    if (!CollectWaits()) return;
    ResolveAwaited();
    for (int c = 0; c < n_; ++c) {
      for (const Wait& w : waits_[c]) r_->add_wait_for(WaitLine(c, w));
      SyncWaitLines(c);
    }
    for (int c = 0; c < n_; ++c) r_->add_rank_summary(RankSummary(c));
    r_->set_hang_cause(Cause());
  }

 private:
  // Every chip's orchestrator state and its blocked or spinning cores;
  // false when nothing is blocked and no error stopped the run.
  bool CollectWaits() {
    for (int c = 0; c < n_; ++c) {
      state_[c] = sys_.chips_[c]->aicpu().state();
      for (const auto& core : sys_.chips_[c]->cores()) {
        if (core->timed_out()) {
          Wait w;
          w.core = core;
          w.spinning = true;
          w.cell = core->last_scalar_read();
          waits_[c].push_back(w);
        } else if (core->busy()) {
          Wait w;
          w.core = core;
          if (core->wait_signal() != nullptr) {
            w.cell = reinterpret_cast<uint64_t>(core->wait_signal());
          }
          waits_[c].push_back(w);
        }
      }
    }
    bool any = sys_.fatal_chip_ >= 0;
    for (int c = 0; c < n_; ++c) {
      any = any || !waits_[c].empty() || !state_[c].sync_waiting.empty();
    }
    return any;
  }

  // The ranks each signal wait waits for: the domain's ranks that have not
  // written the cell, or, when nobody wrote it, whoever wrote this slot of
  // the buffer on the other ranks.
  void ResolveAwaited() {
    for (int c = 0; c < n_; ++c) {
      for (Wait& w : waits_[c]) {
        if (w.cell == 0) continue;
        const int owner = sys_.OwnerChip(w.cell, 4);
        if (owner < 0) continue;
        const DomainBuffer* b = sys_.FindBuffer(w.cell);
        if (b == nullptr) continue;
        const std::set<int> writers = sys_.chips_[owner]->gm().CellWriters(w.cell);
        if (!writers.empty()) {
          for (int d : b->devices) {
            if (!writers.count(d)) w.awaited.insert(d);
          }
          w.all_wrote = w.awaited.empty();
          continue;
        }
        const uint64_t off = w.cell - b->addr;
        for (const DomainBuffer& peer : sys_.domain_buffers_) {
          if (peer.domain != b->domain || peer.buffer != b->buffer || peer.rank == b->rank) {
            continue;
          }
          if (off >= peer.bytes) continue;
          const int po = sys_.OwnerChip(peer.addr + off, 4);
          if (po < 0) continue;
          for (int d : sys_.chips_[po]->gm().CellWriters(peer.addr + off)) w.awaited.insert(d);
        }
      }
    }
  }

  // Same (domain, buffer, slot), on any rank's window.
  bool SameSlot(const Wait& a, const Wait& b) const {
    const DomainBuffer* x = sys_.FindBuffer(a.cell);
    const DomainBuffer* y = sys_.FindBuffer(b.cell);
    return x != nullptr && y != nullptr && x->domain == y->domain && x->buffer == y->buffer &&
           a.cell - x->addr == b.cell - y->addr;
  }

  // One blocked agent: what it does, the cell's last write, whom it waits for.
  std::string WaitLine(int c, const Wait& w) {
    const ChipCore& core = *w.core;
    std::string line = Who(core);
    if (w.spinning) {
      absl::StrAppend(&line, ": spun past its deadline (", core.scalar_reads(),
                      " scalar GM reads");
      if (w.cell != 0) {
        int32_t v = 0;
        std::memcpy(&v, reinterpret_cast<const void*>(w.cell), 4);
        absl::StrAppend(&line, ", the last of ", sys_.CellName(w.cell), ", which holds ", v);
      }
      absl::StrAppend(&line, ")");
      spinning_.push_back(absl::StrCat("rank ", c, " ", core.is_aic() ? "AIC" : "AIV",
                                       core.core_id(), " (kernel ", core.block().kernel_name,
                                       ")"));
      if (first_spinner_ == nullptr) first_spinner_ = &core;
    } else if (core.waiting_sq()) {
      absl::StrAppend(&line, ": waits for space in a full URMA send queue");
    } else if (!core.waiting_pipe().empty()) {
      absl::StrAppend(&line, ": ", core.waiting_pipe());
      pipe_waits_.push_back(line);
    } else if (w.cell == 0) {
      absl::StrAppend(&line, ": running");
    } else {
      absl::StrAppend(&line, ": TWAIT on ", sys_.CellName(w.cell), " expects ",
                      WaitCmpName(core.wait_cmp()), " ", core.wait_value(), ", holds ",
                      *core.wait_signal());
    }
    const CellWrite* last = nullptr;
    if (w.cell != 0) {
      const int owner = sys_.OwnerChip(w.cell, 4);
      last = owner >= 0 ? sys_.chips_[owner]->gm().LastCellWrite(w.cell) : nullptr;
      absl::StrAppend(&line, "; last write: ",
                      last != nullptr ? sys_.WriterText(*last) : "none (never notified)");
      if (last != nullptr && last->line_writeback && lost_update_.empty()) {
        lost_update_ = absl::StrCat("lost update: rank ", c, " waits on ", sys_.CellName(w.cell),
                                    " for ", WaitCmpName(core.wait_cmp()), " ",
                                    core.wait_value(), ", but ", sys_.WriterText(*last));
      }
    }
    if (w.all_wrote) {
      absl::StrAppend(&line, "; every rank of its domain has notified it");
      wrong_expected_.push_back(absl::StrCat(
          "rank ", c, " waits on ", sys_.CellName(w.cell), " for ", WaitCmpName(core.wait_cmp()),
          " ", core.wait_value(), ", but every rank of its domain notified it and it holds ",
          *core.wait_signal()));
    } else if (last != nullptr && last->line_writeback) {
      // Its notifier did notify; the update was reverted (the cause).
    } else if (w.cell != 0 && !w.spinning) {
      if (w.awaited.empty()) {
        absl::StrAppend(&line, "; waits for: nobody notifies this slot on any rank");
      } else {
        std::vector<std::string> why;
        for (int a : w.awaited) why.push_back(ClassifyAwaited(c, w, a));
        absl::StrAppend(&line, "; waits for: ", absl::StrJoin(why, ", "));
      }
    }
    return line;
  }

  // Why awaited rank `a` has not notified the cell rank `c` waits on:
  // stopped by the error, never dispatched, finished, blocked at the same
  // slot (a missing notify), or blocked elsewhere (an edge of the graph).
  std::string ClassifyAwaited(int c, const Wait& w, int a) {
    std::string s = absl::StrCat("rank ", a);
    const bool blocked_same =
        std::any_of(waits_[a].begin(), waits_[a].end(),
                    [&](const Wait& o) { return o.cell != 0 && SameSlot(o, w); });
    if (a == sys_.fatal_chip_) {
      absl::StrAppend(&s, " (stopped by the error)");
      stopped_.insert(a);
      waiting_on_missing_.insert(c);
    } else if (!state_[a].running && waits_[a].empty()) {
      if (state_[a].runs_done == 0) {
        absl::StrAppend(&s, " (never dispatched)");
        never_dispatched_.insert(a);
      } else {
        absl::StrAppend(&s, " (finished ", state_[a].runs_done,
                        " dispatch(es) without notifying)");
        finished_.insert(a);
      }
      waiting_on_missing_.insert(c);
    } else if (blocked_same) {
      absl::StrAppend(&s, " (reached this wait without notifying)");
      passed_notify_.insert(a);
      waiting_on_missing_.insert(c);
    } else {
      absl::StrAppend(&s, " (blocked elsewhere)");
      if (a != c) edges_[c].insert(a);
    }
    return s;
  }

  // Sync-start tasks of rank `c` waiting for idle cores, and who holds them.
  void SyncWaitLines(int c) {
    for (const Aicpu::State::SyncWait& s : state_[c].sync_waiting) {
      std::set<int64_t> holders;
      int held = 0;
      for (const auto& core : sys_.chips_[c]->cores()) {
        if (core->busy() && core->is_aic() == s.aic) {
          ++held;
          holders.insert(core->block().task);
        }
      }
      std::vector<std::string> hs;
      for (int64_t t : holders) hs.push_back(absl::StrCat(t));
      r_->add_wait_for(absl::StrCat("rank ", c, " task ", s.task, " (sync start, ", s.blocks,
                                    " blocks): waits for ", s.blocks, " idle ",
                                    s.aic ? "AIC" : "AIV", " cores at once; ", held,
                                    " are held by task(s) ", absl::StrJoin(hs, ", ")));
    }
  }

  std::string RankSummary(int c) const {
    const Aicpu::State& st = state_[c];
    std::string line = absl::StrCat("rank ", c, ": ");
    if (c == sys_.fatal_chip_) absl::StrAppend(&line, "stopped by the error; ");
    if (!st.running) {
      absl::StrAppend(&line, st.runs_done == 0
                                 ? "never dispatched"
                                 : absl::StrCat("idle after ", st.runs_done, " dispatch(es)"));
    } else if (st.waiting_group) {
      absl::StrAppend(&line, "dispatch ", st.callable, " waits for its group");
    } else {
      absl::StrAppend(&line, "dispatch ", st.callable, " (run ", st.runs_done, "): ",
                      st.tasks - st.tasks_done, " of ", st.tasks, " tasks pending");
    }
    int twait = 0, spin = 0, run = 0;
    std::set<std::string> cells;
    for (const Wait& w : waits_[c]) {
      if (w.spinning) {
        ++spin;
      } else if (w.cell != 0) {
        ++twait;
        cells.insert(sys_.CellName(w.cell));
      } else {
        ++run;
      }
    }
    if (twait > 0) {
      absl::StrAppend(&line, "; ", twait, " block(s) in TWAIT on ", absl::StrJoin(cells, ", "));
    }
    if (spin > 0) absl::StrAppend(&line, "; ", spin, " block(s) spinning");
    if (run > 0) absl::StrAppend(&line, "; ", run, " block(s) running");
    if (!st.sync_waiting.empty()) {
      absl::StrAppend(&line, "; ", st.sync_waiting.size(), " sync-start task(s) wait for cores");
    }
    if (st.queued > 0) absl::StrAppend(&line, "; ", st.queued, " dispatch(es) queued");
    return line;
  }

  // A cycle of blocked-elsewhere edges: the smallest rank on one, then the
  // smallest successor each step; empty when there is none.
  std::vector<int> FindCycle() const {
    for (int start = 0; start < n_; ++start) {
      std::vector<int> path = {start};
      std::set<int> seen = {start};
      int cur = start;
      while (edges_.count(cur)) {
        const int next = *edges_.at(cur).begin();
        if (next == start) return path;
        if (seen.count(next)) break;
        seen.insert(next);
        path.push_back(next);
        cur = next;
      }
    }
    return {};
  }

  std::string SyncCause() const {
    for (int c = 0; c < n_; ++c) {
      if (state_[c].sync_waiting.empty()) continue;
      const auto& s = state_[c].sync_waiting.front();
      return absl::StrCat("sync-start launch over capacity: rank ", c, " task ", s.task, " needs ",
                          s.blocks, " ", s.aic ? "AIC" : "AIV",
                          " cores at once while blocks of other tasks hold some and wait");
    }
    return "";
  }

  std::string CycleCause(const std::vector<int>& cycle) const {
    std::vector<std::string> hops;
    for (int c : cycle) {
      std::set<std::string> on;
      for (const Wait& w : waits_[c]) {
        if (w.cell != 0) on.insert(sys_.CellName(w.cell));
      }
      hops.push_back(absl::StrCat("rank ", c, " (waits on ", absl::StrJoin(on, ", "), ")"));
    }
    return absl::StrCat("wait-for cycle: ", absl::StrJoin(hops, " -> "), " -> rank ", cycle[0],
                        ": the ranks wait for each other at different signals (e.g. "
                        "collectives called in different orders)");
  }

  std::string MissingNotifierCause() const {
    std::vector<std::string> parts;
    if (!never_dispatched_.empty()) {
      parts.push_back(absl::StrCat(RankList(never_dispatched_), " never dispatched"));
    }
    if (!finished_.empty()) {
      parts.push_back(absl::StrCat(RankList(finished_), " finished without notifying"));
    }
    if (!passed_notify_.empty()) {
      parts.push_back(absl::StrCat(RankList(passed_notify_),
                                   " reached the wait without notifying (a missing notify)"));
    }
    return absl::StrCat("missing notifier: ", RankList(waiting_on_missing_),
                        " wait for signals that nobody will send: ", absl::StrJoin(parts, "; "));
  }

  // The error ended the run before anyone blocked on the failed rank; on a
  // board its peers would now wait for it.
  std::string FatalCause() const {
    std::set<int> busy;
    for (int c = 0; c < n_; ++c) {
      if (c != sys_.fatal_chip_ && state_[c].running && state_[c].tasks_done < state_[c].tasks) {
        busy.insert(c);
      }
    }
    std::string cause =
        absl::StrCat("rank ", sys_.fatal_chip_, " stopped the run with code ", sys_.error_code_);
    if (!busy.empty()) {
      absl::StrAppend(&cause, " while ", RankList(busy), " still had tasks in flight");
    }
    return cause;
  }

  // The cause, most specific first.
  std::string Cause() const {
    const std::vector<int> cycle = FindCycle();
    const std::string sync_cause = SyncCause();
    std::string cause;
    if (!lost_update_.empty()) {
      cause = lost_update_;
    } else if (!spinning_.empty()) {
      cause = absl::StrCat("livelock: ", absl::StrJoin(spinning_, ", "),
                           " spun without progress past ",
                           first_spinner_->deadline_text());
    } else if (!cycle.empty()) {
      cause = CycleCause(cycle);
    } else if (!pipe_waits_.empty()) {
      // Nothing else blocks: the pipe's other end has finished or waits too.
      cause = absl::StrCat("deadlock through a cross-core pipe: ",
                           absl::StrJoin(pipe_waits_, "; "));
    } else if (!stopped_.empty()) {
      cause = absl::StrCat(RankList(waiting_on_missing_), " wait for notifies from ",
                           RankList(stopped_), ", which stopped on the error");
    } else if (!sync_cause.empty()) {
      cause = sync_cause;
    } else if (!never_dispatched_.empty() || !finished_.empty() || !passed_notify_.empty()) {
      cause = MissingNotifierCause();
    } else if (!wrong_expected_.empty()) {
      cause = absl::StrCat("wrong expected value: ", wrong_expected_.front(),
                           wrong_expected_.size() > 1
                               ? absl::StrCat(" (and ", wrong_expected_.size() - 1, " more)")
                               : "");
    }
    if (cause.empty() && sys_.fatal_chip_ >= 0) cause = FatalCause();
    return cause;
  }

  const SimSystem& sys_;
  RunReport* r_;
  const int n_;
  std::vector<std::string> pipe_waits_;  // wait-for lines of blocked TPUSH / TPOP
  std::vector<Aicpu::State> state_;
  std::vector<std::vector<Wait>> waits_;
  // Wait-for graph: rank -> ranks it waits for that are blocked elsewhere.
  std::map<int, std::set<int>> edges_;
  std::set<int> never_dispatched_, finished_, stopped_, passed_notify_;
  std::set<int> waiting_on_missing_;  // ranks blocked on a missing notifier
  std::vector<std::string> wrong_expected_, spinning_;
  const ChipCore* first_spinner_ = nullptr;
  std::string lost_update_;  // a waited cell whose update a line write-back reverted
};

void SimSystem::DiagnoseHang(RunReport* r) const { HangDiagnosis(*this, r).Run(); }

}  // namespace pto::sim
