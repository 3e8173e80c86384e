// cuBLAS's GemmEx on the emulator (cublas_v2.h): column-major
// C[m, n] = alpha op(A)[m, k] op(B)[k, n] + beta C, with Eigen on the CPU.
// Storage fp64 computes in fp64; fp32 and bf16 in fp32 (bf16 widens to fp32
// exactly, the products and sums are fp32, C is rounded to bf16 once, to
// nearest even), as CUBLAS_COMPUTE_32F does. The summation order is Eigen's,
// not cuBLAS's: the two agree to the compute type's rounding, not bitwise.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <scaleref/cuda/types.hpp>
#include <scaleref/eigen.hpp>
#include <string>

#include "internal.hpp"

struct cublasContext {
  cudaStream_t stream = nullptr;
};

namespace {

using scaleref::emu::record_error;

template <class S>
using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

std::size_t entry_bytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_64F:
      return 8;
    case CUDA_R_32F:
      return 4;
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return 2;
  }
  return 0;
}

// The [rows, cols] column-major matrix at p (leading dimension ld), widened to S.
template <class S>
Matrix<S> read(const void* p, cudaDataType_t t, std::int64_t rows, std::int64_t cols,
               std::int64_t ld) {
  Matrix<S> m(rows, cols);
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t at = i + j * ld;
      switch (t) {
        case CUDA_R_64F:
          m(i, j) = static_cast<S>(static_cast<const double*>(p)[at]);
          break;
        case CUDA_R_32F:
          m(i, j) = static_cast<S>(static_cast<const float*>(p)[at]);
          break;
        default:
          m(i, j) = static_cast<S>(scaleref::cuda::to_float(
              scaleref::cuda::bf16{static_cast<const std::uint16_t*>(p)[at]}));
      }
    }
  return m;
}

template <class S>
void write(const Matrix<S>& m, void* p, cudaDataType_t t, std::int64_t ld) {
  for (std::int64_t j = 0; j < m.cols(); ++j)
    for (std::int64_t i = 0; i < m.rows(); ++i) {
      const std::int64_t at = i + j * ld;
      switch (t) {
        case CUDA_R_64F:
          static_cast<double*>(p)[at] = static_cast<double>(m(i, j));
          break;
        case CUDA_R_32F:
          static_cast<float*>(p)[at] = static_cast<float>(m(i, j));
          break;
        default:
          static_cast<std::uint16_t*>(p)[at] =
              scaleref::cuda::to_bf16(static_cast<float>(m(i, j))).bits;
      }
    }
}

// Whether the [rows, cols] column-major matrix at p lies inside device memory.
bool in_device(const void* p, cudaDataType_t t, std::int64_t rows, std::int64_t cols,
               std::int64_t ld) {
  const std::size_t span = static_cast<std::size_t>((cols - 1) * ld + rows) * entry_bytes(t);
  return scaleref::emu::memory::is_device(p, span);
}

template <class S>
void gemm(cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
          std::int64_t k, S alpha, const void* a, cudaDataType_t at, std::int64_t lda,
          const void* b, cudaDataType_t bt, std::int64_t ldb, S beta, void* c, cudaDataType_t ct,
          std::int64_t ldc) {
  const Matrix<S> A = read<S>(a, at, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda);
  const Matrix<S> B = read<S>(b, bt, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb);
  Matrix<S> product(m, n);
  if (ta == CUBLAS_OP_N && tb == CUBLAS_OP_N) product.noalias() = A * B;
  if (ta == CUBLAS_OP_N && tb != CUBLAS_OP_N) product.noalias() = A * B.transpose();
  if (ta != CUBLAS_OP_N && tb == CUBLAS_OP_N) product.noalias() = A.transpose() * B;
  if (ta != CUBLAS_OP_N && tb != CUBLAS_OP_N) product.noalias() = A.transpose() * B.transpose();
  Matrix<S> out = alpha * product;
  if (beta != S(0)) out += beta * read<S>(c, ct, m, n, ldc);  // beta = 0: C is not read (NaN-safe)
  write<S>(out, c, ct, ldc);
  for (std::int64_t j = 0; j < n; ++j)  // initcheck: C's columns are written
    scaleref::emu::checks::written(static_cast<char*>(c) + j * ldc * entry_bytes(ct),
                                   static_cast<std::size_t>(m) * entry_bytes(ct));
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED (scaleref emulator: an operand outside device memory)";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED (scaleref emulator: a type combination it does not have)";
  }
  return "unknown cuBLAS status";
}

cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                               std::int64_t m, std::int64_t n, std::int64_t k, const void* alpha,
                               const void* a, cudaDataType_t at, std::int64_t lda, const void* b,
                               cudaDataType_t bt, std::int64_t ldb, const void* beta, void* c,
                               cudaDataType_t ct, std::int64_t ldc, cublasComputeType_t compute,
                               cublasGemmAlgo_t) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  const auto op_ok = [](cublasOperation_t o) { return o == CUBLAS_OP_N || o == CUBLAS_OP_T; };
  const std::int64_t a_rows = ta == CUBLAS_OP_N ? m : k, b_rows = tb == CUBLAS_OP_N ? k : n;
  if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || k < 0 || !alpha || !beta ||
      lda < std::max<std::int64_t>(1, a_rows) || ldb < std::max<std::int64_t>(1, b_rows) ||
      ldc < std::max<std::int64_t>(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  const bool f64 =
      at == CUDA_R_64F && bt == CUDA_R_64F && ct == CUDA_R_64F && compute == CUBLAS_COMPUTE_64F;
  const bool f32 = at == bt && at == ct && (at == CUDA_R_32F || at == CUDA_R_16BF) &&
                   compute == CUBLAS_COMPUTE_32F;
  if (!f64 && !f32) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const bool a_ok = k == 0 || in_device(a, at, a_rows, ta == CUBLAS_OP_N ? k : m, lda);
  const bool b_ok = k == 0 || in_device(b, bt, b_rows, tb == CUBLAS_OP_N ? n : k, ldb);
  if (!a_ok || !b_ok || !in_device(c, ct, m, n, ldc)) {
    record_error(cudaErrorIllegalAddress, "cublasGemmEx: an operand reaches outside device memory");
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  if (f64)
    gemm<double>(ta, tb, m, n, k, *static_cast<const double*>(alpha), a, at, lda, b, bt, ldb,
                 *static_cast<const double*>(beta), c, ct, ldc);
  else
    gemm<float>(ta, tb, m, n, k, *static_cast<const float*>(alpha), a, at, lda, b, bt, ldb,
                *static_cast<const float*>(beta), c, ct, ldc);
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
