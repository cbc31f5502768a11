// Kernels of user InCore functions that communicate: the InCore collectives,
// put / get / remote stores and notify (compiler/codegen/kernel_codegen.h).
#include <string>

#include "absl/status/status.h"
#include "compiler/codegen/codegen_test_util.h"
#include "compiler/codegen/kernel_codegen.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/mutator.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/support/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::codegen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using test_util::Lower;
using test_util::ReadFile;
using test_util::ReplaceAll;

TEST(KernelCodegenTest, InCoreAllToAllV) {
  ir::ProgramPtr program = Lower(ReadFile("examples/all_to_all_v_incore.pto"));
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "exchange");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("// args: 7 tensor descriptors, then 3 scalars"));
  EXPECT_THAT(*code, HasSubstr("  const pto::CommContext* data_ctx = "
                               "reinterpret_cast<const pto::CommContext*>(args[7]);\n"));
  EXPECT_THAT(*code, HasSubstr("  const pto::CommContext* ctx_0 = data_ctx;\n"
                               "  const int32_t nranks_1 = static_cast<int32_t>(ctx_0->rankNum);\n"
                               "  const int64_t nranks_idx_2 = static_cast<int64_t>(nranks_1);\n"
                               "  const int32_t my_rank_3 = static_cast<int32_t>(ctx_0->rankId);\n"
                               "  pto::Tile<float> stage_4 = pto::TASSIGN<float>(0, 256);\n"));
  // The counts: this rank's own cells zeroed by atomic deltas, then after a
  // barrier every sender's atomic add of its rows (never a packed Set).
  EXPECT_THAT(*code,
              HasSubstr("    const int32_t old_count_6 = pto::kernels::internal::ReadElement<"
                        "int32_t>(recv, {src_5, 0});\n"
                        "    pto::TNOTIFY(pto::kernels::internal::RemoteCell(recv_ctx, recv, "
                        "{src_5, 0}, static_cast<int64_t>(my_rank_3)), "
                        "static_cast<int32_t>((int32_t{0} - old_count_6)), "
                        "pto::NotifyOp::AtomicAdd);\n"));
  EXPECT_THAT(*code,
              HasSubstr("    if (rows_11 > 0) {\n"
                        "      pto::TNOTIFY(pto::kernels::internal::RemoteCell(recv_ctx, recv, "
                        "{my_rank_3, 0}, static_cast<int64_t>(dest_9)), "
                        "static_cast<int32_t>(static_cast<int32_t>(rows_11)), "
                        "pto::NotifyOp::AtomicAdd);\n"
                        "      {\n"
                        "        const pto::TensorDesc remote = pto::kernels::internal::RemoteView("
                        "data_ctx, data, static_cast<int64_t>(dest_9));\n"
                        "        pto::kernels::internal::CopyGmBox<float>(true, &remote, "
                        "{(my_rank_3 * 4), 0}, st_out, {(dest_9 * 4), 0}, {rows_11, 64}, "
                        "stage_4);\n"
                        "      }\n"
                        "      pto::dsb(pto::DSB_DDR);\n"
                        "    }\n"));
  EXPECT_THAT(*code, Not(HasSubstr("pto::NotifyOp::Set")));
  EXPECT_THAT(*code, HasSubstr("      pto::TNOTIFY(pto::kernels::internal::RemoteCell(signal_ctx, "
                               "signal, {my_rank_3, 0}, static_cast<int64_t>(peer_12)), "
                               "static_cast<int32_t>(int32_t{1}), pto::NotifyOp::AtomicAdd);\n"));
  EXPECT_THAT(*code, HasSubstr("      pto::TWAIT(pto::kernels::internal::LocalCell(signal, "
                               "{src_13, 0}), static_cast<int32_t>(int32_t{2}), "
                               "pto::WaitCmp::GE);\n"));
  EXPECT_THAT(*code, HasSubstr("      pto::TNOTIFY(pto::kernels::internal::RemoteCell(signal_ctx, "
                               "signal, {src_14, 0}, static_cast<int64_t>(my_rank_3)), "
                               "static_cast<int32_t>(int32_t{-2}), "
                               "pto::NotifyOp::AtomicAdd);\n"));
}

// The other InCore collectives' primitives: a flattening reshape, remote
// loads, tile minimum, a get, and tile.store evaluated for its effect.
TEST(KernelCodegenTest, InCoreCollectivePrimitives) {
  ir::ProgramPtr program = Lower(R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, t: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]], s: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]):
        t = pld.tensor.allreduce(t, s, op=2, core_num=1)
        t = pld.tensor.broadcast(t, s, root=1)
        return
)");
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("const pto::TensorDesc flat_"));
  EXPECT_THAT(*code, HasSubstr(" = pto::kernels::internal::Reshape(t, {1, 128});\n"));
  EXPECT_THAT(*code, HasSubstr("pto::kernels::internal::CopyBox(true, stage_"));
  EXPECT_THAT(*code, HasSubstr("pto::TMIN("));
  EXPECT_THAT(*code, HasSubstr("pto::kernels::internal::CopyGmBox<float>(false, t_1, {0, 0}, "
                               "&remote_2, {0, 0}, {2, 64}, stage_"));
  EXPECT_THAT(*code, HasSubstr("[[maybe_unused]] const pto::TensorDesc* unused = flat_"));
}

// Tiles sit at the addresses AllocateMemoryAddr gave them; a kernel that has
// none (the memory passes did not run) is a located error, not a guess.
TEST(KernelCodegenTest, TilesUseTheirAllocatedAddresses) {
  const std::string text = R"(import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        x: pl.Tile[[16], pl.FP32] = pl.tile.load(a, [0], [16])
        y: pl.Tile[[16], pl.FP32] = pl.tile.load(a, [0], [16])
        z: pl.Tile[[16], pl.FP32] = pl.tile.add(x, y)
        r = pl.tile.store(z, [0], o)
        return r
)";
  ir::ProgramPtr program = Lower(text);
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  // z takes x's buffer: x is last read by the add that writes z.
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> x = pto::TASSIGN<float>(0, 16);\n"));
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> y = pto::TASSIGN<float>(64, 16);\n"));
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> z = pto::TASSIGN<float>(0, 16);\n"));
  EXPECT_THAT(*code, HasSubstr("UB use: 128 bytes."));

  absl::StatusOr<ir::ProgramPtr> parsed = parser::ParseProgramText("test.pto", text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  code = GenerateKernel(*parsed, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation needs a UB address for tile 'x': run InitMemRef, "
                        "MemoryReuse and AllocateMemoryAddr (the default pipeline) first"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("8:9:8:10:test.pto"));
}

// A rank-3 tile is 2D after FlattenTileNdTo2D: its buffer is [6, 4], and the
// load and store copy the tensor-rank [2, 3, 4] window (the load's shape,
// the store's `shapes` operand), not a box of the 2D tile's dims.
TEST(KernelCodegenTest, FlattenedTilesCopyTheirTensorRankWindow) {
  ir::ProgramPtr program = Lower(R"(import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 3, 4], pl.FP32], o: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        x = pl.tile.load(a, [0, 0, 0], [2, 3, 4])
        y = pl.tile.add(x, x)
        r = pl.tile.store(y, [0, 0, 0], o)
        return r
)");
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> x = pto::TASSIGN<float>(0, 24);\n"
                               "  pto::kernels::internal::CopyBox(true, x, a, {0, 0, 0}, "
                               "{2, 3, 4});\n"));
  EXPECT_THAT(*code, HasSubstr("pto::kernels::internal::CopyBox(false, y, o, {0, 0, 0}, "
                               "{2, 3, 4});\n"));
}

// An unstaged put gets its staging tile from AllocateMemoryAddr: without the
// pass it is a located error, and a box of dynamic shape (which the pass
// leaves alone) is unsupported.
TEST(KernelCodegenTest, UnstagedPutNeedsItsStagingTile) {
  const std::string text = R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.InOut[pl.Tensor[[8, 64], pl.FP32]], w: pl.InOut[pld.DistributedTensor[[8, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        pld.tensor.put(w, 1, a, [0, 0], [0, 0], [2, 64])
        return
)";
  // As MaterializeDistTensorCtx leaves it: one CommCtx param per window.
  absl::StatusOr<ir::ProgramPtr> parsed = parser::ParseProgramText(
      "test.pto",
      ReplaceAll(text, "n: pl.Scalar[pl.INDEX]):", "n: pl.Scalar[pl.INDEX], w_ctx: pld.CommCtx):"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<std::string> code = GenerateKernel(*parsed, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation needs a UB staging tile for pld.tensor.put: run "
                        "AllocateMemoryAddr (the default pipeline) first"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("9:9:"));

  ir::ProgramPtr lowered = Lower(text);
  ASSERT_NE(lowered, nullptr);
  code = GenerateKernel(lowered, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> stage = pto::TASSIGN<float>(0, 128);\n"));

  ir::ProgramPtr dynamic = Lower(ReplaceAll(text, "[2, 64])", "[n, 64])"));
  ASSERT_NE(dynamic, nullptr);
  code = GenerateKernel(dynamic, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.tensor.put of a non-constant box"));
}

// PyPTO's whole-window put / get (dst, peer, src): AllocateMemoryAddr stages
// the window's whole box at offsets 0 (chunk_rows / chunk_cols / pipeline
// accepted); a form that gives only part of the box stays unsupported.
TEST(KernelCodegenTest, WholeWindowPutAndGetAreStagedBoxes) {
  const std::string text = R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]], w: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]]):
        pld.tensor.put(w, peer=1, src=a, atomic=pld.AtomicType.None_, chunk_rows=1)
        pld.tensor.get(a, peer=1, src=w)
        return
)";
  ir::ProgramPtr lowered = Lower(text);
  ASSERT_NE(lowered, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(lowered, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("CopyGmBox<float>(true, &"));
  EXPECT_THAT(*code, HasSubstr("CopyGmBox<float>(false, "));
  EXPECT_THAT(*code, HasSubstr("{0, 0}, {2, 64}"));

  // atomic=Add: pto-isa's TPUT<AtomicAdd>, an atomic-add store per piece.
  ir::ProgramPtr atomic = Lower(ReplaceAll(text, "AtomicType.None_", "AtomicType.Add"));
  ASSERT_NE(atomic, nullptr);
  code = GenerateKernel(atomic, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr(", pto::AtomicType::AtomicAdd);"));

  // pipeline=True (ping-pong staging) moves the same box through one tile.
  ir::ProgramPtr pipelined = Lower(ReplaceAll(text, "chunk_rows=1)", "pipeline=True)"));
  ASSERT_NE(pipelined, nullptr);
  code = GenerateKernel(pipelined, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("CopyGmBox<float>(true, &"));

  // The staged form's explicit box is not a whole-window form: with the box
  // left out of a 6-operand call it stays unsupported.
  ir::ProgramPtr partial = Lower(ReplaceAll(text, "src=a, atomic=pld.AtomicType.None_, chunk_rows=1)",
                                            "src=a, dst_offsets=[0, 0])"));
  ASSERT_NE(partial, nullptr);
  code = GenerateKernel(partial, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.tensor.put of this form"));
}

TEST(KernelCodegenTest, UnsupportedConstructsAreLocatedUserErrors) {
  ir::ProgramPtr program = Lower(ReadFile("examples/kernels.pto"));
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> orch = GenerateKernel(program, "pipeline");
  ASSERT_FALSE(orch.ok());
  EXPECT_THAT(std::string(orch.status().message()), HasSubstr("is not an InCore, AIC or AIV function"));

  EXPECT_EQ(GenerateKernel(program, "nope").status().code(), absl::StatusCode::kNotFound);

  ir::ProgramPtr fp8 = Lower(ReplaceAll(ReadFile("examples/kernels.pto"), "FP16", "FP8E4M3FN"));
  ASSERT_NE(fp8, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(fp8, "scaled_add");
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support a FP8E4M3FN value in a kernel yet"));

  // BF16 tiles are pto::bfloat16.
  ir::ProgramPtr bf16 = Lower(ReplaceAll(ReadFile("examples/kernels.pto"), "FP16", "BF16"));
  ASSERT_NE(bf16, nullptr);
  code = GenerateKernel(bf16, "scaled_add");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("pto::Tile<pto::bfloat16>"));
  EXPECT_THAT(*code, HasSubstr("sizeof(pto::bfloat16)"));
}

// pl.tile.cast is TCVT (a C++ conversion) between a tile's element types; a
// float -> integer cast needs PyPTO's rounding modes and is rejected at its place.
TEST(KernelCodegenTest, TileCast) {
  const std::string text = R"(import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 64], pl.INT8], y: pl.Out[pl.Tensor[[1, 64], pl.FP16]]) -> pl.Tensor[[1, 64], pl.FP16]:
        q = pl.tile.load(x, [0, 0], [1, 64])
        f = pl.tile.cast(q, target_type=pl.FP32)
        h = pl.tile.cast(f, target_type=pl.FP16)
        stored = pl.tile.store(h, [0, 0], y)
        return stored
)";
  ir::ProgramPtr program = Lower(text);
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("pto::Tile<float> f = pto::TASSIGN<float>("));
  // PyPTO's default mode, "round" (ties away from zero).
  EXPECT_THAT(*code, HasSubstr("  pto::TCVT(f, q, pto::Dims2{}, pto::RoundMode::kRound);\n"));
  EXPECT_THAT(*code, HasSubstr("  pto::TCVT(h, f, pto::Dims2{}, pto::RoundMode::kRound);\n"));
  // mode= is read, by name or number; rint is TCVT's default.
  for (const auto& [mode, want] : std::vector<std::pair<std::string, std::string>>{
           {"\"floor\"", "  pto::TCVT(h, f, pto::Dims2{}, pto::RoundMode::kFloor);\n"},
           {"5", "  pto::TCVT(h, f, pto::Dims2{}, pto::RoundMode::kTrunc);\n"},
           {"\"rint\"", "  pto::TCVT(h, f);\n"}}) {
    ir::ProgramPtr moded = Lower(ReplaceAll(text, "h = pl.tile.cast(f, target_type=pl.FP16)",
                                            "h = pl.tile.cast(f, target_type=pl.FP16, mode=" +
                                                mode + ")"));
    ASSERT_NE(moded, nullptr) << mode;
    absl::StatusOr<std::string> mcode = GenerateKernel(moded, "k");
    ASSERT_TRUE(mcode.ok()) << mcode.status();
    EXPECT_THAT(*mcode, HasSubstr(want)) << mode;
  }
  ir::ProgramPtr bad = Lower(ReplaceAll(text, "h = pl.tile.cast(f, target_type=pl.FP16)",
                                        "h = pl.tile.cast(f, target_type=pl.FP16, mode=\"up\")"));
  if (bad != nullptr) {  // the parser may take any string for mode
    absl::StatusOr<std::string> bcode = GenerateKernel(bad, "k");
    ASSERT_FALSE(bcode.ok());
    EXPECT_THAT(bcode.status().ToString(), HasSubstr("10:13:"));
    EXPECT_THAT(std::string(bcode.status().message()),
                HasSubstr("pl.tile.cast: unknown rounding mode"));
  }

  ir::ProgramPtr to_int = Lower(ReplaceAll(
      ReplaceAll(text, "h = pl.tile.cast(f, target_type=pl.FP16)", "h = pl.tile.cast(f, target_type=pl.INT8)"),
      "y: pl.Out[pl.Tensor[[1, 64], pl.FP16]]) -> pl.Tensor[[1, 64], pl.FP16]",
      "y: pl.Out[pl.Tensor[[1, 64], pl.INT8]]) -> pl.Tensor[[1, 64], pl.INT8]"));
  ASSERT_NE(to_int, nullptr);
  code = GenerateKernel(to_int, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pl.tile.cast from a float to an "
                        "integer dtype in a kernel yet"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("10:13:"));
}

// The async SDMA put family is not modelled (docs/collectives.md, "The InCore
// rail"): code generation rejects it at its place.
TEST(KernelCodegenTest, AsyncSdmaPutIsALocatedUserError) {
  ir::ProgramPtr program = Lower(R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[2, 64], pl.FP32], data: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]]):
        stage = pl.tile.create([1, 64], dtype=pl.FP32, target_memory="Vec")
        ev = pld.tensor.put_async(data, 1, src, stage, [0, 0], [0, 0], [1, 64])
        pld.system.wait_async_event(ev)
        return
)");
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.tensor.put_async in a kernel yet"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("10:14:"));
}

// A put with atomic=Add is pto-isa's TPUT<AtomicAdd>; a get has no atomic
// mode, and one asked for is a located error.
TEST(KernelCodegenTest, AtomicPutAddsAndAtomicGetIsALocatedUserError) {
  const std::string text = R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[2, 64], pl.FP32], data: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]]):
        stage = pl.tile.create([1, 64], dtype=pl.FP32, target_memory="Vec")
        pld.tile.put(data, 1, src, stage, [0, 0], [0, 0], [1, 64], atomic=1)
        return
)";
  ir::ProgramPtr program = Lower(text);
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr(", stage, pto::AtomicType::AtomicAdd);"));

  program = Lower(ReplaceAll(ReplaceAll(text, "pld.tile.put(data, 1, src", "pld.tile.get(src, 1, data"),
                             "pl.Tensor[[2, 64], pl.FP32]", "pl.InOut[pl.Tensor[[2, 64], pl.FP32]]"));
  ASSERT_NE(program, nullptr);
  code = GenerateKernel(program, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.tile.get with an atomic mode in a "
                        "kernel yet"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("10:9:10:77:test.pto"));
}

// pld.tile.remote_store writes a tile straight into the peer's window box
// (the tile's shape), and the fence pass orders it before a later notify; an
// atomic mode is a located error.
TEST(KernelCodegenTest, RemoteStoreIsATileStoreIntoThePeersWindow) {
  const std::string src = R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[2, 64], pl.FP32], data: pl.InOut[pld.DistributedTensor[[4, 64], pl.FP32]],
          flag: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]):
        t = pl.load(src, [1, 0], [1, 64])
        pld.tile.remote_store(t, data, 1, [3, 0]ATOMIC)
        pld.system.notify(target=flag, peer=1, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        return
)";
  ir::ProgramPtr program = Lower(ReplaceAll(src, "ATOMIC", ""));
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_THAT(*code, HasSubstr("pto::kernels::internal::RemoteView(data_ctx, data, static_cast<int64_t>(1));\n"));
  EXPECT_THAT(*code, HasSubstr("pto::kernels::internal::CopyBox(false, t, &remote, {3, 0}, {1, 64});\n"));
  const size_t store = code->find("CopyBox(false, t, &remote");
  const size_t fence = code->find("pto::dsb(pto::DSB_DDR);", store);
  const size_t notify = code->find("pto::TNOTIFY(");
  EXPECT_LT(store, fence);
  EXPECT_LT(fence, notify);

  program = Lower(ReplaceAll(src, "ATOMIC", ", atomic=1"));
  ASSERT_NE(program, nullptr);
  code = GenerateKernel(program, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.tile.remote_store with an atomic "
                        "mode in a kernel yet"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("11:9:"));
}

// Signals are INT32 cells: a notify on a data window is rejected at its place.
TEST(KernelCodegenTest, NotifyOnANonInt32WindowIsALocatedUserError) {
  ir::ProgramPtr program = Lower(R"(import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, data: pl.InOut[pld.DistributedTensor[[2, 64], pl.FP32]]):
        pld.system.notify(data, 1, [0, 0], 1, op=0)
        return
)");
  ASSERT_NE(program, nullptr);
  absl::StatusOr<std::string> code = GenerateKernel(program, "k");
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(code.status().message()),
              HasSubstr("code generation does not support pld.system.notify on a non-INT32 "
                        "window in a kernel yet"));
  EXPECT_THAT(code.status().ToString(), HasSubstr("9:9:9:52:test.pto"));
}

}  // namespace
}  // namespace pto::codegen
