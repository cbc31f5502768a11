#include "runtime/core/device_workers.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pto::rt {

DeviceWorkers::DeviceWorkers(const std::vector<int>& devices,
                             std::function<absl::Status(int)> init) {
  for (int d : devices) {
    auto w = std::make_unique<Worker>();
    w->device = d;
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw, init] { Run(raw, init); });
  }
}

DeviceWorkers::~DeviceWorkers() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w->thread.join();
}

int DeviceWorkers::IndexOf(int device) const {
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i]->device == device) return static_cast<int>(i);
  }
  return -1;
}

void DeviceWorkers::FailLocked(int device, const absl::Status& s) {
  if (!failure_.ok()) return;
  failure_ = absl::Status(s.code(), absl::StrCat("device ", device, ": ", s.message()));
}

absl::Status DeviceWorkers::Enqueue(int device, Job job) {
  const int i = IndexOf(device);
  if (i < 0) return absl::InvalidArgumentError(absl::StrCat("no device ", device));
  {
    std::lock_guard<std::mutex> l(mu_);
    workers_[i]->queue.push_back({std::move(job), nullptr});
  }
  cv_.notify_all();
  return absl::OkStatus();
}

absl::Status DeviceWorkers::EnqueueGroup(const std::vector<int>& devices, std::vector<Job> jobs) {
  if (devices.size() != jobs.size() || devices.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a group of ", devices.size(), " devices with ", jobs.size(), " jobs"));
  }
  std::vector<int> index;
  std::set<int> seen;
  for (int d : devices) {
    const int i = IndexOf(d);
    if (i < 0) return absl::InvalidArgumentError(absl::StrCat("no device ", d));
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(absl::StrCat("device ", d, " twice in one group"));
    }
    index.push_back(i);
  }
  auto gate = std::make_shared<Gate>();
  gate->members = static_cast<int>(devices.size());
  {
    // One lock for every member, so two groups queue in the same order on
    // every device they share and cannot wait for each other.
    std::lock_guard<std::mutex> l(mu_);
    for (size_t k = 0; k < index.size(); ++k) {
      workers_[index[k]]->queue.push_back({std::move(jobs[k]), gate});
    }
  }
  cv_.notify_all();
  return absl::OkStatus();
}

void DeviceWorkers::Run(Worker* w, const std::function<absl::Status(int)>& init) {
  if (absl::Status s = init ? init(w->device) : absl::OkStatus(); !s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    FailLocked(w->device, s);
  }
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [&] { return stop_ || !w->queue.empty(); });
    if (w->queue.empty()) return;  // stopping
    Entry e = std::move(w->queue.front());
    w->queue.pop_front();
    w->busy = true;
    bool run = failure_.ok() && !stop_;
    if (e.gate != nullptr) {
      Gate& g = *e.gate;
      if (!run) g.aborted = true;
      ++g.arrived;
      ++waiting_;
      cv_.notify_all();
      cv_.wait(l, [&] { return g.arrived == g.members || g.aborted || stop_ || !failure_.ok(); });
      --waiting_;
      if (g.arrived != g.members || !failure_.ok() || stop_) {
        g.aborted = true;
        run = false;
      }
      cv_.notify_all();
    }
    if (run) {
      l.unlock();
      absl::Status s = e.job();
      l.lock();
      if (!s.ok()) FailLocked(w->device, s);
    }
    w->busy = false;
    cv_.notify_all();
  }
}

absl::Status DeviceWorkers::Finish() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [&] {
    for (const auto& w : workers_) {
      if (w->busy || !w->queue.empty()) return false;
    }
    return true;
  });
  return failure_;
}

int DeviceWorkers::waiting_at_gates() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiting_;
}

}  // namespace pto::rt
