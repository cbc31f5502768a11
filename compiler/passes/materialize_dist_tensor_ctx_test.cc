// MaterializeDistTensorCtx (spec §3.12), text in / text out. Test names follow
// tests/ut/ir/transforms/test_materialize_dist_tensor_ctx.py (spec §6.3).
#include "compiler/passes/materialize_dist_tensor_ctx.h"

#include <string>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

constexpr char kHeader[] =
    "import pypto.language as pl\n"
    "import pypto.language.distributed as pld\n"
    "\n"
    "@pl.program\n"
    "class P:\n";

ir::ProgramPtr Parse(const std::string& body) {
  auto p = parser::ParseProgramText("t.pto", kHeader + body);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return nullptr;
  EXPECT_TRUE(ir::VerifyProgram(*p).ok()) << ir::VerifyProgram(*p);
  EXPECT_TRUE(VerifyReturnParamsExplicit(*p).ok());
  return *p;
}

absl::StatusOr<ir::ProgramPtr> RunPass(const ir::ProgramPtr& p) {
  MaterializeDistTensorCtxPass pass;
  absl::StatusOr<ir::ProgramPtr> out = pass.Run(p);
  if (out.ok()) {
    absl::Status v = ir::VerifyProgram(*out);
    EXPECT_TRUE(v.ok()) << v << "\n" << ir::PrintProgram(*out);
  }
  return out;
}

absl::StatusOr<ir::ProgramPtr> RunPassUnverified(const ir::ProgramPtr& p) {
  MaterializeDistTensorCtxPass pass;
  return pass.Run(p);
}

// The printed function `name` of the pass output.
std::string Lowered(const std::string& body, const std::string& name) {
  ir::ProgramPtr p = Parse(body);
  if (p == nullptr) return "";
  auto out = RunPass(p);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "";
  // Re-parses: the output is a valid program.
  auto again = parser::ParseProgramText("o.pto", ir::PrintProgram(*out));
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << ir::PrintProgram(*out);
  return ir::PrintFunction((*out)->GetFunction(name));
}

// "line:col: message" of the pass's error.
std::string ErrorOf(const std::string& body) {
  ir::ProgramPtr p = Parse(body);
  if (p == nullptr) return "";
  auto out = RunPass(p);
  EXPECT_FALSE(out.ok());
  if (out.ok()) return "";
  EXPECT_TRUE(IsUserError(out.status())) << out.status();
  auto loc = GetDiagnosticLocation(out.status());
  // Header lines are 5; report lines of `body` (1-based).
  return loc ? StrCat(loc->line - 5, ":", loc->col, ": ", out.status().message())
             : std::string(out.status().message());
}

constexpr char kKernel[] = R"(
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], x: pl.Tensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        return data
)";

TEST(MaterializeDistTensorCtxTest, NoDistributedParamsIsIdentity) {
  ir::ProgramPtr p = Parse(R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x
)");
  auto out = RunPass(p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, p);
}


// Functions `kernel(data: DT, x)` (InCore, returns data) and the chip/host
// around them; a test appends its own functions.
constexpr char kChip[] = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        out = self.kernel(data, x)
        return out
)";

// An opaque helper whose result is not one of its params: untraceable.
constexpr char kMk[] = R"(
    @pl.function
    def mk(self, a: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        for i, (d,) in pl.range(2, init_values=(a,)):
            d2 = pl.yield_(d)
        return d2
)";

TEST(MaterializeDistTensorCtxTest, HostDispatchMaterializesCommCtxArgs) {
  std::string body = std::string(kKernel) + kChip + R"(
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pld.comm_domain("comm_d0", devices=[], slots=["buf"]):
            buf = pld.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.window(buf, [64], dtype=pl.FP32)
            for r in pl.range(pld.world_size()):
                res = self.chip(x, data, device=r)
                res2 = self.chip(x, res, device=r)
            last = self.chip(x, data, device=0)
)";
  EXPECT_EQ(Lowered(body, "kernel"), R"pto(    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], x: pl.Tensor[[64], pl.FP32], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        return data
)pto");
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        out: pld.DistributedTensor[[64], pl.FP32] = self.kernel(data, x, data_ctx)
        return out
)pto");
  EXPECT_EQ(Lowered(body, "host"), R"pto(    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pld.comm_domain("comm_d0", devices=[], slots=["buf"]):
            buf: pl.Ptr = pld.tensor.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.tensor.window(buf, [64], dtype=pl.FP32)
            for r in pl.range(pld.system.world_size()):
                data_ctx: pld.CommCtx = pld.system.get_comm_ctx(data)
                res: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, data, data_ctx, device=r)
                res_ctx: pld.CommCtx = pld.system.get_comm_ctx(res)
                res2: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, res, res_ctx, device=r)
            data_ctx_1: pld.CommCtx = pld.system.get_comm_ctx(data)
            last: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, data, data_ctx_1, device=0)
)pto");
}

TEST(MaterializeDistTensorCtxTest, HostPrefixInBranchDoesNotLeak) {
  std::string body = std::string(kKernel) + kChip + R"(
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        with pld.comm_domain("comm_d0", devices=[0], slots=["buf"]):
            buf = pld.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.window(buf, [64], dtype=pl.FP32)
            if flag:
                a = self.chip(x, data, device=0)
            b = self.chip(x, data, device=0)
)";
  EXPECT_EQ(Lowered(body, "host"), R"pto(    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        with pld.comm_domain("comm_d0", devices=[0], slots=["buf"]):
            buf: pl.Ptr = pld.tensor.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.tensor.window(buf, [64], dtype=pl.FP32)
            if flag:
                data_ctx: pld.CommCtx = pld.system.get_comm_ctx(data)
                a: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, data, data_ctx, device=0)
            data_ctx_1: pld.CommCtx = pld.system.get_comm_ctx(data)
            b: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, data, data_ctx_1, device=0)
)pto");
}

TEST(MaterializeDistTensorCtxTest, HostGetCommCtxIsKept) {
  std::string body = R"(
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pld.comm_domain("comm_d0", devices=[0], slots=["buf"]):
            buf = pld.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.window(buf, [64], dtype=pl.FP32)
            c = pld.system.get_comm_ctx(data)
)";
  ir::ProgramPtr p = Parse(body);
  auto out = RunPass(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

TEST(MaterializeDistTensorCtxTest, WrapperCallsForwardMaterializedCommCtxParams) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Spmd)
    def wrapper(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], x: pl.Tensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        self.kernel(data, x, arg_directions=[pl.ArgDirection.InOut, pl.ArgDirection.Input])
        return data
)";
  EXPECT_EQ(Lowered(body, "wrapper"), R"pto(    @pl.function(type=pl.FunctionType.Spmd)
    def wrapper(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], x: pl.Tensor[[64], pl.FP32], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        self.kernel(data, x, data_ctx, arg_directions=[pl.ArgDirection.InOut, pl.ArgDirection.Input, pl.ArgDirection.Scalar])
        return data
)pto");
}

TEST(MaterializeDistTensorCtxTest, MaterializedCommCtxParamNameAvoidsExistingParam) {
  std::string body = R"(
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], data_ctx: pl.Scalar[pl.INT32]) -> pld.DistributedTensor[[64], pl.FP32]:
        return data
)";
  EXPECT_EQ(Lowered(body, "kernel"), R"pto(    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], data_ctx: pl.Scalar[pl.INT32], data_ctx_1: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        return data
)pto");
}

TEST(MaterializeDistTensorCtxTest, MaterializedCommCtxParamNameAvoidsExistingLocal) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        data_ctx = 3
        out = self.kernel(data, x)
        return out
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], data_ctx_1: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        data_ctx: pl.Scalar[pl.INDEX] = 3
        out: pld.DistributedTensor[[64], pl.FP32] = self.kernel(data, x, data_ctx_1)
        return out
)pto");
}

TEST(MaterializeDistTensorCtxTest, MaterializedLocalCommCtxNameAvoidsExistingLocal) {
  std::string body = std::string(kKernel) + kChip + R"(
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pld.comm_domain("comm_d0", devices=[0], slots=["buf"]):
            buf = pld.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.window(buf, [64], dtype=pl.FP32)
            data_ctx = 7
            res = self.chip(x, data, device=0)
)";
  EXPECT_EQ(Lowered(body, "host"), R"pto(    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32]):
        with pld.comm_domain("comm_d0", devices=[0], slots=["buf"]):
            buf: pl.Ptr = pld.tensor.alloc_window_buffer(256)
            data: pld.DistributedTensor[[64], pl.FP32, pld.WindowBuffer("buf")] = pld.tensor.window(buf, [64], dtype=pl.FP32)
            data_ctx: pl.Scalar[pl.INDEX] = 7
            data_ctx_1: pld.CommCtx = pld.system.get_comm_ctx(data)
            res: pld.DistributedTensor[[64], pl.FP32] = self.chip(x, data, data_ctx_1, device=0)
)pto");
}

TEST(MaterializeDistTensorCtxTest, ParamAliasForwardsMaterializedCommCtxParam) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        alias = data
        out = self.kernel(alias, x)
        return out
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        alias: pld.DistributedTensor[[64], pl.FP32] = data
        out: pld.DistributedTensor[[64], pl.FP32] = self.kernel(alias, x, data_ctx)
        return out
)pto");
}

TEST(MaterializeDistTensorCtxTest, ReturnedMixedValuesUseReorderedDistributedParamContexts) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.InCore)
    def swap(self, a: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], t: pl.Tensor[[64], pl.FP32], b: pl.InOut[pld.DistributedTensor[[64], pl.FP32]]) -> tuple[pld.DistributedTensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pld.DistributedTensor[[64], pl.FP32]]:
        return b, t, a

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, t: pl.Tensor[[64], pl.FP32], u: pld.DistributedTensor[[64], pl.FP32], v: pld.DistributedTensor[[64], pl.FP32]):
        p, q, s = self.swap(u, t, v)
        r1 = self.kernel(p, q)
        r2 = self.kernel(s, q)
)";
  EXPECT_EQ(Lowered(body, "swap"), R"pto(    @pl.function(type=pl.FunctionType.InCore)
    def swap(self, a: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], t: pl.Tensor[[64], pl.FP32], b: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], a_ctx: pld.CommCtx, b_ctx: pld.CommCtx) -> tuple[pld.DistributedTensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pld.DistributedTensor[[64], pl.FP32]]:
        return b, t, a
)pto");
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, t: pl.Tensor[[64], pl.FP32], u: pld.DistributedTensor[[64], pl.FP32], v: pld.DistributedTensor[[64], pl.FP32], u_ctx: pld.CommCtx, v_ctx: pld.CommCtx):
        _tuple_tmp: tuple[pld.DistributedTensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pld.DistributedTensor[[64], pl.FP32]] = self.swap(u, t, v, u_ctx, v_ctx)
        p: pld.DistributedTensor[[64], pl.FP32] = _tuple_tmp[0]
        q: pl.Tensor[[64], pl.FP32] = _tuple_tmp[1]
        s: pld.DistributedTensor[[64], pl.FP32] = _tuple_tmp[2]
        r1: pld.DistributedTensor[[64], pl.FP32] = self.kernel(p, q, v_ctx)
        r2: pld.DistributedTensor[[64], pl.FP32] = self.kernel(s, q, u_ctx)
)pto");
}

TEST(MaterializeDistTensorCtxTest, LoopCarriedReturnedDistributedTensorsReuseContexts) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pld.DistributedTensor[[64], pl.FP32]:
        for i, (d,) in pl.range(4, init_values=(data,)):
            d2 = self.kernel(d, x)
            d3 = pl.yield_(d2)
        for (w,) in pl.while_(init_values=(d3,)):
            pl.cond(n > 0)
            w2 = self.kernel(w, x)
            w3 = pl.yield_(w2)
        out = self.kernel(w3, x)
        return out
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        for i, (d,) in pl.range(4, init_values=(data,)):
            d2: pld.DistributedTensor[[64], pl.FP32] = self.kernel(d, x, data_ctx)
            d3 = pl.yield_(d2)
        for (w,) in pl.while_(init_values=(d3,)):
            pl.cond(n > 0)
            w2: pld.DistributedTensor[[64], pl.FP32] = self.kernel(w, x, data_ctx)
            w3 = pl.yield_(w2)
        out: pld.DistributedTensor[[64], pl.FP32] = self.kernel(w3, x, data_ctx)
        return out
)pto");
}

TEST(MaterializeDistTensorCtxTest, BufferAliasingViewInheritsSourceContext) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]):
        v = pl.tensor.view(data, [64], [0])
        r1 = self.kernel(v, x)
        w = pl.tensor.assemble(data, x, [0])
        r2 = self.kernel(w, x)
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], data_ctx: pld.CommCtx):
        v: pl.Tensor[[64], pl.FP32] = pl.tensor.view(data, [64], [0])
        r1: pld.DistributedTensor[[64], pl.FP32] = self.kernel(v, x, data_ctx)
        w: pld.DistributedTensor[[64], pl.FP32] = pl.tensor.assemble(data, x, [0])
        r2: pld.DistributedTensor[[64], pl.FP32] = self.kernel(w, x, data_ctx)
)pto");
}

TEST(MaterializeDistTensorCtxTest, ReturnCallReusesReturnedParamCtx) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        return self.kernel(self.kernel(data, x), x)
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        return self.kernel(self.kernel(data, x, data_ctx), x, data_ctx)
)pto");
}

TEST(MaterializeDistTensorCtxTest, DistributedIfKeepsCurrentNoContextYieldBehavior) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        if flag:
            a = self.kernel(data, x)
            y = pl.yield_(a)
        else:
            y = pl.yield_(data)
        r = self.kernel(y, x)
)";
  EXPECT_EQ(Lowered(body, "chip"), R"pto(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL], data_ctx: pld.CommCtx):
        if flag:
            a: pld.DistributedTensor[[64], pl.FP32] = self.kernel(data, x, data_ctx)
            y = pl.yield_(a)
        else:
            y = pl.yield_(data)
        r: pld.DistributedTensor[[64], pl.FP32] = self.kernel(y, x, data_ctx)
)pto");
}

// One traced branch and one untraced branch: the result is not traced.
TEST(MaterializeDistTensorCtxTest, IfWithOneUntracedBranchIsUntraced) {
  std::string body = std::string(kKernel) + kMk + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        v = self.mk(data)
        if flag:
            y = pl.yield_(data)
        else:
            y = pl.yield_(v)
        r = self.kernel(y, x)
)";
  EXPECT_EQ(ErrorOf(body), "19:13: Cannot determine the communication context of DistributedTensor 'y' passed from 'chip'. Only host orchestration can query a context at runtime; a chip-orchestration or device function must reach its DistributedTensor from one of its own parameters. Pass the DistributedTensor (or the tensor it is a view of) in as a parameter");
}

TEST(MaterializeDistTensorCtxTest, CallMissingDistributedArgIsInternalError) {
  ir::FunctionBuilder callee("k", ir::FunctionType::kOpaque);
  callee.Param("a", ir::DistTensorOf({4}, ir::DataType::kFP32));
  ir::FunctionBuilder caller("g", ir::FunctionType::kOpaque);
  caller.Eval(ir::MakeGlobalCall("k", {}, ir::UnknownType::Get()));
  auto p = ir::ProgramBuilder("P").Add(callee.Build()).Add(caller.Build()).Build();
  ASSERT_TRUE(p.ok()) << p.status();
  auto out = RunPassUnverified(*p);
  ASSERT_FALSE(out.ok());
  EXPECT_FALSE(IsUserError(out.status()));
  EXPECT_EQ(out.status().message(),
            "call of 'k' from 'g' provides no argument for its DistributedTensor parameter 'a'");
}

TEST(MaterializeDistTensorCtxTest, IfWithDifferentDistributedTensorsIsRejected) {
  std::string body = std::string(kKernel) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], a: pld.DistributedTensor[[64], pl.FP32], b: pld.DistributedTensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        if flag:
            y = pl.yield_(a)
        else:
            y = pl.yield_(b)
        r = self.kernel(y, x)
)";
  EXPECT_EQ(ErrorOf(body), "8:9: Assigning a different DistributedTensor in each branch of an `if` is not supported: 'y' would take its data pointer from one allocation and its communication context from another. Yield the same DistributedTensor from both branches, or make the call that uses it inside each branch (see GitHub issue #2027)");
}

TEST(MaterializeDistTensorCtxTest, LoopRebindingCarryToAnotherDistributedTensorIsRejected) {
  std::string body = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pld.DistributedTensor[[64], pl.FP32], b: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        for i, (d,) in pl.range(4, init_values=(a,)):
            d2 = pl.yield_(b)
        return d2
)";
  EXPECT_EQ(ErrorOf(body), "5:13: Rebinding loop-carried DistributedTensor 'd' to a different DistributedTensor inside the loop is not supported: the carried value would keep the communication context of its initial value. Yield the carried DistributedTensor (or a value derived from it) instead (see GitHub issue #2027)");
}

TEST(MaterializeDistTensorCtxTest, WhileRebindingCarryToAnotherDistributedTensorIsRejected) {
  std::string body = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, a: pld.DistributedTensor[[64], pl.FP32], b: pld.DistributedTensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pld.DistributedTensor[[64], pl.FP32]:
        for (d,) in pl.while_(init_values=(a,)):
            pl.cond(n > 0)
            d2 = pl.yield_(b)
        return d2
)";
  EXPECT_EQ(ErrorOf(body), "6:13: Rebinding loop-carried DistributedTensor 'd' to a different DistributedTensor inside the loop is not supported: the carried value would keep the communication context of its initial value. Yield the carried DistributedTensor (or a value derived from it) instead (see GitHub issue #2027)");
}

TEST(MaterializeDistTensorCtxTest, DeviceGetCommCtxIsReplacedByMaterializedContext) {
  std::string body = R"(
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]]) -> pld.DistributedTensor[[64], pl.FP32]:
        c = pld.system.get_comm_ctx(data)
        r = pld.system.rank(c)
        return data
)";
  EXPECT_EQ(Lowered(body, "kernel"), R"pto(    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, data: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], data_ctx: pld.CommCtx) -> pld.DistributedTensor[[64], pl.FP32]:
        c: pld.CommCtx = data_ctx
        r: pl.Scalar[pl.INT32] = pld.system.rank(c)
        return data
)pto");
}

TEST(MaterializeDistTensorCtxTest, UnresolvableGetCommCtxOutsideHostIsRejected) {
  std::string body = std::string(kMk) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, data: pld.DistributedTensor[[64], pl.FP32]):
        v = self.mk(data)
        c = pld.system.get_comm_ctx(v)
)";
  EXPECT_EQ(ErrorOf(body), "11:13: Cannot resolve pld.system.get_comm_ctx('v') in 'chip'. Outside host orchestration the query has no runtime representation; the DistributedTensor must come from one of the function's parameters so that its context can be passed in");
}

TEST(MaterializeDistTensorCtxTest, DeviceCallWithoutMaterializedContextRejectsSynthesizedPrefix) {
  std::string body = std::string(kKernel) + kMk + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[64], pl.FP32], data: pld.DistributedTensor[[64], pl.FP32]):
        v = self.mk(data)
        r = self.kernel(v, x)
)";
  EXPECT_EQ(ErrorOf(body), "15:13: Cannot determine the communication context of DistributedTensor 'v' passed from 'chip'. Only host orchestration can query a context at runtime; a chip-orchestration or device function must reach its DistributedTensor from one of its own parameters. Pass the DistributedTensor (or the tensor it is a view of) in as a parameter");
}

TEST(MaterializeDistTensorCtxTest, VerifyReturnParamsExplicitRejectsNonParamReturn) {
  auto p = parser::ParseProgramText("t.pto", std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pld.DistributedTensor[[64], pl.FP32]) -> pld.DistributedTensor[[64], pl.FP32]:
        for i, (d,) in pl.range(2, init_values=(a,)):
            d2 = pl.yield_(d)
        return d2
)");
  ASSERT_TRUE(p.ok()) << p.status();
  absl::Status s = VerifyReturnParamsExplicit(*p);
  EXPECT_TRUE(IsUserError(s));
  auto loc = GetDiagnosticLocation(s);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(StrCat(loc->line - 5, ":", loc->col, ": ", s.message()), "6:9: Function 'k' (InCore) returns 'd2', which is not one of its parameters: a kernel or wrapper returns its tensors through the parameters it writes (ReturnParamsExplicit)");
}

}  // namespace
}  // namespace pto::passes
