#include "runtime/core/domain.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace pto::rt {

absl::StatusOr<DomainLayout> LayOutDomain(const DomainSpec& spec,
                                          int device_count) {
  const size_t n = spec.devices.size();
  if (n == 0 || n > static_cast<size_t>(kCommMaxDomainRanks)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "domain '", spec.name, "' needs 1..", kCommMaxDomainRanks,
        " devices (the CommContext rank table), got ", n));
  }
  std::set<int> seen;
  for (int d : spec.devices) {
    if (d < 0 || d >= device_count) {
      return absl::InvalidArgumentError(
          absl::StrCat("domain '", spec.name, "': device ", d,
                       " out of range [0, ", device_count, ")"));
    }
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "domain '", spec.name, "' lists device ", d, " twice"));
    }
  }
  DomainLayout layout;
  std::set<std::string> names;
  uint64_t off = 0;
  for (const CommBufferSpec& b : spec.buffers) {
    if (b.name.empty() || !names.insert(b.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("domain '", spec.name,
                       "': buffer names must be unique and non-empty"));
    }
    off = (off + kCommBufferAlignmentBytes - 1) / kCommBufferAlignmentBytes *
          kCommBufferAlignmentBytes;
    layout.buffer_offsets.push_back(off);
    off += b.bytes;
  }
  if (spec.window_size == 0 || off > spec.window_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("domain '", spec.name, "': buffers need ", off,
                     " bytes but window_size is ", spec.window_size));
  }
  layout.used_bytes = off;
  return layout;
}

void FillCommContext(CommContext* ctx, uint32_t rank,
                     const std::vector<uint64_t>& windows,
                     uint64_t window_size) {
  ctx->workSpace = 0;
  ctx->workSpaceSize = 0;
  ctx->rankId = rank;
  ctx->rankNum = static_cast<uint32_t>(windows.size());
  ctx->winSize = window_size;
  uint64_t* in = CommWindowsIn(ctx);
  uint64_t* out = CommWindowsOut(ctx);
  for (size_t i = 0; i < windows.size(); ++i) {
    in[i] = windows[i];
    out[i] = windows[i];  // no separate out set (as simpler's sim)
  }
}

}  // namespace pto::rt
