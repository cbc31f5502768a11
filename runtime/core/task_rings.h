// The chip's task window as simpler's tensormap_and_ringbuffer runtime keeps
// it (src/a2a3/runtime/tensormap_and_ringbuffer/docs/MULTI_RING.md): one ring
// of `window` slots per scope depth, depths at or beyond the last ring sharing
// it. A ring frees slots in submission order only, as simpler's
// `last_task_alive` watermark advances: the oldest live task of a ring holds
// every later slot of that ring. Separate rings per depth keep a deep scope's
// turnover from waiting on (or starving) a parent scope's live tasks.
#ifndef PTO_RUNTIME_CORE_TASK_RINGS_H_
#define PTO_RUNTIME_CORE_TASK_RINGS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "runtime/api/orchestrator.h"

namespace pto::rt {

// simpler's PTO2_MAX_RING_DEPTH.
inline constexpr int kTaskRings = 4;

class TaskRings {
 public:
  // `rings` >= 1 rings of `window` >= 1 slots each.
  TaskRings(int rings, uint32_t window);

  int rings() const { return static_cast<int>(rings_.size()); }
  uint32_t window() const { return window_; }
  // The ring of a task submitted at scope depth `depth` (0: the entry's
  // implicit top-level scope): min(depth, rings - 1).
  int RingOf(int depth) const;

  bool Full(int ring) const { return rings_[ring].size() >= window_; }
  // Takes the next slot of `ring` (which must not be Full) for task `id`.
  void Push(int ring, TaskId id) { rings_[ring].push_back(id); }
  // The ring's oldest live task: the one its next free slot waits on. The
  // ring must not be empty.
  TaskId Oldest(int ring) const { return rings_[ring].front(); }
  size_t live(int ring) const { return rings_[ring].size(); }
  size_t live() const;

  // Frees, ring by ring, the slots of the oldest tasks for which `consumed`
  // holds, stopping at the first that is not.
  void Reclaim(const std::function<bool(TaskId)>& consumed);

 private:
  uint32_t window_;
  std::vector<std::deque<TaskId>> rings_;  // live task ids, oldest first
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_TASK_RINGS_H_
