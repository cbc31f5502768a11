#include "compiler/ir/arena.h"

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace pto::ir {

NodeArena* NodeArena::Create() { return new NodeArena(); }

void NodeArena::Poison(void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_POISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

void NodeArena::Unpoison(void* p, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

void* NodeArena::AllocateSlow(size_t bytes, size_t align) {
  // The chunk header keeps the list; payloads start at max_align_t alignment.
  constexpr size_t kHeader = alignof(std::max_align_t) > sizeof(Chunk)
                                 ? alignof(std::max_align_t)
                                 : sizeof(Chunk);
  size_t need = kHeader + bytes + align;
  if (need > kChunkBytes / 4) {
    // A large allocation gets a chunk of its own; the current one stays open.
    auto* c = static_cast<Chunk*>(::operator new(need));
    reserved_ += need;
    c->bytes = need;
    if (chunks_ == nullptr) {
      c->next = nullptr;
      chunks_ = c;
    } else {
      c->next = chunks_->next;
      chunks_->next = c;
    }
    uintptr_t p = (reinterpret_cast<uintptr_t>(c) + kHeader + align - 1) & ~(uintptr_t{align} - 1);
    return reinterpret_cast<void*>(p);
  }
  auto* c = static_cast<Chunk*>(::operator new(kChunkBytes));
  reserved_ += kChunkBytes;
  c->bytes = kChunkBytes;
  c->next = chunks_;
  chunks_ = c;
  cur_ = reinterpret_cast<char*>(c) + kHeader;
  end_ = reinterpret_cast<char*>(c) + kChunkBytes;
  Poison(cur_, end_ - cur_);
  return Allocate(bytes, align);
}

void NodeArena::Destroy() {
  for (Chunk* c = chunks_; c != nullptr;) {
    Chunk* next = c->next;
    // Chunks are poisoned piecewise; the heap wants them whole again.
    Unpoison(c, c->bytes);
    ::operator delete(c);
    c = next;
  }
  delete this;
}

}  // namespace pto::ir
