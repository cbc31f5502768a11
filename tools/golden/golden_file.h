// Golden files: protobuf text (`pto.golden.Golden`), with outputs above a
// size limit in .npy files beside it, so the text stays readable and diffs
// of a re-recorded golden show timings, not bytes.
#ifndef PTO_TESTING_GOLDEN_GOLDEN_FILE_H_
#define PTO_TESTING_GOLDEN_GOLDEN_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/golden/golden.pb.h"

namespace pto::golden {

// Outputs of at most this many bytes stay inline.
inline constexpr uint64_t kInlineLimitBytes = 4096;

// Reads a golden and loads every npy_file output (relative to the golden's
// directory) into inline_data, checking its dtype, shape and sha256.
absl::StatusOr<Golden> ReadGoldenFile(const std::string& path);

// Writes `golden` to `path`; outputs larger than `inline_limit` go to
// "<path without .textproto>.<output>.npy" and are referenced by npy_file.
absl::Status WriteGoldenFile(const std::string& path, const Golden& golden,
                             uint64_t inline_limit = kInlineLimitBytes);

}  // namespace pto::golden

#endif  // PTO_TESTING_GOLDEN_GOLDEN_FILE_H_
