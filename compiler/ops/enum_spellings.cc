#include "compiler/ops/enum_spellings.h"

#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

// Member order is the ABI code order of PyPTO's C++ enums.
const std::vector<EnumDef>& Enums() {
  static const auto* enums = new std::vector<EnumDef>{
      {"ReduceOp", "", true, {"Sum", "Max", "Min", "Prod"}, {}},
      {"NotifyOp", "", true, {"AtomicAdd", "Set"}, {}},
      {"WaitCmp", "", true, {"Eq", "Ge"}, {}},
      {"AtomicType", "", true, {"None_", "Add"}, {}},
      {"PipeType", "", true, {"MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL"}, {}},
      // ir::SplitMode of PyPTO's mixed kernels (function attrs={"split": ...}).
      {"SplitMode", "", true, {"NONE", "UP_DOWN", "LEFT_RIGHT"}, {}},
      // pl.tile.MaskPattern of gather / scatter's mask form: codes 1-7 (0 is no member).
      {"MaskPattern", "", true, {"", "P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"},
       {}},
      // Our MemRef spellings (UB, L1, L0A/B/C) name the same spaces.
      {"MemorySpace",
       "Mem",
       false,
       {"DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "ScalarLocal", "LeftScale",
        "RightScale"},
       {{"UB", "Vec"}, {"L1", "Mat"}, {"L0A", "Left"}, {"L0B", "Right"}, {"L0C", "Acc"}}},
      {"TensorLayout", "", false, {"ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN"}, {}},
      {"TileLayout", "", false, {"none_box", "row_major", "col_major"}, {}},
      {"PadValue", "", false, {"null", "zero", "max", "min"}, {}},
  };
  return *enums;
}

std::optional<ir::AttrValue> Member(const EnumDef& e, std::string_view name) {
  for (const auto& [alias, member] : e.aliases) {
    if (alias == name) name = member;
  }
  for (size_t i = 0; i < e.members.size(); ++i) {
    if (e.members[i] != name || name.empty()) continue;
    if (e.int_coded) return ir::AttrValue(static_cast<int64_t>(i));
    return ir::AttrValue(std::string(name));
  }
  return std::nullopt;
}

}  // namespace

const EnumDef* FindEnum(std::string_view name) {
  for (const EnumDef& e : Enums()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::optional<ir::AttrValue> EnumValueFromPath(std::string_view enum_name, std::string_view path) {
  const EnumDef* e = FindEnum(enum_name);
  if (e == nullptr) return std::nullopt;
  for (std::string_view prefix : {"pld.", "pl.tile.", "pl.", ""}) {
    if (path.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = path.substr(prefix.size());
    for (std::string_view name : {e->name, e->short_name}) {
      if (name.empty() || rest.size() <= name.size() + 1 || rest.substr(0, name.size()) != name ||
          rest[name.size()] != '.') {
        continue;
      }
      return Member(*e, rest.substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

std::optional<ir::AttrValue> EnumValueFromAttr(const EnumDef& e, const ir::AttrValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return Member(e, *s);
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (*i < 0 || *i >= static_cast<int64_t>(e.members.size())) return std::nullopt;
    if (e.int_coded) return value;
    return ir::AttrValue(std::string(e.members[static_cast<size_t>(*i)]));
  }
  return std::nullopt;
}

std::string EnumMemberList(const EnumDef& e) {
  std::string out;
  for (std::string_view m : e.members) {
    if (m.empty()) continue;
    pto::StrAppend(&out, out.empty() ? "" : ", ", e.int_coded ? "pld." : "pl.", e.name, ".", m);
  }
  return out;
}

std::optional<int64_t> IntEnumConstant(std::string_view path) {
  // PyPTO's named integer constants (python/pypto/ir/op/system_ops.py: AUTO,
  // reserve_buffer's "the compiler picks the base").
  if (path == "pl.AUTO") return -1;
  for (const EnumDef& e : Enums()) {
    if (!e.int_coded) continue;
    std::optional<ir::AttrValue> v = EnumValueFromPath(e.name, path);
    if (v && path.find('.') != std::string_view::npos) return std::get<int64_t>(*v);
  }
  return std::nullopt;
}

}  // namespace pto::ops
