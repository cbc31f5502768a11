// _pypto: the extension module of the `pypto` Python package (docs/python.md).
// pybind11 over python/ext/sim_session.h: compile a program, run it on the
// simulator. The Python half (python/pypto) maps PyPTO's names onto these.
#include <stdlib.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "compiler/codegen/builtin_kernels.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/enums.h"
#include "compiler/ops/enum_spellings.h"
#include "google/protobuf/util/json_util.h"
#include "python/ext/kernel_config_py.h"
#include "python/ext/sim_session.h"
#include "sim/system/isolated_run.h"
#include "tools/run_params.h"

namespace py = pybind11;

namespace {

// Raised as pypto's CompileError; the text is the located diagnostic.
class CompileException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string StatsJson(const pto::sim::RunReport& stats) {
  pto::sim::RunReport copy = stats;
  copy.clear_wall_seconds();
  copy.clear_trace_json();
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(copy, &out, o).ok()) return "";
  return out;
}

pto::python::Compiled Compile(const std::string& source_path, const std::string& platform,
                              int ranks, const std::string& root, py::object args,
                              const std::string& entry) {
  pto::python::CompileRequest request;
  request.entry = entry;
  request.source_path = source_path;
  request.platform = platform;
  request.ranks = ranks;
  request.root = root;
  if (!args.is_none()) {
    request.has_args = true;
    for (py::handle a : args) {
      auto t = a.cast<std::pair<std::string, std::vector<int64_t>>>();
      request.args.push_back({t.first, t.second});
    }
  }
  pto::python::Compiled compiled;
  pto::python::CompileFailure failure;
  // The GIL stays held: Compile swaps std::cerr's buffer to capture the
  // diagnostic, which two threads compiling at once would interleave.
  const bool ok = pto::python::Compile(request, &compiled, &failure);
  if (!ok) throw CompileException(failure.text);
  return compiled;
}

py::dict Run(const pto::python::Compiled& compiled, const std::vector<py::bytes>& inputs,
             const std::string& cxx, const std::string& cache_dir, bool trace, bool timing_only,
             const std::string& collective) {
  pto::python::RunRequest request;
  for (const py::bytes& b : inputs) request.inputs.push_back(std::string(b));
  request.cxx = cxx;
  request.cache_dir = cache_dir;
  request.trace = trace;
  request.timing_only = timing_only;
  request.collective = collective;
  absl::StatusOr<pto::python::RunResult> result;
  {
    py::gil_scoped_release release;
    result = pto::python::Run(compiled, request);
  }
  if (!result.ok()) {
    if (result.status().code() == absl::StatusCode::kInvalidArgument) {
      throw std::invalid_argument(std::string(result.status().message()));
    }
    throw std::runtime_error(std::string(result.status().message()));
  }
  const pto::sim::RunReport& r = result->report;
  py::dict out;
  out["error_code"] = r.error_code();
  out["error_text"] = r.error_text();
  std::vector<std::string> blocked(r.blocked().begin(), r.blocked().end());
  out["blocked"] = blocked;
  out["sim_time_ps"] = r.sim_time_ps();
  out["chips"] = r.chips();
  py::dict outputs;
  for (const auto& [name, bytes] : result->outputs) outputs[py::str(name)] = py::bytes(bytes);
  out["outputs"] = outputs;
  out["summary"] = result->summary;
  out["stats_text"] = pto::sim::StatsText(r);
  out["stats_json"] = StatsJson(r);
  out["trace_json"] = py::bytes(r.trace_json());
  out["cache_hit"] = result->cache_hit;
  // Dispatches per card, from the dispatch FIFOs (pto-run's result line).
  std::vector<int64_t> dispatches(r.chips(), 0);
  for (const auto& q : r.queues()) {
    for (int c = 0; c < r.chips(); ++c) {
      if (q.name() == "dispatch fifo c" + std::to_string(c)) dispatches[c] = q.transfers();
    }
  }
  out["dispatches_per_card"] = dispatches;
  return out;
}

// Whether `member` spells a member of `enum_name`: the compiler's tables are
// the one source of the names (compiler/ir/enums.h, compiler/ops/enum_spellings.h).
bool EnumMember(const std::string& enum_name, const std::string& member) {
  if (enum_name == "FunctionType") return pto::ir::FunctionTypeFromName(member).has_value();
  if (enum_name == "Level") return pto::ir::LevelFromName(member).has_value();
  if (enum_name == "Role") return pto::ir::RoleFromName(member).has_value();
  const pto::ops::EnumDef* e = pto::ops::FindEnum(enum_name);
  if (e == nullptr) return false;
  for (std::string_view m : e->members) {
    if (m == member) return true;
  }
  for (const auto& [alias, m] : e->aliases) {
    if (alias == member) return true;
  }
  return false;
}

// The byte size of the data type spelled `name` ("FP32"), or -1.
int DtypeBytes(const std::string& name) {
  std::optional<pto::ir::DataType> t = pto::ir::DataTypeFromName(name);
  return t.has_value() ? pto::ir::DataTypeBytes(*t) : -1;
}

// The data type name ("FP32") whose NumPy type string is `descr` ("<f4"),
// from pto-run's one table (tools/run_params.h); empty when none.
std::string DtypeForDescr(const std::string& descr) {
  for (int i = 0; i < pto::ir::kNumDataTypes; ++i) {
    const auto t = static_cast<pto::ir::DataType>(i);
    if (pto::tools::run::NumpyDescr(t) == descr) return std::string(pto::ir::DataTypeName(t));
  }
  return "";
}

}  // namespace

// libsystemc refers to sc_main; simulations here start from SimSystem, never
// from libsystemc's main().
int sc_main(int, char**) { return 2; }

PYBIND11_MODULE(_pypto, m) {
  m.doc() = "PTO toolchain: compile a program and run it on the simulator";
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "DISABLE", /*overwrite=*/0);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("sc_stop has already been called",
                                          sc_core::SC_DO_NOTHING);
  py::register_exception<CompileException>(m, "CompileError", PyExc_ValueError);
  py::class_<pto::python::Compiled>(m, "Compiled")
      .def_readonly("name", &pto::python::Compiled::name)
      .def_readonly("platform", &pto::python::Compiled::platform)
      .def_readonly("ranks", &pto::python::Compiled::ranks)
      .def_readonly("chip_entry", &pto::python::Compiled::chip_entry)
      .def_readonly("program_cc", &pto::python::Compiled::program_cc)
      .def("write_files",
           [](const pto::python::Compiled& c, const std::string& dir) {
             // PyPTO's kernel_config.py beside each textproto, from it.
             auto files = pto::python::WithKernelConfigPy(c.bundle);
             if (!files.ok()) throw std::runtime_error(std::string(files.status().message()));
             absl::Status s = pto::codegen::WriteBundle(*files, dir);
             if (!s.ok()) throw std::runtime_error(std::string(s.message()));
           },
           py::arg("dir"), "Writes every generated file under dir, and PyPTO's kernel_config.py beside "
           "each kernel_config.textproto.")
      .def_property_readonly("params", [](const pto::python::Compiled& c) {
        py::list out;
        for (const auto& p : c.params) {
          py::dict d;
          d["name"] = p.name;
          d["descr"] = p.descr;
          d["shape"] = p.shape;
          d["output"] = p.output;
          out.append(d);
        }
        return out;
      });
  m.def("enum_member", &EnumMember, py::arg("enum_name"), py::arg("member"));
  m.def("dtype_bytes", &DtypeBytes, py::arg("name"));
  m.def("dtype_for_descr", &DtypeForDescr, py::arg("descr"));
  m.def("compile", &Compile, py::arg("source_path"), py::arg("platform"), py::arg("ranks"),
        py::arg("root"), py::arg("args") = py::none(), py::arg("entry") = "",
        "Compiles the program in source_path for platform and ranks devices; args, a list of "
        "(numpy type string, shape) per entry tensor, binds the dynamic dimensions; entry "
        "names the CHIP orchestration of a program without a HOST orchestrator.");
  m.def(
      "chip_orchestrations",
      [](const std::string& source_path) {
        absl::StatusOr<std::vector<std::string>> names =
            pto::python::ChipOrchestrations(source_path);
        if (!names.ok()) throw CompileException(std::string(names.status().message()));
        return *names;
      },
      py::arg("source_path"),
      "The CHIP orchestrations of a program without a HOST orchestrator (empty with one).");
  m.def("run", &Run, py::arg("compiled"), py::arg("inputs"), py::arg("cxx") = "g++",
        py::arg("cache_dir") = "", py::arg("trace") = false, py::arg("timing_only") = false,
        py::arg("collective") = "__builtin_",
        "Builds (or takes from the cache) and runs a compiled program on the simulator.");
}
