// Where the builtin kernel templates come from (docs/codegen.md).
// compiler/ may not depend on runtime/ code (docs/architecture.md, "Dependency rules"), so the
// templates of runtime/builtins/<name>/ reach codegen as data: a
// TemplateSource maps a package handle to the package's *.in files.
#ifndef PTO_COMPILER_CODEGEN_TEMPLATE_SOURCE_H_
#define PTO_COMPILER_CODEGEN_TEMPLATE_SOURCE_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pto::codegen {

// The handle prefix of every builtin package; the rest names the directory
// runtime/builtins/<name>/.
inline constexpr char kBuiltinPackagePrefix[] = ":pypto.runtime.builtins.collectives.";

// File name (e.g. "kernel.cpp.in") -> text, sorted by name.
using TemplateFiles = std::map<std::string, std::string, std::less<>>;

// The directory name of a package handle. InvalidArgument for a handle not
// starting with ':' (§4.11), one outside kBuiltinPackagePrefix, or a name
// that is not a run of [A-Za-z0-9_] (it becomes a path component).
absl::StatusOr<std::string> BuiltinPackageName(std::string_view handle);

class TemplateSource {
 public:
  virtual ~TemplateSource() = default;
  // The *.in files of the package `handle` names. InvalidArgument for a bad
  // handle, NotFound for a package without templates.
  virtual absl::StatusOr<TemplateFiles> Load(std::string_view handle) const = 0;
};

// Reads <root>/<name>/*.in at run time, e.g. root = "<workspace>/runtime/builtins".
class DirectoryTemplateSource : public TemplateSource {
 public:
  explicit DirectoryTemplateSource(std::string root) : root_(std::move(root)) {}
  absl::StatusOr<TemplateFiles> Load(std::string_view handle) const override;

 private:
  std::string root_;
};

// Packages held in memory, by directory name.
class MapTemplateSource : public TemplateSource {
 public:
  explicit MapTemplateSource(std::map<std::string, TemplateFiles, std::less<>> packages)
      : packages_(std::move(packages)) {}
  absl::StatusOr<TemplateFiles> Load(std::string_view handle) const override;

 private:
  std::map<std::string, TemplateFiles, std::less<>> packages_;
};

}  // namespace pto::codegen

#endif  // PTO_COMPILER_CODEGEN_TEMPLATE_SOURCE_H_
