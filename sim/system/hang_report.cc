// Hang diagnosis: when a run ends with blocked agents (a deadlock, a
// livelock cut by the op timeout, or a fatal error that left peers waiting),
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

std::string Who(const AivCore& c) {
  const BlockAssignment& b = c.block();
  return absl::StrCat("rank ", c.chip(), " ", c.is_aic() ? "AIC" : "AIV", c.core_id(), " task ",
                      b.task, " block ", b.block_idx, "/", b.block_num, " (kernel ", b.kernel_name,
                      ")");
}

// What one blocked agent waits on.
struct Wait {
  const AivCore* core = nullptr;
  uint64_t cell = 0;        // 0: not a signal wait
  bool spinning = false;    // scalar reads past the op timeout
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

void SimSystem::DiagnoseHang(RunReport* r) const {
  const int n = static_cast<int>(chips_.size());
  std::vector<Aicpu::State> state(n);
  std::vector<std::vector<Wait>> waits(n);
  for (int c = 0; c < n; ++c) {
    state[c] = chips_[c]->aicpu().state();
    for (const auto& core : chips_[c]->cores()) {
      if (core->timed_out()) {
        Wait w;
        w.core = core.get();
        w.spinning = true;
        w.cell = core->last_scalar_read();
        waits[c].push_back(w);
      } else if (core->busy()) {
        Wait w;
        w.core = core.get();
        if (core->wait_signal() != nullptr) w.cell = reinterpret_cast<uint64_t>(core->wait_signal());
        waits[c].push_back(w);
      }
    }
  }
  bool any = fatal_chip_ >= 0;
  for (int c = 0; c < n; ++c) any = any || !waits[c].empty() || !state[c].sync_waiting.empty();
  if (!any) return;

  // The ranks each signal wait waits for.
  for (int c = 0; c < n; ++c) {
    for (Wait& w : waits[c]) {
      if (w.cell == 0) continue;
      const int owner = OwnerChip(w.cell, 4);
      if (owner < 0) continue;
      const DomainBuffer* b = FindBuffer(w.cell);
      if (b == nullptr) continue;
      const std::set<int> writers = chips_[owner]->gm().CellWriters(w.cell);
      if (!writers.empty()) {
        for (int d : b->devices) {
          if (!writers.count(d)) w.awaited.insert(d);
        }
        w.all_wrote = w.awaited.empty();
        continue;
      }
      // Nobody wrote it: whoever wrote this slot on the other ranks.
      const uint64_t off = w.cell - b->addr;
      for (const DomainBuffer& peer : domain_buffers_) {
        if (peer.domain != b->domain || peer.buffer != b->buffer || peer.rank == b->rank) continue;
        if (off >= peer.bytes) continue;
        const int po = OwnerChip(peer.addr + off, 4);
        if (po < 0) continue;
        for (int d : chips_[po]->gm().CellWriters(peer.addr + off)) w.awaited.insert(d);
      }
    }
  }

  // Same (domain, buffer, slot) as `w`, on any rank's window.
  auto same_slot = [&](const Wait& a, const Wait& b) {
    const DomainBuffer* x = FindBuffer(a.cell);
    const DomainBuffer* y = FindBuffer(b.cell);
    return x != nullptr && y != nullptr && x->domain == y->domain && x->buffer == y->buffer &&
           a.cell - x->addr == b.cell - y->addr;
  };

  // Wait-for lines, and the rank graph.
  std::map<int, std::set<int>> edges;          // rank -> ranks it waits for, blocked elsewhere
  std::set<int> never_dispatched, finished, stopped, passed_notify;
  std::set<int> waiting_on_missing;            // ranks blocked on a missing notifier
  std::vector<std::string> wrong_expected, spinning;
  std::string lost_update;  // a waited cell whose update a line write-back reverted
  for (int c = 0; c < n; ++c) {
    for (const Wait& w : waits[c]) {
      const AivCore& core = *w.core;
      std::string line = Who(core);
      if (w.spinning) {
        absl::StrAppend(&line, ": spun past the op timeout (", core.scalar_reads(),
                        " scalar GM reads");
        if (w.cell != 0) {
          int32_t v = 0;
          std::memcpy(&v, reinterpret_cast<const void*>(w.cell), 4);
          absl::StrAppend(&line, ", the last of ", CellName(w.cell), ", which holds ", v);
        }
        absl::StrAppend(&line, ")");
        spinning.push_back(absl::StrCat("rank ", c, " ", core.is_aic() ? "AIC" : "AIV",
                                        core.core_id(), " (kernel ", core.block().kernel_name,
                                        ")"));
      } else if (core.waiting_sq()) {
        absl::StrAppend(&line, ": waits for space in a full URMA send queue");
      } else if (w.cell == 0) {
        absl::StrAppend(&line, ": running");
      } else {
        absl::StrAppend(&line, ": TWAIT on ", CellName(w.cell), " expects ",
                        WaitCmpName(core.wait_cmp()), " ", core.wait_value(), ", holds ",
                        *core.wait_signal());
      }
      const CellWrite* last = nullptr;
      if (w.cell != 0) {
        const int owner = OwnerChip(w.cell, 4);
        last = owner >= 0 ? chips_[owner]->gm().LastCellWrite(w.cell) : nullptr;
        absl::StrAppend(&line, "; last write: ",
                        last != nullptr ? WriterText(*last) : "none (never notified)");
        if (last != nullptr && last->line_writeback && lost_update.empty()) {
          lost_update = absl::StrCat("lost update: rank ", c, " waits on ", CellName(w.cell),
                                     " for ", WaitCmpName(core.wait_cmp()), " ",
                                     core.wait_value(), ", but ", WriterText(*last));
        }
      }
      if (w.all_wrote) {
        absl::StrAppend(&line, "; every rank of its domain has notified it");
        wrong_expected.push_back(absl::StrCat("rank ", c, " waits on ", CellName(w.cell), " for ",
                                              WaitCmpName(core.wait_cmp()), " ", core.wait_value(),
                                              ", but every rank of its domain notified it and it "
                                              "holds ",
                                              *core.wait_signal()));
      } else if (last != nullptr && last->line_writeback) {
        // Its notifier did notify; the update was reverted (the cause).
      } else if (w.cell != 0 && !w.spinning) {
        if (w.awaited.empty()) {
          absl::StrAppend(&line, "; waits for: nobody notifies this slot on any rank");
        } else {
          std::vector<std::string> why;
          for (int a : w.awaited) {
            std::string s = absl::StrCat("rank ", a);
            const bool blocked_same =
                std::any_of(waits[a].begin(), waits[a].end(),
                            [&](const Wait& o) { return o.cell != 0 && same_slot(o, w); });
            if (a == fatal_chip_) {
              absl::StrAppend(&s, " (stopped by the error)");
              stopped.insert(a);
              waiting_on_missing.insert(c);
            } else if (!state[a].running && waits[a].empty()) {
              if (state[a].runs_done == 0) {
                absl::StrAppend(&s, " (never dispatched)");
                never_dispatched.insert(a);
              } else {
                absl::StrAppend(&s, " (finished ", state[a].runs_done,
                                " dispatch(es) without notifying)");
                finished.insert(a);
              }
              waiting_on_missing.insert(c);
            } else if (blocked_same) {
              absl::StrAppend(&s, " (reached this wait without notifying)");
              passed_notify.insert(a);
              waiting_on_missing.insert(c);
            } else {
              absl::StrAppend(&s, " (blocked elsewhere)");
              if (a != c) edges[c].insert(a);
            }
            why.push_back(s);
          }
          absl::StrAppend(&line, "; waits for: ", absl::StrJoin(why, ", "));
        }
      }
      r->add_wait_for(line);
    }
    for (const Aicpu::State::SyncWait& s : state[c].sync_waiting) {
      std::set<int64_t> holders;
      int held = 0;
      for (const auto& core : chips_[c]->cores()) {
        if (core->busy() && core->is_aic() == s.aic) {
          ++held;
          holders.insert(core->block().task);
        }
      }
      std::vector<std::string> hs;
      for (int64_t t : holders) hs.push_back(absl::StrCat(t));
      r->add_wait_for(absl::StrCat("rank ", c, " task ", s.task, " (sync start, ", s.blocks,
                                   " blocks): waits for ", s.blocks, " idle ",
                                   s.aic ? "AIC" : "AIV", " cores at once; ", held,
                                   " are held by task(s) ", absl::StrJoin(hs, ", ")));
    }
  }

  // One line per rank.
  for (int c = 0; c < n; ++c) {
    const Aicpu::State& st = state[c];
    std::string line = absl::StrCat("rank ", c, ": ");
    if (c == fatal_chip_) absl::StrAppend(&line, "stopped by the error; ");
    if (!st.running) {
      absl::StrAppend(&line, st.runs_done == 0 ? "never dispatched"
                                               : absl::StrCat("idle after ", st.runs_done,
                                                              " dispatch(es)"));
    } else if (st.waiting_group) {
      absl::StrAppend(&line, "dispatch ", st.callable, " waits for its group");
    } else {
      absl::StrAppend(&line, "dispatch ", st.callable, " (run ", st.runs_done, "): ",
                      st.tasks - st.tasks_done, " of ", st.tasks, " tasks pending");
    }
    int twait = 0, spin = 0, run = 0;
    std::set<std::string> cells;
    for (const Wait& w : waits[c]) {
      if (w.spinning) {
        ++spin;
      } else if (w.cell != 0) {
        ++twait;
        cells.insert(CellName(w.cell));
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
    r->add_rank_summary(line);
  }

  // The cause, most specific first.
  std::vector<int> cycle;
  {
    // Smallest rank on a cycle, then the smallest successor each step.
    for (int start = 0; start < n && cycle.empty(); ++start) {
      std::vector<int> path = {start};
      std::set<int> seen = {start};
      int cur = start;
      while (edges.count(cur)) {
        const int next = *edges[cur].begin();
        if (next == start) {
          cycle = path;
          break;
        }
        if (seen.count(next)) break;
        seen.insert(next);
        path.push_back(next);
        cur = next;
      }
    }
  }
  std::string sync_cause;
  for (int c = 0; c < n && sync_cause.empty(); ++c) {
    if (!state[c].sync_waiting.empty()) {
      const auto& s = state[c].sync_waiting.front();
      sync_cause = absl::StrCat("sync-start launch over capacity: rank ", c, " task ", s.task,
                                " needs ", s.blocks, " ", s.aic ? "AIC" : "AIV",
                                " cores at once while blocks of other tasks hold some and wait");
    }
  }
  std::string cause;
  if (!lost_update.empty()) {
    cause = lost_update;
  } else if (!spinning.empty()) {
    cause = absl::StrCat("livelock: ", absl::StrJoin(spinning, ", "),
                         " spun without progress past the op timeout of ",
                         platform_.timeouts().op_timeout_ns(), " ns of simulated time");
  } else if (!cycle.empty()) {
    std::vector<std::string> hops;
    for (int c : cycle) {
      std::set<std::string> on;
      for (const Wait& w : waits[c]) {
        if (w.cell != 0) on.insert(CellName(w.cell));
      }
      hops.push_back(absl::StrCat("rank ", c, " (waits on ", absl::StrJoin(on, ", "), ")"));
    }
    cause = absl::StrCat("wait-for cycle: ", absl::StrJoin(hops, " -> "), " -> rank ", cycle[0],
                         ": the ranks wait for each other at different signals (e.g. "
                         "collectives called in different orders)");
  } else if (!stopped.empty()) {
    cause = absl::StrCat(RankList(waiting_on_missing), " wait for notifies from ",
                         RankList(stopped), ", which stopped on the error");
  } else if (!sync_cause.empty()) {
    cause = sync_cause;
  } else if (!never_dispatched.empty() || !finished.empty() || !passed_notify.empty()) {
    std::vector<std::string> parts;
    if (!never_dispatched.empty()) {
      parts.push_back(absl::StrCat(RankList(never_dispatched), " never dispatched"));
    }
    if (!finished.empty()) {
      parts.push_back(absl::StrCat(RankList(finished), " finished without notifying"));
    }
    if (!passed_notify.empty()) {
      parts.push_back(absl::StrCat(RankList(passed_notify),
                                   " reached the wait without notifying (a missing notify)"));
    }
    cause = absl::StrCat("missing notifier: ", RankList(waiting_on_missing),
                         " wait for signals that nobody will send: ", absl::StrJoin(parts, "; "));
  } else if (!wrong_expected.empty()) {
    cause = absl::StrCat("wrong expected value: ", wrong_expected.front(),
                         wrong_expected.size() > 1
                             ? absl::StrCat(" (and ", wrong_expected.size() - 1, " more)")
                             : "");
  }
  if (cause.empty() && fatal_chip_ >= 0) {
    // The error ended the run before anyone blocked on the failed rank; on a
    // board its peers would now wait for it.
    std::set<int> busy;
    for (int c = 0; c < n; ++c) {
      if (c != fatal_chip_ && state[c].running && state[c].tasks_done < state[c].tasks) {
        busy.insert(c);
      }
    }
    cause = absl::StrCat("rank ", fatal_chip_, " stopped the run with code ", error_code_);
    if (!busy.empty()) absl::StrAppend(&cause, " while ", RankList(busy), " still had tasks in flight");
  }
  r->set_hang_cause(cause);
}

}  // namespace pto::sim
