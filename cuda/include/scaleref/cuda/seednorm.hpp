// SeeDNorm and multi-head SeeDNorm on the GPU (reference:
// reference/include/scaleref/norm/seednorm.hpp; seednorm eq. 4, 7), and
// AdaSeeDNorm (seednorm eq. 8; reference norm/adaseednorm.hpp):
//
//   SeeDNorm(x)     = [sigma(x_h . beta_h) alpha + gamma] (.) x / RMS(x)
//   AdaSeeDNorm(x)  = [(sigma(x_h . beta_h) alpha + 1) (.) x / RMS(x)] (.) (1 + gamma(c)) + eta(c)
//
// with RMS(x) = sqrt(mean_i x_i^2 + eps) over the whole row, and one sigma
// per head h (x_h, beta_h: the h-th of `heads` equal column blocks; heads = 1
// is eq. 4). One pass over the row takes sum x^2 and every head's x_h . beta_h
// together (the fused statistics); a second writes y. alpha is a vector
// (AlphaForm::vector), one scalar (scalar) or absent (none: alpha = 1);
// gamma may be absent. beta enters through the dot product (BetaForm::dot of
// the reference); its element-wise and removed ablations are reference-only.
// sigma is any of the reference's activations.
//
// backward, per row, with q = dy (.) x_hat, a_k the alpha entry of column k,
// s_h = sigma(z_h), z_h = x_h . beta_h (kept by forward) and r = 1 / RMS:
//
//   ds_h = sum_{k in h} a_k q_k,   dz_h = sigma'(z_h) ds_h
//   dx_k = dz_h beta_k + r (g_k - x_hat_k mean(g (.) x_hat)),  g = dy (.) (a s + gamma)
//   dalpha_k += s_h q_k,  dbeta_k += dz_h x_k,  dgamma_k += q_k
//
// (seednorm eq. 16, 18, 20, 26). AdaSeeDNorm's dy enters as dy (.) (1 + gamma(c))
// with gamma = 1 fixed, plus d gamma(c) = dy (.) u and d eta(c) = dy per row,
// u the bracket. Parameter gradients are reduced over rows in a fixed order.
// A row whose RMS the accumulator cannot give (an overflowing sum of squares;
// at eps = 0 an all-zero or subnormal row) gives NaN, as in rmsnorm.hpp.
#pragma once

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/seednorm.hpp>

namespace scaleref::cuda::seednorm {

// The activations, their formulas and the alpha forms: scaleref/spec/seednorm.hpp.
using scaleref::norm::Activation;
using scaleref::norm::seednorm::AlphaForm;

struct Config {
  double eps = scaleref::norm::seednorm::Config{}.eps;
  Activation sigma = scaleref::norm::seednorm::Config{}.sigma;
  int heads = scaleref::norm::seednorm::Config{}.heads;  // multi-head SeeDNorm (eq. 7) when > 1
  AlphaForm alpha = scaleref::norm::seednorm::Config{}.alpha;
};

template <class T>
struct Params {
  const T* alpha = nullptr;  // [D] (vector), [1] (scalar), unused (none)
  const T* beta = nullptr;   // [D], required
  const T* gamma = nullptr;  // [D]; nullptr: no gamma (SeeDNorm), ignored by AdaSeeDNorm
};

template <class T>
struct Cache {
  DeviceBuffer<Acc<T>> rstd;  // [N]: 1 / RMS(x)
  DeviceBuffer<Acc<T>> z;     // [N * heads]: x_h . beta_h
};

template <class T>
struct Grads {
  T* dalpha = nullptr;  // like alpha; nullptr: not wanted
  T* dbeta = nullptr;   // [D]; nullptr: not wanted
  T* dgamma = nullptr;  // [D]; nullptr: not wanted (SeeDNorm only)
};

// AdaSeeDNorm's per-row conditioning, [N, D] each (broadcast a per-sample
// vector over its tokens before the call), and their gradients.
template <class T>
struct Condition {
  Rows<const T> gamma_c, eta_c;
};
template <class T>
struct ConditionGrads {
  Rows<T> dgamma_c, deta_c;  // data == nullptr: not wanted
};

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream = nullptr);

template <class T>
void backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws,
              Stream stream = nullptr);

// AdaSeeDNorm (seednorm eq. 8): Params::gamma is not read (the bracket's gain is 1).
template <class T>
void ada_forward(const Params<T>& p, const Config& c, const Condition<T>& cond, Rows<const T> x,
                 Rows<T> y, Cache<T>* cache, Stream stream = nullptr);

template <class T>
void ada_backward(const Params<T>& p, const Config& c, const Condition<T>& cond,
                  const Cache<T>& cache, Rows<const T> x, Rows<const T> dy, Rows<T> dx,
                  const Grads<T>& g, const ConditionGrads<T>& cg, Workspace& ws,
                  Stream stream = nullptr);

}  // namespace scaleref::cuda::seednorm
