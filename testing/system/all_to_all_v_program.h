// The harness of the all_to_all_v system tests: the params of host_orch of
// testing/system/all_to_all_v_<rail>.pto.in and a run of the compiled
// program on the simulator. Every rendering has the same params, so one
// harness serves every rail. Configured by the macros the build sets (see
// system_test.bzl):
//   A2AV_NR      ranks (= simulated chips)
//   A2AV_INT8    1: INT8 payload, 0: FP32
//   A2AV_L       core_num of the calls (1 on the InCore rail)
//   A2AV_S       signal lanes (columns of the [NR, S] signal)
// Include it from exactly one test source per binary.
#ifndef PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_
#define PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"

namespace pto::sim::system_test {

namespace ref = ::pto::reference;

#if A2AV_INT8
using Elem = int8_t;
#else
using Elem = float;
#endif

// The constants of the .pto template.
constexpr int kNr = A2AV_NR;
constexpr int kMaxRecv = 4;
constexpr int kSize = 24;
constexpr int kL = A2AV_L;
constexpr int kS = A2AV_S;
constexpr int kRankElems = kNr * kMaxRecv * kSize;  // one [TOTAL, SIZE] target

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
inline uint64_t RowBytes(int param) {
  switch (param) {
    case kInputs0:
    case kInputs1:
    case kOutputs0:
    case kOutputs1:
      return kRankElems * sizeof(Elem);
    case kCounts0:
    case kCounts1:
    case kRecvs0:
    case kRecvs1:
      return kNr * sizeof(int32_t);
    case kSignals:
      return kNr * kS * sizeof(int32_t);
  }
  return 0;
}

inline uint32_t ElemBytes(int param) {
  const bool payload =
      param == kInputs0 || param == kInputs1 || param == kOutputs0 || param == kOutputs1;
  return payload ? sizeof(Elem) : sizeof(int32_t);
}

// What every Out param holds before the run: a device writes only its own
// row, so the others must keep this.
constexpr uint8_t kOutInit = 0xA5;

using Counts = ref::PerRank<int32_t>;  // [rank][dest]

struct Outcome {
  RunReport report;
  // [param][device]: the whole param as device d holds it after the run.
  std::vector<std::vector<std::string>> params;
};

// The row of `param` that device r owns, as T.
template <typename T>
inline std::vector<T> RowOf(const Outcome& out, int param, int r) {
  const std::string& bytes = out.params[param][r];
  std::vector<T> v(RowBytes(param) / sizeof(T));
  if (bytes.size() < (r + 1) * RowBytes(param)) return {};
  std::memcpy(v.data(), bytes.data() + r * RowBytes(param), RowBytes(param));
  return v;
}

// Runs the program with `counts[k]` and round-k payloads for call k.
inline Outcome RunProgram(const Counts (&counts)[2]) {
  Outcome out;
  out.params.assign(kNumParams, std::vector<std::string>(kNr));
  std::vector<std::vector<rt::Tensor>> params(kNumParams);
  SimOptions o = testing::Opts(kNr);
  o.trace = false;
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        for (int d = 0; d < kNr; ++d) {
          for (int p = 0; p < kNumParams; ++p) {
            const uint64_t bytes = kNr * RowBytes(p);
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, absl::StrCat("param", p));
            if (!t.ok()) return t.status();
            t->elem_bytes = ElemBytes(p);
            std::string init(bytes, static_cast<char>(kOutInit));
            for (int r = 0; r < kNr; ++r) {
              // Device d's copy of an input param holds every rank's row;
              // only row d is read.
              std::string row;
              if (p == kInputs0 || p == kInputs1) {
                const std::vector<Elem> in =
                    ref::PayloadInput<Elem>(p == kInputs0 ? 0 : 1, r, kNr, kMaxRecv, kSize);
                row.assign(reinterpret_cast<const char*>(in.data()), RowBytes(p));
              } else if (p == kCounts0 || p == kCounts1) {
                const std::vector<int32_t>& c = counts[p == kCounts0 ? 0 : 1][r];
                row.assign(reinterpret_cast<const char*>(c.data()), RowBytes(p));
              }
              if (!row.empty()) init.replace(r * RowBytes(p), RowBytes(p), row);
            }
            if (absl::Status st = sys.CopyTo(*t, init.data(), bytes); !st.ok()) return st;
            params[p].push_back(*t);
          }
        }
        return generated::RunHost(sys, params);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int p = 0; p < kNumParams; ++p) {
          for (int d = 0; d < static_cast<int>(params[p].size()); ++d) {
            std::string bytes(params[p][d].bytes, '\0');
            if (sys.CopyFrom(bytes.data(), params[p][d], bytes.size()).ok()) {
              (*r.mutable_outputs())[absl::StrCat("param", p, "@", d)] = bytes;
            }
          }
        }
      });
  for (int p = 0; p < kNumParams; ++p) {
    for (int d = 0; d < kNr; ++d) {
      auto it = out.report.outputs().find(absl::StrCat("param", p, "@", d));
      if (it != out.report.outputs().end()) out.params[p][d] = it->second;
    }
  }
  return out;
}

// The line the HOST rail's builtin entry logs before it submits the kernel
// (runtime/builtins/all_to_all_v/entry.cpp.in, spec §4.9), as RunReport.log
// tags it: chip `chip` in its chip dispatch `run`, launching `b` blocks.
inline std::string EntryLogLine(int chip, int run, int64_t b) {
  return absl::StrCat("c", chip, " run", run, ": builtin.tensor.all_to_all_v__",
                      A2AV_INT8 ? "int8" : "fp32", ": rank=", chip, " requested_core_num=", kL,
                      " launched_core_num=", b, " active_lanes=", std::min<int64_t>(b, kS),
                      " nranks=", kNr);
}

// The lines of `report.log` that report a launch width (any entry's).
inline std::vector<std::string> EntryLogLines(const RunReport& report) {
  std::vector<std::string> lines;
  for (const std::string& line : report.log()) {
    if (absl::StrContains(line, "requested_core_num=")) lines.push_back(line);
  }
  return lines;
}

// The second call: a ragged mix with round-distinct payloads, so rows of the
// first call that the second does not overwrite must survive.
inline Counts SecondCall() {
  Counts c = ref::SkewCounts(ref::Skew::kOneAndFull, kNr, kMaxRecv);
  for (int r = 0; r < kNr; ++r) c[r][(r + 1) % kNr] = 2;
  return c;
}

}  // namespace pto::sim::system_test

#endif  // PTO_TESTING_SYSTEM_ALL_TO_ALL_V_PROGRAM_H_
