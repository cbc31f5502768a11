#include "hw/host/hw_host.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hw/host/hw_launch_queue.h"
#include "runtime/core/domain.h"
#include "runtime/device/comm_context.h"

namespace pto::hw {

absl::StatusOr<std::unique_ptr<HwHost>> HwHost::Create(HwHostOptions options) {
  if (!options.kernel_binary) return absl::InvalidArgumentError("HwHost needs kernel binaries");
  absl::StatusOr<int> visible = InitAndCountDevices();
  if (!visible.ok()) return visible.status();
  if (options.devices < 1 || options.devices > *visible) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.devices, " devices requested, ", *visible, " visible"));
  }
  std::unique_ptr<HwHost> host(new HwHost(std::move(options)));
  std::vector<int> ids;
  for (int d = 0; d < host->options_.devices; ++d) {
    absl::StatusOr<std::unique_ptr<HwDevice>> dev = HwDevice::Open(d);
    if (!dev.ok()) return dev.status();
    host->devices_.push_back(*std::move(dev));
    ids.push_back(d);
  }
  host->run_index_.assign(ids.size(), 0);
  HwHost* raw = host.get();
  host->workers_ =
      std::make_unique<rt::DeviceWorkers>(ids, [raw](int d) { return raw->devices_[d]->Bind(); });
  return host;
}

HwHost::~HwHost() {
  if (workers_ != nullptr) {
    workers_->Finish().IgnoreError();  // the run's error was reported by Finish
    workers_.reset();
  }
  for (LocalWindow& w : windows_) {
    if (Device(w.device).ok()) devices_[w.device]->Bind().IgnoreError();
    ReleaseLocalWindow(w).IgnoreError();
  }
  for (const auto& [device, addr] : allocations_) {
    if (devices_[device]->Bind().ok()) devices_[device]->Free(addr).IgnoreError();
  }
}

absl::StatusOr<HwDevice*> HwHost::Device(int device) const {
  if (device < 0 || device >= static_cast<int>(devices_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " is not one of the ", devices_.size(), " opened"));
  }
  return devices_[device].get();
}

absl::StatusOr<rt::Tensor> HwHost::Alloc(int device, uint64_t bytes, const std::string& label) {
  absl::StatusOr<HwDevice*> d = Device(device);
  if (!d.ok()) return d.status();
  if (absl::Status s = (*d)->Bind(); !s.ok()) return s;
  absl::StatusOr<uint64_t> addr = (*d)->Malloc(bytes);
  if (!addr.ok()) {
    return absl::Status(addr.status().code(), absl::StrCat("'", label, "' on device ", device, ": ",
                                                           addr.status().message()));
  }
  allocations_.push_back({device, *addr});
  return rt::Tensor{*addr, 0, bytes, device, 1};
}

absl::Status HwHost::CopyTo(const rt::Tensor& dst, const void* src, uint64_t bytes) {
  absl::StatusOr<HwDevice*> d = Device(dst.device);
  if (!d.ok()) return d.status();
  if (bytes > dst.bytes) return absl::InvalidArgumentError("CopyTo past the tensor");
  if (absl::Status s = (*d)->Bind(); !s.ok()) return s;
  return (*d)->CopyTo(dst.addr(), src, bytes);
}

absl::Status HwHost::CopyFrom(void* dst, const rt::Tensor& src, uint64_t bytes) {
  absl::StatusOr<HwDevice*> d = Device(src.device);
  if (!d.ok()) return d.status();
  if (bytes > src.bytes) return absl::InvalidArgumentError("CopyFrom past the tensor");
  if (absl::Status s = (*d)->Bind(); !s.ok()) return s;
  return (*d)->CopyFrom(dst, src.addr(), bytes);
}

absl::StatusOr<rt::Domain> HwHost::CreateDomain(const rt::DomainSpec& spec) {
  absl::StatusOr<rt::DomainLayout> layout = rt::LayOutDomain(spec, device_count());
  if (!layout.ok()) return layout.status();
  const size_t first = windows_.size();
  std::vector<uint64_t> shareable;
  for (int device : spec.devices) {
    absl::StatusOr<LocalWindow> w = CreateLocalWindow(device, spec.window_size);
    if (!w.ok()) return w.status();
    shareable.push_back(w->shareable);
    windows_.push_back(*w);
  }
  rt::Domain domain;
  domain.name = spec.name;
  for (size_t rank = 0; rank < spec.devices.size(); ++rank) {
    const int device = spec.devices[rank];
    absl::StatusOr<std::vector<uint64_t>> bases =
        ImportPeerWindows(windows_[first + rank], spec.devices, shareable, static_cast<int>(rank));
    if (!bases.ok()) return bases.status();
    CommContext ctx{};
    rt::FillCommContext(&ctx, static_cast<uint32_t>(rank), *bases, spec.window_size);
    absl::StatusOr<rt::Tensor> dev_ctx =
        Alloc(device, sizeof(CommContext), absl::StrCat(spec.name, " CommContext"));
    if (!dev_ctx.ok()) return dev_ctx.status();
    if (absl::Status s = CopyTo(*dev_ctx, &ctx, sizeof(ctx)); !s.ok()) return s;
    rt::ChipDomainContext c;
    c.domain_rank = static_cast<int>(rank);
    c.domain_size = static_cast<int>(spec.devices.size());
    c.device = device;
    c.device_ctx = *dev_ctx;
    c.local_window_base = (*bases)[rank];
    c.window_size = spec.window_size;
    for (size_t b = 0; b < spec.buffers.size(); ++b) {
      c.buffers[spec.buffers[b].name] = rt::Tensor{(*bases)[rank] + layout->buffer_offsets[b], 0,
                                                   spec.buffers[b].bytes, device, 1};
    }
    domain.ranks.push_back(std::move(c));
  }
  return domain;
}

absl::StatusOr<const AicoreKernel*> HwHost::Kernel(int device, const rt::ChipCallable& callable,
                                                   const rt::LaunchKernel& launch) {
  const std::string name = rt::LaunchBinaryName(launch, callable.kernel_names);
  const auto key = std::make_tuple(device, absl::StrCat(callable.name, "/", name), launch.shape);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();
  }
  absl::StatusOr<std::string> elf = options_.kernel_binary(callable.name, name);
  if (!elf.ok()) return elf.status();
  absl::StatusOr<AicoreKernel> kernel = AicoreKernel::Register(*std::move(elf), launch.shape);
  if (!kernel.ok()) {
    return absl::Status(kernel.status().code(), absl::StrCat("kernel ", name, " of ", callable.name,
                                                             ": ", kernel.status().message()));
  }
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = kernels_[key];
  slot = std::make_unique<AicoreKernel>(*std::move(kernel));
  return slot.get();
}

rt::DeviceWorkers::Job HwHost::Job(int device, const rt::ChipCallable& callable,
                                   const rt::ChipArgs& args) {
  return [this, device, callable, args]() -> absl::Status {
    HwLaunchQueue queue(devices_[device].get(), &options_.platform,
                        [this, device, &callable](const rt::LaunchKernel& launch) {
                          return Kernel(device, callable, launch);
                        });
    rt::OrderedLaunchOptions o;
    o.task_window = options_.platform.aicpu().task_window();
    o.tensor_wait_timeout_ns = options_.platform.timeouts().tensor_wait_ns();
    o.op_timeout_ns = options_.platform.timeouts().op_timeout_ns();
    HwRun run;
    run.device = device;
    run.callable = callable.name;
    run.kernel_names = callable.kernel_names;
    run.result = rt::RunChipCallable(queue, callable, args, o);
    const int code = run.result.error_code;
    const std::string text = run.result.error_text;
    {
      std::lock_guard<std::mutex> l(mu_);
      run.run = run_index_[device]++;
      runs_.push_back(std::move(run));
    }
    if (code != 0) return absl::AbortedError(absl::StrCat(callable.name, ": ", text));
    return absl::OkStatus();
  };
}

absl::Status HwHost::Dispatch(int device, const rt::ChipCallable& callable,
                              const rt::ChipArgs& args) {
  if (absl::StatusOr<HwDevice*> d = Device(device); !d.ok()) return d.status();
  return workers_->Enqueue(device, Job(device, callable, args));
}

absl::Status HwHost::DispatchGroup(const std::vector<int>& devices,
                                   const rt::ChipCallable& callable,
                                   const std::vector<rt::ChipArgs>& args) {
  if (devices.size() != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("DispatchGroup: ", devices.size(), " devices, ",
                                                   args.size(), " argument sets"));
  }
  std::vector<rt::DeviceWorkers::Job> jobs;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (absl::StatusOr<HwDevice*> d = Device(devices[i]); !d.ok()) return d.status();
    jobs.push_back(Job(devices[i], callable, args[i]));
  }
  return workers_->EnqueueGroup(devices, std::move(jobs));
}

absl::Status HwHost::Finish() { return workers_->Finish(); }

std::vector<HwRun> HwHost::runs() const {
  std::lock_guard<std::mutex> l(mu_);
  return runs_;
}

}  // namespace pto::hw
