// cuda_bench's results and how they are written: one text line per case and
// a JSON document (host code, no CUDA). Field meanings, for readers of the
// JSON ("schema": "scaleref.cuda_bench/1"):
//
//   device        cuda::query_device() plus the L2 size the flush is sized from
//   date, commit  as given by --date / --commit (scripts/bench_cuda.sh passes both)
//   settings      warm-up and timed calls per measurement, flush buffer size
//   copy_peak     one device-to-device copy of 1 GiB (or less, if memory is short)
//   results[]     one object per case:
//     op, dir, dtype, rows, cols, heads, sweep (true: a point of the N sweep)
//     bytes, bytes_formula            the byte model of bytes.hpp, and its value
//     fused, unfused, copy            {median_ms, min_ms, p10_ms, p90_ms, max_ms,
//                                      mean_ms, reps, gbs} (gbs = bytes / median)
//     copy_bytes_copied               bytes / 2: the copy moves `bytes` in all
//     frac_copy                       copy median / fused median (= fused GB/s over copy GB/s)
//     unfused_frac_copy               the same for the unfused baseline
//     speedup_vs_unfused              unfused median / fused median
//     unfused_launches                kernels per unfused call
//     workspace_bytes                 the fused backward's partial sums (not in bytes)
//     gemm_flops, tflops              the SDD layer's GEMM work (0 for other ops)
//     agreement                       {ok, tolerance, worst_output, worst_rel_diff,
//                                      outputs: [{output, rel_diff, max_abs_diff,
//                                      max_abs_ref, nonfinite}]}: fused vs unfused
//   errors[]      {case, error} for each case that threw (a CUDA error, a rejected shape)
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "ops.hpp"
#include "timing.hpp"

namespace scaleref::cuda::bench {

struct CaseResult {
  Op op;
  Dir dir;
  DType dtype;
  Shape shape;
  bool sweep = false;
  double bytes = 0, flops = 0;
  Stats fused, unfused, copy;
  double copy_bytes = 0;
  std::int64_t unfused_launches = 0;
  std::size_t workspace_bytes = 0;
  std::vector<OutputDifference> differences;
  double tolerance = 0;

  double frac_copy() const { return copy.median_ms / fused.median_ms; }
  double unfused_frac_copy() const { return copy.median_ms / unfused.median_ms; }
  double speedup() const { return unfused.median_ms / fused.median_ms; }
  double gbs(const Stats& s) const { return bytes / (s.median_ms * 1e-3) / 1e9; }
  double copy_gbs() const { return 2 * copy_bytes / (copy.median_ms * 1e-3) / 1e9; }
  const OutputDifference* worst() const;  // the output with the largest relative difference
  bool agrees() const;
};

// A case that threw instead of producing a result.
struct CaseError {
  std::string label;  // "seednorm bwd bf16 16384x4096"
  std::string what;
};

struct RunInfo {
  std::string device_name, device_line, date, commit;
  int sm_major = 0, sm_minor = 0, multiprocessors = 0;
  double memory_gib = 0, peak_bandwidth_gbs = 0;
  std::size_t l2_bytes = 0, flush_bytes = 0;
  int warmup = 0, reps = 0;
  bool quick = false, smoke = false;
  double copy_peak_bytes = 0;
  Stats copy_peak;
};

// Agreement threshold on max |fused - unfused| / max |unfused| per output:
// the unfused version rounds every intermediate to the storage type.
double agreement_tolerance(DType t);

void print_legend(std::FILE* out, const std::vector<Op>& ops, const std::vector<Dir>& dirs);
void print_header(std::FILE* out);
void print_line(std::FILE* out, const CaseResult& r);

std::string to_json(const RunInfo& info, const std::vector<CaseResult>& results,
                    const std::vector<CaseError>& errors);

}  // namespace scaleref::cuda::bench
