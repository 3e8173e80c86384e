// Eigen, as every part of scaleref includes it.
//
// GCC before 13 warns -Wuninitialized / -Wmaybe-uninitialized inside its own
// AVX-512 intrinsics (they start from a deliberately undefined vector,
// _mm512_undefined_pd: GCC bug 105593) wherever Eigen inlines them, which
// -Werror turns into a failed build on a CPU with AVX-512. The two warnings
// are off for the text of Eigen's headers (and the intrinsic headers they
// include first) only; the project's own code keeps them. Include this, or
// scaleref/eigen_dense.hpp, instead of <Eigen/...> directly. Boost's Eigen
// support (Real50 matrices), which includes Eigen itself, comes with it.
//
// EIGEN_STACK_ALLOCATION_LIMIT: Eigen's GEMM packs its operands into blocking
// buffers, on the stack up to this many bytes, else from the heap on every
// product. Eigen's blocking bounds them by its fixed 1.5 MB level-2 budget: the
// packed rhs panel kc x nc to half of it (768 KiB), and the packed lhs block
// to a third of the L2 cache, or to mc x kc with mc <= 128 rows in
// scaleref::matmul (linalg.hpp). At 1 MiB every product of matmul keeps both
// on the stack (at most about 0.9 MiB, far inside a thread's 8 MiB default),
// so a training step makes no heap allocation for them (types.hpp, "Storage
// that is reused").
#pragma once

#ifndef EIGEN_STACK_ALLOCATION_LIMIT
#define EIGEN_STACK_ALLOCATION_LIMIT 1048576
#endif

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <boost/multiprecision/eigen.hpp>
#pragma GCC diagnostic pop
#else
#include <Eigen/Core>
#include <boost/multiprecision/eigen.hpp>
#endif
