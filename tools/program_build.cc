#include "tools/program_build.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace pto::tools {
namespace {

namespace fs = std::filesystem;

// pto-run's C entry. entry.cc includes program.cc (which stays
// byte-identical to pto-compile's), so both are one translation unit and the
// headers are read once.
constexpr char kEntryHead[] = R"(// pto-run's C entry into the generated program, one unit with it.
#include "program.cc"

extern "C" void pto_run_entry(pto::rt::Host* host,
                              const std::vector<std::vector<pto::rt::Tensor>>* params,
                              absl::Status* status) {
)";

// The HOST orchestrator runs with every param's per-device copies.
constexpr char kHostBody[] = R"(  *status = pto::generated::RunHost(*host, *params);
}
)";

// A single-chip entry: its CHIP orchestration dispatched once on device 0,
// each param's copy on that device as a tensor argument, in order.
constexpr char kChipBody[] = R"(  const std::map<std::string, pto::rt::ChipCallable> callables = pto::generated::Callables();
  const auto it = callables.find(kChipEntry);
  if (it == callables.end()) {
    *status = absl::NotFoundError(std::string("no chip callable '") + kChipEntry + "'");
    return;
  }
  pto::rt::ChipArgs args;
  for (const std::vector<pto::rt::Tensor>& copies : *params) args.tensors.push_back(copies.at(0));
  *status = host->Dispatch(0, it->second, args);
}
)";

std::string EntrySource(const std::string& chip_entry) {
  if (chip_entry.empty()) return absl::StrCat(kEntryHead, kHostBody);
  return absl::StrCat("// The single-chip entry (tools/single_chip.h).\n"
                      "#define PTO_RUN_CHIP_ENTRY \"", chip_entry, "\"\n", kEntryHead,
                      "  constexpr const char* kChipEntry = PTO_RUN_CHIP_ENTRY;\n", kChipBody);
}

constexpr char kLibs[] = "-labsl_statusor -labsl_status -labsl_strings";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `cmd` and returns its exit status, its output in `*output`.
int RunCommand(const std::string& cmd, std::string* output) {
  std::fflush(nullptr);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) output->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The compiler's identity: the first line of `cxx --version` ("" if none).
std::string CompilerVersion(const std::string& cxx) {
  std::string out;
  if (RunCommand(ShellQuote(cxx) + " --version 2>/dev/null", &out) != 0) return "";
  return out.substr(0, out.find('\n'));
}

absl::Status WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

absl::StatusOr<EntryFn> Load(const fs::path& so) {
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InternalError(absl::StrCat("cannot load ", so.string(), ": ", dlerror()));
  }
  void* sym = dlsym(handle, "pto_run_entry");
  if (sym == nullptr) {
    return absl::InternalError(absl::StrCat("no pto_run_entry in ", so.string(), ": ", dlerror()));
  }
  return reinterpret_cast<EntryFn>(sym);
}

// The precompiled prelude's stamp (//tools:pto_run_prelude): the version line
// of the compiler that built it, then the digest of every header and flag it
// was built from.
struct Stamp {
  std::string compiler;
  std::string digest;
};

std::optional<Stamp> ReadStamp(const fs::path& root) {
  std::optional<std::string> text = ReadFile(root / "tools/pto_run_prelude.stamp");
  if (!text.has_value()) return std::nullopt;
  const size_t nl = text->find('\n');
  if (nl == std::string::npos) return std::nullopt;
  Stamp s{text->substr(0, nl), text->substr(nl + 1)};
  s.digest = std::string(absl::StripTrailingAsciiWhitespace(s.digest));
  return s;
}

// Compiles entry.cc (with program.cc) in `dir` into dir/program.so.
absl::Status Compile(const fs::path& dir, const std::string& program_cc,
                     const std::string& entry_cc, const std::string& command) {
  if (absl::Status s = WriteFile(dir / "program.cc", program_cc); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir / "entry.cc", entry_cc); !s.ok()) return s;
  std::string output;
  const int rc = RunCommand(command, &output);
  if (rc == -1) return absl::InternalError("cannot start the C++ compiler");
  if (rc != 0) {
    return absl::InternalError(absl::StrCat(
        "compiling the generated program failed (internal error; exit status ", rc,
        ")\ncommand: ", command, "\n", output));
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t Fnv1a64(const std::string& data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string DefaultCacheDir() {
  for (const auto& [env, suffix] : {std::pair<const char*, const char*>{"PTO_RUN_CACHE", ""},
                                    {"XDG_CACHE_HOME", "/pto-run"},
                                    {"HOME", "/.cache/pto-run"}}) {
    if (const char* v = std::getenv(env); v != nullptr && *v != '\0') {
      return absl::StrCat(v, suffix);
    }
  }
  return "";
}

absl::StatusOr<EntryFn> BuildAndLoad(const std::string& program_cc, const BuildOptions& options,
                                     BuildInfo* info) {
  BuildInfo local;
  if (info == nullptr) info = &local;
  *info = BuildInfo{};
  const fs::path root(options.root);
  std::optional<std::string> flags_text = ReadFile(root / "tools/pto_run_cxxflags.txt");
  if (!flags_text.has_value()) {
    return absl::InternalError(
        absl::StrCat("cannot read ", (root / "tools/pto_run_cxxflags.txt").string()));
  }
  const std::string flags(absl::StripTrailingAsciiWhitespace(*flags_text));
  const std::string entry_cc = EntrySource(options.chip_entry);

  // The precompiled prelude is used only with the compiler that built it;
  // any other compiler reads the headers as text.
  const std::optional<Stamp> stamp = ReadStamp(root);
  const std::string version = CompilerVersion(options.cxx);
  const fs::path prelude = root / "tools/pto_run_prelude.h";
  info->used_pch = stamp.has_value() && !version.empty() && version == stamp->compiler &&
                   fs::exists(root / "tools/pto_run_prelude.h.gch");

  // -DNDEBUG (in the flags) as the Bazel -c opt build of pto-run, so inline
  // runtime code is the same on both sides.
  const auto command_in = [&](const fs::path& dir) {
    return absl::StrCat(ShellQuote(options.cxx), " ", flags, " -shared",
                        info->used_pch ? " -include " + ShellQuote(prelude.string()) : "",
                        " -I", ShellQuote(options.root), " -o ",
                        ShellQuote((dir / "program.so").string()), " ",
                        ShellQuote((dir / "entry.cc").string()), " ", kLibs, " 2>&1");
  };

  if (!options.keep_dir.empty()) {
    const fs::path dir(options.keep_dir);
    info->command = command_in(dir);
    if (absl::Status s = Compile(dir, program_cc, entry_cc, info->command); !s.ok()) return s;
    return Load(dir / "program.so");
  }

  // The cache key covers everything the object depends on: the source, the
  // entry, the compiler and its flags, and the headers (the stamp's digest).
  // Without a stamp the headers are unknown, so nothing is cached.
  std::string cache_dir = stamp.has_value() ? options.cache_dir : "";
  fs::path entry_dir;
  if (!cache_dir.empty()) {
    uint64_t h = Fnv1a64(program_cc);
    for (const std::string& part :
         {entry_cc, options.cxx, flags, version, stamp->compiler, stamp->digest,
          std::string(info->used_pch ? "pch" : "text")}) {
      h = Fnv1a64(part, h ^ part.size());
    }
    entry_dir = fs::path(cache_dir) / absl::StrFormat("%016x", h);
    // A hit needs the same source too, so a hash collision only rebuilds.
    if (fs::exists(entry_dir / "program.so") &&
        ReadFile(entry_dir / "program.cc") == std::optional<std::string>(program_cc)) {
      info->cache_hit = true;
      return Load(entry_dir / "program.so");
    }
    std::error_code ec;
    fs::create_directories(cache_dir, ec);
    if (ec) cache_dir.clear();  // an unusable cache only costs speed
  }

  // Build in a fresh directory (inside the cache, so the finished entry is
  // published by one rename and no reader sees half of it).
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = cache_dir.empty()
                         ? std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                               "/pto-run.XXXXXX"
                         : cache_dir + "/.build.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError("cannot create a temporary directory");
  }
  const fs::path build_dir(tmpl);
  info->command = command_in(build_dir);
  absl::Status built = Compile(build_dir, program_cc, entry_cc, info->command);
  absl::StatusOr<EntryFn> entry = built.ok() ? Load(build_dir / "program.so") : built;
  std::error_code ec;
  if (entry.ok() && !cache_dir.empty()) {
    fs::remove_all(entry_dir, ec);  // a stale entry (collision or partial)
    fs::rename(build_dir, entry_dir, ec);
    if (!ec) return entry;  // the loaded object stays mapped
  }
  fs::remove_all(build_dir, ec);
  return entry;
}

}  // namespace pto::tools
