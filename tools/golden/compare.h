// Comparing a run's golden with an expected one: identity (program,
// platform, ranks, inputs), data (bit-exact, or rtol/atol per output) and
// timing (a relative tolerance per kernel and for the end-to-end time). The
// report names the first differing element of every output and has a table
// of timing deltas; `pto-golden compare` prints it and scripts use its exit
// status.
#ifndef PTO_TESTING_GOLDEN_COMPARE_H_
#define PTO_TESTING_GOLDEN_COMPARE_H_

#include <map>
#include <string>

#include "tools/golden/golden.pb.h"

namespace pto::golden {

struct CompareOptions {
  // Overrides of the expected golden's tolerances, by output / kernel name;
  // "*" applies to every one without its own entry.
  std::map<std::string, Tolerance> output_tolerance;
  std::map<std::string, double> kernel_tolerance;
  // Overrides the expected golden's sim_time_tolerance when >= 0.
  double sim_time_tolerance = -1;
  // Skip the data or the timing part (e.g. hw against sim: timing only).
  bool data = true;
  bool timing = true;
};

struct CompareResult {
  bool identity_ok = true;
  bool data_ok = true;
  bool timing_ok = true;
  std::string report;  // human-readable, one line per finding and a timing table
  bool ok() const { return identity_ok && data_ok && timing_ok; }
};

CompareResult Compare(const Golden& expected, const Golden& actual,
                      const CompareOptions& options = {});

}  // namespace pto::golden

#endif  // PTO_TESTING_GOLDEN_COMPARE_H_
