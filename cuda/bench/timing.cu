// CUDA-event timing with an L2 flush, the copy reference, random fills and a
// device-side comparison for cuda_bench (interface and method: timing.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <scaleref/error.hpp>
#include <scaleref/random/philox.hpp>

#include "detail/device.cuh"
#include "timing.hpp"

namespace scaleref::cuda::bench {

namespace {

using detail::Dev;
using detail::i64;

void check(cudaError_t e, const char* what) {
  require(e == cudaSuccess, "cuda_bench", what, ": ", cudaGetErrorString(e));
}

cudaStream_t raw(Stream s) { return reinterpret_cast<cudaStream_t>(s); }

unsigned grid_for(std::size_t n, int threads) {
  const std::size_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, 65535));
}

// Reads every 16-byte word of the buffer; the sink is written only when the
// words' xor hits a value it never does, so the loads cannot be dropped.
__global__ void flush_kernel(DevPtr<const uint4> buf, std::size_t words, DevPtr<unsigned> sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 w = ld(buf + i);
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x5ca1e5efu) st(sink, acc);
}

template <class D>
__global__ void fill_kernel(DevPtr<D> p, std::size_t n, double lo, double hi,
                            std::uint32_t tensor) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double u = random::uniform(20261122, tensor, i);
    st(p + i, detail::narrow<D>(static_cast<detail::AccT<D>>(lo + (hi - lo) * u)));
  }
}

// Non-negative doubles order like their bit patterns, so atomicMax on the
// bits is a max of the values (and the same result whatever the order). One
// atomic per warp; the grid is capped at 1024 blocks to keep them few.
__device__ void max_into(DevPtr<unsigned long long> slot, double v) {
  atomicMax(slot, static_cast<unsigned long long>(__double_as_longlong(v)));
}

template <class D>
__global__ void difference_kernel(DevPtr<const D> got, DevPtr<const D> want, std::size_t n,
                                  DevPtr<unsigned long long> out) {
  double diff = 0, ref = 0;
  unsigned long long nonfinite = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double g = detail::widen(ld(got + i)), w = detail::widen(ld(want + i));
    if (!isfinite(g) || !isfinite(w)) {
      ++nonfinite;
      continue;
    }
    diff = fmax(diff, fabs(g - w));
    ref = fmax(ref, fabs(w));
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    diff = fmax(diff, __shfl_xor_sync(0xffffffffu, diff, offset));
    ref = fmax(ref, __shfl_xor_sync(0xffffffffu, ref, offset));
    nonfinite += __shfl_xor_sync(0xffffffffu, nonfinite, offset);
  }
  if ((threadIdx.x & 31u) == 0) {
    max_into(out, diff);
    max_into(out + 1, ref);
    if (nonfinite) atomicAdd(out + 2, nonfinite);
  }
}

}  // namespace

Stats summarize(std::vector<double> ms) {
  Stats s;
  s.reps = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  const auto rank = [&](double q) {  // nearest rank, 0-based
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    return ms[std::clamp<std::size_t>(k, 1, n) - 1];
  };
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  s.p10_ms = rank(0.10);
  s.p90_ms = rank(0.90);
  double sum = 0;
  for (double v : ms) sum += v;
  s.mean_ms = sum / static_cast<double>(n);
  return s;
}

Timer::Timer(int warmup, int reps, bool flush_l2) : warmup_(warmup), reps_(reps) {
  require(warmup >= 0 && reps >= 1, "cuda_bench::Timer", "expected warmup >= 0 and reps >= 1, got ",
          warmup, " and ", reps);
  cudaStream_t s = nullptr;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  stream_ = reinterpret_cast<Stream>(s);
  int device = 0, l2 = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  l2_bytes_ = static_cast<std::size_t>(l2);
  sink_ = DeviceBuffer<unsigned int>(1);
  if (flush_l2) {
    const std::size_t flush_bytes = std::max<std::size_t>(4 * l2_bytes_, std::size_t(64) << 20);
    flush_ = DeviceBuffer<unsigned char>(flush_bytes);
    check(cudaMemset(flush_.data(), 0x5a, flush_bytes), "cudaMemset");
  }
  for (int i = 0; i < reps; ++i) {
    cudaEvent_t a = nullptr, b = nullptr;
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
    start_.push_back(a);
    stop_.push_back(b);
  }
}

Timer::~Timer() {
  for (void* e : start_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  for (void* e : stop_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  if (stream_) cudaStreamDestroy(raw(stream_));
}

void Timer::flush() {
  if (flush_.size() == 0) return;
  const std::size_t words = flush_.size() / sizeof(uint4);
  launch<flush_kernel>(grid_for(words, 256), 256, 0, raw(stream_),
                       reinterpret_cast<const uint4*>(flush_.data()), words, sink_.data());
  check(cudaGetLastError(), "flush kernel launch");
}

Stats Timer::time(const std::function<void(Stream)>& run) {
  for (int i = 0; i < warmup_; ++i) {
    flush();
    run(stream_);
  }
  check(cudaStreamSynchronize(raw(stream_)), " warm-up (cudaStreamSynchronize)");
  for (int i = 0; i < reps_; ++i) {
    flush();
    check(cudaEventRecord(static_cast<cudaEvent_t>(start_[i]), raw(stream_)), "cudaEventRecord");
    run(stream_);
    check(cudaEventRecord(static_cast<cudaEvent_t>(stop_[i]), raw(stream_)), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(raw(stream_)), " timed calls (cudaStreamSynchronize)");
  std::vector<double> ms(reps_);
  for (int i = 0; i < reps_; ++i) {
    float t = 0;
    check(cudaEventElapsedTime(&t, static_cast<cudaEvent_t>(start_[i]),
                               static_cast<cudaEvent_t>(stop_[i])),
          "cudaEventElapsedTime");
    ms[i] = t;
  }
  return summarize(std::move(ms));
}

Stats Timer::time_copy(std::size_t bytes) {
  copy_src_.reserve(bytes);
  copy_dst_.reserve(bytes);
  check(cudaMemsetAsync(copy_src_.data(), 0x3c, bytes, raw(stream_)), "cudaMemsetAsync");
  unsigned char* dst = copy_dst_.data();
  const unsigned char* src = copy_src_.data();
  return time([&](Stream s) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, raw(s)),
          "cudaMemcpyAsync (device to device)");
  });
}

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return free;
}

void poison(void* p, std::size_t bytes, Stream stream) {
  if (bytes) check(cudaMemsetAsync(p, 0xff, bytes, raw(stream)), "cudaMemsetAsync");
}

template <class T>
void fill_uniform(T* p, std::size_t n, double lo, double hi, std::uint32_t tensor, Stream stream) {
  if (n == 0) return;
  launch<fill_kernel<Dev<T>>>(grid_for(n, 256), 256, 0, raw(stream), detail::dev(p), n, lo, hi,
                              tensor);
  check(cudaGetLastError(), "fill kernel launch");
}

template <class T>
Difference difference(const T* got, const T* want, std::size_t n, Stream stream) {
  DeviceBuffer<unsigned long long> slots(3);
  check(cudaMemsetAsync(slots.data(), 0, 3 * sizeof(unsigned long long), raw(stream)),
        "cudaMemsetAsync");
  if (n)
    launch<difference_kernel<Dev<T>>>(std::min(grid_for(n, 256), 1024u), 256, 0, raw(stream),
                                      detail::dev(got), detail::dev(want), n, slots.data());
  check(cudaGetLastError(), "difference kernel launch");
  check(cudaStreamSynchronize(raw(stream)), " difference (cudaStreamSynchronize)");
  const std::vector<unsigned long long> host = slots.download();
  Difference d;
  std::memcpy(&d.max_abs_diff, &host[0], sizeof(double));
  std::memcpy(&d.max_abs_want, &host[1], sizeof(double));
  d.nonfinite = static_cast<long long>(host[2]);
  return d;
}

#define SCALEREF_INSTANTIATE(T)                                                          \
  template void fill_uniform<T>(T*, std::size_t, double, double, std::uint32_t, Stream); \
  template Difference difference<T>(const T*, const T*, std::size_t, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::bench
