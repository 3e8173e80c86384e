// SeeDNorm, Self-Rescaled Dynamic Normalization (seednorm eq. 4, 7; Algorithms 1-2),
// one row x of an [N, D] batch at a time:
//
//   SeeDNorm(x) = [sigma(x . beta^T) alpha + gamma] (.) x / RMS(x),
//   RMS(x) = sqrt(mean_i x_i^2 + eps)                                    (eq. 4)
//
// The dot product takes the raw x, as eq. 4 and Algorithm 1 do. Multi-head
// SeeDNorm (eq. 7, Algorithm 2) splits x and beta into H heads of D / H and
// uses one sigma(x_h . beta_h^T) per head for that head's block of alpha; RMS
// stays over all of x. Forms the paper ablates (Sec. 4.3, Table 4, Figure 4):
//
//   alpha  vector (default) | scalar | none (removed: alpha = 1, not learned)
//   beta   dot (default) | elementwise: sigma(x (.) beta), one sigma per entry
//          | none (removed): the paper says sigma then acts on x directly and
//          "the computation with alpha becomes a matrix multiplication"; the
//          project's reading is s_h = sigma(x_h) . alpha_h^T per head, so the
//          rescaling is one scalar per head (needs the vector alpha).
//   gamma  present (default) | none (removed: the rescaling alone scales x_hat)
//   sigma  tanh (default), sigmoid, hardtanh, softsign, gelu, swish
//
// Initialization (Algorithm 1): alpha = alpha_init * 1 (0.1, 1 or 10 in the
// paper's Figure 4), beta = 0, gamma = 1. Weight decay (Sec. 3.1): on alpha
// and beta, not on gamma.
#pragma once

#include <array>
#include <cmath>
#include <scaleref/norm/activation.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/seednorm.hpp>

namespace scaleref::norm::seednorm {

// Config, AlphaForm, BetaForm, kParams (the weight-decay data): scaleref/spec/seednorm.hpp.

template <class S>
struct Params {
  Mat<S> alpha;  // 1 x D (vector), 1 x 1 (scalar), empty (none)
  Mat<S> beta;   // 1 x D, empty (none)
  Mat<S> gamma;  // 1 x D, empty (none)
};

template <class S>
Params<S> init(Eigen::Index d, const Config& c = {}) {
  Params<S> p;
  if (c.alpha == AlphaForm::vector) p.alpha = Mat<S>::Constant(1, d, S(c.alpha_init));
  if (c.alpha == AlphaForm::scalar) p.alpha = Mat<S>::Constant(1, 1, S(c.alpha_init));
  if (c.beta != BetaForm::none) p.beta = Mat<S>::Zero(1, d);
  if (c.gamma) p.gamma = Mat<S>::Ones(1, d);
  return p;
}

template <class S>
struct Cache {
  Mat<S> x, x_hat;  // [N, D]
  Mat<S> r;         // [N, 1]: 1 / RMS(x)
  Mat<S> z;         // [N, m]: sigma's arguments (m = H for dot, D otherwise)
  Mat<S> scale;     // [N, D]: the self-rescaling term sigma(.) alpha
};

template <class S>
struct Grads {
  Mat<S> dx, dalpha, dbeta, dgamma;  // each parameter's gradient is empty when it is absent
  Mat<S> dalpha_rows, dbeta_rows;    // [N, D]: each row's terms, summed into dalpha, dbeta
};

namespace detail {

inline void check_config(const char* where, const Config& c, Eigen::Index d) {
  check_eps(where, c.eps);
  require(spec::holds(kActivationNames, c.sigma), where, "unknown activation ",
          static_cast<int>(c.sigma));
  require(c.heads >= 1 && d % c.heads == 0, where,
          "expected D divisible by heads >= 1, got D = ", d, " and heads = ", c.heads);
  require(c.heads == 1 || c.beta != BetaForm::elementwise, where,
          "heads > 1 needs a dot product with beta; BetaForm::elementwise has none");
  require(c.beta != BetaForm::none || c.alpha == AlphaForm::vector, where,
          "with beta removed, alpha must be a vector (it carries the product)");
}

template <class S>
void check_params(const char* where, const Config& c, const Params<S>& p, Eigen::Index d) {
  if (c.alpha == AlphaForm::vector) check_row_param(where, "alpha", p.alpha, d);
  if (c.alpha == AlphaForm::scalar) check_scalar_param(where, "alpha", p.alpha);
  if (c.beta != BetaForm::none) check_row_param(where, "beta", p.beta, d);
  if (c.gamma) check_row_param(where, "gamma", p.gamma, d);
}

// a_k, the alpha entry multiplying entry k: alpha_k, alpha, or 1.
template <class S>
S alpha_at(const Config& c, const Params<S>& p, Eigen::Index k) {
  switch (c.alpha) {
    case AlphaForm::vector:
      return p.alpha(0, k);
    case AlphaForm::scalar:
      return p.alpha(0, 0);
    case AlphaForm::none:
      return S(1);
  }
  return S(1);
}

inline Eigen::Index sigma_count(const Config& c, Eigen::Index d) {
  return c.beta == BetaForm::dot ? c.heads : d;
}

}  // namespace detail

// y = SeeDNorm(x), written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "seednorm::forward";
  check_input(where, x);
  detail::check_config(where, c, x.cols());
  detail::check_params(where, c, p, x.cols());
  const Eigen::Index n = x.rows(), d = x.cols(), w = d / c.heads;
  k.x = x;
  inverse_rms(where, x, c.eps, k.r);
  k.x_hat.resize(n, d);
  k.z.resize(n, detail::sigma_count(c, d));
  k.scale.resize(n, d);
  y.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    k.x_hat.row(i) = x.row(i) * k.r(i, 0);
    for (Eigen::Index h = 0; h < c.heads; ++h) {
      const Eigen::Index b = h * w;  // this head's first column
      switch (c.beta) {
        case BetaForm::dot: {  // one sigma per head, times alpha
          k.z(i, h) = x.row(i).segment(b, w).dot(p.beta.row(0).segment(b, w));
          const S s = activate(c.sigma, k.z(i, h));
          for (Eigen::Index j = b; j < b + w; ++j) k.scale(i, j) = detail::alpha_at(c, p, j) * s;
          break;
        }
        case BetaForm::elementwise:  // one sigma per entry, times alpha
          for (Eigen::Index j = b; j < b + w; ++j) {
            k.z(i, j) = x(i, j) * p.beta(0, j);
            k.scale(i, j) = detail::alpha_at(c, p, j) * activate(c.sigma, k.z(i, j));
          }
          break;
        case BetaForm::none: {  // s_h = sigma(x_h) . alpha_h^T
          S s = 0;
          for (Eigen::Index j = b; j < b + w; ++j) {
            k.z(i, j) = x(i, j);
            s += activate(c.sigma, k.z(i, j)) * p.alpha(0, j);
          }
          for (Eigen::Index j = b; j < b + w; ++j) k.scale(i, j) = s;
          break;
        }
      }
    }
    y.row(i) = k.scale.row(i).cwiseProduct(k.x_hat.row(i));
    if (c.gamma) y.row(i) += p.gamma.cwiseProduct(k.x_hat.row(i));
  });
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, y, cache ? *cache : local);
  return y;
}

// Per row, with q = dy (.) x_hat (the gradient of the rescaling term, entry
// by entry) and a_k the alpha entry of column k:
//   dgamma += q
//   dot:          ds_h = sum_{k in h} a_k q_k,  dalpha_k += s_h(k) q_k,
//                 dz_h = sigma'(z_h) ds_h,      dbeta_k += dz_h(k) x_k,
//                 dx_k += dz_h(k) beta_k
//   elementwise:  ds_k = a_k q_k,  dalpha_k += s_k q_k,  dz_k = sigma'(z_k) ds_k,
//                 dbeta_k += dz_k x_k,  dx_k += dz_k beta_k
//   beta removed: dz_j = sigma'(x_j) alpha_j Q_h(j),  dalpha_j += sigma(x_j) Q_h(j),
//                 dx_j += dz_j,  with Q_h = sum_{k in h} q_k
//   (a scalar alpha sums its dalpha_k; a removed alpha has none), and the
//   RMSNorm path with g = dy (.) (scale + gamma):
//   dx += r (g - x_hat mean_i(g_i x_hat_i)).
// This follows seednorm eq. 16 (gamma), 18 (alpha), 20 (beta) and 26 (x) for
// the dot form, and B.2's multi-head derivation for alpha. (B.2's prose, line
// 842 of the copy, says d s_k / d alpha_l = sigma(alpha_h . beta_h^T) for k, l
// in one head; its own derivation below it has sigma(x_h . beta_h^T) delta_kl,
// which is what this code uses.) Written into grads (resized; the gradient of
// an absent parameter emptied).
template <class S>
void backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy,
              Grads<S>& out) {
  constexpr const char* where = "seednorm::backward";
  require(k.x.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  check_grad_output(where, dy, k.x.rows(), k.x.cols());
  const Eigen::Index n = dy.rows(), d = dy.cols(), w = d / c.heads;
  Mat<S>&dx = out.dx, &dalpha_rows = out.dalpha_rows, &dbeta_rows = out.dbeta_rows;
  dx.resize(n, d);
  dalpha_rows.resize(n, d);  // every entry is written below (dbeta_rows unread without beta)
  dbeta_rows.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    // the RMSNorm path first, with g = dy (.) (scale + gamma)
    if (c.gamma) {
      rms_normalize_backward<S>(k.r(i, 0), dy.row(i).cwiseProduct(k.scale.row(i) + p.gamma),
                                k.x_hat.row(i), dx.row(i));
    } else {
      rms_normalize_backward<S>(k.r(i, 0), dy.row(i).cwiseProduct(k.scale.row(i)), k.x_hat.row(i),
                                dx.row(i));
    }
    const auto q = [&](Eigen::Index j) { return S(dy(i, j) * k.x_hat(i, j)); };
    for (Eigen::Index h = 0; h < c.heads; ++h) {
      const Eigen::Index b = h * w;
      switch (c.beta) {
        case BetaForm::dot: {
          const S s = activate(c.sigma, k.z(i, h));
          S ds = 0;
          for (Eigen::Index j = b; j < b + w; ++j) {
            ds += detail::alpha_at(c, p, j) * q(j);
            dalpha_rows(i, j) = s * q(j);
          }
          const S dz = activate_derivative(c.sigma, k.z(i, h)) * ds;
          for (Eigen::Index j = b; j < b + w; ++j) {
            dbeta_rows(i, j) = dz * k.x(i, j);
            dx(i, j) += dz * p.beta(0, j);
          }
          break;
        }
        case BetaForm::elementwise:
          for (Eigen::Index j = b; j < b + w; ++j) {
            const S dz = activate_derivative(c.sigma, k.z(i, j)) * detail::alpha_at(c, p, j) * q(j);
            dalpha_rows(i, j) = activate(c.sigma, k.z(i, j)) * q(j);
            dbeta_rows(i, j) = dz * k.x(i, j);
            dx(i, j) += dz * p.beta(0, j);
          }
          break;
        case BetaForm::none: {
          S head_q = 0;
          for (Eigen::Index j = b; j < b + w; ++j) head_q += q(j);
          for (Eigen::Index j = b; j < b + w; ++j) {
            dalpha_rows(i, j) = activate(c.sigma, k.z(i, j)) * head_q;
            dx(i, j) += activate_derivative(c.sigma, k.z(i, j)) * p.alpha(0, j) * head_q;
          }
          break;
        }
      }
    }
  });
  switch (c.alpha) {
    case AlphaForm::vector:
      col_sum(dalpha_rows, out.dalpha);
      break;
    case AlphaForm::scalar:
      sum_rows<S>(
          n, 1, [&](Eigen::Index i, auto& acc) { acc(0, 0) += dalpha_rows.row(i).sum(); },
          out.dalpha);
      break;
    case AlphaForm::none:
      out.dalpha.resize(0, 0);
      break;
  }
  if (c.beta != BetaForm::none) {
    col_sum(dbeta_rows, out.dbeta);
  } else {
    out.dbeta.resize(0, 0);
  }
  if (c.gamma) {
    col_sum_product(dy, k.x_hat, out.dgamma);
  } else {
    out.dgamma.resize(0, 0);
  }
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::norm::seednorm
