// The hw half of pto-run in a --config=ascend build (tools/hw_run.h).
#include "tools/hw_run.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hw/host/hw_host.h"

namespace pto::tools {
namespace {

absl::StatusOr<std::string> ReadKernel(const std::string& dir, const std::string& kernel) {
  const std::string path = (std::filesystem::path(dir) / (kernel + ".o")).string();
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return absl::NotFoundError(absl::StrCat("no binary '", path, "' for kernel ", kernel,
                                            " (--kernel-dir, docs/hw.md)"));
  }
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

bool HwBackendBuiltIn() { return true; }

sim::RunReport RunOnHw(const HwRunOptions& options, EntryFn entry,
                       const std::vector<run::Param>& params) {
  sim::RunReport r;
  r.set_chips(options.ranks);
  const std::string dir = options.kernel_dir;
  absl::StatusOr<std::unique_ptr<hw::HwHost>> host = hw::HwHost::Create(
      {options.platform, options.ranks,
       [dir](const std::string&, const std::string& kernel) { return ReadKernel(dir, kernel); }});
  if (!host.ok()) {
    r.set_error_code(-2);
    r.set_error_text(std::string(host.status().message()));
    return r;
  }
  std::vector<std::vector<rt::Tensor>> tensors(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const run::Param& p = params[i];
    for (int d = 0; d < options.ranks; ++d) {
      absl::StatusOr<rt::Tensor> t = (*host)->Alloc(d, p.initial.size(), p.name);
      absl::Status st = t.status();
      if (st.ok()) {
        t->elem_bytes = static_cast<uint32_t>(p.item);
        t->ndims = static_cast<uint32_t>(p.shape.size());
        for (size_t k = 0; k < p.shape.size(); ++k) t->shape[k] = p.shape[k];
        st = (*host)->CopyTo(*t, p.initial.data(), p.initial.size());
      }
      if (!st.ok()) {
        r.set_error_code(-3);
        r.set_error_text(absl::StrCat("staging '", p.name, "' on device ", d, ": ", st.message()));
        return r;
      }
      tensors[i].push_back(*t);
    }
  }
  absl::Status st;
  entry(host->get(), &tensors, &st);
  if (st.ok()) st = (*host)->Finish();
  // Measured kernel times, end to end per device.
  std::map<int, int64_t> clock_ps;
  for (const hw::HwRun& run : (*host)->runs()) {
    for (const rt::LaunchedTask& t : run.result.tasks) {
      sim::TaskStat* s = r.add_tasks();
      s->set_chip(run.device);
      s->set_run(run.run);
      s->set_task(t.task);
      s->set_kernel(static_cast<size_t>(t.func_id) < run.kernel_names.size()
                        ? run.kernel_names[t.func_id]
                        : absl::StrCat("kernel", t.func_id));
      s->set_blocks(t.blocks);
      int64_t& now = clock_ps[run.device];
      s->set_ready_ps(now);
      s->set_start_ps(now);
      now += static_cast<int64_t>(t.device_ns * 1e3);
      s->set_end_ps(now);
      r.set_sim_time_ps(std::max(r.sim_time_ps(), now));
    }
    for (const std::string& line : run.result.log) {
      r.add_log(absl::StrCat("c", run.device, " run", run.run, ": ", line));
    }
  }
  if (!st.ok()) {
    r.set_error_code(-3);
    r.set_error_text(absl::StrCat("the run on the devices failed: ", st.message()));
    return r;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].output) continue;
    for (int d = 0; d < options.ranks; ++d) {
      std::string bytes(params[i].initial.size(), '\0');
      if ((*host)->CopyFrom(bytes.data(), tensors[i][d], bytes.size()).ok()) {
        (*r.mutable_outputs())[absl::StrCat(params[i].name, "@", d)] = std::move(bytes);
      }
    }
  }
  return r;
}

}  // namespace pto::tools
