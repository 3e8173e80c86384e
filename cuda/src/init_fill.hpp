// The initializers' kernel launcher (internal to cuda/src): init.cpp, compiled
// as C++20 with the reference, finds the law; init_fill.cu, compiled by nvcc
// without Eigen, draws the entries. Only plain types cross between the two.
#pragma once

#include <cstdint>
#include <scaleref/cuda/types.hpp>

namespace scaleref::cuda::init::detail {

// The reference's init::Law, flattened.
struct FillLaw {
  using kernel_args = void;  // a kernel parameter (scaleref/cuda/kernel.hpp): no pointer in it
  bool normal;               // N(0, std^2); else U(-bound, bound)
  double std;                // the normal law's std
  double bound;              // the uniform law's bound
};

// out(i, j) = the law's draw at index i * out.cols + j of (seed, tensor), rounded to T.
template <class T>
void fill(const FillLaw& law, std::uint64_t seed, std::uint32_t tensor, Rows<T> out, Stream stream);

}  // namespace scaleref::cuda::init::detail
