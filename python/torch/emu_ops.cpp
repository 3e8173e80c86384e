// `scaleref_emu`: the scaleref operators (schema.hpp) running the CUDA kernels'
// host and kernel code (kernels.hpp over scaleref::cuda) on CPU tensors
// through the CPU emulator (cuda/emu/), so that the binding a GPU runs is
// exercised on any machine. Each input is copied into the emulator's device
// memory, where its checks (memcheck, initcheck; racecheck under
// SCALEREF_EMU_CHECK=race) see every kernel access, and each output copied
// back. Slow by design: the emulator runs every thread of every block.
#include <torch/library.h>
#include <torch/types.h>

#include <cstring>
#include <memory>
#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/buffer.hpp>
#include <vector>

#include "kernels.hpp"
#include "schema.hpp"

namespace scaleref::torch_ops {
namespace {

// One operator call's device memory in the emulator.
class EmuDevice {
 public:
  static constexpr bool kCuda = false;
  explicit EmuDevice(const at::Tensor&) {}

  template <class T>
  const T* in(const at::Tensor& t) {
    const at::Tensor c = t.contiguous();
    auto& buf = buffers_.emplace_back(bytes(c));
    cuda::copy_to_device(buf.data(), c.data_ptr(), buf.size());
    return static_cast<const T*>(static_cast<void*>(buf.data()));
  }

  template <class T>
  T* out(at::Tensor& t) {
    TORCH_INTERNAL_ASSERT(t.is_contiguous());
    auto& buf = buffers_.emplace_back(bytes(t));
    outs_.push_back({t, buf.data()});
    return static_cast<T*>(static_cast<void*>(buf.data()));
  }

  // Waits for the kernels and copies every output back.
  void finish() {
    cuda::synchronize(stream());
    for (auto& o : outs_) cuda::copy_to_host(o.tensor.data_ptr(), o.device, bytes(o.tensor));
    outs_.clear();
  }

  template <class A>
  at::Tensor saved(const cuda::DeviceBuffer<A>& buf, int64_t n, at::ScalarType dtype) {
    TORCH_INTERNAL_ASSERT(buf.size() >= static_cast<std::size_t>(n));
    at::Tensor t = at::empty({n}, at::TensorOptions().dtype(dtype));
    cuda::copy_to_host(t.data_ptr(), buf.data(), bytes(t));
    return t;
  }

  template <class A>
  void restore(const at::Tensor& t, cuda::DeviceBuffer<A>& buf, int64_t n) {
    TORCH_CHECK_VALUE(t.numel() == n && t.element_size() == sizeof(A) && t.device().is_cpu(),
                      "scaleref_emu: a saved tensor does not match the forward's (", t.sizes(),
                      ", ", t.scalar_type(), ")");
    const at::Tensor c = t.contiguous();
    buf = cuda::DeviceBuffer<A>(static_cast<std::size_t>(n));
    cuda::copy_to_device(buf.data(), c.data_ptr(), bytes(c));
  }

  cuda::Stream stream() const { return nullptr; }
  cuda::Workspace& workspace() { return workspace_; }
  cuda::Blas& blas() {
    if (!blas_) blas_ = std::make_unique<cuda::Blas>();
    return *blas_;
  }

 private:
  struct Out {
    at::Tensor tensor;
    void* device;
  };
  static std::size_t bytes(const at::Tensor& t) {
    return static_cast<std::size_t>(t.numel()) * t.element_size();
  }

  std::vector<cuda::DeviceBuffer<unsigned char>> buffers_;  // std::vector: moves keep data()
  std::vector<Out> outs_;
  cuda::Workspace workspace_;
  std::unique_ptr<cuda::Blas> blas_;
};

}  // namespace

TORCH_LIBRARY(scaleref_emu, m) { define_schemas(m); }

TORCH_LIBRARY_IMPL(scaleref_emu, CPU, m) { kernels::register_all<EmuDevice>(m); }

}  // namespace scaleref::torch_ops
