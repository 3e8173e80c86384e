// What cuda_bench runs for each case (host API, no CUDA headers): the fused
// call through the library's API, the unfused baseline of the same math
// (unfused.hpp), and a comparison of the two on every output, so that a
// ratio between them is a ratio between two ways of computing one function.
//
// A Runner owns the device memory of one storage type: inputs drawn once
// from Philox streams (x uniform in [-2, 2), dy in [-1, 1), gamma in
// [0.5, 1.5), biases and SeeDNorm's alpha in [-0.5, 0.5), SeeDNorm's beta
// in [-b, b) with b = 1.5 / sqrt(head width) so that tanh works in its
// curved range, DyT's alpha 0.5), outputs, caches, parameter gradients and
// the temporaries of both versions, all sized for the largest case before
// anything is timed. A case uses the first rows x cols entries of each
// buffer as a dense matrix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <scaleref/cuda/types.hpp>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "timing.hpp"

namespace scaleref::cuda::bench {

struct OutputDifference {
  std::string output;  // "y", "dx", "dgamma", ...
  Difference diff;     // fused (got) against unfused (want)
};

struct Prepared {
  std::function<void(Stream)> fused, unfused;
  std::vector<OutputDifference> differences;
  std::int64_t unfused_launches = 0;  // kernels per unfused call (cuBLAS GEMMs counted as 1)
  std::size_t workspace_bytes = 0;    // the fused backward's partial sums (not in the byte count)
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Sets up one case: for bwd, runs both forwards once so each backward has
  // its statistics; then runs fused and unfused once each and compares them.
  virtual Prepared prepare(Op op, Dir dir, const Shape& shape) = 0;
};

// `entries`: the largest rows x cols; `max_rows`, `max_cols`: the largest of each.
std::unique_ptr<Runner> make_runner(DType dtype, std::int64_t entries, std::int64_t max_rows,
                                    std::int64_t max_cols, Stream stream);

}  // namespace scaleref::cuda::bench
