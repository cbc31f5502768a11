// Operand rules and rejections of the pld.* and builtin.tensor.* operators
// (docs/operators.md), checked through the parser so every rejection is
// seen with its text and its location in the user's program. Names follow
// tests/ut/ir/test_distributed_ops.py (spec §6.3) where one exists.
#include <memory>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::ops {
namespace {

using ir::DataType;

// A HOST function whose params are `params` and whose body is `body` (one
// statement, at line 7 column 9).
std::string Program(const std::string& params, const std::string& body) {
  return "import pypto.language as pl\n"
         "import pypto.language.distributed as pld\n"
         "@pl.program\n"
         "class P:\n"
         "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
         "    def f(self" +
         params + "):\n        " + body + "\n";
}

absl::StatusOr<ir::ProgramPtr> ParseInternal(const std::string& text) {
  parser::ParseOptions o;
  o.allow_internal_ops = true;
  return parser::ParseProgramText("t.pto", text, o);
}

// "line:col: message", or "ok".
std::string Check(const std::string& params, const std::string& body) {
  auto p = ParseInternal(Program(params, body));
  if (p.ok()) return "ok";
  EXPECT_TRUE(IsUserError(p.status())) << p.status();
  auto loc = GetDiagnosticLocation(p.status());
  if (!loc) return std::string(p.status().message());
  return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
         std::string(p.status().message());
}

// The printed type of `x` after `x = <body>`.
std::string ResultType(const std::string& params, const std::string& call) {
  auto p = ParseInternal(Program(params, "x = " + call));
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return "";
  std::string printed = ir::PrintProgram(*p);
  size_t at = printed.find("x: ");
  if (at == std::string::npos) return printed;
  size_t end = printed.find(" = ", at);
  return printed.substr(at + 3, end - at - 3);
}

const char kDT[] = "pld.DistributedTensor";
std::string DT(const std::string& shape, const std::string& dt) {
  return std::string(kDT) + "[" + shape + ", pl." + dt + "]";
}

// Operand params used by most tests.
const std::string kData = ", d: " + DT("[8, 64]", "FP32");
const std::string kSig = ", s: " + DT("[2, 1]", "INT32");

TEST(DistributedOpsTest, AllocReturnsPtrAndRequiresName) {
  EXPECT_EQ(ResultType("", "pld.alloc_window_buffer(64)"), "pl.Ptr");
  const OpRegistry& r = OpRegistry::Global();
  auto size = std::make_shared<ir::ConstInt>(64);
  auto no_name = r.MakeCall("pld.tensor.alloc_window_buffer", {size}, {}, {}, Span());
  EXPECT_EQ(no_name.status().message(), "Missing kwarg 'name' for pld.tensor.alloc_window_buffer");
  auto empty =
      r.MakeCall("pld.tensor.alloc_window_buffer", {size}, {{"name", std::string()}}, {}, Span());
  EXPECT_EQ(empty.status().message(),
            "pld.tensor.alloc_window_buffer requires a non-empty 'name' kwarg");
  auto two = r.MakeCall("pld.tensor.alloc_window_buffer", {size, size},
                        {{"name", std::string("b")}}, {}, Span());
  EXPECT_EQ(two.status().message(),
            "pld.tensor.alloc_window_buffer requires exactly 1 positional argument (size in "
            "bytes)");
}

// The printed value of `x = <call>`.
std::string PrintedValue(const std::string& params, const std::string& call) {
  auto p = ParseInternal(Program(params, "x = " + call));
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return "";
  std::string printed = ir::PrintProgram(*p);
  size_t at = printed.find(" = ", printed.find("x: "));
  return printed.substr(at + 3, printed.find('\n', at) - at - 3);
}

// PyPTO's shape form is the byte size: folded, or a product with the dynamic dims.
TEST(DistributedOpsTest, AllocShapeFormIsByteSize) {
  EXPECT_EQ(PrintedValue("", "pld.alloc_window_buffer([4, 64], dtype=pl.FP32)"),
            "pld.tensor.alloc_window_buffer(1024)");
  EXPECT_EQ(PrintedValue(", n: pl.Scalar[pl.INDEX]",
                         "pld.alloc_window_buffer([n, 2, n], dtype=pl.BF16)"),
            "pld.tensor.alloc_window_buffer(n * n * 4)");
  EXPECT_EQ(Check("", "x = pld.alloc_window_buffer([4, 64])"),
            "7:13: pld.tensor.alloc_window_buffer requires dtype= when the first argument is a "
            "shape (list / tuple of per-rank dimensions)");
  EXPECT_EQ(Check("", "x = pld.alloc_window_buffer(64, dtype=pl.FP32)"),
            "7:13: pld.tensor.alloc_window_buffer dtype= is only valid when the first argument "
            "is a shape (list / tuple), not a scalar byte size");
  EXPECT_EQ(Check("", "x = pld.alloc_window_buffer([4, 0], dtype=pl.FP32)"),
            "7:41: pld.tensor.alloc_window_buffer shape dimension[1] is 0; all dimensions must "
            "be positive");
  EXPECT_EQ(Check("", "x = pld.alloc_window_buffer([], dtype=pl.FP32)"),
            "7:37: pld.tensor.alloc_window_buffer shape must be non-empty");
}

TEST(DistributedOpsTest, WindowRules) {
  EXPECT_EQ(ResultType(", b: pl.Ptr", "pld.window(b, [4, 64], dtype=pl.FP32)"),
            "pld.DistributedTensor[[4, 64], pl.FP32]");
  EXPECT_EQ(Check(", b: pl.Scalar[pl.INDEX]", "x = pld.window(b, [4], dtype=pl.FP32)"),
            "7:13: pld.tensor.window buf must have type Ptr (output of "
            "pld.tensor.alloc_window_buffer)");
  EXPECT_EQ(Check(", b: pl.Ptr, n: pl.Scalar[pl.INDEX]", "x = pld.window(b, n, dtype=pl.FP32)"),
            "7:13: pld.tensor.window shape must be a shape tuple");
  EXPECT_EQ(Check(", b: pl.Ptr", "x = pld.window(b, [4])"),
            "7:13: pld.tensor.window requires kwarg 'dtype' (a dtype such as pl.FP32)");
}

TEST(DistributedOpsTest, SystemOps) {
  EXPECT_EQ(ResultType("", "pld.world_size()"), "pl.Scalar[pl.INT64]");
  EXPECT_EQ(Check("", "x = pld.world_size(1)"), "7:13: pld.system.world_size takes no arguments");
  EXPECT_EQ(ResultType(kData, "pld.get_comm_ctx(d)"), "pld.CommCtx");
  EXPECT_EQ(Check(", t: pl.Tensor[[4], pl.FP32]", "x = pld.get_comm_ctx(t)"),
            "7:13: pld.system.get_comm_ctx expects a DistributedTensor (window-bound), got "
            "Tensor[FP32]");
  EXPECT_EQ(ResultType(", c: pld.CommCtx", "pld.system.rank(c)"), "pl.Scalar[pl.INT32]");
  EXPECT_EQ(ResultType(", c: pld.CommCtx", "pld.system.nranks(c)"), "pl.Scalar[pl.INT32]");
  EXPECT_EQ(Check(kData, "x = pld.system.nranks(d)"),
            "7:13: pld.system.nranks expects a CommCtx, got DistributedTensor[FP32]");
}

TEST(DistributedOpsTest, NotifyWaitDeferWait) {
  EXPECT_EQ(Check(kSig, "pld.system.notify(s, 1, [0, 0], 1, op=1)"), "ok");
  EXPECT_EQ(Check(kSig, "pld.system.notify(s, 1, [0, 0], 1, op=2)"),
            "7:9: pld.system.notify op must be a NotifyOp: AtomicAdd (0) or Set (1), got 2");
  EXPECT_EQ(Check(kSig, "pld.system.notify(s, 1, [0], 1)"),
            "7:33: pld.system.notify offsets must have one entry per target dimension (2)");
  EXPECT_EQ(Check(kSig, "pld.system.wait(s, [0, 0], 1, cmp=1)"), "ok");
  EXPECT_EQ(Check(kSig, "pld.system.wait(s, [0, 0], 1, cmp=2)"),
            "7:9: pld.system.wait cmp must be a WaitCmp: Eq (0) or Ge (1), got 2");
  EXPECT_EQ(Check(kSig, "pld.system.defer_wait(s, [0, 0], 1, cmp=1)"), "ok");
  EXPECT_EQ(Check(kSig, "pld.system.defer_wait(s, [0, 0], 1, cmp=0)"),
            "7:9: pld.system.defer_wait cmp must be Ge (1)");
  EXPECT_EQ(Check(kSig + ", n: pl.Scalar[pl.INT32]", "pld.system.defer_wait(s, [0, 0], n, cmp=1)"),
            "7:9: pld.system.defer_wait expected must be a constant in [0, INT32_MAX]");
  EXPECT_EQ(Check(kData, "pld.system.defer_wait(d, [0, 0], 1, cmp=1)"),
            "7:9: pld.system.defer_wait signal must be an INT32 window of rank >= 1");
}

TEST(DistributedOpsTest, AllreduceRules) {
  EXPECT_EQ(ResultType(kData + kSig, "pld.tensor.allreduce(d, s, op=3, core_num=2)"),
            "pld.DistributedTensor[[8, 64], pl.FP32]");
  // accepts FP16 and a missing signal (SynthesizeAllReduceSignals adds it)
  EXPECT_EQ(Check(", h: " + DT("[8]", "FP16"), "h = pld.tensor.allreduce(h, op=0)"), "ok");
  EXPECT_EQ(Check(kData, "d = pld.tensor.allreduce(d, op=0, mode=\"ring\")"),
            "7:13: pld.tensor.allreduce requires an explicit signal; host signal synthesis only "
            "supports mesh mode");
  EXPECT_EQ(Check(kData + kSig, "d = pld.tensor.allreduce(d, s, op=4)"),
            "7:13: pld.tensor.allreduce op must be a ReduceOp in [0, 3] (Sum, Max, Min, Prod), "
            "got 4");
  EXPECT_EQ(Check(kData + kSig, "d = pld.tensor.allreduce(d, s, core_num=0)"),
            "7:13: pld.tensor.allreduce core_num=0 outside [1, INT32_MAX]");
  EXPECT_EQ(Check(", t: pl.Tensor[[8], pl.FP32]" + kSig, "t = pld.tensor.allreduce(t, s)"),
            "7:13: pld.tensor.allreduce target must be a DistributedTensor (a pld.window view), "
            "got Tensor[FP32]");
  EXPECT_EQ(Check(kData + ", s: " + DT("[2, 1]", "FP32"), "d = pld.tensor.allreduce(d, s)"),
            "7:13: pld.tensor.allreduce signal must be INT32, got FP32");
  // The union of the rails' lists (CollectiveDef); each rail checks its own.
  EXPECT_EQ(Check(", i: " + DT("[8]", "INT32") + kSig, "i = pld.tensor.allreduce(i, s)"), "ok");
  EXPECT_EQ(Check(", i: " + DT("[8]", "INT64") + kSig, "i = pld.tensor.allreduce(i, s)"),
            "7:13: pld.tensor.allreduce target dtype must be one of FP16, FP32, INT32, INT8, "
            "got INT64");
}

TEST(DistributedOpsTest, BarrierBroadcastReduceScatterRules) {
  EXPECT_EQ(ResultType(kSig, "pld.tensor.barrier(s)"), "pld.DistributedTensor[[2, 1], pl.INT32]");
  EXPECT_EQ(Check(kData, "d = pld.tensor.barrier(d)"),
            "7:13: pld.tensor.barrier signal must be INT32, got FP32");
  EXPECT_EQ(Check(kData + kSig, "d = pld.tensor.broadcast(d, s, root=-1)"),
            "7:13: pld.tensor.broadcast root must be >= 0, got -1");
  // Which ops run is the rail's check: the HOST kernel takes all four.
  EXPECT_EQ(Check(kData + kSig, "d = pld.tensor.reduce_scatter(d, s, op=1)"), "ok");
  EXPECT_EQ(Check(kData + kSig, "d = pld.tensor.reduce_scatter(d, s, op=4)"),
            "7:13: pld.tensor.reduce_scatter op must be a ReduceOp in [0, 3] (Sum, Max, Min, "
            "Prod), got 4");
  EXPECT_EQ(Check(", v: " + DT("[8]", "FP32") + kSig, "v = pld.tensor.reduce_scatter(v, s)"),
            "7:13: pld.tensor.reduce_scatter target must be rank-2 [NR, SIZE]");
}

TEST(DistributedOpsTest, AllgatherAndAllToAllRules) {
  const std::string g = ", i: pl.Tensor[[1, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                        ", s: " + DT("[2]", "INT32");
  EXPECT_EQ(ResultType(g, "pld.tensor.allgather(i, t, s)"),
            "pld.DistributedTensor[[2, 64], pl.FP32]");
  EXPECT_EQ(Check(", i: pl.Tensor[[2, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather input dim 0 must be 1");
  EXPECT_EQ(Check(", i: pl.Tensor[[1, 32], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather target SIZE must equal input SIZE");
  EXPECT_EQ(Check(", i: pl.Tensor[[1, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2, 2]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather signal must be [NR] or [NR, 1]");
  EXPECT_EQ(Check(", i: pl.Tensor[[1, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[3]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather signal dim 0 (3) must equal target dim 0 (2)");
  EXPECT_EQ(Check(", i: pl.Tensor[[64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather input must be rank-2 [1, SIZE]");
  EXPECT_EQ(Check(", i: pl.Tensor[[1, 64], pl.FP32], t: " + DT("[64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.allgather(i, t, s)"),
            "7:13: pld.tensor.allgather target must be rank-2");
  EXPECT_EQ(Check(", i: pl.Tensor[[2, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[3]", "INT32"),
                  "t = pld.tensor.all_to_all(i, t, s)"),
            "7:13: pld.tensor.all_to_all signal dim 0 (3) must equal input dim 0 (2)");
  EXPECT_EQ(Check(", i: pl.Tensor[[2, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "FP32"),
                  "t = pld.tensor.all_to_all(i, t, s)"),
            "7:13: pld.tensor.all_to_all signal must be INT32, got FP32");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.all_to_all(t, t, s)"),
            "7:13: pld.tensor.all_to_all input and target must not be the same expression");
  EXPECT_EQ(Check(", i: pl.Tensor[[4, 64], pl.FP32], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.all_to_all(i, t, s)"),
            "7:13: pld.tensor.all_to_all target dim 0 (2) must equal input dim 0 (4)");
  EXPECT_EQ(Check(", i: pl.Tensor[[2, 64], pl.FP16], t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "t = pld.tensor.all_to_all(i, t, s)"),
            "7:13: pld.tensor.all_to_all target dtype must equal input dtype");
}

// all_to_all_v operands: input, target, signal, send_counts, recv_counts.
std::string A2av(const std::string& in, const std::string& tg, const std::string& sig,
                 const std::string& sc, const std::string& rc) {
  return ", i: " + in + ", t: " + tg + ", s: " + sig + ", c: " + sc + ", r: " + rc;
}
const std::string kIn = "pl.Tensor[[8, 64], pl.FP32]";
const std::string kTg = DT("[8, 64]", "FP32");
const std::string kS = DT("[2, 1]", "INT32");
const std::string kSc = "pl.Tensor[[2], pl.INT32]";
const std::string kRc = DT("[2, 1]", "INT32");
const std::string kCall = "t = pld.tensor.all_to_all_v(i, t, s, c, r)";

TEST(DistributedOpsTest, AllToAllVAcceptedForms) {
  EXPECT_EQ(ResultType(A2av(kIn, kTg, kS, kSc, kRc), "pld.tensor.all_to_all_v(i, t, s, c, r)"),
            "pld.DistributedTensor[[8, 64], pl.FP32]");
  // window-bound input and send_counts; [NR, 1] send_counts; a wider lane stride
  EXPECT_EQ(
      Check(A2av(DT("[8, 64]", "FP32"), kTg, DT("[2, 4]", "INT32"), DT("[2, 1]", "INT32"), kRc),
            kCall),
      "ok");
  // core_num as the 6th positional Scalar or as the kwarg
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, kRc) + ", l: pl.Scalar[pl.INDEX]",
                  "t = pld.tensor.all_to_all_v(i, t, s, c, r, l)"),
            "ok");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, kRc),
                  "t = pld.tensor.all_to_all_v(i, t, s, c, r, "
                  "core_num=4)"),
            "ok");
}

TEST(DistributedOpsTest, AllToAllVRejections) {
  const std::string at = "7:13: pld.tensor.all_to_all_v ";
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, kRc), "t = pld.tensor.all_to_all_v(i, t, s, c)"),
            at + "requires 5 to 6 positional arguments, got 4");
  EXPECT_EQ(Check(A2av(kIn, kTg, DT("[2]", "INT32"), kSc, kRc), kCall),
            at + "signal must be rank-2 [NR, S]");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, DT("[2, 2]", "INT32")), kCall),
            at + "recv_counts must be [NR, 1]");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, "pl.Tensor[[2], pl.INT64]", kRc), kCall),
            at + "send_counts must be INT32, got INT64");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, "pl.Tensor[[3], pl.INT32]", kRc), kCall),
            at + "send_counts dim 0 (3) must equal signal dim 0 (NR = 2)");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, "pl.Tensor[[2, 1, 1], pl.INT32]", kRc), kCall),
            at + "send_counts must be [NR] or [NR, 1]");
  EXPECT_EQ(Check(A2av("pl.Tensor[[7, 64], pl.FP32]", DT("[7, 64]", "FP32"), kS, kSc, kRc), kCall),
            at + "signal dim 0 (2) must divide target dim 0 (7)");
  EXPECT_EQ(
      Check(", n: pl.Scalar[pl.INDEX]" + A2av(kIn, DT("[n, 64]", "FP32"), kS, kSc, kRc), kCall),
      at + "target dim 0 (NR*MAX_RECV) must be a compile-time constant");
  EXPECT_EQ(Check(A2av("pl.Tensor[[8, 32], pl.FP32]", kTg, kS, kSc, kRc), kCall),
            at + "target SIZE must equal input SIZE");
  EXPECT_EQ(Check(A2av(kIn, kTg, DT("[0, 1]", "INT32"), "pl.Tensor[[0], pl.INT32]",
                       DT("[0, 1]", "INT32")),
                  kCall),
            at + "signal dim 0 (NR) must be positive");
  EXPECT_EQ(Check(A2av("pl.Tensor[[512], pl.FP32]", kTg, kS, kSc, kRc), kCall),
            at + "input must be rank-2");
  EXPECT_EQ(Check(A2av(kIn, DT("[512]", "FP32"), kS, kSc, kRc), kCall),
            at + "target must be rank-2");
  EXPECT_EQ(Check(A2av(kIn, kTg, DT("[2, 1]", "INT64"), kSc, kRc), kCall),
            at + "signal must be INT32, got INT64");
  EXPECT_EQ(Check(A2av(kIn, kTg, DT("[2, 0]", "INT32"), kSc, kRc), kCall),
            at + "signal dim 1 (lane stride) must be >= 1");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, DT("[2, 1]", "FP32")), kCall),
            at + "recv_counts must be INT32, got FP32");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, DT("[4, 1]", "INT32")), kCall),
            at + "recv_counts dim 0 (4) must equal signal dim 0 (NR = 2)");
  EXPECT_EQ(
      Check(A2av(kIn, "pld.DistributedTensor[[8, 64], pl.FP32, pl.TensorView(valid_shape=[8, 32])]",
                 kS, kSc, kRc),
            kCall),
      at + "target must not have a valid_shape narrower than its shape");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, kRc), "t = pld.tensor.all_to_all_v(t, t, s, c, r)"),
            at + "input and target must not be the same expression");
  // S2: non-ND layout, non-packed stride, narrower valid_shape.
  EXPECT_EQ(Check(A2av("pl.Tensor[[8, 64], pl.FP32, pl.TensorView(layout=pl.TensorLayout.DN)]", kTg,
                       kS, kSc, kRc),
                  kCall),
            at + "input must have ND layout");
  EXPECT_EQ(
      Check(A2av("pl.Tensor[[8, 64], pl.FP32, pl.TensorView(stride=[128, 1])]", kTg, kS, kSc, kRc),
            kCall),
      at + "input must be packed (compact row-major stride)");
  EXPECT_EQ(
      Check(A2av("pl.Tensor[[8, 64], pl.FP32, pl.TensorView(stride=[64, 1])]", kTg, kS, kSc, kRc),
            kCall),
      "ok");
  EXPECT_EQ(Check(A2av("pl.Tensor[[8, 64], pl.FP32, pl.TensorView(valid_shape=[4, 64])]", kTg, kS,
                       kSc, kRc),
                  kCall),
            at + "input must not have a valid_shape narrower than its shape");
  EXPECT_EQ(Check(A2av(kIn, kTg, kS, kSc, kRc) + ", l: pl.Scalar[pl.INDEX]",
                  "t = pld.tensor.all_to_all_v(i, t, s, c, r, l, core_num=2)"),
            at + "core_num given both as the 6th argument and as a kwarg");
  EXPECT_EQ(
      Check(A2av(kIn, kTg, kS, kSc, kRc), "t = pld.tensor.all_to_all_v(i, t, s, c, r, core_num=0)"),
      at + "core_num=0 outside [1, INT32_MAX]");
}

TEST(DistributedOpsTest, IndexedAllToAllVCoreNumIsACompileTimePositiveInt) {
  const std::string params = ", i: " + kIn + ", t: " + kTg + ", s: " + kS +
                             ", c: " + DT("[2]", "INT32") +
                             ", r: pl.Tensor[[2, 1], pl.INT32], x: "
                             "pl.Tensor[[8], pl.INT32]";
  EXPECT_EQ(Check(params, "t = pld.tensor.indexed_all_to_all_v(i, t, s, c, r, x, core_num=2)"),
            "ok");
  EXPECT_EQ(Check(params, "t = pld.tensor.indexed_all_to_all_v(i, t, s, c, r, x, core_num=0)"),
            "7:13: pld.tensor.indexed_all_to_all_v core_num=0 outside [1, INT32_MAX]");
  // The one range check of every collective's core_num (CheckCoreNum).
  EXPECT_EQ(Check(params,
                  "t = pld.tensor.indexed_all_to_all_v(i, t, s, c, r, x, core_num=2147483648)"),
            "7:13: pld.tensor.indexed_all_to_all_v core_num=2147483648 outside [1, INT32_MAX]");
  EXPECT_EQ(Check(params + ", l: pl.Scalar[pl.INDEX]",
                  "t = pld.tensor.indexed_all_to_all_v(i, t, s, c, r, x, core_num=l)"),
            "7:13: pld.tensor.indexed_all_to_all_v core_num must be a compile-time positive int");
  EXPECT_EQ(Check(", i: " + kIn + ", t: " + kTg + ", s: " + kS +
                      ", c: pl.Tensor[[2], pl.INT32], r: pl.Tensor[[2, 1], pl.INT32], x: "
                      "pl.Tensor[[8], pl.INT32]",
                  "t = pld.tensor.indexed_all_to_all_v(i, t, s, c, r, x)"),
            "7:13: pld.tensor.indexed_all_to_all_v send_counts must be a DistributedTensor (a "
            "pld.window view), got Tensor[INT32]");
}

TEST(DistributedOpsTest, EffectsOfTheCollectives) {
  const OpRegistry& r = OpRegistry::Global();
  const OpDef* a2av = r.Find("pld.tensor.all_to_all_v");
  EXPECT_EQ(a2av->EffectOf(0), ArgEffect::kRead);
  EXPECT_EQ(a2av->EffectOf(1), ArgEffect::kWrite);
  EXPECT_EQ(a2av->EffectOf(2), ArgEffect::kReadWrite);
  EXPECT_EQ(a2av->EffectOf(3), ArgEffect::kRead);
  EXPECT_EQ(a2av->EffectOf(4), ArgEffect::kWrite);
  EXPECT_EQ(r.Find("pld.tensor.allreduce")->EffectOf(1), ArgEffect::kReadWrite);
  EXPECT_EQ(r.Find("pld.tensor.allgather")->EffectOf(1), ArgEffect::kWrite);
  EXPECT_EQ(r.Find("builtin.tensor.all_to_all_v")->EffectOf(4), ArgEffect::kWrite);
}

// ---------------------------------------------------------------- builtins

TEST(BuiltinOpsTest, InternalOnlyWithTemplateDirs) {
  for (const char* n : {"allreduce", "allreduce_ring", "barrier", "broadcast", "reduce_scatter",
                        "allgather", "all_to_all", "all_to_all_v"}) {
    const OpDef* d = OpRegistry::Global().Find(std::string("builtin.tensor.") + n);
    ASSERT_NE(d, nullptr) << n;
    EXPECT_TRUE(d->internal_only);
    EXPECT_EQ(d->template_dir, std::string(":pypto.runtime.builtins.collectives.") + n);
  }
  auto p = parser::ParseProgramText("t.pto", Program(kSig, "builtin.tensor.barrier(s)"));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "'builtin.tensor.barrier' is an internal operator created by the compiler and cannot "
            "be written in a program; call the public pld.tensor.* collective instead");
  EXPECT_EQ(GetDiagnosticLocation(p.status())->line, 7);
  EXPECT_EQ(GetDiagnosticLocation(p.status())->col, 9);
}

TEST(BuiltinOpsTest, ExtraChecks) {
  const std::string at = "7:9: builtin.tensor.";
  EXPECT_EQ(Check(kData + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.allreduce(d, s, op=0, dtype=pl.FP32, core_num=2)"),
            at + "allreduce rank-1 signal is valid only when core_num=1");
  EXPECT_EQ(Check(kData + ", s: " + DT("[2, 2]", "INT32"),
                  "builtin.tensor.allreduce(d, s, op=0, dtype=pl.FP32, core_num=4)"),
            at + "allreduce rank-2 signal shape[1] must be a constant >= core_num (4)");
  EXPECT_EQ(Check(kData + kSig, "builtin.tensor.allreduce(d, s, op=0, dtype=pl.FP16, core_num=1)"),
            at + "allreduce dtype kwarg (FP16) must equal the data dtype (FP32)");
  EXPECT_EQ(Check(kData + ", s: " + DT("[5, 4]", "INT32"),
                  "builtin.tensor.allreduce_ring(d, s, op=0, dtype=pl.FP32)"),
            at + "allreduce_ring signal shape[0] (5) must be 2*(NR-1)+1 = 7");
  EXPECT_EQ(Check(kData + ", s: " + DT("[35, 18]", "INT32"),
                  "builtin.tensor.allreduce_ring(d, s, op=0, dtype=pl.FP32)"),
            at + "allreduce_ring supports at most 16 ranks, got 18");
  // Our ring kernel reduces with every op and element type (CollectiveDef).
  EXPECT_EQ(Check(kData + ", s: " + DT("[7, 4]", "INT32"),
                  "builtin.tensor.allreduce_ring(d, s, op=1, dtype=pl.FP32)"),
            "ok");
  EXPECT_EQ(Check(", h: " + DT("[8, 64]", "FP64") + ", s: " + DT("[7, 4]", "INT32"),
                  "builtin.tensor.allreduce_ring(h, s, op=0, dtype=pl.FP64)"),
            at + "allreduce_ring supports FP32, FP16, INT32, INT8 on the HOST rail, got FP64");
  EXPECT_EQ(Check(kData + kSig, "builtin.tensor.allreduce(d, s, op=0, dtype=pl.FP32, core_num=0)"),
            at + "allreduce core_num=0 outside [1, INT32_MAX]");
  EXPECT_EQ(Check(", n: pl.Scalar[pl.INDEX], v: " + DT("[n, 64]", "FP32") +
                      ", s: " + DT("[3, 2]", "INT32"),
                  "builtin.tensor.allreduce_ring(v, s, op=0, dtype=pl.FP32)"),
            at + "allreduce_ring requires a statically-known src shape when NR is constant");
  EXPECT_EQ(Check(", v: " + DT("[3, 3]", "FP32") + ", s: " + DT("[3, 2]", "INT32"),
                  "builtin.tensor.allreduce_ring(v, s, op=0, dtype=pl.FP32)"),
            at + "allreduce_ring src element count (9) must be divisible by NR (2)");
  EXPECT_EQ(Check(kData + ", s: " + DT("[3]", "INT32"),
                  "builtin.tensor.allreduce_ring(d, s, op=0, dtype=pl.FP32)"),
            at + "allreduce_ring signal must be rank-2 [2*(NR-1)+1, NR]");
  EXPECT_EQ(Check(kData + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.allreduce(d, s, op=7, dtype=pl.FP32, core_num=1)"),
            at + "allreduce op must be in [0, 3] (Sum..Prod), got 7");
  EXPECT_EQ(Check(kData + ", s: " + DT("[2]", "FP32"),
                  "builtin.tensor.allreduce(d, s, op=0, dtype=pl.FP32, core_num=1)"),
            at + "allreduce signal must be INT32, got FP32");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.broadcast(t, s, root=-1, dtype=pl.FP32)"),
            at + "broadcast root must be >= 0, got -1");
  EXPECT_EQ(Check(", t: " + DT("[64]", "FP32") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.reduce_scatter(t, s, op=0, dtype=pl.FP32)"),
            at + "reduce_scatter target must be rank-2 [NR, SIZE]");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.allgather(t, t, s, dtype=pl.FP32)"),
            at + "allgather input and target must not be the same expression");
  EXPECT_EQ(Check(", i: " + DT("[1, 64]", "FP16") + ", t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.allgather(i, t, s, dtype=pl.FP32)"),
            at + "allgather input and target dtypes differ");
  EXPECT_EQ(Check(", i: " + DT("[64]", "FP32") + ", t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.all_to_all(i, t, s, dtype=pl.FP32)"),
            at + "all_to_all input and target must be rank-2");
  EXPECT_EQ(Check(", i: " + DT("[2, 64]", "FP32") + ", t: " + DT("[2, 64]", "FP32") +
                      ", s: " + DT("[2, 3]", "INT32"),
                  "builtin.tensor.all_to_all(i, t, s, dtype=pl.FP32)"),
            at + "all_to_all signal must be [NR] or [NR, 1]");
  EXPECT_EQ(Check(", i: " + DT("[8, 64]", "FP32") + ", t: " + DT("[8, 64]", "FP32") + ", s: " + kS +
                      ", c: " + DT("[2]", "INT64") + ", r: " + kRc,
                  "builtin.tensor.all_to_all_v(i, t, s, c, r, dtype=pl.FP32)"),
            at + "all_to_all_v send_counts must be INT32");
  EXPECT_EQ(Check(", i: " + DT("[8, 64]", "FP32") + ", t: " + DT("[8, 64]", "FP16") + ", s: " + kS +
                      ", c: " + DT("[2]", "INT32") + ", r: " + kRc,
                  "builtin.tensor.all_to_all_v(i, t, s, c, r, dtype=pl.FP16)"),
            at + "all_to_all_v input and target dtypes differ");
  // PyPTO's rank-2 [world_size, 1] signal of every HOST collective (one lane
  // per device); a wider one is not one lane per device.
  EXPECT_EQ(Check(kSig, "builtin.tensor.barrier(s)"), "ok");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + kSig,
                  "builtin.tensor.broadcast(t, s, root=1, dtype=pl.FP32)"),
            "ok");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + kSig,
                  "builtin.tensor.reduce_scatter(t, s, op=0, dtype=pl.FP32)"),
            "ok");
  EXPECT_EQ(Check(", s: " + DT("[2, 4]", "INT32"), "builtin.tensor.barrier(s)"),
            at + "barrier signal must be [NR] or [NR, 1]");
  EXPECT_EQ(Check(", s: " + DT("[2, 1, 1]", "INT32"), "builtin.tensor.barrier(s)"),
            at + "barrier signal must be rank-1 or rank-2, got rank 3");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "FP32") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.reduce_scatter(t, s, op=2, dtype=pl.FP32)"),
            "ok");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "INT8") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.broadcast(t, s, root=0, dtype=pl.INT8)"),
            "ok");
  EXPECT_EQ(Check(", t: " + DT("[2, 64]", "UINT16") + ", s: " + DT("[2]", "INT32"),
                  "builtin.tensor.broadcast(t, s, root=0, dtype=pl.UINT16)"),
            at + "broadcast supports FP32, FP16, INT32, INT8 on the HOST rail, got UINT16");
  EXPECT_EQ(Check(", i: " + DT("[8, 64]", "INT8") + ", t: " + DT("[8, 64]", "INT8") + ", s: " + kS +
                      ", c: " + DT("[2]", "INT32") + ", r: " + kRc,
                  "builtin.tensor.all_to_all_v(i, t, s, c, r, dtype=pl.INT8)"),
            "ok");
  EXPECT_EQ(Check(", i: " + DT("[8, 64]", "FP16") + ", t: " + DT("[8, 64]", "FP16") + ", s: " + kS +
                      ", c: " + DT("[2]", "INT32") + ", r: " + kRc,
                  "builtin.tensor.all_to_all_v(i, t, s, c, r, dtype=pl.FP16)"),
            at + "all_to_all_v supports FP32, INT8 on the HOST rail, got FP16");
}

TEST(CollectiveDTypesTest, AllowlistsPerRail) {
  using R = CollectiveRail;
  const std::vector<DataType> host = {DataType::kFP32, DataType::kFP16, DataType::kInt32,
                                      DataType::kInt8};
  EXPECT_EQ(CollectiveDTypes(R::kHost, "allreduce"), host);
  EXPECT_EQ(CollectiveDTypes(R::kHost, "allreduce_ring"), host);
  EXPECT_EQ(CollectiveDTypes(R::kHost, "broadcast"), host);
  EXPECT_EQ(CollectiveDTypes(R::kHost, "barrier"), std::nullopt);  // no data
  EXPECT_EQ(CollectiveDTypes(R::kChip, "indexed_all_to_all_v"), std::nullopt);  // no builtin
  EXPECT_EQ(CollectiveDTypes(R::kHost, "all_to_all_v"),
            (std::vector<DataType>{DataType::kFP32, DataType::kInt8}));
  EXPECT_EQ(CollectiveDTypes(R::kInCore, "allreduce_ring"),
            (std::vector<DataType>{DataType::kFP16, DataType::kFP32}));
  EXPECT_EQ(CollectiveDTypes(R::kInCore, "all_to_all_v"), std::nullopt);
  EXPECT_EQ(CollectiveDTypes(R::kChip, "all_to_all_v"),
            (std::vector<DataType>{DataType::kFP32, DataType::kInt8}));
  EXPECT_EQ(CollectiveDTypes(R::kChip, "allreduce"), std::vector<DataType>{});
  EXPECT_EQ(
      CheckCollectiveDType(R::kChip, "allreduce", DataType::kFP32, "pld.tensor.allreduce", Span())
          .message(),
      "pld.tensor.allreduce is not supported on the CHIP rail");
  EXPECT_TRUE(CheckCollectiveDType(R::kInCore, "broadcast", DataType::kInt8, "x", Span()).ok());
}

}  // namespace
}  // namespace pto::ops
