// How cuda_bench times, and the device helpers it needs around the timed
// region (host API; no CUDA headers, so cuda_bench.cpp stays C++20).
//
// Timer::time runs `warmup` untimed calls, then `reps` timed ones. Before
// every call, timed or not, it flushes L2: a kernel reads a buffer of
// 4 x the device's L2 size, so whatever the last call left in L2 is
// evicted (and written back, when dirty) before the next one starts. The
// flush reads rather than writes: a written flush buffer would leave dirty
// lines in L2 whose write-back would then be charged to the timed call.
// Each timed call sits between its own pair of CUDA events on the timer's
// stream (the flush stays outside them); the host synchronizes once after
// the last call and reads every pair, so the queue never runs dry between
// calls. The result is the median and the spread of the per-call times.
//
// Timer::time_copy times a device-to-device cudaMemcpyAsync of `bytes`
// bytes the same way: the reference bandwidth, counting bytes read plus
// bytes written (2 x bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <vector>

namespace scaleref::cuda::bench {

struct Stats {
  int reps = 0;
  double median_ms = 0, min_ms = 0, p10_ms = 0, p90_ms = 0, max_ms = 0, mean_ms = 0;
};

// Order statistics of per-call times (p10 and p90 by nearest rank).
Stats summarize(std::vector<double> ms);

class Timer {
 public:
  // flush_l2: read 4 x L2 before each timed call (off for --smoke, whose
  // times mean nothing: it checks that every case runs and agrees).
  Timer(int warmup, int reps, bool flush_l2 = true);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  Stream stream() const { return stream_; }
  std::size_t l2_bytes() const { return l2_bytes_; }
  std::size_t flush_bytes() const { return flush_.size(); }
  int warmup() const { return warmup_; }
  int reps() const { return reps_; }

  Stats time(const std::function<void(Stream)>& run);
  Stats time_copy(std::size_t bytes);

 private:
  void flush();
  int warmup_, reps_;
  Stream stream_ = nullptr;
  std::size_t l2_bytes_ = 0;
  DeviceBuffer<unsigned char> flush_;
  DeviceBuffer<unsigned int> sink_;
  DeviceBuffer<unsigned char> copy_src_, copy_dst_;
  std::vector<void*> start_, stop_;  // cudaEvent_t
};

// Device memory still free, in bytes (cudaMemGetInfo).
std::size_t free_device_bytes();

// n entries uniform in [lo, hi) from Philox stream (seed 20261122, tensor),
// rounded to T, written on `stream`.
template <class T>
void fill_uniform(T* p, std::size_t n, double lo, double hi, std::uint32_t tensor, Stream stream);

// Sets every byte to 0xff: a NaN in bf16, fp32 and fp64 alike, so an output
// entry a kernel fails to write shows up as non-finite.
void poison(void* p, std::size_t bytes, Stream stream);

// How far `got` is from `want` over n entries: the largest |got - want|, the
// largest |want|, and the count of entries where either side is not finite.
struct Difference {
  double max_abs_diff = 0, max_abs_want = 0;
  long long nonfinite = 0;
  double relative() const { return max_abs_want > 0 ? max_abs_diff / max_abs_want : max_abs_diff; }
};
template <class T>
Difference difference(const T* got, const T* want, std::size_t n, Stream stream);

}  // namespace scaleref::cuda::bench
