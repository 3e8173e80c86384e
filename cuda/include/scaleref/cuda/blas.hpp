// Matrix products through cuBLAS for the layers that hold a weight matrix
// (SDD, the scale-vector placements), on row-major Rows views:
//
//   C = A B^T   (gemm_nt: a linear layer's z = x W^T, W [d_out, d_in])
//   C = A^T B   (gemm_tn: its weight gradient dW = dz^T x)
//   C = A B     (gemm_nn: its input gradient dx = dz W)
//
// fp64 runs DGEMM; fp32 SGEMM in full fp32 (no TF32: the default math mode);
// bf16 takes bf16 inputs and output with fp32 accumulation
// (cublasGemmEx, CUBLAS_COMPUTE_32F). cuBLAS picks the same algorithm for the
// same shapes, so a product gives the same bits run after run (cuBLAS's
// reproducibility note: same architecture, same stream setup).
#pragma once

#include <scaleref/cuda/types.hpp>

struct cublasContext;  // cublasHandle_t is cublasContext*

namespace scaleref::cuda {

class Blas {
 public:
  Blas();  // creates the handle (Error when cuBLAS cannot start)
  // Uses a handle someone else owns and keeps (a framework's: torch's current handle, with
  // its workspace and math mode); not destroyed with this object.
  explicit Blas(cublasContext* borrowed);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasContext* handle() const { return handle_; }

 private:
  cublasContext* handle_ = nullptr;
  bool owned_ = true;
};

// Each takes C's shape from A and B, checks it against c, and writes C = beta C + product
// with beta = 0 (accumulate = false) or 1 (accumulate = true).
template <class T>
void gemm_nt(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate = false);
template <class T>
void gemm_tn(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate = false);
template <class T>
void gemm_nn(Blas& blas, Rows<const T> a, Rows<const T> b, Rows<T> c, Stream stream,
             bool accumulate = false);

}  // namespace scaleref::cuda
