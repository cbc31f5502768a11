// Chrome trace-event JSON (Perfetto loads it): one track (tid) per core pipe,
// DMA engine, link and AICPU thread; one process (pid) per chip. Events are
// complete ("X") slices in simulated time; ts/dur are microseconds with
// picosecond digits, formatted from integers so output is byte-identical.
#ifndef PTO_SIM_TRACE_TRACE_H_
#define PTO_SIM_TRACE_TRACE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/common/resource.h"

namespace pto::sim {

// One key of a slice's args, its value already JSON ("42", "\"k\"").
struct TraceArg {
  TraceArg(std::string k, int64_t v);
  TraceArg(std::string k, const std::string& v);
  TraceArg(std::string k, const char* v) : TraceArg(std::move(k), std::string(v)) {}
  std::string key;
  std::string json;
};
using TraceArgs = std::vector<TraceArg>;

class Trace {
 public:
  explicit Trace(bool enabled = true) : enabled_(enabled) {}
  // Declares a track; returns its id. `pid` groups tracks (a chip, or the fabric).
  int AddTrack(int pid, const std::string& process_name,
               const std::string& track_name);
  // `args` shows in Perfetto's slice details (bytes, peer, task, kernel).
  void Slice(int track, const std::string& name, Ps start, Ps end, TraceArgs args = {});
  // Tracks without a slice (a core that ran nothing)
  // are left out of the JSON rather than drawn empty.
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
    TraceArgs args;
  };
  bool enabled_;
  std::vector<TrackInfo> tracks_;
  std::vector<Event> events_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_TRACE_TRACE_H_
