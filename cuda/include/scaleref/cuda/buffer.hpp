// Device memory for host programs: an owning buffer, copies, and the scratch
// space the backward kernels keep their per-block partial sums in. Every CUDA
// failure is a scaleref::Error naming the call ("cuda: cudaMalloc(4096 bytes):
// out of memory").
#pragma once

#include <cstddef>
#include <scaleref/cuda/types.hpp>
#include <utility>
#include <vector>

namespace scaleref::cuda {

void* device_malloc(std::size_t bytes);  // nullptr for 0 bytes
void device_free(void* p) noexcept;

// Where device_malloc (and so every DeviceBuffer, Cache and Workspace) takes
// device memory: cudaMalloc and cudaFree unless the program installs another
// allocator, such as a framework's caching allocator, which hands memory out
// and back without synchronizing the device (the torch extension installs
// torch's: python/torch/cuda_ops.cpp). Memory must go back to the allocator
// that gave it, so installing one while any memory from device_malloc is live
// is an Error. `allocate` throws or returns nullptr when out of memory.
struct DeviceAllocator {
  void* (*allocate)(std::size_t bytes) = nullptr;  // nullptr: cudaMalloc
  void (*release)(void* p) = nullptr;              // nullptr: cudaFree
};
void set_device_allocator(const DeviceAllocator& allocator);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void fill_zero(void* dst, std::size_t bytes, Stream stream = nullptr);
void synchronize(Stream stream = nullptr);
// Throws Error when the last launch on this thread failed (cudaGetLastError).
void check_launch(const char* where);

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n), p_(static_cast<T*>(device_malloc(n * sizeof(T)))) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~DeviceBuffer() { device_free(p_); }

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }

  // Grows (contents lost) when fewer than n elements are held.
  void reserve(std::size_t n) {
    if (n > n_) *this = DeviceBuffer(n);
  }
  void upload(const std::vector<T>& host) {
    require_size(host.size());
    copy_to_device(p_, host.data(), host.size() * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    copy_to_host(host.data(), p_, n_ * sizeof(T));
    return host;
  }

 private:
  void require_size(std::size_t n) const;
  std::size_t n_ = 0;
  T* p_ = nullptr;
};

void throw_size_mismatch(std::size_t expected, std::size_t got);

template <class T>
void DeviceBuffer<T>::require_size(std::size_t n) const {
  if (n != n_) throw_size_mismatch(n_, n);
}

// Scratch memory the backward passes take their per-block partial sums from.
// Keep one per stream and pass it to every backward call: it grows to the
// largest request and is then reused, so timed loops do not allocate.
// Growing (like destroying any DeviceBuffer, or a temporary cache) frees the
// old memory with cudaFree, which waits until the device is idle, so kernels
// still queued on it finish first; a stream-ordered free (cudaFreeAsync)
// would not, and must not replace it without that ordering.
class Workspace {
 public:
  void* get(std::size_t bytes) {
    buffer_.reserve(bytes);
    return buffer_.data();
  }
  std::size_t capacity() const { return buffer_.size(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

}  // namespace scaleref::cuda
