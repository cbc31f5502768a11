// Checks pto-run's outputs of collective_host.pto.in against
// //testing/reference: recomputes the inputs from pto-run's documented
// pattern (docs/pto-run.md), runs the golden per call and compares every
// rank's target bit for bit, then checks that the signal reads zero after
// the last call (the builtins' signals are self-clearing).
//
// Usage: collective_check COLLECTIVE DTYPE NR SIZE CALLS OP ROOT OUTDIR
//   COLLECTIVE: a builtin name with a registered golden
//               (testing/reference/collective_goldens.h)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/device/device_api.h"
#include "testing/reference/collective_goldens.h"

namespace {

namespace ref = ::pto::reference;

// The data of a NumPy format 1.0 file (the format pto-run writes).
absl::StatusOr<std::string> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string bytes = s.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1) {
    return absl::InvalidArgumentError(path + ": not a NumPy 1.0 file");
  }
  const size_t header = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  return bytes.substr(10 + header);
}

// pto-run's input pattern, element i in C order over the whole parameter.
template <typename T>
T Pattern(uint64_t i) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<int64_t>((i * 31 + 7) % 127) - 63);
  } else {
    return static_cast<T>(static_cast<double>((i * 31 + 7) % 1021) * 0.25 - 64);
  }
}

template <typename T>
std::string Show(T v) {
  if constexpr (std::is_integral_v<T>) return std::to_string(static_cast<int64_t>(v));
  return std::to_string(static_cast<double>(v));
}

struct Args {
  std::string coll;
  int nr, size, calls, op, root;
  std::string out;
};

// The collective's registered golden (testing/reference/collective_goldens.h).
template <typename T>
absl::Status Golden(const Args& a, ref::PerRank<T>* data) {
  const auto& goldens = ref::MatrixGoldens<T>();
  auto it = goldens.find(a.coll);
  if (it == goldens.end()) return absl::InvalidArgumentError("no golden for collective " + a.coll);
  return it->second({static_cast<ref::ReduceOp>(a.op), a.root, a.size}, data);
}

template <typename T>
int Check(const Args& a) {
  absl::StatusOr<std::string> sig = ReadNpy(a.out + "/signals.npy");
  if (!sig.ok()) {
    std::cerr << sig.status() << "\n";
    return 1;
  }
  const size_t n = static_cast<size_t>(a.nr) * a.size;  // one rank's [NR, SIZE]
  int bad = 0;
  for (int c = 0; c < a.calls; ++c) {
    absl::StatusOr<std::string> out = ReadNpy(absl::StrCat(a.out, "/outputs", c, ".npy"));
    if (!out.ok()) {
      std::cerr << out.status() << "\n";
      return 1;
    }
    if (out->size() != a.nr * n * sizeof(T)) {
      std::cerr << "outputs" << c << ".npy holds " << out->size() << " bytes\n";
      return 1;
    }
    ref::PerRank<T> data(a.nr, std::vector<T>(n));
    for (int r = 0; r < a.nr; ++r) {
      for (size_t i = 0; i < n; ++i) data[r][i] = Pattern<T>(r * n + i);
    }
    if (absl::Status st = Golden(a, &data); !st.ok()) {
      std::cerr << st << "\n";
      return 1;
    }
    for (int r = 0; r < a.nr; ++r) {
      const T* got = reinterpret_cast<const T*>(out->data()) + r * n;
      for (size_t i = 0; i < n; ++i) {
        if (std::memcmp(&got[i], &data[r][i], sizeof(T)) != 0 && bad++ < 5) {
          std::cerr << a.coll << " call " << c << " rank " << r << " element " << i << ": got "
                    << Show(got[i]) << ", golden " << Show(data[r][i]) << "\n";
        }
      }
    }
  }
  const int32_t* s = reinterpret_cast<const int32_t*>(sig->data());
  for (size_t i = 0; i < sig->size() / sizeof(int32_t); ++i) {
    if (s[i] != 0 && bad++ < 10) std::cerr << "signal word " << i << " = " << s[i] << "\n";
  }
  if (bad > 0) {
    std::cerr << bad << " mismatches\n";
    return 1;
  }
  std::cout << a.coll << " P=" << a.nr << " x" << a.calls << ": every rank matches the golden, "
            << "signal zero\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::cerr << "usage: collective_check COLLECTIVE DTYPE NR SIZE CALLS OP ROOT OUTDIR\n";
    return 2;
  }
  Args a{argv[1], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]),
         std::atoi(argv[6]), std::atoi(argv[7]), argv[8]};
  const std::string dtype = argv[2];
  if (dtype == "FP32") return Check<float>(a);
  if (dtype == "FP16") return Check<pto::half>(a);
  if (dtype == "INT32") return Check<int32_t>(a);
  if (dtype == "INT8") return Check<int8_t>(a);
  std::cerr << "unsupported dtype " << dtype << "\n";
  return 2;
}
