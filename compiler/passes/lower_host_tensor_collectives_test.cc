// LowerHostTensorCollectives (spec §3.11), text in / text out: the input is
// written in the lowered form MaterializeCommDomainScopes produces (comm-domain
// scopes, window-bound DistributedTensor types). Named after the S0 tests of
// spec §6.3 (test_lower_host_tensor_collectives.py).
#include "compiler/passes/lower_host_tensor_collectives.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::passes {
namespace {

struct Win {
  std::string var, buf, shape, dtype;
};

std::string WinLine(const Win& w) {
  return "            " + w.var + ": pld.DistributedTensor[" + w.shape + ", pl." + w.dtype +
         ", pld.WindowBuffer(\"" + w.buf + "\")] = pld.window(" + w.buf + ", " + w.shape +
         ", dtype=pl." + w.dtype + ")\n";
}

// A HOST orchestrator with one comm domain over `bufs` on `devices`.
std::string Program(const std::string& devices, const std::vector<std::string>& bufs,
                    const std::vector<Win>& wins, const std::vector<std::string>& body,
                    const std::string& params = "") {
  std::string slots;
  for (const std::string& b : bufs) slots += (slots.empty() ? "\"" : ", \"") + b + "\"";
  std::string t =
      "import pypto.language as pl\n"
      "import pypto.language.distributed as pld\n"
      "\n"
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
      "    def host(self" +
      params + "):\n        with pld.comm_domain(\"comm_d0\", devices=[" + devices + "], slots=[" +
      slots + "]):\n";
  for (const std::string& b : bufs) t += "            " + b + " = pld.alloc_window_buffer(4096)\n";
  for (const Win& w : wins) t += WinLine(w);
  for (const std::string& s : body) t += "            " + s + "\n";
  return t;
}

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

ir::ProgramPtr Parse(const std::string& text, bool internal = false) {
  parser::ParseOptions opts;
  opts.allow_internal_ops = internal;
  auto file = std::make_shared<SourceFile>("test.pto", text);
  auto p = parser::ParseProgram(file, opts);
  EXPECT_TRUE(p.ok()) << FormatDiagnostic(p.status(), file.get());
  return p.ok() ? *p : nullptr;
}

absl::StatusOr<ir::ProgramPtr> RunPass(const ir::ProgramPtr& p,
                                       LowerHostTensorCollectivesOptions o = {}) {
  return CreateLowerHostTensorCollectivesPass(o)->Run(p);
}

// The printed pass output; the output verifies and re-parses to the same text.
std::string Lower(const std::string& text, LowerHostTensorCollectivesOptions o = {}) {
  ir::ProgramPtr p = Parse(text);
  if (p == nullptr) return "<parse error>";
  auto out = RunPass(p, o);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "<error>";
  EXPECT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
  std::string printed = ir::PrintProgram(*out);
  ir::ProgramPtr again = Parse(printed, /*internal=*/true);
  if (again != nullptr) {
    EXPECT_EQ(ir::PrintProgram(again), printed);
  }
  return printed;
}

// "line:col: message" of the pass's error.
std::string Error(const std::string& text, LowerHostTensorCollectivesOptions o = {},
                  bool expect_user_error = true) {
  ir::ProgramPtr p = Parse(text);
  if (p == nullptr) return "<parse error>";
  auto out = RunPass(p, o);
  if (out.ok()) return "<no error>";
  EXPECT_EQ(IsUserError(out.status()), expect_user_error) << out.status();
  auto loc = GetDiagnosticLocation(out.status());
  EXPECT_TRUE(loc.has_value()) << out.status();
  if (!loc) return std::string(out.status().message());
  return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
         std::string(out.status().message());
}

const Win kData{"data", "a", "[8, 64]", "FP32"};
const Win kSig2{"sig", "s", "[2, 1]", "INT32"};

constexpr char kAlias[] =
    " must be different window allocations (two pld.window views over the same "
    "alloc_window_buffer are a cross-process data race under in-kernel TPUT/notify)";
constexpr char kHostBound[] =
    " must be a window-bound DistributedTensor (a view of an alloc_window_buffer) when called "
    "from a HOST orchestrator; a plain Tensor or an unbound DistributedTensor parameter is only "
    "supported on the InCore composite path";

// ---------------------------------------------------------------- allreduce

TEST(LowerHostTensorCollectivesTest, HostAllreduceLowersToBuiltinWorldSizeLoop) {
  std::string out = Lower(Program("", {"a", "s"}, {kData, kSig2},
                                  {"pld.tensor.allreduce(data, sig, op=0, core_num=1)"}));
  EXPECT_NE(out.find("for r in pl.range(pld.system.world_size()):\n"
                     "                builtin.tensor.allreduce(data, sig, op=0, dtype=pl.FP32, "
                     "core_num=1, attrs={\"op\": 0, \"dtype\": pl.FP32, \"core_num\": 1, "
                     "\"device\": r, \"arg_directions\": [pl.ArgDirection.InOut, "
                     "pl.ArgDirection.InOut]})\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("pld.tensor.allreduce"), std::string::npos) << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceExplicitDevicesOneDispatchPerDevice) {
  std::string out = Lower(Program("0, 2", {"a", "s"}, {kData, kSig2},
                                  {"pld.tensor.allreduce(data, sig, op=1, core_num=1)"}));
  size_t d0 = out.find(
      "builtin.tensor.allreduce(data, sig, op=1, dtype=pl.FP32, core_num=1, "
      "attrs={\"op\": 1, \"dtype\": pl.FP32, \"core_num\": 1, \"device\": "
      "pl.const(0, pl.INT64),");
  size_t d2 = out.find("\"device\": pl.const(2, pl.INT64),");
  ASSERT_NE(d0, std::string::npos) << out;
  ASSERT_NE(d2, std::string::npos) << out;
  EXPECT_LT(d0, d2) << "ascending device order\n" << out;
  EXPECT_EQ(out.find("for r"), std::string::npos) << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceAssignResultVarCarriesWindowBuffer) {
  std::string out = Lower(Program("0, 1", {"a", "s"}, {kData, kSig2},
                                  {"out = pld.tensor.allreduce(data, sig, op=0, core_num=1)"}));
  EXPECT_NE(out.find("out: pld.DistributedTensor[[8, 64], pl.FP32, pld.WindowBuffer(\"a\")] = "
                     "data\n"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceChainedAssignUsesRemappedResultVar) {
  ir::ProgramPtr p = Parse(Program("0, 1", {"a", "s"}, {kData, kSig2},
                                   {"data = pld.tensor.allreduce(data, sig, op=0, core_num=1)",
                                    "data = pld.tensor.allreduce(data, sig, op=0, core_num=1)"}));
  ASSERT_NE(p, nullptr);
  auto out = RunPass(p);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(ir::VerifyProgram(*out).ok()) << ir::VerifyProgram(*out);
  // The second round's dispatches read the var the first rewrite defined.
  std::vector<ir::StmtPtr> flat;
  std::function<void(const ir::StmtPtr&)> walk = [&](const ir::StmtPtr& s) {
    if (auto q = ir::As<ir::SeqStmts>(s)) {
      for (const auto& x : q->stmts()) walk(x);
    } else if (auto c = ir::As<ir::CommDomainScopeStmt>(s)) {
      walk(c->body());
    } else {
      flat.push_back(s);
    }
  };
  walk((*out)->GetFunction("host")->body());
  std::vector<ir::VarPtr> defs;
  std::vector<ir::ExprPtr> srcs;
  for (const auto& s : flat) {
    if (auto a = ir::As<ir::AssignStmt>(s); a && a->var()->name_hint() == "data") {
      defs.push_back(a->var());
    }
    if (auto e = ir::As<ir::EvalStmt>(s)) {
      srcs.push_back(ir::As<ir::Call>(e->expr())->args()[0]);
    }
  }
  ASSERT_EQ(defs.size(), 3u);  // the window view and the two rebinds
  ASSERT_EQ(srcs.size(), 4u);
  EXPECT_EQ(srcs[0], defs[0]);
  EXPECT_EQ(srcs[1], defs[0]);
  EXPECT_EQ(srcs[2], defs[1]);
  EXPECT_EQ(srcs[3], defs[1]);
}

TEST(LowerHostTensorCollectivesTest, ReturnLiftedAllreduceReturnsTheReboundVar) {
  // SynthesizeAllReduceSignals lifts `return pld.tensor.allreduce(...)` into
  // an assignment; the return then names the rebound window.
  std::string text = Program("0, 1", {"a", "s"}, {kData, kSig2},
                             {"__allreduce_result_0 = pld.tensor.allreduce(data, sig, op=0, "
                              "core_num=1)",
                              "return __allreduce_result_0"});
  text.replace(text.find("def host(self)"), 14,
               "def host(self) -> pld.DistributedTensor[[8, 64], pl.FP32]");
  std::string out = Lower(text);
  EXPECT_NE(out.find("__allreduce_result_0: pld.DistributedTensor[[8, 64], pl.FP32, "
                     "pld.WindowBuffer(\"a\")] = data\n"
                     "            return __allreduce_result_0\n"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceResolvesNonInnermostCommDomainScope) {
  std::string text =
      std::string("import pypto.language as pl\n") +
      "import pypto.language.distributed as pld\n"
      "\n"
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
      "    def host(self):\n"
      "        with pld.comm_domain(\"comm_d0\", devices=[0, 1], slots=[\"a\", \"s\"]):\n"
      "            a = pld.alloc_window_buffer(2048)\n"
      "            s = pld.alloc_window_buffer(8)\n"
      "            with pld.comm_domain(\"comm_d1\", devices=[2, 3], slots=[\"b\"]):\n"
      "                b = pld.alloc_window_buffer(2048)\n" +
      "    " + WinLine(kData) + "    " + WinLine(kSig2) +
      "                pld.tensor.allreduce(data, sig, op=0, core_num=1)\n";
  std::string out = Lower(text);
  EXPECT_NE(out.find("\"device\": pl.const(0, pl.INT64)"), std::string::npos) << out;
  EXPECT_NE(out.find("\"device\": pl.const(1, pl.INT64)"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"device\": pl.const(2, pl.INT64)"), std::string::npos) << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceMulticorePropagatesCoreNumAndAcceptsWiderSignal) {
  std::string out = Lower(Program("0, 1", {"a", "s"}, {kData, {"sig", "s", "[2, 8]", "INT32"}},
                                  {"pld.tensor.allreduce(data, sig, op=0, core_num=4)"}),
                          {.backend_aiv_core_count = 4});
  EXPECT_NE(out.find("builtin.tensor.allreduce(data, sig, op=0, dtype=pl.FP32, core_num=4, "
                     "attrs={\"op\": 0, \"dtype\": pl.FP32, \"core_num\": 4,"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllreduceRingLowersToRingBuiltin) {
  std::string out =
      Lower(Program("0, 1, 2, 3", {"a", "s"}, {kData, {"sig", "s", "[7, 4]", "INT32"}},
                    {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}));
  EXPECT_NE(out.find("builtin.tensor.allreduce_ring(data, sig, op=0, dtype=pl.FP32, attrs={\"op\": "
                     "0, \"dtype\": pl.FP32, \"device\": "),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("builtin.tensor.allreduce("), std::string::npos) << out;
}

// ------------------------------------------- barrier, broadcast, reduce_scatter

TEST(LowerHostTensorCollectivesTest, HostBarrierBroadcastReduceScatterLowerToBuiltinWorldSizeLoop) {
  std::string out =
      Lower(Program("", {"a", "s"}, {{"t", "a", "[2, 64]", "FP32"}, {"sig", "s", "[2]", "INT32"}},
                    {"sig = pld.tensor.barrier(sig)", "pld.tensor.broadcast(t, sig, root=1)",
                     "pld.tensor.reduce_scatter(t, sig, op=0)"}));
  EXPECT_NE(out.find("builtin.tensor.barrier(sig, attrs={\"device\": r, \"arg_directions\": "
                     "[pl.ArgDirection.InOut]})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("builtin.tensor.broadcast(t, sig, root=1, dtype=pl.FP32, attrs={\"root\": 1, "
                     "\"dtype\": pl.FP32, \"device\": r, \"arg_directions\": "
                     "[pl.ArgDirection.InOut, pl.ArgDirection.InOut]})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("builtin.tensor.reduce_scatter(t, sig, op=0, dtype=pl.FP32, attrs={\"op\": "
                     "0, \"dtype\": pl.FP32, \"device\": r,"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("sig: pld.DistributedTensor[[2], pl.INT32, pld.WindowBuffer(\"s\")] = sig"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest,
     HostBarrierBroadcastReduceScatterAcceptRank1SignalThroughLowering) {
  std::string out = Lower(
      Program("0, 1", {"a", "s"}, {{"t", "a", "[2, 64]", "FP32"}, {"sig", "s", "[2]", "INT32"}},
              {"pld.tensor.barrier(sig)", "pld.tensor.broadcast(t, sig, root=1)",
               "pld.tensor.reduce_scatter(t, sig, op=0)"}));
  EXPECT_NE(out.find("builtin.tensor.barrier(sig"), std::string::npos) << out;
  EXPECT_NE(out.find("builtin.tensor.broadcast(t, sig"), std::string::npos) << out;
  EXPECT_NE(out.find("builtin.tensor.reduce_scatter(t, sig"), std::string::npos) << out;
}

// ------------------------------------------------------ allgather, all_to_all

TEST(LowerHostTensorCollectivesTest, HostAllgatherAndAllToAllLowerToNamesakeBuiltin) {
  std::string out = Lower(Program(
      "0, 1", {"i", "a", "s"},
      {{"inp", "i", "[1, 64]", "FP32"},
       {"t", "a", "[2, 64]", "FP32"},
       {"sig", "s", "[2]", "INT32"},
       {"inp2", "i", "[2, 64]", "FP32"}},
      {"t = pld.tensor.allgather(inp, t, sig)", "t = pld.tensor.all_to_all(inp2, t, sig)"}));
  const char* dirs =
      "\"arg_directions\": [pl.ArgDirection.Input, pl.ArgDirection.InOut, pl.ArgDirection.InOut]";
  EXPECT_NE(out.find(std::string("builtin.tensor.allgather(inp, t, sig, dtype=pl.FP32, "
                                 "attrs={\"dtype\": pl.FP32, \"device\": pl.const(0, pl.INT64), ") +
                     dirs),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("builtin.tensor.all_to_all(inp2, t, sig, dtype=pl.FP32"), std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, CollectiveEmbeddedInAReturnIsLoweredInPlace) {
  std::string text = Program("", {"i", "a", "s"},
                             {{"inp", "i", "[2, 64]", "FP32"},
                              {"t", "a", "[2, 64]", "FP32"},
                              {"sig", "s", "[2]", "INT32"}},
                             {"return pld.tensor.all_to_all(inp, t, sig)"});
  text.replace(text.find("def host(self)"), 14,
               "def host(self) -> pld.DistributedTensor[[2, 64], pl.FP32]");
  std::string out = Lower(text);
  EXPECT_NE(out.find("                builtin.tensor.all_to_all(inp, t, sig, dtype=pl.FP32"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("            return t\n"), std::string::npos) << out;
}

// ------------------------------------------------------------ all_to_all_v

std::vector<Win> A2avWins() {
  return {{"inp", "i", "[8, 64]", "FP32"},
          {"t", "a", "[8, 64]", "FP32"},
          {"sig", "s", "[2, 1]", "INT32"},
          {"sc", "c", "[2]", "INT32"},
          {"rc", "r", "[2, 1]", "INT32"}};
}

TEST(LowerHostTensorCollectivesTest, HostAllToAllVLowersToNamesakeBuiltin) {
  std::string out = Lower(Program("0, 1", {"i", "a", "s", "c", "r"}, A2avWins(),
                                  {"t = pld.tensor.all_to_all_v(inp, t, sig, sc, rc)"}));
  EXPECT_NE(out.find("builtin.tensor.all_to_all_v(inp, t, sig, sc, rc, dtype=pl.FP32, "
                     "attrs={\"dtype\": pl.FP32, \"device\": pl.const(0, pl.INT64), "
                     "\"arg_directions\": [pl.ArgDirection.Input, pl.ArgDirection.InOut, "
                     "pl.ArgDirection.InOut, pl.ArgDirection.Input, pl.ArgDirection.InOut]})"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, HostAllToAllVCoreNumTravelsAsDispatchAttr) {
  std::string out = Lower(Program("", {"i", "a", "s", "c", "r"}, A2avWins(),
                                  {"t = pld.tensor.all_to_all_v(inp, t, sig, sc, rc, l)"},
                                  ", l: pl.Scalar[pl.INDEX]"));
  EXPECT_NE(out.find("builtin.tensor.all_to_all_v(inp, t, sig, sc, rc, dtype=pl.FP32, "
                     "attrs={\"dtype\": pl.FP32, \"core_num\": l, \"device\": r,"),
            std::string::npos)
      << out;
  out = Lower(Program("", {"i", "a", "s", "c", "r"}, A2avWins(),
                      {"t = pld.tensor.all_to_all_v(inp, t, sig, sc, rc, core_num=4)"}));
  EXPECT_NE(out.find("attrs={\"dtype\": pl.FP32, \"core_num\": 4, \"device\": r,"),
            std::string::npos)
      << out;
}

TEST(LowerHostTensorCollectivesTest, LoweredCollectiveIsPrintableWithDtypeAttr) {
  // Lower() re-parses the output with --allow-internal-ops and compares.
  std::string out = Lower(Program("0, 1", {"a", "s"}, {kData, kSig2},
                                  {"pld.tensor.allreduce(data, sig, op=0, core_num=1)"}));
  EXPECT_NE(out.find("dtype=pl.FP32"), std::string::npos) << out;
}

TEST(LowerHostTensorCollectivesTest, IdentityWithoutCollectivesAndOutsideHostOrchestrators) {
  ir::ProgramPtr p = Parse(
      "import pypto.language as pl\n"
      "import pypto.language.distributed as pld\n"
      "\n"
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def chip(self, d: pld.DistributedTensor[[8, 64], pl.FP32], "
      "s: pld.DistributedTensor[[2, 1], pl.INT32]):\n"
      "        pld.tensor.allreduce(d, s, op=0, core_num=1)\n"
      "\n"
      "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
      "    def host(self):\n"
      "        with pld.comm_domain(\"comm_d0\", devices=[], slots=[\"a\"]):\n"
      "            a = pld.alloc_window_buffer(2048)\n" +
      WinLine(kData));
  ASSERT_NE(p, nullptr);
  auto out = RunPass(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, p);
}

// -------------------------------------------------------------- rejections

struct Reject {
  std::string name;
  std::string text;
  std::string needle;  // where the error points
  std::string message;
  LowerHostTensorCollectivesOptions options;
  bool user_error = true;
};

// The rejection cases, built by theme; each case names its program, where the
// error points and its message.
struct RejectList {
  std::vector<Reject> r;
  void add(std::string name, std::string text, std::string needle, std::string message,
           LowerHostTensorCollectivesOptions o = {}) {
    r.push_back({std::move(name), std::move(text), std::move(needle), std::move(message), o});
  }
};

constexpr char kAllreduceCall[] = "pld.tensor.allreduce(";

// The allreduce forms: signal shapes, lanes, modes, ring constraints.
void AllreduceRejections(RejectList& l) {
  const std::string ar = kAllreduceCall;
  l.add("HostAllreduceRejectsStaticSignalSmallerThanExplicitDeviceCount",
      Program("0, 1, 2", {"a", "s"}, {kData, kSig2},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=1)"}),
      ar,
      "pld.tensor.allreduce: collective signal shape[0] (2) must be at least the participating "
      "device count (3)");
  l.add("HostAllreduceRejectsRank2SignalWithDynamicSecondExtent",
      Program("0, 1", {"a", "s"}, {kData, {"sig", "s", "[2, n]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=1)"}, ", n: pl.Scalar[pl.INDEX]"),
      ar, "pld.tensor.allreduce: collective rank-2 signal shape[1] must be constant");
  l.add("HostAllreduceMulticoreRejectsRank1Signal",
      Program("0, 1", {"a", "s"}, {kData, {"sig", "s", "[2]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=2)"}),
      ar,
      "pld.tensor.allreduce: collective rank-1 signal has one lane per device but 2 lanes are "
      "required; use a rank-2 [world_size, signal_stride] signal");
  l.add("HostAllreduceMulticoreRejectsNarrowRank2Signal",
      Program("", {"a", "s"}, {kData, {"sig", "s", "[2, 2]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=4)"}),
      ar,
      "pld.tensor.allreduce: collective rank-2 signal shape[1] (2) must be at least the required "
      "lane count (4)");
  l.add("HostAllreduceRejectsCoreNumAboveBackendCapacity",
      Program("", {"a", "s"}, {kData, {"sig", "s", "[2, 8]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=8)"}),
      ar, "pld.tensor.allreduce core_num (8) exceeds the backend AIV core count (4)",
      {.backend_aiv_core_count = 4});
  l.add("HostAllreduceRingRejectsMulticore",
      Program("", {"a", "s"}, {kData, {"sig", "s", "[7, 4]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=2)"}),
      ar,
      "HOST pld.tensor.allreduce mode=\"ring\" does not support core_num > 1, got core_num=2; use "
      "mode=\"mesh\" for a multi-core AllReduce");
  l.add("HostAllreduceRejectsAliasedSrcSignalWindows",
      Program("", {"a"}, {kData, {"sig", "a", "[2, 1]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, core_num=1)"}),
      ar, std::string("pld.tensor.allreduce target and signal") + kAlias);
  l.add("HostAllreduceRejectsUnknownMode",
      Program("", {"a", "s"}, {kData, kSig2},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"tree\", core_num=1)"}),
      ar, "pld.tensor.allreduce mode must be \"mesh\" or \"ring\", got \"tree\"");
  l.add("HostAllreduceRingRejectsMismatchedSignalShape",
      Program("0, 1, 2, 3", {"a", "s"}, {kData, {"sig", "s", "[5, 4]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce: ring allreduce signal shape[0] (5) must be at least 2*(N-1)+1 = 7 "
      "for N=4 participating devices");
  l.add("HostAllreduceRingRejectsSignalOfAnotherDeviceCount",
      Program("0, 1", {"a", "s"}, {kData, {"sig", "s", "[7, 4]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce: ring allreduce signal shape[1] must equal the participating device "
      "count (2)");
  l.add("HostAllreduceRingRejectsNondivisibleNumel",
      Program("0, 1, 2, 3", {"a", "s"},
              {{"data", "a", "[3, 3]", "FP32"}, {"sig", "s", "[7, 4]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce: ring allreduce src element count (9) must be divisible by the "
      "participating device count (4)");
  l.add("HostAllreduceRingRejectsTooManyRanks",
      Program("0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16", {"a", "s"},
              {{"data", "a", "[17, 64]", "FP32"}, {"sig", "s", "[33, 16]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce: ring allreduce requires 16 or fewer participating devices, got 17");
  l.add("HostAllreduceRingRejectsSignalRowsOfAnotherLaneCount",
      Program("0, 1, 2, 3", {"a", "s"}, {kData, {"sig", "s", "[9, 4]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce: ring allreduce signal shape[0] (9) must equal 2*(shape[1]-1)+1 = 7");
  l.add("HostAllreduceRingRejectsRank1Signal",
      Program("0, 1", {"a", "s"}, {kData, {"sig", "s", "[3]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"}),
      ar,
      "pld.tensor.allreduce mode=\"ring\" requires a rank-2 INT32 signal [2*(N-1)+1, N] = [3, 2], "
      "got rank 1");
  l.add("HostAllreduceRingRejectsDynamicSrcShape",
      Program("0, 1", {"a", "s"},
              {{"data", "a", "[n, 64]", "FP32"}, {"sig", "s", "[3, 2]", "INT32"}},
              {"pld.tensor.allreduce(data, sig, op=0, mode=\"ring\", core_num=1)"},
              ", n: pl.Scalar[pl.INDEX]"),
      ar,
      "pld.tensor.allreduce: ring allreduce requires a statically-known src shape when the "
      "participating device count is known");
}

// broadcast, reduce_scatter, barrier, allgather and all_to_all: roots and signals.
void SignalRejections(RejectList& l) {
  const std::string ar = kAllreduceCall;
  l.add("HostAllreduceWithoutSignalIsRejected",
      Program("", {"a"}, {kData}, {"pld.tensor.allreduce(data, op=0, core_num=1)"}), ar,
      "pld.tensor.allreduce on the HOST rail needs an explicit signal; run "
      "SynthesizeAllReduceSignals before LowerHostTensorCollectives");
  for (std::string op : {"broadcast", "reduce_scatter"}) {
    l.add("Host" + op + "RejectsAliasedTargetSignalWindows",
        Program("", {"a"}, {{"t", "a", "[2, 64]", "FP32"}, {"sig", "a", "[2, 1]", "INT32"}},
                {"pld.tensor." + op + "(t, sig)"}),
        "pld.tensor." + op, "pld.tensor." + op + " target and signal" + kAlias);
  }
  l.add("HostBroadcastRejectsOutOfRangeRootOnExplicitDeviceSubset",
      Program("0, 1", {"a", "s"}, {{"t", "a", "[2, 64]", "FP32"}, {"sig", "s", "[2]", "INT32"}},
              {"pld.tensor.broadcast(t, sig, root=5)"}),
      "pld.tensor.broadcast",
      "pld.tensor.broadcast root (5) must be a valid rank in [0, 2) for this explicit device "
      "subset");
  l.add("HostBarrierRejectsSmallSignal",
      Program("0, 1, 2", {"s"}, {{"sig", "s", "[2]", "INT32"}}, {"pld.tensor.barrier(sig)"}),
      "pld.tensor.barrier",
      "pld.tensor.barrier: collective signal shape[0] (2) must be at least the participating "
      "device count (3)");
  l.add("HostBarrierRejectsWideSignal",
      Program("0, 1", {"s"}, {{"sig", "s", "[2, 2]", "INT32"}}, {"pld.tensor.barrier(sig)"}),
      "pld.tensor.barrier",
      "pld.tensor.barrier: collective rank-2 signal shape[1] (2) must equal the required lane "
      "count (1)");
  l.add("HostBarrierRejectsRank3Signal",
      Program("0, 1", {"s"}, {{"sig", "s", "[2, 1, 1]", "INT32"}}, {"pld.tensor.barrier(sig)"}),
      "pld.tensor.barrier",
      "pld.tensor.barrier: collective signal must be rank-1 [world_size] or rank-2 "
      "[world_size, signal_stride], got rank 3");
  for (std::string op : {"allgather", "all_to_all"}) {
    std::string in_shape = op == "allgather" ? "[1, 64]" : "[2, 64]";
    std::string call = "pld.tensor." + op + "(inp, t, sig)";
    std::string needle = "pld.tensor." + op + "(";
    Win t{"t", "a", "[2, 64]", "FP32"};
    l.add("Host" + op + "RejectsAliasedInputTargetWindows",
        Program("", {"a", "s"}, {{"inp", "a", in_shape, "FP32"}, t, {"sig", "s", "[2]", "INT32"}},
                {call}),
        needle, "pld.tensor." + op + " input and target" + kAlias);
    l.add("Host" + op + "RejectsAliasedInputSignalWindows",
        Program("", {"i", "a"}, {{"inp", "i", in_shape, "FP32"}, t, {"sig", "i", "[2]", "INT32"}},
                {call}),
        needle, "pld.tensor." + op + " input and signal" + kAlias);
    l.add("Host" + op + "RejectsAliasedTargetSignalWindows",
        Program("", {"i", "a"}, {{"inp", "i", in_shape, "FP32"}, t, {"sig", "a", "[2]", "INT32"}},
                {call}),
        needle, "pld.tensor." + op + " target and signal" + kAlias);
    l.add("Host" + op + "RejectsPlainTensorInput",
        Program("", {"a", "s"}, {t, {"sig", "s", "[2]", "INT32"}}, {call},
                ", inp: pl.Tensor[" + in_shape + ", pl.FP32]"),
        needle, "pld.tensor." + op + " input" + kHostBound);
  }
}

// all_to_all_v: each pair of its five windows, and the host-bound operands.
void AllToAllVRejections(RejectList& l) {
  // all_to_all_v: each pair of its five windows, and the host-bound operands.
  const std::vector<std::string> bufs = {"i", "a", "s", "c", "r"};
  const std::string a2av = "pld.tensor.all_to_all_v(inp, t, sig, sc, rc)";
  const std::string a2av_needle = "pld.tensor.all_to_all_v(";
  auto aliased = [&](size_t x, size_t y) {
    std::vector<Win> w = A2avWins();
    w[y].buf = w[x].buf;
    return Program("", bufs, w, {a2av});
  };
  const char* roles[] = {"input", "target", "signal", "send_counts", "recv_counts"};
  std::vector<std::pair<size_t, size_t>> pairs = {{0, 1}, {0, 2}, {1, 4}, {2, 4}, {3, 4}};
  for (auto [x, y] : pairs) {
    l.add(std::string("HostAllToAllVRejectsAliased_") + roles[x] + "_" + roles[y], aliased(x, y),
        a2av_needle,
        std::string("pld.tensor.all_to_all_v ") + roles[x] + " and " + roles[y] + kAlias);
  }
  auto param = [&](size_t drop, const std::string& type) {
    std::vector<Win> w = A2avWins();
    std::string name = w[drop].var;
    w.erase(w.begin() + drop);
    return Program("", bufs, w, {a2av}, ", " + name + ": " + type);
  };
  l.add("HostAllToAllVRejectsPlainTensorInput", param(0, "pl.Tensor[[8, 64], pl.FP32]"), a2av_needle,
      std::string("pld.tensor.all_to_all_v input") + kHostBound);
  l.add("HostAllToAllVRejectsPlainTensorSendCounts", param(3, "pl.Tensor[[2], pl.INT32]"),
      a2av_needle, std::string("pld.tensor.all_to_all_v send_counts") + kHostBound);
  l.add("HostAllToAllVRejectsUnboundDistributedInput",
      param(0, "pld.DistributedTensor[[8, 64], pl.FP32]"), a2av_needle,
      std::string("pld.tensor.all_to_all_v input") + kHostBound);
  l.add("HostAllToAllVRejectsUnboundDistributedSendCounts",
      param(3, "pld.DistributedTensor[[2], pl.INT32]"), a2av_needle,
      std::string("pld.tensor.all_to_all_v send_counts") + kHostBound);
  l.add("HostAllToAllVRejectsUnboundDistributedTarget",
      param(1, "pld.DistributedTensor[[8, 64], pl.FP32]"), a2av_needle,
      std::string("pld.tensor.all_to_all_v target") + kHostBound);
  {
    std::vector<Win> w = A2avWins();
    w[2].shape = "[1, 1]";
    w[3].shape = "[1]";
    w[4].shape = "[1, 1]";
    l.add("HostAllToAllVRejectsSignalSmallerThanDeviceCount", Program("0, 1", bufs, w, {a2av}),
        a2av_needle,
        "pld.tensor.all_to_all_v: collective signal shape[0] (1) must be at least the "
        "participating device count (2)");
  }
}

// Builtin re-validation, unsupported collectives, broken pass orders.
void OtherRejections(RejectList& l) {
  const std::string ar = kAllreduceCall;
  // Builtin deducers re-validate (HOST allowlist of spec §2.6).
  l.add("HostBroadcastRejectsFp64OnTheHostRail",
      Program("", {"a", "s"}, {{"t", "a", "[2, 64]", "FP64"}, {"sig", "s", "[2]", "INT32"}},
              {"pld.tensor.broadcast(t, sig, root=0)"}),
      "pld.tensor.broadcast",
      "builtin.tensor.broadcast supports FP32, FP16, INT32, INT8 on the HOST rail, got FP64");
  l.add("HostIndexedAllToAllVIsRejected",
      Program("", {"i", "a", "s", "c", "r"}, A2avWins(),
              {"t = pld.tensor.indexed_all_to_all_v(inp, t, sig, sc, rc, idx, core_num=2)"},
              ", idx: pl.Tensor[[8], pl.INT32]"),
      "pld.tensor.indexed_all_to_all_v",
      "pld.tensor.indexed_all_to_all_v is not supported from a HOST orchestrator; call it from "
      "a CHIP orchestration (managed L2 rail)");
  l.add("HostCollectiveNestedInAnExpressionIsRejected",
      Program("", {"s"}, {{"sig", "s", "[2]", "INT32"}},
              {"x = pld.system.get_comm_ctx(pld.tensor.barrier(sig))"}),
      "pld.tensor.barrier",
      "pld.tensor.barrier in a HOST orchestrator must be a direct assignment, expression "
      "statement, or return value");
  // A collective outside every comm domain is a broken pass order.
  {
    Reject x{"CollectiveOutsideCommDomainIsInternal",
             "import pypto.language as pl\n"
             "import pypto.language.distributed as pld\n"
             "\n"
             "@pl.program\n"
             "class P:\n"
             "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
             "    def host(self, sig: pld.DistributedTensor[[2], pl.INT32]):\n"
             "        pld.tensor.barrier(sig)\n",
             "pld.tensor.barrier",
             "pld.tensor.barrier must appear inside a CommDomainScopeStmt",
             {},
             false};
    l.r.push_back(x);
  }
  {
    // Two nested domains, the collective uses a window of each: no single
    // scope holds both (MaterializeCommDomainScopes never produces this).
    std::string text =
        std::string("import pypto.language as pl\n") +
        "import pypto.language.distributed as pld\n"
        "\n"
        "@pl.program\n"
        "class P:\n"
        "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
        "    def host(self):\n"
        "        with pld.comm_domain(\"comm_d0\", devices=[], slots=[\"a\"]):\n"
        "            a = pld.alloc_window_buffer(2048)\n" +
        WinLine(kData) +
        "            with pld.comm_domain(\"comm_d1\", devices=[0, 1], slots=[\"s\"]):\n"
        "                s = pld.alloc_window_buffer(8)\n" +
        "    " + WinLine(kSig2) +
        "                pld.tensor.allreduce(data, sig, op=0, core_num=1)\n";
    // A user reaches this by using a collective's windows on different
    // device sets, so it is a user error naming where each window went.
    l.r.push_back({"WindowsOfNoCommonScopeIsAUserError",
                 text,
                 ar,
                 "pld.tensor.allreduce: window buffers must resolve to the same comm-domain "
                 "scope, but its windows are in different comm domains (target 'a' in comm domain "
                 "'comm_d0', signal 's' in comm domain 'comm_d1'); windows are grouped into comm "
                 "domains by the devices that use them, so use every window of a collective on "
                 "the same devices (e.g. dispatch each pipeline that takes one to every device "
                 "with `for r in pl.range(pld.world_size())` and device=r)",
                 {},
                 true});
  }
}

std::vector<Reject> Rejections() {
  RejectList l;
  AllreduceRejections(l);
  SignalRejections(l);
  AllToAllVRejections(l);
  OtherRejections(l);
  return l.r;
}

class RejectionTest : public testing::TestWithParam<Reject> {};

TEST_P(RejectionTest, IsLocatedAtTheCall) {
  const Reject& r = GetParam();
  EXPECT_EQ(Error(r.text, r.options, r.user_error), Loc(r.text, r.needle) + ": " + r.message)
      << r.text;
}

INSTANTIATE_TEST_SUITE_P(LowerHostTensorCollectives, RejectionTest, testing::ValuesIn(Rejections()),
                         [](const testing::TestParamInfo<Reject>& i) { return i.param.name; });

}  // namespace
}  // namespace pto::passes
