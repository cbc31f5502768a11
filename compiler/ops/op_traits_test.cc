// Every OpId with its registered name, aliases, effects and traits, compared
// with the checked-in list: adding an operator, or changing what a pass may
// assume of one, shows up here for review. The collectives' operators are
// checked against their CollectiveDefs instead.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/ir/expr.h"
#include "compiler/ir/op_id.h"
#include "compiler/ops/op_registry.h"
#include "gtest/gtest.h"

namespace pto::ops {
namespace {

constexpr char kGolden[] = "compiler/ops/testdata/op_traits.txt";

std::string_view CategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::kScalarOp: return "scalar";
    case OpCategory::kTensorOp: return "tensor";
    case OpCategory::kTileOp: return "tile";
    case OpCategory::kDistributedOp: return "distributed";
    case OpCategory::kBuiltinOp: return "builtin";
    case OpCategory::kControlOp: return "control";
  }
  return "?";
}

std::string_view ViewName(ViewKind v) {
  switch (v) {
    case ViewKind::kNone: return "-";
    case ViewKind::kReshape: return "reshape";
    case ViewKind::kWindow: return "window";
    case ViewKind::kPermute: return "permute";
  }
  return "?";
}

std::string_view UnitName(ExecUnit u) {
  switch (u) {
    case ExecUnit::kNone: return "-";
    case ExecUnit::kVector: return "vector";
    case ExecUnit::kCube: return "cube";
    case ExecUnit::kEither: return "either";
  }
  return "?";
}

// One line per operator: the effects per operand (R, W, RW; a peer operand
// marked @peer), then the traits that are set.
std::string Line(const OpDef& def) {
  const OpTraits& t = def.traits;
  std::ostringstream out;
  out << def.name << " " << CategoryName(def.category) << " effects=";
  const size_t n = std::max(def.effects.size(), static_cast<size_t>(t.peer_args ? 32 - __builtin_clz(t.peer_args) : 0));
  for (size_t a = 0; a < n; ++a) {
    if (a > 0) out << ",";
    ArgEffect e = def.EffectOf(a);
    out << (e == ArgEffect::kRead ? "R" : e == ArgEffect::kWrite ? "W" : "RW");
    if (t.OnPeer(a)) out << "@peer";
  }
  if (n == 0) out << "-";
  out << " view=" << ViewName(t.view) << " unit=" << UnitName(t.unit);
  if (t.result_arg >= 0) out << " result=arg" << static_cast<int>(t.result_arg);
  if (t.communicates) out << " communicates";
  if (t.in_place_safe) out << " in_place_safe";
  if (t.updated_arg >= 0) out << " updates=arg" << static_cast<int>(t.updated_arg);
  if (t.host_dispatch) out << " host_dispatch";
  if (t.tile_form != ir::OpId::kUnknown) out << " tile=" << ir::OpIdName(t.tile_form);
  if (t.tile_scalar_form != ir::OpId::kUnknown) {
    out << " tile_scalar=" << ir::OpIdName(t.tile_scalar_form);
  }
  if (def.internal_only) out << " internal";
  for (const std::string& a : def.aliases) out << " alias=" << a;
  out << "\n";
  return out.str();
}

// An operator a CollectiveDef registers (its public op or its HOST builtin):
// its line is derived from the def (CollectiveOpsHaveTheirDefsTraits), not
// recorded, so adding a collective does not touch the golden.
bool FromCollectiveDef(std::string_view name) {
  constexpr std::string_view kBuiltin = "builtin.tensor.";
  if (const CollectiveDef* c = FindCollective(name); c != nullptr && c->op == name) return true;
  return name.substr(0, kBuiltin.size()) == kBuiltin &&
         FindCollectiveByBuiltin(name.substr(kBuiltin.size())) != nullptr;
}

// Every operator op_list.inc names, in id order.
std::string Listing() {
  const OpRegistry& r = OpRegistry::Global();
  std::ostringstream out;
  for (size_t i = 1; i < ir::NumOpIds(); ++i) {
    const OpDef* def = r.Find(static_cast<ir::OpId>(i));
    if (def == nullptr) {
      out << ir::OpIdName(static_cast<ir::OpId>(i)) << " UNREGISTERED\n";
      continue;
    }
    if (!FromCollectiveDef(def->name)) out << Line(*def);
  }
  return out.str();
}

// What a def says its operators are: the effects of its operand uses, the
// result its alias operand, communication; the public op distributed with
// its pld.<name> alias, the builtin an internal HOST dispatch.
std::string DerivedLine(const CollectiveDef& c, bool builtin) {
  std::string effects;
  for (const CollectiveOperand& o : c.operands) {
    effects += std::string(effects.empty() ? "" : ",") +
               (o.use == OperandUse::kRead ? "R" : o.use == OperandUse::kWrite ? "W" : "RW");
  }
  const std::string head = builtin ? c.BuiltinOpName() + " builtin" : std::string(c.op) + " distributed";
  return head + " effects=" + effects + " view=- unit=- result=arg" +
         std::to_string(c.alias_arg) + " communicates" +
         (builtin ? " host_dispatch internal" : " alias=" + c.Alias()) + "\n";
}

TEST(OpTraitsTest, CollectiveOpsHaveTheirDefsTraits) {
  const OpRegistry& r = OpRegistry::Global();
  size_t from_defs = 0;
  for (const CollectiveDef& c : Collectives()) {
    if (FindCollective(c.op) == &c) {
      const OpDef* op = r.Find(c.op);
      ASSERT_NE(op, nullptr) << c.op;
      EXPECT_EQ(Line(*op), DerivedLine(c, false));
      EXPECT_NE(op->signature, nullptr) << c.op;
      ++from_defs;
    }
    if (!c.builtin.empty()) {
      const OpDef* op = r.Find(c.BuiltinOpName());
      ASSERT_NE(op, nullptr) << c.BuiltinOpName();
      EXPECT_EQ(Line(*op), DerivedLine(c, true));
      EXPECT_EQ(op->template_dir, c.TemplateDir());
      ++from_defs;
    }
  }
  // The defs' operators are exactly the ids past op_list.inc.
  EXPECT_EQ(ir::NumOpIds(), ir::kNumOpIds + from_defs);
  for (size_t i = ir::kNumOpIds; i < ir::NumOpIds(); ++i) {
    EXPECT_TRUE(FromCollectiveDef(ir::OpIdName(static_cast<ir::OpId>(i))))
        << ir::OpIdName(static_cast<ir::OpId>(i));
  }
}

TEST(OpTraitsTest, EveryOpIdIsListedWithItsTraits) {
  std::ifstream in(kGolden);
  ASSERT_TRUE(in.good()) << kGolden;
  std::stringstream golden;
  golden << in.rdbuf();
  const std::string actual = Listing();
  if (golden.str() != actual) {
    if (const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
      std::ofstream(std::string(dir) + "/op_traits.txt") << actual;
    }
  }
  // On a difference, the actual list is op_traits.txt in
  // bazel-testlogs/compiler/ops/op_traits_test/test.outputs/outputs.zip: copy
  // it over the golden once the new lines are reviewed.
  EXPECT_EQ(golden.str(), actual);
}

TEST(OpTraitsTest, EveryIdNamesItsOperator) {
  const OpRegistry& r = OpRegistry::Global();
  for (size_t i = 1; i < ir::NumOpIds(); ++i) {
    const ir::OpId id = static_cast<ir::OpId>(i);
    ASSERT_NE(r.Find(id), nullptr) << ir::OpIdName(id);
    EXPECT_EQ(r.Find(id)->id, id);
    EXPECT_EQ(ir::OpIdFromName(r.Find(id)->name), id);
    EXPECT_EQ(r.Find(id)->op->id(), id);
  }
  EXPECT_EQ(r.Names().size(), ir::NumOpIds() - 1);
}

TEST(OpTraitsTest, IsOpReadsTheIdOfTheOpNode) {
  absl::StatusOr<ir::CallPtr> call = OpRegistry::Global().MakeCall(
      "pl.tensor.create", {std::make_shared<ir::MakeTuple>(std::vector<ir::ExprPtr>{
                              std::make_shared<ir::ConstInt>(4)})},
      {{"dtype", ir::DataType::kFP32}}, {}, Span());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_TRUE(ir::IsOp(*call, ir::OpId::kPlTensorCreate));
  EXPECT_FALSE(ir::IsOp(*call, ir::OpId::kPlTensorView));
  EXPECT_TRUE(ir::IsOp(ir::ExprPtr(*call), ir::OpId::kPlTensorCreate));
  // A call built by name outside the registry resolves the same id; a
  // function call resolves none.
  ir::CallPtr raw = std::make_shared<ir::Call>(std::make_shared<ir::Op>("pl.tile.store"),
                                               std::vector<ir::ExprPtr>{}, ir::AttrList{},
                                               ir::AttrList{}, ir::UnknownType::Get());
  EXPECT_TRUE(ir::IsOp(raw, ir::OpId::kPlTileStore));
  EXPECT_EQ(DefOf(*raw)->traits.result_arg, 2);
  ir::CallPtr fn = std::make_shared<ir::Call>(std::make_shared<ir::GlobalVar>("pl.tile.store"),
                                              std::vector<ir::ExprPtr>{}, ir::AttrList{},
                                              ir::AttrList{}, ir::UnknownType::Get());
  EXPECT_EQ(fn->op()->id(), ir::OpId::kUnknown);
  EXPECT_EQ(DefOf(*fn), nullptr);
  EXPECT_FALSE(TraitsOf(*fn).IsView());
  EXPECT_EQ(ir::OpIdFromName("pl.load"), ir::OpId::kUnknown);  // an alias, not a name
}

}  // namespace
}  // namespace pto::ops
