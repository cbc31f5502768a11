// Tests of more of PyPTO's written forms (issue 24): scatter_update's keyword
// forms, declared allocations (pl.MemRef(slots=)), bind_dynamic.
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/parser/parser_test_util.h"
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

}  // namespace
}  // namespace pto::parser
