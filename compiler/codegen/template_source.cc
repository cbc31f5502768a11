#include "compiler/codegen/template_source.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "compiler/support/strings.h"

namespace pto::codegen {

absl::StatusOr<std::string> BuiltinPackageName(std::string_view handle) {
  if (handle.empty() || handle[0] != ':') {
    return absl::InvalidArgumentError(pto::StrCat("builtin template_dir '", handle,
                                                  "' must be a package handle starting with ':'"));
  }
  constexpr std::string_view prefix = kBuiltinPackagePrefix;
  if (handle.substr(0, prefix.size()) != prefix) {
    return absl::InvalidArgumentError(pto::StrCat("builtin template_dir '", handle,
                                                  "' is not a builtin package (expected '", prefix,
                                                  "<name>')"));
  }
  std::string_view name = handle.substr(prefix.size());
  bool ok = !name.empty();
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        pto::StrCat("builtin template_dir '", handle, "' must name a package of [A-Za-z0-9_]"));
  }
  return std::string(name);
}

absl::StatusOr<TemplateFiles> DirectoryTemplateSource::Load(std::string_view handle) const {
  absl::StatusOr<std::string> name = BuiltinPackageName(handle);
  if (!name.ok()) return name.status();
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(root_) / *name;
  TemplateFiles files;
  std::error_code ec;
  // A missing directory reads as an empty package: both are "no templates".
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".in" || !fs::is_regular_file(p)) continue;
    std::ifstream in(p, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      return absl::UnavailableError(pto::StrCat("cannot read template ", p.string()));
    }
    files[p.filename().string()] = text.str();
  }
  if (files.empty()) {
    return absl::NotFoundError(pto::StrCat("builtin template package '", handle,
                                           "' has no templates (no *.in file in ", dir.string(),
                                           ")"));
  }
  return files;
}

absl::StatusOr<TemplateFiles> MapTemplateSource::Load(std::string_view handle) const {
  absl::StatusOr<std::string> name = BuiltinPackageName(handle);
  if (!name.ok()) return name.status();
  auto it = packages_.find(*name);
  if (it == packages_.end() || it->second.empty()) {
    return absl::NotFoundError(
        pto::StrCat("builtin template package '", handle, "' has no templates"));
  }
  return it->second;
}

}  // namespace pto::codegen
