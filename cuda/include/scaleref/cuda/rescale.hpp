// Weight rescaling on the GPU (reference: reference/include/scaleref/init/rescale.hpp,
// rescale Sec. 2.4), on one weight matrix W [rows, cols] in device memory:
//
//   UWR  (eq. 17)      W <- W / ||W||_F                   Unit Weight Rescaling
//   ZWR  (eq. 19-20)   z = (W - mu(W)) / sigma(W),         Z-Score Weight Rescaling
//                      W <- z sigma_init + mu(W)
//   TVR  (eq. 21)      W <- z sigma_target + mu(W)         Target Variance Rescaling
//   the authors' TVR   eq. 21 with the unbiased std, only when
//                      sigma(W) / sigma_target > threshold (1.2 by default), with
//                      sigma_target optionally divided by sqrt(l) at decoder layer l
//
// mu(W) is the mean of W's n = rows x cols entries and sigma(W) their standard
// deviation, population (divide by n) or unbiased (n - 1), as the reference's
// StdKind; ||W||_F is the Frobenius norm of the whole matrix.
//
// Everything follows the reference's conventions and formulas: the statistics
// are taken on W 2^-e (2^e the power of two just above max |W|, so nothing
// overflows or underflows; exact), in two passes (the mean, then the sum of
// squared deviations), and finished as the reference finishes them; each entry
// becomes ((w - mu) / sigma) target + mu, or w / ||W||_F, with the reference's
// operations in its order, in double, rounded once to the storage type
// (double -> float -> bf16 for bf16, as types.hpp's from_double). Where a rule
// decides not to rescale, out is an exact copy of W. Only the sums are
// ordered differently from the reference's (storage order on one thread):
// each of a fixed number of blocks (chosen from the shape alone) sums its
// contiguous range of entries (a squared deviation is added with one fused
// multiply-add), and one block adds the block sums in a fixed order. So the
// results are bitwise reproducible from run to run and device to device, and
// agree with the reference to the rounding of an n-term sum.
//
// Accumulation is in double for every storage type (not float for fp32 and
// bf16 as the row kernels do): a 4096 x 4096 matrix has 16.8M entries, and a
// float sum of that many carries errors up to n 2^-24 ~ 1 relative in the worst
// case (about sqrt(n) 2^-24 ~ 2.4e-4 typically), which would move every
// rescaled entry by as much; in double the same sums are good to ~1e-9 worst
// case. The reads are the cost anyway (three passes over W for the statistics:
// the extremes, the sum, the squared deviations; one read and write to rescale).
//
// Synchronization: every call blocks the calling host thread once, after the
// reductions, to copy the statistics to the host (a cudaMemcpyAsync of a few
// doubles on `stream`, then cudaStreamSynchronize(stream)): the host checks
// them (non-finite W, zero std or norm, overflow), decides (the authors'
// threshold) and returns them in an Outcome. The rescaling kernel (or the copy)
// is then queued on `stream` and not waited for. Keep one Workspace per stream.
//
// out may be W itself (same data and stride: rescaled in place, each entry read
// before it is written by the same thread) or must not overlap it. Padding
// entries (stride > cols) are never read or written.
//
// Bad input is a scaleref::Error naming the function, and is checked before any
// CUDA call: an empty or misaligned W or out, different shapes, out partly
// overlapping W, sigma_target (sigma_init) <= 0 or not finite, threshold < 1 or
// not finite, layer < 1 with depth scaling, fewer than 2 entries for the
// unbiased std. After the reductions (so W's memory is not read by the host):
// a non-finite entry in W, a W without spread (entries all equal, or an std at
// rounding level: metrics::has_spread, the CPU's rule; ZWR, TVR in the paper's
// form; the authors' rule leaves such a W alone), a zero norm (UWR), and a rescaled entry
// that would overflow the storage type (found exactly before anything is
// written: the map is increasing, so its extremes are the images of min W and
// max W). Nothing is clamped.
#pragma once

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/rescale.hpp>

namespace scaleref::cuda::rescale {

// Which standard deviation sigma(W) is: scaleref/spec/rescale.hpp.
using scaleref::metrics::StdKind;

struct Moments {
  double mean = 0;  // mu(W)
  double std = 0;   // sigma(W) of the kind asked for
};

// What a rule read and did (the reference's rescale::Outcome without the matrix).
struct Outcome {
  bool rescaled = false;  // out holds the rescaled W; false only for the authors' TVR at or
                          // under its threshold, when out is an exact copy of W
  double mean = 0;        // mu(W) (UWR: 0, not read)
  double before = 0;      // what the rule read: ||W||_F (UWR) or sigma(W) (ZWR, TVR: of the
                          // kind asked for; the authors' TVR: unbiased)
  double target = 0;      // the std aimed for: sigma_init (ZWR), sigma_target (TVR), the
                          // depth-scaled sigma_target (the authors' TVR); 0 for UWR
};

// The authors' TVR (reference: rescale::tvr_authors_code and Schedule::tvr_authors_code).
struct AuthorsTvr {
  double sigma_target = 0;    // no default: must be set (> 0)
  double threshold = 1.2;     // rescale iff sigma(W) / target > threshold (>= 1)
  bool depth_scaled = false;  // target = sigma_target / sqrt(layer) (LIR's factor, eq. 16)
  int layer = 1;              // decoder layer l >= 1, read when depth_scaled
};

// mu(W) and sigma(W).
template <class T>
Moments moments(Rows<const T> w, StdKind kind, Workspace& ws, Stream stream = nullptr);

// ||W||_F = sqrt(sum_ij W_ij^2).
template <class T>
double frobenius_norm(Rows<const T> w, Workspace& ws, Stream stream = nullptr);

// UWR, eq. 17: out = W / ||W||_F. Needs W != 0.
template <class T>
Outcome uwr(Rows<const T> w, Rows<T> out, Workspace& ws, Stream stream = nullptr);

// ZWR, eq. 19-20: out = z sigma_init + mu(W). Needs W's entries not all equal.
template <class T>
Outcome zwr(Rows<const T> w, Rows<T> out, double sigma_init, StdKind kind, Workspace& ws,
            Stream stream = nullptr);

// TVR in the paper's form, eq. 21: out = z sigma_target + mu(W), unconditionally.
template <class T>
Outcome tvr(Rows<const T> w, Rows<T> out, double sigma_target, StdKind kind, Workspace& ws,
            Stream stream = nullptr);

// TVR as the authors' code runs it: unbiased std; out = z target + mu(W) when
// sigma(W) / target > threshold, else out = W bit for bit (so is a W without spread,
// metrics::has_spread).
template <class T>
Outcome tvr_authors_code(Rows<const T> w, Rows<T> out, const AuthorsTvr& config, Workspace& ws,
                         Stream stream = nullptr);

}  // namespace scaleref::cuda::rescale
