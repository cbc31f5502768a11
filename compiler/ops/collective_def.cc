#include "compiler/ops/collective_def.h"

#include "compiler/ir/attrs.h"
#include "compiler/ops/collective_checks.h"
#include "compiler/ops/op_names.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/strings.h"

namespace pto::ops {
namespace {

using ir::DataType;
using K = CollectiveOperandKind;
using U = OperandUse;

constexpr int kInCore = static_cast<int>(CollectiveRail::kInCore);
constexpr int kHost = static_cast<int>(CollectiveRail::kHost);
constexpr int kChip = static_cast<int>(CollectiveRail::kChip);

const std::vector<ReduceOp> kEveryReduceOp = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin,
                                              ReduceOp::kProd};

// The HOST builtin kernels move or combine whole elements and are rendered
// per element type, so each of these renders (docs/collectives.md).
std::vector<DataType> HostDTypes() {
  return {DataType::kFP32, DataType::kFP16, DataType::kInt32, DataType::kInt8};
}

CollectiveDef Base(std::string_view op, CollectivePattern pattern, std::string_view builtin,
                   std::vector<CollectiveOperand> operands, size_t alias_arg, size_t signal_arg,
                   CollectiveCheck check, CollectiveCheck builtin_check) {
  CollectiveDef d{};
  d.op = op;
  d.pattern = pattern;
  d.check = check;
  d.builtin_check = builtin_check;
  d.builtin = builtin;
  d.operands = std::move(operands);
  d.alias_arg = alias_arg;
  d.signal_arg = signal_arg;
  d.rails[kInCore] = true;
  d.rails[kHost] = true;
  d.rails[kChip] = false;
  d.dtypes[kHost] = HostDTypes();
  d.dtypes[kChip] = std::vector<DataType>{};
  return d;
}

// The data-movement shape of allgather / all_to_all.
CollectiveDef RowExchange(std::string_view op, CollectivePattern pattern,
                          std::string_view builtin, CollectiveCheck check, bool row_input) {
  CollectiveDef d = Base(op, pattern, builtin,
                         {{"input", K::kTensor, U::kRead, false, /*row=*/row_input},
                          {"target", K::kWindow, U::kWrite},
                          {"signal", K::kWindow, U::kReadWrite}},
                         1, 2, check, checks::BuiltinRowExchange);
  // One block per peer (the HOST kernels gate their blocks on the rank's own
  // signal cell, runtime/builtins/collective_kernel.h).
  d.launch_width = LaunchWidthRule::kPerPeer;
  return d;
}

std::vector<CollectiveDef> MakeTable() {
  std::vector<CollectiveDef> t;
  const std::vector<DataType> fp = {DataType::kFP16, DataType::kFP32};
  const std::vector<DataType> a2av = {DataType::kFP32, DataType::kInt8};

  // Mesh allreduce: one-shot, with lanes (signal [P, >= B]).
  CollectiveDef mesh =
      Base("pld.tensor.allreduce", CollectivePattern::kAllReduce, "allreduce",
           {{"target", K::kWindow, U::kReadWrite}, {"signal", K::kWindow, U::kReadWrite}}, 0, 1,
           checks::AllReduce, checks::BuiltinAllReduce);
  mesh.mode = "mesh";
  mesh.signal_optional = true;
  mesh.dtypes[kInCore] = fp;
  mesh.reduce_ops[kInCore] = kEveryReduceOp;
  mesh.reduce_ops[kHost] = kEveryReduceOp;
  mesh.wider_signal = true;
  mesh.launch_width = LaunchWidthRule::kOneShot;
  t.push_back(mesh);

  // Ring allreduce: 2(P-1) steps over a [2(P-1)+1, P] signal; one block.
  CollectiveDef ring = mesh;
  ring.mode = "ring";
  ring.builtin = "allreduce_ring";
  ring.wider_signal = false;
  ring.launch_width = LaunchWidthRule::kOneBlock;
  ring.builtin_check = checks::BuiltinAllReduceRing;
  ring.ring_signal = true;
  t.push_back(ring);

  CollectiveDef barrier =
      Base("pld.tensor.barrier", CollectivePattern::kBarrier, "barrier",
           {{"signal", K::kWindow, U::kReadWrite}}, 0, 0, checks::Barrier, checks::BuiltinBarrier);
  barrier.dtypes[kHost] = std::nullopt;  // no data
  t.push_back(barrier);

  CollectiveDef broadcast =
      Base("pld.tensor.broadcast", CollectivePattern::kBroadcast, "broadcast",
           {{"target", K::kWindow, U::kReadWrite}, {"signal", K::kWindow, U::kReadWrite}}, 0, 1,
           checks::Broadcast, checks::BuiltinBroadcast);
  broadcast.has_root = true;
  t.push_back(broadcast);

  CollectiveDef reduce_scatter = Base(
      "pld.tensor.reduce_scatter", CollectivePattern::kReduceScatter, "reduce_scatter",
      {{"target", K::kWindow, U::kReadWrite}, {"signal", K::kWindow, U::kReadWrite}}, 0, 1,
      checks::ReduceScatter, checks::BuiltinReduceScatter);
  // The InCore composition adds tiles only; the HOST kernel takes every op.
  reduce_scatter.reduce_ops[kInCore] = {ReduceOp::kSum};
  reduce_scatter.reduce_ops[kHost] = kEveryReduceOp;
  t.push_back(reduce_scatter);

  CollectiveDef allgather = RowExchange("pld.tensor.allgather", CollectivePattern::kAllGather,
                                        "allgather", checks::AllGather, true);
  allgather.operands[0].param = "local_data";
  t.push_back(allgather);
  t.push_back(RowExchange("pld.tensor.all_to_all", CollectivePattern::kAllToAll,
                          "all_to_all", checks::AllToAll, false));

  CollectiveDef a2a_v =
      Base("pld.tensor.all_to_all_v", CollectivePattern::kAllToAllV, "all_to_all_v",
           {{"input", K::kTensor, U::kRead},
            {"target", K::kWindow, U::kWrite},
            {"signal", K::kWindow, U::kReadWrite},
            {"send_counts", K::kTensor, U::kRead, /*peers_read=*/true},
            {"recv_counts", K::kWindow, U::kWrite}},
           1, 2, checks::AllToAllV, checks::BuiltinAllToAllV);
  a2a_v.chip_package = "all_to_all_v";
  a2a_v.count_args = {3, 4};
  a2a_v.core_num_arg = 5;
  a2a_v.rails[kChip] = true;
  a2a_v.dtypes[kHost] = a2av;
  a2a_v.dtypes[kChip] = a2av;
  a2a_v.wider_signal = true;
  a2a_v.launch_width = LaunchWidthRule::kAllToAllV;
  t.push_back(a2a_v);

  // spec §5: A5 URMA, managed CHIP rail only; no HOST builtin.
  CollectiveDef indexed =
      Base("pld.tensor.indexed_all_to_all_v", CollectivePattern::kAllToAllV, "",
           {{"input", K::kTensor, U::kRead},
            {"target", K::kWindow, U::kWrite},
            {"signal", K::kWindow, U::kReadWrite},
            {"send_counts", K::kWindow, U::kRead, /*peers_read=*/true},
            {"recv_counts", K::kTensor, U::kWrite},
            {"index", K::kTensor, U::kRead}},
           1, 2, checks::IndexedAllToAllV, nullptr);
  // Its own kernel template, not all_to_all_v's.
  indexed.chip_package = "indexed_all_to_all_v";
  indexed.count_args = {3, 4};
  indexed.rails[kInCore] = false;
  indexed.rails[kHost] = false;
  indexed.rails[kChip] = true;
  indexed.dtypes[kHost] = std::vector<DataType>{};
  indexed.dtypes[kChip] = a2av;
  // spec §5: L is the exact number of blocks, no CalAllToAllVBlocks fold.
  indexed.launch_width = LaunchWidthRule::kExact;
  indexed.urma_only = true;
  t.push_back(indexed);
  return t;
}

}  // namespace

std::string_view CollectiveRailName(CollectiveRail rail) {
  switch (rail) {
    case CollectiveRail::kInCore:
      return "InCore";
    case CollectiveRail::kHost:
      return "HOST";
    case CollectiveRail::kChip:
      return "CHIP";
  }
  return "?";
}

std::string_view ReduceOpName(int64_t op) {
  static constexpr std::string_view kNames[] = {"sum", "max", "min", "prod"};
  return op >= 0 && op < 4 ? kNames[op] : std::string_view();
}

bool CollectiveDef::IsCountArg(size_t i) const {
  for (size_t c : count_args) {
    if (c == i) return true;
  }
  return false;
}

std::string CollectiveDef::BuiltinOpName() const {
  return pto::StrCat(names::kBuiltinTensorPrefix, builtin);
}

std::string CollectiveDef::TemplateDir() const {
  return pto::StrCat(":pypto.runtime.builtins.collectives.", builtin);
}

std::string CollectiveDef::ChipTemplateDir() const {
  return pto::StrCat(":pypto.runtime.builtins.collectives.", chip_package);
}

std::string CollectiveDef::ChipKernelName(std::string_view dtype_suffix) const {
  return pto::StrCat("__builtin_", chip_package, "__", dtype_suffix);
}

std::string CollectiveDef::Alias() const {
  constexpr std::string_view kTensor = "pld.tensor.";
  return pto::StrCat("pld.", op.substr(kTensor.size()));
}

std::string CollectiveDef::Signature() const {
  std::string out = "[";
  for (size_t i = 0; i < operands.size(); ++i) {
    pto::StrAppend(&out, i == 0 ? "" : ", ", operands[i].use == OperandUse::kRead ? "IN" : "OUT");
  }
  return out + "]";
}

std::string CollectiveDef::ReadOnlyCpp() const {
  std::string out = "{";
  for (size_t i = 0; i < operands.size(); ++i) {
    pto::StrAppend(&out, i == 0 ? "" : ", ",
                   operands[i].use == OperandUse::kRead ? "true" : "false");
  }
  return out + "}";
}

std::optional<size_t> CollectiveDef::InputArg() const {
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i != alias_arg && i != signal_arg && !IsCountArg(i) &&
        operands[i].use == OperandUse::kRead) {
      return i;
    }
  }
  return std::nullopt;
}

const std::vector<CollectiveDef>& Collectives() {
  static const auto* table = new std::vector<CollectiveDef>(MakeTable());
  return *table;
}

const CollectiveDef* FindCollective(std::string_view op_name) {
  for (const CollectiveDef& d : Collectives()) {
    if (d.op == op_name) return &d;
  }
  return nullptr;
}

const CollectiveDef* FindCollective(const ir::CallPtr& call) {
  if (call == nullptr || call->op() == nullptr || ir::Is<ir::GlobalVar>(call->op())) {
    return nullptr;
  }
  const std::string& name = call->op()->name();
  std::optional<std::string> mode = ir::GetAttr<std::string>(call->kwargs(), "mode");
  const CollectiveDef* first = nullptr;
  for (const CollectiveDef& d : Collectives()) {
    if (d.op != name) continue;
    if (first == nullptr) first = &d;
    if (mode && d.mode == *mode) return &d;
  }
  return first;
}

const CollectiveDef* FindCollectiveByBuiltin(std::string_view builtin) {
  if (builtin.empty()) return nullptr;
  for (const CollectiveDef& d : Collectives()) {
    if (d.builtin == builtin) return &d;
  }
  return nullptr;
}

std::string CollectiveCallText(const CollectiveDef& def, CollectiveRail rail,
                               const CallSpelling& spelling) {
  std::string args;
  for (const CollectiveOperand& o : def.operands) {
    pto::StrAppend(&args, args.empty() ? "" : ", ", spelling.operand(o));
  }
  if (!def.ReduceOps(rail).empty()) pto::StrAppend(&args, ", op=", spelling.op);
  if (FindCollective(def.op) != &def) pto::StrAppend(&args, ", mode=\"", def.mode, "\"");
  if (def.has_root) pto::StrAppend(&args, ", root=", spelling.root);
  if (rail != CollectiveRail::kInCore && TakesCoreNum(def.launch_width)) {
    pto::StrAppend(&args, ", core_num=", spelling.core_num);
  }
  const std::string result =
      spelling.result ? *spelling.result : spelling.operand(def.operands[def.alias_arg]);
  return pto::StrCat(result, result.empty() ? "" : " = ", def.op, "(", args, ")");
}

absl::Status CheckCollectiveMode(const ir::Call& call) {
  std::optional<std::string> mode = ir::GetAttr<std::string>(call.kwargs(), "mode");
  if (!mode) return absl::OkStatus();
  std::vector<std::string_view> modes;
  for (const CollectiveDef& d : Collectives()) {
    if (d.op != call.op()->name()) continue;
    if (d.mode == *mode) return absl::OkStatus();
    modes.push_back(d.mode);
  }
  if (modes.size() < 2) return absl::OkStatus();
  std::string list;
  for (size_t i = 0; i < modes.size(); ++i) {
    pto::StrAppend(&list, i == 0 ? "" : i + 1 == modes.size() ? " or " : ", ", "\"", modes[i],
                   "\"");
  }
  return UserErrorF(call.span(), call.op()->name(), " mode must be ", list, ", got \"", *mode,
                    "\"");
}

std::string CollectiveSignatureText(const CollectiveDef& def) {
  const CollectiveDef& first = *FindCollective(def.op);
  std::string out;
  for (size_t i = 0; i < first.operands.size(); ++i) {
    const CollectiveOperand& o = first.operands[i];
    pto::StrAppend(&out, i == 0 ? "" : ", ", o.param.empty() ? o.role : o.param, ": ",
                   o.kind == CollectiveOperandKind::kWindow ? "@Window" : "@Tensor",
                   first.signal_optional && i == first.signal_arg ? " = None" : "");
  }
  if (first.core_num_arg) pto::StrAppend(&out, ", cores: @Scalar = None");
  std::vector<std::string> kw;
  bool reduces = false;
  for (int r = 0; r < 3; ++r) reduces |= !first.reduce_ops[r].empty();
  if (reduces) kw.push_back("op: ReduceOp = Sum");
  size_t entries = 0;
  for (const CollectiveDef& d : Collectives()) entries += d.op == first.op ? 1 : 0;
  if (entries > 1) kw.push_back(pto::StrCat("mode: str = \"", first.mode, "\""));
  if (first.has_root) kw.push_back("root: int");
  if (TakesCoreNum(first.launch_width)) {
    // "any": the deducer takes an int or a scalar expression (CheckCoreNum).
    kw.push_back(first.core_num_arg ? std::string("core_num: any = None")
                                    : pto::StrCat("core_num: any = ", first.default_core_num));
  }
  for (size_t i = 0; i < kw.size(); ++i) pto::StrAppend(&out, i == 0 ? ", *, " : ", ", kw[i]);
  return out;
}

CoreNum CollectiveCoreNum(const CollectiveDef& def, const ir::Call& call) {
  return DecodeCoreNum(ir::FindAttr(call.kwargs(), ir::kAttrCoreNum), def.default_core_num);
}

CoreNum DecodeCoreNum(const ir::AttrValue* v, int64_t default_value) {
  CoreNum out;
  if (v == nullptr) {
    out.value = default_value;
  } else if (const int64_t* i = std::get_if<int64_t>(v)) {
    out.value = *i;
  } else if (const ir::ExprPtr* e = std::get_if<ir::ExprPtr>(v); e != nullptr && *e != nullptr) {
    out.value = ir::GetConstInt(*e);
    if (!out.value) out.expr = *e;
  }
  return out;
}

absl::Status CheckCoreNum(std::string_view op, const ir::AttrList& kwargs, const Span& span) {
  const ir::AttrValue* v = ir::FindAttr(kwargs, ir::kAttrCoreNum);
  if (v == nullptr) return absl::OkStatus();
  CoreNum l = DecodeCoreNum(v, 1);
  if (l.value) {
    absl::Status range = CheckRequestedCoreNum(*l.value);
    if (!range.ok()) return UserErrorF(span, op, " ", range.message());
    return absl::OkStatus();
  }
  if (l.expr == nullptr || !ir::Is<ir::ScalarType>(l.expr->type())) {
    return UserErrorF(span, op, " core_num must be an int or a scalar expression");
  }
  return absl::OkStatus();
}

absl::Status NormalizeCoreNum(std::string_view op, std::vector<ir::ExprPtr>& args,
                              ir::AttrList& kwargs, const Span& span) {
  const CollectiveDef* def = FindCollective(op);
  if (def == nullptr || !def->core_num_arg || args.size() <= *def->core_num_arg) {
    return absl::OkStatus();
  }
  if (ir::HasAttr(kwargs, ir::kAttrCoreNum)) {
    return UserErrorF(span, op, " core_num given both as the ", *def->core_num_arg + 1,
                      "th argument and as a kwarg");
  }
  ir::ExprPtr l = args[*def->core_num_arg];
  args.erase(args.begin() + static_cast<std::ptrdiff_t>(*def->core_num_arg));
  if (std::optional<int64_t> c = ir::GetConstInt(l)) {
    kwargs.emplace_back(ir::kAttrCoreNum, *c);
  } else {
    kwargs.emplace_back(ir::kAttrCoreNum, std::move(l));
  }
  return absl::OkStatus();
}

}  // namespace pto::ops
