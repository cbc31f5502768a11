#include "sim/testing/module_harness.h"

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sim/common/fork_run.h"
#include "sim/common/sc_time.h"

namespace pto::sim::testing {

StubMemory::StubMemory(const platforms::Platform& platform, int chips, bool timing_only) {
  for (int c = 0; c < chips; ++c) {
    gms_.push_back(std::make_unique<Gm>(absl::StrCat("gm", c).c_str(), c, platform,
                                        timing_only, &index_));
  }
}

Link* StubMemory::AddLink(int src, int dst, double gbps, Ps hop) {
  const std::string label = absl::StrCat("link c", src, "->c", dst);
  // The SystemC name only has to be unique; the label names it in reports.
  links_.push_back(std::make_unique<Link>(absl::StrCat("link", links_.size()).c_str(), label,
                                          gbps, hop, &trace_,
                                          /*trace_pid=*/src, label));
  routes_[{src, dst}] = {links_.back().get()};
  return links_.back().get();
}

void StubMemory::SetRoute(int src, int dst, std::vector<Link*> links) {
  routes_[{src, dst}] = std::move(links);
}

int StubMemory::OwnerChip(uint64_t addr, uint64_t bytes) const {
  return index_.Owner(addr, bytes);
}

const std::vector<Link*>& StubMemory::Route(int src, int dst) {
  auto it = routes_.find({src, dst});
  return it == routes_.end() ? none_ : it->second;
}

std::string StubMemory::Describe(uint64_t addr) const {
  const int owner = OwnerChip(addr, 1);
  return owner < 0 ? absl::StrCat("0x", absl::Hex(addr)) : gms_[owner]->Describe(addr);
}

void RecordingObserver::BlockDone(ChipCore* core) {
  done_.push_back({core, Stamp()});
  done_event_.notify(sc_core::SC_ZERO_TIME);
}

void RecordingObserver::KernelError(ChipCore* core, int code, const std::string& msg) {
  errors_.push_back({core, code, msg, Stamp()});
}

int64_t ModuleRun::value(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? -1 : it->second;
}

std::string ModuleRun::text(const std::string& key) const {
  auto it = texts.find(key);
  return it == texts.end() ? "" : it->second;
}

namespace {

// One line per entry: "v KEY VALUE" or "t KEY ESCAPED-TEXT"; keys have no
// spaces.
std::string Serialize(const ModuleRun& r) {
  std::string out;
  for (const auto& [k, v] : r.values) absl::StrAppend(&out, "v ", k, " ", v, "\n");
  for (const auto& [k, t] : r.texts) absl::StrAppend(&out, "t ", k, " ", absl::CEscape(t), "\n");
  return out;
}

bool Parse(const std::string& bytes, ModuleRun* r) {
  for (absl::string_view line : absl::StrSplit(bytes, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, absl::MaxSplits(' ', 2));
    if (f.size() != 3) return false;
    if (f[0] == "v") {
      int64_t v;
      if (!absl::SimpleAtoi(f[2], &v)) return false;
      r->values[f[1]] = v;
    } else if (f[0] == "t") {
      std::string t;
      if (!absl::CUnescape(f[2], &t)) return false;
      r->texts[f[1]] = t;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

ModuleRun RunModule(const std::function<void(ModuleRun&)>& body) {
  absl::StatusOr<std::string> bytes = RunInChild(
      [&] {
        ModuleRun r;
        body(r);
        return Serialize(r);
      },
      "the module's process");
  ModuleRun failed;
  if (!bytes.ok()) {
    failed.failure = std::string(bytes.status().message());
    return failed;
  }
  ModuleRun r;
  if (!Parse(*bytes, &r)) {
    failed.failure = "the module's process sent an unreadable result";
    return failed;
  }
  return r;
}

}  // namespace pto::sim::testing
