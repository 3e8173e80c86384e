// The emulator's stand-in for <cublas_v2.h> (cuda/emu/src/cublas.cpp): the
// GEMM scaleref's SDD layer calls, on the CPU with cuBLAS's semantics:
// column-major operands, op N / T, C = alpha op(A) op(B) + beta C, products
// accumulated in the compute type (fp32 for fp32 and bf16 storage, fp64 for
// fp64), C rounded to its storage type once.
#pragma once

#include <cstdint>

#include "cuda_runtime.h"

enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
using cudaDataType = cudaDataType_t;

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};

enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };

enum cublasComputeType_t {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_64F = 70,
};

enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 };

struct cublasContext;
using cublasHandle_t = cublasContext*;

extern "C" {
cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream);
const char* cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
                               cublasOperation_t transb, std::int64_t m, std::int64_t n,
                               std::int64_t k, const void* alpha, const void* A,
                               cudaDataType_t Atype, std::int64_t lda, const void* B,
                               cudaDataType_t Btype, std::int64_t ldb, const void* beta, void* C,
                               cudaDataType_t Ctype, std::int64_t ldc,
                               cublasComputeType_t computeType, cublasGemmAlgo_t algo);
}
