// cuBLAS products on row-major views (scaleref/cuda/blas.hpp).
//
// cuBLAS is column-major: a row-major [m, k] view with row stride s is the
// column-major [k, m] matrix A^T with leading dimension s. So the row-major
//   C = A B^T  is  C^T = B A^T        (col-major: op(B) = N... see each below)
// and every product is one call with A and B swapped and transposes chosen
// so that the column-major result is C^T, which is C in row-major storage.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <scaleref/cuda/blas.hpp>
#include <scaleref/error.hpp>
#include <type_traits>

#include "detail/launch.hpp"

namespace scaleref::cuda {

namespace {

void check(cublasStatus_t s, const char* where) {
  require(s == CUBLAS_STATUS_SUCCESS, where, "cuBLAS failed: ", cublasGetStatusString(s));
}

template <class T>
cudaDataType_t data_type() {
  if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  if constexpr (std::is_same_v<T, bf16>) return CUDA_R_16BF;
}

// Column-major C[m, n] = op(A)[m, k] op(B)[k, n] (+ C when accumulate).
template <class T>
void gemm(Blas& blas, cublasOperation_t op_a, cublasOperation_t op_b, std::int64_t m,
          std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b,
          std::int64_t ldb, T* c, std::int64_t ldc, Stream stream, bool accumulate,
          const char* where) {
  // Set only when it differs: cublasSetStream also drops a workspace the handle's owner
  // gave it (torch gives its handles one per stream from its caching allocator).
  cudaStream_t current = nullptr;
  check(cublasGetStream(blas.handle(), &current), where);
  if (current != stream) check(cublasSetStream(blas.handle(), stream), where);
  using A = Acc<T>;
  const A one = 1, beta = accumulate ? A(1) : A(0);
  const cublasComputeType_t compute =
      std::is_same_v<T, double> ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  check(cublasGemmEx_64(blas.handle(), op_a, op_b, m, n, k, &one, a, data_type<T>(), lda, b,
                        data_type<T>(), ldb, &beta, c, data_type<T>(), ldc, compute,
                        CUBLAS_GEMM_DEFAULT),
        where);
}

template <class A, class B, class C>
void check_views(const char* where, Rows<A> a, Rows<B> b, Rows<C> c) {
  detail::check_view(where, "a", a);
  detail::check_view(where, "b", b);
  detail::check_view(where, "c", c);
}

}  // namespace

Blas::Blas() {
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h), "cuda::Blas");
  handle_ = h;
}

Blas::Blas(cublasContext* borrowed) : handle_(borrowed), owned_(false) {
  require(borrowed != nullptr, "cuda::Blas", "a borrowed cuBLAS handle must not be null");
}

Blas::~Blas() {
  if (handle_ && owned_) cublasDestroy(handle_);
}

// Row-major C[M, N] = A[M, K] B[N, K]^T. Column-major: C^T[N, M] = B[N, K] A^T[K, M],
// where the col-major view of row-major B is B^T[K, N] (so op T) and of A is
// A^T[K, M] (op N).
template <class T>
void gemm_nt(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate) {
  constexpr const char* where = "cuda::gemm_nt";
  check_views(where, a, b, c);
  require(a.cols == b.cols && c.rows == a.rows && c.cols == b.rows, where,
          "expected A [M x K], B [N x K], C [M x N], got A [", a.rows, "x", a.cols, "], B [",
          b.rows, "x", b.cols, "], C [", c.rows, "x", c.cols, "]");
  gemm<T>(blas, CUBLAS_OP_T, CUBLAS_OP_N, c.cols, c.rows, a.cols, b.data, b.stride, a.data,
          a.stride, c.data, c.stride, stream, accumulate, where);
}

// Row-major C[M, N] = A[K, M]^T B[K, N]. Column-major: C^T[N, M] = B^T[N, K] A[K, M],
// with B^T[N, K] the col-major view of B (op N) and A[K, M] from A^T[M, K] (op T).
template <class T>
void gemm_tn(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate) {
  constexpr const char* where = "cuda::gemm_tn";
  check_views(where, a, b, c);
  require(a.rows == b.rows && c.rows == a.cols && c.cols == b.cols, where,
          "expected A [K x M], B [K x N], C [M x N], got A [", a.rows, "x", a.cols, "], B [",
          b.rows, "x", b.cols, "], C [", c.rows, "x", c.cols, "]");
  gemm<T>(blas, CUBLAS_OP_N, CUBLAS_OP_T, c.cols, c.rows, a.rows, b.data, b.stride, a.data,
          a.stride, c.data, c.stride, stream, accumulate, where);
}

// Row-major C[M, N] = A[M, K] B[K, N]. Column-major: C^T[N, M] = B^T[N, K] A^T[K, M],
// both the col-major views as they are (op N).
template <class T>
void gemm_nn(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate) {
  constexpr const char* where = "cuda::gemm_nn";
  check_views(where, a, b, c);
  require(a.cols == b.rows && c.rows == a.rows && c.cols == b.cols, where,
          "expected A [M x K], B [K x N], C [M x N], got A [", a.rows, "x", a.cols, "], B [",
          b.rows, "x", b.cols, "], C [", c.rows, "x", c.cols, "]");
  gemm<T>(blas, CUBLAS_OP_N, CUBLAS_OP_N, c.cols, c.rows, a.cols, b.data, b.stride, a.data,
          a.stride, c.data, c.stride, stream, accumulate, where);
}

#define SCALEREF_INSTANTIATE(T)                                                         \
  template void gemm_nt<T>(Blas&, Rows<const T>, Rows<const T>, Rows<T>, Stream, bool); \
  template void gemm_tn<T>(Blas&, Rows<const T>, Rows<const T>, Rows<T>, Stream, bool); \
  template void gemm_nn<T>(Blas&, Rows<const T>, Rows<const T>, Rows<T>, Stream, bool);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda
