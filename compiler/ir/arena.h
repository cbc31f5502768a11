// Bulk storage for IR nodes. The parser builds a whole program at once (about a
// million nodes per 10 MB of source); taking each node's memory from a bump
// arena instead of the heap makes building and freeing a program cheap: glibc's
// free() and its consolidation of those small chunks were a fifth of parse time
// (docs/performance.md, "Front end").
//
// An ArenaScope installs an arena on the current thread; MakeNode<T>(...)
// allocates from it (one allocation holds the shared_ptr control block and the
// node), or from the heap when no scope is active. Nodes stay ordinary
// `std::shared_ptr<const T>`: every live allocation holds a reference on its
// arena, so the arena's chunks go back to the heap only when its last node is
// destroyed, whichever program, pass or thread holds that node. Do not cache a
// MakeNode result in a static: it would keep the whole arena alive.
#ifndef PTO_COMPILER_IR_ARENA_H_
#define PTO_COMPILER_IR_ARENA_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace pto::ir {

class NodeArena {
 public:
  // A new arena with one reference, owned by the caller.
  static NodeArena* Create();
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  // Only the thread that installed the arena allocates from it.
  void* Allocate(size_t bytes, size_t align) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cur_) + align - 1) & ~(uintptr_t{align} - 1);
    if (cur_ == nullptr || p + bytes > reinterpret_cast<uintptr_t>(end_)) {
      return AllocateSlow(bytes, align);
    }
    cur_ = reinterpret_cast<char*>(p + bytes);
    Unpoison(reinterpret_cast<void*>(p), bytes);
    return reinterpret_cast<void*>(p);
  }
  // The memory of one allocation is dead (poisoned under ASan).
  void Deallocate(void* p, size_t bytes) {
    Poison(p, bytes);
    Unref();
  }

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Any thread may drop a reference; the last one frees the chunks.
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy();
  }

  // Bytes taken from the heap so far (chunks and large allocations), and the
  // references held (the installing scope's and one per live allocation).
  size_t reserved_bytes() const { return reserved_; }
  int64_t ref_count() const { return refs_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    Chunk* next;
    size_t bytes;
  };
  static constexpr size_t kChunkBytes = size_t{256} << 10;

  NodeArena() = default;
  ~NodeArena() = default;
  void* AllocateSlow(size_t bytes, size_t align);
  void Destroy();
  static void Poison(void* p, size_t bytes);
  static void Unpoison(void* p, size_t bytes);

  std::atomic<int64_t> refs_{1};
  char* cur_ = nullptr;
  char* end_ = nullptr;
  Chunk* chunks_ = nullptr;
  size_t reserved_ = 0;
};

// A standard allocator over a NodeArena, for std::allocate_shared. Each
// allocation references the arena until it is deallocated.
template <typename T>
class ArenaAllocator {
 public:
  using value_type = T;
  explicit ArenaAllocator(NodeArena* arena) : arena_(arena) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena_(other.arena()) {}  // NOLINT

  T* allocate(size_t n) {
    arena_->Ref();
    return static_cast<T*>(arena_->Allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, size_t n) { arena_->Deallocate(p, n * sizeof(T)); }
  NodeArena* arena() const { return arena_; }

  template <typename U>
  bool operator==(const ArenaAllocator<U>& o) const {
    return arena_ == o.arena();
  }

 private:
  NodeArena* arena_;
};

namespace arena_internal {
inline thread_local NodeArena* current = nullptr;
}  // namespace arena_internal

// The arena installed on this thread, or nullptr.
inline NodeArena* CurrentArena() { return arena_internal::current; }

// Installs a fresh arena on this thread for the scope's lifetime (the previous
// one, if any, is restored afterwards). Nodes made in the scope outlive it.
class ArenaScope {
 public:
  ArenaScope() : prev_(arena_internal::current), arena_(NodeArena::Create()) {
    arena_internal::current = arena_;
  }
  ~ArenaScope() {
    arena_internal::current = prev_;
    arena_->Unref();
  }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;
  NodeArena* arena() const { return arena_; }

 private:
  NodeArena* prev_;
  NodeArena* arena_;
};

// std::make_shared<T>(args...), from the current arena when there is one.
template <typename T, typename... Args>
std::shared_ptr<T> MakeNode(Args&&... args) {
  using U = std::remove_const_t<T>;
  if (NodeArena* a = CurrentArena()) {
    return std::allocate_shared<U>(ArenaAllocator<U>(a), std::forward<Args>(args)...);
  }
  return std::make_shared<U>(std::forward<Args>(args)...);
}

}  // namespace pto::ir

#endif  // PTO_COMPILER_IR_ARENA_H_
