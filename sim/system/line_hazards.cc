// The whole-line write-back hazards of a run (docs/simulator.md, "Board-only
// bug classes"): lost updates, where a core's write-back of a cache line put
// a stale copy over a word another agent had changed since the fill
// (pto-isa#322), and window sub-buffers that share a cache line, so that a
// write-back meant for one rewrites the other (simpler#2273).
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/system/system.h"

namespace pto::sim {

std::string SimSystem::WriterText(const CellWrite& w) const {
  const std::string who = absl::StrCat("rank ", w.chip, " ", w.aic ? "AIC" : "AIV", w.core,
                                       " task ", w.task, " (kernel ", w.kernel, ") at ",
                                       w.time / 1000000.0, " us");
  if (!w.line_writeback) {
    return absl::StrCat("TNOTIFY ", w.add ? "+" : "=", w.value, " by ", who);
  }
  return absl::StrCat("the whole-line write-back of ", w.by_set ? "a TNOTIFY Set to " : "a store to ",
                      CellName(w.target), " by ", who, " restored the stale ", w.value,
                      " over ", w.lost, " (a lost update: pto-isa#322)");
}

void SimSystem::ReportLineHazards(RunReport* r) const {
  for (const auto& chip : chips_) {
    const Gm& gm = chip->gm();
    for (const auto& [addr, w] : gm.clobbers()) {
      r->add_line_clobbers(absl::StrCat(CellName(addr), ": ", WriterText(w)));
    }
    for (const auto& [line, pw] : gm.partial_writebacks()) {
      // The named buffers this line holds bytes of, and whether the
      // write-backs stored into each.
      std::vector<std::pair<const DomainBuffer*, bool>> in_line;
      for (uint64_t i = 0; i < pw.stored.size(); ++i) {
        const DomainBuffer* b = FindBuffer(line + i);
        if (b == nullptr) continue;
        if (in_line.empty() || in_line.back().first != b) in_line.push_back({b, false});
        in_line.back().second = in_line.back().second || pw.stored[i] != 0;
      }
      std::vector<std::string> stored, carried;
      for (const auto& [b, s] : in_line) (s ? stored : carried).push_back(b->buffer);
      if (stored.empty() || carried.empty()) continue;
      const DomainBuffer& b = *in_line.front().first;
      r->add_shared_lines(absl::StrCat(
          "window ", b.domain, " r", b.rank, ": buffers ", absl::StrJoin(stored, ", "), " and ",
          absl::StrJoin(carried, ", "), " share the ", pw.stored.size(), "-byte line at ",
          Describe(line), "; a write-back of ", absl::StrJoin(stored, ", "), " (first: ",
          pw.by.by_set ? "a TNOTIFY Set to " : "a store to ", CellName(pw.by.target), " by rank ",
          pw.by.chip, " ", pw.by.aic ? "AIC" : "AIV", pw.by.core, ", kernel ", pw.by.kernel,
          ") rewrites ", absl::StrJoin(carried, ", "),
          " with its stale copy (align window sub-buffers to the line: simpler#2273)"));
    }
  }
}

}  // namespace pto::sim
