// pto-run's build of a generated program (docs/pto-run.md): one translation
// unit compiled with the system C++ compiler against the precompiled prelude
// (pto_run_prelude.h), loaded with dlopen, and cached by content hash so a
// program run again is not compiled again.
#ifndef PTO_TOOLS_PROGRAM_BUILD_H_
#define PTO_TOOLS_PROGRAM_BUILD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/api/host.h"

namespace pto::tools {

// The C entry pto-run calls in the loaded program.
using EntryFn = void (*)(pto::rt::Host*, const std::vector<std::vector<pto::rt::Tensor>>*,
                         absl::Status*);

struct BuildOptions {
  // The runfiles root: runtime headers, builtin templates, the prelude, its
  // precompiled form and pto_run_cxxflags.txt.
  std::string root;
  // The C++ compiler (a command name or a path).
  std::string cxx;
  // Build here and keep program.cc, entry.cc and program.so (no cache);
  // empty: a temporary directory, removed after loading.
  std::string keep_dir;
  // The cache of built programs; empty: none.
  std::string cache_dir;
  // Empty: the entry runs the HOST orchestrator (RunHost). Else the name of
  // the CHIP orchestration the entry dispatches once on device 0, the params'
  // device-0 copies as its tensor args (single-chip mode, tools/single_chip.h).
  std::string chip_entry;
};

// What BuildAndLoad did, for tests and --progress.
struct BuildInfo {
  bool cache_hit = false;
  bool used_pch = false;
  std::string command;  // the compiler command; empty on a cache hit
};

// Builds `program_cc` (pto-compile's single file) with pto-run's C entry and
// returns the loaded entry. The object stays loaded for the process.
absl::StatusOr<EntryFn> BuildAndLoad(const std::string& program_cc, const BuildOptions& options,
                                     BuildInfo* info = nullptr);

// The default cache directory: $PTO_RUN_CACHE, else $XDG_CACHE_HOME/pto-run,
// else $HOME/.cache/pto-run; empty when none of them is set.
std::string DefaultCacheDir();

// 64-bit FNV-1a of `data`, continued from `seed`: the cache key. Stable
// across runs and machines (absl::Hash is not).
uint64_t Fnv1a64(const std::string& data, uint64_t seed = 14695981039346656037ull);

}  // namespace pto::tools

#endif  // PTO_TOOLS_PROGRAM_BUILD_H_
