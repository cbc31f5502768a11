// Generates large, valid PTO programs for benchmarks and scale tests.
#ifndef PTO_TESTING_GENERATORS_PROGRAM_GENERATOR_H_
#define PTO_TESTING_GENERATORS_PROGRAM_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace pto::testing {

// A program of about `target_bytes` bytes: InCore kernels with tile ops, loops
// with loop-carried values, branches and scalar arithmetic, CHIP orchestrations
// calling them, and a HOST orchestrator with windows and a world_size dispatch
// loop. The same (target_bytes, seed) gives the same text.
std::string GenerateProgram(size_t target_bytes, uint64_t seed = 1);

}  // namespace pto::testing

#endif  // PTO_TESTING_GENERATORS_PROGRAM_GENERATOR_H_
