#include "common/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"

namespace pto::tools::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// A value of the header dict: a string, a bool or a tuple of ints.
struct Value {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints;
};

// The header is a Python dict literal; NumPy writes only strings, bools and
// tuples of ints in it, so that is all this accepts.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  absl::StatusOr<std::map<std::string, Value>> Dict() {
    std::map<std::string, Value> out;
    Skip();
    if (!Eat('{')) return Error("expected '{'");
    while (true) {
      Skip();
      if (Eat('}')) break;
      absl::StatusOr<std::string> key = String();
      if (!key.ok()) return key.status();
      Skip();
      if (!Eat(':')) return Error("expected ':'");
      absl::StatusOr<Value> v = ParseValue();
      if (!v.ok()) return v.status();
      if (!out.emplace(*key, *v).second) return Error(absl::StrCat("duplicate key '", *key, "'"));
      Skip();
      if (Eat(',')) continue;
      Skip();
      if (Eat('}')) break;
      return Error("expected ',' or '}'");
    }
    Skip();
    if (pos_ != s_.size()) return Error("trailing characters after the dict");
    return out;
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed .npy header at offset ", pos_, ": ", what));
  }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool EatWord(const char* w) {
    const size_t n = std::strlen(w);
    if (s_.compare(pos_, n, w) != 0) return false;
    pos_ += n;
    return true;
  }
  absl::StatusOr<std::string> String() {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    const char q = s_[pos_++];
    const size_t end = s_.find(q, pos_);
    if (end == std::string::npos) return Error("unterminated string");
    std::string out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  absl::StatusOr<int64_t> Int() {
    const size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start || pos_ - start > 18) return Error("expected a dimension");
    int64_t v = std::stoll(s_.substr(start, pos_ - start));
    // Python 2 era files may write 3L.
    Eat('L');
    return v;
  }
  absl::StatusOr<Value> ParseValue() {
    Skip();
    Value v;
    if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) {
      absl::StatusOr<std::string> str = String();
      if (!str.ok()) return str.status();
      v.str = *str;
      return v;
    }
    if (EatWord("True")) {
      v.kind = Value::kBool;
      v.boolean = true;
      return v;
    }
    if (EatWord("False")) {
      v.kind = Value::kBool;
      return v;
    }
    if (!Eat('(')) return Error("expected a string, True, False or a tuple");
    v.kind = Value::kTuple;
    while (true) {
      Skip();
      if (Eat(')')) break;
      absl::StatusOr<int64_t> n = Int();
      if (!n.ok()) return n.status();
      v.ints.push_back(*n);
      Skip();
      if (Eat(',')) continue;
      Skip();
      if (Eat(')')) break;
      return Error("expected ',' or ')' in the shape");
    }
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::string> CanonicalDescr(const std::string& descr) {
  if (descr.size() < 3 || std::string("<>|=").find(descr[0]) == std::string::npos ||
      std::string("biufV").find(descr[1]) == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported .npy dtype '", descr, "' (numeric b/i/u/f types and raw V bytes only)"));
  }
  const std::string digits = descr.substr(2);
  // Item sizes are 1..8; a longer run of digits would overflow std::stoi
  // (found by testing/fuzz:npy_fuzzer).
  if (digits.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "'"));
  }
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "'"));
    }
  }
  const int size = std::stoi(digits);
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy dtype '", descr, "'"));
  }
  // Raw bytes (NumPy's void, what np.save writes for an ml_dtypes.bfloat16
  // array) have no byte order.
  if (descr[1] == 'V') return absl::StrCat("|V", size);
  if (size > 1 && descr[0] == '>') {
    return absl::InvalidArgumentError(
        absl::StrCat("big-endian .npy dtype '", descr, "' is not supported"));
  }
  return absl::StrCat(size == 1 ? "|" : "<", descr.substr(1, 1), size);
}

absl::StatusOr<int> ItemSize(const std::string& descr) {
  absl::StatusOr<std::string> c = CanonicalDescr(descr);
  if (!c.ok()) return c.status();
  return std::stoi(c->substr(2));
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::StatusOr<int64_t> NumBytes(const std::vector<int64_t>& shape, int item) {
  constexpr int64_t kMax = int64_t{1} << 62;
  int64_t n = item;
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeString(shape), " has a negative dimension"));
    }
    if (d != 0 && n > kMax / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeString(shape), " is too large (more than 2^62 bytes)"));
    }
    n *= d;
  }
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&s, i ? ", " : "", shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

absl::StatusOr<Array> Parse(const std::string& bytes) {
  if (bytes.size() < kMagicLen + 4 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    return absl::InvalidArgumentError("not a .npy file (bad magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported .npy format version ", major, ".", minor));
  }
  size_t header_len = 0;
  size_t prefix = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    prefix = 10;
  } else {
    if (bytes.size() < 12) return absl::InvalidArgumentError("truncated .npy header");
    for (int i = 3; i >= 0; --i) {
      header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    }
    prefix = 12;
  }
  if (bytes.size() < prefix + header_len) {
    return absl::InvalidArgumentError("truncated .npy header");
  }
  const std::string header = bytes.substr(prefix, header_len);
  absl::StatusOr<std::map<std::string, Value>> dict = HeaderParser(header).Dict();
  if (!dict.ok()) return dict.status();
  auto get = [&](const char* key, Value::Kind kind) -> absl::StatusOr<Value> {
    auto it = dict->find(key);
    if (it == dict->end()) {
      return absl::InvalidArgumentError(absl::StrCat(".npy header has no '", key, "'"));
    }
    if (it->second.kind != kind) {
      return absl::InvalidArgumentError(absl::StrCat(".npy header: bad value for '", key, "'"));
    }
    return it->second;
  };
  absl::StatusOr<Value> descr = get("descr", Value::kString);
  if (!descr.ok()) return descr.status();
  absl::StatusOr<Value> fortran = get("fortran_order", Value::kBool);
  if (!fortran.ok()) return fortran.status();
  absl::StatusOr<Value> shape = get("shape", Value::kTuple);
  if (!shape.ok()) return shape.status();
  if (dict->size() != 3) return absl::InvalidArgumentError(".npy header has unknown keys");
  if (fortran->boolean) {
    return absl::InvalidArgumentError(
        "fortran_order=True .npy files are not supported (save a C-order array)");
  }
  Array a;
  absl::StatusOr<std::string> canonical = CanonicalDescr(descr->str);
  if (!canonical.ok()) return canonical.status();
  a.descr = *canonical;
  a.shape = shape->ints;
  const int item = std::stoi(a.descr.substr(2));
  absl::StatusOr<int64_t> size = NumBytes(a.shape, item);
  if (!size.ok()) return absl::InvalidArgumentError(absl::StrCat(".npy header: ", size.status().message()));
  const size_t want = static_cast<size_t>(*size);
  const size_t have = bytes.size() - prefix - header_len;
  if (have != want) {
    return absl::InvalidArgumentError(absl::StrCat(".npy data is ", have, " bytes, but shape ",
                                                   ShapeString(a.shape), " of '", a.descr,
                                                   "' needs ", want));
  }
  a.data = bytes.substr(prefix + header_len);
  return a;
}

absl::StatusOr<std::string> Serialize(const Array& array) {
  absl::StatusOr<std::string> canonical = CanonicalDescr(array.descr);
  if (!canonical.ok()) return canonical.status();
  const size_t want =
      static_cast<size_t>(NumElements(array.shape)) * std::stoi(canonical->substr(2));
  if (array.data.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat("array data is ", array.data.size(),
                                                   " bytes, shape ", ShapeString(array.shape),
                                                   " needs ", want));
  }
  std::string header =
      absl::StrCat("{'descr': '", *canonical,
                   "', 'fortran_order': False, 'shape': ", ShapeString(array.shape), ", }");
  // Pad with spaces and end with '\n' so the data is 64-byte aligned, as
  // NumPy does.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535) return absl::InvalidArgumentError(".npy header too long for v1.0");
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out += array.data;
  return out;
}

absl::StatusOr<Array> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<Array> a = Parse(bytes);
  if (!a.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", a.status().message()));
  return a;
}

absl::Status WriteFile(const std::string& path, const Array& array) {
  absl::StatusOr<std::string> bytes = Serialize(array);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary);
  out << *bytes;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace pto::tools::npy
