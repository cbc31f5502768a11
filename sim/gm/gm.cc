#include "sim/gm/gm.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pto::sim {

Gm::Gm(sc_core::sc_module_name name, int chip, const platforms::Platform& platform,
       bool timing_only, GmIndex* index)
    : sc_core::sc_module(name),
      chip_(chip),
      timing_only_(timing_only),
      index_(index),
      capacity_(platform.gm().capacity_bytes()),
      port_(absl::StrCat("gm c", chip), platform.gm().bandwidth_gbps()),
      latency_(NsToPs(platform.gm().latency_ns())),
      atomic_(NsToPs(platform.gm().atomic_ns())) {}

absl::StatusOr<uint64_t> Gm::Alloc(uint64_t bytes, const std::string& label) {
  if (bytes == 0) return absl::InvalidArgumentError("zero-byte allocation");
  if (used_ + bytes > capacity_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("chip ", chip_, " GM: ", bytes, " bytes for '", label,
                     "' exceed the remaining ", capacity_ - used_, " bytes"));
  }
  // A lazy mapping (page aligned, so 64-byte aligned): zeroed windows and
  // payload a timing-only run never writes cost no memory. As much address
  // space again stays unmapped behind it, so a kernel that overruns a buffer
  // by up to its size faults instead of reaching the next allocation.
  LazyBuffer storage(bytes, std::max<uint64_t>(bytes, 4096));
  if (storage.data() == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("host memory for ", bytes, " bytes of GM"));
  }
  const uint64_t addr = reinterpret_cast<uint64_t>(storage.data());
  regions_.emplace(addr, Region{bytes, label, std::move(storage)});
  if (index_ != nullptr) index_->Add(addr, bytes, chip_);
  used_ += bytes;
  return addr;
}

bool Gm::Contains(uint64_t addr, uint64_t bytes) const {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return false;
  --it;
  return addr >= it->first && addr + bytes <= it->first + it->second.bytes;
}

std::string Gm::Describe(uint64_t addr) const {
  auto it = regions_.upper_bound(addr);
  if (it != regions_.begin()) {
    --it;
    if (addr < it->first + it->second.bytes) {
      return absl::StrCat("c", chip_, ":", it->second.label, "+0x",
                          absl::Hex(addr - it->first));
    }
  }
  return absl::StrCat("c", chip_, ":<unmapped>");
}

void Gm::RecordCellWrite(uint64_t addr, CellWrite w) {
  CellLog& log = cells_[addr];
  if (w.line_writeback) {
    clobbers_.emplace_back(addr, w);
  } else {
    log.writers.insert(w.chip);
  }
  log.last = std::move(w);
}

void Gm::RecordPartialWriteBack(uint64_t line, uint32_t bytes, const uint8_t* stored,
                                const CellWrite& by) {
  auto [it, fresh] = partial_writebacks_.try_emplace(line);
  PartialWriteBack& p = it->second;
  if (fresh) {
    p.line = line;
    p.stored.assign(stored, stored + bytes);
    p.by = by;
    return;
  }
  for (uint32_t i = 0; i < bytes && i < p.stored.size(); ++i) p.stored[i] |= stored[i];
}

const CellWrite* Gm::LastCellWrite(uint64_t addr) const {
  auto it = cells_.find(addr);
  return it == cells_.end() ? nullptr : &it->second.last;
}

std::set<int> Gm::CellWriters(uint64_t addr) const {
  auto it = cells_.find(addr);
  return it == cells_.end() ? std::set<int>{} : it->second.writers;
}

}  // namespace pto::sim
