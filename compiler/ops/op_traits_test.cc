// Every OpId with its registered name, aliases, effects and traits, compared
// with the checked-in list: adding an operator, or changing what a pass may
// assume of one, shows up here for review.
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
std::string Listing() {
  const OpRegistry& r = OpRegistry::Global();
  std::ostringstream out;
  for (size_t i = 1; i < ir::kNumOpIds; ++i) {
    const OpDef* def = r.Find(static_cast<ir::OpId>(i));
    if (def == nullptr) {
      out << ir::OpIdName(static_cast<ir::OpId>(i)) << " UNREGISTERED\n";
      continue;
    }
    const OpTraits& t = def->traits;
    out << def->name << " " << CategoryName(def->category) << " effects=";
    const size_t n = std::max(def->effects.size(), static_cast<size_t>(t.peer_args ? 32 - __builtin_clz(t.peer_args) : 0));
    for (size_t a = 0; a < n; ++a) {
      if (a > 0) out << ",";
      ArgEffect e = def->EffectOf(a);
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
    if (def->internal_only) out << " internal";
    for (const std::string& a : def->aliases) out << " alias=" << a;
    out << "\n";
  }
  return out.str();
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
  for (size_t i = 1; i < ir::kNumOpIds; ++i) {
    const ir::OpId id = static_cast<ir::OpId>(i);
    ASSERT_NE(r.Find(id), nullptr) << ir::OpIdName(id);
    EXPECT_EQ(r.Find(id)->id, id);
    EXPECT_EQ(ir::OpIdFromName(r.Find(id)->name), id);
    EXPECT_EQ(r.Find(id)->op->id(), id);
  }
  EXPECT_EQ(r.Names().size(), ir::kNumOpIds - 1);
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
