#include "testing/calibration/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/launch_width.h"
#include "compiler/support/status_macros.h"
#include "platforms/platform.h"
#include "runtime/api/host.h"
#include "sim/system/system.h"
#include "sim/system/test_kernels.h"
#include "testing/calibration/measured_all_to_all_v.h"
#include "tools/golden/golden_file.h"

namespace pto::builtins::all_to_all_v_int8_t {
void AllToAllVKernel(int64_t* args);
}  // namespace pto::builtins::all_to_all_v_int8_t

namespace pto::calibration {
namespace {

// Byte j of the block rank `src` sends to rank `dst`.
int8_t PayloadByte(int src, int dst, uint64_t j) {
  return static_cast<int8_t>((src * 37 + dst * 11 + j * 7 + (j >> 8)) & 0xff);
}

// The widest launch our builtin gets on a 910B die (all 48 AIVs).
constexpr int kWideCoreNum = 48;

}  // namespace

const char* SetName(Set s) { return s == Set::kFit ? "fit" : "held out"; }

// Fit: the two largest rows, one per EP (every chunk local or remote, so
// they fix MTE3's DMA cost and the hop); every other row is held out.
const std::vector<Workload>& PublishedWorkloads() {
  static const std::vector<Workload>* kRows = new std::vector<Workload>{
      {"a2av_ep2_8kib", 8 << 10},
      {"a2av_ep2_64kib", 64 << 10},
      {"a2av_ep2_1mib", 1 << 20, 256, Set::kFit},
      // 24,960 B is not a whole number of 256-element rows; the published
      // note does not say how that row was tiled. Simulated as 97 tiles and
      // a 128-B tail (NamedMisses).
      {"a2av_ep8_24960b", 24960},
      {"a2av_ep8_64kib", 64 << 10},
      {"a2av_ep8_1mib", 1 << 20, 256, Set::kFit},
  };
  return *kRows;
}

const std::map<std::string, std::string>& NamedMisses() {
  static const auto* m = new std::map<std::string, std::string>{
      {"a2av_ep8_24960b",
       "the staging layout: 24,960 B is 97.5 rows of 256 elements, so the run cannot have "
       "used [1, 256] tiles; with [1, 192] tiles the same per-chunk costs give -2 %"},
  };
  return *m;
}

absl::StatusOr<Simulated> Simulate(KernelKind kind, int ranks, const Workload& w,
                                   int core_num) {
  const uint64_t block = w.payload_bytes;
  int blocks = 1;
  int64_t stride = 1;
  if (kind == KernelKind::kOurs) {
    absl::StatusOr<int64_t> b = CalAllToAllVBlocks(ranks, core_num);
    if (!b.ok()) return b.status();
    blocks = static_cast<int>(*b);
    stride = blocks;
  }
  const uint64_t p = static_cast<uint64_t>(ranks);
  // Setup and collect run in the same child process (RunIsolated).
  rt::Domain domain;
  auto setup = [&](sim::SimSystem& sys) -> absl::Status {
    rt::DomainSpec spec;
    spec.name = "ep";
    for (int i = 0; i < ranks; ++i) spec.devices.push_back(i);
    const uint64_t sig_bytes = p * static_cast<uint64_t>(stride) * 4;
    spec.buffers = {{"input", p * block},   {"target", p * block}, {"signal", sig_bytes},
                    {"send_counts", p * 4}, {"recv_counts", p * 4}};
    spec.window_size = 2 * p * block + sig_bytes + 2 * p * 4 + 5 * 32;
    absl::StatusOr<rt::Domain> dom = sys.CreateDomain(spec);
    if (!dom.ok()) return dom.status();
    domain = *dom;
    std::vector<int8_t> bytes(p * block);
    const std::vector<int32_t> counts(p, static_cast<int32_t>(block));
    std::vector<rt::ChipArgs> args;
    for (int r = 0; r < ranks; ++r) {
      const auto& buf = dom->ranks[r].buffers;
      for (uint64_t d = 0; d < p; ++d) {
        for (uint64_t j = 0; j < block; ++j) {
          bytes[d * block + j] = PayloadByte(r, static_cast<int>(d), j);
        }
      }
      RETURN_IF_ERROR(sys.CopyTo(buf.at("input"), bytes.data(), bytes.size()));
      RETURN_IF_ERROR(sys.CopyTo(buf.at("send_counts"), counts.data(), p * 4));
      rt::ChipArgs a;
      // Our kernel reads MAX_RECV, SIZE and S from the shapes: rows of one
      // element, so any payload is a whole number of rows.
      auto words = [&](const char* name) {
        rt::Tensor t = buf.at(name);
        t.elem_bytes = 4;
        return t;
      };
      a.tensors = {buf.at("input").WithShape({p * block, 1}),
                   buf.at("target").WithShape({p * block, 1}),
                   words("signal").WithShape({p, static_cast<uint64_t>(stride)}),
                   words("send_counts"), words("recv_counts").WithShape({p, 1})};
      a.scalars = {dom->ranks[r].device_ctx.addr(), block, w.tile_bytes};
      args.push_back(a);
    }
    std::vector<int> devices(spec.devices);
    const KernelEntry k = kind == KernelKind::kMeasured
                              ? &MeasuredAllToAllVKernel
                              : &builtins::all_to_all_v_int8_t::AllToAllVKernel;
    return sys.DispatchGroup(devices, sim::testing::SingleTask("all_to_all_v", k, blocks, blocks > 1),
                             args);
  };
  auto collect = [&](sim::SimSystem& sys, sim::RunReport& r) {
    // Every rank received every source's full block and count.
    int64_t errors = 0;
    std::vector<int8_t> got(p * block);
    std::vector<int32_t> rc(p);
    for (int dst = 0; dst < ranks; ++dst) {
      const auto& buf = domain.ranks[dst].buffers;
      if (!sys.CopyFrom(got.data(), buf.at("target"), got.size()).ok() ||
          !sys.CopyFrom(rc.data(), buf.at("recv_counts"), p * 4).ok()) {
        ++errors;
        continue;
      }
      for (uint64_t s = 0; s < p; ++s) {
        if (rc[s] != static_cast<int32_t>(block)) ++errors;
        for (uint64_t j = 0; j < block; ++j) {
          if (got[s * block + j] != PayloadByte(static_cast<int>(s), dst, j)) ++errors;
        }
      }
    }
    (*r.mutable_values())["errors"] = errors;
  };
  sim::SimOptions o;
  o.platform = "a2a3";
  o.chips = ranks;
  o.trace = false;
  // The measured kernel runs for up to 18 ms, past the 10 ms deadline floor:
  // its deadline grows with its work (docs/simulator.md), so no tweak.
  // The measured kernel publishes its counts with packed remote Sets into
  // one line (pypto#2521's kernel, before pypto PR #2828), which on a2a3's
  // line write-back Set lose updates (pto-isa#322); the baseline's runs
  // reported their counts right, so the rows are replayed with the
  // word-safe Set of pto-isa#323, whose cost (an uncached read, then the
  // atomic) is that of the line write-back's fill and write-back.
  o.tweak = [](platforms::Platform& pl) {
    pl.set_notify_set(platforms::NOTIFY_SET_ATOMIC_DELTA);
  };
  sim::RunReport r = sim::testing::Simulate(o, setup, collect);
  if (r.error_code() != 0) {
    return absl::InternalError(absl::StrCat("simulation failed: code ", r.error_code(), " ",
                                            r.error_text()));
  }
  if (r.values().at("errors") != 0) {
    return absl::InternalError(
        absl::StrCat(r.values().at("errors"), " wrong bytes or counts after the exchange"));
  }
  Simulated s;
  s.blocks = blocks;
  for (const sim::TaskStat& t : r.tasks()) {
    s.kernel_ps = std::max(s.kernel_ps, t.end_ps() - t.start_ps());
  }
  return s;
}

absl::StatusOr<std::vector<Row>> RunCalibration(const std::vector<std::string>& files,
                                                bool with_ours) {
  std::map<std::string, std::string> by_stem;
  for (const std::string& f : files) {
    std::string base = f.substr(f.rfind('/') + 1);
    const std::string ext = ".textproto";
    if (base.size() > ext.size() && base.substr(base.size() - ext.size()) == ext) {
      by_stem[base.substr(0, base.size() - ext.size())] = f;
    }
  }
  std::vector<Row> rows;
  for (const Workload& w : PublishedWorkloads()) {
    auto it = by_stem.find(w.golden);
    if (it == by_stem.end()) {
      return absl::NotFoundError(absl::StrCat("no published golden ", w.golden, ".textproto"));
    }
    Row row;
    row.workload = w;
    ASSIGN_OR_RETURN(row.published, golden::ReadGoldenFile(it->second));
    if (row.published.kernels_size() != 1 || row.published.ranks() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(it->second, ": a published row has one kernel and at least 2 ranks"));
    }
    row.published_ps = row.published.kernels(0).max_ps();
    const int ranks = row.published.ranks();
    ASSIGN_OR_RETURN(Simulated m, Simulate(KernelKind::kMeasured, ranks, w));
    row.simulated_ps = m.kernel_ps;
    row.error = static_cast<double>(row.simulated_ps) / row.published_ps - 1.0;
    if (with_ours) {
      ASSIGN_OR_RETURN(Simulated o1, Simulate(KernelKind::kOurs, ranks, w, 1));
      ASSIGN_OR_RETURN(Simulated ow, Simulate(KernelKind::kOurs, ranks, w, kWideCoreNum));
      row.ours_ps = o1.kernel_ps;
      row.ours_wide_ps = ow.kernel_ps;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::string Us(int64_t ps) {
  const double us = ps * 1e-6;
  if (us >= 1000) return absl::StrFormat("%.2f ms", us / 1000);
  return absl::StrFormat("%.1f µs", us);
}

std::string Ranks(int ranks) { return absl::StrCat("EP", ranks); }

std::string Payload(uint64_t b) {
  if (b % (1 << 20) == 0) return absl::StrCat(b >> 20, " MiB");
  if (b % 1024 == 0) return absl::StrCat(b >> 10, " KiB");
  return absl::StrCat(b, " B");
}

}  // namespace

std::string FormatTable(const std::vector<Row>& rows) {
  const bool ours = !rows.empty() && rows[0].ours_ps > 0;
  std::string s =
      "| Ranks | Payload | published p50 | simulated | error | set |";
  if (ours) absl::StrAppend(&s, " ours, core_num=1 | vs published | ours, core_num=48 | vs published |");
  absl::StrAppend(&s, "\n| --- | --- | --- | --- | --- | --- |");
  if (ours) absl::StrAppend(&s, " --- | --- | --- | --- |");
  absl::StrAppend(&s, "\n");
  for (const Row& r : rows) {
    absl::StrAppend(&s, "| ", Ranks(r.published.ranks()), " | ", Payload(r.workload.payload_bytes),
                    " | ", Us(r.published_ps), " | ", Us(r.simulated_ps), " | ",
                    absl::StrFormat("%+.1f %%", r.error * 100), " | ",
                    SetName(r.workload.set), " |");
    if (ours) {
      absl::StrAppend(&s, " ", Us(r.ours_ps), " | ",
                      absl::StrFormat("%.0fx", static_cast<double>(r.published_ps) / r.ours_ps),
                      " | ", Us(r.ours_wide_ps), " | ",
                      absl::StrFormat("%.0fx", static_cast<double>(r.published_ps) / r.ours_wide_ps),
                      " |");
    }
    absl::StrAppend(&s, "\n");
  }
  return s;
}

namespace {

double BandError(double v, double lo, double hi) {
  if (v < lo) return v / lo - 1;
  if (v > hi) return v / hi - 1;
  return 0;
}

// Remote egress of one rank in Gbit/s: (P - 1) blocks over the kernel time.
double EgressGbps(int ranks, uint64_t payload, int64_t ps) {
  return static_cast<double>(ranks - 1) * payload * 8 / (ps * 1e-3);
}

}  // namespace

absl::StatusOr<std::vector<DerivedRow>> DeriveRows(const std::vector<Row>& rows) {
  // ps[ranks][payload]
  std::map<int, std::map<uint64_t, int64_t>> ps;
  for (const Row& r : rows) ps[r.published.ranks()][r.workload.payload_bytes] = r.simulated_ps;
  for (uint64_t payload : {uint64_t{64} << 10, uint64_t{1} << 20}) {
    ASSIGN_OR_RETURN(Simulated s, Simulate(KernelKind::kMeasured, 4, Workload{"ep4", payload}));
    ps[4][payload] = s.kernel_ps;
  }
  std::vector<DerivedRow> out;
  auto add = [&](std::string name, std::string published, double lo, double hi, double v) {
    DerivedRow d{std::move(name), std::move(published), lo, hi, v, BandError(v, lo, hi)};
    out.push_back(std::move(d));
  };
  for (uint64_t payload : {uint64_t{64} << 10, uint64_t{1} << 20}) {
    const std::string at = absl::StrCat(" at ", Payload(payload));
    add("EP4 / EP2" + at, "~2.5x", 2.5, 2.5,
        static_cast<double>(ps[4][payload]) / ps[2][payload]);
    add("EP8 / EP4" + at, "~1.9-2.3x", 1.9, 2.3,
        static_cast<double>(ps[8][payload]) / ps[4][payload]);
  }
  const std::map<int, std::pair<double, double>> bands = {
      {2, {2.3, 2.5}}, {4, {2.6, 2.9}}, {8, {2.3, 3.3}}};
  for (const auto& [ranks, band] : bands) {
    for (uint64_t payload : {uint64_t{64} << 10, uint64_t{1} << 20}) {
      add(absl::StrCat("EP", ranks, " remote egress at ", Payload(payload)),
          absl::StrFormat("%.1f-%.1f Gbps", band.first, band.second), band.first, band.second,
          EgressGbps(ranks, payload, ps[ranks][payload]));
    }
  }
  return out;
}

std::string FormatDerived(const std::vector<DerivedRow>& rows) {
  std::string s = "| Figure | published | simulated | error | set |\n| --- | --- | --- | --- | --- |\n";
  for (const DerivedRow& r : rows) {
    absl::StrAppendFormat(&s, "| %s | %s | %.2f | %+.1f %% | %s |\n", r.name, r.published,
                          r.simulated, r.error * 100, SetName(r.set));
  }
  return s;
}

}  // namespace pto::calibration
