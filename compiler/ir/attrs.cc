#include "compiler/ir/attrs.h"

namespace pto::ir {

const AttrValue* FindAttr(const AttrList& attrs, std::string_view key) {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

AttrList WithAttr(AttrList attrs, std::string key, AttrValue value) {
  for (auto& [k, v] : attrs) {
    if (k == key) {
      v = std::move(value);
      return attrs;
    }
  }
  attrs.emplace_back(std::move(key), std::move(value));
  return attrs;
}

bool IsExprValuedAttrKey(std::string_view key) {
  return key == kAttrDevice || key == kAttrCoreNum || key == "predicate";
}

bool IsVarListAttrKey(std::string_view key) {
  return key == "manual_dep_edges" || key == "compiler_manual_dep_edges" || key == kAttrDeps;
}

}  // namespace pto::ir
