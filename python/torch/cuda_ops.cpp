// The `scaleref` operators on CUDA tensors: the project's CUDA kernels
// (kernels.hpp over scaleref::cuda) on the tensors' own device memory, on
// torch's current stream of the tensors' device. Every device buffer the
// kernels allocate (the caches' row statistics, the backward's partial sums,
// SDD's and the scale vectors' intermediates) comes from torch's caching
// allocator, installed as scaleref's device allocator when this library loads
// (scaleref/cuda/buffer.hpp, set_device_allocator): no cudaMalloc, and no
// cudaFree (which waits for the whole device) inside an operator. The GEMMs
// (SDD, the scale vectors) run on torch's own cuBLAS handle and workspace. Built only
// against a torch with CUDA (python/torch/CMakeLists.txt).
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>
#include <torch/types.h>

#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/buffer.hpp>
#include <vector>

#include "kernels.hpp"

namespace scaleref::torch_ops {
namespace {

// One operator call on x's device (Args checks every tensor is on it).
class CudaDevice {
 public:
  static constexpr bool kCuda = true;
  explicit CudaDevice(const at::Tensor& x) : device_(x.get_device()), guard_(x.device()) {}

  template <class T>
  const T* in(const at::Tensor& t) {
    const at::Tensor& c = kept_.emplace_back(t.contiguous());
    return static_cast<const T*>(c.data_ptr());
  }

  template <class T>
  T* out(at::Tensor& t) {
    TORCH_INTERNAL_ASSERT(t.is_contiguous());
    return static_cast<T*>(t.data_ptr());
  }

  // The kernels are queued on the stream; torch orders later work on it.
  void finish() { cuda::check_launch("scaleref (torch)"); }

  template <class A>
  at::Tensor saved(const cuda::DeviceBuffer<A>& buf, int64_t n, at::ScalarType dtype) {
    TORCH_INTERNAL_ASSERT(buf.size() >= static_cast<std::size_t>(n));
    const auto options = at::TensorOptions().dtype(dtype).device(at::kCUDA, device_);
    return at::from_blob(const_cast<A*>(buf.data()), {n}, options).clone();
  }

  template <class A>
  void restore(const at::Tensor& t, cuda::DeviceBuffer<A>& buf, int64_t n) {
    TORCH_CHECK_VALUE(t.numel() == n && t.element_size() == sizeof(A) && t.is_cuda(),
                      "scaleref: a saved tensor does not match the forward's (", t.sizes(), ", ",
                      t.scalar_type(), ")");
    buf = cuda::DeviceBuffer<A>(static_cast<std::size_t>(n));
    at::from_blob(buf.data(), {n}, t.options()).copy_(t);
  }

  cuda::Stream stream() const {
    return c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
  }
  cuda::Workspace& workspace() { return workspace_; }

  // torch's cuBLAS handle for the current device and stream, with the workspace torch
  // gives it from its caching allocator and its math mode (TF32 only where
  // torch.backends.cuda.matmul.allow_tf32 says so).
  cuda::Blas& blas() {
    if (!blas_) blas_.emplace(at::cuda::getCurrentCUDABlasHandle());
    return *blas_;
  }

 private:
  int device_;
  c10::cuda::CUDAGuard guard_;    // x's device is current for the call
  std::vector<at::Tensor> kept_;  // the contiguous copies of inputs, alive until the call ends
  cuda::Workspace workspace_;
  c10::optional<cuda::Blas> blas_;
};

void* torch_allocate(std::size_t bytes) {
  return c10::cuda::CUDACachingAllocator::raw_alloc(bytes);
}
void torch_release(void* p) { c10::cuda::CUDACachingAllocator::raw_delete(p); }

// Installed when the library loads, before any scaleref allocation.
[[maybe_unused]] const bool installed = [] {
  cuda::set_device_allocator({torch_allocate, torch_release});
  return true;
}();

}  // namespace

TORCH_LIBRARY_IMPL(scaleref, CUDA, m) { kernels::register_all<CudaDevice>(m); }

}  // namespace scaleref::torch_ops
