// The HOST-rail collectives in PyPTO's idiom (pypto/*.pto.in), run with
// pto-run on 2 and 4 simulated chips and checked against the expected values
// of PyPTO's system tests (tests/st/distributed/test_l3_host_tensor_*.py of
// hw-native-sys/pypto): the same shapes, dtypes, reduce ops, roots, input
// formulas and expected-value formulas, computed here in C++.
//
// One row = one program rendered from its template, its inputs written as
// .npy files, one pto-run, every output element compared. Usage (Bazel passes
// the paths): pypto_collectives_test PTO_RUN TEMPLATE_DIR
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "common/npy.h"
#include "compiler/ops/collective_def.h"

namespace {

namespace fs = std::filesystem;
namespace npy = ::pto::tools::npy;
namespace ops = ::pto::ops;

std::string g_pto_run;
std::string g_templates;

// One row of the matrix.
struct Row {
  std::string name;
  std::string tmpl;  // pypto/<tmpl>.pto.in
  int nr = 2;
  int rounds = 1;
  int size = 64;
  std::string dtype = "FP32";
  std::string op = "Sum";
  int cores = 1;   // allreduce_multicore: core_num
  int stride = 1;  // allreduce_multicore: signal lanes per peer
  int root = 0;    // broadcast
};

// The collective a template exercises: pypto/[mesh_]<builtin>[_<form>].pto.in
// names the HOST builtin of its CollectiveDef (the longest that matches), so
// the expected values follow the def's pattern, not the template's name.
const ops::CollectiveDef* CollectiveOf(const std::string& tmpl) {
  const std::string base = tmpl.rfind("mesh_", 0) == 0 ? tmpl.substr(5) : tmpl;
  const ops::CollectiveDef* best = nullptr;
  for (const ops::CollectiveDef& def : ops::Collectives()) {
    const std::string b(def.builtin);
    if (b.empty() || base.rfind(b, 0) != 0) continue;
    if (base.size() != b.size() && base[b.size()] != '_') continue;
    if (best == nullptr || b.size() > best->builtin.size()) best = &def;
  }
  return best;
}

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

// A HOST parameter: its shape, its input (empty: zeros) and the values every
// element must hold after the run (empty: not checked).
struct Param {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<double> input;
  std::vector<double> expected;
  std::vector<bool> checked;  // empty: every element of `expected`
};

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The value an element of `dtype` holds for `v` (inputs are cast as torch's
// `.to(dtype)` does: round to nearest).
double Cast(const std::string& dtype, double v) {
  if (dtype == "FP16") return static_cast<double>(static_cast<_Float16>(v));
  if (dtype == "FP32") return static_cast<double>(static_cast<float>(v));
  return v;
}

std::string Descr(const std::string& dtype) {
  if (dtype == "FP16") return "<f2";
  if (dtype == "INT32") return "<i4";
  return "<f4";
}

std::string Encode(const std::string& dtype, const std::vector<double>& v) {
  std::string out;
  for (double x : v) {
    if (dtype == "FP16") {
      const _Float16 h = static_cast<_Float16>(x);
      out.append(reinterpret_cast<const char*>(&h), sizeof(h));
    } else if (dtype == "INT32") {
      const int32_t i = static_cast<int32_t>(x);
      out.append(reinterpret_cast<const char*>(&i), sizeof(i));
    } else {
      const float f = static_cast<float>(x);
      out.append(reinterpret_cast<const char*>(&f), sizeof(f));
    }
  }
  return out;
}

std::vector<double> Decode(const std::string& dtype, const std::string& bytes) {
  std::vector<double> out;
  const size_t item = dtype == "FP16" ? 2 : 4;
  for (size_t i = 0; i + item <= bytes.size(); i += item) {
    if (dtype == "FP16") {
      _Float16 h;
      std::memcpy(&h, bytes.data() + i, 2);
      out.push_back(static_cast<double>(h));
    } else if (dtype == "INT32") {
      int32_t v;
      std::memcpy(&v, bytes.data() + i, 4);
      out.push_back(v);
    } else {
      float f;
      std::memcpy(&f, bytes.data() + i, 4);
      out.push_back(f);
    }
  }
  return out;
}

// PyPTO's per-rank rows: `r * 100 + round_offset + j` (round_offset =
// 10000 per reuse round); for prod `1 + r * 0.125 + (j % 5) * 0.0625`.
double RankValue(const Row& row, int rd, int r, int64_t j) {
  if (row.op == "Prod") return 1.0 + r * 0.125 + static_cast<double>(j % 5) * 0.0625;
  return r * 100.0 + rd * 10000.0 + static_cast<double>(j);
}

double Fold(const std::string& op, double a, double b) {
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Prod") return a * b;
  return a + b;
}

// inputs/outputs [ROUNDS, NR, 1, SIZE]; every rank gets the fold over ranks.
std::vector<Param> AllReduceParams(const Row& row) {
  const int P = row.nr, S = row.size, R = row.rounds;
  Param in{"inputs", {R, P, 1, S}, row.dtype};
  Param out{"outputs", {R, P, 1, S}, row.dtype};
  out.input.assign(R * P * S, 0);
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int j = 0; j < S; ++j) in.input.push_back(Cast(row.dtype, RankValue(row, rd, r, j)));
    }
  }
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int j = 0; j < S; ++j) {
        double acc = in.input[(rd * P + 0) * S + j];
        for (int s = 1; s < P; ++s) acc = Fold(row.op, acc, in.input[(rd * P + s) * S + j]);
        out.expected.push_back(acc);
      }
    }
  }
  std::vector<Param> params = {in, out};
  if (row.tmpl == "allreduce_multicore") {
    // signal_outputs[rank, peer, :core_num] == 0 for every peer != rank: the
    // builtin clears every lane it used.
    Param sig{"signal_outputs", {P, P, row.stride}, "INT32"};
    sig.input.assign(P * P * row.stride, 0);
    for (int r = 0; r < P; ++r) {
      for (int p = 0; p < P; ++p) {
        for (int l = 0; l < row.stride; ++l) {
          sig.expected.push_back(0);
          sig.checked.push_back(p != r && l < row.cores);
        }
      }
    }
    params.push_back(sig);
  }
  return params;
}

// inputs [R, NR, NR, SIZE] = r * 100 + round_offset + (d * SIZE + j);
// outputs [R, NR, 1, SIZE]: rank j holds the sum over ranks of chunk j.
std::vector<Param> ReduceScatterParams(const Row& row) {
  const int P = row.nr, S = row.size, R = row.rounds;
  Param in{"inputs", {R, P, P, S}, row.dtype};
  Param out{"outputs", {R, P, 1, S}, row.dtype};
  out.input.assign(R * P * S, 0);
  auto v = [&](int rd, int r, int d, int j) { return r * 100.0 + rd * 10000.0 + d * S + j; };
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int d = 0; d < P; ++d) {
        for (int j = 0; j < S; ++j) in.input.push_back(v(rd, r, d, j));
      }
    }
    for (int d = 0; d < P; ++d) {
      for (int j = 0; j < S; ++j) {
        double acc = v(rd, 0, d, j);
        for (int r = 1; r < P; ++r) acc = Fold(row.op, acc, v(rd, r, d, j));
        out.expected.push_back(acc);
      }
    }
  }
  return {in, out};
}

// inputs [R, NR, 1, SIZE] rows of RankValue; `pick(rd, r)` is the input row
// rank r must end with (broadcast: the root's; barrier: its ring peer's).
std::vector<Param> RowCopyParams(const Row& row, const std::function<int(int)>& pick) {
  const int P = row.nr, S = row.size, R = row.rounds;
  Param in{"inputs", {R, P, 1, S}, row.dtype};
  Param out{"outputs", {R, P, 1, S}, row.dtype};
  out.input.assign(R * P * S, 0);
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int j = 0; j < S; ++j) in.input.push_back(RankValue(row, rd, r, j));
    }
    for (int r = 0; r < P; ++r) {
      for (int j = 0; j < S; ++j) out.expected.push_back(RankValue(row, rd, pick(r), j));
    }
  }
  return {in, out};
}

// allgather: inputs [R, NR, 1, SIZE]; outputs [R, NR, 1, NR, SIZE], every
// rank holds every rank's row in rank order.
std::vector<Param> AllGatherParams(const Row& row) {
  const int P = row.nr, S = row.size, R = row.rounds;
  Param in{"inputs", {R, P, 1, S}, row.dtype};
  Param out{"outputs", {R, P, 1, P, S}, row.dtype};
  out.input.assign(R * P * P * S, 0);
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int j = 0; j < S; ++j) in.input.push_back(RankValue(row, rd, r, j));
    }
    for (int r = 0; r < P; ++r) {
      for (int s = 0; s < P; ++s) {
        for (int j = 0; j < S; ++j) out.expected.push_back(RankValue(row, rd, s, j));
      }
    }
  }
  return {in, out};
}

// all_to_all: inputs [R, NR, NR, SIZE] = round_offset + r * 1000 + d * 100 + j;
// outputs[rd, r, s, j] = inputs[rd, s, r, j].
std::vector<Param> AllToAllParams(const Row& row) {
  const int P = row.nr, S = row.size, R = row.rounds;
  Param in{"inputs", {R, P, P, S}, row.dtype};
  Param out{"outputs", {R, P, P, S}, row.dtype};
  out.input.assign(R * P * P * S, 0);
  auto v = [&](int rd, int r, int d, int j) { return rd * 10000.0 + r * 1000.0 + d * 100.0 + j; };
  for (int rd = 0; rd < R; ++rd) {
    for (int r = 0; r < P; ++r) {
      for (int d = 0; d < P; ++d) {
        for (int j = 0; j < S; ++j) in.input.push_back(v(rd, r, d, j));
      }
    }
    for (int r = 0; r < P; ++r) {
      for (int s = 0; s < P; ++s) {
        for (int j = 0; j < S; ++j) out.expected.push_back(v(rd, s, r, j));
      }
    }
  }
  return {in, out};
}

// all_to_all_v: rank r sends nr - d rows to rank d (send_counts[r, d, 0]),
// row k of block d is r * 1000 + d * 100 + k * 10 + j % 10; rank r receives
// send_counts[s, r] in recv_outputs[r, s, 0] and those rows of block s. Rows
// past a block's count are holes PyPTO does not check.
constexpr int kMaxRecv = 4;

std::vector<Param> AllToAllVParams(const Row& row) {
  const int P = row.nr, S = row.size, T = P * kMaxRecv;
  Param in{"inputs", {P, T, S}, row.dtype};
  Param counts{"send_counts", {P, P, 1}, "INT32"};
  Param out{"outputs", {P, T, S}, row.dtype};
  Param recv{"recv_outputs", {P, P, 1}, "INT32"};
  in.input.assign(P * T * S, 0);
  out.input.assign(P * T * S, 0);
  recv.input.assign(P * P, 0);
  auto v = [](int r, int d, int k, int j) { return r * 1000.0 + d * 100.0 + k * 10.0 + j % 10; };
  for (int r = 0; r < P; ++r) {
    for (int d = 0; d < P; ++d) {
      counts.input.push_back(P - d);
      for (int k = 0; k < P - d; ++k) {
        for (int j = 0; j < S; ++j) in.input[(r * T + d * kMaxRecv + k) * S + j] = v(r, d, k, j);
      }
    }
  }
  out.expected.assign(P * T * S, 0);
  out.checked.assign(P * T * S, false);
  for (int r = 0; r < P; ++r) {
    for (int s = 0; s < P; ++s) {
      recv.expected.push_back(P - r);
      for (int k = 0; k < P - r; ++k) {
        for (int j = 0; j < S; ++j) {
          const int i = (r * T + s * kMaxRecv + k) * S + j;
          out.expected[i] = v(s, r, k, j);
          out.checked[i] = true;
        }
      }
    }
  }
  return {in, counts, out, recv};
}

std::vector<Param> ParamsOf(const Row& row);

// The kernel-written (mesh) programs of PyPTO's collectives/ tests: one call,
// the HOST-rail data without the rounds dimension, in their shapes
// (reduce_scatter's input and allgather's output are one [1, NR * SIZE] row
// per rank).
std::vector<Param> MeshParams(const Row& row, const ops::CollectiveDef& def) {
  Row base = row;
  base.tmpl = row.tmpl.substr(5);
  base.rounds = 1;
  std::vector<Param> params = ParamsOf(base);
  const int64_t P = row.nr, S = row.size;
  for (Param& p : params) {
    p.shape.erase(p.shape.begin());
    if (def.pattern == ops::CollectivePattern::kReduceScatter && p.name == "inputs") {
      p.shape = {P, 1, P * S};
    }
    if (def.pattern == ops::CollectivePattern::kAllGather && p.name == "outputs") {
      p.shape = {P, 1, P * S};
    }
  }
  return params;
}

std::vector<Param> ParamsOf(const Row& row) {
  const ops::CollectiveDef* def = CollectiveOf(row.tmpl);
  if (def == nullptr) {
    ADD_FAILURE() << "no collective for " << row.tmpl;
    return {};
  }
  if (row.tmpl.rfind("mesh_", 0) == 0) return MeshParams(row, *def);
  switch (def->pattern) {
    case ops::CollectivePattern::kAllToAllV:
      return AllToAllVParams(row);
    case ops::CollectivePattern::kAllReduce:
      return AllReduceParams(row);
    case ops::CollectivePattern::kReduceScatter:
      return ReduceScatterParams(row);
    case ops::CollectivePattern::kBroadcast:
      return RowCopyParams(row, [&](int) { return row.root; });
    case ops::CollectivePattern::kBarrier:
      // PyPTO's barrier test: after it, each rank reads its ring peer's row.
      return RowCopyParams(row, [&](int r) { return (r + 1) % row.nr; });
    case ops::CollectivePattern::kAllGather:
      return AllGatherParams(row);
    case ops::CollectivePattern::kAllToAll:
      return AllToAllParams(row);
  }
  return {};
}

int DTypeBytes(const std::string& dtype) {
  if (dtype == "FP16") return 2;
  if (dtype == "INT8") return 1;
  return 4;
}

// PyPTO's staging tiles for a row of `size` elements: one 32-byte aligned
// row of at most `cap` elements, or for a single element a column of one
// 32-byte block (a [32 / bytes, 1] tile whose valid shape is [1, 1]).
struct Stage {
  int rows, cols;
};
Stage StageTile(int size, int bytes, int cap) {
  const int align = 32 / bytes;
  if (size == 1) return {align, 1};
  return {1, std::min(cap, (size + align - 1) / align * align)};
}

// Renders pypto/<tmpl>.pto.in: @KEY@ placeholders, and the lines between
// `# @round-begin` and `# @round-end` once per round with @RD@ = the round.
std::string Render(const Row& row) {
  std::ifstream f(g_templates + "/" + row.tmpl + ".pto.in");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string out;
  std::vector<std::string> block;
  bool in_block = false;
  for (absl::string_view line : absl::StrSplit(ss.str(), '\n')) {
    if (line.find("# @round-begin") != absl::string_view::npos) {
      in_block = true;
      continue;
    }
    if (line.find("# @round-end") != absl::string_view::npos) {
      in_block = false;
      for (int rd = 0; rd < row.rounds; ++rd) {
        for (const std::string& b : block) {
          absl::StrAppend(&out, absl::StrReplaceAll(b, {{"@RD@", absl::StrCat(rd)}}), "\n");
        }
      }
      block.clear();
      continue;
    }
    if (in_block) {
      block.emplace_back(line);
    } else {
      absl::StrAppend(&out, line, "\n");
    }
  }
  // _build_host_allreduce caps a tile at 4096 elements; the multicore test
  // does not, and aligns its FP32 rows and signal to 8 elements.
  // The intrinsic test stages FP32 rows in 8192-element tiles and FP16 rows
  // aligned, at most 8192.
  Stage stage = StageTile(row.size, 4, 1 << 30);
  if (row.tmpl == "allreduce_chunked") stage = StageTile(row.size, DTypeBytes(row.dtype), 4096);
  if (row.tmpl == "mesh_allreduce_intrinsic") {
    stage = StageTile(row.size, DTypeBytes(row.dtype), 8192);
    if (row.size > 1 && row.dtype == "FP32") stage.cols = 8192;
  }
  const int sig_cols = (row.stride + 7) / 8 * 8;
  return absl::StrReplaceAll(out, {{"@ROUNDS@", absl::StrCat(row.rounds)},
                                   {"@STAGE_ROWS@", absl::StrCat(stage.rows)},
                                   {"@STAGE_COLS@", absl::StrCat(stage.cols)},
                                   {"@SIG_COLS@", absl::StrCat(sig_cols)},
                                   {"@SIZE@", absl::StrCat(row.size)},
                                   {"@DTYPE@", row.dtype},
                                   {"@OP@", row.op},
                                   {"@CORES@", absl::StrCat(row.cores)},
                                   {"@STRIDE@", absl::StrCat(row.stride)},
                                   {"@ROOT@", absl::StrCat(row.root)},
                                   {"@NR@", absl::StrCat(row.nr)}});
}

// PyPTO's tolerance: exact for FP32 and INT32 (its torch.equal / allclose
// on integer-valued data), rtol = atol = 2e-2 for FP16.
bool Close(const std::string& dtype, double got, double want) {
  if (dtype != "FP16") return got == want;
  return std::fabs(got - want) <= 2e-2 + 2e-2 * std::fabs(want);
}

class PyptoCollectivesTest : public testing::TestWithParam<Row> {};

TEST_P(PyptoCollectivesTest, MatchesPyptoExpectedValues) {
  const Row& row = GetParam();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(tmp != nullptr ? tmp : "/tmp") / row.name;
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  const std::string program = Render(row);
  ASSERT_NE(program.find("@round"), 0u);
  const fs::path file = dir / (row.tmpl + ".pto");
  std::ofstream(file) << program;
  std::vector<Param> params = ParamsOf(row);
  for (const Param& p : params) {
    npy::Array a{Descr(p.dtype), p.shape, Encode(p.dtype, p.input)};
    ASSERT_EQ(static_cast<int64_t>(p.input.size()), Count(p.shape)) << p.name;
    ASSERT_TRUE(npy::WriteFile((dir / "in" / (p.name + ".npy")).string(), a).ok());
  }
  const std::string log = (dir / "log.txt").string();
  const std::string cmd = absl::StrCat("'", g_pto_run, "' '", file.string(),
                                       "' --platform=a2a3_word_safe_set --ranks=", row.nr, " --inputs='",
                                       (dir / "in").string(), "' --outputs='",
                                       (dir / "out").string(), "' --nosummary > '", log,
                                       "' 2>&1");
  const int rc = std::system(cmd.c_str());
  std::ifstream lf(log);
  std::stringstream ls;
  ls << lf.rdbuf();
  ASSERT_EQ(rc, 0) << cmd << "\n" << ls.str();
  std::cout << ls.str();
  for (const Param& p : params) {
    if (p.expected.empty()) continue;
    absl::StatusOr<npy::Array> a = npy::ReadFile((dir / "out" / (p.name + ".npy")).string());
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_EQ(a->shape, p.shape) << p.name;
    const std::vector<double> got = Decode(p.dtype, a->data);
    ASSERT_EQ(got.size(), p.expected.size()) << p.name;
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!p.checked.empty() && !p.checked[i]) continue;
      if (!Close(p.dtype, got[i], p.expected[i]) && bad++ < 5) {
        ADD_FAILURE() << row.name << " " << p.name << " element " << i << ": got " << got[i]
                      << ", expected " << p.expected[i];
      }
    }
    EXPECT_EQ(bad, 0) << row.name << " " << p.name << ": " << bad << " mismatches";
  }
}

// The rows: PyPTO's parametrisations of each HOST-rail test.
std::vector<Row> Rows() {
  std::vector<Row> rows;
  auto add = [&](Row r) { rows.push_back(std::move(r)); };
  // test_l3_host_tensor_allreduce.py: SIZE 256 sum on P = 2, 4, and reused
  // on one signal for 3 rounds; Max on P = 2; FP16 lengths 1, 17, 257, 8193;
  // FP16 Max / Min / Prod at 17; FP32 lengths 17, 257.
  for (int p : {2, 4}) {
    add({absl::StrCat("allreduce_p", p), "allreduce", p, 1, 256});
    add({absl::StrCat("allreduce_reuse_p", p), "allreduce", p, 3, 256});
  }
  add({"allreduce_max_p2", "allreduce", 2, 1, 256, "FP32", "Max"});
  // The lengths and ops run PyPTO's _build_host_allreduce form
  // (allreduce_chunked: valid_shape tiles in a carried loop).
  for (int s : {1, 17, 257, 8193}) {
    add({absl::StrCat("allreduce_fp16_len", s, "_p2"), "allreduce_chunked", 2, 1, s, "FP16"});
  }
  for (const char* op : {"Max", "Min", "Prod"}) {
    add({absl::StrCat("allreduce_fp16_", op, "_p2"), "allreduce_chunked", 2, 1, 17, "FP16", op});
  }
  for (int s : {17, 257}) {
    add({absl::StrCat("allreduce_fp32_len", s, "_p2"), "allreduce_chunked", 2, 1, s});
  }
  // test_l3_host_tensor_allreduce_multicore.py: (P, core_num, SIZE, lanes)
  // = (2, 2, 1, 2) with an idle lane, (2, 4, 4127, 6) wider than the lanes
  // used, (4, 2, 1041, 2) over several tiles; the first two reused too.
  struct Multicore {
    int nr, cores, size, stride;
  };
  for (const Multicore& m : {Multicore{2, 2, 1, 2}, Multicore{2, 4, 4127, 6},
                             Multicore{4, 2, 1041, 2}}) {
    const std::string id = absl::StrCat("p", m.nr, "_c", m.cores, "_len", m.size, "_s", m.stride);
    add({"allreduce_multicore_" + id, "allreduce_multicore", m.nr, 1, m.size, "FP32", "Sum",
         m.cores, m.stride});
    if (m.nr == 2) {
      add({"allreduce_multicore_reuse_" + id, "allreduce_multicore", m.nr, 3, m.size, "FP32",
           "Sum", m.cores, m.stride});
    }
  }
  // test_l3_host_tensor_allreduce_ring.py: SIZE 256 on P = 2, 4, single and
  // reused.
  for (int p : {2, 4}) {
    add({absl::StrCat("allreduce_ring_p", p), "allreduce_ring", p, 1, 256});
    add({absl::StrCat("allreduce_ring_reuse_p", p), "allreduce_ring", p, 3, 256});
  }
  // reduce_scatter, broadcast (root 0), barrier (the ring-peer read):
  // single on P = 2, reused on the P that PyPTO reuses them on.
  add({"reduce_scatter_p2", "reduce_scatter", 2, 1, 64});
  add({"broadcast_p2", "broadcast", 2, 1, 64});
  add({"barrier_p2", "barrier", 2, 1, 64});
  add({"barrier_reuse_p2", "barrier", 2, 3, 64});
  for (int p : {2, 4}) {
    add({absl::StrCat("reduce_scatter_reuse_p", p), "reduce_scatter", p, 3, 64});
    add({absl::StrCat("broadcast_reuse_p", p), "broadcast", p, 3, 64});
  }
  // allgather and all_to_all: SIZE 64 on P = 2, 4, single and reused.
  for (const char* c : {"allgather", "all_to_all"}) {
    for (int p : {2, 4}) {
      add({absl::StrCat(c, "_p", p), c, p, 1, 64});
      add({absl::StrCat(c, "_reuse_p", p), c, p, 3, 64});
    }
  }
  // test_l3_host_tensor_all_to_all_v.py: MAX_RECV 4, SIZE 64, P = 2, 4.
  for (int p : {2, 4}) add({absl::StrCat("all_to_all_v_p", p), "all_to_all_v", p, 1, 64});
  // tests/st/distributed/collectives/test_l3_*.py: the collectives written
  // in the kernel, P = 2, 4; allreduce SIZE 256, the others 64; broadcast
  // root 0. allreduce and reduce_scatter in PyPTO's exact form (the
  // accumulator reassigned inside an `if`, `return pl.store(...)`, the
  // reduce-scatter row's STAGED bound by the call).
  for (int p : {2, 4}) {
    for (const char* c : {"allreduce", "reduce_scatter", "broadcast", "allgather", "all_to_all"}) {
      const int size = std::string(c) == "allreduce" ? 256 : 64;
      add({absl::StrCat("mesh_", c, "_p", p), absl::StrCat("mesh_", c), p, 1, size});
    }
  }
  // tests/st/distributed/collectives/test_l3_tensor_allreduce_intrinsic.py:
  // the kernel's one `pld.tensor.allreduce` between partial-tile stage
  // loops; lengths 1 (a [8, 1] tile, one valid element) and 17 on P = 2,
  // 4097 (one partial [1, 8192] tile) on P = 4, and FP16 Max at 17.
  add({"mesh_allreduce_intrinsic_len1_p2", "mesh_allreduce_intrinsic", 2, 1, 1});
  add({"mesh_allreduce_intrinsic_len17_p2", "mesh_allreduce_intrinsic", 2, 1, 17});
  add({"mesh_allreduce_intrinsic_len4097_p4", "mesh_allreduce_intrinsic", 4, 1, 4097});
  add({"mesh_allreduce_intrinsic_fp16_max_p2", "mesh_allreduce_intrinsic", 2, 1, 17, "FP16",
       "Max"});
  return rows;
}

INSTANTIATE_TEST_SUITE_P(Rows, PyptoCollectivesTest, testing::ValuesIn(Rows()),
                         [](const testing::TestParamInfo<Row>& info) { return info.param.name; });

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: pypto_collectives_test PTO_RUN TEMPLATE_DIR\n");
    return 2;
  }
  g_pto_run = fs::absolute(argv[1]).string();
  g_templates = fs::absolute(argv[2]).string();
  return RUN_ALL_TESTS();
}
