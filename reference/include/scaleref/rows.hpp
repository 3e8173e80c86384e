// Row-parallel loops and row reductions that give the same bits for any
// number of OpenMP threads.
//
// for_each_row(n, width, f) runs f(i) for every row, split across threads; each row's
// work must touch only that row. sum_rows(n, width, f) sums per-row
// contributions f(i, acc) (f adds row i's 1 x width contribution into acc) in
// a fixed order: rows are cut into blocks of kRowBlock (a constant, not a
// function of the thread count), each block is summed in row order, and the
// block sums are added in block order (the two-stage scheme of Liger-Kernel
// and apex, here on the CPU).
#pragma once

#include <algorithm>
#include <scaleref/types.hpp>

namespace scaleref {

inline constexpr Eigen::Index kRowBlock = 64;

// Threads start only above this many entries: a parallel region costs
// microseconds, and far more when processes share the cores (ctest -j).
inline constexpr Eigen::Index kParallelEntries = 1 << 15;

// f(i) for every row i of an [n, width] batch.
template <class F>
void for_each_row(Eigen::Index n, Eigen::Index width, F&& f) {
#pragma omp parallel for schedule(static) if (n > 1 && n * width >= kParallelEntries)
  for (Eigen::Index i = 0; i < n; ++i) f(i);
}

// total = the sum over rows of f's contributions, [1, width], written into total.
// The per-block partial sums and each block's accumulator live in per-thread
// buffers that keep their storage between calls, so a repeated call with the
// same shape allocates nothing.
template <class S, class F>
void sum_rows(Eigen::Index n, Eigen::Index width, F&& f, Mat<S>& total) {
  const Eigen::Index blocks = (n + kRowBlock - 1) / kRowBlock;
  thread_local Mat<S> partial_storage;
  Mat<S>& partial = partial_storage;  // the calling thread's, shared with its team below
  partial.setZero(blocks, width);
#pragma omp parallel for schedule(static) if (blocks > 1 && n * width >= kParallelEntries)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    thread_local Mat<S> acc;  // each thread's own
    acc.setZero(1, width);
    const Eigen::Index end = std::min(n, (b + 1) * kRowBlock);
    for (Eigen::Index i = b * kRowBlock; i < end; ++i) f(i, acc);
    partial.row(b) = acc;
  }
  total.setZero(1, width);
  for (Eigen::Index b = 0; b < blocks; ++b) total += partial.row(b);
}

template <class S, class F>
Mat<S> sum_rows(Eigen::Index n, Eigen::Index width, F&& f) {
  Mat<S> total;
  sum_rows<S>(n, width, f, total);
  return total;
}

}  // namespace scaleref
