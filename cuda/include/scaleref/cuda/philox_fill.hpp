// Fills a buffer on the GPU from the project's Philox streams
// (reference/include/scaleref/random/philox.hpp), for checking that a GPU
// initializer draws the numbers the CPU does. Host API; throws
// scaleref::Error when there is no device or a CUDA call fails.
#pragma once

#include <cstdint>
#include <vector>

namespace scaleref::cuda {

enum class Draw { uniform, normal, truncated_normal };

// Element i of the result is random::<draw>(seed, tensor, i) computed on the device
// (truncated_normal with bound 2).
std::vector<double> philox_fill(std::uint64_t seed, std::uint32_t tensor, std::size_t n, Draw draw);

}  // namespace scaleref::cuda
