// The headline measurement: testing/benchmarks/headline.pto's stage ->
// all_to_all_v -> consume pipeline on 8 simulated 910B chips, once with the
// collective on the HOST rail and once on the CHIP rail, each with
// all_to_all_v core_num=1 and core_num=32, for payloads of 4 KiB to 16 MiB per
// peer. Every run is checked against the golden (the row placement and recv
// counts of reference::AllToAllV, the stage and consume math in plain C++),
// and its all_to_all_v launch width against its core_num, before its figures
// count. Prints a Markdown table of simulated figures (deterministic) and the
// wall time of each run.
//
//   bazel run //testing/benchmarks:headline_benchmark [-- --sizes=4,64]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/api/host.h"
#include "sim/system/isolated_run.h"
#include "sim/system/system.h"
#include "tools/bench/collective_metrics.h"
#include "testing/reference/collectives.h"

// The generated program (:headline_program) has four HOST orchestrators, each
// in its own namespace.
#define PTO_HEADLINE_ENTRY(ns)                                                               \
  namespace pto_gen::ns {                                                                    \
  absl::Status host_orchestration_entry(pto::rt::Host&,                                      \
                                        const std::map<std::string, pto::rt::ChipCallable>&, \
                                        const std::vector<pto::rt::Tensor>& xs,              \
                                        const std::vector<pto::rt::Tensor>& rows,            \
                                        const std::vector<pto::rt::Tensor>& outs);           \
  }
PTO_HEADLINE_ENTRY(host_host_rail)
PTO_HEADLINE_ENTRY(host_host_rail_wide)
PTO_HEADLINE_ENTRY(host_chip_rail)
PTO_HEADLINE_ENTRY(host_chip_rail_wide)
#undef PTO_HEADLINE_ENTRY
namespace pto::generated {
std::map<std::string, pto::rt::ChipCallable> Callables();
}  // namespace pto::generated

namespace pto::bench {
namespace {

namespace ref = ::pto::reference;

// The constants of testing/benchmarks/headline.pto.
constexpr int kNr = 8;
constexpr int64_t kSize = 1024;
constexpr int64_t kMaxRows = 4096;
constexpr int64_t kTotal = kNr * kMaxRows;
constexpr uint64_t kRowBytes = kSize * sizeof(float);
constexpr int kWide = 32;  // WIDE: 4 lanes per peer

// kHost / kChip: core_num=1; kHostWide / kChipWide: core_num=WIDE.
enum class Rail { kHost, kChip, kHostWide, kChipWide };
const char* Name(Rail r) {
  switch (r) {
    case Rail::kHost:
      return "HOST";
    case Rail::kChip:
      return "CHIP";
    case Rail::kHostWide:
      return "HOST, core_num=32";
    case Rail::kChipWide:
      return "CHIP, core_num=32";
  }
  return "?";
}
bool IsHost(Rail r) { return r == Rail::kHost || r == Rail::kHostWide; }
int CoreNum(Rail r) { return r == Rail::kHostWide || r == Rail::kChipWide ? kWide : 1; }

using Entry = absl::Status (*)(rt::Host&, const std::map<std::string, rt::ChipCallable>&,
                               const std::vector<rt::Tensor>&, const std::vector<rt::Tensor>&,
                               const std::vector<rt::Tensor>&);
Entry EntryOf(Rail r) {
  switch (r) {
    case Rail::kHost:
      return &pto_gen::host_host_rail::host_orchestration_entry;
    case Rail::kChip:
      return &pto_gen::host_chip_rail::host_orchestration_entry;
    case Rail::kHostWide:
      return &pto_gen::host_host_rail_wide::host_orchestration_entry;
    case Rail::kChipWide:
      return &pto_gen::host_chip_rail_wide::host_orchestration_entry;
  }
  return nullptr;
}

// Row i of device d's input: mixed signs, so relu matters; small binary
// fractions, so the simulated products equal the golden's bit for bit.
float X(int d, int64_t i, int64_t h) {
  return static_cast<float>((d * 37 + i * 11 + h * 5) % 61 - 30) * 0.25f;
}

// Rows of slot (dst d, src s) in device d's output that differ from the
// golden, the first one described in `first`.
int64_t CheckSlot(sim::SimSystem& sys, const rt::Tensor& out, int d, int s, int32_t got_rows,
                  const ref::PerRank<int32_t>& placement, std::string* first) {
  // One row past the received ones must stay untouched (zero).
  const int64_t rows = std::min<int64_t>(got_rows + 1, kMaxRows);
  std::vector<float> buf(rows * kSize);
  rt::Tensor view = out.View(s * kMaxRows * kRowBytes, rows * kRowBytes);
  if (absl::Status st = sys.CopyFrom(buf.data(), view, rows * kRowBytes); !st.ok()) {
    if (first->empty()) *first = std::string(st.message());
    return rows;
  }
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; ++i) {
    bool row_ok = true;
    for (int64_t h = 0; h < kSize && row_ok; ++h) {
      float want = 0.0f;
      if (i < got_rows) {
        // The golden placement says which source row landed here.
        const int32_t code = placement[d][s * kMaxRows + i];
        const int src = code / kMaxRows;
        const int64_t row = code % kMaxRows;
        want = std::max(X(src, row, h) * static_cast<float>(d + 1), 0.0f);
      }
      const float got = buf[i * kSize + h];
      if (std::memcmp(&got, &want, sizeof(float)) != 0) {
        row_ok = false;
        if (first->empty()) {
          *first = absl::StrFormat("rank %d slot %d row %d col %d: got %g, want %g", d, s, i, h,
                                   got, want);
        }
      }
    }
    bad += row_ok ? 0 : 1;
  }
  return bad;
}

// One simulation (in the forked child): stage the inputs, run the rail's
// HOST orchestration, check every rank, and return the report.
sim::RunReport RunOnce(Rail rail, int64_t rows_per_peer) {
  sim::RunReport r;
  sim::SimOptions o;
  o.platform = "a2a3";
  o.chips = kNr;
  o.trace = false;
  absl::StatusOr<std::unique_ptr<sim::SimSystem>> sys = sim::SimSystem::Create(o);
  if (!sys.ok()) {
    r.set_error_code(-2);
    r.set_error_text(std::string(sys.status().message()));
    return r;
  }
  sim::SimSystem& s = **sys;
  auto fail = [&](const absl::Status& st) {
    r.set_error_code(-3);
    r.set_error_text(std::string(st.message()));
    return r;
  };
  // Large params start zeroed (no host buffer); only the rows the run uses
  // are written.
  auto none = [](int) { return std::string(); };
  absl::StatusOr<std::vector<rt::Tensor>> xs = StageParam(s, {1, kMaxRows, kSize}, 4, "xs", none);
  if (!xs.ok()) return fail(xs.status());
  const std::vector<int32_t> counts(kNr, static_cast<int32_t>(rows_per_peer));
  absl::StatusOr<std::vector<rt::Tensor>> rows = StageParam(s, {1, kNr}, 4, "rows", [&](int) {
    return std::string(reinterpret_cast<const char*>(counts.data()), counts.size() * 4);
  });
  if (!rows.ok()) return fail(rows.status());
  absl::StatusOr<std::vector<rt::Tensor>> outs = StageParam(s, {1, kTotal, kSize}, 4, "outs", none);
  if (!outs.ok()) return fail(outs.status());
  for (int d = 0; d < kNr; ++d) {
    std::vector<float> x(rows_per_peer * kSize);
    for (int64_t i = 0; i < rows_per_peer; ++i) {
      for (int64_t h = 0; h < kSize; ++h) x[i * kSize + h] = X(d, i, h);
    }
    const rt::Tensor head = (*xs)[d].View(0, rows_per_peer * kRowBytes);
    if (absl::Status st = s.CopyTo(head, x.data(), rows_per_peer * kRowBytes); !st.ok()) {
      return fail(st);
    }
  }
  if (absl::Status st = EntryOf(rail)(s, generated::Callables(), *xs, *rows, *outs); !st.ok()) {
    return fail(st);
  }
  r = s.Run();
  const LinkModel link = LinkModelOf(s.platform());
  (*r.mutable_values())["alpha_ps"] = static_cast<int64_t>(link.alpha_s * 1e12 + 0.5);
  (*r.mutable_values())["link_bytes_per_s"] = static_cast<int64_t>(link.link_bytes_per_s);
  if (r.error_code() != 0) return r;

  // The golden placement: reference::AllToAllV over one-element rows that
  // name their source (rank * MAX_ROWS + row).
  const ref::AllToAllVShape shape{kNr, kMaxRows, 1};
  ref::PerRank<int32_t> codes(kNr, std::vector<int32_t>(shape.elems()));
  ref::PerRank<int32_t> send(kNr, counts);
  for (int src = 0; src < kNr; ++src) {
    for (int dst = 0; dst < kNr; ++dst) {
      for (int64_t i = 0; i < kMaxRows; ++i) codes[src][dst * kMaxRows + i] = src * kMaxRows + i;
    }
  }
  ref::PerRank<int32_t> placement(kNr, std::vector<int32_t>(shape.elems(), -1));
  ref::PerRank<int32_t> recv;
  if (absl::Status st = ref::AllToAllV(shape, codes, send, &placement, &recv); !st.ok()) {
    return fail(st);
  }
  int64_t bad_rows = 0;
  std::string first;
  for (int d = 0; d < kNr; ++d) {
    for (int src = 0; src < kNr; ++src) {
      bad_rows += CheckSlot(s, (*outs)[d], d, src, recv[d][src], placement, &first);
    }
  }
  (*r.mutable_values())["bad_rows"] = bad_rows;
  if (bad_rows != 0) r.set_error_text(first);
  return r;
}

struct Result {
  Rail rail;
  int64_t kib;
  sim::RunReport report;
  std::string check;  // "OK" or why not
  int min_trips = 0, max_trips = 0;
  double e2e_s = 0, stage_s = 0, a2a_s = 0, consume_s = 0;
  double busbw = 0, bus_bound = 0, ab_fraction = 0;
};

Result Measure(Rail rail, int64_t kib) {
  Result res{rail, kib};
  const int64_t rows = kib * 1024 / kRowBytes;
  res.report = sim::RunIsolated([&] { return RunOnce(rail, rows); });
  const sim::RunReport& r = res.report;
  if (r.error_code() != 0) {
    res.check = absl::StrCat("run failed (", r.error_code(), "): ", r.error_text());
    return res;
  }
  if (r.values().at("bad_rows") != 0) {
    res.check = absl::StrCat("FAIL: ", r.values().at("bad_rows"), " rows, first ", r.error_text());
    return res;
  }
  // The launch width: B = core_num blocks of all_to_all_v on every chip (32 is
  // a multiple of NR, so CalAllToAllVBlocks(8, 32) = 32).
  int a2a_tasks = 0;
  for (const sim::TaskStat& t : r.tasks()) {
    if (t.kernel().find("all_to_all_v") == std::string::npos) continue;
    ++a2a_tasks;
    if (t.blocks() != CoreNum(rail)) {
      res.check = absl::StrCat("FAIL: chip ", t.chip(), " ran all_to_all_v on ", t.blocks(),
                               " blocks, want ", CoreNum(rail));
      return res;
    }
  }
  if (a2a_tasks != kNr) {
    res.check = absl::StrCat("FAIL: ", a2a_tasks, " all_to_all_v tasks, want ", kNr);
    return res;
  }
  res.check = "OK";
  res.min_trips = INT32_MAX;
  for (const auto& [chip, n] : RoundTripsPerChip(r)) {
    res.min_trips = std::min(res.min_trips, n);
    res.max_trips = std::max(res.max_trips, n);
  }
  res.e2e_s = r.sim_time_ps() * 1e-12;
  auto span = [&](const char* kernel) {
    absl::StatusOr<TaskSpan> s = KernelSpan(r, kernel);
    return s.ok() ? s->seconds() : 0.0;
  };
  res.stage_s = span("stage");
  res.a2a_s = span("all_to_all_v");
  res.consume_s = span("consume");
  LinkModel link;
  link.alpha_s = r.values().at("alpha_ps") * 1e-12;
  link.link_bytes_per_s = static_cast<double>(r.values().at("link_bytes_per_s"));
  const double m = static_cast<double>(rows * kRowBytes);
  res.busbw = AllToAllBusBandwidth((kNr - 1) * m, res.a2a_s);
  res.bus_bound = FullMeshBusBound(link, kNr);
  res.ab_fraction = res.a2a_s > 0 ? FullMeshTimeBound(link, m) / res.a2a_s : 0;
  return res;
}

std::string Payload(int64_t kib) {
  return kib >= 1024 ? absl::StrCat(kib / 1024, " MiB") : absl::StrCat(kib, " KiB");
}

std::string Us(double s) { return absl::StrFormat("%.1f µs", s * 1e6); }

int Main(int argc, char** argv) {
  const int64_t max_kib = kMaxRows * kRowBytes / 1024;
  std::vector<int64_t> sizes;
  for (int64_t kib = 4; kib <= max_kib; kib *= 4) sizes.push_back(kib);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      for (absl::string_view v : absl::StrSplit(arg.substr(8), ',')) {
        int64_t kib = 0;
        if (!absl::SimpleAtoi(v, &kib) || kib < 4 || kib % 4 != 0 || kib > max_kib) {
          std::fprintf(stderr, "--sizes: KiB per peer, multiples of 4 up to %lld\n",
                       static_cast<long long>(max_kib));
          return 2;
        }
        sizes.push_back(kib);
      }
    } else {
      std::fprintf(stderr, "usage: %s [--sizes=KIB,KIB,...]\n", argv[0]);
      return 2;
    }
  }
  std::printf(
      "stage -> all_to_all_v -> consume on %d simulated 910B chips "
      "(testing/benchmarks/headline.pto), FP32; all_to_all_v core_num=1 unless the rail says "
      "otherwise; speed-up = end to end of the HOST row with the same core_num / this row's\n\n",
      kNr);
  std::printf(
      "| Payload / peer | Rail | L3->L2 round trips / card | End to end (sim) | stage | "
      "all_to_all_v | consume | busbw | of link bound | α–β fraction | "
      "speed-up vs HOST, same core_num | "
      "check | wall |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  int failures = 0;
  for (int64_t kib : sizes) {
    // Each CHIP row follows the HOST row of its core_num, its speed-up base:
    // rs[0] for rs[1], rs[2] for rs[3].
    const Result rs[] = {Measure(Rail::kHost, kib), Measure(Rail::kChip, kib),
                         Measure(Rail::kHostWide, kib), Measure(Rail::kChipWide, kib)};
    for (int i = 0; i < 4; ++i) {
      const Result& x = rs[i];
      const Result& base = rs[i & ~1];
      const bool ok = x.check == "OK";
      failures += ok ? 0 : 1;
      const std::string trips = x.min_trips == x.max_trips
                                    ? absl::StrCat(x.min_trips)
                                    : absl::StrCat(x.min_trips, "-", x.max_trips);
      const std::string speedup = !IsHost(x.rail) && ok && base.check == "OK" && x.e2e_s > 0
                                      ? absl::StrFormat("%.2fx", base.e2e_s / x.e2e_s)
                                      : "";
      if (!ok) {
        std::printf("| %s | %s | | | | | | | | | | %s | %.2f s |\n", Payload(kib).c_str(),
                    Name(x.rail), x.check.c_str(), x.report.wall_seconds());
        continue;
      }
      std::printf(
          "| %s | %s | %s | %s | %s | %s | %s | %.1f GB/s | %.1f%% | %.2f | %s | %s | %.2f s |\n",
          Payload(kib).c_str(), Name(x.rail), trips.c_str(), Us(x.e2e_s).c_str(),
          Us(x.stage_s).c_str(), Us(x.a2a_s).c_str(), Us(x.consume_s).c_str(), x.busbw / 1e9,
          100 * x.busbw / x.bus_bound, x.ab_fraction, speedup.c_str(), x.check.c_str(),
          x.report.wall_seconds());
    }
    std::fflush(stdout);
  }
  std::printf(
      "\nbusbw = (n-1) * payload / all_to_all_v time; link bound = (n-1) * 56 GB/s; "
      "α–β fraction = (α + payload / 56 GB/s) / all_to_all_v time\n");
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pto::bench

int sc_main(int argc, char** argv) { return pto::bench::Main(argc, argv); }
