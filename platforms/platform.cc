#include "platforms/platform.h"

#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pto::platforms {
namespace {

absl::Status Invalid(const std::string& platform, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("platform '", platform, "': ", what));
}

// A HIERARCHY fabric: tiers innermost first, each group a whole number of
// the groups below it, the last one holding max_chips.
absl::Status ValidateTiers(const std::string& n, const FabricSpec& f) {
  if (f.tiers_size() == 0) return Invalid(n, "a HIERARCHY fabric needs tiers");
  uint32_t inner = 1;
  for (int t = 0; t < f.tiers_size(); ++t) {
    const FabricTier& tier = f.tiers(t);
    const std::string at = absl::StrCat("fabric.tiers[", t, "] (", tier.name(), "): ");
    if (tier.name().empty()) return Invalid(n, absl::StrCat(at, "name is empty"));
    if (tier.kind() == FabricTier::KIND_UNSPECIFIED) {
      return Invalid(n, absl::StrCat(at, "kind must be MESH or SWITCH"));
    }
    if (tier.kind() == FabricTier::MESH && t != 0) {
      return Invalid(n, absl::StrCat(at, "only tier 0 may be a MESH"));
    }
    if (tier.group_chips() <= inner || tier.group_chips() % inner != 0) {
      return Invalid(n, absl::StrCat(at, "group_chips ", tier.group_chips(),
                                     " must be a multiple > 1 of the tier below's ", inner));
    }
    if (!(tier.link_bandwidth_gbps() > 0)) {
      return Invalid(n, absl::StrCat(at, "link_bandwidth_gbps must be > 0"));
    }
    if (tier.hop_latency_ns() < 0) return Invalid(n, absl::StrCat(at, "hop_latency_ns < 0"));
    if (tier.via_inner_ports() &&
        (t == 0 || f.tiers(t - 1).kind() != FabricTier::SWITCH)) {
      return Invalid(n, absl::StrCat(at, "via_inner_ports needs a SWITCH tier below"));
    }
    if (tier.ports_per_group() > inner) {
      return Invalid(n, absl::StrCat(at, "ports_per_group exceeds the chips of a group below"));
    }
    inner = tier.group_chips();
  }
  if (inner != f.max_chips()) {
    return Invalid(n, absl::StrCat("the last fabric tier's group_chips ", inner,
                                   " must equal max_chips ", f.max_chips()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePlatform(const Platform& p) {
  const std::string& n = p.name();
  if (n.empty()) return Invalid(n, "name is empty");
  if (p.aiv_cores() == 0) return Invalid(n, "aiv_cores must be > 0");
  if (p.aiv_cores() > 4096 || p.aic_cores() > 4096) {
    return Invalid(n, "core counts above 4096 are not plausible");
  }
  if (!(p.clock_ghz() > 0)) return Invalid(n, "clock_ghz must be > 0");
  if (p.ub_bytes() < 1024) return Invalid(n, "ub_bytes must be >= 1024");
  if (p.ub_block_bytes() == 0 || (p.ub_block_bytes() & (p.ub_block_bytes() - 1)) != 0 ||
      p.ub_block_bytes() > p.ub_bytes()) {
    return Invalid(n, "ub_block_bytes must be a power of two no larger than ub_bytes");
  }
  if (p.mte_burst_bytes() == 0 ||
      (p.mte_burst_bytes() & (p.mte_burst_bytes() - 1)) != 0) {
    return Invalid(n, "mte_burst_bytes must be a power of two");
  }
  if (!(p.mte_bytes_per_cycle() > 0)) {
    return Invalid(n, "mte_bytes_per_cycle must be > 0");
  }
  if (!(p.vector_bytes_per_cycle() > 0)) {
    return Invalid(n, "vector_bytes_per_cycle must be > 0");
  }
  if (p.dcache_line_bytes() < 8 ||
      (p.dcache_line_bytes() & (p.dcache_line_bytes() - 1)) != 0) {
    return Invalid(n, "dcache_line_bytes must be a power of two >= 8");
  }
  if (p.dcache_bytes() < p.dcache_line_bytes()) {
    return Invalid(n, "dcache_bytes must hold at least one line");
  }
  if (!(p.gm().bandwidth_gbps() > 0)) {
    return Invalid(n, "gm.bandwidth_gbps must be > 0");
  }
  if (p.gm().latency_ns() < 0 || p.gm().atomic_ns() < 0) {
    return Invalid(n, "gm latencies must be >= 0");
  }
  if (p.notify_set() == NOTIFY_SET_UNSPECIFIED) {
    return Invalid(n, "notify_set must be NOTIFY_SET_LINE_WRITEBACK or NOTIFY_SET_ATOMIC_DELTA");
  }
  const FabricSpec& f = p.fabric();
  if (f.kind() == FabricSpec::KIND_UNSPECIFIED) {
    return Invalid(n, "fabric.kind must be FULL_MESH, SWITCH or HIERARCHY");
  }
  if (f.max_chips() < 1 || f.max_chips() > 8192) {
    return Invalid(n, "fabric.max_chips must be in [1, 8192]");
  }
  if (f.kind() == FabricSpec::HIERARCHY) {
    absl::Status tiers = ValidateTiers(n, f);
    if (!tiers.ok()) return tiers;
  } else {
    if (f.tiers_size() > 0) return Invalid(n, "fabric.tiers need kind HIERARCHY");
    if (f.kind() == FabricSpec::FULL_MESH && f.links_per_chip() + 1 < f.max_chips()) {
      return Invalid(n, "a full mesh needs links_per_chip >= max_chips - 1");
    }
    if (!(f.link_bandwidth_gbps() > 0)) {
      return Invalid(n, "fabric.link_bandwidth_gbps must be > 0");
    }
    if (f.hop_latency_ns() < 0) return Invalid(n, "fabric.hop_latency_ns < 0");
  }
  if (f.chip_egress_gbps() < 0) return Invalid(n, "fabric.chip_egress_gbps < 0");
  if (f.chip_egress_gbps() > 0 && f.kind() != FabricSpec::FULL_MESH) {
    return Invalid(n, "fabric.chip_egress_gbps needs kind FULL_MESH");
  }
  const AicpuSpec& a = p.aicpu();
  if (a.scheduler_threads() == 0) {
    return Invalid(n, "aicpu.scheduler_threads must be > 0");
  }
  if (a.first_task_max_ns() < a.first_task_min_ns()) {
    return Invalid(n, "aicpu.first_task_max_ns < first_task_min_ns");
  }
  if (a.task_window() < 4 || (a.task_window() & (a.task_window() - 1)) != 0) {
    return Invalid(n, "aicpu.task_window must be a power of two >= 4");
  }
  if (!(p.timeouts().tensor_wait_ns() > 0) ||
      !(p.timeouts().op_timeout_ns() > 0)) {
    return Invalid(n, "timeouts must be > 0");
  }
  if (p.has_cube()) {
    const CubeSpec& c = p.cube();
    if (c.l1_bytes() == 0 || c.l0a_bytes() == 0 || c.l0b_bytes() == 0 || c.l0c_bytes() == 0 ||
        c.bias_bytes() == 0) {
      return Invalid(n, "cube: every buffer (l1, l0a, l0b, l0c, bias) needs bytes > 0");
    }
    if (!(c.mte2_bytes_per_cycle() > 0) || !(c.mte1_l0a_bytes_per_cycle() > 0) ||
        !(c.mte1_l0b_bytes_per_cycle() > 0) || !(c.mte1_bias_bytes_per_cycle() > 0) ||
        !(c.fix_gm_bytes_per_cycle() > 0) || !(c.fix_l1_bytes_per_cycle() > 0)) {
      return Invalid(n, "cube: every pipe rate (*_bytes_per_cycle) must be > 0");
    }
    if (c.cube_fp32_cycles_per_fractal() == 0) {
      return Invalid(n, "cube.cube_fp32_cycles_per_fractal must be > 0");
    }
  }
  if (!(p.timeouts().op_deadline_factor() >= 0)) {
    return Invalid(n, "timeouts.op_deadline_factor must be >= 0");
  }
  if (p.urma().present() &&
      (p.urma().max_wqe_bytes() == 0 || p.urma().sq_depth() == 0 ||
       p.urma().cq_depth() == 0 ||
       (p.urma().sq_depth() & (p.urma().sq_depth() - 1)) != 0 ||
       (p.urma().cq_depth() & (p.urma().cq_depth() - 1)) != 0)) {
    return Invalid(n,
                   "urma: max_wqe_bytes > 0 and power-of-two sq/cq depths");
  }
  return absl::OkStatus();
}

namespace {

// A platform is based on another that is based on ...: deeper than this is a
// cycle, or a design nobody can follow.
constexpr int kMaxExtendsDepth = 4;

const internal::EmbeddedPlatform* FindEmbedded(const std::string& name) {
  for (int i = 0; i < internal::kNumEmbeddedPlatforms; ++i) {
    if (name == internal::kEmbeddedPlatforms[i].name) return &internal::kEmbeddedPlatforms[i];
  }
  return nullptr;
}

absl::Status Unknown(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("unknown platform '", name, "' (known platforms: ",
                                          absl::StrJoin(PlatformNames(), ", "), ")"));
}

// Parses `text` and resolves its `extends` chain; not validated.
absl::StatusOr<Platform> ParseResolved(const std::string& text, int depth) {
  Platform p;
  if (!google::protobuf::TextFormat::ParseFromString(text, &p)) {
    return absl::InvalidArgumentError("platform textproto does not parse");
  }
  if (p.extends().empty()) return p;
  if (depth >= kMaxExtendsDepth) {
    return Invalid(p.name(), absl::StrCat("extends '", p.extends(), "': a chain deeper than ",
                                          kMaxExtendsDepth, " platforms (a cycle?)"));
  }
  const internal::EmbeddedPlatform* base = FindEmbedded(p.extends());
  if (base == nullptr) {
    return Invalid(p.name(), absl::StrCat("extends: ", Unknown(p.extends()).message()));
  }
  absl::StatusOr<Platform> out = ParseResolved(base->text, depth + 1);
  if (!out.ok()) return out.status();
  // Every field the file sets replaces the base's, a message as a whole:
  // clear them in the base, then merge.
  std::vector<const google::protobuf::FieldDescriptor*> set;
  p.GetReflection()->ListFields(p, &set);
  for (const google::protobuf::FieldDescriptor* f : set) {
    out->GetReflection()->ClearField(&*out, f);
  }
  out->MergeFrom(p);
  out->clear_extends();
  return out;
}

}  // namespace

absl::StatusOr<Platform> ParsePlatform(const std::string& text) {
  absl::StatusOr<Platform> p = ParseResolved(text, 0);
  if (!p.ok()) return p.status();
  absl::Status s = ValidatePlatform(*p);
  if (!s.ok()) return s;
  return p;
}

absl::StatusOr<Platform> LoadPlatform(const std::string& name) {
  const internal::EmbeddedPlatform* e = FindEmbedded(name);
  if (e == nullptr) return Unknown(name);
  absl::StatusOr<Platform> p = ParsePlatform(e->text);
  if (p.ok() && p->name() != name) {
    return absl::InternalError(absl::StrCat("platforms/", name,
                                            ".textproto names itself '", p->name(), "'"));
  }
  return p;
}

std::vector<std::string> PlatformNames() {
  std::vector<std::string> names;
  for (int i = 0; i < internal::kNumEmbeddedPlatforms; ++i) {
    names.push_back(internal::kEmbeddedPlatforms[i].name);
  }
  return names;
}

}  // namespace pto::platforms
