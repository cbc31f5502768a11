#include "examples/sim_run.h"

#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/collectives.h"

namespace pto::examples {

sim::RunReport RunFloatProgram(int chips, const std::vector<FloatParam>& params, RunHostFn run_host,
                               const std::string& platform) {
  std::vector<std::vector<rt::Tensor>> tensors(params.size());
  sim::SimOptions o = sim::testing::Opts(chips, platform);
  o.trace = false;
  return sim::testing::Simulate(
      o,
      [&](sim::SimSystem& sys) -> absl::Status {
        for (size_t p = 0; p < params.size(); ++p) {
          int64_t elems = 1;
          for (uint64_t d : params[p].dims) elems *= static_cast<int64_t>(d);
          const uint64_t bytes = elems * sizeof(float);
          for (int d = 0; d < chips; ++d) {
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, params[p].name);
            if (!t.ok()) return t.status();
            t->elem_bytes = sizeof(float);
            rt::Tensor shaped = *t;
            shaped.ndims = params[p].dims.size();
            for (size_t k = 0; k < params[p].dims.size(); ++k) shaped.shape[k] = params[p].dims[k];
            tensors[p].push_back(shaped);
            std::vector<float> init(elems);
            for (int64_t i = 0; i < elems; ++i) init[i] = params[p].init(d, i);
            if (absl::Status st = sys.CopyTo(shaped, init.data(), bytes); !st.ok()) return st;
          }
        }
        return run_host(sys, tensors);
      },
      [&](sim::SimSystem& sys, sim::RunReport& r) {
        for (size_t p = 0; p < params.size(); ++p) {
          for (size_t d = 0; d < tensors[p].size(); ++d) {
            sim::testing::CaptureOutput(sys, tensors[p][d], absl::StrCat(params[p].name, "@", d),
                                        r);
          }
        }
      });
}

std::vector<float> DeviceCopy(const sim::RunReport& report, const std::string& name, int device) {
  return sim::testing::OutputAs<float>(report, absl::StrCat(name, "@", device));
}

namespace a2av {

float InputOf(int device, int64_t i) {
  return static_cast<float>((device * 7919 + i * 31) % 1021) * 0.25f - 64.0f;
}

Outcome Run(RunHostFn run_host) {
  Outcome out;
  out.report =
      RunFloatProgram(kNr,
                      {{"inputs", {kNr, kTotal, kSize}, InputOf},
                       {"outputs", {kNr, kTotal, kSize}, [](int, int64_t) { return kOutputInit; }}},
                      run_host);
  for (int d = 0; d < kNr; ++d) out.outputs.push_back(DeviceCopy(out.report, "outputs", d));
  return out;
}

absl::Status CheckAgainstGolden(const Outcome& run, const Golden& golden) {
  if (run.report.error_code() != 0) return absl::InternalError(run.report.error_text());
  // A write-back that reverted a word (pto-isa#322) loses data on the board
  // even when the reverted value was rewritten in time here.
  if (run.report.line_clobbers_size() > 0) {
    return absl::InternalError(absl::StrCat("lost updates: ",
                                            absl::StrJoin(run.report.line_clobbers(), "; ")));
  }
  const reference::AllToAllVShape shape{kNr, kMaxRecv, kSize};
  reference::PerRank<float> staged(kNr, std::vector<float>(kRankElems));
  reference::PerRank<int32_t> send_counts(kNr, std::vector<int32_t>(kNr));
  for (int r = 0; r < kNr; ++r) {
    for (int i = 0; i < kRankElems; ++i) {
      staged[r][i] = golden.stage_scale * InputOf(r, r * kRankElems + i);
    }
    for (int d = 0; d < kNr; ++d) send_counts[r][d] = golden.send_count(d);
  }
  reference::PerRank<float> want(kNr, std::vector<float>(kRankElems, golden.unsent));
  reference::PerRank<int32_t> want_recv;
  const absl::Status golden_ok =
      reference::AllToAllV(shape, staged, send_counts, &want, &want_recv);
  if (!golden_ok.ok()) return golden_ok;

  reference::PerRank<float> got(kNr);
  for (int r = 0; r < kNr; ++r) {
    if (run.outputs[r].size() != static_cast<size_t>(kParamElems)) {
      return absl::InternalError(
          absl::StrCat("rank ", r, ": ", run.outputs[r].size(), " output elements"));
    }
    got[r].assign(run.outputs[r].begin() + r * kRankElems,
                  run.outputs[r].begin() + (r + 1) * kRankElems);
    // Device r writes only row r of its copy of `outputs`.
    for (int i = 0; i < kParamElems; ++i) {
      if (i / kRankElems != r && run.outputs[r][i] != kOutputInit) {
        return absl::InternalError(absl::StrCat("rank ", r, " element ", i, " = ",
                                                run.outputs[r][i], ", outside its row"));
      }
    }
  }
  // recv_counts live in the program's window, which the HOST orchestration
  // owns, so they are not read back: comparing every row (all_rows) pins
  // them, since a slot trimmed to a wrong count leaves other rows behind.
  return reference::CompareAllToAllV(shape, want, want_recv, got, want_recv, /*all_rows=*/true);
}

}  // namespace a2av

}  // namespace pto::examples
