// Generates programs of many CHIP pipelines (the seed's stage -> all_to_all_v
// -> consume shape) dispatched by one HOST orchestrator, for benchmarks of the
// whole default pipeline.
#ifndef PTO_TESTING_GENERATORS_CHIP_PROGRAM_GENERATOR_H_
#define PTO_TESTING_GENERATORS_CHIP_PROGRAM_GENERATOR_H_

#include <string>

namespace pto::testing {

// `pipelines` CHIP orchestrations `chip_pipeline_<k>`, each staging rows with an
// InCore kernel, exchanging them with pld.tensor.all_to_all_v (core_num cycling
// through 1, 2, 4, 8 against an [NR, 8] signal) and consuming what arrived; a
// HOST orchestrator allocates the windows and dispatches every pipeline on
// every device. Deterministic.
std::string GenerateChipPipelines(int pipelines);

}  // namespace pto::testing

#endif  // PTO_TESTING_GENERATORS_CHIP_PROGRAM_GENERATOR_H_
