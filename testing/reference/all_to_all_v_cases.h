// The all_to_all_v test cases shared by the kernel-level sim tests beside
// the builtins (runtime/builtins/all_to_all_v, indexed_all_to_all_v) and the
// compiled-program system tests (testing/system): the skew matrix of the L2 ST (spec §6.2,
// test_l2_tensor_all_to_all_v.py) and a payload pattern, so every rail is
// checked on the same counts and data against one golden.
#ifndef PTO_TESTING_REFERENCE_ALL_TO_ALL_V_CASES_H_
#define PTO_TESTING_REFERENCE_ALL_TO_ALL_V_CASES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace pto::reference {

enum class Skew { kZeroAndFull, kOneAndFull, kOverCapacity, kNegative };

inline constexpr Skew kAllSkews[] = {Skew::kZeroAndFull, Skew::kOneAndFull, Skew::kOverCapacity,
                                     Skew::kNegative};

inline std::string SkewName(Skew s) {
  switch (s) {
    case Skew::kZeroAndFull:
      return "zero_and_full";
    case Skew::kOneAndFull:
      return "one_and_full";
    case Skew::kOverCapacity:
      return "over_capacity";
    case Skew::kNegative:
      return "negative";
  }
  return "?";
}

// So gtest names a skew in failure messages.
inline void PrintTo(Skew s, std::ostream* os) { *os << SkewName(s); }

// send_counts[r][d]: pairs alternate by (r + d) so every rank both sends and
// receives each kind.
inline int32_t SkewCount(Skew s, int r, int d, int32_t max_recv) {
  const bool even = (r + d) % 2 == 0;
  switch (s) {
    case Skew::kZeroAndFull:
      return even ? 0 : max_recv;
    case Skew::kOneAndFull:
      return even ? 1 : max_recv;
    case Skew::kOverCapacity:
      return max_recv + 3;
    case Skew::kNegative:
      return even ? -2 : max_recv;
  }
  return 0;
}

// Every rank's send_counts for skew `s`: [rank][dest].
inline std::vector<std::vector<int32_t>> SkewCounts(Skew s, int p, int32_t max_recv) {
  std::vector<std::vector<int32_t>> counts(p, std::vector<int32_t>(p));
  for (int r = 0; r < p; ++r) {
    for (int d = 0; d < p; ++d) counts[r][d] = SkewCount(s, r, d, max_recv);
  }
  return counts;
}

// Element (row, col) of what rank r sends to rank d in call `round`. Never 0
// (so a missing row differs from the zeroed window) and distinct per call
// round, so a round-2 kernel released by a stale round-1 credit or reading
// stale counts shows up in the data.
template <typename T>
T Payload(int round, int r, int d, int64_t row, int64_t col) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(1 + round * 100000 + r * 10000 + d * 1000 + row * 10 + col % 10) +
           0.25f;
  } else {
    return static_cast<T>(1 + (round * 67 + r * 29 + d * 13 + row * 7 + col) % 250);
  }
}

// Rank r's input of call `round`: [P * max_recv, size], slot d = Payload to d.
template <typename T>
std::vector<T> PayloadInput(int round, int r, int p, int64_t max_recv, int64_t size) {
  std::vector<T> in(p * max_recv * size);
  for (int d = 0; d < p; ++d) {
    for (int64_t row = 0; row < max_recv; ++row) {
      for (int64_t col = 0; col < size; ++col) {
        in[(d * max_recv + row) * size + col] = Payload<T>(round, r, d, row, col);
      }
    }
  }
  return in;
}

}  // namespace pto::reference

#endif  // PTO_TESTING_REFERENCE_ALL_TO_ALL_V_CASES_H_
