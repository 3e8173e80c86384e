// Optimizers for the tiny LM (lm::ParamStore<S>), global-norm gradient
// clipping and the learning-rate schedule, each as PyTorch defines it so a
// trajectory here can be compared with one from torch.optim step for step.
//
// AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization";
// torch.optim.AdamW, amsgrad = False, maximize = False), for each parameter
// theta with gradient g at step t = 1, 2, ...:
//
//   theta <- theta - lr lambda theta               decoupled decay (decayed group only)
//   m     <- beta1 m + (1 - beta1) g
//   v     <- beta2 v + (1 - beta2) g (.) g
//   theta <- theta - (lr / (1 - beta1^t)) m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
//
// in that order, with m = v = 0 before step 1. PyTorch writes the first moment
// as exp_avg.lerp_(g, 1 - beta1), which is the same value up to rounding.
//
// Parameter groups come from the methods' own weight-decay data: a parameter
// whose ParamInfo.decay is true (every matrix and embedding; the norm, SDD and
// scale-vector parameters their modules mark) is in the decayed group with
// lambda = weight_decay, every other parameter in the group with lambda = 0.
//
// SGD (torch.optim.SGD, dampening = 0), for each parameter:
//
//   coupled decay (PyTorch's, the default):  g <- g + lambda theta
//   b <- g at step 1, else b <- mu b + g    (momentum mu > 0 only; nesterov: g <- g + mu b)
//   theta <- theta - lr g                   (g replaced by b, or by g + mu b with nesterov)
//   decoupled decay (SGDW): theta <- theta - lr lambda theta first, and g is left as it is.
//
// Global-norm clipping (torch.nn.utils.clip_grad_norm_, norm_type 2):
//
//   N = sqrt(sum_p ||g_p||_F^2),   c = max_norm / (N + 1e-6),   g_p <- c g_p when c < 1
//
// (PyTorch multiplies by min(c, 1); a factor 1 leaves g unchanged, so only
// c < 1 scales). Note that c < 1 already for N slightly below max_norm + 1e-6.
// Returns N, the norm before clipping.
//
// Learning rate at optimizer step t = 1 .. total (step t uses lr_at(t)):
//
//   warmup (t <= warmup):  peak t / warmup                   linear, reaching peak at t = warmup
//   constant:              peak after warmup
//   cosine:                min_lr + (peak - min_lr) (1 + cos(pi (t - warmup) / (total - warmup))) /
//   2
//                          so lr = peak at t = warmup and lr = min_lr at t = total.
//
// Everything is elementwise or summed in a fixed order, so results are
// bitwise reproducible. Bad hyperparameters throw scaleref::Error naming the
// function and the value.
#pragma once

#include <cmath>
#include <numbers>
#include <scaleref/error.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/metrics/common.hpp>
#include <scaleref/spec/common.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

namespace scaleref::train {

namespace detail {

inline void check_finite_nonneg(const char* where, const char* name, double v) {
  require(std::isfinite(v) && v >= 0, where, "expected ", name, " >= 0 and finite, got ", v);
}

// The stores must share one layout: same names and shapes, in the same order.
template <class S>
void check_same_layout(const char* where, const lm::ParamStore<S>& a, const char* a_name,
                       const lm::ParamStore<S>& b, const char* b_name) {
  require(a.values.size() == b.values.size() && a.info.size() == a.values.size() &&
              b.info.size() == b.values.size(),
          where, "expected ", a_name, " and ", b_name, " with one layout, got ", a.values.size(),
          " and ", b.values.size(), " tensors");
  for (std::size_t i = 0; i < a.values.size(); ++i)
    require(a.info[i].name == b.info[i].name && a.values[i].rows() == b.values[i].rows() &&
                a.values[i].cols() == b.values[i].cols(),
            where, "tensor ", i, ": ", a_name, " has '", a.info[i].name, "' ",
            shape_str(a.values[i]), ", ", b_name, " has '", b.info[i].name, "' ",
            shape_str(b.values[i]));
}

template <class S>
void check_finite_grads(const char* where, const lm::ParamStore<S>& g) {
  for (std::size_t i = 0; i < g.values.size(); ++i)
    require(all_finite(g.values[i]), where,
            "expected finite gradients, got a non-finite entry in '", g.info[i].name, "'");
}

}  // namespace detail

// ---- parameter groups ------------------------------------------------------------

// The weight decay a parameter gets: weight_decay if its module decays it
// (ParamInfo.decay), else 0.
inline double decay_of(const lm::ParamInfo& info, double weight_decay) {
  return info.decay ? weight_decay : 0.0;
}

// The names in the decayed group (decay = true) or the other one, in layout order.
inline std::vector<std::string> group_names(const std::vector<lm::ParamInfo>& info, bool decayed) {
  std::vector<std::string> out;
  for (const auto& p : info)
    if (p.decay == decayed) out.push_back(p.name);
  return out;
}

// ---- AdamW -------------------------------------------------------------------------

struct AdamWConfig {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;  // lambda of the decayed group (PyTorch's default)
};

inline void check(const AdamWConfig& c) {
  constexpr const char* where = "train::AdamW";
  require(std::isfinite(c.beta1) && c.beta1 >= 0 && c.beta1 < 1, where,
          "expected beta1 in [0, 1), got ", c.beta1);
  require(std::isfinite(c.beta2) && c.beta2 >= 0 && c.beta2 < 1, where,
          "expected beta2 in [0, 1), got ", c.beta2);
  detail::check_finite_nonneg(where, "eps", c.eps);
  detail::check_finite_nonneg(where, "weight_decay", c.weight_decay);
}

template <class S>
class AdamW {
 public:
  // State (m, v) for every tensor of `params`, zero; the layout is kept to check steps.
  AdamW(const lm::ParamStore<S>& params, const AdamWConfig& c) : c_(c) {
    check(c_);
    m_ = params.zeros_like();
    v_ = params.zeros_like();
  }

  // One step with learning rate lr: params updated in place from grads (same layout).
  void step(lm::ParamStore<S>& params, const lm::ParamStore<S>& grads, double lr) {
    constexpr const char* where = "train::AdamW::step";
    detail::check_finite_nonneg(where, "lr", lr);
    detail::check_same_layout(where, params, "params", grads, "grads");
    detail::check_same_layout(where, params, "params", m_, "the optimizer's state");
    detail::check_finite_grads(where, grads);
    using std::pow;
    using std::sqrt;
    ++t_;
    const S lr_s = S(lr), b1 = S(c_.beta1), b2 = S(c_.beta2), eps = S(c_.eps);
    const S bias1 = S(1) - S(pow(b1, static_cast<int>(t_)));
    const S bias2 = S(1) - S(pow(b2, static_cast<int>(t_)));
    const S step_size = S(lr_s / bias1);
    const S bias2_sqrt = S(sqrt(bias2));
    for (std::size_t i = 0; i < params.values.size(); ++i) {
      const S lambda = S(decay_of(params.info[i], c_.weight_decay));
      auto theta = params.values[i].array();
      const auto g = grads.values[i].array();
      auto m = m_.values[i].array();
      auto v = v_.values[i].array();
      if (lambda != S(0)) theta *= S(S(1) - lr_s * lambda);  // decoupled decay
      m = b1 * m + (S(1) - b1) * g;
      v = b2 * v + (S(1) - b2) * g * g;
      theta -= step_size * (m / (v.sqrt() / bias2_sqrt + eps));
    }
  }

  long steps() const { return t_; }
  const AdamWConfig& config() const { return c_; }
  const lm::ParamStore<S>& exp_avg() const { return m_; }     // m
  const lm::ParamStore<S>& exp_avg_sq() const { return v_; }  // v

 private:
  AdamWConfig c_;
  lm::ParamStore<S> m_, v_;
  long t_ = 0;
};

// ---- SGD ---------------------------------------------------------------------------

struct SGDConfig {
  double momentum = 0.0;      // mu; 0: plain SGD, no buffer
  bool nesterov = false;      // needs momentum > 0
  double weight_decay = 0.0;  // lambda of the decayed group
  bool decoupled = false;     // false: PyTorch's coupled decay g + lambda theta; true: SGDW
};

inline void check(const SGDConfig& c) {
  constexpr const char* where = "train::SGD";
  require(std::isfinite(c.momentum) && c.momentum >= 0 && c.momentum < 1, where,
          "expected momentum in [0, 1), got ", c.momentum);
  require(!c.nesterov || c.momentum > 0, where,
          "nesterov needs momentum > 0, got momentum = ", c.momentum);
  detail::check_finite_nonneg(where, "weight_decay", c.weight_decay);
}

template <class S>
class SGD {
 public:
  SGD(const lm::ParamStore<S>& params, const SGDConfig& c) : c_(c) {
    check(c_);
    buf_ = params.zeros_like();
  }

  void step(lm::ParamStore<S>& params, const lm::ParamStore<S>& grads, double lr) {
    constexpr const char* where = "train::SGD::step";
    detail::check_finite_nonneg(where, "lr", lr);
    detail::check_same_layout(where, params, "params", grads, "grads");
    detail::check_same_layout(where, params, "params", buf_, "the optimizer's state");
    detail::check_finite_grads(where, grads);
    ++t_;
    const S lr_s = S(lr), mu = S(c_.momentum);
    for (std::size_t i = 0; i < params.values.size(); ++i) {
      const S lambda = S(decay_of(params.info[i], c_.weight_decay));
      Mat<S>& theta = params.values[i];
      const Mat<S>& g = grads.values[i];
      Mat<S>& b = buf_.values[i];
      for (Eigen::Index k = 0; k < theta.size(); ++k) {
        S& th = theta.data()[k];
        S d = g.data()[k];
        if (lambda != S(0)) {
          if (c_.decoupled)
            th = S(th * S(S(1) - lr_s * lambda));
          else
            d = S(d + lambda * th);
        }
        if (c_.momentum > 0) {
          S& bk = b.data()[k];
          bk = t_ == 1 ? d : S(mu * bk + d);
          d = c_.nesterov ? S(d + mu * bk) : bk;
        }
        th = S(th - lr_s * d);
      }
    }
  }

  long steps() const { return t_; }
  const SGDConfig& config() const { return c_; }
  const lm::ParamStore<S>& momentum_buffer() const { return buf_; }

 private:
  SGDConfig c_;
  lm::ParamStore<S> buf_;
  long t_ = 0;
};

// ---- clipping ----------------------------------------------------------------------

// sqrt(sum_p ||g_p||_F^2) over every tensor, in layout order; each ||g_p||_F is
// computed overflow-free (metrics/common.hpp).
template <class S>
S global_norm(const lm::ParamStore<S>& grads) {
  using std::sqrt;
  S sum = S(0);
  for (const auto& g : grads.values) {
    if (g.size() == 0) continue;
    const S n = metrics::frobenius_norm(g);
    sum += n * n;
  }
  return S(sqrt(sum));
}

// torch.nn.utils.clip_grad_norm_(max_norm, norm_type = 2): scales every
// gradient by max_norm / (N + 1e-6) when that factor is below 1. Returns N,
// the total norm before clipping. max_norm > 0; a non-finite N throws (PyTorch's
// error_if_nonfinite = True).
template <class S>
S clip_grad_norm(lm::ParamStore<S>& grads, double max_norm) {
  constexpr const char* where = "train::clip_grad_norm";
  using std::isfinite;
  require(std::isfinite(max_norm) && max_norm > 0, where, "expected max_norm > 0 and finite, got ",
          max_norm);
  const S total = global_norm(grads);
  require(isfinite(total), where, "the total gradient norm is not finite: ", total);
  const S coef = S(S(max_norm) / S(total + S(1e-6)));
  if (coef < S(1))
    for (auto& g : grads.values) g *= coef;
  return total;
}

// ---- learning-rate schedule ---------------------------------------------------------

enum class LrShape { constant, cosine };
inline constexpr spec::NameTable<LrShape, 2> kLrShapes{
    {{LrShape::cosine, "cosine"}, {LrShape::constant, "constant"}}};

struct LrSchedule {
  LrShape shape = LrShape::cosine;
  double peak = 1e-3;   // lr after warmup (constant), at t = warmup (cosine)
  double min_lr = 0.0;  // cosine: lr at t = total
  long warmup = 0;      // linear warmup steps (0: none)
  long total = 1;       // the run's optimizer steps
};

inline void check(const LrSchedule& s) {
  constexpr const char* where = "train::LrSchedule";
  detail::check_finite_nonneg(where, "lr (peak)", s.peak);
  detail::check_finite_nonneg(where, "min_lr", s.min_lr);
  require(s.min_lr <= s.peak, where, "expected min_lr <= lr, got min_lr = ", s.min_lr,
          ", lr = ", s.peak);
  require(s.total >= 1, where, "expected total steps >= 1, got ", s.total);
  require(s.warmup >= 0 && s.warmup <= s.total, where, "expected 0 <= warmup <= steps = ", s.total,
          ", got ", s.warmup);
}

// The learning rate of optimizer step t (1 .. total).
inline double lr_at(const LrSchedule& s, long t) {
  check(s);
  require(t >= 1 && t <= s.total, "train::lr_at", "expected step t in [1, ", s.total, "], got ", t);
  if (t <= s.warmup) return s.peak * static_cast<double>(t) / static_cast<double>(s.warmup);
  if (s.shape == LrShape::constant || s.total == s.warmup) return s.peak;
  const double progress =
      static_cast<double>(t - s.warmup) / static_cast<double>(s.total - s.warmup);
  return s.min_lr + (s.peak - s.min_lr) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace scaleref::train
