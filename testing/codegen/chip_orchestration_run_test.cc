// The generated seed orchestration (examples/all_to_all_v_chip.pto after the
// default pipeline), linked and run against a recording Orchestrator.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/api/error_codes.h"
#include "runtime/api/orchestrator.h"
#include "runtime/api/task_args.h"

void aicpu_orchestration_entry(pto::rt::Orchestrator& orch, const pto::rt::ChipArgs& args);

namespace {

class RecordingOrchestrator : public pto::rt::Orchestrator {
 public:
  struct Submit {
    int func_id;
    pto::rt::TaskArgs args;
  };
  std::vector<Submit> submits;
  int fatal_code = 0;

  pto::rt::TaskOutputs submit_aiv_task(int func_id, const pto::rt::TaskArgs& args) override {
    if (is_fatal()) return {};
    submits.push_back({func_id, args});
    return {static_cast<pto::rt::TaskId>(100 + submits.size()), {}};
  }
  pto::rt::TaskOutputs submit_aic_task(int, const pto::rt::TaskArgs&) override {
    ADD_FAILURE() << "the seed pipeline has no AIC kernel";
    return {};
  }
  pto::rt::TaskOutputs submit_mix_task(const pto::rt::MixKernels&,
                                       const pto::rt::TaskArgs&) override {
    ADD_FAILURE() << "the seed pipeline has no MIX kernel";
    return {};
  }
  pto::rt::TaskOutputs submit_dummy_task(const pto::rt::TaskArgs&) override {
    ADD_FAILURE() << "the seed pipeline has no dummy task";
    return {};
  }
  void scope_begin() override {}
  void scope_end() override {}
  void manual_scope_begin() override {}
  bool read_tensor(const pto::rt::Tensor&, uint64_t, void*, uint64_t) override { return false; }
  bool write_tensor(const pto::rt::Tensor&, uint64_t, const void*, uint64_t) override {
    return false;
  }
  int available_aiv_count() const override { return 48; }
  int available_aic_count() const override { return 24; }
  int device_id() const override { return 0; }
  bool is_fatal() const override { return fatal_code != 0; }
  void report_fatal(int code, const std::string&) override {
    if (fatal_code == 0) fatal_code = code;
  }
  void log_timing(const std::string&) override {}
};

pto::rt::Tensor Make(uint64_t base, std::initializer_list<uint64_t> dims, uint32_t elem_bytes) {
  pto::rt::Tensor t;
  t.base = base;
  t.elem_bytes = elem_bytes;
  t.bytes = elem_bytes;
  for (uint64_t d : dims) t.bytes *= d;
  return t.WithShape(dims);
}

// inp, out, stage, data, signal, counts, recv; then one CommCtx pointer per
// window parameter: data, signal, counts, recv.
pto::rt::ChipArgs SeedArgs() {
  pto::rt::ChipArgs args;
  args.tensors = {Make(0x1000, {8, 64}, 4), Make(0x2000, {8, 64}, 4), Make(0x3000, {8, 64}, 4),
                  Make(0x4000, {8, 64}, 4), Make(0x5000, {2, 1}, 4),  Make(0x6000, {2}, 4),
                  Make(0x7000, {2, 1}, 4)};
  args.scalars = {0xc0, 0xc1, 0xc2, 0xc3};
  return args;
}

TEST(ChipOrchestrationRunTest, OneSubmitPerKernelCallInOrder) {
  RecordingOrchestrator orch;
  aicpu_orchestration_entry(orch, SeedArgs());
  EXPECT_EQ(orch.fatal_code, 0);
  ASSERT_EQ(orch.submits.size(), 3u);
  EXPECT_EQ(orch.submits[0].func_id, 0);
  EXPECT_EQ(orch.submits[1].func_id, 1);
  EXPECT_EQ(orch.submits[2].func_id, 2);

  const pto::rt::TaskArgs& a2a = orch.submits[1].args;
  ASSERT_EQ(a2a.tensors().size(), 5u);
  const pto::rt::ArgDirection want[] = {
      pto::rt::ArgDirection::kInput, pto::rt::ArgDirection::kInout, pto::rt::ArgDirection::kInout,
      pto::rt::ArgDirection::kInput, pto::rt::ArgDirection::kInout};
  const uint64_t bases[] = {0x3000, 0x4000, 0x5000, 0x6000, 0x7000};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(a2a.tensors()[i].dir, want[i]) << i;
    EXPECT_EQ(a2a.tensors()[i].tensor.base, bases[i]) << i;
  }
  // The kernel takes the contexts of its three window params: target, signal,
  // recv_counts (send_counts is canonically a plain tensor).
  EXPECT_EQ(a2a.scalars(), (std::vector<uint64_t>{0xc0, 0xc1, 0xc3}));
  EXPECT_EQ(a2a.deps(), (std::vector<pto::rt::TaskId>{101}));
  EXPECT_EQ(a2a.launch_spec.core_num, 1);
  EXPECT_FALSE(a2a.has_error());
  EXPECT_EQ(orch.submits[2].args.tensors()[2].dir, pto::rt::ArgDirection::kOutputExisting);
}

// A signal whose shape does not cover its bytes is not a row-major view: the
// collective is not submitted and INVALID_ARGS is latched.
TEST(ChipOrchestrationRunTest, NonContiguousOperandLatchesInvalidArgs) {
  pto::rt::ChipArgs args = SeedArgs();
  args.tensors[4].bytes += 4;
  RecordingOrchestrator orch;
  aicpu_orchestration_entry(orch, args);
  EXPECT_EQ(orch.fatal_code, pto::rt::kErrorInvalidArgs);
  ASSERT_EQ(orch.submits.size(), 1u);
  EXPECT_EQ(orch.submits[0].func_id, 0);
}

}  // namespace
