// Chrome trace-event JSON (Perfetto loads it): one track (tid) per core pipe,
// DMA engine, link and AICPU thread; one process (pid) per chip. Events are
// complete ("X") slices in simulated time; ts/dur are microseconds with
// picosecond digits, formatted from integers so output is byte-identical.
#ifndef PTO_SIM_TRACE_TRACE_H_
#define PTO_SIM_TRACE_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/resource.h"

namespace pto::sim {

class Trace {
 public:
  explicit Trace(bool enabled = true) : enabled_(enabled) {}
  // Declares a track; returns its id. `pid` groups tracks (a chip, or the fabric).
  int AddTrack(int pid, const std::string& process_name,
               const std::string& track_name);
  void Slice(int track, const std::string& name, Ps start, Ps end);
  std::string Json() const;
  bool enabled() const { return enabled_; }
  size_t event_count() const { return events_.size(); }

 private:
  struct TrackInfo {
    int pid;
    std::string process_name;
    std::string name;
  };
  struct Event {
    int track;
    std::string name;
    Ps start;
    Ps end;
  };
  bool enabled_;
  std::vector<TrackInfo> tracks_;
  std::vector<Event> events_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_TRACE_TRACE_H_
