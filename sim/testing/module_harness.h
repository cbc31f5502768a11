// A harness that tests one simulator module alone, in VCML's test-per-model
// style: the module under test is instantiated with stub peers bound to its
// ports (sim/common/ports.h), never inside a whole SimSystem.
//
// - StubMemory is the MemorySystem a core or the URMA engine calls: one real
//   Gm per chip (the memory is the peer's state, not a behaviour to fake),
//   routes made of links the test adds, a disabled trace, a wait counter.
// - RecordingObserver is the CoreObserver (the AICPU scheduler's side):
//   it records every finished block and every kernel error with its time.
// - RunModule elaborates and simulates in a forked child, since SystemC
//   elaborates once per process; the child hands back named values and
//   texts, which the test then asserts on.
#ifndef PTO_SIM_TESTING_MODULE_HARNESS_H_
#define PTO_SIM_TESTING_MODULE_HARNESS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "platforms/platform.pb.h"
#include "sim/common/chip_core.h"
#include "sim/common/ports.h"
#include "sim/common/time.h"
#include "sim/gm/gm.h"
#include "sim/link/link.h"
#include "sim/trace/trace.h"

namespace pto::sim::testing {

class StubMemory : public MemorySystem {
 public:
  StubMemory(const platforms::Platform& platform, int chips, bool timing_only = false);

  // A one-link route src -> dst of `gbps` and `hop` latency (replaces any
  // route between them).
  Link* AddLink(int src, int dst, double gbps, Ps hop);
  void SetRoute(int src, int dst, std::vector<Link*> links);

  int OwnerChip(uint64_t addr, uint64_t bytes) const override;
  Gm& GmOf(int chip) override { return *gms_.at(chip); }
  const std::vector<Link*>& Route(int src, int dst) override;
  std::string Describe(uint64_t addr) const override;
  Trace& trace() override { return trace_; }
  void CountWait() override { ++waits_; }

  int chips() const { return static_cast<int>(gms_.size()); }
  int64_t waits() const { return waits_; }

 private:
  Trace trace_{/*enabled=*/false};
  GmIndex index_;
  std::vector<std::unique_ptr<Gm>> gms_;
  std::vector<std::unique_ptr<Link>> links_;
  std::map<std::pair<int, int>, std::vector<Link*>> routes_;
  std::vector<Link*> none_;
  int64_t waits_ = 0;
};

class RecordingObserver : public CoreObserver {
 public:
  struct Done {
    ChipCore* core;
    Ps time;
  };
  struct Error {
    ChipCore* core;
    int code;
    std::string message;
    Ps time;
  };
  void BlockDone(ChipCore* core) override;
  void KernelError(ChipCore* core, int code, const std::string& msg) override;
  const std::vector<Done>& done() const { return done_; }
  const std::vector<Error>& errors() const { return errors_; }
  // Notified on every BlockDone (a test thread may wait on it).
  const sc_core::sc_event& done_event() const { return done_event_; }

 private:
  std::vector<Done> done_;
  std::vector<Error> errors_;
  sc_core::sc_event done_event_;
};

// What a child run hands back: named integers and named texts. `failure` is
// set when the child died or sent nothing readable.
struct ModuleRun {
  std::map<std::string, int64_t> values;
  std::map<std::string, std::string> texts;
  std::string failure;

  int64_t value(const std::string& key) const;
  std::string text(const std::string& key) const;
};

// Runs `body` (build the module and its stubs, sc_start, record results into
// the ModuleRun) in a forked child and returns what it recorded.
ModuleRun RunModule(const std::function<void(ModuleRun&)>& body);

}  // namespace pto::sim::testing

#endif  // PTO_SIM_TESTING_MODULE_HARNESS_H_
