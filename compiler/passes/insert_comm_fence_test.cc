// InsertCommFence (spec §3.15): identity, the marker operators and their
// diagnostics. Phase A/B behaviour is pinned in test/insert_comm_fence*.pto.
#include "compiler/passes/insert_comm_fence.h"

#include <string>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

std::string Program(const std::string& body) {
  return std::string(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, d: pld.DistributedTensor[[2, 8], pl.FP32], s: pld.DistributedTensor[[2, 1], pl.INT32]):
)") + body;
}

TEST(InsertCommFenceTest, NoCommunicationIsIdentity) {
  InsertCommFencePass pass;
  auto p = parser::ParseProgramText("t.pto",
                                    Program("        pld.system.notify(s, 1, [0, 0], 1, op=0)\n"));
  ASSERT_TRUE(p.ok()) << p.status();
  auto out = pass.Run(*p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, *p);
  EXPECT_EQ(pass.required(), IRPropertySet({IRProperty::kSplitIncoreOrch}));  // as PyPTO
}

TEST(InsertCommFenceTest, MarkersParseAndPrint) {
  InsertCommFencePass pass;
  auto p = parser::ParseProgramText("t.pto",
                                    Program("        pl.system.cacheinvalid(d, [2, 8], [0, 0])\n"
                                            "        system.fence()\n"
                                            "        pl.system.cacheinvalid()\n"));
  ASSERT_TRUE(p.ok()) << p.status();
  std::string printed = ir::PrintFunction((*p)->GetFunction("k"));
  EXPECT_NE(printed.find("pl.system.cacheinvalid(d, [2, 8], [0, 0])\n        pl.system.fence()\n"
                         "        pl.system.cacheinvalid()"),
            std::string::npos)
      << printed;
}

void ExpectError(const std::string& stmt, const std::string& message, int col) {
  InsertCommFencePass pass;
  auto p = parser::ParseProgramText("t.pto", Program("        " + stmt + "\n"));
  ASSERT_FALSE(p.ok()) << stmt;
  EXPECT_EQ(p.status().message(), message);
  auto loc = GetDiagnosticLocation(p.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 8);
  EXPECT_EQ(loc->col, col);
}

TEST(InsertCommFenceTest, MarkerOperandErrors) {
  ExpectError("pl.system.cacheinvalid(d)",
              "pl.system.cacheinvalid takes no arguments (whole GM) or (tensor, shapes, offsets)",
              9);
  ExpectError("pl.system.cacheinvalid(1, [2], [0])",
              "pl.system.cacheinvalid takes no arguments (whole GM) or (tensor, shapes, offsets)",
              9);
  ExpectError("pl.system.fence(d)", "pl.system.fence takes 0 arguments, got 1", 9);
  ExpectError("pld.tile.wait_async_event()", "pld.tile.wait_async_event takes 1 arguments, got 0",
              9);
  ExpectError("pld.tile.put_async(d, 1)", "pld.tile.put_async takes 7 to 8 arguments, got 2", 9);
}

}  // namespace
}  // namespace pto::passes
