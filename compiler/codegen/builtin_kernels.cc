#include "compiler/codegen/builtin_kernels.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/attrs.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/collective_def.h"
#include "compiler/ops/op_names.h"
#include "compiler/ops/op_registry.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/strings.h"

namespace pto::codegen {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Template errors carry no location; the IR node that named the package does.
absl::Status Locate(const absl::Status& status, const Span& span) {
  return UserError(span, std::string(status.message()));
}

// Calls in a body: builtin dispatches, and the callee names of function calls.
class CallCollector : public ir::IRVisitor {
 public:
  std::vector<ir::CallPtr> builtins;
  std::set<std::string> callees;

 protected:
  void VisitCall(const ir::CallPtr& call) override {
    const std::string& name = call->op()->name();
    if (ir::Is<ir::GlobalVar>(call->op())) {
      callees.insert(name);
    } else if (ops::TraitsOf(*call).host_dispatch) {
      builtins.push_back(call);
    }
    ir::IRVisitor::VisitCall(call);
  }
  void VisitType(const ir::TypePtr&) override {}
};

absl::StatusOr<std::string> Render(const TemplateFiles& files, std::string_view file,
                                   std::string_view handle, const TemplateVars& vars) {
  auto it = files.find(file);
  if (it == files.end()) {
    return absl::NotFoundError(
        pto::StrCat("builtin template package '", handle, "' has no ", file));
  }
  absl::StatusOr<std::string> text = RenderTemplate(it->second, vars);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        pto::StrCat("rendering ", file, " of '", handle, "': ", text.status().message()));
  }
  return *std::move(text);
}

// CHIP rail: kernel.cpp.in of one synthesized function, into each caller's build.
absl::Status RenderChipKernel(const ir::FunctionPtr& func, const std::string& handle,
                              const std::vector<std::string>& callers,
                              const TemplateSource& templates, Bundle& bundle) {
  const Span& span = func->span();
  TemplateVars vars;
  if (const ir::AttrValue* v = ir::FindAttr(func->attrs(), "builtin_template_vars")) {
    const std::string* text = std::get_if<std::string>(v);
    if (text == nullptr) {
      return UserErrorF(span, "builtin_template_vars of '", func->name(),
                        "' must be a string of comma-separated key=value pairs");
    }
    std::vector<std::string> pairs;
    for (absl::string_view pair : absl::StrSplit(ToAbsl(*text), ',', absl::SkipWhitespace())) {
      pairs.emplace_back(absl::StripAsciiWhitespace(pair));
    }
    absl::StatusOr<TemplateVars> parsed = ParseTemplateVars(pairs);
    if (!parsed.ok()) {
      return UserErrorF(span, "builtin_template_vars of '", func->name(),
                        "': ", parsed.status().message());
    }
    vars = *std::move(parsed);
  }
  vars["template_package"] = handle.substr(1);
  absl::StatusOr<TemplateFiles> files = templates.Load(handle);
  if (!files.ok()) return Locate(files.status(), span);
  absl::StatusOr<std::string> kernel = Render(*files, "kernel.cpp.in", handle, vars);
  if (!kernel.ok()) return Locate(kernel.status(), span);
  for (const std::string& caller : callers) {
    bundle[pto::StrCat("next_levels/", caller, "/kernels/aiv/", func->name(), ".cpp")] = *kernel;
  }
  return absl::OkStatus();
}

// The entry and kernel config every HOST builtin shares, rendered with its
// CollectiveDef (runtime/builtins/host_rail); a package's own file wins.
constexpr char kHostRailHandle[] = ":pypto.runtime.builtins.collectives.host_rail";
constexpr std::string_view kSharedTemplates[] = {"entry.cpp.in", "kernel_config.textproto.in"};

// The package's files plus the shared ones it lacks.
absl::StatusOr<TemplateFiles> HostTemplates(const BuiltinVariant& v,
                                            const TemplateSource& templates) {
  ASSIGN_OR_RETURN(TemplateFiles files, templates.Load(v.template_dir));
  bool complete = true;
  for (std::string_view f : kSharedTemplates) complete = complete && files.count(f) > 0;
  if (complete) return files;
  absl::StatusOr<TemplateFiles> shared = templates.Load(kHostRailHandle);
  // Without the shared package the package renders what it has, as before.
  if (absl::IsNotFound(shared.status())) return files;
  if (!shared.ok()) return shared.status();
  for (std::string_view f : kSharedTemplates) {
    auto it = shared->find(f);
    if (it != shared->end()) files.emplace(it->first, it->second);
  }
  return files;
}

// What the shared templates read from the def: the operands, the signal, the
// launch-width rule and the root.
void AddDefVars(const ops::CollectiveDef& def, TemplateVars& vars) {
  std::string roles = "[";
  for (size_t i = 0; i < def.operands.size(); ++i) {
    pto::StrAppend(&roles, i == 0 ? "" : ", ", def.operands[i].role);
  }
  vars["operands"] = roles + "]";
  vars["read_only"] = def.ReadOnlyCpp();
  vars["signature"] = def.Signature();
  vars["signal_index"] = pto::StrCat(def.signal_arg);
  vars["launch_width"] = LaunchWidthRuleCpp(def.launch_width);
  vars.emplace("root_cpp", "-1");  // broadcast's variant sets its root
}

// HOST rail: every template of one variant under next_levels/<variant>/.
absl::Status RenderHostVariant(const BuiltinVariant& v, const ops::CollectiveDef& def,
                               const Span& span, const TemplateSource& templates,
                               const BuiltinRenderOptions& options, Bundle& bundle) {
  absl::StatusOr<TemplateFiles> files = HostTemplates(v, templates);
  if (!files.ok()) return Locate(files.status(), span);
  TemplateVars vars = v.vars;
  AddDefVars(def, vars);
  vars["variant"] = v.variant;
  vars["entry"] = v.entry;
  vars["kernel_name"] = v.kernel_name;
  vars["template_package"] = v.template_dir.substr(1);
  vars["runtime"] = options.runtime;
  const std::string dir = pto::StrCat("next_levels/", v.variant, "/");
  for (const auto& [file, text] : *files) {
    std::string out;
    if (file == "entry.cpp.in") {
      out = pto::StrCat("orchestration/", v.entry, ".cpp");
    } else if (file == "kernel.cpp.in") {
      out = pto::StrCat("kernels/aiv/", v.kernel_name, ".cpp");
    } else {
      out = file.substr(0, file.size() - 3);  // X.in -> X
    }
    absl::StatusOr<std::string> rendered = Render(*files, file, v.template_dir, vars);
    if (!rendered.ok()) return Locate(rendered.status(), span);
    bundle[dir + out] = *std::move(rendered);
  }
  return absl::OkStatus();
}

}  // namespace

std::string SanitizeSymbol(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return out;
}

std::optional<std::string_view> DTypeCpp(ir::DataType dtype) {
  using DT = ir::DataType;
  switch (dtype) {
    case DT::kFP32:
      return "float";
    case DT::kFP16:
      return "half";
    case DT::kBF16:
      return "bfloat16_t";
    case DT::kInt8:
      return "int8_t";
    case DT::kInt16:
      return "int16_t";
    case DT::kInt32:
      return "int32_t";
    case DT::kInt64:
      return "int64_t";
    case DT::kUInt8:
      return "uint8_t";
    case DT::kUInt16:
      return "uint16_t";
    case DT::kUInt32:
      return "uint32_t";
    case DT::kUInt64:
      return "uint64_t";
    default:
      return std::nullopt;
  }
}

absl::StatusOr<BuiltinVariant> HostBuiltinVariant(const ir::CallPtr& call) {
  const std::string& op = call->op()->name();
  const ops::OpDef* def = ops::OpRegistry::Global().Find(op);
  if (def == nullptr || def->category != ops::OpCategory::kBuiltinOp || def->template_dir.empty()) {
    return InternalErrorF(call->span(), op, " is not a builtin chip dispatch with templates");
  }
  const std::string short_name = def->name.substr(ops::names::kBuiltinTensorPrefix.size());
  BuiltinVariant v;
  v.op_name = def->name;
  v.template_dir = def->template_dir;
  const ops::CollectiveDef* coll = ops::FindCollectiveByBuiltin(short_name);
  if (coll == nullptr) {
    return InternalErrorF(call->span(), op, " names no collective's HOST builtin");
  }
  // barrier carries no data; S0 names and renders it as fp32 (§3.11).
  ir::DataType dtype =
      !coll->DTypes(ops::CollectiveRail::kHost).has_value()
          ? ir::DataType::kFP32
          : ir::GetAttr<ir::DataType>(call->kwargs(), "dtype").value_or(ir::DataType::kFP32);
  std::optional<std::string_view> cpp = DTypeCpp(dtype);
  if (!cpp) {
    return UserErrorF(call->span(), op, " has no kernel element type for ",
                      ir::DataTypeName(dtype));
  }
  const std::string dtype_suffix = Lower(ir::DataTypeName(dtype));
  std::string suffixes;
  if (!coll->ReduceOps(ops::CollectiveRail::kHost).empty()) {
    int64_t reduce = ir::GetAttr<int64_t>(call->kwargs(), "op").value_or(0);
    if (ops::ReduceOpName(reduce).empty()) {
      return InternalErrorF(call->span(), op, " op ", reduce,
                            " outside [0, 3] (its deducer checks it)");
    }
    suffixes = pto::StrCat("__", ops::ReduceOpName(reduce));
    v.vars["reduce_op"] = std::string(ops::ReduceOpName(reduce));
  } else if (coll->has_root) {
    int64_t root = ir::GetAttr<int64_t>(call->kwargs(), "root").value_or(0);
    suffixes = pto::StrCat("__root", root);
    v.vars["root_cpp"] = pto::StrCat(root);
  }
  v.variant = pto::StrCat(def->name, suffixes, "__", dtype_suffix);
  v.entry = SanitizeSymbol(v.variant);
  v.kernel_name = v.entry + "_kernel";
  v.vars["dtype_cpp"] = std::string(*cpp);
  return v;
}

absl::StatusOr<Bundle> RenderBuiltinKernels(const ir::ProgramPtr& program,
                                            const TemplateSource& templates,
                                            const BuiltinRenderOptions& options) {
  Bundle bundle;
  // Callers of each function, in program (name) order.
  std::map<std::string, std::vector<std::string>, std::less<>> callers;
  std::vector<std::pair<ir::CallPtr, BuiltinVariant>> variants;
  std::set<std::string> seen_variants;
  for (const auto& [gv, func] : program->functions()) {
    CallCollector calls;
    calls.VisitFunction(func);
    for (const std::string& callee : calls.callees) callers[callee].push_back(func->name());
    for (const ir::CallPtr& call : calls.builtins) {
      ASSIGN_OR_RETURN(BuiltinVariant v, HostBuiltinVariant(call));
      // One next-level build per variant (§3.11 MarkBuiltinEmitted).
      if (seen_variants.insert(v.variant).second) variants.emplace_back(call, std::move(v));
    }
  }
  for (const auto& [gv, func] : program->functions()) {
    const ir::AttrValue* dir = ir::FindAttr(func->attrs(), "builtin_template_dir");
    if (dir == nullptr) continue;
    const std::string* handle = std::get_if<std::string>(dir);
    if (handle == nullptr) {
      return UserErrorF(func->span(), "builtin_template_dir of '", func->name(),
                        "' must be a string package handle");
    }
    // Validate the handle even when nothing calls the function.
    if (absl::StatusOr<std::string> name = BuiltinPackageName(*handle); !name.ok()) {
      return Locate(name.status(), func->span());
    }
    auto it = callers.find(func->name());
    if (it == callers.end()) continue;  // dead kernel: no sub-build uses it
    RETURN_IF_ERROR(RenderChipKernel(func, *handle, it->second, templates, bundle));
  }
  for (const auto& [call, v] : variants) {
    const ops::CollectiveDef* def =
        ops::FindCollectiveByBuiltin(std::string_view(v.op_name).substr(ops::names::kBuiltinTensorPrefix.size()));
    if (def == nullptr) return InternalErrorF(call->span(), v.op_name, " names no collective");
    RETURN_IF_ERROR(RenderHostVariant(v, *def, call->span(), templates, options, bundle));
  }
  return bundle;
}

absl::Status WriteBundle(const Bundle& bundle, const std::string& dir) {
  namespace fs = std::filesystem;
  for (const auto& [path, text] : bundle) {
    const fs::path rel(path);
    bool climbs = false;
    for (const fs::path& part : rel) climbs = climbs || part == "..";
    if (path.empty() || rel.is_absolute() || climbs) {
      return absl::InvalidArgumentError(
          pto::StrCat("bundle path '", path, "' must be relative and stay inside the output"));
    }
    const fs::path out = fs::path(dir) / rel;
    std::error_code ec;
    fs::create_directories(out.parent_path(), ec);
    if (ec) {
      return absl::UnavailableError(
          pto::StrCat("cannot create ", out.parent_path().string(), ": ", ec.message()));
    }
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.close();
    if (!file) return absl::UnavailableError(pto::StrCat("cannot write ", out.string()));
  }
  return absl::OkStatus();
}

}  // namespace pto::codegen
