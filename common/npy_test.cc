#include "common/npy.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto::tools::npy {
namespace {

using ::testing::HasSubstr;

// What `numpy.save` writes for np.arange(6, dtype='<f4').reshape(2, 3).
std::string NumpyFloat23() {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');  // 128: the next multiple of 64
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size());
  out += '\0';
  out += header;
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    out.append(reinterpret_cast<const char*>(&f), 4);
  }
  return out;
}

std::string WithHeader(const std::string& dict, const std::string& data) {
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size());
  out += '\0';
  return out + dict + data;
}

TEST(NpyTest, ParsesWhatNumpyWrites) {
  absl::StatusOr<Array> a = Parse(NumpyFloat23());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->descr, "<f4");
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(a->data.size(), 24u);
  float f5;
  std::memcpy(&f5, a->data.data() + 20, 4);
  EXPECT_EQ(f5, 5.0f);
}

TEST(NpyTest, SerializeWritesNumpysBytes) {
  Array a{"<f4", {2, 3}, std::string()};
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    a.data.append(reinterpret_cast<const char*>(&f), 4);
  }
  absl::StatusOr<std::string> bytes = Serialize(a);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, NumpyFloat23());
  EXPECT_EQ((bytes->size() - 24) % 64, 0u);
}

TEST(NpyTest, RoundTripsEveryShapeAndType) {
  for (const std::string descr : {"<f4", "<f2", "<f8", "<i4", "|i1", "|u1", "<i8", "|b1"}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {7}, {2, 3, 4}, {0, 5}}) {
      Array a{descr, shape, std::string()};
      const int item = *ItemSize(descr);
      for (int64_t i = 0; i < NumElements(shape) * item; ++i) a.data += static_cast<char>(i * 7);
      absl::StatusOr<std::string> bytes = Serialize(a);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      absl::StatusOr<Array> back = Parse(*bytes);
      ASSERT_TRUE(back.ok()) << descr << " " << ShapeString(shape) << ": " << back.status();
      EXPECT_EQ(back->descr, descr);
      EXPECT_EQ(back->shape, shape);
      EXPECT_EQ(back->data, a.data);
    }
  }
}

TEST(NpyTest, FileRoundTrip) {
  const std::string path = ::testing::TempDir() + "/npy_test.npy";
  Array a{"<i4", {3}, std::string("\x01\0\0\0\x02\0\0\0\xff\xff\xff\xff", 12)};
  ASSERT_TRUE(WriteFile(path, a).ok());
  absl::StatusOr<Array> back = ReadFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data, a.data);
  EXPECT_THAT(std::string(ReadFile(path + ".missing").status().message()),
              HasSubstr("cannot read"));
}

TEST(NpyTest, AcceptsNativeAndPipeByteOrderMarks) {
  absl::StatusOr<Array> a = Parse(WithHeader(
      "{'descr': '=i4', 'fortran_order': False, 'shape': (1,)}\n", std::string(4, '\0')));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->descr, "<i4");
  absl::StatusOr<Array> b = Parse(WithHeader(
      "{'descr': '<i1', 'fortran_order': False, 'shape': (2,)}\n", std::string(2, '\0')));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->descr, "|i1");
  // Raw bytes (np.save of an ml_dtypes.bfloat16 array) have no byte order.
  absl::StatusOr<Array> v = Parse(WithHeader(
      "{'descr': '<V2', 'fortran_order': False, 'shape': (2,)}\n", std::string(4, '\0')));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->descr, "|V2");
}

TEST(NpyTest, RejectsFortranOrder) {
  absl::StatusOr<Array> a = Parse(WithHeader(
      "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", std::string(16, '\0')));
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("fortran_order=True"));
}

TEST(NpyTest, HeaderErrors) {
  struct Case {
    std::string bytes;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"hello world", "bad magic"},
      {std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4.0"},
      {std::string("\x93NUMPY\x01\x00\x50\x00{}", 12), "truncated"},
      {WithHeader("{'descr': '<f4', 'shape': (2,)}\n", std::string(8, '\0')), "no 'fortran_order'"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,}\n", ""),
       "malformed .npy header"},
      {WithHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}\n",
                  std::string(8, '\0')),
       "unsupported .npy dtype '<c8'"},
      {WithHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}\n",
                  std::string(4, '\0')),
       "big-endian"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\n",
                  std::string(20, '\0')),
       ".npy data is 20 bytes, but shape (2, 3) of '<f4' needs 24"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 'y'}\n",
                  std::string(4, '\0')),
       "unknown keys"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}\n", ""),
       "offset 54: expected a dimension"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}\n",
                  ""),
       ".npy header: shape (4294967296, 4294967296) is too large"},
      {WithHeader("{'descr': 3, 'fortran_order': False, 'shape': (1,)}\n", std::string(4, '\0')),
       "offset 10: expected a string, True, False or a tuple"},
      {WithHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}\n", std::string(4, '\0')),
       "offset 34: expected a string, True, False or a tuple"},
      {WithHeader("{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,)}\n", std::string(4, '\0')),
       "bad value for 'fortran_order'"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': 1}\n", std::string(4, '\0')),
       "offset 50: expected a string, True, False or a tuple"},
      {WithHeader("{'fortran_order': False, 'shape': (1,)}\n", std::string(4, '\0')),
       "no 'descr'"},
      {WithHeader("{'descr': '<f4', 'fortran_order': False}\n", std::string(4, '\0')),
       "no 'shape'"},
      {std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f{}", 14), "truncated"},
      {std::string("\x93NUMPY\x01\x01\x02\x00{}", 12), "version 1.1"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Array> a = Parse(c.bytes);
    ASSERT_FALSE(a.ok()) << c.message;
    EXPECT_THAT(std::string(a.status().message()), HasSubstr(c.message));
  }
}

TEST(NpyTest, SerializeRejectsInconsistentArrays) {
  absl::StatusOr<std::string> s = Serialize(Array{"<f4", {3}, std::string(8, '\0')});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("array data is 8 bytes"));
}

}  // namespace
}  // namespace pto::tools::npy
