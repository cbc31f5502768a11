#include "runtime/builtins/all_to_all_v/entry_support.h"

#include <cstdio>
#include <mutex>
#include <utility>

namespace pto::builtins {
namespace {

std::mutex& SinkMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

TimingLogSink& Sink() {
  static TimingLogSink* sink = new TimingLogSink;
  return *sink;
}

}  // namespace

void LogTiming(const std::string& line) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  if (Sink()) {
    Sink()(line);
  } else {
    std::fprintf(stderr, "[LOG_TIMING] %s\n", line.c_str());
  }
}

TimingLogSink SetTimingLogSink(TimingLogSink sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  return std::exchange(Sink(), std::move(sink));
}

}  // namespace pto::builtins
