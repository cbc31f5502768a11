#include "compiler/ir/op_id.h"

#include "absl/container/flat_hash_map.h"

namespace pto::ir {
namespace {

constexpr std::string_view kNames[] = {
    "",
#define PTO_OP_NAME(id, name) name,
    PTO_OP_LIST(PTO_OP_NAME)
#undef PTO_OP_NAME
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumOpIds);

}  // namespace

std::string_view OpIdName(OpId id) {
  const size_t i = static_cast<size_t>(id);
  return i < kNumOpIds ? kNames[i] : std::string_view();
}

OpId OpIdFromName(std::string_view name) {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<std::string_view, OpId>();
    for (size_t i = 1; i < kNumOpIds; ++i) m->emplace(kNames[i], static_cast<OpId>(i));
    return m;
  }();
  auto it = by_name->find(name);
  return it == by_name->end() ? OpId::kUnknown : it->second;
}

}  // namespace pto::ir
