// RunConcurrently for kernels built on the pto-isa device layer: pto-isa
// does the work (its UB is per thread); the DeviceCore only carries faults,
// which the layer and kernel_support.h report through CurrentCore().
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

}  // namespace

std::string RunConcurrently(const std::vector<BlockLaunch>& launches) {
  return RunThreads(launches, [] { return std::make_unique<FaultCore>(); });
}

const char* BackendName() { return "pto-isa CPU_SIM"; }

}  // namespace pto::hw::testing
