// PyPTO's operator surface: the generated table (pypto_signatures.inc) and the
// few places where our IR form differs from PyPTO's (kOurForms), registered
// into the registry at start-up.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/ops/op_binding.h"
#include "compiler/ops/register_ops.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

struct Row {
  std::string_view kind;  // "op", "alias" or "unified"
  std::string_view name;
  std::string_view text;  // signature, alias target
  std::string_view rule;  // result rule, or a unified op's targets
};

constexpr Row kPypto[] = {
#include "compiler/ops/pypto_signatures.inc"
};

// Operators whose IR form is ours, not PyPTO's (docs/language.md, "Compatibility
// with PyPTO"). An "ours" row replaces PyPTO's signature; a "dual" row is a
// second form beside PyPTO's (OpDef::alt_signature) for the InCore
// point-to-point operators, which take their staging tile explicitly; an
// "ours_first" row is tried before PyPTO's form.
constexpr Row kOurForms[] = {
    // Ours first: a call that fits (tensor, shape, offsets) is ours, one that
    // does not (PyPTO's view(t, shape)) reads as PyPTO's.
    {"ours_first", "pl.tensor.view", "tensor: @Tensor, shape: @Shape, offsets: @Shape", ""},
    // deps= is a list of task-id Vars, kept as one kwarg (not a shape operand).
    {"ours", "pl.system.task_dummy", "*, deps: any = None", ""},
    {"ours", "pl.tensor.set_validshape", "tensor: @Tensor, valid_shape: @Shape", ""},
    // The collectives' signatures are not here: each is derived from its
    // CollectiveDef (CollectiveSignatureText, registered with the op).
    // The InCore point-to-point operators take their staging tile explicitly.
    {"dual", "pld.tile.put",
     "dst: @Any, peer: @Scalar, src: @Any, stage: @Tile, dst_offsets: @Shape, src_offsets: "
     "@Shape, shape: @Shape, stage2: @Tile = None, *, atomic: AtomicType = None_",
     ""},
    {"dual", "pld.tile.get",
     "dst: @Any, peer: @Scalar, src: @Any, stage: @Tile, dst_offsets: @Shape, src_offsets: "
     "@Shape, shape: @Shape, stage2: @Tile = None, *, atomic: AtomicType = None_",
     ""},
    {"dual", "pld.tensor.put",
     "dst: @Any, peer: @Scalar, src: @Any, stage: @Any, dst_offsets: @Shape, src_offsets: "
     "@Shape, shape: @Shape, stage2: @Any = None, *, atomic: AtomicType = None_",
     ""},
    {"dual", "pld.tensor.get",
     "dst: @Any, peer: @Scalar, src: @Any, stage: @Any, dst_offsets: @Shape, src_offsets: "
     "@Shape, shape: @Shape, stage2: @Any = None, *, atomic: AtomicType = None_",
     ""},
    {"dual", "pld.tile.remote_load",
     "stage: @Tile, peer: @Scalar, src: @Tensor, offsets: @Shape = None, shape: @Shape = None",
     ""},
    {"dual", "pld.tile.remote_store",
     "target: @Tensor, peer: @Scalar, src: @Any, offsets: @Shape = None, shape: @Shape = None, "
     "*, atomic: AtomicType = None_",
     ""},
    {"dual", "pld.tensor.remote_store",
     "target: @Tensor, peer: @Scalar, src: @Any, offsets: @Shape = None, shape: @Shape = None, "
     "*, atomic: AtomicType = None_",
     ""},
};

std::shared_ptr<const Signature> Parse(const Row& r) {
  absl::StatusOr<Signature> sig = ParseSignature(r.text, r.rule);
  // The tables are ours and fixed; a malformed row is a build defect.
  if (!sig.ok()) {
    std::fprintf(stderr, "signature of %s: %s\n", std::string(r.name).c_str(),
                 std::string(sig.status().message()).c_str());
    std::abort();
  }
  return std::make_shared<const Signature>(*std::move(sig));
}

const Row* OurForm(std::string_view name, std::string_view kind = "ours") {
  for (const Row& r : kOurForms) {
    if (r.name == name && r.kind == kind) return &r;
  }
  return nullptr;
}

// A dual-form operator: its own deducer reads our form, the generic deducer
// PyPTO's.
void AttachDual(OpDef& def, const Row& pypto, const Row& ours) {
  Row strict = ours;
  strict.rule = "none";  // binds strictly, like PyPTO's form
  std::shared_ptr<const Signature> theirs = Parse(pypto);
  std::shared_ptr<const Signature> form = Parse(strict);
  const bool ours_first = ours.kind == "ours_first";
  def.signature = ours_first ? form : theirs;
  def.alt_signature = ours_first ? theirs : form;
  TypeDeducer own = def.deduce;
  TypeDeducer generic = GenericDeducer(def.name, theirs);
  def.deduce = [own, generic, form](const CallSite& s) -> absl::StatusOr<ir::TypePtr> {
    return FitsOperands(*form, s.args) ? own(s) : generic(s);
  };
}

OpCategory CategoryOf(std::string_view name) {
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  if (starts("pl.tile.")) return OpCategory::kTileOp;
  if (starts("pl.tensor.")) return OpCategory::kTensorOp;
  if (starts("pld.")) return OpCategory::kDistributedOp;
  if (starts("pl.system.")) return OpCategory::kControlOp;
  return OpCategory::kScalarOp;
}

// Effects of operators registered from the table: the destination of a
// store-like operator is written (spec §2: overwritten, not updated).
std::vector<ArgEffect> GenericEffects(std::string_view rule) {
  if (rule == "arg2") return {ArgEffect::kRead, ArgEffect::kRead, ArgEffect::kWrite};
  if (rule == "arg0") return {ArgEffect::kReadWrite};
  return {};
}

absl::flat_hash_map<std::string, UnifiedOp>& UnifiedTable() {
  static auto* table = new absl::flat_hash_map<std::string, UnifiedOp>();
  return *table;
}

void RegisterUnified(const Row& r) {
  UnifiedOp u;
  u.name = std::string(r.name);
  u.signature = *Parse(Row{r.kind, r.name, r.text, ""});
  std::string_view targets = r.rule;
  while (!targets.empty()) {
    size_t sp = targets.find(' ');
    std::string_view t = targets.substr(0, sp);
    targets = sp == std::string_view::npos ? std::string_view() : targets.substr(sp + 1);
    if (t == "scalar") {
      u.scalar_form = true;
    } else if (OurForm(t) != nullptr) {
      return;  // resolves to an operator whose surface is ours, not PyPTO's
    } else if (t.find(".tensor.") != std::string_view::npos) {
      if (u.tensor_op.empty()) u.tensor_op = std::string(t);
    } else if (u.tile_op.empty()) {
      u.tile_op = std::string(t);
    } else if (u.tile_scalar_op.empty()) {
      u.tile_scalar_op = std::string(t);
    }
  }
  // Our extension: the scalar absolute value and negation (pl.abs(-n)).
  if (u.name == "pl.abs" || u.name == "pl.neg") u.scalar_form = true;
  UnifiedTable()[u.name] = std::move(u);
}

}  // namespace

void RegisterPyptoSignatures(OpRegistry& r) {
  for (const Row& row : kPypto) {
    if (row.kind == "unified") {
      RegisterUnified(row);
      continue;
    }
    if (row.kind != "op") continue;
    const Row* ours = OurForm(row.name);
    const Row* dual = OurForm(row.name, "dual");
    if (dual == nullptr) dual = OurForm(row.name, "ours_first");
    OpDef* existing = r.FindMutable(row.name);
    if (existing != nullptr && existing->name == row.name && dual != nullptr) {
      AttachDual(*existing, row, *dual);
      continue;
    }
    if (OpDef* def = existing; def != nullptr && def->name == row.name) {
      // Keeps its own deducer (an empty result rule says so).
      Row own = ours != nullptr ? *ours : row;
      own.rule = "";
      def->signature = Parse(own);
      continue;
    }
    std::shared_ptr<const Signature> sig = Parse(ours != nullptr ? *ours : row);
    OpDef def;
    def.name = std::string(row.name);
    def.category = CategoryOf(row.name);
    def.effects = GenericEffects(row.rule);
    // The result is the operand the rule names, updated in place.
    if (row.rule == "arg0") def.traits.result_arg = 0;
    if (row.rule == "arg2") def.traits.result_arg = 2;
    def.deduce = GenericDeducer(def.name, sig);
    def.signature = std::move(sig);
    r.Register(std::move(def));
  }
  for (const Row& row : kOurForms) {
    OpDef* def = r.FindMutable(row.name);
    if (def != nullptr && def->signature == nullptr) def->signature = Parse(row);
  }
  for (const Row& row : kPypto) {
    if (row.kind == "alias") r.AddAlias(std::string(row.name), row.text);
  }
}

const UnifiedOp* FindUnifiedOp(std::string_view name) {
  OpRegistry::Global();  // fills the table
  auto it = UnifiedTable().find(ToAbsl(name));
  return it == UnifiedTable().end() ? nullptr : &it->second;
}

std::vector<std::string> UnifiedOpNames() {
  OpRegistry::Global();
  std::vector<std::string> names;
  for (const auto& [name, op] : UnifiedTable()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pto::ops
