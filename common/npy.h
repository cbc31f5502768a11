// NumPy .npy files (format versions 1.0 to 3.0 read, 1.0 written): what
// pto-run reads its inputs from and writes its outputs to. Only C-order
// arrays of little-endian (or single-byte) numeric types; anything else is a
// clear error rather than a silent reinterpretation.
#ifndef PTO_TOOLS_NPY_H_
#define PTO_TOOLS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace pto::tools::npy {

struct Array {
  // NumPy's type string, canonical: "<f4", "<i4", "|i1", "|b1", "<f2", ...
  // ('|' for single-byte types, '<' otherwise); raw bytes "|V2" (no order).
  std::string descr;
  std::vector<int64_t> shape;  // () is a scalar
  std::string data;            // C order, little-endian
};

// Bytes per element of a canonical or NumPy type string ("<f4" -> 4); an
// error for anything but b/i/u/f/V kinds.
absl::StatusOr<int> ItemSize(const std::string& descr);

// `descr` with '=' / '<' / '|' normalised to the canonical byte-order mark;
// big-endian multi-byte types are an error.
absl::StatusOr<std::string> CanonicalDescr(const std::string& descr);

// Elements of `shape` (1 for a scalar).
int64_t NumElements(const std::vector<int64_t>& shape);

// Bytes of an array of `shape` with `item`-byte elements; an error for a
// negative dimension or a size beyond 2^62 bytes (so no later product
// overflows).
absl::StatusOr<int64_t> NumBytes(const std::vector<int64_t>& shape, int item);

// "(2, 3)", "(4,)", "()": the Python spelling NumPy writes and messages use.
std::string ShapeString(const std::vector<int64_t>& shape);

// Parses a whole .npy file. Rejects a bad magic or version, a malformed
// header, fortran_order=True and a data size that does not match the shape.
absl::StatusOr<Array> Parse(const std::string& bytes);

// Format 1.0, header padded so the data starts at a multiple of 64 bytes.
// The array must be consistent (descr canonical, data size = shape).
absl::StatusOr<std::string> Serialize(const Array& array);

absl::StatusOr<Array> ReadFile(const std::string& path);
absl::Status WriteFile(const std::string& path, const Array& array);

}  // namespace pto::tools::npy

#endif  // PTO_TOOLS_NPY_H_
