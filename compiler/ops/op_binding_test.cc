// PyPTO's signatures and unified operators, checked through the parser: how a
// call resolves, how positional and keyword arguments bind, defaults, and the
// located errors of bad calls.
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/ops/enum_spellings.h"
#include "compiler/ops/op_binding.h"
#include "compiler/ops/op_registry.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::ops {
namespace {

// An InCore kernel with a tensor `x`, a tile `t`, a scalar `n` and an INT32
// window `s`; `body` is one statement at line 8, column 9.
std::string Kernel(const std::string& body) {
  return "import pypto.language as pl\n"
         "import pypto.language.distributed as pld\n"
         "@pl.program\n"
         "class P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
         "          s: pld.DistributedTensor[[2, 1], pl.INT32], f: pl.Scalar[pl.FP32]):\n"
         "        t = pl.load(x, [0, 0], [16, 32])\n"
         "        " +
         body + "\n";
}

std::string Parse(const std::string& body, std::string* printed = nullptr) {
  auto p = parser::ParseProgramText("t.pto", Kernel(body));
  if (!p.ok()) {
    EXPECT_TRUE(IsUserError(p.status())) << p.status();
    auto loc = GetDiagnosticLocation(p.status());
    if (!loc) return std::string(p.status().message());
    return std::to_string(loc->line) + ":" + std::to_string(loc->col) + ": " +
           std::string(p.status().message());
  }
  if (printed != nullptr) *printed = ir::PrintProgram(*p);
  return "ok";
}

// The printed statement that binds `y` (`y: <type> = <value>`).
std::string Stmt(const std::string& body) {
  std::string printed;
  std::string status = Parse(body, &printed);
  if (status != "ok") return status;
  size_t at = printed.find("        y");
  if (at == std::string::npos) return printed;
  return printed.substr(at + 8, printed.find('\n', at) - at - 8);
}

// The printed last statement of the kernel body.
std::string LastStmt(const std::string& body) {
  std::string printed;
  std::string status = Parse(body, &printed);
  if (status != "ok") return status;
  while (!printed.empty() && printed.back() == '\n') printed.pop_back();
  return printed.substr(printed.rfind('\n') + 9);
}

TEST(UnifiedOpsTest, ResolveByOperandTypes) {
  EXPECT_EQ(Stmt("y = pl.add(t, t)"), "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(t, t)");
  EXPECT_EQ(Stmt("y = pl.add(t, 1.0)"), "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.adds(t, 1.0)");
  EXPECT_EQ(Stmt("y = pl.mul(t, f)"), "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.muls(t, f)");
  EXPECT_EQ(Stmt("y = pl.add(x, x)"), "y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(x, x)");
  EXPECT_EQ(Stmt("y = pl.maximum(t, t)"),
            "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.maximum(t, t)");
  EXPECT_EQ(Stmt("y = pl.exp(t)"), "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.exp(t)");
  EXPECT_EQ(Stmt("y = pl.exp(x)"), "y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.exp(x)");
  EXPECT_EQ(Stmt("y = pl.row_sum(t, t)"), "y: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_sum(t, t)");
  EXPECT_EQ(Stmt("y = pl.col_max(x)"), "y: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.col_max(x)");
  EXPECT_EQ(Stmt("y = pl.reshape(t, [32, 16])"),
            "y: pl.Tile[[32, 16], pl.FP32] = pl.tile.reshape(t, [32, 16])");
  EXPECT_EQ(Stmt("y = pl.read(x, [0, 1])"), "y: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 1])");
  EXPECT_EQ(Stmt("y = pl.matmul(t, pl.tile.transpose(t, 0, 1))"),
            "y: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(t, pl.tile.transpose(t, 0, 1))");
}

TEST(UnifiedOpsTest, ScalarForms) {
  EXPECT_EQ(Stmt("y = pl.add(n, 1)"), "y: pl.Scalar[pl.INDEX] = n + 1");
  EXPECT_EQ(Stmt("y = pl.cast(n, pl.INT32)"), "y: pl.Scalar[pl.INT32] = pl.cast(n, pl.INT32)");
  EXPECT_EQ(Stmt("y = pl.cast(f, target_type=pl.INDEX)"),
            "y: pl.Scalar[pl.INDEX] = pl.cast(f, pl.INDEX)");
  EXPECT_EQ(Stmt("y = pl.abs(f)"), "y: pl.Scalar[pl.FP32] = pl.abs(f)");
  EXPECT_EQ(Parse("y = pl.cast(n, pl.INT32, mode=\"floor\")"),
            "9:39: pl.cast: a scalar cast supports only the default mode \"round\"");
}

TEST(UnifiedOpsTest, CastAndPromotedNames) {
  EXPECT_EQ(Stmt("y = pl.cast(t, target_type=pl.FP16)"),
            "y: pl.Tile[[16, 32], pl.FP16] = pl.tile.cast(t, target_type=pl.FP16)");
  EXPECT_EQ(Stmt("y = pl.cast(x, pl.INT32, \"trunc\")"),
            "y: pl.Tensor[[16, 32], pl.INT32] = pl.tensor.cast(x, target_type=pl.INT32, "
            "mode=\"trunc\")");
  EXPECT_EQ(Stmt("y = pl.create_tensor([4, 8], dtype=pl.FP16)"),
            "y: pl.Tensor[[4, 8], pl.FP16] = pl.tensor.create([4, 8], dtype=pl.FP16)");
  EXPECT_EQ(Stmt("y = pl.full([4, 8], pl.FP32, 1.0)"),
            "y: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.full([4, 8], 1.0, dtype=pl.FP32)");
  EXPECT_EQ(LastStmt("pl.store(t, [0, 0], x)"), "pl.tile.store(t, [0, 0], x)");
}

TEST(UnifiedOpsTest, DispatchErrorsAreLocated) {
  EXPECT_EQ(Parse("y = pl.exp(n)"),
            "9:20: pl.exp expects a Tensor or a Tile as 'input', got Scalar[INDEX]");
  EXPECT_EQ(Parse("y = pl.add(t, x)"),
            "9:13: pl.tile.add rhs must be a Tile, got Tensor[FP32]");
}

TEST(OpBindingTest, KeywordsBindLikePositionals) {
  EXPECT_EQ(LastStmt("pld.system.notify(target=s, peer=1, offsets=[0, 0], value=1, "
                     "op=pld.NotifyOp.Set)"),
            "pld.system.notify(s, 1, [0, 0], 1, op=1)");
  EXPECT_EQ(LastStmt("pld.system.notify(s, 1, value=1, offsets=[0, 0], op=pld.NotifyOp.AtomicAdd)"),
            "pld.system.notify(s, 1, [0, 0], 1, op=0)");
  EXPECT_EQ(Stmt("y = pl.tile.load(tensor=x, offsets=[0, 0], shapes=[8, 8])"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.load(x, [0, 0], [8, 8])");
  // An attribute parameter given by keyword is skipped by the positionals:
  // the printed form `full(shape, value, dtype=)` of `full(shape, dtype, value)`.
  EXPECT_EQ(Stmt("y = pl.tile.full([8, 8], pl.FP32, 0.0)"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.full([8, 8], 0.0, dtype=pl.FP32)");
  EXPECT_EQ(Stmt("y = pl.tile.full([8, 8], 0.0, dtype=pl.FP32)"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.full([8, 8], 0.0, dtype=pl.FP32)");
  EXPECT_EQ(Stmt("y = pl.tile.full(value=0.0, shape=[8, 8], dtype=pl.FP32)"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.full([8, 8], 0.0, dtype=pl.FP32)");
}

TEST(OpBindingTest, EnumSpellings) {
  EXPECT_EQ(Stmt("y = pl.load(x, [0, 0], [8, 8], target_memory=pl.MemorySpace.Mat)"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.load(x, [0, 0], [8, 8], "
            "target_memory=\"Mat\")");
  // Our MemRef spellings name the same spaces.
  EXPECT_EQ(Stmt("y = pl.tile.create([8, 8], pl.FP32, pl.MemorySpace.UB)"),
            "y: pl.Tile[[8, 8], pl.FP32] = pl.tile.create([8, 8], dtype=pl.FP32, "
            "target_memory=\"Vec\")");
  EXPECT_EQ(LastStmt("pl.tile.store(t, [0, 0], x, atomic=pld.AtomicType.Add)"),
            "pl.tile.store(t, [0, 0], x, atomic=1)");
  EXPECT_EQ(Parse("y = pl.load(x, [0, 0], [8, 8], target_memory=pl.MemorySpace.Foo)"),
            "9:54: pl.tile.load argument 'target_memory' must be one of pl.MemorySpace.DDR, "
            "pl.MemorySpace.Vec, pl.MemorySpace.Mat, pl.MemorySpace.Left, pl.MemorySpace.Right, "
            "pl.MemorySpace.Acc, pl.MemorySpace.Bias, pl.MemorySpace.ScalarLocal, "
            "pl.MemorySpace.LeftScale, pl.MemorySpace.RightScale, got 'pl.MemorySpace.Foo'");
  EXPECT_EQ(EnumValueFromPath("ReduceOp", "pld.ReduceOp.Prod"), ir::AttrValue(int64_t{3}));
  EXPECT_EQ(IntEnumConstant("pld.WaitCmp.Ge"), 1);
}

TEST(OpBindingTest, Defaults) {
  const OpDef* load = OpRegistry::Global().Find("pl.load");
  ASSERT_NE(load, nullptr);
  ASSERT_NE(load->signature, nullptr);
  EXPECT_EQ(load->signature->Text(),
            "tensor, offsets, shapes, valid_shape=None, target_memory=Vec, clamp=False");
  const OpDef* ar = OpRegistry::Global().Find("pld.allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->signature->Text(), "target, signal=None, *, op=Sum, mode=\"mesh\", core_num=1");
  // An omitted attribute is left out of the call and means its default.
  EXPECT_EQ(Stmt("y = pl.tile.cast(t, pl.FP16)"),
            "y: pl.Tile[[16, 32], pl.FP16] = pl.tile.cast(t, target_type=pl.FP16)");
  // The generic deducer reads a dtype default from the signature (ci: INT32).
  EXPECT_EQ(Stmt("y = pl.tile.ci(0, [1, 16])"),
            "y: pl.Tile[[1, 16], pl.INT32] = pl.tile.ci(0, [1, 16])");
}

TEST(OpBindingTest, BadCallsAreLocated) {
  // pl.tile.sin has no hand-written deducer: the binder and the generic
  // deducer own every check.
  EXPECT_EQ(Parse("y = pl.tile.sin(t, mode=1)"),
            "9:33: pl.tile.sin got an unexpected keyword argument 'mode' (parameters: tile)");
  EXPECT_EQ(Parse("y = pl.tile.sin(t, tile=t)"),
            "9:25: pl.tile.sin got multiple values for argument 'tile'");
  EXPECT_EQ(Parse("y = pl.tile.sin()"),
            "9:13: pl.tile.sin missing required argument 'tile' (parameters: tile)");
  EXPECT_EQ(Parse("y = pl.tile.sin(t, t)"),
            "9:28: pl.tile.sin takes at most 1 positional argument, got 2");
  EXPECT_EQ(Parse("y = pl.tile.sin(x)"),
            "9:13: pl.tile.sin argument 'tile' must be a Tile, got Tensor[FP32]");
  // An operator with its own deducer keeps its message texts (the spec's).
  EXPECT_EQ(Parse("y = pl.tile.exp(t, t)"),
            "9:13: pl.tile.exp requires exactly 1 positional argument, got 2");
  EXPECT_EQ(Parse("y = pl.tile.cast(t, target_type=1.5)"),
            "9:41: pl.tile.cast argument 'target_type' must be an int or a data type such as "
            "pl.FP32, got a float");
  EXPECT_EQ(Parse("y = pl.tile.row_sum(t, tmp_tile=None)"),
            "9:41: pl.tile.row_sum argument 'tmp_tile' cannot be None");
  EXPECT_EQ(Parse("pld.system.notify(s, 1, [0, 0], 1, op=2)"),
            "9:9: pld.system.notify op must be a NotifyOp: AtomicAdd (0) or Set (1), got 2");
}

// Where our IR form differs from PyPTO's, both read: the form whose operand
// kinds fit the call is taken.
TEST(OpBindingTest, OurFormsAndPyptoForms) {
  EXPECT_EQ(LastStmt("pld.tile.remote_store(t, s, 1, [0, 0])"),
            "pld.tile.remote_store(t, s, 1, [0, 0])");
  EXPECT_EQ(LastStmt("pld.tile.remote_store(s, 1, t)"), "pld.tile.remote_store(s, 1, t)");
  EXPECT_EQ(Stmt("y = pld.tile.remote_load(s, 1, [0, 0], [2, 1])"),
            "y: pl.Tile[[2, 1], pl.INT32] = pld.tile.remote_load(s, 1, [0, 0], [2, 1])");
  EXPECT_EQ(LastStmt("pld.tile.remote_load(t, 1, s, [0, 0], [2, 1])"),
            "pld.tile.remote_load(t, 1, s, [0, 0], [2, 1])");
  EXPECT_EQ(LastStmt("pld.remote_store(t, s, 1, [0, 0], atomic=pld.AtomicType.Add)"),
            "pld.tile.remote_store(t, s, 1, [0, 0], atomic=1)");
  // view: ours (tensor, shape, offsets) first, PyPTO's (tensor, shape) otherwise.
  EXPECT_EQ(Stmt("y = pl.tensor.view(x, [8, 32], [8, 0])"),
            "y: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.view(x, [8, 32], [8, 0])");
  EXPECT_EQ(Stmt("y = pl.tensor.view(x, [8, 64])"),
            "y: pl.Tensor[[8, 64], pl.FP32] = pl.tensor.view(x, [8, 64])");
}

// PyPTO's tensor gather is one operator of three forms: the index form
// (dim=, index=) is a tensor of index's shape and input's dtype, not a pair.
TEST(OpBindingTest, GatherIndexFormIsATensor) {
  std::string y = Stmt("i = pl.tensor.create([16, 8], dtype=pl.INT32)\n"
                       "        y = pl.tensor.gather(x, dim=-1, index=i)");
  EXPECT_EQ(y.substr(0, y.find('=') + 1), "y: pl.Tensor[[16, 8], pl.FP32] =") << y;
  // The pipe set-up, which PyPTO's language re-exports from its IR builders.
  EXPECT_EQ(LastStmt("pl.aic_initialize_pipe(dir_mask=1, slot_size=512)"),
            "pl.system.aic_initialize_pipe(dir_mask=1, slot_size=512)");
}

// An operand given by keyword after an omitted optional one is kept under
// its name (PyPTO's keyword operands): gather's mask and compare forms,
// mrgsort's single-list form, tpop_from_aic's split. A positional one after
// a gap (an explicit None) is still a located error.
TEST(OpBindingTest, KeywordOperandsAfterAnOmittedOne) {
  EXPECT_EQ(Stmt("y = pl.tensor.gather(x, mask_pattern=pl.tile.MaskPattern.P0101)"),
            "y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.gather(x, mask_pattern=1)");
  EXPECT_EQ(Stmt("y = pl.tensor.gather(x, mask_pattern=pl.tile.MaskPattern.P0001, "
                 "output_dtype=pl.UINT32)"),
            "y: pl.Tensor[[16, 8], pl.UINT32] = pl.tensor.gather(x, mask_pattern=3, "
            "output_dtype=pl.UINT32)");
  EXPECT_EQ(Stmt("y = pl.tile.gather_mask(t, pl.tile.MaskPattern.P1010)"),
            "y: pl.Tile[[16, 16], pl.FP32] = pl.tile.gather_mask(t, mask_pattern=2)");
  std::string pair = Stmt("y = pl.tensor.gather(x, kvalue=f, cmp_mode=\"eq\", out_cols=8)");
  EXPECT_EQ(pair.substr(0, pair.find('=')),
            "y: tuple[pl.Tensor[[16, 8], pl.INT32], pl.Tensor[[1, 16], pl.INT32]] ") << pair;
  EXPECT_EQ(Stmt("y = pl.tile.mrgsort(t, block_len=8)"),
            "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.mrgsort(t, block_len=8)");
  EXPECT_EQ(Stmt("y = pl.reserve_buffer(name=\"buf\", size=512, base=pl.AUTO)"),
            "y: pl.Scalar[pl.INDEX] = pl.system.reserve_buffer(name=\"buf\", size=512, base=-1)");
  EXPECT_EQ(LastStmt("pl.system.tpush_to_aiv(t, split=1)"), "pl.system.tpush_to_aiv(t, split=1)");
  EXPECT_EQ(Stmt("y = pl.reinterpret_view(t, pl.INT16)"),
            "y: pl.Tile[[16, 64], pl.INT16] = pl.tile.reinterpret_view(t, dtype=pl.INT16)");
  EXPECT_EQ(Stmt("y = pl.reinterpret_view(t, pl.INT32, shape=[8, 64])"),
            "y: pl.Tile[[8, 64], pl.INT32] = pl.tile.reinterpret_view(t, dtype=pl.INT32, "
            "shape=(8, 64))");
  EXPECT_EQ(Parse("y = pl.tensor.gather(x, mask_pattern=9)"),
            "9:13: pl.tensor.gather mask_pattern must be a constant in [1, 7] "
            "(pl.tile.MaskPattern.P0101 .. P1111)");
  EXPECT_EQ(Parse("y = pl.tile.mrgsort(t, None, t)"),
            "9:38: pl.tile.mrgsort argument 'src2' needs the optional operand 'src1' before it "
            "to be given too");
}

// PyPTO's slice(t, shape, offset, valid_shape) is the slice with that valid
// part: our set_validshape of the slice.
TEST(OpBindingTest, SubscriptOfATileIsATileSlice) {
  EXPECT_EQ(Stmt("y = t[:, 0:16]"),
            "y: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(t, [16, 16], [0, 0])");
}

TEST(OpBindingTest, SliceWithValidShape) {
  EXPECT_EQ(Stmt("y = pl.slice(x, [8, 32], [8, 0], valid_shape=[n, 32])"),
            "y: pl.Tensor[[8, 32], pl.FP32, pl.TensorView(valid_shape=[n, 32])] = "
            "pl.tensor.set_validshape(pl.tensor.slice(x, [8, 32], [8, 0]), [n, 32])");
}

// tile.cmp is PyPTO's packed predicate mask (one bit per element, rows of
// 32-byte alignment); sel / sels are of the selected source's type.
TEST(OpBindingTest, PredicateMasks) {
  EXPECT_EQ(Stmt("y = pl.tile.cmp(t, t, cmp_type=0)"),
            "y: pl.Tile[[16, 32], pl.UINT8, pl.TileView(valid_shape=[16, 4])] = "
            "pl.tile.cmp(t, t, cmp_type=0)");
  EXPECT_EQ(Stmt("m = pl.tile.cmps(t, f, cmp_type=1)\n"
                 "        y = pl.tile.sels(m, t, t, f)"),
            "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.sels(m, t, t, f)");
}

// pl.aiv_shard / pl.aic_gather take the split of the enclosing pl.split_aiv
// region (PyPTO's parser fills it): ceil-halve / double the split axis.
TEST(OpBindingTest, AivShardInheritsTheRegionSplit) {
  EXPECT_EQ(Stmt("for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
                 "            y = pl.aiv_shard(t)"),
            "y: pl.Tile[[8, 32], pl.FP32] = pl.tile.aiv_shard(t, split=1)");
  EXPECT_EQ(Stmt("for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n"
                 "            y = pl.aic_gather(x)"),
            "y: pl.Tensor[[16, 64], pl.FP32] = pl.tile.aic_gather(x, split=2)");
  EXPECT_EQ(Stmt("for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
                 "            y = pl.aiv_shard(t)"),
            "y: pl.Tile[[16, 32], pl.FP32] = pl.tile.aiv_shard(t, split=0)");
}

TEST(OpBindingTest, EveryPyptoOperatorIsRegistered) {
  const OpRegistry& r = OpRegistry::Global();
  size_t with_signature = 0;
  for (const std::string& name : r.Names()) {
    with_signature += r.Find(name)->signature != nullptr ? 1 : 0;
  }
  // pypto_signatures.inc: 290 operators of op/*.py and distributed/op/*.py,
  // with the IR builders op/system_ops.py re-exports (the pipe set-up).
  EXPECT_GE(with_signature, 290u);
  for (const char* name :
       {"pl.tile.gemv", "pl.tensor.paged_gather", "pl.system.sync_set", "pl.array.create",
        "pl.prefetch.wait", "pld.tensor.reduce_scatter", "pl.tile.mrgsort",
        "pl.system.aic_initialize_pipe", "pl.system.bar_all"}) {
    const OpDef* def = r.Find(name);
    ASSERT_NE(def, nullptr) << name;
    EXPECT_NE(def->signature, nullptr) << name;
  }
  EXPECT_GE(UnifiedOpNames().size(), 80u);
  EXPECT_NE(FindUnifiedOp("pl.matmul"), nullptr);
  EXPECT_EQ(FindUnifiedOp("pl.add")->tile_scalar_op, "pl.tile.adds");
}

}  // namespace
}  // namespace pto::ops
