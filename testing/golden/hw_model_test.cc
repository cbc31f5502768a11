// The hw backend's execution model (docs/hw.md) against the simulator on a
// compiled program: examples/all_to_all_v_chip.pto run through the same
// runtime/core parts hw/host's HwHost is built from (DeviceWorkers for
// Dispatch / DispatchGroup, RunChipCallable on an in-order launch queue,
// LayOutDomain / FillCommContext for the windows), with host memory as
// device memory and each launch's blocks on threads, gives every device's
// outputs byte for byte as the simulator does. What differs from a board is
// the queue below: a thread per device playing the stream.
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/core/device_workers.h"
#include "runtime/core/domain.h"
#include "runtime/core/ordered_launch.h"
#include "runtime/device/comm_context.h"
#include "runtime/device/cube_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/pipe_api.h"
#include "runtime/device/thread_cluster.h"
#include "runtime/device/thread_core.h"
#include "platforms/platform.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

namespace pto::kernels {
void mm_f16(int64_t* args);  // generated from testing/codegen/matmul.pto
}  // namespace pto::kernels

namespace pto::golden {
namespace {

// Host memory standing in for every device's GM: zeroed, 64-byte aligned.
class HostMemory {
 public:
  ~HostMemory() {
    for (void* p : blocks_) std::free(p);
  }
  uint64_t Alloc(uint64_t bytes) {
    std::lock_guard<std::mutex> l(mu_);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    std::memset(p, 0, (bytes + 63) / 64 * 64);
    blocks_.push_back(p);
    return reinterpret_cast<uint64_t>(p);
  }

 private:
  std::mutex mu_;
  std::vector<void*> blocks_;
};

// One device's stream: launches run in order on the stream's thread, each
// launch's blocks at once on their own threads; WaitOldest waits for the
// oldest one not yet waited for.
class StreamQueue : public rt::LaunchQueue {
 public:
  StreamQueue(int device, HostMemory* memory, std::vector<KernelEntry> kernels)
      : device_(device),
        memory_(memory),
        kernels_(std::move(kernels)),
        thread_([this] { Run(); }) {}
  ~StreamQueue() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int device_id() const override { return device_; }
  int aiv_count() const override { return 48; }
  int aic_count() const override { return 24; }
  absl::StatusOr<uint64_t> AllocGm(uint64_t bytes) override { return memory_->Alloc(bytes); }
  absl::Status FreeGm(uint64_t) override { return absl::OkStatus(); }  // freed with the memory
  absl::Status Write(uint64_t addr, const void* in, uint64_t bytes) override {
    std::memcpy(reinterpret_cast<void*>(addr), in, bytes);
    return absl::OkStatus();
  }
  absl::Status Read(uint64_t addr, void* out, uint64_t bytes) override {
    std::memcpy(out, reinterpret_cast<const void*>(addr), bytes);
    return absl::OkStatus();
  }
  absl::Status Launch(const rt::LaunchKernel& k, int32_t blocks,
                      const rt::KernelArgSlots& slots) override {
    std::lock_guard<std::mutex> l(mu_);
    Pending p{k.shape, {}, blocks, slots};
    if (k.shape == rt::CoreShape::kMix) {
      for (int f : {k.mix.aic, k.mix.aiv0, k.mix.aiv1}) {
        p.cores.push_back(f < 0 ? nullptr : kernels_.at(f));
      }
    } else {
      p.cores.push_back(kernels_.at(k.func_id));
    }
    queued_.push_back(p);
    ++launched_;
    cv_.notify_all();
    return absl::OkStatus();
  }
  absl::StatusOr<double> WaitOldest(double) override {
    std::unique_lock<std::mutex> l(mu_);
    const int64_t want = ++waited_;
    cv_.wait(l, [&] { return done_ >= want; });
    if (!faults_.empty()) return absl::InternalError(faults_.front());
    return 0.0;
  }
  double NowNs() const override { return 0; }

 private:
  struct Pending {
    rt::CoreShape shape;
    std::vector<KernelEntry> cores;  // AIV / AIC: one; MIX: AIC, lane 0, lane 1 (null: unused)
    int32_t blocks;
    rt::KernelArgSlots slots;
  };

  void Run() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [&] { return stop_ || !queued_.empty(); });
      if (queued_.empty()) return;
      Pending p = queued_.front();
      queued_.pop_front();
      l.unlock();
      std::vector<std::string> faults = RunBlocks(p);
      l.lock();
      faults_.insert(faults_.end(), faults.begin(), faults.end());
      ++done_;
      cv_.notify_all();
    }
  }

  // Every block on its own core, as the board's cores run a launch (a MIX
  // block on its cluster: the AIC and the used lanes, sharing the pipes);
  // the block index and sub-block id come from the core, as on the board.
  static std::vector<std::string> RunBlocks(const Pending& p) {
    std::mutex mu;
    std::vector<std::string> faults;
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<testing::ThreadPipes>> clusters;
    for (int32_t b = 0; b < p.blocks; ++b) {
      clusters.push_back(std::make_unique<testing::ThreadPipes>());
      for (size_t slot = 0; slot < p.cores.size(); ++slot) {
        if (p.cores[slot] == nullptr) continue;
        testing::ThreadPipes* pipes = clusters.back().get();
        threads.emplace_back([&, b, slot, pipes] {
          const int lane = p.shape == rt::CoreShape::kMix ? static_cast<int>(slot) - 1 : 0;
          std::unique_ptr<DeviceCore> core;
          if (p.shape == rt::CoreShape::kAiv) {
            core = std::make_unique<testing::ThreadCore>();
          } else if (lane < 0 || p.shape == rt::CoreShape::kAic) {
            core = std::make_unique<testing::ThreadCubeCore>(
                p.shape == rt::CoreShape::kMix ? pipes : nullptr, CubeBytes());
          } else {
            core = std::make_unique<testing::ThreadLaneCore>(pipes, lane);
          }
          SetCurrentCore(core.get());
          LocalContext local{b, p.blocks};
          GlobalContext global{lane < 0 ? 0 : lane, 0};
          rt::KernelArgSlots s = p.slots;
          s[kLocalContextIndex] = reinterpret_cast<int64_t>(&local);
          s[kGlobalContextIndex] = reinterpret_cast<int64_t>(&global);
          try {
            p.cores[slot](s.data());
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> g(mu);
            faults.push_back(e.what());
          }
          SetCurrentCore(nullptr);
        });
      }
    }
    for (std::thread& t : threads) t.join();
    return faults;
  }

  // a2a3's cube buffers (platforms/a2a3.textproto).
  static const std::array<uint64_t, kNumTileKinds>& CubeBytes() {
    static const std::array<uint64_t, kNumTileKinds> caps = [] {
      absl::StatusOr<platforms::Platform> p = platforms::LoadPlatform("a2a3");
      if (!p.ok()) return std::array<uint64_t, kNumTileKinds>{};
      const auto& c = p->cube();
      return std::array<uint64_t, kNumTileKinds>{c.l1_bytes(), c.l0a_bytes(), c.l0b_bytes(),
                                                 c.l0c_bytes(), c.bias_bytes()};
    }();
    return caps;
  }

  int device_;
  HostMemory* memory_;
  std::vector<KernelEntry> kernels_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queued_;
  int64_t launched_ = 0, waited_ = 0, done_ = 0;
  std::vector<std::string> faults_;
  bool stop_ = false;
  std::thread thread_;
};

// rt::Host as HwHost builds it, on host memory.
class ModelHost : public rt::Host {
 public:
  explicit ModelHost(int devices) : devices_(devices) {
    std::vector<int> ids;
    for (int d = 0; d < devices; ++d) ids.push_back(d);
    workers_ = std::make_unique<rt::DeviceWorkers>(ids, nullptr);
  }
  int device_count() const override { return devices_; }
  absl::StatusOr<rt::Domain> CreateDomain(const rt::DomainSpec& spec) override {
    absl::StatusOr<rt::DomainLayout> layout = rt::LayOutDomain(spec, devices_);
    if (!layout.ok()) return layout.status();
    std::vector<uint64_t> windows;
    for (size_t r = 0; r < spec.devices.size(); ++r)
      windows.push_back(memory_.Alloc(spec.window_size));
    rt::Domain domain{spec.name, {}};
    for (size_t r = 0; r < spec.devices.size(); ++r) {
      rt::ChipDomainContext c;
      c.domain_rank = static_cast<int>(r);
      c.domain_size = static_cast<int>(spec.devices.size());
      c.device = spec.devices[r];
      const uint64_t ctx = memory_.Alloc(sizeof(CommContext));
      rt::FillCommContext(reinterpret_cast<CommContext*>(ctx), static_cast<uint32_t>(r), windows,
                          spec.window_size);
      c.device_ctx = rt::Tensor{ctx, 0, sizeof(CommContext), c.device, 1};
      c.local_window_base = windows[r];
      c.window_size = spec.window_size;
      for (size_t b = 0; b < spec.buffers.size(); ++b) {
        c.buffers[spec.buffers[b].name] = rt::Tensor{windows[r] + layout->buffer_offsets[b], 0,
                                                     spec.buffers[b].bytes, c.device, 1};
      }
      domain.ranks.push_back(std::move(c));
    }
    return domain;
  }
  absl::StatusOr<rt::Tensor> Alloc(int device, uint64_t bytes, const std::string&) override {
    return rt::Tensor{memory_.Alloc(bytes), 0, bytes, device, 1};
  }
  absl::Status CopyTo(const rt::Tensor& dst, const void* src, uint64_t bytes) override {
    std::memcpy(reinterpret_cast<void*>(dst.addr()), src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFrom(void* dst, const rt::Tensor& src, uint64_t bytes) override {
    std::memcpy(dst, reinterpret_cast<const void*>(src.addr()), bytes);
    return absl::OkStatus();
  }
  absl::Status Dispatch(int device, const rt::ChipCallable& callable,
                        const rt::ChipArgs& args) override {
    return workers_->Enqueue(device, Job(device, callable, args));
  }
  absl::Status DispatchGroup(const std::vector<int>& devices, const rt::ChipCallable& callable,
                             const std::vector<rt::ChipArgs>& args) override {
    std::vector<rt::DeviceWorkers::Job> jobs;
    for (size_t i = 0; i < devices.size(); ++i) jobs.push_back(Job(devices[i], callable, args[i]));
    return workers_->EnqueueGroup(devices, std::move(jobs));
  }
  absl::Status Finish() { return workers_->Finish(); }
  int runs() const { return runs_; }

 private:
  rt::DeviceWorkers::Job Job(int device, const rt::ChipCallable& callable,
                             const rt::ChipArgs& args) {
    return [this, device, callable, args]() -> absl::Status {
      StreamQueue queue(device, &memory_, callable.kernels);
      rt::ChipRunResult r = rt::RunChipCallable(queue, callable, args, {});
      ++runs_;
      if (r.error_code != 0) return absl::AbortedError(r.error_text);
      return absl::OkStatus();
    };
  }

  int devices_;
  HostMemory memory_;
  std::unique_ptr<rt::DeviceWorkers> workers_;
  std::atomic<int> runs_{0};
};

constexpr int kRanks = 2;
const std::vector<uint64_t> kShape = {2, 8, 64};  // [NR, TOTAL, SIZE]

// pto-run's pattern for a float param without an input file (docs/pto-run.md).
std::string PatternBytes() {
  std::vector<float> v(2 * 8 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = ((i * 31 + 7) % 1021) * 0.25f - 64.0f;
  std::string s(v.size() * sizeof(float), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

// Stages `inputs` and `outputs` (both the pattern) on every device of
// `host`, runs the HOST orchestration; the tensors by param, then device.
absl::StatusOr<std::vector<std::vector<rt::Tensor>>> Stage(rt::Host& host) {
  const std::string pattern = PatternBytes();
  std::vector<std::vector<rt::Tensor>> tensors(2);
  for (int p = 0; p < 2; ++p) {
    for (int d = 0; d < kRanks; ++d) {
      absl::StatusOr<rt::Tensor> t = host.Alloc(d, pattern.size(), p == 0 ? "inputs" : "outputs");
      if (!t.ok()) return t.status();
      t->elem_bytes = sizeof(float);
      t->ndims = 3;
      for (int k = 0; k < 3; ++k) t->shape[k] = kShape[k];
      if (absl::Status s = host.CopyTo(*t, pattern.data(), pattern.size()); !s.ok()) return s;
      tensors[p].push_back(*t);
    }
  }
  if (absl::Status s = generated::RunHost(host, tensors); !s.ok()) return s;
  return tensors;
}

TEST(HwModelTest, TheCompiledProgramGivesTheSimulatorsOutputs) {
  // The simulator: every device's copy of `outputs` after the run.
  std::vector<std::vector<rt::Tensor>> sim_tensors;
  sim::RunReport sim = sim::testing::Simulate(
      sim::testing::Opts(kRanks, "a2a3"),
      [&](sim::SimSystem& sys) -> absl::Status {
        absl::StatusOr<std::vector<std::vector<rt::Tensor>>> t = Stage(sys);
        if (!t.ok()) return t.status();
        sim_tensors = *t;
        return absl::OkStatus();
      },
      [&](sim::SimSystem& sys, sim::RunReport& r) {
        for (int d = 0; d < kRanks; ++d) {
          sim::testing::CaptureOutput(sys, sim_tensors[1][d], absl::StrCat("outputs@", d), r);
        }
      });
  ASSERT_EQ(sim.error_code(), 0) << sim.error_text();

  // The hw model.
  ModelHost host(kRanks);
  absl::StatusOr<std::vector<std::vector<rt::Tensor>>> tensors = Stage(host);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ASSERT_TRUE(host.Finish().ok());
  EXPECT_GE(host.runs(), kRanks);
  const std::string pattern = PatternBytes();
  for (int d = 0; d < kRanks; ++d) {
    std::string got(pattern.size(), '\0');
    ASSERT_TRUE(host.CopyFrom(got.data(), (*tensors)[1][d], got.size()).ok());
    const auto it = sim.outputs().find(absl::StrCat("outputs@", d));
    ASSERT_NE(it, sim.outputs().end());
    EXPECT_NE(it->second, pattern) << "device " << d << ": the run changed nothing";
    EXPECT_EQ(got, it->second) << "device " << d << "'s outputs differ from the simulator's";
  }
}

// ---- AIC and MIX tasks ---------------------------------------------------

// A MIX block: the AIC multiplies its 32 rows of a (32 x 32, FP16) by b
// (32 x 16) and pushes the top 16 rows to lane 0, the bottom 16 to lane 1;
// each lane pops its half, adds 1 and stores it to its rows of c.
constexpr uint32_t kMixRows = 32, kMixK = 32, kMixN = 16;
PipeSpec MixPipe(int lane) {
  return PipeSpec{0, PipeDir::kC2V, 2, kMixRows / 2 * kMixN * sizeof(float), lane};
}

void MixCube(int64_t* args) {
  const TensorDesc* a = TensorArg(args, 0);
  const TensorDesc* b = TensorArg(args, 1);
  const uint64_t r0 = static_cast<uint64_t>(get_block_idx(args)) * kMixRows;
  auto a_l1 = TASSIGN<MatTile<half>>(0, kMixRows, kMixK);
  auto b_l1 = TASSIGN<MatTile<half>>(32 * 1024, kMixK, kMixN);
  auto a_l0 = TASSIGN<LeftTile<half>>(0, kMixRows, kMixK);
  auto b_l0 = TASSIGN<RightTile<half>>(0, kMixK, kMixN);
  auto acc = TASSIGN<AccTile<float>>(0, kMixRows, kMixN);
  TLOAD(a_l1, GlobalTensor<half>{a->data<half>() + r0 * kMixK, uint64_t{kMixRows} * kMixK});
  TLOAD(b_l1, GlobalTensor<half>{b->data<half>(), uint64_t{kMixK} * kMixN});
  set_flag(PIPE_MTE2, PIPE_MTE1, 0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, 0);
  TMOV(a_l0, a_l1);
  TMOV(b_l0, b_l1);
  set_flag(PIPE_MTE1, PIPE_M, 0);
  wait_flag(PIPE_MTE1, PIPE_M, 0);
  TMATMUL(acc, a_l0, b_l0);
  set_flag(PIPE_M, PIPE_FIX, 0);
  wait_flag(PIPE_M, PIPE_FIX, 0);
  AccTile<float> top{acc.data, kMixRows / 2, kMixN};
  AccTile<float> bottom{acc.data + kMixRows / 2 * kMixN, kMixRows / 2, kMixN};
  TPUSH<float>(MixPipe(0), top);
  TPUSH<float>(MixPipe(1), bottom);
}

void MixVec(int64_t* args) {
  const TensorDesc* c = TensorArg(args, 2);
  const int lane = get_subblockid(args);
  Tile<float> t = TASSIGN<float>(0, kMixRows / 2 * kMixN);
  TPOP(MixPipe(lane), t);
  TADDS(t, t, 1.0f);
  const uint64_t row0 = static_cast<uint64_t>(get_block_idx(args)) * kMixRows + lane * kMixRows / 2;
  TSTORE(GlobalTensor<float>{c->data<float>() + row0 * kMixN, t.count}, t);
}

template <typename T>
absl::StatusOr<rt::Tensor> Input(rt::Host& host, std::vector<uint64_t> shape, float scale) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  std::vector<T> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<T>(scale * static_cast<float>(i % 13) - 1.5f);
  absl::StatusOr<rt::Tensor> t = host.Alloc(0, n * sizeof(T), "in");
  if (!t.ok()) return t;
  t->elem_bytes = sizeof(T);
  t->ndims = static_cast<uint32_t>(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) t->shape[k] = shape[k];
  if (absl::Status s = host.CopyTo(*t, v.data(), n * sizeof(T)); !s.ok()) return s;
  return t;
}

// Dispatches, on device 0, the generated AIC kernel mm_f16 (testing/codegen/
// matmul.pto) as an AIC task and MixCube / MixVec as a 2-block MIX task on
// both lanes; returns the two outputs.
absl::StatusOr<std::vector<rt::Tensor>> StageCube(rt::Host& host) {
  std::vector<rt::Tensor> t;
  for (auto made : {Input<half>(host, {64, 32}, 0.25f), Input<half>(host, {32, 48}, 0.5f),
                    Input<float>(host, {64, 48}, 0.0f), Input<half>(host, {64, 32}, 0.125f),
                    Input<half>(host, {32, 16}, 0.375f), Input<float>(host, {64, 16}, 0.0f)}) {
    if (!made.ok()) return made.status();
    t.push_back(*made);
  }
  rt::ChipCallable c;
  c.name = "cube_tasks";
  c.kernels = {&kernels::mm_f16, &MixCube, &MixVec};
  c.kernel_names = {"mm_f16", "mix_cube", "mix_vec"};
  c.entry = [](rt::Orchestrator& o, const rt::ChipArgs& a) {
    rt::TaskArgs mm;
    mm.add_input(a.tensors[0]);
    mm.add_input(a.tensors[1]);
    mm.add_output(a.tensors[2]);
    o.submit_aic_task(0, mm);
    rt::TaskArgs mix;
    mix.add_input(a.tensors[3]);
    mix.add_input(a.tensors[4]);
    mix.add_output(a.tensors[5]);
    mix.launch_spec.set_core_num(2);
    o.submit_mix_task(rt::MixKernels{1, 2, 2}, mix);
  };
  if (absl::Status s = host.Dispatch(0, c, {t, {}}); !s.ok()) return s;
  return std::vector<rt::Tensor>{t[2], t[5]};
}

TEST(HwModelTest, AicAndMixTasksGiveTheSimulatorsOutputs) {
  std::vector<rt::Tensor> sim_out;
  sim::RunReport sim = sim::testing::Simulate(
      sim::testing::Opts(1, "a2a3"),
      [&](sim::SimSystem& sys) -> absl::Status {
        absl::StatusOr<std::vector<rt::Tensor>> t = StageCube(sys);
        if (!t.ok()) return t.status();
        sim_out = *t;
        return absl::OkStatus();
      },
      [&](sim::SimSystem& sys, sim::RunReport& r) {
        sim::testing::CaptureOutput(sys, sim_out[0], "mm", r);
        sim::testing::CaptureOutput(sys, sim_out[1], "mix", r);
      });
  ASSERT_EQ(sim.error_code(), 0) << sim.error_text();

  ModelHost host(1);
  absl::StatusOr<std::vector<rt::Tensor>> out = StageCube(host);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(host.Finish().ok());
  int i = 0;
  for (const char* key : {"mm", "mix"}) {
    const rt::Tensor& t = (*out)[i++];
    std::string got(t.bytes, '\0');
    ASSERT_TRUE(host.CopyFrom(got.data(), t, got.size()).ok());
    ASSERT_NE(sim.outputs().find(key), sim.outputs().end());
    EXPECT_NE(got, std::string(t.bytes, '\0')) << key << ": nothing was written";
    EXPECT_EQ(got, sim.outputs().at(key)) << key << " differs from the simulator's";
  }
}

}  // namespace
}  // namespace pto::golden
