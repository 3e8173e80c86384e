// Deterministic dense products.
//
// Eigen's own GEMM picks its blocking from the thread count, so its bits can
// change with OMP_NUM_THREADS. scaleref builds with EIGEN_DONT_PARALLELIZE and
// uses this product instead. C = A B is cut into fixed blocks of
// kMatmulRowBlock rows of A (the same blocks whatever the thread count), the
// blocks are shared among OpenMP threads, and each is one single-threaded
// product:
//   float, double: Eigen's GEMM on the block. Its summation order depends only
//                  on the block's shape and the CPU's cache sizes, never on
//                  which thread runs it, so C is bitwise identical for any
//                  number of threads on a given machine.
//   other scalars (Real50): C(i, j) accumulated over k in the fixed order
//                  0, 1, ..., K-1.
// The operands may be Eigen expressions (a transpose, a block), which are
// read in place instead of copied: matmul<S>(x, W.transpose()) is x W^T.
#pragma once

#include <algorithm>
#include <scaleref/error.hpp>
#include <scaleref/types.hpp>
#include <type_traits>

namespace scaleref {

inline constexpr Eigen::Index kMatmulRowBlock = 128;

// c = A B for A [n, k], B [k, m], written into c (resized; c must not alias a or b).
template <class T, class DA, class DB>
void matmul(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b, Mat<T>& c) {
  require(a.cols() == b.rows(), "matmul", "expected a.cols() == b.rows(), got a [", a.rows(), "x",
          a.cols(), "] and b [", b.rows(), "x", b.cols(), "]");
  const Eigen::Index n = a.rows(), k = a.cols(), m = b.cols();
  c.resize(n, m);
  if (n == 0 || m == 0 || k == 0) {
    c.setZero();
    return;
  }
  const Eigen::Index blocks = (n + kMatmulRowBlock - 1) / kMatmulRowBlock;
  // Threads only pay off once a block holds real work.
  const bool parallel = blocks > 1 && static_cast<double>(k) * static_cast<double>(m) * n > 1e5;
#pragma omp parallel for schedule(static) if (parallel)
  for (Eigen::Index blk = 0; blk < blocks; ++blk) {
    const Eigen::Index i0 = blk * kMatmulRowBlock, rows = std::min(kMatmulRowBlock, n - i0);
    if constexpr (std::is_floating_point_v<T>) {
      c.middleRows(i0, rows).noalias() = a.middleRows(i0, rows) * b;
    } else {
      c.middleRows(i0, rows).setZero();
      for (Eigen::Index i = i0; i < i0 + rows; ++i)
        for (Eigen::Index kk = 0; kk < k; ++kk) c.row(i).noalias() += a(i, kk) * b.row(kk);
    }
  }
}

// C = A B for A [n, k], B [k, m]; S defaults to A's scalar type.
template <class S = void, class DA, class DB>
auto matmul(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b)
    -> Mat<std::conditional_t<std::is_void_v<S>, typename DA::Scalar, S>> {
  Mat<std::conditional_t<std::is_void_v<S>, typename DA::Scalar, S>> c;
  matmul(a, b, c);
  return c;
}

}  // namespace scaleref
