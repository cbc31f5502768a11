#include "tools/bench/collective_bench.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ops/collective_def.h"

namespace pto::bench {
namespace {

// The collective whose HOST builtin is `c` (compiler/ops/collective_def.h).
const ops::CollectiveDef* Def(const std::string& c) { return ops::FindCollectiveByBuiltin(c); }

bool IsReduction(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && !def->ReduceOps(ops::CollectiveRail::kHost).empty();
}

// A collective whose width follows core_num takes it and a signal lane per
// block (the per-peer ones launch P blocks on their [P] signal).
bool HasLanes(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && TakesCoreNum(def->launch_width);
}

// A collective that reads a separate input window (allgather, all_to_all,
// all_to_all_v) besides the one its result aliases.
bool HasStage(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && def->InputArg().has_value();
}

// The input is one [1, SIZE] row per rank (allgather), not [NR, SIZE].
bool RowInput(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && def->InputArg() && def->operands[*def->InputArg()].row;
}

bool Counted(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && !def->count_args.empty();
}

// The alpha-beta bound of the collective's algorithm on a full mesh, by its
// pattern: every rank pulls the whole buffer from each peer over its own
// link (mesh allreduce, broadcast), 2(n-1) dependent one-chunk steps (the
// ring), one chunk per peer on the n-1 links at once (the exchanges), or
// one signalled hop (barrier).
enum class Bound { kAlpha, kWholeBuffer, kRingSteps, kChunkPerPeer };
Bound BoundOf(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  if (def == nullptr) return Bound::kChunkPerPeer;
  switch (def->pattern) {
    case ops::CollectivePattern::kBarrier:
      return Bound::kAlpha;
    case ops::CollectivePattern::kAllReduce:
      return def->ring_signal ? Bound::kRingSteps : Bound::kWholeBuffer;
    case ops::CollectivePattern::kBroadcast:
      return Bound::kWholeBuffer;
    default:
      return Bound::kChunkPerPeer;
  }
}

std::string_view BoundText(Bound b) {
  switch (b) {
    case Bound::kAlpha:
      return "alpha";
    case Bound::kWholeBuffer:
      return "alpha + size / link";
    case Bound::kRingSteps:
      return "2(n-1) (alpha + size / n / link)";
    case Bound::kChunkPerPeer:
      return "alpha + size / n / link";
  }
  return "?";
}

int OpIndex(const std::string& op) {
  static const std::map<std::string, int>* ops =
      new std::map<std::string, int>{{"sum", 0}, {"max", 1}, {"min", 2}, {"prod", 3}};
  auto it = ops->find(op);
  return it == ops->end() ? -1 : it->second;
}

// The signal shape each builtin's entry checks (docs/collectives.md).
std::string SignalShape(const BenchSpec& s) {
  const int n = s.ranks;
  if (HasLanes(s.collective)) {
    return absl::StrCat("[", n, ", ", s.lanes, "]");  // one lane per launched block
  }
  if (Def(s.collective)->ring_signal) return absl::StrCat("[", 2 * (n - 1) + 1, ", ", n, "]");
  if (HasStage(s.collective)) return absl::StrCat("[", n, ", 1]");
  return absl::StrCat("[", n, "]");
}

// The HOST-rail call of the collective on size k's views (its syntax from
// the def).
std::string Call(const BenchSpec& s, int k) {
  ops::CallSpelling spell;
  spell.operand = [k](const ops::CollectiveOperand& o) -> std::string {
    if (o.role == "target") return absl::StrCat("data", k);
    if (o.role == "input") return absl::StrCat(o.row ? "row" : "stage", k);
    if (o.role == "send_counts") return "counts";
    if (o.role == "recv_counts") return "recv";
    return std::string(o.role);  // signal
  };
  spell.op = OpIndex(s.op);
  spell.root = s.root;
  spell.core_num = s.lanes;
  return ops::CollectiveCallText(*Def(s.collective), ops::CollectiveRail::kHost, spell);
}

}  // namespace

bool MovesNoData(const std::string& c) {
  const ops::CollectiveDef* def = Def(c);
  return def != nullptr && def->pattern == ops::CollectivePattern::kBarrier;
}

const std::vector<std::string>& BenchCollectives() {
  static const std::vector<std::string>* c = [] {
    auto* names = new std::vector<std::string>;
    for (const ops::CollectiveDef& def : ops::Collectives()) {
      if (!def.builtin.empty() && def.OnRail(ops::CollectiveRail::kHost)) {
        names->emplace_back(def.builtin);
      }
    }
    return names;
  }();
  return *c;
}

int DtypeBytes(const std::string& dtype) {
  if (dtype == "FP32" || dtype == "INT32") return 4;
  if (dtype == "FP16") return 2;
  if (dtype == "INT8") return 1;
  return 0;
}

absl::StatusOr<std::string> RenderBenchProgram(const BenchSpec& spec) {
  const std::vector<std::string>& known = BenchCollectives();
  if (std::find(known.begin(), known.end(), spec.collective) == known.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown collective '", spec.collective,
                                                   "' (", absl::StrJoin(known, ", "), ")"));
  }
  const int elem = DtypeBytes(spec.dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown dtype '", spec.dtype, "' (FP32, FP16, INT32, INT8)"));
  }
  if (OpIndex(spec.op) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown reduce op '", spec.op, "' (sum, max, min, prod)"));
  }
  if (spec.ranks < 2) return absl::InvalidArgumentError("ranks must be at least 2");
  if (spec.lanes < 1) return absl::InvalidArgumentError("lanes must be at least 1");
  const bool barrier = MovesNoData(spec.collective);
  std::vector<int64_t> elems;  // per size: elements per row (of NR rows)
  for (int64_t size : barrier ? std::vector<int64_t>{0} : spec.sizes) {
    const int64_t row = static_cast<int64_t>(spec.ranks) * elem;
    if (!barrier && (size <= 0 || size % row != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "size ", size, " is not a positive multiple of ranks * element bytes = ", row));
    }
    elems.push_back(barrier ? 1 : size / row);
  }
  if (elems.empty()) return absl::InvalidArgumentError("no sizes");
  const int64_t max_elems = *std::max_element(elems.begin(), elems.end());
  const bool stage = HasStage(spec.collective);
  const bool a2av = Counted(spec.collective);
  const std::string dt = absl::StrCat("pl.", spec.dtype);
  std::string p = absl::StrCat(
      "# pto-bench-collective: ", spec.collective, " ", spec.dtype, " on ", spec.ranks,
      " ranks, HOST rail; each size twice (warm-up, measured) on one signal.\n"
      "import pypto.language as pl\nimport pypto.language.distributed as pld\n\nNR = ",
      spec.ranks, "\nMAX = ", max_elems, "\n\n\n@pl.program\nclass BenchCollective:\n");
  if (a2av) {
    // One row of every size to every peer: counts[p] = 1.
    absl::StrAppend(
        &p,
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def fill_counts(\n        self, counts: pl.Out[pld.DistributedTensor[[NR], "
        "pl.INT32]]\n    ) -> pld.DistributedTensor[[NR], pl.INT32]:\n"
        "        for peer, (c,) in pl.range(NR, init_values=(counts,)):\n"
        "            c_next = pl.tensor.write(c, [peer], pl.const(1, pl.INT32))\n"
        "            c_out = pl.yield_(c_next)\n        return c_out\n\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def counts_pipeline(\n        self, counts: pld.DistributedTensor[[NR], pl.INT32]\n"
        "    ) -> pld.DistributedTensor[[NR], pl.INT32]:\n"
        "        filled = self.fill_counts(counts)\n        return filled\n\n");
  }
  // Every window buffer must reach the devices through a chip dispatch for
  // MaterializeCommDomainScopes to give it the collective's comm domain: one
  // empty pipeline per device takes them all.
  const std::string whole = absl::StrCat("pld.DistributedTensor[[NR, MAX], ", dt, "]");
  absl::StrAppend(&p,
                  "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                  "    def join(\n        self,\n        data: ",
                  whole, ",\n", stage ? absl::StrCat("        stage: ", whole, ",\n") : "",
                  "        signal: pld.DistributedTensor[", SignalShape(spec), ", pl.INT32],\n",
                  a2av ? "        recv: pld.DistributedTensor[[NR, 1], pl.INT32],\n" : "",
                  "    ):\n        pass\n\n");
  absl::StrAppend(&p,
                  "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
                  "    def host_orch(self):\n",
                  "        data_buf = pld.alloc_window_buffer(NR * MAX * ", dt, ".get_byte())\n");
  if (stage) {
    absl::StrAppend(&p, "        stage_buf = pld.alloc_window_buffer(NR * MAX * ", dt,
                    ".get_byte())\n");
  }
  const std::string sig = SignalShape(spec);
  absl::StrAppend(&p, "        signal_buf = pld.alloc_window_buffer(4096)\n",
                  "        signal = pld.window(signal_buf, ", sig, ", dtype=pl.INT32)\n");
  if (a2av) {
    absl::StrAppend(&p,
                    "        counts_buf = pld.alloc_window_buffer(NR * pl.INT32.get_byte())\n"
                    "        recv_buf = pld.alloc_window_buffer(NR * pl.INT32.get_byte())\n"
                    "        counts = pld.window(counts_buf, [NR], dtype=pl.INT32)\n"
                    "        recv = pld.window(recv_buf, [NR, 1], dtype=pl.INT32)\n"
                    "        for r in pl.range(pld.world_size()):\n"
                    "            self.counts_pipeline(counts, device=r)\n");
  }
  absl::StrAppend(&p, "        data = pld.window(data_buf, [NR, MAX], dtype=", dt, ")\n");
  if (stage) {
    absl::StrAppend(&p, "        stage = pld.window(stage_buf, [NR, MAX], dtype=", dt, ")\n");
  }
  absl::StrAppend(&p, "        for r in pl.range(pld.world_size()):\n            self.join(data, ",
                  stage ? "stage, " : "", "signal, ", a2av ? "recv, " : "", "device=r)\n");
  for (size_t k = 0; k < elems.size(); ++k) {
    const std::string shape = absl::StrCat("[NR, ", elems[k], "]");
    if (!barrier) {
      absl::StrAppend(&p, "        data", k, " = pld.window(data_buf, ", shape, ", dtype=", dt,
                      ")\n");
    }
    if (RowInput(spec.collective)) {
      absl::StrAppend(&p, "        row", k, " = pld.window(stage_buf, [1, ", elems[k],
                      "], dtype=", dt, ")\n");
    } else if (stage) {
      absl::StrAppend(&p, "        stage", k, " = pld.window(stage_buf, ", shape, ", dtype=", dt,
                      ")\n");
    }
    const std::string call = Call(spec, static_cast<int>(k));
    absl::StrAppend(&p, "        ", call, "\n        ", call, "\n");
  }
  return p;
}

double BusFactor(const std::string& c, int n) {
  const ops::CollectiveDef* def = Def(c);
  switch (def == nullptr ? ops::CollectivePattern::kAllToAll : def->pattern) {
    case ops::CollectivePattern::kAllReduce:
      return 2.0 * (n - 1) / n;
    case ops::CollectivePattern::kBroadcast:
      return 1.0;
    case ops::CollectivePattern::kBarrier:
      return 0.0;
    default:
      return static_cast<double>(n - 1) / n;
  }
}

double TimeBound(const std::string& c, int n, double bytes, const LinkModel& link) {
  const double b = link.link_bytes_per_s;
  switch (BoundOf(c)) {
    case Bound::kAlpha:
      return link.alpha_s;
    case Bound::kWholeBuffer:
      return link.alpha_s + bytes / b;
    case Bound::kRingSteps:
      return 2.0 * (n - 1) * (link.alpha_s + bytes / n / b);
    case Bound::kChunkPerPeer:
      return link.alpha_s + bytes / n / b;
  }
  return 0;
}

absl::StatusOr<std::vector<BenchRow>> MeasureRows(const BenchSpec& spec,
                                                  const sim::RunReport& report,
                                                  const LinkModel& link) {
  // Per chip, the builtin tasks in dispatch order.
  std::map<int, std::vector<const sim::TaskStat*>> per_chip;
  for (const sim::TaskStat& t : report.tasks()) {
    if (t.kernel().rfind("builtin_tensor_", 0) == 0) per_chip[t.chip()].push_back(&t);
  }
  const bool barrier = MovesNoData(spec.collective);
  const size_t sizes = barrier ? 1 : spec.sizes.size();
  if (static_cast<int>(per_chip.size()) != spec.ranks) {
    return absl::InternalError(absl::StrCat("the run has collective tasks on ", per_chip.size(),
                                            " chips, want ", spec.ranks));
  }
  for (auto& [chip, tasks] : per_chip) {
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const sim::TaskStat* a, const sim::TaskStat* b) {
                       return a->run() != b->run() ? a->run() < b->run()
                                                   : a->start_ps() < b->start_ps();
                     });
    if (tasks.size() != 2 * sizes) {
      return absl::InternalError(absl::StrCat("chip ", chip, " ran ", tasks.size(),
                                              " collective tasks, want ", 2 * sizes));
    }
  }
  const int elem = DtypeBytes(spec.dtype);
  std::vector<BenchRow> rows;
  for (size_t k = 0; k < sizes; ++k) {
    int64_t start = INT64_MAX, end = 0;
    for (const auto& [chip, tasks] : per_chip) {
      start = std::min(start, tasks[2 * k + 1]->start_ps());
      end = std::max(end, tasks[2 * k + 1]->end_ps());
    }
    BenchRow r;
    r.size = barrier ? 0 : spec.sizes[k];
    r.count = r.size / elem;
    r.seconds = (end - start) * 1e-12;
    r.algbw = r.seconds > 0 ? r.size / r.seconds : 0;
    r.busbw = r.algbw * BusFactor(spec.collective, spec.ranks);
    r.bound_s = TimeBound(spec.collective, spec.ranks, static_cast<double>(r.size), link);
    r.of_bound = r.seconds > 0 ? r.bound_s / r.seconds : 0;
    rows.push_back(r);
  }
  return rows;
}

std::string FormatTable(const BenchSpec& spec, const std::string& platform,
                        const LinkModel& link, const std::vector<BenchRow>& rows) {
  const bool reduction = IsReduction(spec.collective);
  std::string out = absl::StrFormat(
      "# %s, HOST rail, %d ranks (%s), %s%s%s\n"
      "# link %.0f GB/s per direction, alpha %.2f us; bound: %s\n",
      spec.collective, spec.ranks, platform, spec.dtype,
      HasLanes(spec.collective) ? absl::StrCat(", core_num ", spec.lanes)
          : "",
      Def(spec.collective) != nullptr && Def(spec.collective)->has_root
          ? absl::StrCat(", root ", spec.root)
          : "",
      link.link_bytes_per_s / 1e9, link.alpha_s * 1e6,
      BoundText(BoundOf(spec.collective)));
  absl::StrAppend(&out, absl::StrFormat("%12s %12s %6s %6s %11s %9s %9s %11s %9s\n", "size",
                                        "count", "type", "redop", "time(us)", "algbw",
                                        "busbw", "bound(us)", "of bound"));
  absl::StrAppend(&out, absl::StrFormat("%12s %12s %6s %6s %11s %9s %9s %11s %9s\n", "(B)",
                                        "(elements)", "", "", "", "(GB/s)", "(GB/s)", "", ""));
  for (const BenchRow& r : rows) {
    absl::StrAppend(&out, absl::StrFormat("%12d %12d %6s %6s %11.2f %9.2f %9.2f %11.2f %8.1f%%\n",
                                          r.size, r.count, absl::AsciiStrToLower(spec.dtype),
                                          reduction ? spec.op : "none", r.seconds * 1e6,
                                          r.algbw / 1e9, r.busbw / 1e9, r.bound_s * 1e6,
                                          100 * r.of_bound));
  }
  return out;
}

}  // namespace pto::bench
