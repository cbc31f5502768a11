#include "compiler/ir/op_id.h"

#include <deque>
#include <string>

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

// Every name with its id; the allocated names own their storage (a deque keeps
// the views the map holds valid as it grows).
struct Table {
  absl::flat_hash_map<std::string_view, OpId> by_name;
  std::deque<std::string> allocated;
  void (*allocate_all)() = nullptr;
  bool allocating = false;  // the allocator ran, or the registry is registering
};

Table& GetTable() {
  static Table* t = [] {
    auto* table = new Table();
    for (size_t i = 1; i < kNumOpIds; ++i) table->by_name.emplace(kNames[i], static_cast<OpId>(i));
    return table;
  }();
  return *t;
}

}  // namespace

OpId AllocateOpId(std::string_view name) {
  Table& t = GetTable();
  t.allocating = true;
  if (auto it = t.by_name.find(name); it != t.by_name.end()) return it->second;
  const OpId id = static_cast<OpId>(kNumOpIds + t.allocated.size());
  t.allocated.emplace_back(name);
  t.by_name.emplace(t.allocated.back(), id);
  return id;
}

size_t NumOpIds() { return kNumOpIds + GetTable().allocated.size(); }

void SetOpIdAllocator(void (*allocate_all)()) { GetTable().allocate_all = allocate_all; }

std::string_view OpIdName(OpId id) {
  const size_t i = static_cast<size_t>(id);
  if (i < kNumOpIds) return kNames[i];
  const Table& t = GetTable();
  return i - kNumOpIds < t.allocated.size() ? std::string_view(t.allocated[i - kNumOpIds])
                                            : std::string_view();
}

OpId OpIdFromName(std::string_view name) {
  Table& t = GetTable();
  auto it = t.by_name.find(name);
  if (it != t.by_name.end()) return it->second;
  if (t.allocate_all == nullptr || t.allocating) return OpId::kUnknown;
  t.allocating = true;
  t.allocate_all();
  it = t.by_name.find(name);
  return it == t.by_name.end() ? OpId::kUnknown : it->second;
}

}  // namespace pto::ir
