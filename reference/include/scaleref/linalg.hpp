// Deterministic dense products.
//
// Eigen's own GEMM picks its blocking from the thread count, so its bits can
// change with OMP_NUM_THREADS. scaleref builds with EIGEN_DONT_PARALLELIZE and
// uses this product instead. C = A B is cut into fixed tiles of at most
// kMatmulBlock rows by kMatmulBlock columns (the same tiles whatever the
// thread count), the tiles are shared among OpenMP threads, and each is one
// single-threaded product of a block of rows of A by a block of columns of B:
//   float, double: Eigen's GEMM on the tile. Its summation order depends only
//                  on the tile's shape and the CPU's cache sizes, never on
//                  which thread runs it, so C is bitwise identical for any
//                  number of threads on a given machine. The tile's bounded
//                  shape also bounds Eigen's packing buffers, which then live
//                  on the stack (eigen.hpp): a product allocates nothing.
//   other scalars (Real50): C(i, j) accumulated over k in the fixed order
//                  0, 1, ..., K-1.
// The operands may be Eigen expressions (a transpose, a block), which are
// read in place instead of copied: matmul<S>(x, W.transpose()) is x W^T.
#pragma once

#include <algorithm>
#include <scaleref/error.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/types.hpp>
#include <type_traits>

namespace scaleref {

inline constexpr Eigen::Index kMatmulBlock = 128;

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
  const Eigen::Index row_blocks = (n + kMatmulBlock - 1) / kMatmulBlock;
  const Eigen::Index col_blocks = (m + kMatmulBlock - 1) / kMatmulBlock;
  const Eigen::Index tiles = row_blocks * col_blocks;
  // Threads only pay off once a tile holds real work.
  const bool parallel = tiles > 1 && static_cast<double>(k) * static_cast<double>(m) * n > 1e5;
  parallel_for(tiles, parallel, [&](Eigen::Index t) {
    const Eigen::Index i0 = (t / col_blocks) * kMatmulBlock, rows = std::min(kMatmulBlock, n - i0);
    const Eigen::Index j0 = (t % col_blocks) * kMatmulBlock, cols = std::min(kMatmulBlock, m - j0);
    auto tile = c.block(i0, j0, rows, cols);
    if constexpr (std::is_floating_point_v<T>) {
      tile.noalias() = a.middleRows(i0, rows) * b.middleCols(j0, cols);
    } else {
      tile.setZero();
      for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index kk = 0; kk < k; ++kk)
          tile.row(i).noalias() += a(i0 + i, kk) * b.row(kk).segment(j0, cols);
    }
  });
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
