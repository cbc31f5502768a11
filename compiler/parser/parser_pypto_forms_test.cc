// Tests of more of PyPTO's written forms (issue 24): scatter_update's keyword
// forms, declared allocations (pl.MemRef(slots=)), bind_dynamic.
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/parser/parser_test_util.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::parser {
namespace {

using test_util::ExpectRoundTrip;
using test_util::InFunction;
using test_util::Parse;
using test_util::ParseError;

constexpr char kScatterSig[] =
    "self, x: pl.Tensor[[32, 32], pl.FP32], i: pl.Tensor[[2, 8], pl.INT32], "
    "s: pl.Tensor[[16, 32], pl.FP32]";

// PyPTO's three call forms of scatter_update all read as the positional one.
TEST(ParserPyptoFormsTest, ScatterUpdateKeywordForms) {
  ir::ProgramPtr p = Parse(InFunction(
      "        a = pl.scatter_update(x, -2, i, s)\n"
      "        b = pl.tensor.scatter_update(x, i, s, dim=-2)\n"
      "        t = pl.load(x, [0, 0], [32, 32])\n"
      "        ti = pl.load(i, [0, 0], [2, 8])\n"
      "        ts = pl.load(s, [0, 0], [16, 32])\n"
      "        c = pl.tile.scatter_update(t, dim=-2, index=ti, src=ts)\n"
      "        d = pl.scatter_update(t, -2, index=ti, src=ts)\n"
      "        return b\n",
      kScatterSig));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("= pl.tensor.scatter_update(x, -2, i, s)\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("= pl.tile.scatter_update(t, -2, ti, ts)\n"), std::string::npos)
      << printed;
  ExpectRoundTrip(p);
}

TEST(ParserPyptoFormsTest, ScatterUpdateErrors) {
  EXPECT_EQ(ParseError(InFunction("        a = pl.scatter_update(x, i, s, axis=-2)\n", kScatterSig)),
            "8:40: unexpected keyword argument 'axis' for pl.scatter_update (input, dim, index, "
            "src)");
  EXPECT_EQ(ParseError(InFunction("        a = pl.scatter_update(x, i, dim=-2)\n", kScatterSig)),
            "8:13: pl.scatter_update expects (input, dim, index, src), (input, index, src, "
            "dim=...) or (input, dim, index=..., src=...)");
  EXPECT_EQ(ParseError(InFunction("        a = pl.scatter_update(x, i, s, dim=i)\n", kScatterSig)),
            "8:44: the dim of pl.scatter_update must be a constant integer");
}

// PyPTO's declared allocations: a module-level declaration referenced by name
// or slot, and the inline form a PyPTO dump prints. The planner here places
// tiles itself: each declaration is one located warning and is dropped.
constexpr char kDeclared[] = R"(
PING = pl.MemRef()
L0C = pl.MemRef(slots=2)

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        t: pl.Tile[[16, 16], pl.FP32, PING, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, L0C[1], pl.Mem.Vec] = pl.exp(t)
        for i in pl.range(4):
            v: pl.Tile[[16, 16], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = pl.exp(u)
            w: pl.Tile[[16, 16], pl.FP32, PING, pl.Mem.Vec] = pl.exp(v)
        out = pl.store(u, [0, 0], out)
        return out
)";

TEST(ParserPyptoFormsTest, DeclaredAllocationsAreAWarning) {
  std::vector<absl::Status> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto p = ParseProgramText("test.pto", std::string(test_util::kHeader) + kDeclared, options);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(warnings.size(), 3u);  // PING, L0C, ub: once each
  EXPECT_EQ(FormatDiagnostic(warnings[0], nullptr).find("test.pto:12:39: "), 0u)
      << FormatDiagnostic(warnings[0], nullptr);
  EXPECT_NE(warnings[0].message().find("the declared allocation 'PING' (pl.MemRef) is ignored"),
            std::string::npos)
      << warnings[0].message();
  EXPECT_NE(warnings[2].message().find("'ub'"), std::string::npos) << warnings[2].message();
  std::string printed = ir::PrintProgram(*p);
  EXPECT_EQ(printed.find("MemRef"), std::string::npos) << printed;
  ExpectRoundTrip(*p);
}

std::string DeclaredError(const std::string& decls, const std::string& item) {
  return ParseError(std::string(test_util::kHeader) + decls +
                    "@pl.program\nclass P:\n    @pl.function\n"
                    "    def f(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
                    "        t: pl.Tile[[16, 16], pl.FP32, " + item +
                    "] = pl.load(a, [0, 0], [16, 16])\n");
}

TEST(ParserPyptoFormsTest, DeclaredAllocationErrors) {
  EXPECT_EQ(DeclaredError("X = pl.MemRef()\n", "X[0], pl.Mem.Vec"),
            "9:39: 'X' was declared with a single slot, so it cannot be subscripted; declare it "
            "as pl.MemRef(slots=N), or reference it without a subscript");
  EXPECT_EQ(DeclaredError("X = pl.MemRef(slots=2)\n", "X[2], pl.Mem.Vec"),
            "9:41: slot index 2 is out of range for 'X', declared with 2 slot(s)");
  EXPECT_EQ(DeclaredError("X = pl.MemRef(slots=2)\n", "X[a], pl.Mem.Vec"),
            "9:41: the slot index of 'X' must be an integer scalar, got pl.Tensor[[16, 16], "
            "pl.FP32]");
  EXPECT_EQ(DeclaredError("X = pl.MemRef(slots=2)\n", "X[n]"),
            "9:39: a pl.Tile with a declared allocation must also give its memory space, e.g. "
            "pl.Tile[[64, 64], pl.FP32, pl.MemRef(\"scratch\"), pl.Mem.Vec]");
  EXPECT_EQ(DeclaredError("X = pl.MemRef(slots=0)\n", "X, pl.Mem.Vec"),
            "4:21: slots must be a positive integer literal, e.g. pl.MemRef(\"scratch\", slots=2)");
  EXPECT_EQ(DeclaredError("X = pl.MemRef(\"s\")\nY = pl.MemRef(\"s\")\n", "X, pl.Mem.Vec"),
            "5:5: two separate pl.MemRef() declarations both resolve to the name 's' ('X' and "
            "'Y'); give one of them an explicit name with pl.MemRef(\"...\")");
  EXPECT_EQ(DeclaredError("", "pl.MemRef(), pl.Mem.Vec"),
            "8:39: an unnamed declared allocation pl.MemRef() inside a type needs a name: "
            "pl.MemRef(\"name\"), or declare it at module level (NAME = pl.MemRef())");
}

// `x.bind_dynamic(0, N)` of a parameter whose annotation has N there: PyPTO's
// JIT specializer strips it; here it is checked and leaves nothing.
std::string BindDynamic(const std::string& stmt) {
  return std::string(test_util::kHeader) +
         "B = pl.dynamic(\"B\")\n"
         "@pl.jit\n"
         "def f(x: pl.Tensor[[B, 64], pl.FP32], y: pl.Out[pl.Tensor[[B, 64], pl.FP32]]):\n"
         "    " + stmt + "\n"
         "    return y\n";
}

TEST(ParserPyptoFormsTest, BindDynamic) {
  ir::ProgramPtr p = Parse(BindDynamic("x.bind_dynamic(0, B)"));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(ir::PrintProgram(p).find("bind_dynamic"), std::string::npos);
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(BindDynamic("x.bind_dynamic(1, B)")),
            "7:5: bind_dynamic makes dimension 1 of 'x' the dynamic dimension B, but its type has "
            "64 there; write B in its annotation (pl.Tensor[[B, ...], ...])");
  EXPECT_EQ(ParseError(BindDynamic("x.bind_dynamic(2, B)")),
            "7:20: dimension 2 of bind_dynamic is out of range for 'x' of rank 2");
  EXPECT_EQ(ParseError(BindDynamic("x.bind_dynamic(0, 4)")),
            "7:23: bind_dynamic needs a dynamic dimension declared with pl.dynamic(...) at module "
            "level");
  EXPECT_EQ(ParseError(InFunction("        n.bind_dynamic(0, 4)\n")),
            "8:9: bind_dynamic is a statement of a @pl.jit function on one of its tensor "
            "parameters; 'n' is not one");
}

// `t.shape` (PyPTO's Tensor.shape): the tuple of the dimensions; unpacked
// (`M, N = a.shape`) or indexed (`a.shape[1]`) it gives the dimensions
// themselves, so constant ones stay constants.
TEST(ParserPyptoFormsTest, ShapeOfATensor) {
  ir::ProgramPtr p = Parse(InFunction(
      "        M, N = a.shape\n"
      "        K = a.shape[1]\n"
      "        t = pl.load(a, [0, 0], [M, K])\n"
      "        c = pl.store(t, [0, 0], c)\n"
      "        return c\n",
      "self, a: pl.Tensor[[16, 32], pl.FP32], c: pl.Out[pl.Tensor[[16, 32], pl.FP32]]"));
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("M: pl.Scalar[pl.INDEX] = 16\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("N: pl.Scalar[pl.INDEX] = 32\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("K: pl.Scalar[pl.INDEX] = 32\n"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(InFunction("        m = n.shape\n")),
            "8:13: '.shape' needs a tensor or a tile; 'n' is pl.Scalar[pl.INDEX]");
  // A tuple of values is still read before any name is assigned.
  ir::ProgramPtr swap = Parse(InFunction(
      "        a = n\n        b = n + 1\n        a, b = b, a\n        return a\n"));
  ASSERT_NE(swap, nullptr);
  EXPECT_NE(ir::PrintProgram(swap).find("_tuple_tmp"), std::string::npos);
}

// PyPTO's external functions: a module-level @pl.function the program's
// methods call by name joins the program (and prints as a method).
constexpr char kExternal[] = R"(
@pl.function(type=pl.FunctionType.InCore)
def double(x: pl.Tensor[[16], pl.FP32], y: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
    t = pl.load(x, [0], [16])
    u = pl.add(t, t)
    y = pl.store(u, [0], y)
    return y

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], y: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        y = double(x, y)
        return y
)";

TEST(ParserPyptoFormsTest, ModuleLevelFunctionsJoinTheProgram) {
  ir::ProgramPtr p = Parse(std::string(test_util::kHeader) + kExternal);
  ASSERT_NE(p, nullptr);
  std::string printed = ir::PrintProgram(p);
  EXPECT_NE(printed.find("    def double(self, x: "), std::string::npos) << printed;
  EXPECT_NE(printed.find("= self.double(x, y)\n"), std::string::npos) << printed;
  ExpectRoundTrip(p);
  EXPECT_EQ(ParseError(std::string(test_util::kHeader) + kExternal +
                       "@pl.jit\ndef j(x: pl.Tensor[[16], pl.FP32]):\n    return x\n"),
            "18:2: a file holds one @pl.program class or @pl.jit functions, not both");
  EXPECT_EQ(ParseError(std::string(test_util::kHeader) +
                       "@pl.jit\ndef j(x: pl.Tensor[[16], pl.FP32]):\n    return x\n" +
                       "@pl.function\ndef k(x: pl.Tensor[[16], pl.FP32]):\n    return x\n"),
            "7:2: a file holds one @pl.program class or @pl.jit functions, not both; a @pl.jit "
            "function calls a kernel declared with @pl.jit.incore");
}

}  // namespace
}  // namespace pto::parser
