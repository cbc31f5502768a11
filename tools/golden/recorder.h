// Recording a golden from a run: the program's identity, its inputs'
// digest, its outputs and the per-task / per-kernel timings of its
// RunReport (sim/trace/report.proto). The recorder is a library so pto-run
// (--record-golden), tests and the device-farm runner record goldens the
// same way.
#ifndef PTO_TESTING_GOLDEN_RECORDER_H_
#define PTO_TESTING_GOLDEN_RECORDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "platforms/platform.pb.h"
#include "sim/trace/report.pb.h"
#include "tools/golden/golden.pb.h"

namespace pto::golden {

// One array of a run: an input or an output.
struct Array {
  std::string name;
  std::string dtype;             // NumPy descr ("<f4", "|i1", ...)
  std::vector<uint64_t> shape;
  std::string bytes;             // C order, little-endian
};

struct RunInfo {
  std::string program;
  std::string platform;
  int ranks = 0;
  std::string backend = "sim";
  std::string recorder;          // e.g. "pto-run", a test's name
  std::string command;           // how to record it again
  std::string device;            // hw runs: the device and toolkit
  // The facts a sim run used when they are not the built-in platform's
  // (a test platform); its digest goes into the provenance.
  const platforms::Platform* facts = nullptr;
};

// The golden of a run. Fails when an output's byte count does not match its
// dtype and shape. Outputs are kept in the order given, their data inline;
// WriteGoldenFile moves large ones to .npy files.
absl::StatusOr<Golden> RecordGolden(const RunInfo& info, const std::vector<Array>& inputs,
                                    const sim::RunReport& report,
                                    const std::vector<Array>& outputs);

// The digest of `inputs`: SHA-256 over each name, dtype, shape and bytes,
// in name order (so the order of the list does not matter).
std::string InputsDigest(const std::vector<Array>& inputs);

// Per-kernel sums of `report`'s tasks, by kernel name.
std::vector<KernelTiming> KernelTimings(const sim::RunReport& report);

}  // namespace pto::golden

#endif  // PTO_TESTING_GOLDEN_RECORDER_H_
