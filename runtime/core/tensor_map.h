// TensorMap: the current writer(s) of every buffer range, keyed by buffer base
// (runtime-and-sim.md §1.5). RAW and WAW are tracked; readers are not recorded,
// so WAR needs an explicit dependency (as in simpler). A strided view is
// tracked on its span (first to one past its last element): a superset of
// the bytes it touches, so it may add dependencies but never loses one.
#ifndef PTO_RUNTIME_CORE_TENSOR_MAP_H_
#define PTO_RUNTIME_CORE_TENSOR_MAP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "runtime/api/task_args.h"

namespace pto::rt {

enum class Overlap { kNone, kCovered, kOther };

// How [off, off + bytes) relates to an existing entry [e_off, e_off + e_bytes):
// kCovered if the new range contains the entry, kOther if they only overlap.
Overlap ClassifyOverlap(uint64_t off, uint64_t bytes, uint64_t e_off,
                        uint64_t e_bytes);

class TensorMap {
 public:
  explicit TensorMap(size_t capacity = 65536) : capacity_(capacity) {}

  // Writers whose range overlaps the view, newest first.
  std::vector<TaskId> Lookup(const Tensor& t) const;
  // Makes `task` the writer of the view; entries it covers are dropped (a
  // strided view drops none: its span has gaps).
  // Returns false if the map is full (the caller prunes or fails with 11).
  bool Insert(const Tensor& t, TaskId task);
  // Drops the entries of tasks for which `retired` is true.
  void Prune(const std::function<bool(TaskId)>& retired);
  size_t size() const { return size_; }

 private:
  struct Entry {
    uint64_t off;
    uint64_t bytes;
    TaskId task;
  };
  // Ordered by base so iteration (and so every result) is deterministic.
  std::map<uint64_t, std::vector<Entry>> map_;
  size_t size_ = 0;
  size_t capacity_;
};

}  // namespace pto::rt

#endif  // PTO_RUNTIME_CORE_TENSOR_MAP_H_
