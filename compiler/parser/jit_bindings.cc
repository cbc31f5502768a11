#include "compiler/parser/jit_bindings.h"

#include <cctype>
#include <charconv>

#include "absl/status/status.h"
#include "compiler/support/strings.h"

namespace pto::parser {
namespace {

std::string_view Strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

absl::Status Bad(std::string_view spec, std::string_view why) {
  return absl::InvalidArgumentError(
      pto::StrCat("bad tensor binding '", spec, "': ", why,
                  " (want NAME=[d0,d1,...]:DTYPE, e.g. a=[128,128]:FP32)"));
}

}  // namespace

absl::Status AddJitBinding(std::string_view spec, JitBindings* out) {
  size_t eq = spec.find('=');
  if (eq == std::string_view::npos) return Bad(spec, "no '='");
  std::string_view name = Strip(spec.substr(0, eq));
  std::string_view rest = Strip(spec.substr(eq + 1));
  std::vector<std::string_view> parts = Split(name, '.');
  if (parts.size() > 2) return Bad(spec, "the name is `param` or `function.param`");
  for (std::string_view p : parts) {
    if (!IsIdentifier(p)) return Bad(spec, pto::StrCat("'", name, "' is not a name"));
  }
  TensorBinding b;
  std::string_view dims = rest;
  if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    dims = Strip(rest.substr(0, colon));
    std::string dt(Strip(rest.substr(colon + 1)));
    for (char& c : dt) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string_view dt_view = dt;
    if (dt_view.substr(0, 3) == "PL.") dt_view.remove_prefix(3);  // pl.FP32 is read too
    std::optional<ir::DataType> parsed = ir::DataTypeFromName(dt_view);
    if (!parsed) return Bad(spec, pto::StrCat("unknown dtype '", dt_view, "'"));
    b.dtype = *parsed;
  }
  if (dims.size() < 2 || dims.front() != '[' || dims.back() != ']') {
    return Bad(spec, "the shape is written in [...]");
  }
  dims = dims.substr(1, dims.size() - 2);
  if (Strip(dims).empty()) return Bad(spec, "the shape has no dimension");
  for (std::string_view d : Split(dims, ',')) {
    d = Strip(d);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (ec != std::errc() || end != d.data() + d.size() || v < 1) {
      return Bad(spec, pto::StrCat("extent '", d, "' is not a positive integer"));
    }
    b.shape.push_back(v);
  }
  if (!out->emplace(std::string(name), std::move(b)).second) {
    return absl::InvalidArgumentError(pto::StrCat("tensor '", name, "' is bound twice"));
  }
  return absl::OkStatus();
}

const TensorBinding* FindJitBinding(const JitBindings& bindings, std::string_view function,
                                    std::string_view param) {
  if (auto it = bindings.find(pto::StrCat(function, ".", param)); it != bindings.end()) {
    return &it->second;
  }
  if (auto it = bindings.find(std::string(param)); it != bindings.end()) return &it->second;
  return nullptr;
}

std::string JitBindingText(const TensorBinding& b) {
  std::string out = "[";
  for (size_t i = 0; i < b.shape.size(); ++i) {
    pto::StrAppend(&out, i ? ", " : "", b.shape[i]);
  }
  pto::StrAppend(&out, "]:", ir::DataTypeName(b.dtype));
  return out;
}

}  // namespace pto::parser
