#include "tools/golden/golden_file.h"

#include <google/protobuf/text_format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tools/golden/sha256.h"
#include "common/npy.h"

namespace pto::golden {
namespace fs = std::filesystem;

namespace {

std::string Stem(const std::string& path) {
  const std::string ext = ".textproto";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
    return path.substr(0, path.size() - ext.size());
  }
  return path;
}

// A file-name-safe spelling of an output name ("x@0" stays; '/' does not).
std::string FileSafe(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '@' || c == '_' || c == '-')) c = '_';
  }
  return s;
}

}  // namespace

absl::StatusOr<Golden> ReadGoldenFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot read golden '", path, "'"));
  std::stringstream text;
  text << f.rdbuf();
  Golden g;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &g)) {
    return absl::InvalidArgumentError(
        absl::StrCat("golden '", path, "' is not protobuf text of pto.golden.Golden"));
  }
  const fs::path dir = fs::path(path).parent_path();
  for (Output& o : *g.mutable_outputs()) {
    if (o.data_case() == Output::kInlineData && Sha256Hex(o.inline_data()) != o.sha256()) {
      return absl::InvalidArgumentError(absl::StrCat("golden '", path, "', output '", o.name(),
                                                     "': inline_data does not match its sha256"));
    }
    if (o.data_case() != Output::kNpyFile) continue;
    const std::string npy_path = (dir / o.npy_file()).string();
    absl::StatusOr<tools::npy::Array> a = tools::npy::ReadFile(npy_path);
    if (!a.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("golden '", path, "', output '", o.name(), "': ", a.status().message()));
    }
    bool same_shape = a->shape.size() == static_cast<size_t>(o.shape_size());
    for (int k = 0; same_shape && k < o.shape_size(); ++k) {
      same_shape = static_cast<uint64_t>(a->shape[k]) == o.shape(k);
    }
    if (a->descr != o.dtype() || !same_shape) {
      return absl::InvalidArgumentError(absl::StrCat("golden '", path, "', output '", o.name(),
                                                     "': ", npy_path,
                                                     " has another dtype or shape than the golden"));
    }
    if (Sha256Hex(a->data) != o.sha256()) {
      return absl::InvalidArgumentError(absl::StrCat("golden '", path, "', output '", o.name(),
                                                     "': ", npy_path, " does not match its sha256"));
    }
    o.set_inline_data(std::move(a->data));
  }
  return g;
}

absl::Status WriteGoldenFile(const std::string& path, const Golden& golden,
                             uint64_t inline_limit) {
  Golden g = golden;
  for (Output& o : *g.mutable_outputs()) {
    if (o.data_case() != Output::kInlineData || o.inline_data().size() <= inline_limit) continue;
    const std::string npy_path = absl::StrCat(Stem(path), ".", FileSafe(o.name()), ".npy");
    tools::npy::Array a;
    a.descr = o.dtype();
    for (uint64_t d : o.shape()) a.shape.push_back(static_cast<int64_t>(d));
    a.data = o.inline_data();
    if (absl::Status s = tools::npy::WriteFile(npy_path, a); !s.ok()) return s;
    o.set_npy_file(fs::path(npy_path).filename().string());
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(g, &text);
  std::ofstream f(path, std::ios::binary);
  f << "# proto-file: tools/golden/golden.proto\n"
       "# proto-message: pto.golden.Golden\n"
    << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write golden '", path, "'"));
  return absl::OkStatus();
}

}  // namespace pto::golden
