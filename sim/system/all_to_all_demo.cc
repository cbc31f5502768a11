// Runs a hand-written all-to-all on the simulator and writes the Chrome JSON
// trace (load it in ui.perfetto.dev) and the statistics as text.
// Run it with ARGS = <chips> <KiB per peer> <blocks> <trace.json> <stats.txt> [platform]:
//   bazel run //sim/system:all_to_all_demo -- ARGS
#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"

int sc_main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: %s CHIPS KIB_PER_PEER BLOCKS TRACE_JSON STATS_TXT "
                 "[PLATFORM]\n",
                 argv[0]);
    return 2;
  }
  pto::sim::SimOptions o;
  o.chips = std::atoi(argv[1]);
  o.platform = argc > 6 ? argv[6] : "a2a3";
  const uint64_t chunk = std::strtoull(argv[2], nullptr, 10) * 1024;
  const int blocks = std::atoi(argv[3]);
  auto sys = pto::sim::SimSystem::Create(o);
  if (!sys.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(sys.status().message()).c_str());
    return 1;
  }
  auto setup = pto::sim::testing::SetUpAllToAll(**sys, chunk, blocks);
  if (!setup.ok()) {
    std::fprintf(stderr, "error: %s\n",
                 std::string(setup.status().message()).c_str());
    return 1;
  }
  pto::sim::RunReport r = (*sys)->Run();
  const uint64_t errors = pto::sim::testing::AllToAllErrors(**sys, *setup);
  std::ofstream(argv[4]) << r.trace_json();
  std::ofstream(argv[5]) << pto::sim::StatsText(r);
  std::printf("simulated %.3f us, error code %d, %llu wrong words\n",
              r.sim_time_ps() / 1e6, r.error_code(),
              static_cast<unsigned long long>(errors));
  return r.error_code() == 0 && errors == 0 ? 0 : 1;
}
