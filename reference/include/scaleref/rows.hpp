// Row-parallel loops and row reductions that give the same bits for any
// number of OpenMP threads.
//
// for_each_row(n, width, f) runs f(i) for every row, split across threads; each row's
// work must touch only that row. sum_rows(n, width, f) sums per-row
// contributions f(i, acc) (f adds row i's 1 x width contribution into acc) in
// a fixed order: rows are cut into blocks of kRowBlock (a constant, not a
// function of the thread count), each block is summed in row order, and the
// block sums are added in block order (the two-stage scheme of Liger-Kernel
// and apex, here on the CPU). Built on them: scale_cols (m (.) v for a row v),
// col_sum (the column sums of a) and col_sum_product (those of a (.) b).
#pragma once

#include <algorithm>
#include <scaleref/types.hpp>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace scaleref {

inline constexpr Eigen::Index kRowBlock = 64;

// Threads start only above this many entries: a parallel region costs
// microseconds, and far more when processes share the cores (ctest -j).
inline constexpr Eigen::Index kParallelEntries = 1 << 15;

// body(i) for i = 0 .. n-1: shared among the OpenMP threads (static schedule)
// when `worth_threads` and more than one thread is available outside a
// parallel region, else in a plain loop. (A parallel region that runs on one
// thread would still cost a heap allocation in libgomp, every time.)
template <class F>
void parallel_for(Eigen::Index n, bool worth_threads, F&& body) {
#ifdef _OPENMP
  if (worth_threads && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) body(i);
    return;
  }
#endif
  for (Eigen::Index i = 0; i < n; ++i) body(i);
}

// f(i) for every row i of an [n, width] batch.
template <class F>
void for_each_row(Eigen::Index n, Eigen::Index width, F&& f) {
  parallel_for(n, n > 1 && n * width >= kParallelEntries, f);
}

namespace detail {

// A [rows, cols] matrix on storage of this thread's that only grows: calls of
// any shapes, in any order, reuse it (tag tells uses apart that must not share).
template <class S, int tag>
Eigen::Map<Mat<S>> thread_buffer(Eigen::Index rows, Eigen::Index cols) {
  thread_local std::vector<S> storage;
  const auto size = static_cast<std::size_t>(rows * cols);
  if (storage.size() < size) storage.resize(size);
  return {storage.data(), rows, cols};
}

}  // namespace detail

// total = the sum over rows of f's contributions, [1, width], written into
// total; f(i, acc) adds row i's into acc, a 1 x width matrix (auto&: a map on
// reused storage). The per-block partial sums and each block's accumulator
// live in per-thread buffers that are kept between calls, so a repeated call
// allocates nothing.
template <class S, class F>
void sum_rows(Eigen::Index n, Eigen::Index width, F&& f, Mat<S>& total) {
  const Eigen::Index blocks = (n + kRowBlock - 1) / kRowBlock;
  // the calling thread's, shared with its team below
  Eigen::Map<Mat<S>> partial = detail::thread_buffer<S, 0>(blocks, width);
  parallel_for(blocks, blocks > 1 && n * width >= kParallelEntries, [&](Eigen::Index b) {
    Eigen::Map<Mat<S>> acc = detail::thread_buffer<S, 1>(1, width);  // each thread's own
    acc.setZero();
    const Eigen::Index end = std::min(n, (b + 1) * kRowBlock);
    for (Eigen::Index i = b * kRowBlock; i < end; ++i) f(i, acc);
    partial.row(b) = acc;
  });
  total.setZero(1, width);
  for (Eigen::Index b = 0; b < blocks; ++b) total += partial.row(b);
}

template <class S, class F>
Mat<S> sum_rows(Eigen::Index n, Eigen::Index width, F&& f) {
  Mat<S> total;
  sum_rows<S>(n, width, f, total);
  return total;
}

// out = m (.) v, v [1, m.cols()].
template <class S>
void scale_cols(const Mat<S>& m, const Mat<S>& v, Mat<S>& out) {
  out.resize(m.rows(), m.cols());
  for_each_row(m.rows(), m.cols(),
               [&](Eigen::Index i) { out.row(i) = m.row(i).cwiseProduct(v.row(0)); });
}

// out = sum over rows of a, [1, D].
template <class S>
void col_sum(const Mat<S>& a, Mat<S>& out) {
  sum_rows<S>(
      a.rows(), a.cols(), [&](Eigen::Index i, auto& acc) { acc += a.row(i); }, out);
}

// out = sum over rows of a (.) b, [1, D].
template <class S>
void col_sum_product(const Mat<S>& a, const Mat<S>& b, Mat<S>& out) {
  sum_rows<S>(
      a.rows(), a.cols(),
      [&](Eigen::Index i, auto& acc) { acc += a.row(i).cwiseProduct(b.row(i)); }, out);
}

}  // namespace scaleref
