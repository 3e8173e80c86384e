// The weight initializers on the GPU (reference:
// reference/include/scaleref/init/initializers.hpp): every method of
// init::Config (Gaussian, Xavier normal and uniform, Kaiming normal and
// uniform, SIR, DS-Init, LIR, gamma-init) fills a [d_out, d_in] matrix in
// device memory with exactly the values init::draw gives on the CPU.
//
//   normal laws:   W_ij = std * normal(seed, tensor, i * d_in + j)
//   uniform laws:  W_ij = bound * (2 u - 1),  u = uniform(seed, tensor, i * d_in + j)
//
// The law (std or bound) is the reference's own: this entry point is host
// code compiled as C++20 that calls the reference's law function, so a change
// there reaches the GPU with nothing to copy. The draws are the project's
// Philox streams (scaleref/random/philox.hpp), bitwise the same on host and
// device (normals included: their ln and cos are scaleref/random/portable_math.hpp's),
// each value is computed in double with the CPU's operations and rounded once
// to the storage type as types.hpp's from_double (double -> float -> bf16 for
// bf16). So the matrix is bit for bit from_double<T>(init::draw<double>(...)).
//
// C++20 host header: it includes the reference's initializers (Eigen, Boost),
// so a program that includes it links scaleref_reference as well as
// scaleref_cuda. Bad input is a scaleref::Error before anything runs: the
// reference's (a bad config, shape or layer index, named "cuda::init::draw"),
// and out not [d_out, d_in], empty, misaligned or null. The kernel is queued on
// `stream` and not waited for. Padding entries (stride > d_in) are not written.
#pragma once

#include <scaleref/cuda/types.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/random/stream.hpp>

namespace scaleref::cuda::init {

// W [shape.d_out, shape.d_in] at `layer` under `config`, drawn from rng, into out.
template <class T>
void draw(const scaleref::init::Shape& shape, int layer, const scaleref::init::Config& config,
          const random::Stream& rng, Rows<T> out, Stream stream = nullptr);

}  // namespace scaleref::cuda::init
