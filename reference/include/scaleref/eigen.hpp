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
#pragma once

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
