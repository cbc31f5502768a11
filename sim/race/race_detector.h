// A happens-before race detector for global memory (docs/simulator.md,
// "Race detector"). Two accesses to the same GM bytes race when at least one
// writes and neither is ordered before the other by the run's
// synchronisation: a TensorMap or explicit task dependency, a dispatch that
// follows another on the chip, or a TNOTIFY that a satisfied TWAIT observed.
// Without it a missing dependency edge looks correct in a deterministic
// simulator, because the model happens to run the two tasks in a safe order.
//
// Agents are the cores of every chip. Each agent carries a vector clock;
// a block starts with the join of its task's start clock (its producers'
// end clocks and the dispatch's clock), a TNOTIFY publishes the agent's
// clock into the signal cell, and a satisfied TWAIT joins the cell's clock.
// The shadow of GM is a map of disjoint byte intervals, each with its last
// write and the reads since (FastTrack-style epochs, one read per agent): a
// bulk DMA access is one interval however many bytes it moves, so the shadow
// grows with the number of accesses, not with the bytes they touch. An
// access splits the intervals at its ends; intervals with the same history
// merge again. Checks are byte-exact: accesses conflict only where their
// byte ranges overlap.
#ifndef PTO_SIM_RACE_RACE_DETECTOR_H_
#define PTO_SIM_RACE_RACE_DETECTOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::sim {

using VectorClock = std::vector<uint32_t>;

// Joins `b` into `a` (element-wise max; `a` grows to `b`'s size).
void JoinClock(VectorClock& a, const VectorClock& b);

// Who made an access, for the report.
struct AccessSite {
  int rank = -1;
  int core = -1;
  bool aic = false;
  int64_t task = -1;
  std::string kernel;
  int block = 0;
};

class RaceDetector {
 public:
  // `agents`: cores over all chips; agent ids are dense in [0, agents).
  // `describe` names an address in reports (e.g. "c1:window ep r1+0x40");
  // it is called only for the accesses of a race.
  RaceDetector(int agents, std::function<std::string(uint64_t)> describe);

  // The agent starts a block whose task may start after `start`.
  void BlockStart(int agent, const VectorClock& start);
  // The agent's clock at the end of its block (for the task's end clock).
  const VectorClock& Clock(int agent) const { return clocks_[agent]; }

  // Synchronisation through a signal cell (4-byte address).
  void Notify(int agent, uint64_t cell);
  void Observe(int agent, uint64_t cell);

  // A GM access of [addr, addr + bytes) in simulated time [t0, t1] ps.
  // Cost: O(log n + k) for n intervals in the shadow, k of them overlapped.
  void Access(int agent, const AccessSite& site, uint64_t addr, uint64_t bytes, bool write,
              int64_t t0, int64_t t1);

  // One line per racing pair of sites (first occurrence), in detection order.
  const std::vector<std::string>& races() const { return races_; }

  // Intervals in the shadow (tests and memory accounting).
  size_t shadow_intervals() const { return shadow_.size(); }

 private:
  struct Record {
    int agent = -1;
    uint32_t epoch = 0;  // the agent's own clock entry at the access
    int site = -1;       // index into sites_
    uint64_t addr = 0;
    uint64_t bytes = 0;
    int64_t t0 = 0, t1 = 0;
    bool operator==(const Record&) const = default;
  };
  // The history of the bytes [start, end) (start is the map key).
  struct Interval {
    uint64_t end = 0;
    Record write;               // agent -1: none
    std::vector<Record> reads;  // since the last write, one per agent
    bool SameHistory(const Interval& o) const { return write == o.write && reads == o.reads; }
  };
  using Shadow = std::map<uint64_t, Interval>;

  bool Ordered(const Record& r, int agent) const {
    return r.agent < 0 || r.agent == agent || r.epoch <= clocks_[agent][r.agent];
  }
  void Report(const Record& earlier, bool earlier_write, const Record& later, bool later_write);
  std::string Describe(const Record& r, bool write) const;
  int SiteIndex(const AccessSite& s);
  // Makes an interval start at `at` if one covers it.
  void Split(uint64_t at);
  // Merges [lo, hi)'s intervals, and its neighbours, that have one history.
  void Coalesce(uint64_t lo, uint64_t hi);

  std::function<std::string(uint64_t)> describe_;
  std::vector<VectorClock> clocks_;
  std::unordered_map<uint64_t, VectorClock> cells_;
  Shadow shadow_;
  std::vector<AccessSite> sites_;
  std::map<std::string, int> site_ids_;
  std::vector<int> last_site_;  // per agent: the site of its last access
  std::set<std::pair<int, int>> reported_;  // site pairs
  std::vector<std::string> races_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_RACE_RACE_DETECTOR_H_
