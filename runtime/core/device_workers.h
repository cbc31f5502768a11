// The host side of rt::Host::Dispatch / DispatchGroup for a backend whose
// chip orchestration runs on the host CPU (the hw backend, docs/hw.md): one
// worker thread per device runs that device's dispatches in FIFO order, and
// the members of a group dispatch wait for each other before any starts
// (gang start), since their kernels wait on each other's signals. After the
// first failure every later job is dropped, and a gang never waits for a
// member that was dropped.
#ifndef PTO_RUNTIME_CORE_DEVICE_WORKERS_H_
#define PTO_RUNTIME_CORE_DEVICE_WORKERS_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"

namespace pto::rt {

class DeviceWorkers {
 public:
  using Job = std::function<absl::Status()>;

  // One worker per entry of `devices`; `init(device)` runs first on its
  // thread (binds the thread to the device); its failure fails every job.
  DeviceWorkers(const std::vector<int>& devices, std::function<absl::Status(int)> init);
  ~DeviceWorkers();  // drops what is queued and joins
  DeviceWorkers(const DeviceWorkers&) = delete;
  DeviceWorkers& operator=(const DeviceWorkers&) = delete;

  // InvalidArgument for a device without a worker.
  absl::Status Enqueue(int device, Job job);
  // jobs[i] runs on devices[i]; all start together. The devices are distinct.
  absl::Status EnqueueGroup(const std::vector<int>& devices, std::vector<Job> jobs);
  // Waits until every queue is empty; the first failure, as
  // "device D: <message>", else OK. The workers stay for more jobs; a
  // failure stays latched.
  absl::Status Finish();
  // Members waiting at a gang gate now (for hang reports and tests).
  int waiting_at_gates() const;

 private:
  struct Gate {
    int members = 0;
    int arrived = 0;
    bool aborted = false;
  };
  struct Entry {
    Job job;
    std::shared_ptr<Gate> gate;  // null for a directed dispatch
  };
  struct Worker {
    int device = -1;
    std::deque<Entry> queue;
    bool busy = false;
    std::thread thread;
  };

  void Run(Worker* w, const std::function<absl::Status(int)>& init);
  // Under mu_: the first failure wins.
  void FailLocked(int device, const absl::Status& s);
  int IndexOf(int device) const;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Worker>> workers_;
  absl::Status failure_;
  bool stop_ = false;
  int waiting_ = 0;
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_DEVICE_WORKERS_H_
