#include "runtime/core/task_rings.h"

#include <algorithm>

namespace pto::rt {

TaskRings::TaskRings(int rings, uint32_t window)
    : window_(std::max<uint32_t>(window, 1)), rings_(std::max(rings, 1)) {}

int TaskRings::RingOf(int depth) const {
  return std::clamp(depth, 0, rings() - 1);
}

size_t TaskRings::live() const {
  size_t n = 0;
  for (const std::deque<TaskId>& r : rings_) n += r.size();
  return n;
}

void TaskRings::Reclaim(const std::function<bool(TaskId)>& consumed) {
  for (std::deque<TaskId>& r : rings_) {
    while (!r.empty() && consumed(r.front())) r.pop_front();
  }
}

}  // namespace pto::rt
