// Deterministic dense products.
//
// Eigen's own GEMM picks its blocking from the thread count, so its bits can
// change with OMP_NUM_THREADS. scaleref builds with EIGEN_DONT_PARALLELIZE and
// uses this product instead: rows of C are split across OpenMP threads, and
// every C(i, j) is accumulated over k in the fixed order 0, 1, ..., K-1.
// The result is bitwise identical for any number of threads.
#pragma once

#include <scaleref/error.hpp>
#include <scaleref/types.hpp>

namespace scaleref {

// C = A B for A [n, k], B [k, m].
template <class S>
Mat<S> matmul(const Mat<S>& a, const Mat<S>& b) {
  require(a.cols() == b.rows(), "matmul", "expected a.cols() == b.rows(), got a ", shape_str(a),
          " and b ", shape_str(b));
  const Eigen::Index n = a.rows(), k = a.cols(), m = b.cols();
  Mat<S> c = Mat<S>::Zero(n, m);
  // Threads only pay off once a row holds real work.
  const bool parallel = n > 1 && static_cast<double>(k) * static_cast<double>(m) * n > 1e5;
#pragma omp parallel for schedule(static) if (parallel)
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index kk = 0; kk < k; ++kk) c.row(i).noalias() += a(i, kk) * b.row(kk);
  }
  return c;
}

}  // namespace scaleref
