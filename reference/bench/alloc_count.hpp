// Heap allocations counted by replacing glibc's malloc family.
//
// Linking alloc_count.cpp into a program defines malloc, calloc, realloc,
// free, aligned_alloc, memalign and posix_memalign there; each forwards to
// glibc's own implementation (__libc_malloc and friends, the documented way
// to replace malloc: glibc manual, "Replacing malloc") after adding one to a
// process-wide counter. Everything that reaches the heap goes through them:
// operator new (std::vector, std::string), Eigen's aligned_malloc, OpenMP's
// runtime. Memory a library maps itself (mmap) and stack memory (alloca,
// Eigen's blocking buffers under EIGEN_STACK_ALLOCATION_LIMIT) are not heap
// allocations and are not counted.
//
// Usage: allocations() before and after the code of interest; the difference
// is the number of calls that asked the heap for memory (realloc counts once).
// allocated_bytes() the same for the bytes asked for (calloc: n * size).
#pragma once

#include <cstdint>

namespace scaleref::bench {

// Heap allocations made by this process so far, all threads.
std::uint64_t allocations();

// Bytes asked of the heap by this process so far, all threads (never
// decreased by free: a measure of churn, not of memory in use).
std::uint64_t allocated_bytes();

}  // namespace scaleref::bench
