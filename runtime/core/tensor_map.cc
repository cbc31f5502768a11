#include "runtime/core/tensor_map.h"

#include <algorithm>

namespace pto::rt {

Overlap ClassifyOverlap(uint64_t off, uint64_t bytes, uint64_t e_off,
                        uint64_t e_bytes) {
  if (off >= e_off + e_bytes || e_off >= off + bytes) return Overlap::kNone;
  if (off <= e_off && off + bytes >= e_off + e_bytes) return Overlap::kCovered;
  return Overlap::kOther;
}

std::vector<TaskId> TensorMap::Lookup(const Tensor& t) const {
  std::vector<TaskId> out;
  auto it = map_.find(t.base);
  if (it == map_.end()) return out;
  // Entries are appended, so walk backwards for newest first.
  for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
    if (ClassifyOverlap(t.offset, t.bytes, e->off, e->bytes) !=
        Overlap::kNone) {
      if (std::find(out.begin(), out.end(), e->task) == out.end()) {
        out.push_back(e->task);
      }
    }
  }
  return out;
}

bool TensorMap::Insert(const Tensor& t, TaskId task) {
  std::vector<Entry>& chain = map_[t.base];
  const size_t before = chain.size();
  // A strided view writes only part of its span: it covers no older entry.
  if (!t.strided()) {
    chain.erase(std::remove_if(chain.begin(), chain.end(),
                               [&](const Entry& e) {
                                 return ClassifyOverlap(t.offset, t.bytes, e.off,
                                                        e.bytes) ==
                                        Overlap::kCovered;
                               }),
                chain.end());
  }
  size_ -= before - chain.size();
  if (size_ >= capacity_) return false;
  chain.push_back(Entry{t.offset, t.bytes, task});
  ++size_;
  return true;
}

void TensorMap::Prune(const std::function<bool(TaskId)>& retired) {
  for (auto it = map_.begin(); it != map_.end();) {
    std::vector<Entry>& chain = it->second;
    const size_t before = chain.size();
    chain.erase(std::remove_if(chain.begin(), chain.end(),
                               [&](const Entry& e) { return retired(e.task); }),
                chain.end());
    size_ -= before - chain.size();
    it = chain.empty() ? map_.erase(it) : std::next(it);
  }
}

}  // namespace pto::rt
