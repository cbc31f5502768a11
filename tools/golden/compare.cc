#include "tools/golden/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace pto::golden {
namespace {

// One element of `bytes` at `i` of NumPy type `dtype`, as a double (int64
// values beyond 2^53 round; exactness is decided on the bytes).
double Element(const std::string& dtype, const std::string& bytes, uint64_t i) {
  const char kind = dtype.size() > 1 ? dtype[1] : '?';
  const int size = dtype.size() > 2 ? std::atoi(dtype.c_str() + 2) : 1;
  const char* p = bytes.data() + i * size;
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (kind) {
    case 'f':
      if (size == 2) return static_cast<double>(load(_Float16{}));
      if (size == 4) return load(float{});
      return load(double{});
    case 'i':
      if (size == 1) return load(int8_t{});
      if (size == 2) return load(int16_t{});
      if (size == 4) return load(int32_t{});
      return static_cast<double>(load(int64_t{}));
    case 'u':
    case 'b':
      if (size == 1) return load(uint8_t{});
      if (size == 2) return load(uint16_t{});
      if (size == 4) return load(uint32_t{});
      return static_cast<double>(load(uint64_t{}));
    default:
      return 0;
  }
}

int ItemSize(const std::string& dtype) {
  const int n = dtype.size() > 2 ? std::atoi(dtype.c_str() + 2) : 0;
  return n > 0 ? n : 1;
}

std::string ShapeText(const Output& o) {
  std::vector<std::string> dims;
  for (uint64_t d : o.shape()) dims.push_back(absl::StrCat(d));
  return absl::StrCat("(", absl::StrJoin(dims, ", "), o.shape_size() == 1 ? ",)" : ")");
}

// "[i, j, k]" of flat element `flat` in `o`'s shape.
std::string IndexText(const Output& o, uint64_t flat) {
  std::vector<uint64_t> idx(o.shape_size());
  for (int k = o.shape_size() - 1; k >= 0; --k) {
    const uint64_t d = o.shape(k) == 0 ? 1 : o.shape(k);
    idx[k] = flat % d;
    flat /= d;
  }
  return absl::StrCat("[", absl::StrJoin(idx, ", "), "]");
}

std::string Num(double v) { return absl::StrFormat("%.9g", v); }

Tolerance ToleranceOf(const Output& expected, const CompareOptions& options) {
  if (auto it = options.output_tolerance.find(expected.name());
      it != options.output_tolerance.end()) {
    return it->second;
  }
  if (auto it = options.output_tolerance.find("*"); it != options.output_tolerance.end()) {
    return it->second;
  }
  return expected.tolerance();
}

double KernelToleranceOf(const KernelTiming& expected, const CompareOptions& options) {
  if (auto it = options.kernel_tolerance.find(expected.kernel());
      it != options.kernel_tolerance.end()) {
    return it->second;
  }
  if (auto it = options.kernel_tolerance.find("*"); it != options.kernel_tolerance.end()) {
    return it->second;
  }
  return expected.tolerance();
}

// The line of one output: OK, or what differs and where first.
bool CompareOutput(const Output& e, const Output& a, const CompareOptions& options,
                   std::string* report) {
  const std::string head = absl::StrCat("  ", e.name(), "  ", e.dtype(), " ", ShapeText(e), "  ");
  if (e.dtype() != a.dtype() || ShapeText(e) != ShapeText(a)) {
    absl::StrAppend(report, head, "DIFFERS: the run has ", a.dtype(), " ", ShapeText(a), "\n");
    return false;
  }
  const Tolerance tol = ToleranceOf(e, options);
  const bool exact = tol.rtol() == 0 && tol.atol() == 0;
  const std::string tol_text =
      exact ? "exact" : absl::StrCat("rtol ", Num(tol.rtol()), ", atol ", Num(tol.atol()));
  if (e.inline_data().empty() && a.inline_data().empty() && e.sha256() == a.sha256()) {
    absl::StrAppend(report, head, "OK (sha256)\n");
    return true;
  }
  if (e.inline_data().size() != a.inline_data().size()) {
    // No data on one side (a digest-only golden): the digest decides.
    if (e.sha256() == a.sha256()) {
      absl::StrAppend(report, head, "OK (sha256)\n");
      return true;
    }
    absl::StrAppend(report, head, "DIFFERS: sha256 ", a.sha256(), " != ", e.sha256(),
                    " (no element data to locate it)\n");
    return false;
  }
  const int item = ItemSize(e.dtype());
  const uint64_t n = e.inline_data().size() / item;
  uint64_t bad = 0;
  uint64_t first = 0;
  double max_abs = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (std::memcmp(e.inline_data().data() + i * item, a.inline_data().data() + i * item,
                    item) == 0) {
      continue;
    }
    if (!exact) {
      const double ev = Element(e.dtype(), e.inline_data(), i);
      const double av = Element(a.dtype(), a.inline_data(), i);
      const bool both_nan = std::isnan(ev) && std::isnan(av);
      if (both_nan || std::fabs(av - ev) <= tol.atol() + tol.rtol() * std::fabs(ev)) continue;
      if (std::isfinite(av - ev)) max_abs = std::max(max_abs, std::fabs(av - ev));
    }
    if (bad++ == 0) first = i;
  }
  if (bad == 0) {
    absl::StrAppend(report, head, "OK (", tol_text, ")\n");
    return true;
  }
  absl::StrAppend(report, head, "DIFFERS (", tol_text, "): ", bad, " of ", n,
                  " elements; first at ", IndexText(e, first), " (flat ", first, "): expected ",
                  Num(Element(e.dtype(), e.inline_data(), first)), ", got ",
                  Num(Element(a.dtype(), a.inline_data(), first)));
  if (!exact) absl::StrAppend(report, "; max |diff| ", Num(max_abs));
  absl::StrAppend(report, "\n");
  return false;
}

std::string Percent(int64_t expected, int64_t actual) {
  if (expected == 0) return actual == 0 ? "0.00%" : "n/a";
  return absl::StrFormat("%+.2f%%", 100.0 * (actual - expected) / expected);
}

bool Within(int64_t expected, int64_t actual, double tol) {
  if (expected == actual) return true;
  if (expected == 0) return false;
  return std::fabs(static_cast<double>(actual - expected)) <= tol * std::fabs(expected);
}

void TimingRow(std::string* report, const std::string& name, const std::string& tasks,
               int64_t expected, int64_t actual, double tol, const std::string& status) {
  absl::StrAppend(report, absl::StrFormat("  %-34s %9s %15d %15d %+13d %9s %7.2f%%  %s\n", name,
                                          tasks, expected, actual, actual - expected,
                                          Percent(expected, actual), 100 * tol, status));
}

}  // namespace

CompareResult Compare(const Golden& expected, const Golden& actual,
                      const CompareOptions& options) {
  CompareResult r;
  std::string& out = r.report;
  // Identity: a golden of another program, platform or input is no baseline.
  auto same = [&](const std::string& what, const std::string& e, const std::string& a) {
    if (e == a) return;
    r.identity_ok = false;
    absl::StrAppend(&out, "identity: ", what, " differs: expected '", e, "', got '", a, "'\n");
  };
  same("program", expected.program(), actual.program());
  same("platform", expected.platform(), actual.platform());
  same("ranks", absl::StrCat(expected.ranks()), absl::StrCat(actual.ranks()));
  same("inputs sha256", expected.inputs_sha256(), actual.inputs_sha256());
  same("error code", absl::StrCat(expected.error_code()), absl::StrCat(actual.error_code()));
  if (r.identity_ok) {
    absl::StrAppend(&out, "identity: ", expected.program(), " on ", expected.ranks(), " x ",
                    expected.platform(), " (", expected.backend(), " golden vs ", actual.backend(),
                    " run), same inputs\n");
  }
  if (expected.backend() == "sim" && actual.backend() == "sim" &&
      expected.provenance().platform_sha256() != actual.provenance().platform_sha256()) {
    absl::StrAppend(&out, "note: the platform's facts changed since the golden was recorded\n");
  }

  if (options.data) {
    absl::StrAppend(&out, "outputs:\n");
    std::set<std::string> seen;
    for (const Output& e : expected.outputs()) {
      seen.insert(e.name());
      const Output* a = nullptr;
      for (const Output& o : actual.outputs()) {
        if (o.name() == e.name()) a = &o;
      }
      if (a == nullptr) {
        absl::StrAppend(&out, "  ", e.name(), "  DIFFERS: missing from the run\n");
        r.data_ok = false;
        continue;
      }
      if (!CompareOutput(e, *a, options, &out)) r.data_ok = false;
    }
    for (const Output& a : actual.outputs()) {
      if (seen.count(a.name()) == 0) {
        absl::StrAppend(&out, "  ", a.name(), "  DIFFERS: not in the golden\n");
        r.data_ok = false;
      }
    }
  }

  if (options.timing) {
    absl::StrAppend(&out, "timing (simulated ps; delta = run - golden):\n",
                    absl::StrFormat("  %-34s %9s %15s %15s %13s %9s %8s  %s\n", "kernel", "tasks",
                                    "golden", "run", "delta", "delta%", "tol", "status"));
    std::set<std::string> seen;
    for (const KernelTiming& e : expected.kernels()) {
      seen.insert(e.kernel());
      const KernelTiming* a = nullptr;
      for (const KernelTiming& k : actual.kernels()) {
        if (k.kernel() == e.kernel()) a = &k;
      }
      const double tol = KernelToleranceOf(e, options);
      if (a == nullptr) {
        TimingRow(&out, e.kernel(), absl::StrCat(e.tasks(), "/0"), e.total_ps(), 0, tol,
                  "DIFFERS (no task in the run)");
        r.timing_ok = false;
        continue;
      }
      const bool tasks_ok = a->tasks() == e.tasks();
      const bool ok = tasks_ok && Within(e.total_ps(), a->total_ps(), tol);
      if (!ok) r.timing_ok = false;
      TimingRow(&out, e.kernel(),
                tasks_ok ? absl::StrCat(e.tasks()) : absl::StrCat(e.tasks(), "/", a->tasks()),
                e.total_ps(), a->total_ps(), tol,
                ok ? "OK" : (tasks_ok ? "DIFFERS" : "DIFFERS (task count)"));
    }
    for (const KernelTiming& a : actual.kernels()) {
      if (seen.count(a.kernel()) == 0) {
        TimingRow(&out, a.kernel(), absl::StrCat("0/", a.tasks()), 0, a.total_ps(), 0,
                  "DIFFERS (not in the golden)");
        r.timing_ok = false;
      }
    }
    const double tol =
        options.sim_time_tolerance >= 0 ? options.sim_time_tolerance : expected.sim_time_tolerance();
    const bool ok = Within(expected.sim_time_ps(), actual.sim_time_ps(), tol);
    if (!ok) r.timing_ok = false;
    TimingRow(&out, "(end to end)", "", expected.sim_time_ps(), actual.sim_time_ps(), tol,
              ok ? "OK" : "DIFFERS");
  }
  std::vector<std::string> what;
  if (!r.identity_ok) what.push_back("identity");
  if (!r.data_ok) what.push_back("data");
  if (!r.timing_ok) what.push_back("timing");
  absl::StrAppend(&out, "result: ", r.ok() ? "MATCH" : "DIFFERS (" + absl::StrJoin(what, ", ") + ")",
                  "\n");
  return r;
}

}  // namespace pto::golden
