// One tensor's random stream: the pair (seed, tensor id) of the project's
// counter-based generator (scaleref/random/philox.hpp), with the element index
// left to the caller. An initializer that fills a [rows, cols] matrix draws
// element (i, j) at index i * cols + j, so the matrix is a pure function of
// (seed, tensor id, shape, config), whatever order the elements are visited in
// and on whichever device. Usable from host and device code.
#pragma once

#include <cstdint>
#include <scaleref/random/philox.hpp>

namespace scaleref::random {

struct Stream {
  using kernel_args = void;  // a CUDA kernel may take it by value: no pointer in it
  std::uint64_t seed = 0;
  std::uint32_t tensor = 0;

  SCALEREF_HOST_DEVICE double uniform(std::uint64_t index) const {
    return random::uniform(seed, tensor, index);
  }
  SCALEREF_HOST_DEVICE double normal(std::uint64_t index) const {
    return random::normal(seed, tensor, index);
  }
  // bound > 0 (callers check).
  SCALEREF_HOST_DEVICE double truncated_normal(std::uint64_t index, double bound) const {
    return random::truncated_normal(seed, tensor, index, bound);
  }
};

// The index of element (i, j) of a matrix with `cols` columns: its row-major
// position, the rule every scaleref initializer follows.
SCALEREF_HOST_DEVICE inline std::uint64_t element_index(std::uint64_t i, std::uint64_t j,
                                                        std::uint64_t cols) {
  return i * cols + j;
}

}  // namespace scaleref::random
