// The harness of the all_to_all_v system tests: the params of host_orch of
// testing/system/all_to_all_v_<rail>.pto.in and a run of the compiled
// program on the simulator. Every rendering has the same params, so one
// harness serves every rail. Compiled once; each test binary links it with
// its program and gets its configuration from the environment the cc_test
// sets (system_test.bzl): A2AV_RAIL, A2AV_KERNEL, A2AV_NR, A2AV_INT8,
// A2AV_L, A2AV_S, A2AV_SKEW_MATRIX, A2AV_PLATFORM.
#ifndef PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_
#define PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sim/trace/report.pb.h"
#include "testing/reference/collectives.h"

namespace pto::sim::system_test {

namespace ref = ::pto::reference;

struct Config {
  std::string rail;         // "chip", "host" or "incore"
  std::string kernel;       // the task name of the collective's kernel
  int nr = 0;               // ranks (= simulated chips)
  bool int8 = false;        // INT8 payload, else FP32
  int l = 1;                // core_num of the calls (1 on the InCore rail)
  int s = 1;                // signal lanes (columns of the [NR, S] signal)
  bool skew_matrix = true;  // the first call runs each skew case, else over_capacity
  std::string platform;     // simulated (and compiled for)
};

// The configuration of this test binary; exits with a message when the
// environment lacks it (a test run outside its cc_test).
const Config& Cfg();

// The constants of the .pto template.
inline constexpr int kMaxRecv = 4;
inline constexpr int kSize = 24;
inline int RankElems() { return Cfg().nr * kMaxRecv * kSize; }  // one [TOTAL, SIZE] target

// The host params of host_orch, in order.
enum Param {
  kInputs0,  // [NR, TOTAL, SIZE]
  kCounts0,  // [NR, NR] INT32
  kInputs1,
  kCounts1,
  kOutputs0,  // Out [NR, TOTAL, SIZE]: call 0's target
  kRecvs0,    // Out [NR, NR, 1] INT32: call 0's recv_counts
  kOutputs1,
  kRecvs1,
  kSignals,  // Out [NR, NR, S] INT32: the signal after both calls
  kNumParams,
};

// Bytes of one row (one rank's part) of each param; a param is [NR, ...].
uint64_t RowBytes(int param);

// What every Out param holds before the run: a device writes only its own
// row, so the others must keep this.
inline constexpr uint8_t kOutInit = 0xA5;

using Counts = ref::PerRank<int32_t>;  // [rank][dest]

struct Outcome {
  RunReport report;
  // [param][device]: the whole param as device d holds it after the run.
  std::vector<std::vector<std::string>> params;
};

// The row of `param` that device r owns, as T.
template <typename T>
std::vector<T> RowOf(const Outcome& out, int param, int r) {
  const std::string& bytes = out.params[param][r];
  std::vector<T> v(RowBytes(param) / sizeof(T));
  if (bytes.size() < (r + 1) * RowBytes(param)) return {};
  std::memcpy(v.data(), bytes.data() + r * RowBytes(param), RowBytes(param));
  return v;
}

// Runs the program with `counts[k]` and round-k payloads for call k, in the
// simulator's full mode or its timing-only mode (no payload moved).
Outcome RunProgram(const Counts (&counts)[2], bool timing_only = false);

// Empty when `timing` (a timing-only run) reports what `full` reports:
// simulated time, every task, core, link, GM and queue statistic, the log,
// errors and hang reports; else what differs. Outputs and wall time are not
// compared (timing-only moves no payload).
std::string TimingOnlyDifference(const RunReport& full, const RunReport& timing);

// The line the HOST rail's builtin entry logs before it submits the kernel
// (runtime/builtins/all_to_all_v/entry.cpp.in, spec §4.9), as RunReport.log
// tags it: chip `chip` in its chip dispatch `run`, launching `b` blocks.
std::string EntryLogLine(int chip, int run, int64_t b);

// The lines of `report.log` that report a launch width (any entry's).
std::vector<std::string> EntryLogLines(const RunReport& report);

// The second call: a ragged mix with round-distinct payloads, so rows of the
// first call that the second does not overwrite must survive.
Counts SecondCall();

}  // namespace pto::sim::system_test

#endif  // PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_
