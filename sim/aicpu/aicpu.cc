#include "sim/aicpu/aicpu.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "sim/common/sc_time.h"

namespace pto::sim {
namespace {

// Ready queues by core shape: AIV, AIC and MIX (a whole 1C2V cluster).
int ShapeSlot(rt::CoreShape s) {
  switch (s) {
    case rt::CoreShape::kAiv:
      return 0;
    case rt::CoreShape::kAic:
      return 1;
    case rt::CoreShape::kMix:
      return 2;
  }
  return 0;
}
const char* ShapeName(int slot) { return slot == 0 ? "AIV" : slot == 1 ? "AIC" : "MIX"; }

// The cores one block of `t` occupies.
int CoresPerBlock(const rt::Task& t) {
  if (t.shape != rt::CoreShape::kMix) return 1;
  return 1 + (t.mix.aiv0 >= 0 ? 1 : 0) + (t.mix.aiv1 >= 0 ? 1 : 0);
}

}  // namespace

Aicpu::Aicpu(sc_core::sc_module_name name, int chip, const platforms::Platform& platform,
             Gm* gm, std::vector<ChipCore*> aiv, std::vector<ChipCore*> aic,
             RunObserver* observer, Trace* trace)
    : sc_core::sc_module(name),
      p_(platform),
      chip_(chip),
      gm_(gm),
      aiv_(std::move(aiv)),
      aic_(std::move(aic)),
      observer_(observer),
      trace_(trace) {
  const std::string proc = absl::StrCat("chip ", chip);
  track_orch_ = trace_->AddTrack(chip, proc, "AICPU orchestrator");
  for (uint32_t i = 0; i < p_.aicpu().scheduler_threads(); ++i) {
    track_sched_.push_back(
        trace_->AddTrack(chip, proc, absl::StrCat("AICPU scheduler ", i)));
  }
  sched_busy_.assign(p_.aicpu().scheduler_threads(), 0);
  free_[0].assign(aiv_.size(), true);
  free_[1].assign(aic_.size(), true);
  SC_THREAD(Orchestrate);
  set_stack_size(512 * 1024);  // chip orchestration code runs here
  SC_THREAD(Schedule);
}

void Aicpu::WaitPs(Ps d) {
  if (d <= 0) return;
  observer_->CountWait();
  wait(PsTime(d));
}

void Aicpu::set_urma(UrmaEngine* u) {
  urma_ = u;
  u->set_on_cqe([this] { sched_event_.notify(sc_core::SC_ZERO_TIME); });
}

void Aicpu::Enqueue(DispatchEntry entry) {
  fifo_.push_back(std::move(entry));
  ++fifo_entries_;
  fifo_max_ = std::max<int64_t>(fifo_max_, fifo_.size());
  fifo_event_.notify(sc_core::SC_ZERO_TIME);
}

bool Aicpu::Idle() const { return fifo_.empty() && !running_; }

int Aicpu::kernel_count() const {
  return static_cast<int>(current_.callable.kernels.size());
}

int Aicpu::ShapeIndex(const ChipCore* core) const {
  // Flattened ids: AIC [0, B), AIV [B, 3B) (runtime-and-sim.md §1.8).
  return core->is_aic() ? core->core_id()
                        : core->core_id() - static_cast<int>(aic_.size());
}

int Aicpu::SchedThread(const ChipCore* core) const {
  // A cluster (1 AIC + 2 AIV) is never split across scheduler threads.
  const int idx = ShapeIndex(core);
  const int cluster = core->is_aic() ? idx : idx / 2;
  return cluster % static_cast<int>(sched_busy_.size());
}

Ps Aicpu::FirstTaskHead(const ChipCore* core) const {
  // Spread the measured 2.3-3.9 us cold head deterministically over cores.
  const int n = static_cast<int>(core->is_aic() ? aic_.size() : aiv_.size());
  const double frac = n > 1 ? static_cast<double>(ShapeIndex(core)) / (n - 1)
                            : 0.0;
  return NsToPs(p_.aicpu().first_task_min_ns() +
                frac * (p_.aicpu().first_task_max_ns() -
                        p_.aicpu().first_task_min_ns()));
}

void Aicpu::Orchestrate() {
  while (true) {
    while (fifo_.empty()) wait(fifo_event_);
    current_ = std::move(fifo_.front());
    fifo_.pop_front();
    running_ = true;
    const Ps t0 = Stamp();
    WaitPs(NsToPs(p_.host().dispatch_round_trip_ns()));
    if (current_.group != nullptr) {
      GroupGate& g = *current_.group;
      if (races_ != nullptr) JoinClock(g.clock, chip_clock_);
      if (++g.arrived == g.members) {
        g.all_arrived.notify(sc_core::SC_ZERO_TIME);
      } else {
        waiting_group_ = true;
        wait(g.all_arrived);
        waiting_group_ = false;
      }
      if (races_ != nullptr) JoinClock(chip_clock_, g.clock);
    }
    trace_->Slice(track_orch_, "L3->L2 dispatch", t0, Stamp(),
                  {{"callable", current_.callable.name}, {"run", run_index_}});
    log_ = LogLines();  // keeps the previous run's lines before its core goes
    core_ = std::make_unique<rt::OrchestratorCore>(this,
                                                   p_.aicpu().task_window());
    core_run_ = run_index_;
    times_.clear();
    task_start_.clear();
    task_end_.clear();
    const Ps start = Stamp();
    core_->RunEntry(current_.callable, current_.args);
    trace_->Slice(track_orch_, current_.callable.name, start, Stamp(),
                  {{"callable", current_.callable.name}, {"run", run_index_},
                   {"tasks", static_cast<int64_t>(core_->task_count())}});
    while (!core_->all_complete() && !core_->is_fatal()) {
      wait(completion_event_);
    }
    times_.resize(core_->task_count());
    for (const VectorClock& c : task_end_) JoinClock(chip_clock_, c);
    for (size_t i = 0; i < core_->task_count(); ++i) {
      const rt::Task& t = *core_->task(static_cast<rt::TaskId>(i));
      TaskStat s;
      s.set_chip(chip_);
      s.set_run(run_index_);
      s.set_task(t.id);
      s.set_kernel(t.dummy ? std::string("dummy")
                   : static_cast<size_t>(t.func_id) < current_.callable.kernel_names.size()
                       ? current_.callable.kernel_names[t.func_id]
                       : absl::StrCat("kernel", t.func_id));
      s.set_blocks(t.core_num);
      s.set_ready_ps(times_[i].ready);
      s.set_start_ps(times_[i].start);
      s.set_end_ps(times_[i].end);
      task_stats_.push_back(s);
    }
    ++run_index_;
    if (core_->is_fatal()) return;  // the run ends; the system reports
    running_ = false;
  }
}

std::vector<std::string> Aicpu::LogLines() const {
  std::vector<std::string> lines = log_;
  if (core_ != nullptr) {
    for (const std::string& line : core_->log()) {
      lines.push_back(absl::StrCat("c", chip_, " run", core_run_, ": ", line));
    }
  }
  return lines;
}

absl::StatusOr<uint64_t> Aicpu::AllocGm(uint64_t bytes) {
  return gm_->Alloc(bytes, absl::StrCat("run", run_index_, " output t",
                                        core_->task_count()));
}

void Aicpu::ChargeSubmit() { WaitPs(NsToPs(p_.aicpu().submit_ns())); }

void Aicpu::OnReady(rt::Task* task) {
  if (times_.size() <= static_cast<size_t>(task->id)) {
    times_.resize(task->id + 1);
  }
  times_[task->id].ready = Stamp();
  if (races_ != nullptr) {
    const size_t id = static_cast<size_t>(task->id);
    if (task_start_.size() <= id) task_start_.resize(id + 1);
    if (task_end_.size() <= id) task_end_.resize(id + 1);
    task_start_[id] = chip_clock_;
    for (rt::TaskId f : task->fanin) {
      if (static_cast<size_t>(f) < task_end_.size()) JoinClock(task_start_[id], task_end_[f]);
    }
  }
  if (task->dummy) {
    // simpler routes a dummy task to its DUMMY queue and completes it inline:
    // the scheduler retires it without a core.
    dummy_ready_.push_back(task);
    sched_event_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  const int s = ShapeSlot(task->shape);
  if (task->shape == rt::CoreShape::kMix && task->sync_start) {
    core_->report_fatal(rt::kErrorInvalidArgs,
                        absl::StrCat("task ", task->id,
                                     ": require_sync_start on a MIX task is not modelled (each "
                                     "MIX block starts its cluster's cores together)"));
    return;
  }
  (task->sync_start ? sync_queue_[s] : ready_queue_[s]).push_back(task);
  ++ready_entries_[s];
  ready_max_[s] = std::max<int64_t>(
      ready_max_[s], sync_queue_[s].size() + ready_queue_[s].size());
  sched_event_.notify(sc_core::SC_ZERO_TIME);
}

bool Aicpu::WaitForCompletion(double timeout_ns) {
  const uint64_t before = completion_count_;
  observer_->CountWait();
  wait(PsTime(NsToPs(timeout_ns)), completion_event_);
  return completion_count_ != before;
}

double Aicpu::NowNs() const { return Stamp() / 1000.0; }

void Aicpu::ReadMemory(uint64_t addr, void* out, uint64_t bytes) {
  WaitPs(gm_->latency());
  // Timing-only mode: what the orchestrator reads steers it, so it must not
  // be bytes only a DMA wrote (docs/simulator.md).
  if (gm_->HoldsPayload(addr, bytes) && core_ != nullptr) {
    core_->report_fatal(rt::kErrorAicoreFault,
                        absl::StrCat("timing-only mode: get_tensor_data of ", bytes,
                                     " bytes at ", gm_->Describe(addr),
                                     " reads bytes only a DMA wrote; run in full mode"));
  }
  std::memcpy(out, reinterpret_cast<const void*>(addr), bytes);
}

void Aicpu::WriteMemory(uint64_t addr, const void* in, uint64_t bytes) {
  WaitPs(gm_->latency());
  std::memcpy(reinterpret_cast<void*>(addr), in, bytes);
  gm_->MarkReal(addr, bytes);
  gm_->NotifyWrite();
}

void Aicpu::OnFatal(const rt::ErrorLatch& latch) {
  observer_->OnFatal(chip_, latch);
}

void Aicpu::KernelError(ChipCore*, int code, const std::string& msg) {
  if (core_ != nullptr) core_->report_fatal(code, msg);
}

void Aicpu::BlockDone(ChipCore* core) {
  if (races_ != nullptr) {
    const size_t id = static_cast<size_t>(core->block().task);
    if (task_end_.size() <= id) task_end_.resize(id + 1);
    JoinClock(task_end_[id], races_->Clock(core->race_agent()));
  }
  std::vector<uint64_t> deferred = core->TakeDeferred();
  if (!deferred.empty()) {
    std::vector<uint64_t>& d = times_[core->block().task].deferred;
    d.insert(d.end(), deferred.begin(), deferred.end());
    if (d.size() > 64 && core_ != nullptr) {
      core_->report_fatal(rt::kErrorAsyncWaitOverflow,
                          absl::StrCat("task ", core->block().task, " has ",
                                       d.size(),
                                       " completion conditions (max 64)"));
    }
  }
  // The scheduler sees FIN through COND after the measured latency.
  const Ps completion = NsToPs(p_.aicpu().completion_ns());
  completions_.push_back(
      Completion{Stamp() + completion, core, core->block().task});
  sched_event_.notify(PsTime(completion));
}

void Aicpu::Schedule() {
  while (true) {
    wait(sched_event_);
    if (core_ == nullptr) continue;
    ProcessCompletions();
    PollDeferred();
    CompleteDummies();
    Dispatch();
  }
}

void Aicpu::ProcessCompletions() {
  const Ps now = Stamp();
  std::vector<Completion> later;
  for (const Completion& c : completions_) {
    if (c.visible > now) {
      later.push_back(c);
      continue;
    }
    // Reading COND is an MMIO LDR on the owning scheduler thread.
    const int thr = SchedThread(c.core);
    const Ps t0 = std::max(sched_busy_[thr], c.visible);
    sched_busy_[thr] = t0 + NsToPs(p_.aicpu().reg_read_ns());
    trace_->Slice(track_sched_[thr], "COND", t0, sched_busy_[thr],
                  {{"task", static_cast<int64_t>(c.task)}, {"core", c.core->core_name()}});
    free_[c.core->is_aic() ? 1 : 0][ShapeIndex(c.core)] = true;
    rt::Task* t = core_->task(c.task);
    // A MIX block is done when every core of its cluster is.
    const int per = CoresPerBlock(*t);
    if (per > 1 && ++times_[t->id].cores_done % per != 0) continue;
    if (++t->blocks_done == t->core_num) {
      if (times_[t->id].deferred.empty()) {
        CompleteTask(t, c.visible - NsToPs(p_.aicpu().completion_ns()));
      } else {
        deferred_tasks_.push_back(t->id);
      }
    }
  }
  completions_ = std::move(later);
  if (!completions_.empty()) {
    Ps next = completions_.front().visible;
    for (const Completion& c : completions_) next = std::min(next, c.visible);
    sched_event_.notify(PsTime(next - now));
  }
}

void Aicpu::CompleteTask(rt::Task* t, Ps end) {
  times_[t->id].end = end;
  core_->OnTaskComplete(t->id);
  ++completion_count_;
  completion_event_.notify(sc_core::SC_ZERO_TIME);
}

void Aicpu::CompleteDummies() {
  // Completing one may make another ready (a chain of fences): drain.
  while (!dummy_ready_.empty()) {
    rt::Task* t = dummy_ready_.front();
    dummy_ready_.pop_front();
    const Ps now = std::max(Stamp(), sched_busy_[0]);
    times_[t->id].start = now;
    if (races_ != nullptr) {
      // It runs nothing: its consumers are ordered after its producers.
      const size_t id = static_cast<size_t>(t->id);
      if (task_end_.size() <= id) task_end_.resize(id + 1);
      task_end_[id] = task_start_[id];
    }
    trace_->Slice(track_sched_[0], absl::StrCat("dummy t", t->id), now, now,
                  {{"task", static_cast<int64_t>(t->id)}});
    CompleteTask(t, now);
  }
}

void Aicpu::PollDeferred() {
  // Scheduler thread 0 polls the CQs: one CQ-context read per condition.
  std::vector<rt::TaskId> still;
  for (rt::TaskId id : deferred_tasks_) {
    std::vector<uint64_t>& conds = times_[id].deferred;
    std::vector<uint64_t> pending;
    for (uint64_t h : conds) {
      const Ps t0 = std::max(sched_busy_[0], Stamp());
      sched_busy_[0] = t0 + NsToPs(p_.aicpu().reg_read_ns());
      trace_->Slice(track_sched_[0], "poll CQ", t0, sched_busy_[0],
                    {{"task", static_cast<int64_t>(id)}});
      std::string error;
      UrmaEngine::Poll r = urma_ == nullptr ? UrmaEngine::Poll::kError
                                            : urma_->PollHandle(h, &error);
      if (r == UrmaEngine::Poll::kError) {
        core_->report_fatal(rt::kErrorAsyncCompletionInvalid,
                            absl::StrCat("task ", id, ": ",
                                         error.empty() ? "no URMA engine" : error));
        return;
      }
      if (r == UrmaEngine::Poll::kPending) pending.push_back(h);
    }
    conds = std::move(pending);
    if (conds.empty()) {
      CompleteTask(core_->task(id), sched_busy_[0]);
    } else {
      still.push_back(id);
    }
  }
  deferred_tasks_ = std::move(still);
}

void Aicpu::DispatchBlock(rt::Task* t, ChipCore* core, int block,
                          Ps* start_at) {
  const int thr = SchedThread(core);
  const Ps t0 = std::max(Stamp(), sched_busy_[thr]);
  const Ps visible = t0 + NsToPs(p_.aicpu().dispatch_ns());
  sched_busy_[thr] = visible;
  trace_->Slice(track_sched_[thr], absl::StrCat("dispatch t", t->id), t0, visible,
                {{"task", static_cast<int64_t>(t->id)},
                 {"kernel", static_cast<size_t>(t->func_id) < current_.callable.kernel_names.size()
                                ? current_.callable.kernel_names[t->func_id]
                                : absl::StrCat("kernel", t->func_id)},
                 {"block", block},
                 {"core", core->core_name()}});
  const Ps head = core->warm() ? NsToPs(p_.aicpu().steady_task_ns())
                               : FirstTaskHead(core);
  *start_at = std::max(*start_at, visible + head);
  free_[core->is_aic() ? 1 : 0][ShapeIndex(core)] = false;
  ++t->blocks_dispatched;
  (void)block;
}

BlockAssignment Aicpu::BlockOf(const rt::Task* t, int b, int func_id, int cluster) const {
  BlockAssignment a;
  a.kernel = current_.callable.kernels[func_id];
  a.kernel_name = func_id < static_cast<int>(current_.callable.kernel_names.size())
                      ? current_.callable.kernel_names[func_id]
                      : absl::StrCat("kernel", func_id);
  a.task = t->id;
  a.block_idx = b;
  a.block_num = t->core_num;
  for (const TensorDesc& d : t->descs) a.tensors.push_back(&d);
  a.scalars = t->scalars;
  if (races_ != nullptr) a.start_clock = task_start_[t->id];
  a.cluster = cluster;
  return a;
}

void Aicpu::DispatchMix() {
  // simpler's order: MIX before the single-core shapes. A block takes a
  // cluster whose AIC and used AIV lanes are all idle; its cores start
  // together (they talk through the cluster's pipes).
  std::deque<rt::Task*>& q = ready_queue_[2];
  while (!q.empty()) {
    rt::Task* t = q.front();
    const int lanes[2] = {t->mix.aiv0, t->mix.aiv1};
    for (size_t i = 0; i < aic_.size() && t->blocks_dispatched < t->core_num; ++i) {
      bool free = free_[1][i];
      for (int l = 0; l < 2; ++l) {
        if (lanes[l] >= 0) free = free && 2 * i + l < aiv_.size() && free_[0][2 * i + l];
      }
      if (!free) continue;
      const int b = t->blocks_dispatched;
      std::vector<std::pair<ChipCore*, int>> cores = {{aic_[i], t->mix.aic}};
      for (int l = 0; l < 2; ++l) {
        if (lanes[l] >= 0) cores.push_back({aiv_[2 * i + l], lanes[l]});
      }
      Ps start_at = 0;
      for (auto& [c, f] : cores) {
        DispatchBlock(t, c, b, &start_at);
        --t->blocks_dispatched;  // one block, several cores
      }
      ++t->blocks_dispatched;
      for (auto& [c, f] : cores) c->Start(BlockOf(t, b, f, static_cast<int>(i)), start_at);
      if (times_[t->id].start < 0) times_[t->id].start = start_at;
    }
    if (t->blocks_dispatched < t->core_num) break;  // waits for a cluster
    q.pop_front();
  }
}

void Aicpu::Dispatch() {
  if (core_->is_fatal()) return;
  DispatchMix();
  for (rt::CoreShape shape : {rt::CoreShape::kAiv, rt::CoreShape::kAic}) {
    const int s = ShapeSlot(shape);
    std::vector<ChipCore*>& cores = CoresOf(shape);
    auto idle = [&] {
      std::vector<ChipCore*> out;
      for (size_t i = 0; i < cores.size(); ++i) {
        if (free_[s][i]) out.push_back(cores[i]);
      }
      return out;
    };
    auto block_of = [&](rt::Task* t, int b) { return BlockOf(t, b, t->func_id, -1); };
    // Tier 0: a sync-start task takes all its cores at once or waits; while
    // it waits, regular tasks of the shape do not take cores (drain).
    bool draining = false;
    while (!sync_queue_[s].empty()) {
      rt::Task* t = sync_queue_[s].front();
      std::vector<ChipCore*> free_cores = idle();
      if (static_cast<int>(free_cores.size()) < t->core_num) {
        draining = true;
        break;
      }
      Ps start_at = 0;
      for (int b = 0; b < t->core_num; ++b) {
        DispatchBlock(t, free_cores[b], b, &start_at);
      }
      // One launch latch rings every gated core together.
      for (int b = 0; b < t->core_num; ++b) {
        free_cores[b]->Start(block_of(t, b), start_at);
      }
      if (times_[t->id].start < 0) times_[t->id].start = start_at;
      sync_queue_[s].pop_front();
    }
    if (draining) continue;
    while (!ready_queue_[s].empty()) {
      std::vector<ChipCore*> free_cores = idle();
      if (free_cores.empty()) break;
      rt::Task* t = ready_queue_[s].front();
      for (ChipCore* c : free_cores) {
        if (t->blocks_dispatched == t->core_num) break;
        const int b = t->blocks_dispatched;
        Ps start_at = 0;
        DispatchBlock(t, c, b, &start_at);
        c->Start(block_of(t, b), start_at);
        if (times_[t->id].start < 0) times_[t->id].start = start_at;
      }
      if (t->blocks_dispatched == t->core_num) ready_queue_[s].pop_front();
    }
  }
}

void Aicpu::FillQueueStats(RunReport* r) const {
  ResourceStat* f = r->add_queues();
  f->set_name(absl::StrCat("dispatch fifo c", chip_));
  f->set_transfers(fifo_entries_);
  f->set_max_occupancy(fifo_max_);
  for (int s = 0; s < 3; ++s) {
    if (s == 2 && ready_entries_[s] == 0) continue;  // no MIX task ran
    ResourceStat* q = r->add_queues();
    q->set_name(absl::StrCat("ready ", ShapeName(s), " c", chip_));
    q->set_transfers(ready_entries_[s]);
    q->set_max_occupancy(ready_max_[s]);
  }
}

std::vector<std::string> Aicpu::DescribeState() const {
  std::vector<std::string> out;
  if (running_ && core_ != nullptr) {
    if (waiting_group_) {
      out.push_back(absl::StrCat("chip ", chip_, " orchestrator: callable ",
                                 current_.callable.name,
                                 " waits for the other members of its group"));
    } else if (!core_->all_complete()) {
      size_t done = 0;
      for (size_t i = 0; i < core_->task_count(); ++i) {
        if (const_cast<rt::OrchestratorCore&>(*core_)
                .task(static_cast<rt::TaskId>(i))
                ->state == rt::TaskState::kCompleted) {
          ++done;
        }
      }
      out.push_back(absl::StrCat("chip ", chip_, " orchestrator: callable ",
                                 current_.callable.name, " waits for ",
                                 core_->task_count() - done, " of ",
                                 core_->task_count(), " tasks"));
    }
    for (rt::TaskId id : deferred_tasks_) {
      out.push_back(absl::StrCat("chip ", chip_, " task ", id, " waits for ",
                                 times_[id].deferred.size(),
                                 " URMA completions"));
    }
    for (int s = 0; s < 2; ++s) {
      for (const rt::Task* t : sync_queue_[s]) {
        out.push_back(absl::StrCat("chip ", chip_, " task ", t->id,
                                   " (sync start, ", t->core_num,
                                   " blocks) waits for idle ",
                                   s == 0 ? "AIV" : "AIC", " cores"));
      }
    }
    for (const rt::Task* t : ready_queue_[2]) {
      out.push_back(absl::StrCat("chip ", chip_, " MIX task ", t->id, " has ",
                                 t->core_num - t->blocks_dispatched, " of ", t->core_num,
                                 " blocks waiting for an idle cluster"));
    }
  }
  if (!fifo_.empty()) {
    out.push_back(absl::StrCat("chip ", chip_, ": ", fifo_.size(),
                               " dispatches queued behind the current one"));
  }
  return out;
}

Aicpu::State Aicpu::state() const {
  State st;
  st.running = running_;
  st.waiting_group = running_ && waiting_group_;
  st.runs_done = run_index_;
  st.queued = static_cast<int>(fifo_.size());
  if (running_) {
    st.callable = current_.callable.name;
    if (core_ != nullptr && !waiting_group_) {
      auto& core = const_cast<rt::OrchestratorCore&>(*core_);
      st.tasks = static_cast<int64_t>(core.task_count());
      for (size_t i = 0; i < core.task_count(); ++i) {
        if (core.task(static_cast<rt::TaskId>(i))->state == rt::TaskState::kCompleted) {
          ++st.tasks_done;
        }
      }
    }
    for (int s = 0; s < 2; ++s) {
      for (const rt::Task* t : sync_queue_[s]) {
        st.sync_waiting.push_back({t->id, t->core_num, s == 1});
      }
    }
  }
  return st;
}

}  // namespace pto::sim
