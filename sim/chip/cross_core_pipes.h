// The cross-core pipes of one chip's clusters, keyed by (cluster, lane, id),
// persistent across tasks as simpler's per-(cluster, pipe_key) shared state.
// The slots are allocated in the chip's GM, as PyPTO's InjectGMPipeBuffer
// pass gives a2a3 kernels a GM pipe buffer.
#ifndef PTO_SIM_CHIP_CROSS_CORE_PIPES_H_
#define PTO_SIM_CHIP_CROSS_CORE_PIPES_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "sim/common/cross_core_pipe.h"
#include "sim/gm/gm.h"
#include "sim/trace/report.pb.h"
#include "sim/trace/trace.h"

namespace pto::sim {

class CrossCorePipes : public PipePort {
 public:
  CrossCorePipes(int chip, Gm* gm, Trace* trace) : chip_(chip), gm_(gm), trace_(trace) {}
  CrossCorePipe* Pipe(int cluster, int lane, const PipeSpec& spec, std::string* error) override;
  // One queue statistic per pipe: pushes and the highest occupancy.
  void FillStats(RunReport* r) const;

 private:
  int chip_;
  Gm* gm_;
  Trace* trace_;
  std::map<std::tuple<int, int, int>, std::unique_ptr<CrossCorePipe>> pipes_;
};

}  // namespace pto::sim

#endif  // PTO_SIM_CHIP_CROSS_CORE_PIPES_H_
