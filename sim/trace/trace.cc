#include "sim/trace/trace.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pto::sim {
namespace {

std::string Us(Ps ps) {
  // 1 us = 1e6 ps; integer formatting keeps the text deterministic.
  return absl::StrFormat("%d.%06d", ps / 1000000, ps % 1000000);
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace

TraceArg::TraceArg(std::string k, int64_t v) : key(std::move(k)), json(absl::StrCat(v)) {}
TraceArg::TraceArg(std::string k, const std::string& v)
    : key(std::move(k)), json(absl::StrCat("\"", Escape(v), "\"")) {}

int Trace::AddTrack(int pid, const std::string& process_name,
                    const std::string& track_name) {
  tracks_.push_back(TrackInfo{pid, process_name, track_name});
  return static_cast<int>(tracks_.size()) - 1;
}

void Trace::Slice(int track, const std::string& name, Ps start, Ps end, TraceArgs args) {
  if (!enabled_ || track < 0) return;
  events_.push_back(Event{track, name, start, end, std::move(args)});
}

std::string Trace::Json() const {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto add = [&](const std::string& e) {
    if (!first) out += ",\n";
    first = false;
    out += e;
  };
  std::set<int> used;
  for (const Event& e : events_) used.insert(e.track);
  std::set<int> named;
  for (size_t i = 0; i < tracks_.size(); ++i) {
    if (used.count(static_cast<int>(i)) == 0) continue;
    const TrackInfo& t = tracks_[i];
    if (named.insert(t.pid).second) {
      add(absl::StrCat("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":",
                       t.pid, ",\"args\":{\"name\":\"",
                       Escape(t.process_name), "\"}}"));
    }
    add(absl::StrCat("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":", t.pid,
                     ",\"tid\":", i, ",\"args\":{\"name\":\"", Escape(t.name),
                     "\"}}"));
  }
  for (const Event& e : events_) {
    std::string args;
    for (const TraceArg& a : e.args) {
      absl::StrAppend(&args, args.empty() ? "" : ",", "\"", Escape(a.key), "\":", a.json);
    }
    add(absl::StrCat("{\"ph\":\"X\",\"name\":\"", Escape(e.name),
                     "\",\"pid\":", tracks_[e.track].pid, ",\"tid\":", e.track,
                     ",\"ts\":", Us(e.start), ",\"dur\":", Us(e.end - e.start),
                     ",\"args\":{", args, "}}"));
  }
  out += "\n]}\n";
  return out;
}

}  // namespace pto::sim
