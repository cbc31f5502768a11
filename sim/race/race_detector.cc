#include "sim/race/race_detector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace pto::sim {
namespace {

std::string Us(int64_t ps) { return absl::StrCat(ps / 1000000.0, " us"); }

}  // namespace

void JoinClock(VectorClock& a, const VectorClock& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

RaceDetector::RaceDetector(int agents, std::function<std::string(uint64_t)> describe)
    : describe_(std::move(describe)),
      clocks_(agents, VectorClock(agents, 0)),
      last_site_(agents, -1) {
  for (int a = 0; a < agents; ++a) clocks_[a][a] = 1;
}

void RaceDetector::BlockStart(int agent, const VectorClock& start) {
  VectorClock& c = clocks_[agent];
  JoinClock(c, start);
  ++c[agent];
}

void RaceDetector::Notify(int agent, uint64_t cell) {
  JoinClock(cells_[cell], clocks_[agent]);
  ++clocks_[agent][agent];
}

void RaceDetector::Observe(int agent, uint64_t cell) {
  auto it = cells_.find(cell);
  if (it != cells_.end()) JoinClock(clocks_[agent], it->second);
}

int RaceDetector::SiteIndex(const AccessSite& s) {
  const std::string key =
      absl::StrCat(s.rank, "/", s.core, "/", s.aic, "/", s.task, "/", s.kernel, "/", s.block);
  auto [it, inserted] = site_ids_.emplace(key, static_cast<int>(sites_.size()));
  if (inserted) sites_.push_back(s);
  return it->second;
}

std::string RaceDetector::Describe(const Record& r, bool write) const {
  const AccessSite& s = sites_[r.site];
  return absl::StrCat(write ? "write" : "read", " of ", r.bytes, " bytes at ", describe_(r.addr),
                      " by rank ", s.rank, " ", s.aic ? "AIC" : "AIV", s.core, " task ", s.task,
                      " block ", s.block, " (kernel ", s.kernel, ") at ", Us(r.t0), "-",
                      Us(r.t1));
}

void RaceDetector::Report(const Record& earlier, bool earlier_write, const Record& later,
                          bool later_write) {
  const std::pair<int, int> key(std::min(earlier.site, later.site),
                                std::max(earlier.site, later.site));
  if (!reported_.insert(key).second) return;
  races_.push_back(absl::StrCat("race: ", Describe(earlier, earlier_write), " and ",
                                Describe(later, later_write),
                                " are not ordered (no dependency, signal or dispatch order)"));
}

void RaceDetector::Access(int agent, const AccessSite& site, uint64_t addr, uint64_t bytes,
                          bool write, int64_t t0, int64_t t1) {
  if (bytes == 0) return;
  Record rec;
  rec.agent = agent;
  rec.epoch = clocks_[agent][agent];
  // Consecutive accesses of one block share a site; skip the key lookup.
  int& last = last_site_[agent];
  if (last < 0 || sites_[last].task != site.task || sites_[last].block != site.block ||
      sites_[last].kernel != site.kernel) {
    last = SiteIndex(site);
  }
  rec.site = last;
  rec.addr = addr;
  rec.bytes = bytes;
  rec.t0 = t0;
  rec.t1 = t1;
  const uint64_t end = addr + bytes;
  Split(addr);
  Split(end);
  // Bytes with no history yet get an interval of their own.
  uint64_t cur = addr;
  for (auto it = shadow_.lower_bound(addr); cur < end;) {
    const uint64_t next = (it == shadow_.end() || it->first >= end) ? end : it->first;
    if (cur < next) {
      it = shadow_.emplace_hint(it, cur, Interval{next, Record{}, {}});
    }
    Interval& iv = it->second;
    if (!Ordered(iv.write, agent)) Report(iv.write, true, rec, write);
    if (write) {
      for (const Record& r : iv.reads) {
        if (!Ordered(r, agent)) Report(r, false, rec, true);
      }
      iv.reads.clear();
      iv.write = rec;
    } else {
      auto r = std::find_if(iv.reads.begin(), iv.reads.end(),
                            [&](const Record& x) { return x.agent == agent; });
      if (r != iv.reads.end()) {
        *r = rec;
      } else {
        iv.reads.push_back(rec);
      }
    }
    cur = iv.end;
    ++it;
  }
  Coalesce(addr, end);
}

void RaceDetector::Split(uint64_t at) {
  auto it = shadow_.upper_bound(at);
  if (it == shadow_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Interval tail = it->second;
  it->second.end = at;
  shadow_.emplace_hint(std::next(it), at, std::move(tail));
}

void RaceDetector::Coalesce(uint64_t lo, uint64_t hi) {
  auto it = shadow_.lower_bound(lo);
  if (it != shadow_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == lo) it = prev;  // the left neighbour, if adjacent
  }
  while (it != shadow_.end() && it->first <= hi) {
    auto next = std::next(it);
    if (next == shadow_.end() || next->first > hi) break;
    if (it->second.end == next->first && it->second.SameHistory(next->second)) {
      it->second.end = next->second.end;
      shadow_.erase(next);
    } else {
      it = next;
    }
  }
}

}  // namespace pto::sim
