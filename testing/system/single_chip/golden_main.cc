// sc_golden inputs PROGRAM DIR   writes the inputs PROGRAM runs on (DIR/<param>.npy)
// sc_golden check PROGRAM DIR    checks pto-run's outputs DIR/<param>.npy
#include <iostream>
#include <string>

#include "testing/system/single_chip/golden.h"

int main(int argc, char** argv) {
  using pto::single_chip::Programs;
  if (argc != 4 || (std::string(argv[1]) != "inputs" && std::string(argv[1]) != "check")) {
    std::cerr << "usage: sc_golden inputs|check PROGRAM DIR\n";
    return 2;
  }
  auto it = Programs().find(argv[2]);
  if (it == Programs().end()) {
    std::cerr << "sc_golden: unknown program '" << argv[2] << "'\n";
    return 2;
  }
  const pto::single_chip::Case c = it->second();
  const std::string dir = argv[3];
  bool ok = true;
  for (const auto& t : std::string(argv[1]) == "inputs" ? c.inputs : c.expected) {
    const absl::Status s = std::string(argv[1]) == "inputs" ? pto::single_chip::Write(t, dir)
                                                            : pto::single_chip::Check(t, dir);
    if (!s.ok()) {
      std::cout << s.message() << "\n";
      ok = false;
    } else if (std::string(argv[1]) == "check") {
      std::cout << t.name << ": " << t.values.size() << " elements within atol " << t.atol
                << ", rtol " << t.rtol << "\n";
    }
  }
  return ok ? 0 : 1;
}
