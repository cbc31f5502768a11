// The one description of a collective (CollectiveDef): every public
// collective is in it, its lookups agree with the operator registry, and the
// positional / keyword core_num spellings reach passes as one kwarg.
#include "compiler/ops/collective_def.h"

#include <memory>
#include <set>
#include <string>

#include "compiler/ir/op_id.h"
#include "compiler/ops/op_names.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"

namespace pto::ops {
namespace {

// The public collectives (their defs spell them, compiler/ops/collective_def.cc).
constexpr std::string_view kAllReduce = "pld.tensor.allreduce";
constexpr std::string_view kBarrier = "pld.tensor.barrier";
constexpr std::string_view kBroadcast = "pld.tensor.broadcast";
constexpr std::string_view kReduceScatter = "pld.tensor.reduce_scatter";
constexpr std::string_view kAllGather = "pld.tensor.allgather";
constexpr std::string_view kAllToAll = "pld.tensor.all_to_all";
constexpr std::string_view kAllToAllV = "pld.tensor.all_to_all_v";
constexpr std::string_view kIndexedAllToAllV = "pld.tensor.indexed_all_to_all_v";

using ir::DataType;

TEST(CollectiveDefTest, EveryPublicCollectiveHasOneEntryPerMode) {
  // Not a list of today's collectives: adding one must not need this file.
  // Every entry is a pld.tensor.* op, one entry per (op, mode), and the
  // collectives this file calls are among them.
  std::set<std::string> ops, entries;
  for (const CollectiveDef& d : Collectives()) {
    EXPECT_EQ(d.op.substr(0, 11), "pld.tensor.") << d.op;
    EXPECT_TRUE(entries.insert(std::string(d.op) + "/" + std::string(d.mode)).second) << d.op;
    ops.insert(std::string(d.op));
  }
  for (std::string_view name : {kAllReduce, kBarrier, kBroadcast, kAllGather, kAllToAll,
                                kAllToAllV, kIndexedAllToAllV}) {
    EXPECT_EQ(ops.count(std::string(name)), 1u) << name;
  }
  for (const CollectiveDef& d : Collectives()) {
    const OpDef* op = OpRegistry::Global().Find(d.op);
    ASSERT_NE(op, nullptr) << d.op;
    ASSERT_LT(d.alias_arg, d.operands.size()) << d.op;
    ASSERT_LT(d.signal_arg, d.operands.size()) << d.op;
    EXPECT_EQ(d.operands[d.signal_arg].role, "signal") << d.op;
    // The registry's effects are the def's operand uses.
    for (size_t i = 0; i < d.operands.size(); ++i) {
      ArgEffect want = d.operands[i].use == OperandUse::kRead    ? ArgEffect::kRead
                       : d.operands[i].use == OperandUse::kWrite ? ArgEffect::kWrite
                                                                 : ArgEffect::kReadWrite;
      EXPECT_EQ(op->EffectOf(i), want) << d.op << " operand " << i;
    }
    if (d.builtin.empty()) continue;
    const OpDef* builtin = OpRegistry::Global().Find(d.BuiltinOpName());
    ASSERT_NE(builtin, nullptr) << d.BuiltinOpName();
    EXPECT_EQ(builtin->template_dir, d.TemplateDir());
    EXPECT_EQ(FindCollectiveByBuiltin(d.builtin), &d);
  }
}

TEST(CollectiveDefTest, RailsAndLookups) {
  const CollectiveDef* indexed = FindCollective(kIndexedAllToAllV);
  ASSERT_NE(indexed, nullptr);
  EXPECT_TRUE(indexed->OnRail(CollectiveRail::kChip));
  EXPECT_FALSE(indexed->OnRail(CollectiveRail::kHost));
  EXPECT_FALSE(indexed->OnRail(CollectiveRail::kInCore));
  EXPECT_EQ(FindCollective("pld.tensor.window"), nullptr);
  EXPECT_EQ(FindCollectiveByBuiltin(""), nullptr);
  EXPECT_EQ(FindCollective(kAllReduce)->builtin, "allreduce");
  EXPECT_EQ(FindCollective(kAllReduce)->launch_width, LaunchWidthRule::kOneShot);
  EXPECT_EQ(FindCollectiveByBuiltin("allreduce_ring")->launch_width, LaunchWidthRule::kOneBlock);
  EXPECT_EQ(FindCollectiveByBuiltin("allgather")->launch_width, LaunchWidthRule::kPerPeer);
  EXPECT_EQ(FindCollectiveByBuiltin("all_to_all")->launch_width, LaunchWidthRule::kPerPeer);
  EXPECT_EQ(FindCollectiveByBuiltin("broadcast")->launch_width, LaunchWidthRule::kOneBlock);
  EXPECT_EQ(FindCollective(kAllToAllV)->count_args, (std::vector<size_t>{3, 4}));
  // spec §5: the indexed variant launches exactly L blocks; all_to_all_v folds.
  EXPECT_EQ(indexed->launch_width, LaunchWidthRule::kExact);
  EXPECT_EQ(FindCollective(kAllToAllV)->launch_width, LaunchWidthRule::kAllToAllV);
  EXPECT_EQ(indexed->ChipKernelName("fp32"), "__builtin_indexed_all_to_all_v__fp32");
  EXPECT_EQ(FindCollective(kAllToAllV)->ChipKernelName("int8"),
            "__builtin_all_to_all_v__int8");
  EXPECT_EQ(indexed->ChipTemplateDir(),
            ":pypto.runtime.builtins.collectives.indexed_all_to_all_v");
  EXPECT_EQ(FindCollective(kAllGather)->Signature(), "[IN, OUT, OUT]");
  EXPECT_EQ(FindCollective(kAllGather)->ReadOnlyCpp(), "{true, false, false}");
  EXPECT_EQ(FindCollective(kBarrier)->Alias(), "pld.barrier");
  EXPECT_EQ(ReduceOpName(3), "prod");
  EXPECT_EQ(ReduceOpName(4), "");
}

// The call syntax tests and the bench write comes from the def.
TEST(CollectiveDefTest, CallTextFollowsTheDef) {
  CallSpelling s;
  s.operand = [](const CollectiveOperand& o) {
    return o.row ? std::string("row0") : o.role == "input" ? std::string("stage")
                                       : o.role == "target" ? std::string("data")
                                                            : std::string(o.role);
  };
  s.op = 2;
  s.root = 1;
  s.core_num = 3;
  const CollectiveRail host = CollectiveRail::kHost;
  EXPECT_EQ(CollectiveCallText(*FindCollective(kAllReduce), host, s),
            "data = pld.tensor.allreduce(data, signal, op=2, core_num=3)");
  EXPECT_EQ(CollectiveCallText(*FindCollectiveByBuiltin("allreduce_ring"), host, s),
            "data = pld.tensor.allreduce(data, signal, op=2, mode=\"ring\")");
  EXPECT_EQ(CollectiveCallText(*FindCollective(kBroadcast), host, s),
            "data = pld.tensor.broadcast(data, signal, root=1)");
  EXPECT_EQ(CollectiveCallText(*FindCollective(kBarrier), host, s),
            "signal = pld.tensor.barrier(signal)");
  EXPECT_EQ(CollectiveCallText(*FindCollective(kAllGather), host, s),
            "data = pld.tensor.allgather(row0, data, signal)");
  EXPECT_EQ(CollectiveCallText(*FindCollective(kAllToAllV), host, s),
            "data = pld.tensor.all_to_all_v(stage, data, signal, send_counts, recv_counts, "
            "core_num=3)");
  // A kernel launches nothing: no core_num on the InCore rail; the result
  // binds a variable of the caller's, or nothing.
  const CollectiveRail incore = CollectiveRail::kInCore;
  s.result = "done";
  EXPECT_EQ(CollectiveCallText(*FindCollective(kAllReduce), incore, s),
            "done = pld.tensor.allreduce(data, signal, op=2)");
  EXPECT_EQ(CollectiveCallText(*FindCollective(kReduceScatter), incore, s),
            "done = pld.tensor.reduce_scatter(data, signal, op=2)");
  s.result = "";
  EXPECT_EQ(CollectiveCallText(*FindCollective(kBarrier), incore, s),
            "pld.tensor.barrier(signal)");
}

// What tests and the bench read instead of a collective's name.
TEST(CollectiveDefTest, PatternAndInputFollowTheDef) {
  EXPECT_EQ(FindCollectiveByBuiltin("allreduce_ring")->pattern, CollectivePattern::kAllReduce);
  EXPECT_EQ(FindCollective(kBarrier)->pattern, CollectivePattern::kBarrier);
  EXPECT_EQ(FindCollective(kAllGather)->InputArg(), std::optional<size_t>(0));
  EXPECT_EQ(FindCollective(kAllToAllV)->InputArg(), std::optional<size_t>(0));
  EXPECT_EQ(FindCollective(kBroadcast)->InputArg(), std::nullopt);
}

ir::ExprPtr Window(const std::vector<int64_t>& shape, DataType dt) {
  std::vector<ir::ExprPtr> dims;
  for (int64_t d : shape) dims.push_back(std::make_shared<ir::ConstInt>(d, DataType::kIndex));
  return std::make_shared<ir::Var>(
      "w", std::make_shared<ir::DistributedTensorType>(std::move(dims), dt));
}

std::vector<ir::ExprPtr> A2avOperands() {
  return {Window({8, 4}, DataType::kFP32), Window({8, 4}, DataType::kFP32),
          Window({2, 4}, DataType::kInt32), Window({2}, DataType::kInt32),
          Window({2, 1}, DataType::kInt32)};
}

TEST(CollectiveDefTest, PositionalCoreNumBecomesTheKwarg) {
  const OpRegistry& r = OpRegistry::Global();
  std::vector<ir::ExprPtr> args = A2avOperands();
  args.push_back(std::make_shared<ir::ConstInt>(4, DataType::kIndex));
  auto call = r.MakeCall(kAllToAllV, args, {}, {}, Span());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ((*call)->args().size(), 5u);
  EXPECT_EQ(ir::GetAttr<int64_t>((*call)->kwargs(), "core_num"), 4);
  EXPECT_EQ(CollectiveCoreNum(*FindCollective(*call), **call).value, 4);

  // A dynamic L stays an expression (the HOST entry checks it at run time).
  std::vector<ir::ExprPtr> dyn = A2avOperands();
  auto n = std::make_shared<ir::Var>("n", ir::ScalarType::Get(DataType::kIndex));
  dyn.push_back(n);
  auto dyn_call = r.MakeCall(kAllToAllV, dyn, {}, {}, Span());
  ASSERT_TRUE(dyn_call.ok()) << dyn_call.status();
  CoreNum l = CollectiveCoreNum(*FindCollective(*dyn_call), **dyn_call);
  EXPECT_FALSE(l.value.has_value());
  EXPECT_EQ(l.expr, n);

  // No spelling: the collective's default.
  auto plain = r.MakeCall(kAllToAllV, A2avOperands(), {}, {}, Span());
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(CollectiveCoreNum(*FindCollective(*plain), **plain).value, 1);
}

TEST(CollectiveDefTest, BothCoreNumSpellingsAreALocatedError) {
  std::vector<ir::ExprPtr> args = A2avOperands();
  args.push_back(std::make_shared<ir::ConstInt>(4, DataType::kIndex));
  Span at(std::make_shared<SourceFile>("t.pto", "\n\n      x\n"), 3, 7, 3, 20);
  auto call = OpRegistry::Global().MakeCall(kAllToAllV, args, {{"core_num", int64_t{2}}},
                                            {}, at);
  ASSERT_FALSE(call.ok());
  EXPECT_TRUE(IsUserError(call.status()));
  EXPECT_EQ(call.status().message(),
            "pld.tensor.all_to_all_v core_num given both as the 6th argument and as a kwarg");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(call.status());
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 3);
  EXPECT_EQ(loc->col, 7);
}

// The front end's signature of a collective is its def's (no row of
// pypto_signatures.inc): PyPTO's parameter names and defaults.
TEST(CollectiveDefTest, SignatureIsDerivedFromTheDef) {
  EXPECT_EQ(CollectiveSignatureText(*FindCollective(kAllReduce)),
            "target: @Window, signal: @Window = None, *, op: ReduceOp = Sum, mode: str = "
            "\"mesh\", core_num: any = 1");
  EXPECT_EQ(CollectiveSignatureText(*FindCollective(kAllGather)),
            "local_data: @Tensor, target: @Window, signal: @Window");
  EXPECT_EQ(CollectiveSignatureText(*FindCollective(kBroadcast)),
            "target: @Window, signal: @Window, *, root: int");
  EXPECT_EQ(CollectiveSignatureText(*FindCollective(kAllToAllV)),
            "input: @Tensor, target: @Window, signal: @Window, send_counts: @Tensor, "
            "recv_counts: @Window, cores: @Scalar = None, *, core_num: any = None");
  for (const CollectiveDef& d : Collectives()) {
    const OpDef* op = OpRegistry::Global().Find(d.op);
    ASSERT_NE(op, nullptr) << d.op;
    ASSERT_NE(op->signature, nullptr) << d.op;
    EXPECT_TRUE(op->signature->result.empty()) << d.op;  // its own deducer
    std::vector<const Param*> operands = op->signature->Operands();
    ASSERT_GE(operands.size(), d.operands.size()) << d.op;
    for (size_t i = 0; i < d.operands.size(); ++i) {
      const CollectiveOperand& o = d.operands[i];
      EXPECT_EQ(operands[i]->name, o.param.empty() ? o.role : o.param) << d.op;
    }
  }
}

// A mode the op has no entry for is a located user error naming the modes.
TEST(CollectiveDefTest, UnknownModeIsALocatedError) {
  const OpDef* op = OpRegistry::Global().Find(kAllReduce);
  Span span(std::make_shared<SourceFile>("m.pto", "\n\n\n    x\n"), 4, 9, 4, 20);
  ir::Call call(op->op, {}, {{"mode", std::string("tree")}}, {}, ir::UnknownType::Get(), span);
  absl::Status st = CheckCollectiveMode(call);
  EXPECT_TRUE(IsUserError(st));
  EXPECT_EQ(st.message(),
            "pld.tensor.allreduce mode must be \"mesh\" or \"ring\", got \"tree\"");
  std::optional<DiagnosticLocation> loc = GetDiagnosticLocation(st);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->line, 4);
  EXPECT_EQ(loc->col, 9);
  ir::Call ring(op->op, {}, {{"mode", std::string("ring")}}, {}, ir::UnknownType::Get(), span);
  EXPECT_TRUE(CheckCollectiveMode(ring).ok());
}

}  // namespace
}  // namespace pto::ops
