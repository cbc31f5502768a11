// The set-up the builtin collectives' simulator tests share
// (all_to_all_v/*_sim_test.cc, indexed_all_to_all_v/*_sim_test.cc): the comm
// domain's window, its buffers as typed kernel tensors, and the outputs read
// back rank by rank.
#ifndef PTO_RUNTIME_BUILTINS_COLLECTIVE_SIM_TEST_UTIL_H_
#define PTO_RUNTIME_BUILTINS_COLLECTIVE_SIM_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "gtest/gtest.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"
#include "testing/reference/collectives.h"

namespace pto::sim::collective_test {

// The window the HOST codegen gives `spec`'s buffers: the sum of their
// 32-byte-rounded slots (collectives.md §1.6).
inline uint64_t WindowBytes(const rt::DomainSpec& spec) {
  uint64_t bytes = 0;
  for (const rt::CommBufferSpec& b : spec.buffers) bytes += (b.bytes + 31) / 32 * 32;
  return bytes;
}

// Window buffer `name` of rank `r` as a kernel tensor of `elem`-byte elements.
inline rt::Tensor WindowTensor(const rt::Domain& dom, int r, const std::string& name,
                               uint32_t elem) {
  rt::Tensor t = dom.ranks[r].buffers.at(name);
  t.elem_bytes = elem;
  return t;
}

// Captures each rank's `tensors` (name -> tensor) as "<name>@<rank>".
template <typename Map>
void CaptureRanks(SimSystem& sys, const std::vector<Map>& tensors, RunReport& report) {
  for (size_t rk = 0; rk < tensors.size(); ++rk) {
    for (const auto& [name, t] : tensors[rk]) {
      testing::CaptureOutput(sys, t, absl::StrCat(name, "@", rk), report);
    }
  }
}

// Every rank's captured "<name>@<rank>" as elements of E.
template <typename E>
reference::PerRank<E> RankOutputs(const RunReport& report, const std::string& name, int ranks) {
  reference::PerRank<E> out(ranks);
  for (int rk = 0; rk < ranks; ++rk) {
    out[rk] = testing::OutputAs<E>(report, absl::StrCat(name, "@", rk));
  }
  return out;
}

// Per-rank bytes reinterpreted as elements of T.
template <typename T>
reference::PerRank<T> AsPerRank(const reference::PerRank<uint8_t>& bytes) {
  reference::PerRank<T> out(bytes.size());
  for (size_t r = 0; r < bytes.size(); ++r) {
    out[r].resize(bytes[r].size() / sizeof(T));
    std::memcpy(out[r].data(), bytes[r].data(), out[r].size() * sizeof(T));
  }
  return out;
}

// What a run of consecutive calls on one target and signal leaves, rank by
// rank, captured as "target", "signal", "recv_counts<k>" and "seen<k>" (what
// call k's consumer task copied out of the target).
struct CallsOutcome {
  RunReport report;
  reference::PerRank<uint8_t> target_bytes;
  std::vector<reference::PerRank<uint8_t>> seen_bytes;   // [call][rank]
  std::vector<reference::PerRank<int32_t>> recv_counts;  // [call][rank][src]
  reference::PerRank<int32_t> signal;
};

// Fills `out` from its report's captured outputs.
inline void ReadCallOutputs(int ranks, size_t calls, CallsOutcome* out) {
  out->target_bytes = RankOutputs<uint8_t>(out->report, "target", ranks);
  out->signal = RankOutputs<int32_t>(out->report, "signal", ranks);
  out->recv_counts.clear();
  out->seen_bytes.clear();
  for (size_t k = 0; k < calls; ++k) {
    out->recv_counts.push_back(
        RankOutputs<int32_t>(out->report, absl::StrCat("recv_counts", k), ranks));
    out->seen_bytes.push_back(RankOutputs<uint8_t>(out->report, absl::StrCat("seen", k), ranks));
  }
}

// One row of a skew matrix: P ranks, the send-count skew, INT8 or FP32.
struct SkewParam {
  int p;
  reference::Skew skew;
  bool int8;
};

// Every skew of //testing/reference for each of `ranks`, in FP32 and INT8.
inline std::vector<SkewParam> SkewParams(std::initializer_list<int> ranks) {
  std::vector<SkewParam> v;
  for (int p : ranks) {
    for (reference::Skew s : reference::kAllSkews) {
      for (bool int8 : {false, true}) v.push_back({p, s, int8});
    }
  }
  return v;
}

// "P<p>_<skew>_<int8|fp32>", the rows' test names.
inline std::string SkewParamName(const ::testing::TestParamInfo<SkewParam>& i) {
  return absl::StrCat("P", i.param.p, "_", reference::SkewName(i.param.skew), "_",
                      i.param.int8 ? "int8" : "fp32");
}

}  // namespace pto::sim::collective_test

#endif  // PTO_RUNTIME_BUILTINS_COLLECTIVE_SIM_TEST_UTIL_H_
