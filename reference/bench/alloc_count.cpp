// See alloc_count.hpp.
#include "alloc_count.hpp"

#include <atomic>
#include <cerrno>
#include <cstddef>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* p);
}

namespace {

std::atomic<std::uint64_t> counter{0};
std::atomic<std::uint64_t> bytes{0};

void count(std::size_t size) {
  counter.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(size, std::memory_order_relaxed);
}

}  // namespace

namespace scaleref::bench {

std::uint64_t allocations() { return counter.load(std::memory_order_relaxed); }

std::uint64_t allocated_bytes() { return bytes.load(std::memory_order_relaxed); }

}  // namespace scaleref::bench

extern "C" {

void* malloc(std::size_t size) {
  count(size);
  return __libc_malloc(size);
}

void* calloc(std::size_t n, std::size_t size) {
  count(n * size);
  return __libc_calloc(n, size);
}

void* realloc(void* p, std::size_t size) {
  count(size);
  return __libc_realloc(p, size);
}

void free(void* p) { __libc_free(p); }

void* memalign(std::size_t alignment, std::size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count(size);
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr && size != 0) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
