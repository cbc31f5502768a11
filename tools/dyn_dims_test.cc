#include "tools/dyn_dims.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"
#include "common/npy.h"

namespace pto::tools::run {
namespace {

namespace fs = std::filesystem;

// NR is the rank count (the first dimension of x and y); M only appears as a
// later dimension, so only y.npy can give it.
constexpr char kProgram[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
M = pl.dynamic("M")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[8], pl.FP32], y: pl.Out[pl.Tensor[[M], pl.FP32]]):
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[NR, 8], pl.FP32], y: pl.Out[pl.Tensor[[NR, M], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            self.chip(x[r], y[r], device=r)
)";

ir::ProgramPtr Parse() {
  auto p = parser::ParseProgramText("p.pto", kProgram);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

std::string Dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path d = fs::path(tmp != nullptr ? tmp : "/tmp") / name;
  fs::create_directories(d);
  return d.string();
}

void WriteNpy(const std::string& dir, const std::string& name, std::vector<int64_t> shape) {
  npy::Array a{"<f4", shape, std::string(static_cast<size_t>(npy::NumElements(shape)) * 4, '\0')};
  ASSERT_TRUE(npy::WriteFile(dir + "/" + name + ".npy", a).ok());
}

TEST(DynDimsTest, RanksAndInputShapesBindAndSpecialize) {
  ir::ProgramPtr p = Parse();
  ASSERT_NE(p, nullptr);
  const std::string dir = Dir("bind");
  WriteNpy(dir, "y", {3, 16});
  absl::StatusOr<DimValues> dims = BindDynDims(p, 3, dir);
  ASSERT_TRUE(dims.ok()) << dims.status();
  ASSERT_EQ(dims->size(), 2u);
  EXPECT_EQ(dims->at("NR").value, 3);
  EXPECT_EQ(dims->at("M").value, 16);
  absl::StatusOr<ir::ProgramPtr> s = SpecializeDynDims(p, *dims);
  ASSERT_TRUE(s.ok()) << s.status();
  std::string printed = ir::PrintProgram(*s);
  EXPECT_NE(printed.find("x: pl.Tensor[[3, 8], pl.FP32], y: pl.Out[pl.Tensor[[3, 16], pl.FP32]]"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("y: pl.Out[pl.Tensor[[16], pl.FP32]]"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("pl.dynamic"), std::string::npos) << printed;
}

TEST(DynDimsTest, ConflictingBindingsNameBothSources) {
  ir::ProgramPtr p = Parse();
  ASSERT_NE(p, nullptr);
  const std::string dir = Dir("conflict");
  WriteNpy(dir, "x", {4, 8});
  absl::StatusOr<DimValues> dims = BindDynDims(p, 2, dir);
  ASSERT_FALSE(dims.ok());
  EXPECT_EQ(dims.status().message(),
            "dynamic dimension 'NR' is 2 from --ranks=2 (the first dimension of 'x') but 4 from " +
                dir + "/x.npy (dimension 0 of 'x'); give inputs that agree");
}

TEST(DynDimsTest, UnboundDimensionIsLocated) {
  ir::ProgramPtr p = Parse();
  ASSERT_NE(p, nullptr);
  absl::StatusOr<DimValues> dims = BindDynDims(p, 2, "");
  ASSERT_TRUE(dims.ok()) << dims.status();
  EXPECT_EQ(dims->count("M"), 0u);
  absl::StatusOr<ir::ProgramPtr> s = SpecializeDynDims(p, *dims);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsUserError(s.status()));
  EXPECT_EQ(s.status().message(),
            "dynamic dimension 'M' has no value for this run: only dimensions of the HOST "
            "orchestrator's parameters are bound (the first, and one a device loop indexes, "
            "from --ranks, the others from --inputs=DIR/<param>.npy), and a callee's from the "
            "arguments of its calls");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(s.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->path, "p.pto");
  EXPECT_EQ(loc->line, 5);
  EXPECT_EQ(loc->col, 5);
}

// PyPTO's `STAGED = pl.dynamic("STAGED")`: a dimension only the callees
// name takes the size of the argument at the call (x[r] is [NR * 8]), through
// a chain of calls; two calls with different sizes name both.
constexpr char kStaged[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
STAGED = pl.dynamic("STAGED")


@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[STAGED], pl.FP32], y: pl.Out[pl.Tensor[[STAGED], pl.FP32]]) -> pl.Tensor[[STAGED], pl.FP32]:
        t = pl.load(x, [0], [8])
        return pl.store(t, [0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[STAGED], pl.FP32], y: pl.Out[pl.Tensor[[STAGED], pl.FP32]]) -> pl.Tensor[[STAGED], pl.FP32]:
        return self.k(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[NR, NR * 8], pl.FP32], y: pl.Out[pl.Tensor[[NR, NR * 8], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            self.chip(x[r], y[r], device=r)
)";

TEST(DynDimsTest, CalleeDimensionsBindFromTheirCalls) {
  auto p = parser::ParseProgramText("s.pto", kStaged);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<DimValues> dims = BindDynDims(*p, 2, "");
  ASSERT_TRUE(dims.ok()) << dims.status();
  ASSERT_EQ(dims->count("STAGED"), 1u);
  EXPECT_EQ(dims->at("STAGED").value, 16);
  EXPECT_EQ(dims->at("STAGED").source.rfind("the call of 'chip' at s.pto:22:13 (dimension 0 of 'x')", 0), 0u)
      << dims->at("STAGED").source;
  absl::StatusOr<ir::ProgramPtr> s = SpecializeDynDims(*p, *dims, 2);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NE(ir::PrintProgram(*s).find("x: pl.Tensor[[16], pl.FP32]"), std::string::npos);

  std::string two(kStaged);
  const std::string call = "            self.chip(x[r], y[r], device=r)\n";
  two.insert(two.find(call) + call.size(),
             "        self.k(pl.tensor.create([8], dtype=pl.FP32), y[0])\n");
  p = parser::ParseProgramText("s.pto", two);
  ASSERT_TRUE(p.ok()) << p.status();
  dims = BindDynDims(*p, 2, "");
  ASSERT_FALSE(dims.ok());
  EXPECT_NE(dims.status().message().find("dynamic dimension 'STAGED' is "), std::string::npos)
      << dims.status();
  EXPECT_NE(dims.status().message().find("; give inputs that agree"), std::string::npos);
}

// PyPTO's per-round HOST tensors `[ROUNDS, NR, 8]` read as `x[rd, r]`: the
// dimension the device loop's variable indexes is the rank count; one a
// round loop indexes is not.
TEST(DynDimsTest, DimensionIndexedByTheDeviceLoopIsTheRankCount) {
  constexpr char kRounds[] = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
ROUNDS = pl.dynamic("ROUNDS")


@pl.program
class R:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[8], pl.FP32]):
        return x

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[ROUNDS, NR, 8], pl.FP32]):
        for rd in pl.range(3):
            for r in pl.range(pld.world_size()):
                self.chip(x[rd, r], device=r)
)";
  auto p = parser::ParseProgramText("r.pto", kRounds);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<DimValues> dims = BindDynDims(*p, 4, "");
  ASSERT_TRUE(dims.ok()) << dims.status();
  ASSERT_EQ(dims->count("NR"), 1u);
  EXPECT_EQ(dims->at("NR").value, 4);
  EXPECT_EQ(dims->at("NR").source,
            "--ranks=4 (dimension 1 of 'x', indexed by the device loop)");
  // ROUNDS is the first dimension: the rank count too, by the first rule.
  EXPECT_EQ(dims->at("ROUNDS").value, 4);
}

// PyPTO compiles for its DistributedConfig's devices; pto-run binds the world
// the same way: `pld.world_size()` in a window size or a window shape becomes
// --ranks, while the dispatch loop keeps `pl.range(pld.world_size())`.
TEST(DynDimsTest, WorldSizeBecomesTheRankCountOutsideDispatchLoops) {
  constexpr char kWorld[] = R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class W:
    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, sig: pld.DistributedTensor[[4], pl.INT32]):
        return sig

    @pl.function(type=pl.FunctionType.InCore)
    def zero(self, c: pl.Out[pl.Tensor[[pld.world_size()], pl.INT32]]) -> pl.Tensor[[pld.world_size()], pl.INT32]:
        for peer, (c0,) in pl.range(pld.world_size(), init_values=(c,)):
            c1 = pl.write(c0, [peer], pl.const(0, pl.INT32))
            c_out = pl.yield_(c1)
        return c_out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[4, 8], pl.FP32]):
        buf = pld.alloc_window_buffer(pld.world_size() * 4)
        sig = pld.window(buf, [pld.world_size()], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            self.chip(sig, device=r)
)";
  auto p = parser::ParseProgramText("w.pto", kWorld);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<ir::ProgramPtr> s = SpecializeDynDims(*p, {}, 4);
  ASSERT_TRUE(s.ok()) << s.status();
  const std::string printed = ir::PrintProgram(*s);
  EXPECT_NE(printed.find("pld.tensor.alloc_window_buffer(pl.const(4, pl.INT64) * 4)"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("pld.tensor.window(buf, [pl.const(4, pl.INT64)], dtype=pl.INT32)"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("for r in pl.range(pld.system.world_size())"), std::string::npos)
      << printed;
  // A loop over the ranks in a kernel is not a dispatch loop: its bound and
  // the kernel's shapes become the constant, the dispatch loop's alone stays.
  EXPECT_NE(printed.find("in pl.range(pl.const(4, pl.INT64), init_values"), std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("world_size()"), printed.rfind("world_size()")) << printed;
  // Without a world size (pto-compile), nothing is bound.
  absl::StatusOr<ir::ProgramPtr> kept = SpecializeDynDims(*p, {});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_NE(ir::PrintProgram(*kept).find("alloc_window_buffer(pld.system.world_size() * 4)"),
            std::string::npos);
}

}  // namespace
}  // namespace pto::tools::run
