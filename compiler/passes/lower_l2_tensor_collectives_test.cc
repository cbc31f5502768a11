// LowerL2TensorCollectives (spec §3.4, §5; seed 000), text in / text out.
// Named after the cases of test_lower_l2_tensor_collectives.py (spec §6.1,
// §6.2).
#include "compiler/passes/lower_l2_tensor_collectives.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

// The seed's chip_pipeline (examples/all_to_all_v_chip.pto) with its dtype
// as DT.
constexpr char kSeed[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = 2
MAX_RECV = 4
SIZE = 64
TOTAL = NR * MAX_RECV


@pl.program
class AllToAllVChip:
    @pl.function(type=pl.FunctionType.InCore)
    def stage_step(
        self,
        inp: pl.Tensor[[TOTAL, SIZE], pl.DT],
        stage: pl.Out[pl.Tensor[[TOTAL, SIZE], pl.DT]],
        counts: pl.Out[pl.Tensor[[NR], pl.INT32]],
    ) -> tuple[pl.Tensor[[TOTAL, SIZE], pl.DT], pl.Tensor[[NR], pl.INT32]]:
        for peer, (st, cnt) in pl.range(NR, init_values=(stage, counts)):
            rows = pl.tile.load(inp, [peer * MAX_RECV, 0], [MAX_RECV, SIZE])
            st_next = pl.tile.store(rows, [peer * MAX_RECV, 0], st)
            cnt_next = pl.tensor.write(cnt, [peer], pl.const(MAX_RECV, pl.INT32))
            st_out, cnt_out = pl.yield_(st_next, cnt_next)
        return st_out, cnt_out

    @pl.function(type=pl.FunctionType.InCore)
    def consume_step(
        self,
        data: pld.DistributedTensor[[TOTAL, SIZE], pl.DT],
        recv: pld.DistributedTensor[[NR, 1], pl.INT32],
        out: pl.Out[pl.Tensor[[TOTAL, SIZE], pl.DT]],
    ) -> pl.Tensor[[TOTAL, SIZE], pl.DT]:
        rows = pl.tile.load(data, [0, 0], [TOTAL, SIZE])
        return pl.tile.store(rows, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_pipeline(
        self,
        inp: pl.Tensor[[TOTAL, SIZE], pl.DT],
        out: pl.Out[pl.Tensor[[TOTAL, SIZE], pl.DT]],
        stage: pl.Tensor[[TOTAL, SIZE], pl.DT],
        data: pld.DistributedTensor[[TOTAL, SIZE], pl.DT],
        signal: pld.DistributedTensor[[NR, 1], pl.INT32],
        counts: pl.Tensor[[NR], pl.INT32],
        recv: pld.DistributedTensor[[NR, 1], pl.INT32],
    ) -> pl.Tensor[[TOTAL, SIZE], pl.DT]:
        stage, counts = self.stage_step(inp, stage, counts)
        data = pld.tensor.all_to_all_v(stage, data, signal, counts, recv, core_num=1)
        return self.consume_step(data, recv, out)
)";

std::string Seed(const std::string& dtype) { return absl::StrReplaceAll(kSeed, {{"DT", dtype}}); }

struct Chip {
  std::vector<std::string> body;
  int p = 2;
  int s = 1;
  std::string dtype = "FP32";
  std::string extra_params;
  std::string decorator = "@pl.function(type=pl.FunctionType.Orchestration)";
  std::string extra_functions;
};

// A chip orchestration `chip` over (inp, data, signal [P, S], counts, recv)
// with `body`.
std::string Text(const Chip& c) {
  std::string p = std::to_string(c.p), s = std::to_string(c.s), dt = "pl." + c.dtype;
  std::string t =
      "import pypto.language as pl\n"
      "import pypto.language.distributed as pld\n"
      "\n"
      "@pl.program\n"
      "class P:\n" +
      c.extra_functions + "    " + c.decorator + "\n    def chip(self, inp: pl.Tensor[[8, 64], " +
      dt + "], data: pld.DistributedTensor[[8, 64], " + dt + "], signal: pld.DistributedTensor[[" +
      p + ", " + s + "], pl.INT32], counts: pl.Tensor[[" + p +
      "], pl.INT32], recv: pld.DistributedTensor[[" + p + ", 1], pl.INT32]" + c.extra_params +
      ") -> pld.DistributedTensor[[8, 64], " + dt + "]:\n";
  for (const std::string& l : c.body) t += "        " + l + "\n";
  return t;
}

constexpr char kA2av[] = "data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv)";

// "line:col" of the first occurrence of `needle` in `text`.
std::string Loc(const std::string& text, const std::string& needle) {
  size_t pos = text.find(needle);
  EXPECT_NE(pos, std::string::npos) << needle;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::to_string(line) + ":" + std::to_string(pos - line_start + 1);
}

ir::ProgramPtr Parse(const std::string& text) {
  auto file = std::make_shared<SourceFile>("test.pto", text);
  auto p = parser::ParseProgram(file);
  EXPECT_TRUE(p.ok()) << FormatDiagnostic(p.status(), file.get());
  return p.ok() ? *p : nullptr;
}

ir::ProgramPtr RunPass(const ir::ProgramPtr& p) {
  auto out = CreateLowerL2TensorCollectivesPass()->Run(p);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return nullptr;
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
  return *out;
}

// The printed output; it re-parses to the same text.
std::string Lower(const std::string& text) {
  ir::ProgramPtr p = Parse(text);
  if (p == nullptr) return "<parse error>";
  ir::ProgramPtr out = RunPass(p);
  if (out == nullptr) return "<error>";
  std::string printed = ir::PrintProgram(out);
  if (ir::ProgramPtr again = Parse(printed)) {
    EXPECT_EQ(ir::PrintProgram(again), printed);
  }
  return printed;
}

// "line:col: message" of the pass's user error.
std::string Error(const std::string& text) {
  ir::ProgramPtr p = Parse(text);
  if (p == nullptr) return "<parse error>";
  auto out = CreateLowerL2TensorCollectivesPass()->Run(p);
  if (out.ok()) return "<no error>";
  EXPECT_TRUE(IsUserError(out.status())) << out.status();
  auto loc = GetDiagnosticLocation(out.status());
  if (!loc) return std::string(out.status().message());
  return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
         std::string(out.status().message());
}

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

const ir::Function& Fn(const ir::ProgramPtr& p, const std::string& name) {
  static const ir::FunctionPtr* none = nullptr;
  ir::FunctionPtr f = p->GetFunction(name);
  EXPECT_NE(f, nullptr) << name;
  if (f == nullptr) return **none;
  return *f;
}

// ------------------------------------------------------------ lowered shape

TEST(LowerL2TensorCollectivesTest, SeedChipPipelineLowersToKernelCallBetweenStageAndConsume) {
  std::string out = Lower(Seed("FP32"));
  EXPECT_TRUE(
      Contains(out,
               "        _tuple_tmp: tuple[pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[2], pl.INT32]] = "
               "self.stage_step(inp, stage, counts)\n"
               "        stage: pl.Tensor[[8, 64], pl.FP32] = _tuple_tmp[0]\n"
               "        counts: pl.Tensor[[2], pl.INT32] = _tuple_tmp[1]\n"
               "        data: pld.DistributedTensor[[8, 64], pl.FP32] = "
               "self.__builtin_all_to_all_v__fp32(stage, data, signal, counts, recv)\n"
               "        return self.consume_step(data, recv, out)\n"))
      << out;
  EXPECT_TRUE(Contains(
      out,
      "    @pl.function(type=pl.FunctionType.AIV, attrs={\"builtin_template_dir\": "
      "\":pypto.runtime.builtins.collectives.all_to_all_v\", \"builtin_template_vars\": "
      "\"dtype_cpp=float\", \"require_contiguous_operands\": True})\n"
      "    def __builtin_all_to_all_v__fp32(self, input: pl.Tensor[[8, 64], pl.FP32], target: "
      "pl.InOut[pld.DistributedTensor[[8, 64], pl.FP32]], signal: "
      "pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]], send_counts: pl.Tensor[[2], "
      "pl.INT32], recv_counts: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]) -> "
      "pld.DistributedTensor[[8, 64], pl.FP32]:\n"
      "        return target\n"))
      << out;
  EXPECT_FALSE(Contains(out, "pld.tensor.all_to_all_v")) << out;
}

TEST(LowerL2TensorCollectivesTest, Int8SynthesizesInt8Variant) {
  ir::ProgramPtr out = RunPass(Parse(Seed("INT8")));
  ASSERT_NE(out, nullptr);
  const ir::Function& k = Fn(out, "__builtin_all_to_all_v__int8");
  EXPECT_EQ(ir::GetAttr<std::string>(k.attrs(), "builtin_template_vars"), "dtype_cpp=int8_t");
  EXPECT_EQ(out->GetFunction("__builtin_all_to_all_v__fp32"), nullptr);
  EXPECT_TRUE(Contains(ir::PrintProgram(out),
                       "= self.__builtin_all_to_all_v__int8(stage, data, signal, counts, recv)\n"));
}

TEST(LowerL2TensorCollectivesTest, SynthesizedSignatureAndDirections) {
  ir::ProgramPtr out = RunPass(Parse(Seed("FP32")));
  ASSERT_NE(out, nullptr);
  const ir::Function& k = Fn(out, "__builtin_all_to_all_v__fp32");
  EXPECT_EQ(k.func_type(), ir::FunctionType::kAIV);
  EXPECT_EQ(k.level(), ir::Level::kAIV);
  EXPECT_EQ(k.role(), ir::Role::kSubWorker);
  std::vector<std::string> names;
  for (const auto& p : k.params()) names.push_back(p->name_hint());
  EXPECT_EQ(names,
            (std::vector<std::string>{"input", "target", "signal", "send_counts", "recv_counts"}));
  using D = ir::ParamDirection;
  EXPECT_EQ(k.param_directions(),
            (std::vector<D>{D::kIn, D::kInOut, D::kInOut, D::kIn, D::kInOut}));
}

TEST(LowerL2TensorCollectivesTest, TemplateAttrs) {
  ir::ProgramPtr out = RunPass(Parse(Seed("FP32")));
  ASSERT_NE(out, nullptr);
  const ir::Function& k = Fn(out, "__builtin_all_to_all_v__fp32");
  EXPECT_EQ(ir::GetAttr<std::string>(k.attrs(), "builtin_template_dir"),
            ":pypto.runtime.builtins.collectives.all_to_all_v");
  EXPECT_EQ(ir::GetAttr<std::string>(k.attrs(), "builtin_template_vars"), "dtype_cpp=float");
  EXPECT_EQ(ir::GetAttr<bool>(k.attrs(), "require_contiguous_operands"), true);
}

TEST(LowerL2TensorCollectivesTest, SynthesizedKernelReturnsItsTargetParameter) {
  ir::ProgramPtr out = RunPass(Parse(Seed("FP32")));
  ASSERT_NE(out, nullptr);
  const ir::Function& k = Fn(out, "__builtin_all_to_all_v__fp32");
  auto ret = ir::As<ir::ReturnStmt>(k.body());
  ASSERT_NE(ret, nullptr);
  ASSERT_EQ(ret->value().size(), 1u);
  EXPECT_EQ(ret->value()[0], k.params()[1]);  // pointer identity
  ASSERT_EQ(k.return_types().size(), 1u);
  EXPECT_EQ(k.return_types()[0], k.params()[1]->type());
}

TEST(LowerL2TensorCollectivesTest, TwoCallsOfOneDtypeShareOneKernel) {
  ir::ProgramPtr out =
      RunPass(Parse(Text({{kA2av, "data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv)",
                           "return data"}})));
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->functions().size(), 2u);  // the pipeline + one kernel
  std::string printed = ir::PrintProgram(out);
  EXPECT_TRUE(Contains(printed,
                       "        data: pld.DistributedTensor[[8, 64], pl.FP32] = "
                       "self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv)\n"
                       "        data: pld.DistributedTensor[[8, 64], pl.FP32] = "
                       "self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv)\n"
                       "        return data\n"))
      << printed;
}

TEST(LowerL2TensorCollectivesTest, SharingSpansFunctionsAndKeepsVariantsApart) {
  Chip c{{kA2av, "return data"}};
  c.extra_functions =
      "    @pl.function(type=pl.FunctionType.Graph)\n"
      "    def g(self, i8: pl.Tensor[[8, 64], pl.INT8], d8: pld.DistributedTensor[[8, 64], "
      "pl.INT8], s: pld.DistributedTensor[[2, 1], pl.INT32], c: pl.Tensor[[2], pl.INT32], "
      "r: pld.DistributedTensor[[2, 1], pl.INT32], i: pl.Tensor[[8, 64], pl.FP32], "
      "d: pld.DistributedTensor[[8, 64], pl.FP32]):\n"
      "        pld.tensor.all_to_all_v(i8, d8, s, c, r)\n"
      "        pld.tensor.all_to_all_v(i, d, s, c, r)\n"
      "\n";
  ir::ProgramPtr out = RunPass(Parse(Text(c)));
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->functions().size(), 4u);  // chip, g, fp32, int8
  EXPECT_NE(out->GetFunction("__builtin_all_to_all_v__int8"), nullptr);
  EXPECT_NE(out->GetFunction("__builtin_all_to_all_v__fp32"), nullptr);
}

TEST(LowerL2TensorCollectivesTest, CollectiveEmbeddedInAReturnIsLowered) {
  std::string out =
      Lower(Text({{"return pld.tensor.all_to_all_v(inp, data, signal, counts, recv)"}}));
  EXPECT_TRUE(Contains(
      out, "        return self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv)\n"))
      << out;
}

TEST(LowerL2TensorCollectivesTest, ExpressionStatementIsLoweredWithItsComment) {
  std::string out = Lower(Text(
      {{"# exchange", "pld.tensor.all_to_all_v(inp, data, signal, counts, recv)", "return data"}}));
  EXPECT_TRUE(Contains(out,
                       "        # exchange\n        self.__builtin_all_to_all_v__fp32(inp, "
                       "data, signal, counts, recv)\n"))
      << out;
}

TEST(LowerL2TensorCollectivesTest, KernelSignatureIsCanonicalNotCallSiteTyped) {
  Chip c{{"data = pld.tensor.all_to_all_v(src, data, signal, sc, recv)", "return data"}};
  c.extra_params =
      ", src: pld.DistributedTensor[[8, 64], pl.FP32], sc: pld.DistributedTensor[[2], pl.INT32]";
  ir::ProgramPtr out = RunPass(Parse(Text(c)));
  ASSERT_NE(out, nullptr);
  const ir::Function& k = Fn(out, "__builtin_all_to_all_v__fp32");
  std::vector<bool> distributed;
  for (const auto& p : k.params()) {
    distributed.push_back(ir::Is<ir::DistributedTensorType>(p->type()));
    EXPECT_TRUE(ir::Is<ir::DistributedTensorType>(p->type()) || ir::Is<ir::TensorType>(p->type()));
  }
  EXPECT_EQ(distributed, (std::vector<bool>{false, true, true, false, true}));
}

TEST(LowerL2TensorCollectivesTest, CollectiveInAGraphBodyIsLowered) {
  Chip c{{kA2av, "return data"}};
  c.decorator = "@pl.function(type=pl.FunctionType.Graph)";
  std::string out = Lower(Text(c));
  EXPECT_TRUE(Contains(out, "self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv)"))
      << out;
}

// ------------------------------------------------------------ pass-through

TEST(LowerL2TensorCollectivesTest, InCoreCollectiveIsUntouchedAndNotAResidual) {
  Chip c{{kA2av, "return data"}};
  c.decorator = "@pl.function(type=pl.FunctionType.InCore)";
  ir::ProgramPtr in = Parse(Text(c));
  auto out = CreateLowerL2TensorCollectivesPass()->Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, in);  // identity when untouched
}

TEST(LowerL2TensorCollectivesTest, HostOrchestratorIsExemptAndProgramWithoutCollectiveIsIdentity) {
  Chip c{{kA2av, "return data"}};
  c.decorator = "@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)";
  ir::ProgramPtr in = Parse(Text(c));
  auto out = CreateLowerL2TensorCollectivesPass()->Run(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, in);
  ir::ProgramPtr plain = Parse(Text({{"return data"}}));
  auto same = CreateLowerL2TensorCollectivesPass()->Run(plain);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, plain);
}

// ------------------------------------------------------------ launch width

std::string KernelCall(const std::string& out) {
  size_t b = out.find("= self.__builtin_all_to_all_v__");
  if (b == std::string::npos) return "<none>";
  return out.substr(b, out.find('\n', b) - b);
}

TEST(LowerL2TensorCollectivesTest, LaunchSpecAttachedOnlyWhenMoreThanOneBlock) {
  // B == 1: no launch spec.
  EXPECT_EQ(KernelCall(Lower(Text({{"data = pld.tensor.all_to_all_v(inp, data, signal, counts, "
                                    "recv, core_num=1)",
                                    "return data"}}))),
            "= self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv)");
  // L=10, P=8 folds to B=8 and accepts S=8 (the folded B is checked, not L).
  Chip c{{"data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=10)",
          "return data"}};
  c.p = 8;
  c.s = 8;
  EXPECT_EQ(KernelCall(Lower(Text(c))),
            "= self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv, core_num=8, "
            "sync_start=True)");
  // L < P: B = L.
  c.p = 8;
  c.s = 3;
  c.body[0] = "data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=3)";
  EXPECT_EQ(KernelCall(Lower(Text(c))),
            "= self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv, core_num=3, "
            "sync_start=True)");
}

TEST(LowerL2TensorCollectivesTest, CoreNumAsSixthPositionalArgumentIsFoldedAndDropped) {
  Chip c{{"data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, 5)", "return data"}};
  c.s = 4;  // P=2, L=5 -> B=4
  EXPECT_EQ(KernelCall(Lower(Text(c))),
            "= self.__builtin_all_to_all_v__fp32(inp, data, signal, counts, recv, core_num=4, "
            "sync_start=True)");
}

TEST(LowerL2TensorCollectivesTest, SignalStrideBelowFoldedBlocksIsRejected) {
  Chip c{{"data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, core_num=10)",
          "return data"}};
  c.p = 4;
  c.s = 4;  // B = CalAllToAllVBlocks(4, 10) = 8 > 4
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v signal lane stride S (4) is smaller than the "
                          "admitted block count B = CalAllToAllVBlocks(P=4, core_num=10) = 8; the "
                          "block-aware barrier needs one signal lane per block");
}

TEST(LowerL2TensorCollectivesTest, RuntimeCoreNumIsRejected) {
  Chip c{{"data = pld.tensor.all_to_all_v(inp, data, signal, counts, recv, n)", "return data"}};
  c.extra_params = ", n: pl.Scalar[pl.INDEX]";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v core_num must be a compile-time constant on "
                          "the CHIP/L2 rail: a runtime core_num is not supported yet (it would "
                          "need a runtime signal-stride check that orchestration code cannot "
                          "fail); call the collective from a HOST orchestrator, whose dispatch "
                          "passes a runtime core_num to the builtin entry");
}

// core_num outside [1, INT32_MAX] is the deducer's one range check, before
// this rail sees the call (DistributedOpsTest).

TEST(LowerL2TensorCollectivesTest, DynamicSignalStrideIsRejected) {
  Chip c{{"data = pld.tensor.all_to_all_v(inp, data, sig, counts, recv)", "return data"}};
  c.extra_params = ", k: pl.Scalar[pl.INDEX], sig: pld.DistributedTensor[[2, k], pl.INT32]";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v signal dim 1 (lane stride S) must be a "
                          "compile-time constant on the CHIP/L2 rail");
}

// ------------------------------------------------------------ dtype, residual

TEST(LowerL2TensorCollectivesTest, DtypeOutsideAllowlistIsRejected) {
  Chip c{{kA2av, "return data"}};
  c.dtype = "FP16";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v supports FP32, INT8 on the CHIP rail, got "
                          "FP16");
}

constexpr char kNotLowered[] =
    " was not lowered. The managed CHIP/L2 rail currently supports only pld.tensor.all_to_all_v "
    "and pld.tensor.indexed_all_to_all_v, written as an assignment, expression statement or "
    "return value of a CHIP orchestration body; write any other collective in a HOST "
    "orchestrator (builtin dispatch rail) or an InCore function (composite rail)";

TEST(LowerL2TensorCollectivesTest, UnsupportedCollectiveInAChipBodyIsNamed) {
  std::string t =
      Text({{"data = pld.tensor.allreduce(data, signal, op=0, core_num=1)", "return data"}});
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.allreduce(") +
                          ": pld.tensor.allreduce in function "
                          "'chip'" +
                          kNotLowered);
}

TEST(LowerL2TensorCollectivesTest, ResidualCheckCoversEveryNonHostOrchestrator) {
  // An orchestrator with no level is not an L2-rail body but owns the check.
  Chip c{{kA2av, "return data"}};
  c.decorator = "@pl.function(role=pl.Role.Orchestrator)";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v in function 'chip'" + kNotLowered);
  // A collective nested in another expression has no statement to become.
  Chip n{
      {"x = pl.tensor.reshape(pld.tensor.all_to_all_v(inp, data, signal, counts, recv), "
       "[8, 64])",
       "return data"}};
  std::string u = Text(n);
  EXPECT_EQ(Error(u), Loc(u, "pld.tensor.all_to_all_v(") +
                          ": pld.tensor.all_to_all_v in function 'chip'" + kNotLowered);
}

TEST(LowerL2TensorCollectivesTest, SynthesizedNameCollidingWithAFunctionIsRejected) {
  Chip c{{kA2av, "return data"}};
  c.extra_functions =
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def __builtin_all_to_all_v__fp32(self, x: pl.Tensor[[8], pl.FP32]) -> "
      "pl.Tensor[[8], pl.FP32]:\n"
      "        return x\n\n";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "def __builtin") +
                          ": synthesized builtin kernel name "
                          "'__builtin_all_to_all_v__fp32' collides with an existing function");
}

// ------------------------------------------------------------ contiguity

// Accepted: every root and transparent step of seed 000.
TEST(LowerL2TensorCollectivesTest, ContiguityWhitelistAcceptsRootsAndTransparentSteps) {
  const std::vector<std::vector<std::string>> bodies = {
      {"a = pl.tensor.create([8, 64], dtype=pl.FP32)",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"a = pl.tensor.reshape(big, [8, 64])",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"a = pl.tensor.view(inp, [8, 64], [0, 0])",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"a = pl.tensor.reshape(pl.tensor.set_validshape(inp, [4, 64]), [8, 64])",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"a = pl.tensor.assemble(inp, small, [0, 0])",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"a = pl.tensor.slice(tall, [8, 64], [4, 0])",
       "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
      {"d2 = pld.tensor.all_to_all_v(inp, data, signal, counts, recv)",
       "data = pld.tensor.all_to_all_v(d2, data2, signal, counts, recv)", "return data"},
      {"for i, (acc,) in pl.range(2, init_values=(inp,)):",
       "    nxt = pl.tensor.reshape(acc, [8, 64])", "    res = pl.yield_(nxt)",
       "data = pld.tensor.all_to_all_v(res, data, signal, counts, recv)", "return data"},
      {"if n > 0:", "    a = pl.tensor.view(inp, [8, 64], [0, 0])", "    b = pl.yield_(a)",
       "else:", "    b = pl.yield_(inp)",
       "data = pld.tensor.all_to_all_v(b, data, signal, counts, recv)", "return data"},
      {"a = self.k(inp, out)", "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)",
       "return data"},
  };
  for (const auto& body : bodies) {
    Chip c{body};
    c.extra_params =
        ", big: pl.Tensor[[512], pl.FP32], small: pl.Tensor[[2, 64], pl.FP32], tall: "
        "pl.Tensor[[16, 64], pl.FP32], data2: pld.DistributedTensor[[8, 64], pl.FP32], n: "
        "pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]";
    c.extra_functions =
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], "
        "pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:\n"
        "        t = pl.tile.load(x, [0, 0], [8, 64])\n"
        "        return pl.tile.store(t, [0, 0], y)\n\n";
    std::string out = Lower(Text(c));
    EXPECT_TRUE(Contains(out, "self.__builtin_all_to_all_v__fp32(")) << body[0] << "\n" << out;
  }
}

TEST(LowerL2TensorCollectivesTest, ContiguityWhitelistRejections) {
  struct Case {
    std::vector<std::string> body;
    std::string role, why, at;  // `at`: needle of the offending value
  };
  const std::vector<Case> cases = {
      {{"a = pl.tensor.transpose(sq, 0, 1)",
        "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
       "input",
       "it comes from pl.tensor.transpose",
       "pl.tensor.transpose("},
      {{"a = pl.tensor.slice(wide, [8, 64], [0, 64])",
        "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
       "input",
       "a pl.tensor.slice that narrows more than the leading dimension of a static-shape tensor",
       "pl.tensor.slice("},
      {{"c2 = pl.tensor.write(counts, [0], pl.const(1, pl.INT32))",
        "data = pld.tensor.all_to_all_v(inp, data, signal, c2, recv)", "return data"},
       "send_counts",
       "it comes from pl.tensor.write",
       "pl.tensor.write("},
      {{"a = pl.tensor.reshape(dn, [8, 64])",
        "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)", "return data"},
       "input",
       "a value with layout DN",
       "dn: "},
      {{"a = pl.tensor.slice(padded, [4, 64], [0, 0])", "b = pl.tensor.reshape(a, [8, 32])",
        "c = pl.tensor.reshape(b, [8, 64])",
        "data = pld.tensor.all_to_all_v(c, data, signal, counts, recv)", "return data"},
       "input",
       "a value with an explicit non-compact stride",
       "padded: "},
      // Loop-carried: the second iteration sees the transpose.
      {{"for i, (acc,) in pl.range(2, init_values=(inp,)):",
        "    nxt = pl.tensor.transpose(acc, 0, 1)", "    res = pl.yield_(nxt)",
        "data = pld.tensor.all_to_all_v(res, data, signal, counts, recv)", "return data"},
       "input",
       "it comes from pl.tensor.transpose",
       "pl.tensor.transpose("},
      // A loop result is also its init (zero trips).
      {{"t = pl.tensor.transpose(sq, 0, 1)",
        "for i, (acc,) in pl.range(n, init_values=(t,)):", "    res = pl.yield_(inp)",
        "data = pld.tensor.all_to_all_v(res, data, signal, counts, recv)", "return data"},
       "input",
       "it comes from pl.tensor.transpose",
       "pl.tensor.transpose("},
      // A while result, through its iter arg.
      {{"for (acc,) in pl.while_(init_values=(inp,)):", "    pl.cond(n > 0)",
        "    nxt = pl.tensor.transpose(acc, 0, 1)", "    res = pl.yield_(nxt)",
        "data = pld.tensor.all_to_all_v(res, data, signal, counts, recv)", "return data"},
       "input",
       "it comes from pl.tensor.transpose",
       "pl.tensor.transpose("},
      // An if result, through the branch that is not contiguous.
      {{"if n > 0:", "    a = pl.tensor.transpose(sq, 0, 1)", "    b = pl.yield_(a)",
        "else:", "    b = pl.yield_(inp)",
        "data = pld.tensor.all_to_all_v(b, data, signal, counts, recv)", "return data"},
       "input",
       "it comes from pl.tensor.transpose",
       "pl.tensor.transpose("},
      // A kernel whose return does not name a parameter.
      {{"a = self.fresh(inp)", "data = pld.tensor.all_to_all_v(a, data, signal, counts, recv)",
        "return data"},
       "input",
       "the result of self.fresh does not name one of its parameters",
       "self.fresh("},
  };
  for (const Case& k : cases) {
    Chip c{k.body};
    c.extra_params =
        ", sq: pl.Tensor[[64, 8], pl.FP32], wide: pl.Tensor[[8, 128], pl.FP32], n: "
        "pl.Scalar[pl.INDEX], dn: pl.Tensor[[8, 64], pl.FP32, "
        "pl.TensorView(layout=pl.TensorLayout.DN)], padded: pl.Tensor[[4, 64], pl.FP32, "
        "pl.TensorView(stride=[128, 1])]";
    c.extra_functions =
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def fresh(self, x: pl.Tensor[[8, 64], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:\n"
        "        return pl.tensor.create([8, 64], dtype=pl.FP32)\n\n";
    std::string t = Text(c);
    EXPECT_EQ(Error(t), Loc(t, "pld.tensor.all_to_all_v(") + ": pld.tensor.all_to_all_v " + k.role +
                            " is not provably contiguous: " + k.why + " (at " + Loc(t, k.at) +
                            "); the CHIP/L2 rail accepts only values traced to a parameter, a "
                            "window or pl.tensor.create through reshape, view, set_validshape, "
                            "assemble, collective and kernel results and leading-dimension "
                            "slices")
        << k.body[0];
  }
}

// ------------------------------------------------------------ indexed (§5)

constexpr char kIndexedParams[] =
    ", sc: pld.DistributedTensor[[2], pl.INT32], rc: pl.Tensor[[2, 1], pl.INT32], idx: "
    "pl.Tensor[[8], pl.INT32]";

TEST(LowerL2TensorCollectivesTest, IndexedAllToAllVLowersToItsOwnKernelWithExactWidth) {
  Chip c{{"data = pld.tensor.indexed_all_to_all_v(inp, data, signal, sc, rc, idx, core_num=3)",
          "return data"}};
  c.extra_params = kIndexedParams;
  ir::ProgramPtr out = RunPass(Parse(Text(c)));
  ASSERT_NE(out, nullptr);
  std::string printed = ir::PrintProgram(out);
  // L=3 with P=2 launches exactly 3 blocks (no CalAllToAllVBlocks fold).
  EXPECT_TRUE(Contains(printed,
                       "= self.__builtin_indexed_all_to_all_v__fp32(inp, data, signal, "
                       "sc, rc, idx, core_num=3, sync_start=True)\n"))
      << printed;
  const ir::Function& k = Fn(out, "__builtin_indexed_all_to_all_v__fp32");
  EXPECT_EQ(ir::GetAttr<std::string>(k.attrs(), "builtin_template_dir"),
            ":pypto.runtime.builtins.collectives.indexed_all_to_all_v");
  std::vector<bool> distributed;
  for (const auto& p : k.params()) {
    distributed.push_back(ir::Is<ir::DistributedTensorType>(p->type()));
  }
  // Three DistributedTensor params after six tensors: the first CommContext
  // MaterializeDistTensorCtx appends lands at args[6].
  EXPECT_EQ(distributed, (std::vector<bool>{false, true, true, true, false, false}));
  using D = ir::ParamDirection;
  EXPECT_EQ(k.param_directions(),
            (std::vector<D>{D::kIn, D::kInOut, D::kInOut, D::kIn, D::kInOut, D::kIn}));
}

TEST(LowerL2TensorCollectivesTest, IndexedAllToAllVSingleBlockAndChecks) {
  Chip c{{"data = pld.tensor.indexed_all_to_all_v(inp, data, signal, sc, rc, idx)", "return data"}};
  c.extra_params = kIndexedParams;
  EXPECT_TRUE(Contains(Lower(Text(c)),
                       "= self.__builtin_indexed_all_to_all_v__fp32(inp, data, "
                       "signal, sc, rc, idx)\n"));
  c.body[0] = "data = pld.tensor.indexed_all_to_all_v(inp, data, signal, sc, rc, ix2)";
  c.extra_params = std::string(kIndexedParams) + ", ix0: pl.Tensor[[8, 2], pl.INT32]";
  c.body.insert(c.body.begin(), "ix2 = pl.tensor.transpose(ix0, 0, 1)");
  c.body[0] = "ix2 = pl.tensor.reshape(pl.tensor.transpose(ix0, 0, 1), [8])";
  std::string t = Text(c);
  EXPECT_EQ(Error(t).substr(0, Error(t).find(" (at ")),
            Loc(t, "pld.tensor.indexed_all_to_all_v(") +
                ": pld.tensor.indexed_all_to_all_v index is not provably contiguous: it comes "
                "from pl.tensor.transpose");
}

TEST(LowerL2TensorCollectivesTest, IndexedAllToAllVDtypeAllowlist) {
  Chip c{{"data = pld.tensor.indexed_all_to_all_v(inp, data, signal, sc, rc, idx)", "return data"}};
  c.extra_params = kIndexedParams;
  c.dtype = "FP16";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.indexed_all_to_all_v(") +
                          ": pld.tensor.indexed_all_to_all_v supports FP32, INT8 on the CHIP "
                          "rail, got FP16");
  c.dtype = "INT8";
  EXPECT_TRUE(Contains(Lower(Text(c)), "self.__builtin_indexed_all_to_all_v__int8("));
}

TEST(LowerL2TensorCollectivesTest, IndexedAllToAllVInAnInCoreFunctionIsRejected) {
  Chip c{{"data = pld.tensor.indexed_all_to_all_v(inp, data, signal, sc, rc, idx)", "return data"}};
  c.extra_params = kIndexedParams;
  c.decorator = "@pl.function(type=pl.FunctionType.InCore)";
  std::string t = Text(c);
  EXPECT_EQ(Error(t), Loc(t, "pld.tensor.indexed_all_to_all_v(") +
                          ": pld.tensor.indexed_all_to_all_v is not supported in an InCore "
                          "function ('chip'); call it from a CHIP orchestration (managed L2 "
                          "rail)");
}

}  // namespace
}  // namespace pto::passes
