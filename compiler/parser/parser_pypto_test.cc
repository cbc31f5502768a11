// Tests of PyPTO's own forms of the language: results derived from the body,
// the @pl.jit function form and PyPTO's loop keywords.
#include <string>
#include <vector>

#include "compiler/ir/enums.h"
#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/parser/parser_test_util.h"
#include "gtest/gtest.h"

namespace pto::parser {
namespace {

using ir::As;
using test_util::BodyOf;
using test_util::ExpectRoundTrip;
using test_util::InFunction;
using test_util::kHeader;
using test_util::Parse;
using test_util::ParseError;
using test_util::StmtsOf;

// ---------------------------------------------------------------------------
// Results derived from the body (PyPTO's _derive_return_types_from_body).

constexpr char kDerived[] = R"(
@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[4, 8], pl.FP32]):
        y = self.chip_orch(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(self, data: pl.Tensor[[4, 8], pl.FP32]):
        return data

    @pl.function(type=pl.FunctionType.Orchestration)
    def pair(self, data: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX]):
        m = n + 1
        return data, m

    @pl.function(type=pl.FunctionType.Orchestration)
    def nothing(self, data: pl.Tensor[[4, 8], pl.FP32]):
        return
)";

TEST(ParserPyptoTest, ResultsDerivedFromTheBody) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kDerived);
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr chip = p->GetFunction("chip_orch");
  ASSERT_EQ(chip->return_types().size(), 1u);
  EXPECT_EQ(ir::PrintType(chip->return_types()[0]), "pl.Tensor[[4, 8], pl.FP32]");
  // The caller comes first in the text; its call already has the result type.
  auto assign = As<ir::AssignStmt>(BodyOf(p->GetFunction("host_orch"))[0]);
  ASSERT_NE(assign, nullptr);
  EXPECT_EQ(ir::PrintType(assign->value()->type()), "pl.Tensor[[4, 8], pl.FP32]");
  ir::FunctionPtr pair = p->GetFunction("pair");
  ASSERT_EQ(pair->return_types().size(), 2u);
  EXPECT_EQ(ir::PrintType(pair->return_types()[1]), "pl.Scalar[pl.INDEX]");
  EXPECT_TRUE(p->GetFunction("nothing")->return_types().empty());
  // The printed form has the `->` annotations and is a fixed point.
  EXPECT_NE(ir::PrintProgram(p).find("-> pl.Tensor[[4, 8], pl.FP32]:"), std::string::npos);
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, DerivedResultsMustAgree) {
  EXPECT_EQ(ParseError(InFunction("        if n > 0:\n"
                                  "            return n\n"
                                  "        return n, n\n")),
            "10:9: function 'f' returns 1 value at line 9 but this return gives 2");
  EXPECT_EQ(ParseError(InFunction("        if n > 0:\n"
                                  "            return\n"
                                  "        return n\n")),
            "10:9: function 'f' returns values here but nothing at an earlier return; give "
            "every return the same values");
}

TEST(ParserPyptoTest, DerivedResultsOfARecursiveCallAreAnError) {
  std::string text = std::string(kHeader) +
                     "@pl.program\nclass P:\n"
                     "    @pl.function\n"
                     "    def f(self, n: pl.Scalar[pl.INDEX]):\n"
                     "        x = self.f(n)\n"
                     "        return x\n";
  EXPECT_EQ(ParseError(text),
            "8:13: the results of function 'f' come from its body, which calls it again; "
            "annotate them (def f(...) -> T:)");
}

// ---------------------------------------------------------------------------
// The @pl.jit function form.

constexpr char kJit[] = R"(
ROWS = 8
COLS = 8


@pl.jit.incore
def add_one(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    y = pl.tensor.add(x, y)
    return y


@pl.jit
def per_rank(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    return add_one(x, y)


@pl.jit.host
def hello(x: pl.Tensor[[2, ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[2, ROWS, COLS], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)


@pl.jit.incore(level=pl.Level.AIV)
def vec_kernel(x: pl.Tensor[[ROWS, COLS], pl.FP32]):
    return x
)";

TEST(ParserPyptoTest, JitFunctionForm) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kJit);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name(), "hello");  // named after the HOST orchestrator
  ASSERT_EQ(p->functions().size(), 4u);
  ir::FunctionPtr host = p->GetFunction("hello");
  EXPECT_EQ(host->level(), ir::Level::kHost);
  EXPECT_EQ(host->role(), ir::Role::kOrchestrator);
  EXPECT_EQ(p->GetFunction("per_rank")->func_type(), ir::FunctionType::kOrchestration);
  EXPECT_EQ(p->GetFunction("add_one")->func_type(), ir::FunctionType::kInCore);
  EXPECT_EQ(p->GetFunction("vec_kernel")->func_type(), ir::FunctionType::kAIV);
  EXPECT_EQ(p->GetFunction("vec_kernel")->level(), ir::Level::kAIV);
  // Calls by bare name are calls of the program's functions.
  auto ret = As<ir::ReturnStmt>(BodyOf(p->GetFunction("per_rank"))[0]);
  ASSERT_NE(ret, nullptr);
  auto call = As<ir::Call>(ret->value()[0]);
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(ir::Is<ir::GlobalVar>(call->op()));
  EXPECT_EQ(call->op()->name(), "add_one");
  // It prints as a @pl.program class, which re-parses to the same program.
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("class hello:"), std::string::npos) << printed;
  EXPECT_NE(printed.find("self.add_one(x, y)"), std::string::npos) << printed;
  ExpectRoundTrip(p);
}

// PyPTO's JIT form with bare pl.Tensor parameters: their shapes and dtypes
// come from the call, here from the tool's bindings (jit_bindings.h).
constexpr char kBareJit[] = R"(
@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [16, 32])
        tb = pl.load(b, [0, 0], [16, 32])
        pl.store(pl.add(ta, tb), [0, 0], c)
    return c
)";

TEST(ParserPyptoTest, JitBareTensorParamsTakeTheirBindings) {
  ParseOptions options;
  ASSERT_TRUE(AddJitBinding("a=[16,32]:FP16", &options.jit_bindings).ok());
  ASSERT_TRUE(AddJitBinding("b=[16,32]:FP16", &options.jit_bindings).ok());
  ASSERT_TRUE(AddJitBinding("tile_add.c=[16,32]:FP16", &options.jit_bindings).ok());
  auto p = ParseProgramText("test.pto", std::string(kHeader) + kBareJit, options);
  ASSERT_TRUE(p.ok()) << p.status();
  ir::FunctionPtr f = (*p)->GetFunction("tile_add");
  ASSERT_EQ(f->params().size(), 3u);
  EXPECT_EQ(f->param_directions()[2], ir::ParamDirection::kOut);
  std::string printed = ir::PrintProgram(*p);
  EXPECT_NE(printed.find("c: pl.Out[pl.Tensor[[16, 32], pl.FP16]]"), std::string::npos)
      << printed;
  ExpectRoundTrip(*p);  // the print carries the bound types: no bindings needed
}

// A called jit function's bare parameters take the types of the call's
// arguments, as PyPTO's JIT specializes a callee to its caller's tensors.
constexpr char kBareCallee[] = R"(
@pl.jit.inline
def add_one(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 32])
        pl.store(pl.add(t, 1.0), [0, 0], y)
    return y


@pl.jit
def entry(a: pl.Tensor[[16, 32], pl.FP16], c: pl.Out[pl.Tensor[[16, 32], pl.FP16]]):
    tmp = pl.create_tensor([16, 32], dtype=pl.FP16)
    tmp = add_one(a, tmp)
    c = add_one(tmp, c)
    return c
)";

TEST(ParserPyptoTest, JitBareTensorParamsOfACalleeComeFromTheCall) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kBareCallee);
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("def add_one(self, x: pl.Tensor[[16, 32], pl.FP16], "
                         "y: pl.Out[pl.Tensor[[16, 32], pl.FP16]])"),
            std::string::npos)
      << printed;
  ExpectRoundTrip(p);
  // The argument must be a tensor of a static shape.
  std::string bad = std::string(kBareCallee);
  bad.replace(bad.find("tmp = add_one(a, tmp)"), 21, "tmp = add_one(3, tmp)");
  EXPECT_EQ(ParseError(std::string(kHeader) + bad),
            "16:19: the bare pl.Tensor parameter 'x' of 'add_one' takes a tensor, got "
            "pl.Scalar[pl.INDEX]");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.jit.inline\ndef k(x: pl.Tensor):\n"
                                              "    return x\n\n\n@pl.jit\n"
                                              "def e(n: pl.Scalar[pl.INDEX]):\n"
                                              "    return k(n)\n"),
            "11:14: the bare pl.Tensor parameter 'x' of 'k' takes a tensor, got "
            "pl.Scalar[pl.INDEX]");
}

TEST(ParserPyptoTest, JitBareTensorParamWithoutBindingIsLocated) {
  EXPECT_EQ(ParseError(std::string(kHeader) + kBareJit),
            "6:17: parameter 'a' of @pl.jit function 'tile_add' is a bare pl.Tensor: its shape "
            "and dtype come from the call; bind them (pto-opt --bind a=[d0,d1]:FP32 or --bind "
            "tile_add.a=...), or write pl.Tensor[[d0, d1], dtype]");
  // A @pl.program method keeps PyPTO's rule: a type needs its arguments.
  EXPECT_EQ(ParseError(std::string(kHeader) +
                       "@pl.program\nclass P:\n    @pl.function\n"
                       "    def f(self, a: pl.Tensor):\n        return a\n"),
            "7:20: pl.Tensor needs type arguments in [...]");
}

// `return self.f(...)` where f returns two values returns both (PyPTO's HOST
// all_to_all_v test).
TEST(ParserPyptoTest, ReturnOfATwoValueCall) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + R"(
@pl.program
class P:
    @pl.function
    def two(self, n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        return n, n + 1

    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        return self.two(n)
)");
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 2u);
  auto ret = As<ir::ReturnStmt>(body[1]);
  ASSERT_NE(ret, nullptr);
  ASSERT_EQ(ret->value().size(), 2u);
  EXPECT_TRUE(ir::Is<ir::TupleGetItem>(ret->value()[1]));
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(std::string(kHeader) + R"(
@pl.program
class P:
    @pl.function
    def f(self, n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        return n
)"),
            "9:9: function 'f' declares 2 results but this return gives 1 value");
}

// PyPTO's set_validshape(input, valid_rows, valid_cols) of a tensor is our
// set_validshape(t, [rows, cols]); of a tile (pl.set_validshape) the tile op.
TEST(ParserPyptoTest, SetValidShapeInPyptoForm) {
  ir::ProgramPtr p = Parse(InFunction(
      "        b = pl.tensor.set_validshape(a, 8, n)\n"
      "        c = pl.set_validshape(a, valid_rows=8, valid_cols=16)\n"
      "        t = pl.load(a, [0, 0], [16, 32])\n"
      "        u = pl.set_validshape(t, 4, 4)\n"
      "        return b\n",
      "self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("pl.TensorView(valid_shape=[8, n])] = pl.tensor.set_validshape(a, [8, n])"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("pl.tensor.set_validshape(a, [8, 16])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.tile.set_validshape(t, 4, 4)"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(InFunction("        b = pl.set_validshape(n, 8, 8)\n")),
            "8:31: pl.set_validshape input must be a Tensor or a Tile, got pl.Scalar[pl.INDEX]");
  EXPECT_EQ(ParseError(InFunction("        b = pl.set_validshape(n, 8, rows=8)\n")),
            "8:37: unexpected keyword argument 'rows' for pl.set_validshape (input, valid_rows, "
            "valid_cols)");
}

// An array's extent written as arithmetic of module constants is folded
// (PyPTO's test_l3_ep_dispatch_combine: pl.array.create(N_RANKS * L, ...)).
TEST(ParserPyptoTest, ArrayExtentOfConstants) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + "N_RANKS = 2\nL = 16\n" +
                           "@pl.program\nclass P:\n    @pl.function\n"
                           "    def f(self, n: pl.Scalar[pl.INDEX]):\n"
                           "        a = pl.array.create(N_RANKS * L, pl.INT32)\n"
                           "        return n\n");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(ir::PrintProgram(p).find("a: pl.Array[32, pl.INT32] = pl.array.create(32, "
                                     "dtype=pl.INT32)"),
            std::string::npos)
      << ir::PrintProgram(p);
  EXPECT_EQ(ParseError(std::string(kHeader) + "L = 16\n" +
                       "@pl.program\nclass P:\n    @pl.function\n"
                       "    def f(self, n: pl.Scalar[pl.INDEX]):\n"
                       "        a = pl.array.create(n * L, pl.INT32)\n"
                       "        return n\n"),
            "9:29: the extent of pl.array.create must be a positive compile-time integer");
}

// PyPTO's read / write take a bare index for a flat 1-D access.
TEST(ParserPyptoTest, ReadWriteWithABareIndex) {
  ir::ProgramPtr p = Parse(InFunction("        a = pl.read(t, n + 1)\n"
                                      "        b = pl.tensor.read(t, indices=3)\n"
                                      "        pl.tensor.write(t, 2, a)\n"
                                      "        return a\n",
                                      "self, t: pl.Tensor[[16], pl.INT32], n: pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("pl.tensor.read(t, [n + 1])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.tensor.read(t, [3])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.tensor.write(t, [2], a)"), std::string::npos) << printed;
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, JitFormErrors) {
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.jit.incore\ndef k(self, x: pl.Scalar[pl.INDEX]):\n"
                                              "    return x\n"),
            "5:7: function 'k' is not a method: a @pl.jit function takes no 'self'");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.jit.host(level=pl.Level.HOST)\n"
                                              "def k(x: pl.Scalar[pl.INDEX]):\n    return x\n"),
            "4:14: unknown @pl.jit.host argument 'level'");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.jit.gpu\ndef k(x: pl.Scalar[pl.INDEX]):\n"
                                              "    return x\n"),
            "4:2: unsupported decorator @pl.jit.gpu: the function form has @pl.jit, "
            "@pl.jit.host, @pl.jit.incore, @pl.jit.inline and @pl.jit.opaque");
  EXPECT_EQ(ParseError(std::string(kHeader) + "def k(x: pl.Scalar[pl.INDEX]):\n    return x\n"),
            "4:1: a function needs a decorator: @pl.function on a method of the @pl.program "
            "class, or @pl.jit / @pl.jit.host / @pl.jit.incore at module level");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.jit\ndef k(x: pl.Scalar[pl.INDEX]):\n"
                                              "    return x\n\n"
                                              "@pl.program\nclass P:\n    pass\n"),
            "8:1: a file holds one @pl.program class or @pl.jit functions, not both");
}

// ---------------------------------------------------------------------------
// Loops with PyPTO's keywords.

TEST(ParserPyptoTest, PipelineStage) {
  ir::ProgramPtr p = Parse(InFunction("        for i in pl.pipeline(0, n, 1, stage=4):\n"
                                      "            pass\n"
                                      "        for j in pl.unroll(4):\n"
                                      "            pass\n"
                                      "        for k in pl.parallel(n):\n"
                                      "            pass\n"
                                      "        return\n"));
  ASSERT_NE(p, nullptr);
  auto loop = As<ir::ForStmt>(BodyOf(p->GetFunction("f"))[0]);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind(), ir::ForKind::kPipeline);
  EXPECT_EQ(ir::GetAttr<int64_t>(loop->attrs(), ir::kAttrPipelineStages), 4);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("in pl.pipeline(n, stage=4):"), std::string::npos) << printed;
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, PipelineStageErrors) {
  EXPECT_EQ(ParseError(InFunction("        for i in pl.pipeline(n):\n            pass\n")),
            "8:18: pl.pipeline(...) needs stage=N, the pipeline depth (a positive integer), "
            "e.g. pl.pipeline(n, stage=2)");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.pipeline(n, stage=0):\n            pass\n")),
            "8:39: the pl.pipeline stage must be at least 1, got 0");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.pipeline(n, stage=n):\n            pass\n")),
            "8:39: the pl.pipeline stage must be a constant integer");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.range(n, stage=2):\n            pass\n")),
            "8:30: stage= is only for pl.pipeline(...), not pl.range (write pl.pipeline(n, "
            "stage=4))");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.range(n, chunk=2):\n            pass\n")),
            "8:30: unknown keyword argument 'chunk' for pl.range (it takes init_values= and "
            "attrs=)");
}

// ---------------------------------------------------------------------------
// break / continue.

TEST(ParserPyptoTest, BreakAndContinue) {
  ir::ProgramPtr p = Parse(InFunction("        for i in pl.range(n):\n"
                                      "            if i > 2:\n"
                                      "                break\n"
                                      "            continue\n"
                                      "        while n > 0:\n"
                                      "            break\n"
                                      "        return\n"));
  ASSERT_NE(p, nullptr);
  auto loop = As<ir::ForStmt>(BodyOf(p->GetFunction("f"))[0]);
  ASSERT_NE(loop, nullptr);
  std::vector<ir::StmtPtr> body = StmtsOf(loop->body());
  ASSERT_EQ(body.size(), 2u);
  auto branch = As<ir::IfStmt>(body[0]);
  ASSERT_NE(branch, nullptr);
  EXPECT_TRUE(ir::Is<ir::BreakStmt>(StmtsOf(branch->then_body())[0]));
  EXPECT_TRUE(ir::Is<ir::ContinueStmt>(body[1]));
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, BreakOutsideALoop) {
  EXPECT_EQ(ParseError(InFunction("        if n > 0:\n            break\n")),
            "9:13: 'break' outside of a loop: it must be inside a for or while body");
  EXPECT_EQ(ParseError(InFunction("        continue\n")),
            "8:9: 'continue' outside of a loop: it must be inside a for or while body");
}

// ---------------------------------------------------------------------------
// With-scopes.

TEST(ParserPyptoTest, ExecScopes) {
  ir::ProgramPtr p = Parse(InFunction(
      "        with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):\n"
      "            with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"inner\"):\n"
      "                a = n + 1\n"
      "        with pl.at(pl.Level.HOST):\n"
      "            b = a + 1\n"
      "        with pl.spmd(4, sync_start=True):\n"
      "            c = b + 1\n"
      "        with pl.cluster():\n"
      "            d = c + 1\n"
      "        with pl.manual_scope():\n"
      "            e = d + 1\n"
      "        with pl.scope(mode=pl.ScopeMode.AUTO):\n"
      "            g = e + 1\n"
      "        return g\n"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 7u);
  auto chip = As<ir::ExecScopeStmt>(body[0]);
  ASSERT_NE(chip, nullptr);
  EXPECT_EQ(chip->GetScopeKind(), ir::ScopeKind::kHierarchy);
  EXPECT_EQ(chip->level(), ir::Level::kChip);
  EXPECT_EQ(chip->role(), ir::Role::kOrchestrator);
  auto inner = As<ir::ExecScopeStmt>(StmtsOf(chip->body())[0]);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->GetScopeKind(), ir::ScopeKind::kInCore);
  EXPECT_EQ(inner->name_hint(), "inner");
  auto spmd = As<ir::ExecScopeStmt>(body[2]);
  ASSERT_NE(spmd, nullptr);
  EXPECT_EQ(spmd->GetScopeKind(), ir::ScopeKind::kSpmd);
  EXPECT_EQ(ir::GetConstInt(spmd->core_num()), 4);
  EXPECT_TRUE(spmd->sync_start());
  EXPECT_EQ(As<ir::ExecScopeStmt>(body[3])->GetScopeKind(), ir::ScopeKind::kCluster);
  EXPECT_TRUE(As<ir::RuntimeScopeStmt>(body[4])->manual());
  EXPECT_FALSE(As<ir::RuntimeScopeStmt>(body[5])->manual());
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("with pl.spmd(4, sync_start=True):"), std::string::npos) << printed;
  ExpectRoundTrip(p);
}

// PyPTO's pl.at(optimizations=[...]) tunes the mixed-kernel split this
// toolchain does not have: accepted with a located warning, then dropped.
TEST(ParserPyptoTest, AtOptimizationsAreAWarning) {
  std::vector<absl::Status> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto p = ParseProgramText(
      "test.pto",
      InFunction("        with pl.at(level=pl.Level.CORE_GROUP, optimizations=["
                 "pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]):\n"
                 "            pass\n"),
      options);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(FormatDiagnostic(warnings[0], nullptr).find("test.pto:8:61: "), 0u)
      << FormatDiagnostic(warnings[0], nullptr);
  EXPECT_NE(warnings[0].message().find("pl.at(optimizations=...) is ignored: the cross-core "
                                       "split it tunes (PyPTO passes 20-24) is not implemented "
                                       "here"),
            std::string::npos);
  ExpectRoundTrip(*p);
}

// PyPTO's `for i in pl.spmd(n):` is an SPMD scope around an InCore scope
// whose first statement binds i to the block index.
TEST(ParserPyptoTest, SpmdForForm) {
  ir::ProgramPtr p = Parse(InFunction("        for i in pl.spmd(4, name_hint=\"blk\"):\n"
                                      "            j = i + 1\n"));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("        with pl.spmd(4, name_hint=\"blk\"):\n"
                         "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                         "                i: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()\n"
                         "                j: pl.Scalar[pl.INDEX] = i + 1\n"),
            std::string::npos)
      << printed;
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, SpmdForFormErrors) {
  EXPECT_EQ(ParseError(InFunction("        for i, j in pl.spmd(4):\n            pass\n")),
            "8:13: for ... in pl.spmd(...) must use a single loop variable");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.spmd(4, step=2):\n            pass\n")),
            "8:29: pl.spmd() loop form does not accept 'step='");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.split_aiv(2):\n            pass\n")),
            "8:18: pl.split_aiv() needs mode= (pl.SplitMode.NONE, UP_DOWN or LEFT_RIGHT)");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.split_aiv(4, mode=pl.SplitMode.NONE):\n"
                                  "            pass\n")),
            "8:31: pl.split_aiv(n) requires n == 2 (the AIV sub-core count is hardware-fixed "
            "at 2)");
  EXPECT_EQ(ParseError(InFunction("        for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
                                  "            for j in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
                                  "                pass\n")),
            "9:13: nested 'for ... in pl.split_aiv(...)' is not allowed: a split_aiv body "
            "already represents the two AIV lanes");
  EXPECT_EQ(ParseError(InFunction("        for i in [1, 2]:\n            pass\n")),
            "8:18: a for loop must iterate over range(...), pl.range(...), pl.parallel(...), "
            "pl.unroll(...), pl.pipeline(...), pl.while_(...) or pl.spmd(...)");
}

// PyPTO's `for aiv_id in pl.split_aiv(2, mode=...)`: a split-AIV region whose
// first statement binds the lane; it prints as `with pl.split_aiv(...)`.
TEST(ParserPyptoTest, SplitAivRegion) {
  ir::ProgramPtr p = Parse(InFunction(
      "        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
      "            j = lane + 1\n"));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("        with pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
                         "            lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
                         "            j: pl.Scalar[pl.INDEX] = lane + 1\n"),
            std::string::npos)
      << printed;
  ExpectRoundTrip(p);
}

// A mixed kernel's split mode in its function attrs (PyPTO's cross-core tests)
// is PyPTO's int-coded ir::SplitMode.
TEST(ParserPyptoTest, SplitModeAttr) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "@pl.program\nclass P:\n"
                           "    @pl.function(type=pl.FunctionType.AIV, attrs={\"split\": "
                           "pl.SplitMode.LEFT_RIGHT})\n"
                           "    def f(self, n: pl.Scalar[pl.INDEX]):\n        return n\n");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(ir::GetAttr<int64_t>(p->GetFunction("f")->attrs(), "split"), 2);
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, ExecScopeErrors) {
  EXPECT_EQ(ParseError(InFunction("        with pl.at(role=pl.Role.Orchestrator):\n"
                                  "            pass\n")),
            "8:14: pl.at(...) needs a level, e.g. pl.at(level=pl.Level.CORE_GROUP)");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.MOON):\n            pass\n")),
            "8:26: expected a level such as pl.Level.CORE_GROUP");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP, optimizations=3):\n"
                                  "            pass\n")),
            "8:61: pl.at(optimizations=...) must be a list literal");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP, optimizations="
                                  "[pl.split(pl.SplitMode.NONE), pl.split(pl.SplitMode.NONE)]):\n"
                                  "            pass\n")),
            "8:91: Duplicate 'pl.split(...)' in optimizations=[...]");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP, optimizations="
                                  "[pl.split(pl.SplitMode.DIAGONAL)]):\n            pass\n")),
            "8:62: pl.split(...) takes a mode: pl.SplitMode.NONE, pl.SplitMode.UP_DOWN or "
            "pl.SplitMode.LEFT_RIGHT");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP, optimizations="
                                  "[pl.unroll(2)]):\n            pass\n")),
            "8:62: Unsupported entry in pl.at(optimizations=[...]): each entry must be "
            "pl.split(pl.SplitMode.X) or pl.cross_core_slot(slot_num=N)");
  EXPECT_EQ(ParseError(InFunction("        with pl.at(level=pl.Level.CORE_GROUP, predicate=1):\n"
                                  "            pass\n")),
            "8:47: pl.at(predicate=...) is not supported yet; leave it out (the pipeline "
            "picks the default)");
  EXPECT_EQ(ParseError(InFunction("        with pl.spmd():\n            pass\n")),
            "8:14: pl.spmd(...) needs core_num, e.g. pl.spmd(4)");
  EXPECT_EQ(ParseError(InFunction("        with pl.scope(mode=1):\n            pass\n")),
            "8:28: expected pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL");
  EXPECT_EQ(ParseError(InFunction("        with pl.gpu():\n            pass\n")),
            "8:14: unsupported with-statement context: the contexts are pl.at(...), "
            "pl.spmd(...), pl.cluster(...), pl.scope(...), pl.manual_scope(), "
            "pl.runtime_scope(...) and pld.comm_domain(...)");
}

// ---------------------------------------------------------------------------
// Tensor subscripts, as PyPTO's parse_subscript reads them.

std::string OpOf(const ir::StmtPtr& s) {
  auto assign = As<ir::AssignStmt>(s);
  auto call = assign ? As<ir::Call>(assign->value()) : nullptr;
  return call ? call->op()->name() : "<not a call>";
}

TEST(ParserPyptoTest, TensorSubscripts) {
  ir::ProgramPtr p = Parse(InFunction("        a = x[1]\n"
                                      "        b = x[1, :]\n"
                                      "        c = x[1, 2]\n"
                                      "        d = x[2:6]\n"
                                      "        e = x[:, n:8]\n"
                                      "        g = x[:]\n"
                                      "        return a, b, c, d, e, g\n",
                                      "self, x: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 7u);
  EXPECT_EQ(OpOf(body[0]), "pl.tensor.index");
  EXPECT_EQ(OpOf(body[1]), "pl.tensor.index");  // a trailing `:` is the whole dimension
  EXPECT_EQ(OpOf(body[2]), "pl.tensor.read");   // an index on every dimension: one element
  EXPECT_EQ(OpOf(body[3]), "pl.tensor.slice");
  EXPECT_EQ(ir::PrintType(As<ir::AssignStmt>(body[3])->var()->type()),
            "pl.Tensor[[4, 16], pl.FP32]");
  EXPECT_EQ(ir::PrintType(As<ir::AssignStmt>(body[4])->var()->type()),
            "pl.Tensor[[8, 8 - n], pl.FP32]");
  EXPECT_EQ(As<ir::AssignStmt>(body[5])->value(), p->GetFunction("f")->params()[0]);  // x[:]
  ExpectRoundTrip(p);
}

// An index among slices drops its dimension: the window is a slice, reshaped.
TEST(ParserPyptoTest, MixedIndexAndSliceSubscripts) {
  ir::ProgramPtr p = Parse(InFunction("        a = x[1, 2:6]\n"
                                      "        b = x[:, n]\n"
                                      "        return a, b\n",
                                      "self, x: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX]"));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(OpOf(body[0]), "pl.tensor.reshape");
  EXPECT_EQ(ir::PrintType(As<ir::AssignStmt>(body[0])->var()->type()), "pl.Tensor[[4], pl.FP32]");
  EXPECT_EQ(ir::PrintType(As<ir::AssignStmt>(body[1])->var()->type()), "pl.Tensor[[8], pl.FP32]");
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("pl.tensor.reshape(pl.tensor.slice(x, [1, 4], [1, 2]), [4])"),
            std::string::npos)
      << printed;
  ExpectRoundTrip(p);
}

// `dst[window] = src` is dst = pl.tensor.assemble(dst, src, offsets), as in
// PyPTO; a source without the indexed dimensions is reshaped to full rank.
TEST(ParserPyptoTest, SubscriptWrites) {
  const std::string sig =
      "self, x: pl.Tensor[[8, 16], pl.FP32], s: pl.Tensor[[4, 16], pl.FP32], "
      "r: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]";
  ir::ProgramPtr p = Parse(InFunction("        x[0:4, :] = s\n"
                                      "        x[n] = r\n"
                                      "        return x\n",
                                      sig));
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("f"));
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(OpOf(body[0]), "pl.tensor.assemble");
  EXPECT_EQ(OpOf(body[1]), "pl.tensor.assemble");
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("pl.tensor.assemble(x, s, [0, 0])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.tensor.reshape(r, [1, 16]), [n, 0])"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(InFunction("        x[0:2, :] = s\n", sig)),
            "8:21: the window x[...] has 2 elements on axis 0 but the value written has 4");
  EXPECT_EQ(ParseError(InFunction("        x[0, 0:4] = s\n", sig)),
            "8:21: the window x[...] has 1 elements on axis 0 but the value written has 4");
  EXPECT_EQ(ParseError(InFunction("        x[0:2, :] = r\n", sig)),
            "8:21: the value written to x[...] must have rank 2 (the window's), got rank 1");
  EXPECT_EQ(ParseError(InFunction("        x[0:4, :] = n\n", sig)),
            "8:21: the value written to a tensor subscript must be a tensor, got "
            "pl.Scalar[pl.INDEX]");
  EXPECT_EQ(ParseError(InFunction("        y[0] = s\n", sig)),
            "8:9: a subscript write needs a tensor or tile variable on the left, as in "
            "`dst[0:8, :] = src`");
  EXPECT_EQ(ParseError(InFunction("        n[0] = s\n", sig)),
            "8:9: a subscript write needs a tensor or a tile, 'n' is pl.Scalar[pl.INDEX]");
}

TEST(ParserPyptoTest, TensorSubscriptErrors) {
  const std::string sig = "self, x: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX]";
  EXPECT_EQ(ParseError(InFunction("        a = x[0:8:2]\n", sig)),
            "8:19: a slice step is not supported (write x[a:b])");
  EXPECT_EQ(ParseError(InFunction("        a = x[4:12]\n", sig)),
            "8:15: slice 4:12 is outside dimension 0 (of size 8)");
  EXPECT_EQ(ParseError(InFunction("        a = x[1, 2, 3]\n", sig)),
            "8:15: the subscript has 3 indices but the tensor has rank 2");
  EXPECT_EQ(ParseError(InFunction("        a = n[1:2]\n", sig)),
            "8:13: cannot subscript a value of type pl.Scalar[pl.INDEX]");
}

// ---------------------------------------------------------------------------
// Dynamic dimensions.

constexpr char kDynamic[] = R"(
NR = pl.dynamic("NR")
COLS = 16
ROW_BYTES = COLS * pl.FP32.get_byte()


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[NR, COLS], pl.FP32], n: pl.Scalar[pl.INDEX]):
        y = pl.tensor.create([NR * 2, COLS], dtype=pl.FP32)
        return y
)";

TEST(ParserPyptoTest, DynamicDimensions) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kDynamic);
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr f = p->GetFunction("f");
  auto x = As<ir::TensorType>(f->params()[0]->type());
  ASSERT_NE(x, nullptr);
  auto nr = As<ir::DynDim>(x->shape()[0]);
  ASSERT_NE(nr, nullptr);
  EXPECT_EQ(nr->name(), "NR");
  EXPECT_EQ(ir::PrintType(f->return_types()[0]), "pl.Tensor[[NR * 2, 16], pl.FP32]");
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("NR = pl.dynamic(\"NR\")\n"), std::string::npos) << printed;
  ExpectRoundTrip(p);
}

// `pl.dynamic("N")` inside a shape is the module's one DynDim of that name,
// whether declared by a constant or only written inline.
constexpr char kInlineDynamic[] = R"(
M = pl.dynamic("MR")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[pl.dynamic("NR"), 8], pl.FP32],
          y: pl.Out[pl.Tensor[[pl.dynamic("NR"), pl.dynamic("MR")], pl.FP32]]):
        return y
)";

TEST(ParserPyptoTest, InlineDynamicDimensions) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kInlineDynamic);
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr f = p->GetFunction("f");
  auto x = As<ir::TensorType>(f->params()[0]->type());
  auto y = As<ir::TensorType>(f->params()[1]->type());
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(x->shape()[0], y->shape()[0]);  // one DynDim "NR"
  auto mr = As<ir::DynDim>(y->shape()[1]);
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(mr->name(), "MR");
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("NR = pl.dynamic(\"NR\")\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("x: pl.Tensor[[NR, 8], pl.FP32]"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(InFunction("        pass\n", "self, x: pl.Tensor[[pl.dynamic(\"1\")], pl.FP32]")),
            "7:42: pl.dynamic(...) needs the dimension's name, an identifier string such as "
            "\"N\"");
}

// One result of tuple type prints as `-> tuple[tuple[...]]` (`-> tuple[A]`
// declares one result A), and re-parses to the same function.
constexpr char kTupleResult[] = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[8], pl.FP32]):
        wrapped = (x,)
        return wrapped
)";

TEST(ParserPyptoTest, OneTupleResultPrintsAndReparses) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kTupleResult);
  ASSERT_NE(p, nullptr);
  ir::FunctionPtr f = p->GetFunction("f");
  ASSERT_EQ(f->return_types().size(), 1u);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("-> tuple[tuple[pl.Tensor[[8], pl.FP32]]]:"), std::string::npos)
      << printed;
  ExpectRoundTrip(p);
}

// A function declared to return a Tensor may return a window view (PyPTO's
// DistributedTensorType is a TensorType).
TEST(ParserPyptoTest, WindowViewReturnedAsTensor) {
  EXPECT_NE(Parse(std::string(kHeader) + R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, w: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t = pl.tile.full([1, 8], dtype=pl.INT32, value=0)
        return pl.store(t, [0, 0], w)
)"),
            nullptr);
}

// PyPTO's printed call attributes: `attrs={"arg_directions": [pl.adir.input, ...]}`
// on a call between functions is the same call as `arg_directions=[...]`.
constexpr char kAdir[] = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):
        y = self.k(x, n, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar]})
        z = self.k(y, n, arg_directions=[pl.ArgDirection.Input, pl.ArgDirection.Scalar])
        return z
)";

TEST(ParserPyptoTest, CallAttrsDictAndAdirSpellings) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kAdir);
  ASSERT_NE(p, nullptr);
  std::vector<ir::StmtPtr> body = BodyOf(p->GetFunction("main"));
  auto y = As<ir::Call>(As<ir::AssignStmt>(body[0])->value());
  auto z = As<ir::Call>(As<ir::AssignStmt>(body[1])->value());
  ASSERT_NE(y, nullptr);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(y->attrs(), z->attrs());
  ExpectRoundTrip(p);
  EXPECT_EQ(ir::ArgDirectionFromAdirName("output_existing"), ir::ArgDirection::kOutputExisting);
  EXPECT_EQ(ir::ArgDirectionFromAdirName("no_dep"), ir::ArgDirection::kNoDep);
  EXPECT_EQ(ir::ArgDirectionFromAdirName("inout"), ir::ArgDirection::kInOut);
  EXPECT_EQ(ir::ArgDirectionFromAdirName("Input"), std::nullopt);
  const std::string sig = "self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]";
  const std::string callee =
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
      "        return x\n\n";
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P:\n" + callee +
                       "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                       "    def main(" + sig + "):\n"
                       "        y = self.k(x, n, attrs={\"arg_directions\": [pl.adir.sideways]})\n"),
            "12:52: expected an argument direction such as pl.ArgDirection.Input");
  EXPECT_EQ(ParseError(std::string(kHeader) + "@pl.program\nclass P:\n" + callee +
                       "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                       "    def main(" + sig + "):\n"
                       "        y = self.k(x, n, device=0, attrs={\"device\": 1})\n"),
            "12:36: call attribute 'device' is given twice");
}

// `out, tid = pl.submit(self.f, x, deps=[...])`: the call of f marked submit,
// with f's result and the task's TASK_ID; it prints as pl.submit and re-parses.
constexpr char kSubmit[] = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]):
        a, t0 = pl.submit(self.stage, x)
        b, t1 = pl.submit(self.stage, a, deps=[t0])
        return b
)";

TEST(ParserPyptoTest, SubmitYieldsTheTaskId) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kSubmit);
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("pl.submit(self.stage, x)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.submit(self.stage, a, deps=[t0])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.Scalar[pl.TASK_ID]"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(InFunction("        out, tid = pl.submit(n)\n")),
            "8:30: pl.submit(...) needs a function of the program first, as in "
            "pl.submit(self.f, x)");
  EXPECT_EQ(ParseError(InFunction("        out, tid = pl.spmd_submit(self.f, n, core_num=4)\n")),
            "8:20: pl.spmd_submit(...) is not supported yet; use pl.submit(self.kernel, ...) or "
            "a call with core_num=");
}

// pl.Array[N, pl.TASK_ID] (PyPTO's ArrayType) and typed deps: arrays are made
// by pl.array.create, read by `a[i]` (get_element) and written by `a[i] = v`
// (update_element, which rebinds a); deps=[...] holds scalar task ids and
// whole arrays, None entries dropped. Everything prints and re-parses.
constexpr char kTaskArrays[] = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]):
        with pl.manual_scope():
            tids: pl.Array[2, pl.TASK_ID] = pl.array.create(2, pl.TASK_ID)
            none = pl.system.task_invalid()
            a, t0 = pl.submit(self.stage, x, deps=[none, None])
            tids[0] = t0
            first = tids[0]
            fence = pl.system.task_dummy(deps=[tids])
            b, t1 = pl.submit(self.stage, a, deps=[tids, first, fence])
        return b
)";

TEST(ParserPyptoTest, TaskIdArraysAndTypedDeps) {
  ir::ProgramPtr p = Parse(std::string(kHeader) + kTaskArrays);
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  for (const char* want :
       {"tids: pl.Array[2, pl.TASK_ID] = pl.array.create(2, dtype=pl.TASK_ID)",
        "none: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()",
        "pl.submit(self.stage, x, deps=[none])",
        "tids: pl.Array[2, pl.TASK_ID] = pl.array.update_element(tids, 0, t0)",
        "first: pl.Scalar[pl.TASK_ID] = pl.array.get_element(tids, 0)",
        "fence: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[tids])",
        "deps=[tids, first, fence]"}) {
    EXPECT_NE(printed.find(want), std::string::npos) << want << "\n" << printed;
  }
  ExpectRoundTrip(p);
}

TEST(ParserPyptoTest, TaskIdArrayAndDepsErrors) {
  const std::string head = std::string(kHeader) + "@pl.program\nclass P:\n" +
                           "    @pl.function(type=pl.FunctionType.InCore)\n"
                           "    def k(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> "
                           "pl.Tensor[[4], pl.FP32]:\n"
                           "        return x\n"
                           "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                           "    def main(self, x: pl.InOut[pl.Tensor[[4], pl.FP32]]):\n"
                           "        t = pl.system.task_invalid()\n"
                           "        tids = pl.array.create(2, pl.TASK_ID)\n";
  auto error = [&](const std::string& line) { return ParseError(head + "        " + line + "\n"); };
  EXPECT_EQ(error("a, u = pl.submit(self.k, x, deps=[x])"),
            "13:43: pl.submit deps= entries must be task ids: a pl.Scalar[pl.TASK_ID] variable "
            "(the id of `out, tid = pl.submit(...)`), a pl.Array[N, pl.TASK_ID] variable or "
            "None; got Tensor[FP32] (bind an element to a name first: `t = tids[i]`)");
  EXPECT_EQ(error("a, u = pl.submit(self.k, x, deps=[tids[0]])"),
            "13:43: pl.submit deps= entries must be task ids: a pl.Scalar[pl.TASK_ID] variable "
            "(the id of `out, tid = pl.submit(...)`), a pl.Array[N, pl.TASK_ID] variable or "
            "None; got an expression (bind an element to a name first: `t = tids[i]`)");
  EXPECT_EQ(error("a, u = pl.submit(self.k, x, deps=t)"),
            "13:42: pl.submit deps= must be a list of task ids, as in deps=[tid]");
  EXPECT_EQ(error("a = self.k(x, deps=[t])"),
            "13:23: deps= is only allowed on pl.submit(...): write `out, tid = "
            "pl.submit(self.k, ..., deps=[...])`");
  EXPECT_EQ(error("d = pl.system.task_dummy(deps=[x])"),
            "13:40: pl.system.task_dummy deps= entries must be task ids: a "
            "pl.Scalar[pl.TASK_ID] variable (the id of `out, tid = pl.submit(...)`), a "
            "pl.Array[N, pl.TASK_ID] variable or None; got Tensor[FP32] (bind an element to a "
            "name first: `t = tids[i]`)");
  EXPECT_EQ(error("e = tids[2]"),
            "13:18: pl.array.get_element: index 2 is outside the array of 2 elements");
  EXPECT_EQ(error("tids[0] = x"),
            "13:9: pl.array.update_element: the value stored into a pl.Array of TASK_ID must "
            "be a scalar TASK_ID, got Tensor[FP32]");
  EXPECT_EQ(error("u: pl.Array[0, pl.TASK_ID] = tids"),
            "13:21: the extent of pl.Array must be positive, got 0");
  EXPECT_EQ(error("u: pl.Array[4] = tids"),
            "13:12: pl.Array needs [extent, dtype], e.g. pl.Array[4, pl.TASK_ID]");
  EXPECT_EQ(error("u = pl.array.create(0, pl.TASK_ID)"),
            "13:29: the extent of pl.array.create must be a positive compile-time integer");
}

// Enum members are constants through compiler/ops' one table, in every spelling.
TEST(ParserPyptoTest, EnumMembersAsConstants) {
  ir::ProgramPtr p = Parse(std::string(kHeader) +
                           "PIPE = pl.PipeType.V\nCMP = pld.WaitCmp.Ge\nOP = pl.ReduceOp.Max\n" +
                           "@pl.program\nclass P:\n    @pl.function\n"
                           "    def f(self, n: pl.Scalar[pl.INDEX]):\n"
                           "        return n + PIPE + CMP + OP\n");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(ir::PrintProgram(p).find("n + 4 + 1 + 1"), std::string::npos) << ir::PrintProgram(p);
}

TEST(ParserPyptoTest, DynamicDimensionErrors) {
  EXPECT_EQ(ParseError(std::string(kHeader) + "NR = pl.dynamic(3)\n"),
            "4:17: pl.dynamic(...) needs the dimension's name, an identifier string such as "
            "\"N\"");
  EXPECT_EQ(ParseError(std::string(kHeader) + "NR = pl.dynamic(\"NR\")\nM = NR * 2\n"),
            "5:5: 'NR' is a dynamic dimension (pl.dynamic), known only at run time; it can be a "
            "shape dimension but not part of a compile-time constant");
  EXPECT_EQ(ParseError(std::string(kHeader) + "A = pl.dynamic(\"N\")\nB = pl.dynamic(\"N\")\n"),
            "5:16: dynamic dimension \"N\" is already declared as 'A'; use that name");
}

}  // namespace
}  // namespace pto::parser
