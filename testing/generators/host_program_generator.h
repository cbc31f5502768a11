// Generates HOST-orchestrator programs for the HOST-rail pass benchmark: window
// allocations, `for r in pl.range(pld.world_size())` chip dispatch loops and
// host collectives (explicit-signal allreduces with every reduce op), plus scalar
// arithmetic for Simplify.
#ifndef PTO_TESTING_GENERATORS_HOST_PROGRAM_GENERATOR_H_
#define PTO_TESTING_GENERATORS_HOST_PROGRAM_GENERATOR_H_

#include <string>

namespace pto::testing {

struct HostProgramShape {
  int dispatch_loops = 1000;  // `for r in pl.range(pld.world_size()): self.chip(...)`
  int collectives = 5000;     // pld.tensor.allreduce statements
  int windows = 16;           // data windows (each with its own signal window)
};

// One program: an InCore kernel and a chip orchestration taking a
// DistributedTensor, and a HOST orchestrator with `shape.windows` data and
// signal windows, the dispatch loops (round-robin over the windows) and the
// collectives spread evenly between them. Deterministic.
std::string GenerateHostProgram(const HostProgramShape& shape);

}  // namespace pto::testing

#endif  // PTO_TESTING_GENERATORS_HOST_PROGRAM_GENERATOR_H_
