#include "testing/system/all_to_all_v_program.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/api/generated_program.h"
#include "runtime/api/host.h"
#include "runtime/api/task_args.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/reference/all_to_all_v_cases.h"

namespace pto::sim::system_test {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) {
    std::cerr << "all_to_all_v system test: " << name
              << " is not set; run the test through its cc_test (testing/system)\n";
    std::exit(2);
  }
  return v;
}

uint32_t ElemBytes(int param) {
  const bool payload =
      param == kInputs0 || param == kInputs1 || param == kOutputs0 || param == kOutputs1;
  return payload && Cfg().int8 ? 1 : 4;
}

// Rank r's round-k payload row as bytes.
std::string PayloadRow(int k, int r) {
  const Config& c = Cfg();
  if (c.int8) {
    const std::vector<int8_t> v = ref::PayloadInput<int8_t>(k, r, c.nr, kMaxRecv, kSize);
    return std::string(reinterpret_cast<const char*>(v.data()), v.size());
  }
  const std::vector<float> v = ref::PayloadInput<float>(k, r, c.nr, kMaxRecv, kSize);
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace

const Config& Cfg() {
  static const Config* c = [] {
    auto* cfg = new Config;
    cfg->rail = Env("A2AV_RAIL");
    cfg->kernel = Env("A2AV_KERNEL");
    cfg->nr = std::stoi(Env("A2AV_NR"));
    cfg->int8 = Env("A2AV_INT8") == "1";
    cfg->l = std::stoi(Env("A2AV_L"));
    cfg->s = std::stoi(Env("A2AV_S"));
    cfg->skew_matrix = Env("A2AV_SKEW_MATRIX") == "1";
    cfg->platform = Env("A2AV_PLATFORM");
    return cfg;
  }();
  return *c;
}

uint64_t RowBytes(int param) {
  const int nr = Cfg().nr;
  switch (param) {
    case kInputs0:
    case kInputs1:
    case kOutputs0:
    case kOutputs1:
      return RankElems() * ElemBytes(param);
    case kCounts0:
    case kCounts1:
    case kRecvs0:
    case kRecvs1:
      return nr * sizeof(int32_t);
    case kSignals:
      return nr * Cfg().s * sizeof(int32_t);
  }
  return 0;
}

Outcome RunProgram(const Counts (&counts)[2], bool timing_only) {
  const int nr = Cfg().nr;
  Outcome out;
  out.params.assign(kNumParams, std::vector<std::string>(nr));
  std::vector<std::vector<rt::Tensor>> params(kNumParams);
  SimOptions o = testing::Opts(nr, Cfg().platform);
  o.trace = false;
  o.timing_only = timing_only;
  out.report = testing::Simulate(
      o,
      [&](SimSystem& sys) -> absl::Status {
        for (int d = 0; d < nr; ++d) {
          for (int p = 0; p < kNumParams; ++p) {
            const uint64_t bytes = nr * RowBytes(p);
            absl::StatusOr<rt::Tensor> t = sys.Alloc(d, bytes, absl::StrCat("param", p));
            if (!t.ok()) return t.status();
            t->elem_bytes = ElemBytes(p);
            std::string init(bytes, static_cast<char>(kOutInit));
            for (int r = 0; r < nr; ++r) {
              // Device d's copy of an input param holds every rank's row;
              // only row d is read.
              std::string row;
              if (p == kInputs0 || p == kInputs1) {
                row = PayloadRow(p == kInputs0 ? 0 : 1, r);
              } else if (p == kCounts0 || p == kCounts1) {
                const std::vector<int32_t>& c = counts[p == kCounts0 ? 0 : 1][r];
                row.assign(reinterpret_cast<const char*>(c.data()), RowBytes(p));
              }
              if (!row.empty()) init.replace(r * RowBytes(p), RowBytes(p), row);
            }
            if (absl::Status st = sys.CopyTo(*t, init.data(), bytes); !st.ok()) return st;
            params[p].push_back(*t);
          }
        }
        return generated::RunHost(sys, params);
      },
      [&](SimSystem& sys, RunReport& r) {
        for (int p = 0; p < kNumParams; ++p) {
          for (int d = 0; d < static_cast<int>(params[p].size()); ++d) {
            testing::CaptureOutput(sys, params[p][d], absl::StrCat("param", p, "@", d), r);
          }
        }
      });
  for (int p = 0; p < kNumParams; ++p) {
    for (int d = 0; d < nr; ++d) {
      auto it = out.report.outputs().find(absl::StrCat("param", p, "@", d));
      if (it != out.report.outputs().end()) out.params[p][d] = it->second;
    }
  }
  return out;
}

std::string TimingOnlyDifference(const RunReport& full, const RunReport& timing) {
  RunReport a = full;
  RunReport b = timing;
  for (RunReport* r : {&a, &b}) {
    r->clear_outputs();
    r->clear_wall_seconds();
  }
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  return d.Compare(a, b) ? "" : diff;
}

std::string EntryLogLine(int chip, int run, int64_t b) {
  const Config& c = Cfg();
  return absl::StrCat("c", chip, " run", run, ": builtin.tensor.all_to_all_v__",
                      c.int8 ? "int8" : "fp32", ": rank=", chip, " requested_core_num=", c.l,
                      " launched_core_num=", b, " active_lanes=", std::min<int64_t>(b, c.s),
                      " nranks=", c.nr);
}

std::vector<std::string> EntryLogLines(const RunReport& report) {
  std::vector<std::string> lines;
  for (const std::string& line : report.log()) {
    if (absl::StrContains(line, "requested_core_num=")) lines.push_back(line);
  }
  return lines;
}

Counts SecondCall() {
  const int nr = Cfg().nr;
  Counts c = ref::SkewCounts(ref::Skew::kOneAndFull, nr, kMaxRecv);
  for (int r = 0; r < nr; ++r) c[r][(r + 1) % nr] = 2;
  return c;
}

}  // namespace pto::sim::system_test
