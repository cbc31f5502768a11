// Golden functional models of every collective (docs/architecture.md): what
// each rank holds after the call, in plain C++, used as the single golden
// for the HOST, CHIP and InCore rails and for the simulator. Depends only on
// the standard library and Abseil.
//
// Data layout: one std::vector<T> per rank, dense row-major, as the kernels
// see their tensors. Element types: any arithmetic type (tests cover float
// and int8_t); integer arithmetic wraps modulo 2^N as the device does.
#ifndef PTO_TESTING_REFERENCE_COLLECTIVES_H_
#define PTO_TESTING_REFERENCE_COLLECTIVES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace pto::reference {

template <typename T>
using PerRank = std::vector<std::vector<T>>;  // [rank][element]

// The ABI values of spec §2 (`op` of allreduce / reduce_scatter).
enum class ReduceOp { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };

// all_to_all_v count clamp of spec §4.3: min(max(raw, 0), max_recv), computed
// in 64 bits, then narrowed to INT32.
int32_t ClampCount(int64_t raw, int64_t max_recv);

// ------------------------------------------------------------ all_to_all_v

// Geometry of one all_to_all_v call (spec §4.2): input and target are
// [P * max_recv, size] on every rank; send_counts and recv_counts are [P].
struct AllToAllVShape {
  int nranks = 0;
  int64_t max_recv = 0;  // rows per source slot
  int64_t size = 0;      // elements per row
  int64_t slot_elems() const { return max_recv * size; }
  int64_t elems() const { return nranks * slot_elems(); }
};

// Checks that every per-rank vector has the extent `shape` implies.
template <typename T>
absl::Status CheckAllToAllVOperands(const AllToAllVShape& shape,
                                    const PerRank<T>& input,
                                    const PerRank<int32_t>& send_counts,
                                    const PerRank<T>& target) {
  if (shape.nranks <= 0 || shape.max_recv <= 0 || shape.size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "all_to_all_v: P, MAX_RECV and SIZE must be positive, got ",
        shape.nranks, ", ", shape.max_recv, ", ", shape.size));
  }
  const size_t p = shape.nranks;
  if (input.size() != p || send_counts.size() != p || target.size() != p) {
    return absl::InvalidArgumentError("all_to_all_v: one operand per rank");
  }
  for (size_t r = 0; r < p; ++r) {
    if (input[r].size() != static_cast<size_t>(shape.elems()) ||
        target[r].size() != static_cast<size_t>(shape.elems()) ||
        send_counts[r].size() != p) {
      return absl::InvalidArgumentError(
          absl::StrCat("all_to_all_v: rank ", r, " operand extents differ "
                       "from [P*MAX_RECV, SIZE] / [P]"));
    }
  }
  return absl::OkStatus();
}

// All_to_all_v (spec §2.4, §4.3): rank r sends clamp(send_counts[r][d]) rows
// of input[r][d*MAX_RECV ...] to rank d, landing at target[d][r*MAX_RECV ...];
// afterwards recv_counts[d][r] is that clamped count. `target` holds the
// previous window content on entry: rows past recv_counts in a source slot
// are not transferred and keep it (a kernel leaves them alone; consumers
// must treat them as undefined, see CompareAllToAllV).
template <typename T>
absl::Status AllToAllV(const AllToAllVShape& shape, const PerRank<T>& input,
                       const PerRank<int32_t>& send_counts, PerRank<T>* target,
                       PerRank<int32_t>* recv_counts) {
  absl::Status st = CheckAllToAllVOperands(shape, input, send_counts, *target);
  if (!st.ok()) return st;
  const int p = shape.nranks;
  recv_counts->assign(p, std::vector<int32_t>(p, 0));
  for (int r = 0; r < p; ++r) {
    for (int d = 0; d < p; ++d) {
      const int32_t rows = ClampCount(send_counts[r][d], shape.max_recv);
      (*recv_counts)[d][r] = rows;
      std::copy_n(input[r].begin() + d * shape.slot_elems(), rows * shape.size,
                  (*target)[d].begin() + r * shape.slot_elems());
    }
  }
  return absl::OkStatus();
}

// Compares a run's all_to_all_v result with the golden. recv_counts must
// match exactly; target rows are compared only where defined (the first
// recv_counts[d][s] rows of each source slot s), since window memory is not
// guaranteed zeroed on reuse (spec §4.3). With `all_rows`, every row is
// compared: valid when the golden was computed from the target's known prior
// content (e.g. a freshly zeroed window, where untransferred rows must read
// exactly 0). Integers compare exactly; floats too (a transfer copies bits).
template <typename T>
absl::Status CompareAllToAllV(const AllToAllVShape& shape,
                              const PerRank<T>& want_target,
                              const PerRank<int32_t>& want_recv,
                              const PerRank<T>& got_target,
                              const PerRank<int32_t>& got_recv,
                              bool all_rows) {
  const int p = shape.nranks;
  if (got_target.size() != static_cast<size_t>(p) ||
      got_recv.size() != static_cast<size_t>(p)) {
    return absl::InvalidArgumentError("all_to_all_v compare: rank count");
  }
  for (int d = 0; d < p; ++d) {
    if (got_recv[d] != want_recv[d]) {
      for (int s = 0; s < p; ++s) {
        if (got_recv[d].size() <= static_cast<size_t>(s) ||
            got_recv[d][s] != want_recv[d][s]) {
          return absl::InternalError(absl::StrCat(
              "rank ", d, " recv_counts[", s, "] = ",
              s < static_cast<int>(got_recv[d].size()) ? got_recv[d][s] : -1,
              ", want ", want_recv[d][s]));
        }
      }
    }
    for (int s = 0; s < p; ++s) {
      const int64_t rows = all_rows ? shape.max_recv : want_recv[d][s];
      const int64_t base = s * shape.slot_elems();
      for (int64_t i = 0; i < rows * shape.size; ++i) {
        const T got = got_target[d][base + i];
        const T want = want_target[d][base + i];
        const bool same = std::is_floating_point_v<T>
                              ? (std::isnan(got) && std::isnan(want)) ||
                                    got == want
                              : got == want;
        if (!same) {
          return absl::InternalError(absl::StrCat(
              "rank ", d, " target slot ", s, " row ", i / shape.size,
              " col ", i % shape.size, " = ", static_cast<double>(got),
              ", want ", static_cast<double>(want),
              i / shape.size >= want_recv[d][s] ? " (untransferred row)"
                                                : ""));
        }
      }
    }
  }
  return absl::OkStatus();
}

// --------------------------------------------------- indexed_all_to_all_v

// Geometry of one indexed_all_to_all_v call (docs/indexed_all_to_all_v.md):
// input is [input_rows, size] with any input_rows, target is [P * max_recv,
// size], index is [P * max_recv] INT32, send_counts and recv_counts [P].
struct IndexedAllToAllVShape {
  int nranks = 0;
  int64_t max_recv = 0;    // rows per source slot of the target
  int64_t size = 0;        // elements per row
  int64_t input_rows = 0;  // N
  AllToAllVShape target_shape() const { return {nranks, max_recv, size}; }
};

// Indexed all_to_all_v, a gather: rank r sends to rank d the rows
// input[r][index[r][d*MAX_RECV + j]] for j < clamp(send_counts[r][d]) (spec
// §4.3), landing at target[d][(r*MAX_RECV + j) * SIZE ...]; afterwards
// recv_counts[d][r] is that clamped count. Rows past the count keep the
// target's previous content. An index entry a sent row uses outside
// [0, input_rows) is InvalidArgument, checked before anything is written;
// entries past the count are not read.
template <typename T>
absl::Status IndexedAllToAllV(const IndexedAllToAllVShape& shape, const PerRank<T>& input,
                              const PerRank<int32_t>& send_counts, const PerRank<int32_t>& index,
                              PerRank<T>* target, PerRank<int32_t>* recv_counts) {
  if (shape.nranks <= 0 || shape.max_recv <= 0 || shape.size <= 0 || shape.input_rows < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("indexed_all_to_all_v: P, MAX_RECV and SIZE must be positive and N "
                     "non-negative, got ",
                     shape.nranks, ", ", shape.max_recv, ", ", shape.size, ", ", shape.input_rows));
  }
  const size_t p = shape.nranks;
  const AllToAllVShape t = shape.target_shape();
  if (input.size() != p || send_counts.size() != p || index.size() != p || target->size() != p) {
    return absl::InvalidArgumentError("indexed_all_to_all_v: one operand per rank");
  }
  for (size_t r = 0; r < p; ++r) {
    if (input[r].size() != static_cast<size_t>(shape.input_rows * shape.size) ||
        (*target)[r].size() != static_cast<size_t>(t.elems()) ||
        index[r].size() != static_cast<size_t>(shape.nranks * shape.max_recv) ||
        send_counts[r].size() != p) {
      return absl::InvalidArgumentError(
          absl::StrCat("indexed_all_to_all_v: rank ", r,
                       " operand extents differ from input [N, SIZE], target "
                       "[P*MAX_RECV, SIZE], index [P*MAX_RECV], send_counts [P]"));
    }
    for (size_t d = 0; d < p; ++d) {
      const int32_t rows = ClampCount(send_counts[r][d], shape.max_recv);
      for (int64_t j = 0; j < rows; ++j) {
        const int64_t e = d * shape.max_recv + j;
        if (index[r][e] < 0 || index[r][e] >= shape.input_rows) {
          return absl::InvalidArgumentError(
              absl::StrCat("indexed_all_to_all_v: rank ", r, " index[", e, "] = ", index[r][e],
                           " is outside the input rows [0, ", shape.input_rows, ")"));
        }
      }
    }
  }
  recv_counts->assign(p, std::vector<int32_t>(p, 0));
  for (size_t r = 0; r < p; ++r) {
    for (size_t d = 0; d < p; ++d) {
      const int32_t rows = ClampCount(send_counts[r][d], shape.max_recv);
      (*recv_counts)[d][r] = rows;
      for (int64_t j = 0; j < rows; ++j) {
        const int64_t src = index[r][d * shape.max_recv + j];
        std::copy_n(input[r].begin() + src * shape.size, shape.size,
                    (*target)[d].begin() + r * t.slot_elems() + j * shape.size);
      }
    }
  }
  return absl::OkStatus();
}

// ------------------------------------------------- reductions and the rest

template <typename T>
T Reduce(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum: return static_cast<T>(a + b);
    case ReduceOp::kMax: return std::max(a, b);
    case ReduceOp::kMin: return std::min(a, b);
    case ReduceOp::kProd: return static_cast<T>(a * b);
  }
  return a;
}

namespace internal {
template <typename T>
absl::Status CheckUniform(const char* op, const PerRank<T>& data) {
  if (data.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": no ranks"));
  }
  for (size_t r = 1; r < data.size(); ++r) {
    if (data[r].size() != data[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": rank ", r, " has ", data[r].size(), " elements, rank 0 has ",
          data[0].size()));
    }
  }
  return absl::OkStatus();
}
}  // namespace internal

// Allreduce (mesh or ring, in place): every rank ends with the element-wise
// reduction over ranks, folded in rank order 0, 1, ..., P-1 (a kernel that
// folds in another order differs from this by float rounding only).
template <typename T>
absl::Status AllReduce(ReduceOp op, PerRank<T>* data) {
  absl::Status st = internal::CheckUniform("allreduce", *data);
  if (!st.ok()) return st;
  std::vector<T> acc = (*data)[0];
  for (size_t r = 1; r < data->size(); ++r) {
    for (size_t i = 0; i < acc.size(); ++i) {
      acc[i] = Reduce(op, acc[i], (*data)[r][i]);
    }
  }
  for (std::vector<T>& d : *data) d = acc;
  return absl::OkStatus();
}

// Broadcast (in place): every rank ends with the root's data.
template <typename T>
absl::Status Broadcast(int root, PerRank<T>* data) {
  absl::Status st = internal::CheckUniform("broadcast", *data);
  if (!st.ok()) return st;
  if (root < 0 || root >= static_cast<int>(data->size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "broadcast: root ", root, " outside [0, ", data->size(), ")"));
  }
  for (std::vector<T>& d : *data) d = (*data)[root];
  return absl::OkStatus();
}

// Ring allreduce (in place, numel % P == 0): chunk j of P equal chunks is
// folded in ring order from rank j: ranks j, j+1, ..., j+P-1 (mod P), the
// order the ring kernel's reduce-scatter phase visits them; every rank ends
// with the same bits.
template <typename T>
absl::Status RingAllReduce(ReduceOp op, PerRank<T>* data) {
  absl::Status st = internal::CheckUniform("allreduce_ring", *data);
  if (!st.ok()) return st;
  const size_t p = data->size();
  if ((*data)[0].size() % p != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "allreduce_ring: ", (*data)[0].size(), " elements do not split into ", p, " chunks"));
  }
  const size_t chunk = (*data)[0].size() / p;
  std::vector<T> acc((*data)[0].size());
  for (size_t j = 0; j < p; ++j) {
    for (size_t i = j * chunk; i < (j + 1) * chunk; ++i) {
      T v = (*data)[j][i];
      for (size_t k = 1; k < p; ++k) v = Reduce(op, v, (*data)[(j + k) % p][i]);
      acc[i] = v;
    }
  }
  for (std::vector<T>& d : *data) d = acc;
  return absl::OkStatus();
}

// Reduce_scatter (in place on [P, SIZE]): row r of rank r becomes the
// reduction over ranks (rank order) of their row r; the other rows keep
// their content.
template <typename T>
absl::Status ReduceScatter(ReduceOp op, PerRank<T>* data) {
  absl::Status st = internal::CheckUniform("reduce_scatter", *data);
  if (!st.ok()) return st;
  const size_t p = data->size();
  if ((*data)[0].size() % p != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce_scatter: ", (*data)[0].size(), " elements are not [", p,
        ", SIZE]"));
  }
  const size_t size = (*data)[0].size() / p;
  PerRank<T> in = *data;
  for (size_t r = 0; r < p; ++r) {
    for (size_t i = 0; i < size; ++i) {
      T acc = in[0][r * size + i];
      for (size_t s = 1; s < p; ++s) {
        acc = Reduce(op, acc, in[s][r * size + i]);
      }
      (*data)[r][r * size + i] = acc;
    }
  }
  return absl::OkStatus();
}

// The Sum reduce_scatter of spec §2.4.
template <typename T>
absl::Status ReduceScatterSum(PerRank<T>* data) {
  return ReduceScatter(ReduceOp::kSum, data);
}

// Allgather: input [1, SIZE] per rank; every rank's target [P, SIZE] holds
// rank s's input in row s.
template <typename T>
absl::StatusOr<PerRank<T>> AllGather(const PerRank<T>& input) {
  absl::Status st = internal::CheckUniform("allgather", input);
  if (!st.ok()) return st;
  std::vector<T> all;
  for (const std::vector<T>& in : input) all.insert(all.end(), in.begin(), in.end());
  return PerRank<T>(input.size(), all);
}

// All_to_all: input [P, SIZE] per rank; target row s of rank r = row r of
// rank s's input.
template <typename T>
absl::StatusOr<PerRank<T>> AllToAll(const PerRank<T>& input) {
  absl::Status st = internal::CheckUniform("all_to_all", input);
  if (!st.ok()) return st;
  const size_t p = input.size();
  if (input[0].size() % p != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "all_to_all: ", input[0].size(), " elements are not [", p, ", SIZE]"));
  }
  const size_t size = input[0].size() / p;
  PerRank<T> target(p, std::vector<T>(input[0].size()));
  for (size_t r = 0; r < p; ++r) {
    for (size_t s = 0; s < p; ++s) {
      std::copy_n(input[s].begin() + r * size, size,
                  target[r].begin() + s * size);
    }
  }
  return target;
}

// Barrier: moves no data. The functional result is the signal state: every
// builtin's credit protocol is self-clearing, so the signal must read all
// zero before the call (the precondition, checked here) and reads all zero
// after it.
absl::Status Barrier(PerRank<int32_t>* signals);

}  // namespace pto::reference

#endif  // PTO_TESTING_REFERENCE_COLLECTIVES_H_
