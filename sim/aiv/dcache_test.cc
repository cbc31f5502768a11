#include "sim/aiv/dcache.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace pto::sim {
namespace {

struct alignas(64) Mem {
  int32_t w[64] = {};
};

uint64_t A(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST(DataCacheTest, CachedLineGoesStaleUntilInvalidated) {
  Mem m;
  DataCache c(64, 1024);
  m.w[0] = 1;
  EXPECT_FALSE(c.Line(A(&m.w[0])).hit);
  m.w[0] = 2;  // written behind the cache's back (DMA or a peer)
  DataCache::Access a = c.Line(A(&m.w[0]));
  EXPECT_TRUE(a.hit);
  int32_t v;
  std::memcpy(&v, a.data, 4);
  EXPECT_EQ(v, 1);  // stale
  c.Flush(A(&m.w[0]), /*invalidate=*/true);
  std::memcpy(&v, c.Line(A(&m.w[0])).data, 4);
  EXPECT_EQ(v, 2);
}

TEST(DataCacheTest, DirtyLineReachesMemoryOnlyWhenFlushed) {
  Mem m;
  DataCache c(64, 1024);
  DataCache::Access a = c.Line(A(&m.w[1]));
  int32_t v = 7;
  std::memcpy(a.data + 4, &v, 4);
  c.MarkDirty(A(&m.w[1]), 4);
  EXPECT_EQ(m.w[1], 0);
  EXPECT_EQ(c.Flush(A(&m.w[1]), /*invalidate=*/false), 1);
  EXPECT_EQ(m.w[1], 7);
}

TEST(DataCacheTest, WholeLineWriteBackLastFlushWins) {
  Mem m;
  DataCache core_a(64, 1024), core_b(64, 1024);
  int32_t one = 1, two = 2;
  std::memcpy(core_a.Line(A(&m.w[0])).data + 0, &one, 4);
  core_a.MarkDirty(A(&m.w[0]), 4);
  std::memcpy(core_b.Line(A(&m.w[0])).data + 4, &two, 4);
  core_b.MarkDirty(A(&m.w[1]), 4);
  core_a.Flush(A(&m.w[0]), true);
  core_b.Flush(A(&m.w[0]), true);
  EXPECT_EQ(m.w[0], 0);  // core_b's line copy had the old element 0
  EXPECT_EQ(m.w[1], 2);
}

TEST(DataCacheTest, EvictionWritesBackTheLeastRecentDirtyLine) {
  Mem m[3];
  DataCache c(64, 128);  // two lines
  int32_t v = 9;
  std::memcpy(c.Line(A(&m[0])).data, &v, 4);
  c.MarkDirty(A(&m[0]), 4);
  c.Line(A(&m[1]));
  DataCache::Access a = c.Line(A(&m[2]));
  EXPECT_EQ(a.writebacks, 1);
  EXPECT_EQ(m[0].w[0], 9);
}

// The hook sees each write-back before it lands: the bytes going out, the
// line as filled, and which bytes this core stored, so a word a peer changed
// in between (m.w[1] here) is known to be reverted.
TEST(DataCacheTest, WriteBackHookSeesTheStaleBytesItRestores) {
  Mem m;
  DataCache c(64, 1024);
  int seen = 0;
  int32_t gm_before = -1, restored = -1, filled = -1;
  bool stored0 = false, stored1 = true;
  c.set_writeback_hook([&](const DataCache::WriteBack& wb) {
    ++seen;
    EXPECT_EQ(wb.line, A(&m.w[0]));
    EXPECT_EQ(wb.bytes, 64u);
    EXPECT_FALSE(wb.eviction);
    std::memcpy(&gm_before, reinterpret_cast<const void*>(wb.line + 4), 4);
    std::memcpy(&restored, wb.data + 4, 4);
    std::memcpy(&filled, wb.fill + 4, 4);
    stored0 = wb.stored[0] != 0 && wb.stored[3] != 0;
    stored1 = wb.stored[4] != 0;
  });
  int32_t v = 5;
  std::memcpy(c.Line(A(&m.w[0])).data, &v, 4);
  c.MarkDirty(A(&m.w[0]), 4);
  m.w[1] = 42;  // a peer's write lands between the fill and the write-back
  c.Flush(A(&m.w[0]), /*invalidate=*/false);
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(gm_before, 42);
  EXPECT_EQ(restored, 0);
  EXPECT_EQ(filled, 0);
  EXPECT_TRUE(stored0);
  EXPECT_FALSE(stored1);
  EXPECT_EQ(m.w[0], 5);
  EXPECT_EQ(m.w[1], 0);  // the update is lost
  // A clean line is not written back again.
  c.Flush(A(&m.w[0]), /*invalidate=*/true);
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace pto::sim
