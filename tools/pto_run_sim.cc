#include "tools/pto_run_sim.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/api/task_args.h"
#include "sim/system/isolated_run.h"

namespace pto::tools::run {

std::string OutputKey(const Param& p, int device) { return absl::StrCat(p.name, "@", device); }

sim::RunReport SimulateProgram(const SimRunOptions& options, EntryFn entry,
                               const std::vector<Param>& params) {
  return sim::RunIsolated([&] {
    sim::RunReport r;
    sim::SimOptions o;
    o.platform = options.platform;
    o.chips = options.ranks;
    o.trace = options.trace;
    o.timing_only = options.timing_only;
    o.race_detection = options.race_detection;
    o.races = options.races;
    o.progress = options.progress;
    absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
    if (!sys.ok()) {
      r.set_error_code(-2);
      r.set_error_text(std::string(sys.status().message()));
      return r;
    }
    std::vector<std::vector<rt::Tensor>> tensors(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      for (int d = 0; d < options.ranks; ++d) {
        absl::StatusOr<rt::Tensor> t = (*sys)->Alloc(d, p.initial.size(), p.name);
        absl::Status st = t.status();
        if (st.ok()) {
          t->elem_bytes = static_cast<uint32_t>(p.item);
          t->ndims = static_cast<uint32_t>(p.shape.size());
          for (size_t k = 0; k < p.shape.size(); ++k) t->shape[k] = p.shape[k];
          st = (*sys)->CopyTo(*t, p.initial.data(), p.initial.size());
        }
        if (!st.ok()) {
          r.set_error_code(-3);
          r.set_error_text(
              absl::StrCat("staging '", p.name, "' on device ", d, ": ", st.message()));
          return r;
        }
        tensors[i].push_back(*t);
      }
    }
    absl::Status st;
    entry(sys->get(), &tensors, &st);
    if (!st.ok()) {
      r.set_error_code(-3);
      r.set_error_text(absl::StrCat("HOST orchestration failed: ", st.message()));
      return r;
    }
    r = (*sys)->Run();
    if (options.finished) options.finished(r);
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].output) continue;
      for (int d = 0; d < options.ranks; ++d) {
        std::string bytes(params[i].initial.size(), '\0');
        if ((*sys)->CopyFrom(bytes.data(), tensors[i][d], bytes.size()).ok()) {
          (*r.mutable_outputs())[OutputKey(params[i], d)] = std::move(bytes);
        }
      }
    }
    return r;
  });
}

}  // namespace pto::tools::run
