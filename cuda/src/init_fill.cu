// The initializers' kernel (scaleref/cuda/init.hpp): one thread per entry in a
// grid-stride loop over the row-major index k = i * cols + j, which is also
// the entry's index in its Philox stream. Each value is a pure function of
// (seed, tensor, k), so the launch shape changes nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/random/portable_math.hpp>
#include <scaleref/random/stream.hpp>

#include "detail/device.cuh"
#include "init_fill.hpp"

namespace scaleref::cuda::init::detail {

namespace {

using cuda::detail::Dev;
using cuda::detail::dev;
using cuda::detail::grid_limit;
using cuda::detail::i64;

constexpr int kThreads = 256;
constexpr i64 kMaxBlocks = 8192;  // the grid strides beyond this

// init::draw's value at index k, with its operations (never fused).
__device__ inline double value(const FillLaw& law, const random::Stream& rng, std::uint64_t k) {
  namespace pm = random::portable;
  if (law.normal) return pm::mul(law.std, rng.normal(k));
  return pm::mul(law.bound, pm::sub(pm::mul(2.0, rng.uniform(k)), 1.0));
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    fill_kernel(FillLaw law, random::Stream rng, DevRows<D> out) {
  const i64 n = out.rows * out.cols;
  for (i64 k = i64(blockIdx.x) * kThreads + threadIdx.x; k < n; k += i64(gridDim.x) * kThreads) {
    const i64 i = k / out.cols, j = k - i * out.cols;
    const std::uint64_t index =
        random::element_index(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j),
                              static_cast<std::uint64_t>(out.cols));
    st(out.data + (i * out.stride + j), cuda::detail::from_double<D>(value(law, rng, index)));
  }
}

}  // namespace

template <class T>
void fill(const FillLaw& law, std::uint64_t seed, std::uint32_t tensor, Rows<T> out,
          Stream stream) {
  const i64 n = out.rows * out.cols;
  const i64 blocks =
      std::min({(n + kThreads - 1) / kThreads, kMaxBlocks, grid_limit("cuda::init::draw")});
  launch<fill_kernel<Dev<T>>>(static_cast<unsigned>(blocks), kThreads, 0, stream, law,
                              random::Stream{seed, tensor}, dev(out));
  check_launch("cuda::init::draw");
}

template void fill<double>(const FillLaw&, std::uint64_t, std::uint32_t, Rows<double>, Stream);
template void fill<float>(const FillLaw&, std::uint64_t, std::uint32_t, Rows<float>, Stream);
template void fill<bf16>(const FillLaw&, std::uint64_t, std::uint32_t, Rows<bf16>, Stream);

}  // namespace scaleref::cuda::init::detail
