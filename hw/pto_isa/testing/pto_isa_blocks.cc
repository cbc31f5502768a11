// RunConcurrently for kernels built on the pto-isa device layer: pto-isa
// does the work (its UB is per thread); the DeviceCore only carries faults,
// which the layer and kernel_support.h report through CurrentCore(), and
// a cluster's cores order the pipe slots of TPUSH / TPOP.
#include <stdexcept>

#include "hw/pto_isa/testing/concurrent_blocks.h"
#include "hw/pto_isa/testing/run_threads.h"

namespace pto::hw::testing {
namespace {

class FaultCore : public DeviceCore {
 public:
  [[noreturn]] void Fault(const char* what) override { throw std::runtime_error(what); }
  // The pto-isa layer issues pto-isa instructions instead of these.
  uint8_t* UbBase() override { Unused("UbBase"); }
  uint64_t UbBytes() override { Unused("UbBytes"); }
  void CheckUb(const void*, uint64_t, const char*) override { Unused("CheckUb"); }
  void Load(void*, const void*, uint64_t) override { Unused("Load"); }
  void Store(void*, const void*, uint64_t) override { Unused("Store"); }
  void Copy(void*, const void*, uint64_t, void*, uint64_t) override { Unused("Copy"); }
  void Notify(int32_t*, int32_t, NotifyOp) override { Unused("Notify"); }
  void Wait(const int32_t*, int32_t, WaitCmp) override { Unused("Wait"); }
  void PipeBarrier(Pipe) override { Unused("PipeBarrier"); }
  void SetFlag(Pipe, Pipe, int) override { Unused("SetFlag"); }
  void WaitFlag(Pipe, Pipe, int) override { Unused("WaitFlag"); }
  void Dsb() override { Unused("Dsb"); }
  void Dcci(const void*, DcciMode) override { Unused("Dcci"); }
  void ScalarRead(const void*, void*, int) override { Unused("ScalarRead"); }
  void ScalarWrite(void*, const void*, int) override { Unused("ScalarWrite"); }
  void Vector(VecOp, const void*, const void*, const void*, uint64_t) override { Unused("Vector"); }
  uint64_t UrmaPost(bool, void*, void*, uint64_t) override { Unused("UrmaPost"); }
  void DeferCompletion(uint64_t) override { Unused("DeferCompletion"); }

 private:
  [[noreturn]] void Unused(const char* what) {
    Fault((std::string("DeviceCore::") + what + " is not used by kernels on pto-isa").c_str());
  }
};

// The AIC or an AIV lane of a cluster: pto-isa moves a pipe slot's bytes
// (TSTORE / TLOAD into the GM slot, as a2a3's GM pipe buffers), the
// cluster's pipes order the slots.
class PipeFaultCore : public FaultCore, public PipeCore {
 public:
  PipeFaultCore(pto::testing::ThreadPipes* pipes, int lane, bool aic)
      : pipes_(pipes), lane_(lane), aic_(aic) {}
  void* PipeAcquire(const PipeSpec& p, bool push) override {
    if (pipes_ == nullptr) Fault("TPUSH/TPOP in an AIC task (no cluster)");
    return pipes_->Acquire(p, aic_ ? p.lane : lane_, push);
  }
  void PipeRelease(const PipeSpec& p, bool push) override {
    pipes_->Release(p, aic_ ? p.lane : lane_, push);
  }

 private:
  pto::testing::ThreadPipes* pipes_;
  int lane_;
  bool aic_;
};

}  // namespace

std::string RunConcurrently(const std::vector<BlockLaunch>& launches) {
  return RunThreads(launches, [](const BlockLaunch& l) -> std::unique_ptr<DeviceCore> {
    if (l.core == BlockCore::kAiv) return std::make_unique<FaultCore>();
    return std::make_unique<PipeFaultCore>(l.pipes, l.lane, l.core == BlockCore::kAic);
  });
}

const char* BackendName() { return "pto-isa CPU_SIM"; }

}  // namespace pto::hw::testing
