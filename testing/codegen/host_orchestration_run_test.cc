// The generated HOST orchestration of examples/all_to_all_v_host.pto (after
// the default pipeline), linked and run against a recording Host.
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "runtime/api/host.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

absl::Status host_orchestration_entry(
    pto::rt::Host& host, const std::map<std::string, pto::rt::ChipCallable>& callables,
    const std::vector<pto::rt::Tensor>& inputs, const std::vector<pto::rt::Tensor>& outputs);

namespace {

constexpr int kDevices = 2;

// Windows at 0x10000 * (device + 1), buffers laid out in spec order; the
// CommContext of device d at 0x900 + d.
class RecordingHost : public pto::rt::Host {
 public:
  struct Dispatched {
    int device;
    std::string callable;
    pto::rt::ChipArgs args;
  };
  std::vector<pto::rt::DomainSpec> domains;
  std::vector<Dispatched> dispatches;

  int device_count() const override { return kDevices; }
  absl::StatusOr<pto::rt::Domain> CreateDomain(const pto::rt::DomainSpec& spec) override {
    domains.push_back(spec);
    pto::rt::Domain domain{spec.name, {}};
    for (size_t i = 0; i < spec.devices.size(); ++i) {
      pto::rt::ChipDomainContext rank;
      rank.domain_rank = static_cast<int>(i);
      rank.domain_size = static_cast<int>(spec.devices.size());
      rank.device = spec.devices[i];
      rank.device_ctx = {static_cast<uint64_t>(0x900 + rank.device), 0, 64, rank.device, 8};
      rank.local_window_base = 0x10000 * static_cast<uint64_t>(rank.device + 1);
      rank.window_size = spec.window_size;
      uint64_t offset = 0;
      for (const pto::rt::CommBufferSpec& b : spec.buffers) {
        rank.buffers[b.name] = {rank.local_window_base + offset, 0, b.bytes, rank.device, 1};
        offset += b.bytes;
      }
      domain.ranks.push_back(rank);
    }
    return domain;
  }
  absl::StatusOr<pto::rt::Tensor> Alloc(int, uint64_t, const std::string&) override {
    return absl::UnimplementedError("the HOST example allocates nothing");
  }
  absl::Status CopyTo(const pto::rt::Tensor&, const void*, uint64_t) override {
    return absl::OkStatus();
  }
  absl::Status CopyFrom(void*, const pto::rt::Tensor&, uint64_t) override {
    return absl::OkStatus();
  }
  absl::Status Dispatch(int device, const pto::rt::ChipCallable& callable,
                        const pto::rt::ChipArgs& args) override {
    dispatches.push_back({device, callable.name, args});
    return absl::OkStatus();
  }
  absl::Status DispatchGroup(const std::vector<int>&, const pto::rt::ChipCallable&,
                             const std::vector<pto::rt::ChipArgs>&) override {
    return absl::UnimplementedError("not used");
  }
};

std::map<std::string, pto::rt::ChipCallable> Callables() {
  std::map<std::string, pto::rt::ChipCallable> callables;
  for (const char* name :
       {"stage_pipeline", "consume_pipeline", "builtin_tensor_all_to_all_v__fp32"}) {
    callables[name].name = name;
  }
  return callables;
}

// A [2, 8, 64] FP32 param's copy on each device.
std::vector<pto::rt::Tensor> PerDevice(uint64_t base) {
  std::vector<pto::rt::Tensor> copies;
  for (int d = 0; d < kDevices; ++d) {
    copies.push_back({base + 0x100000 * static_cast<uint64_t>(d), 0, 2 * 8 * 64 * 4, d, 4});
  }
  return copies;
}

TEST(HostOrchestrationRunTest, DomainAndDispatchesOfTheHostRail) {
  RecordingHost host;
  ASSERT_TRUE(host_orchestration_entry(host, Callables(), PerDevice(0x1000000),
                                       PerDevice(0x2000000))
                  .ok());
  ASSERT_EQ(host.domains.size(), 1u);
  const pto::rt::DomainSpec& spec = host.domains[0];
  EXPECT_EQ(spec.devices, (std::vector<int>{0, 1}));
  uint64_t sum = 0;
  for (const pto::rt::CommBufferSpec& b : spec.buffers) {
    EXPECT_EQ(b.bytes % 32, 0u) << b.name;
    sum += b.bytes;
  }
  EXPECT_EQ(spec.window_size, sum);
  ASSERT_EQ(spec.buffers.size(), 6u);
  EXPECT_EQ(spec.buffers.back().name, "_ord");

  ASSERT_EQ(host.dispatches.size(), 6u);
  const char* order[] = {"stage_pipeline", "builtin_tensor_all_to_all_v__fp32",
                         "consume_pipeline"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(host.dispatches[i].callable, order[i / 2]) << i;
    EXPECT_EQ(host.dispatches[i].device, i % 2) << i;
  }
  for (int r = 0; r < kDevices; ++r) {
    const uint64_t window = 0x10000 * static_cast<uint64_t>(r + 1);
    const uint64_t ctx = 0x900 + static_cast<uint64_t>(r);

    // stage_pipeline(inputs[r], stage, counts, stage_ctx, counts_ctx)
    const pto::rt::ChipArgs& stage = host.dispatches[r].args;
    ASSERT_EQ(stage.tensors.size(), 3u);
    EXPECT_EQ(stage.tensors[0].device, r);
    EXPECT_EQ(stage.tensors[0].addr(), 0x1000000 + 0x100000 * r + 2048 * r);
    EXPECT_EQ(stage.tensors[0].bytes, 2048u);
    EXPECT_EQ(stage.tensors[1].addr(), window);
    EXPECT_EQ(stage.scalars, (std::vector<uint64_t>{ctx, ctx}));

    // builtin: 5 operands + _ord; CommContext*, core_num.
    const pto::rt::ChipArgs& builtin = host.dispatches[2 + r].args;
    ASSERT_EQ(builtin.tensors.size(), 6u);
    const pto::rt::Tensor& target = builtin.tensors[1];
    EXPECT_EQ(target.addr(), window + 2048);
    EXPECT_EQ(target.elem_bytes, 4u);
    EXPECT_EQ(target.ndims, 2u);
    EXPECT_EQ(target.shape[0], 8u);
    EXPECT_EQ(target.shape[1], 64u);
    const pto::rt::Tensor& signal = builtin.tensors[2];
    EXPECT_EQ(signal.bytes, 8u);
    EXPECT_EQ(signal.ndims, 2u);
    EXPECT_EQ(signal.shape[0], 2u);
    EXPECT_EQ(signal.shape[1], 1u);
    for (const pto::rt::Tensor& t : builtin.tensors) {
      EXPECT_TRUE(pto::rt::ShapeError(t).empty()) << pto::rt::ShapeError(t);
      EXPECT_EQ(t.device, r);
    }
    EXPECT_EQ(builtin.tensors[5].addr(), window + 2048 * 2 + 32 * 3);  // _ord
    EXPECT_EQ(builtin.scalars, (std::vector<uint64_t>{ctx, 1}));

    // consume_pipeline(data, outputs[r], data_ctx)
    const pto::rt::ChipArgs& consume = host.dispatches[4 + r].args;
    ASSERT_EQ(consume.tensors.size(), 2u);
    EXPECT_EQ(consume.tensors[0].addr(), window + 2048);
    EXPECT_EQ(consume.tensors[1].addr(), 0x2000000 + 0x100000 * r + 2048 * r);
    EXPECT_EQ(consume.scalars, (std::vector<uint64_t>{ctx}));
  }
}

TEST(HostOrchestrationRunTest, MissingCallableIsNotFound) {
  RecordingHost host;
  std::map<std::string, pto::rt::ChipCallable> callables = Callables();
  callables.erase("builtin_tensor_all_to_all_v__fp32");
  absl::Status status =
      host_orchestration_entry(host, callables, PerDevice(0x1000000), PerDevice(0x2000000));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(host.dispatches.size(), 2u);  // the stage loop ran
}

TEST(HostOrchestrationRunTest, ParamsNeedOneTensorPerDevice) {
  RecordingHost host;
  absl::Status status =
      host_orchestration_entry(host, Callables(), {}, PerDevice(0x2000000));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
