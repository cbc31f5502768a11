// The golden of each HOST-rail builtin collective in the matrix form the
// collective tests run (every rank holds an [NR, SIZE] window; allgather's
// input is its row 0), registered by the collective's builtin name
// (compiler/ops/collective_def.h). Adding a collective registers its golden
// here: the collective tests look it up by name and
// //testing/system/collectives:collective_def_complete_test fails for a
// CollectiveDef without one.
#ifndef PTO_TESTING_REFERENCE_COLLECTIVE_GOLDENS_H_
#define PTO_TESTING_REFERENCE_COLLECTIVE_GOLDENS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "testing/reference/collectives.h"

namespace pto::reference {

// The kwargs a matrix call takes (unused ones are ignored).
struct MatrixCall {
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  int size = 0;  // SIZE, the row width
};

template <typename T>
using MatrixGolden = absl::Status (*)(const MatrixCall&, PerRank<T>*);

namespace internal {

template <typename T>
absl::Status MatrixAllGather(const MatrixCall& c, PerRank<T>* data) {
  PerRank<T> rows;
  for (const std::vector<T>& d : *data) rows.emplace_back(d.begin(), d.begin() + c.size);
  absl::StatusOr<PerRank<T>> g = AllGather(rows);
  if (!g.ok()) return g.status();
  *data = *std::move(g);
  return absl::OkStatus();
}

template <typename T>
absl::Status MatrixAllToAll(const MatrixCall&, PerRank<T>* data) {
  absl::StatusOr<PerRank<T>> g = AllToAll(*data);
  if (!g.ok()) return g.status();
  *data = *std::move(g);
  return absl::OkStatus();
}

}  // namespace internal

// Builtin name -> golden. all_to_all_v's golden takes counts and has its own
// matrix (testing/reference/all_to_all_v_cases.h), so it is not here.
template <typename T>
const std::map<std::string_view, MatrixGolden<T>>& MatrixGoldens() {
  static const auto* goldens = new std::map<std::string_view, MatrixGolden<T>>{
      {"allreduce", [](const MatrixCall& c, PerRank<T>* d) { return AllReduce(c.op, d); }},
      {"allreduce_ring",
       [](const MatrixCall& c, PerRank<T>* d) { return RingAllReduce(c.op, d); }},
      {"reduce_scatter",
       [](const MatrixCall& c, PerRank<T>* d) { return ReduceScatter(c.op, d); }},
      {"broadcast", [](const MatrixCall& c, PerRank<T>* d) { return Broadcast(c.root, d); }},
      // Moves no data: the window keeps what was staged.
      {"barrier", [](const MatrixCall&, PerRank<T>*) { return absl::OkStatus(); }},
      {"allgather", &internal::MatrixAllGather<T>},
      {"all_to_all", &internal::MatrixAllToAll<T>},
  };
  return *goldens;
}

// The registered names (the same for every element type).
inline std::vector<std::string> MatrixGoldenNames() {
  std::vector<std::string> names;
  for (const auto& [name, golden] : MatrixGoldens<float>()) names.emplace_back(name);
  return names;
}

}  // namespace pto::reference

#endif  // PTO_TESTING_REFERENCE_COLLECTIVE_GOLDENS_H_
