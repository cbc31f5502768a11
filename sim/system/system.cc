#include "sim/system/system.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <tlm>

#include "absl/strings/str_cat.h"
#include "runtime/api/error_codes.h"
#include "runtime/core/domain.h"
#include "runtime/device/comm_context.h"
#include "platforms/platform.h"
#include "sim/common/sc_time.h"

namespace pto::sim {

absl::StatusOr<std::unique_ptr<SimSystem>> SimSystem::Create(
    const SimOptions& options) {
  absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform(options.platform);
  if (!p.ok()) return p.status();
  if (options.tweak) options.tweak(*p);
  absl::Status valid = platforms::ValidatePlatform(*p);
  if (!valid.ok()) return valid;
  if (options.chips < 1 ||
      options.chips > static_cast<int>(p->fabric().max_chips())) {
    return absl::InvalidArgumentError(
        absl::StrCat("platform '", p->name(), "' supports 1..",
                     p->fabric().max_chips(), " chips, not ", options.chips));
  }
  if (!(options.quantum_ns > 0)) {
    return absl::InvalidArgumentError("quantum_ns must be > 0");
  }
  if (sc_core::sc_is_running() || sc_core::sc_start_of_simulation_invoked()) {
    return absl::FailedPreconditionError(
        "SystemC already ran in this process; use RunIsolated");
  }
  tlm::tlm_global_quantum::instance().set(
      sc_core::sc_time(options.quantum_ns, sc_core::SC_NS));
  std::unique_ptr<SimSystem> s(new SimSystem(*p, options.trace));
  s->progress_ = options.progress;
  s->progress_slice_ns_ = options.progress_slice_ns > 0 ? options.progress_slice_ns : 10000;
  const int n = options.chips;
  for (int i = 0; i < n; ++i) {
    s->chips_.push_back(std::make_unique<Chip>(
        absl::StrCat("chip", i).c_str(), i, n, s->platform_, s.get(), s.get(),
        &s->trace_, options.timing_only, &s->gm_index_));
  }
  s->races_fail_ = options.races == SimOptions::RacePolicy::kFail;
  s->lost_updates_fail_ = options.lost_updates == SimOptions::LostUpdatePolicy::kFail;
  if (options.race_detection) {
    const int per_chip = static_cast<int>(s->chips_[0]->cores().size());
    SimSystem* raw = s.get();
    s->races_ = std::make_unique<RaceDetector>(
        n * per_chip, [raw](uint64_t addr) { return raw->Describe(addr); });
    for (auto& chip : s->chips_) {
      chip->aicpu().set_race_detector(s->races_.get());
      for (auto& core : chip->cores()) {
        core->set_race_detector(s->races_.get(), core->chip() * per_chip + core->core_id());
      }
    }
  }
  // The fabric's links draw on one trace process of their own.
  s->fabric_ = std::make_unique<Fabric>(s->platform_.fabric(), n, &s->trace_, /*trace_pid=*/1000);
  return s;
}

SimSystem::SimSystem(platforms::Platform platform, bool trace)
    : platform_(std::move(platform)), trace_(trace) {}

SimSystem::~SimSystem() = default;

int SimSystem::OwnerChip(uint64_t addr, uint64_t bytes) const {
  return gm_index_.Owner(addr, bytes);
}

std::string SimSystem::Describe(uint64_t addr) const {
  const int c = OwnerChip(addr, 1);
  if (c < 0) return "<not GM>";
  return chips_[c]->gm().Describe(addr);
}

absl::Status SimSystem::CheckDevice(int device) const {
  if (device < 0 || device >= device_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ", device, " out of range [0, ", device_count(), ")"));
  }
  return absl::OkStatus();
}

absl::Status SimSystem::CheckCallable(const rt::ChipCallable& c) const {
  if (!c.entry) {
    return absl::InvalidArgumentError(
        absl::StrCat("callable '", c.name, "' has no entry"));
  }
  for (size_t i = 0; i < c.kernels.size(); ++i) {
    if (c.kernels[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("callable '", c.name, "' kernel ", i, " is null"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<rt::Domain> SimSystem::CreateDomain(const rt::DomainSpec& spec) {
  absl::StatusOr<rt::DomainLayout> layout =
      rt::LayOutDomain(spec, device_count());
  if (!layout.ok()) return layout.status();
  const size_t n = spec.devices.size();
  rt::Domain dom;
  dom.name = spec.name;
  std::vector<uint64_t> windows;
  for (size_t r = 0; r < n; ++r) {
    absl::StatusOr<uint64_t> w = chips_[spec.devices[r]]->gm().Alloc(
        spec.window_size, absl::StrCat("window ", spec.name, " r", r));
    if (!w.ok()) return w.status();
    // Gm::Alloc returns zeroed memory (calloc): a window starts all-zero
    // without touching its pages, so a 128 MiB window costs only what the run
    // writes of it.
    windows.push_back(*w);
  }
  for (size_t r = 0; r < n; ++r) {
    const int dev = spec.devices[r];
    absl::StatusOr<uint64_t> ctx_addr = chips_[dev]->gm().Alloc(
        CommContextBytes(n), absl::StrCat("commctx ", spec.name, " r", r));
    if (!ctx_addr.ok()) return ctx_addr.status();
    rt::FillCommContext(reinterpret_cast<CommContext*>(*ctx_addr),
                        static_cast<uint32_t>(r), windows, spec.window_size);
    rt::ChipDomainContext c;
    c.domain_rank = static_cast<int>(r);
    c.domain_size = static_cast<int>(n);
    c.device = dev;
    c.device_ctx = rt::Tensor{*ctx_addr, 0, CommContextBytes(n), dev, 8};
    c.local_window_base = windows[r];
    c.window_size = spec.window_size;
    for (size_t b = 0; b < spec.buffers.size(); ++b) {
      c.buffers[spec.buffers[b].name] = rt::Tensor{
          windows[r], layout->buffer_offsets[b], spec.buffers[b].bytes, dev, 1};
      domain_buffers_.push_back(DomainBuffer{spec.name, static_cast<int>(r), spec.buffers[b].name,
                                             windows[r] + layout->buffer_offsets[b],
                                             spec.buffers[b].bytes, spec.devices});
    }
    dom.ranks.push_back(std::move(c));
  }
  return dom;
}

absl::StatusOr<rt::Tensor> SimSystem::Alloc(int device, uint64_t bytes,
                                            const std::string& label) {
  absl::Status s = CheckDevice(device);
  if (!s.ok()) return s;
  absl::StatusOr<uint64_t> a = chips_[device]->gm().Alloc(bytes, label);
  if (!a.ok()) return a.status();
  return rt::Tensor{*a, 0, bytes, device, 1};
}

absl::Status SimSystem::CopyTo(const rt::Tensor& dst, const void* src,
                               uint64_t bytes) {
  if (bytes > dst.bytes || OwnerChip(dst.addr(), bytes) != dst.device) {
    return absl::InvalidArgumentError("CopyTo outside the tensor's GM buffer");
  }
  std::memcpy(reinterpret_cast<void*>(dst.addr()), src, bytes);
  chips_[dst.device]->gm().MarkReal(dst.addr(), bytes);
  return absl::OkStatus();
}

absl::Status SimSystem::CopyFrom(void* dst, const rt::Tensor& src,
                                 uint64_t bytes) {
  if (bytes > src.bytes || OwnerChip(src.addr(), bytes) != src.device) {
    return absl::InvalidArgumentError(
        "CopyFrom outside the tensor's GM buffer");
  }
  std::memcpy(dst, reinterpret_cast<const void*>(src.addr()), bytes);
  return absl::OkStatus();
}

absl::Status SimSystem::Dispatch(int device, const rt::ChipCallable& callable,
                                 const rt::ChipArgs& args) {
  absl::Status s = CheckDevice(device);
  if (s.ok()) s = CheckCallable(callable);
  if (!s.ok()) return s;
  chips_[device]->aicpu().Enqueue(DispatchEntry{callable, args, nullptr});
  return absl::OkStatus();
}

absl::Status SimSystem::DispatchGroup(const std::vector<int>& devices,
                                      const rt::ChipCallable& callable,
                                      const std::vector<rt::ChipArgs>& args) {
  if (devices.empty() || devices.size() != args.size()) {
    return absl::InvalidArgumentError(
        "DispatchGroup needs one ChipArgs per device");
  }
  std::set<int> seen;
  for (int d : devices) {
    absl::Status s = CheckDevice(d);
    if (!s.ok()) return s;
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("DispatchGroup lists device ", d, " twice"));
    }
  }
  absl::Status s = CheckCallable(callable);
  if (!s.ok()) return s;
  auto gate = std::make_shared<GroupGate>();
  gate->members = static_cast<int>(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    chips_[devices[i]]->aicpu().Enqueue(DispatchEntry{callable, args[i], gate});
  }
  return absl::OkStatus();
}

void SimSystem::OnFatal(int chip, const rt::ErrorLatch& latch) {
  if (error_code_ == 0) {
    fatal_chip_ = chip;
    error_code_ = latch.code();
    error_text_ = absl::StrCat("chip ", chip, ": ", latch.Text());
  }
  sc_core::sc_stop();
}

RunReport SimSystem::Run() {
  RunReport r;
  if (ran_) {
    r.set_error_code(-1);
    r.set_error_text("SimSystem::Run called twice");
    return r;
  }
  ran_ = true;
  if (!progress_) {
    sc_core::sc_start();
  } else {
    const sc_core::sc_time slice(progress_slice_ns_, sc_core::SC_NS);
    while (true) {
      // A slice reaches at least the next event: with SC_EXIT_ON_STARVATION
      // sc_start returns at once when no event falls inside the window, and
      // that policy keeps the final time at the last event, as sc_start()
      // without a limit does.
      sc_core::sc_start(std::max(slice, sc_core::sc_time_to_pending_activity()),
                        sc_core::SC_EXIT_ON_STARVATION);
      if (sc_core::sc_get_status() == sc_core::SC_STOPPED || !sc_core::sc_pending_activity()) {
        break;
      }
      SimProgress p;
      p.sim_time_ps = Stamp();
      for (auto& c : chips_) {
        const auto [done, known] = c->aicpu().TaskProgress();
        p.tasks_done += done;
        p.tasks_known += known;
      }
      progress_(p);
    }
  }
  const Ps end = Stamp();
  bool idle = true;
  for (auto& c : chips_) idle = idle && c->aicpu().Idle();
  std::vector<std::string> blocked;
  for (auto& c : chips_) {
    for (const std::string& line : c->aicpu().DescribeState()) {
      blocked.push_back(line);
    }
    for (const auto& core : c->cores()) {
      std::string s = core->DescribeState();
      if (!s.empty()) blocked.push_back(s);
    }
  }
  if (error_code_ == 0 && !idle) {
    error_code_ = rt::kErrorSchedulerTimeout;
    error_text_ = absl::StrCat(
        "code=", error_code_, " ", rt::ErrorName(error_code_),
        ": deadlock at t=", end / 1000000.0,
        " us: no agent can make progress; ", blocked.size(),
        " blocked (see the report)");
  }
  r.set_platform(platform_.name());
  r.set_chips(static_cast<int>(chips_.size()));
  r.set_sim_time_ps(end);
  r.set_error_code(error_code_);
  r.set_error_text(error_text_);
  if (error_code_ != 0) {
    for (const std::string& b : blocked) r.add_blocked(b);
    DiagnoseHang(&r);
    // Deadlocks and livelocks carry their cause in the one line users see;
    // other errors already name it.
    if (error_code_ == rt::kErrorSchedulerTimeout && !r.hang_cause().empty()) {
      r.set_error_text(absl::StrCat(r.error_text(), "; cause: ", r.hang_cause()));
    }
  }
  for (auto& c : chips_) {
    for (const TaskStat& t : c->aicpu().task_stats()) *r.add_tasks() = t;
    for (const std::string& line : c->aicpu().LogLines()) r.add_log(line);
    for (const auto& core : c->cores()) {
      CoreStat s;
      core->FillStats(&s);
      if (s.blocks() > 0) *r.add_cores() = s;
    }
    const BandwidthResource& g = c->gm().port();
    ResourceStat* gs = r.add_gms();
    gs->set_name(g.name());
    gs->set_busy_ps(g.busy());
    gs->set_bytes(g.bytes());
    gs->set_transfers(g.transfers());
    gs->set_utilization(end > 0 ? static_cast<double>(g.busy()) / end : 0);
  }
  for (auto& c : chips_) {
    c->aicpu().FillQueueStats(&r);
    c->pipes().FillStats(&r);
    if (c->urma() != nullptr) c->urma()->FillStats(&r);
  }
  for (const auto& l : fabric_->links()) {
    const BandwidthResource& res = l->resource();
    ResourceStat* ls = r.add_links();
    ls->set_name(res.name());
    ls->set_busy_ps(res.busy());
    ls->set_bytes(res.bytes());
    ls->set_transfers(res.transfers());
    ls->set_utilization(end > 0 ? static_cast<double>(res.busy()) / end : 0);
  }
  if (races_ != nullptr) {
    for (const std::string& line : races_->races()) r.add_races(line);
    // A race is a failure unless the options say warn: the run's results
    // depend on an order nothing enforces.
    if (races_fail_ && r.error_code() == 0 && r.races_size() > 0) {
      r.set_error_code(kRaceErrorCode);
      std::string text = absl::StrCat(r.races_size(), " GM race", r.races_size() == 1 ? "" : "s",
                                      " (unordered accesses, docs/simulator.md):");
      for (const std::string& line : r.races()) absl::StrAppend(&text, "\n  ", line);  // each line says "race: ..."
      r.set_error_text(text);
    }
  }
  ReportLineHazards(&r);
  // A lost update is a failure unless the options say warn: memory holds a
  // value no agent wrote last (a hang reports it as its cause already).
  if (lost_updates_fail_ && r.error_code() == 0 && r.line_clobbers_size() > 0) {
    r.set_error_code(kLostUpdateErrorCode);
    std::string text = absl::StrCat(r.line_clobbers_size(), " lost update",
                                    r.line_clobbers_size() == 1 ? "" : "s",
                                    " (a whole-line write-back over another writer's bytes, "
                                    "docs/simulator.md):");
    for (const std::string& line : r.line_clobbers()) absl::StrAppend(&text, "\n  ", line);
    r.set_error_text(text);
  }
  r.set_model_waits(waits_);
  r.set_systemc_deltas(static_cast<int64_t>(sc_core::sc_delta_count()));
  if (trace_.enabled()) r.set_trace_json(trace_.Json());
  return r;
}

}  // namespace pto::sim
