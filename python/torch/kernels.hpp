// The scaleref torch operators on the project's CUDA kernels (scaleref/cuda/*.hpp),
// written once for the two places they run: a GPU (cuda_ops.cpp: device memory
// is the tensors' own, the stream is torch's current one) and the CPU emulator
// (emu_ops.cpp: each tensor is copied into the emulator's device memory and
// the outputs copied back). `Dev` is that difference (EmuDevice, CudaDevice):
//
//   Dev dev(x)        one call's device memory, on x's device
//   dev.in<T>(t)      a pointer to t's contents in device memory (t contiguous)
//   dev.out<T>(t)     a pointer the kernel writes t's contents through
//   dev.finish()      after the kernels: t holds what was written (emu: the copy back)
//                     (run() below makes the Dev, dispatches on the dtype, and finishes)
//   dev.saved(buf, n) a tensor holding n entries of a device buffer (the row statistics)
//   dev.restore(t, buf)  the reverse: buf holds t's entries
//   dev.stream(), dev.workspace(), dev.blas()
//
// What the kernels have and the reference has too is here; what only the
// reference has is refused with ValueError naming the backend that has it
// (SeeDNorm's beta forms other than "dot"). The norms' forward returns its row
// statistics as `saved` (1 / RMS per row, and the mean for LayerNorm, SeeDNorm's
// x_h . beta_h per head), which their backward reads instead of reading x
// again; SDD's and the scale-vector maps' backward runs their forward again
// (one more GEMM) and return an empty `saved`.
#pragma once

#include <c10/util/Optional.h>
#include <torch/library.h>
#include <torch/types.h>

#include <cstdint>
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rescale.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/scalevec.hpp>
#include <scaleref/cuda/sdd.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace scaleref::torch_ops::kernels {

using at::Tensor;
using c10::optional;
namespace cu = scaleref::cuda;

// fn.template operator()<T>() for x's storage type T (float, double, bf16).
template <class F>
decltype(auto) dispatch(at::ScalarType s, F&& fn) {
  switch (s) {
    case at::kFloat:
      return fn.template operator()<float>();
    case at::kDouble:
      return fn.template operator()<double>();
    case at::kBFloat16:
      return fn.template operator()<cu::bf16>();
    default:
      TORCH_CHECK_TYPE(false, "scaleref: no kernel for ", s);
  }
}

template <class T>
at::ScalarType acc_type() {
  return std::is_same_v<cu::Acc<T>, double> ? at::kDouble : at::kFloat;
}

// One call's arguments: x as [N, D] rows (leading dimensions flattened), every
// other tensor checked against x's dtype and device and the shape it must have.
class Args {
 public:
  Args(const char* op, const Tensor& x, bool on_cuda) : op_(op), x_(x) {
    check_storage(op, "x", x);
    TORCH_CHECK_VALUE(x.device().is_cuda() == on_cuda, op, ": x is on ", x.device(), "; this ",
                      on_cuda ? "implementation runs CUDA tensors"
                              : "implementation (the emulator) runs CPU tensors");
    TORCH_CHECK_VALUE(x.dim() >= 1 && x.numel() > 0, op,
                      ": x must be non-empty with at least "
                      "one dimension, got shape ",
                      x.sizes());
    cols_ = x.size(-1);
    rows_ = x.numel() / cols_;
  }

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  const char* op() const { return op_; }

  // A tensor of x's dtype and device with `numel` entries: a row (shape (n,)
  // or (1, n)), a matrix ({r, c}) or a batch tensor shaped like x.
  void row(const char* name, const optional<Tensor>& t, int64_t n) const {
    if (!t) return;
    same(name, *t);
    const bool ok = (t->dim() == 1 && t->size(0) == n) ||
                    (t->dim() == 2 && t->size(0) == 1 && t->size(1) == n) ||
                    (n == 1 && t->dim() == 0);
    TORCH_CHECK_VALUE(ok, op_, ": ", name, " has shape ", t->sizes(), "; expected (", n,
                      ",) or (1, ", n, ")");
  }
  void matrix(const char* name, const Tensor& t, int64_t r, int64_t c) const {
    same(name, t);
    TORCH_CHECK_VALUE(t.dim() == 2 && t.size(0) == r && t.size(1) == c, op_, ": ", name,
                      " has shape ", t.sizes(), "; expected (", r, ", ", c, ")");
  }
  void like_x(const char* name, const Tensor& t) const {
    same(name, t);
    TORCH_CHECK_VALUE(t.sizes() == x_.sizes(), op_, ": ", name, " has shape ", t.sizes(),
                      "; expected x's, ", x_.sizes());
  }
  // dy: x's leading dimensions and `cols` columns.
  void grad_output(const Tensor& dy, int64_t cols) const {
    same("dy", dy);
    TORCH_CHECK_VALUE(dy.dim() == x_.dim() && dy.size(-1) == cols && dy.numel() == rows_ * cols,
                      op_, ": dy has shape ", dy.sizes(), "; expected x's leading dimensions and ",
                      cols, " columns");
  }

  // An output of x's dtype and device: x's leading dimensions, `cols` columns.
  Tensor output(int64_t cols) const {
    std::vector<int64_t> shape(x_.sizes().begin(), x_.sizes().end());
    shape.back() = cols;
    return at::empty(shape, x_.options().memory_format(at::MemoryFormat::Contiguous));
  }
  // A parameter gradient shaped like its parameter (undefined when there is none).
  static Tensor grad_like(const optional<Tensor>& p) {
    return p ? at::empty(p->sizes(), p->options().memory_format(at::MemoryFormat::Contiguous))
             : Tensor();
  }

 private:
  void same(const char* name, const Tensor& t) const {
    check_storage(op_, name, t);
    TORCH_CHECK_TYPE(t.scalar_type() == x_.scalar_type(), op_, ": ", name, " is ", t.scalar_type(),
                     " and x is ", x_.scalar_type(), "; pass every tensor in one dtype");
    TORCH_CHECK_VALUE(t.device() == x_.device(), op_, ": ", name, " is on ", t.device(),
                      " and x on ", x_.device(), "; pass every tensor on one device");
  }

  const char* op_;
  const Tensor& x_;
  int64_t rows_ = 0, cols_ = 0;
};

template <class T>
cu::Rows<T> rows(T* p, int64_t r, int64_t c) {
  return cu::dense(p, r, c);
}
template <class T>
cu::Rows<const T> crows(const T* p, int64_t r, int64_t c) {
  return cu::dense(p, r, c);
}

// Runs body() and turns a scaleref::Error (bad eps, heads, a cuBLAS or CUDA
// failure) into ValueError naming the operator.
template <class F>
decltype(auto) guarded(const char* op, F&& body) {
  try {
    return body();
  } catch (const Error& e) {
    TORCH_CHECK_VALUE(false, op, ": ", e.what());
  }
}

// Runs body.template operator()<T>(dev) for x's storage type T on one call's
// device memory (Dev dev(x)), then dev.finish(); a scaleref::Error becomes ValueError.
template <class Dev, class F>
void run(const char* op, const Tensor& x, F&& body) {
  guarded(op, [&] {
    dispatch(x.scalar_type(), [&]<class T>() {
      Dev dev(x);
      body.template operator()<T>(dev);
      dev.finish();
    });
  });
}

template <class Dev, class T>
const T* maybe_in(Dev& dev, const optional<Tensor>& t) {
  return t ? dev.template in<T>(*t) : nullptr;
}
template <class Dev, class T>
T* maybe_out(Dev& dev, Tensor& t) {
  return t.defined() ? dev.template out<T>(t) : nullptr;
}

// ---- RMSNorm ----------------------------------------------------------------

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> rmsnorm(const Tensor& x, const optional<Tensor>& gamma,
                                                double eps) {
  constexpr const char* op = "rmsnorm";
  const Args a(op, x, Dev::kCuda);
  a.row("gamma", gamma, a.cols());
  Tensor y = a.output(a.cols());
  std::vector<Tensor> saved;
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::rmsnorm::Cache<T> cache;
    cu::rmsnorm::forward<T>({maybe_in<Dev, T>(dev, gamma)}, {eps, 1},
                            crows(dev.template in<T>(x), a.rows(), a.cols()),
                            rows(dev.template out<T>(y), a.rows(), a.cols()), &cache, dev.stream());
    saved = {dev.saved(cache.rstd, a.rows(), acc_type<T>())};
  });
  return {y, saved};
}

template <class Dev>
std::tuple<Tensor, Tensor> rmsnorm_backward(const Tensor& dy, const Tensor& x,
                                            const optional<Tensor>& gamma,
                                            const std::vector<Tensor>& saved, double eps) {
  constexpr const char* op = "rmsnorm_backward";
  const Args a(op, x, Dev::kCuda);
  a.row("gamma", gamma, a.cols());
  a.grad_output(dy, a.cols());
  TORCH_CHECK_VALUE(saved.size() == 1, op, ": saved must be the forward's (1 tensor), got ",
                    saved.size());
  Tensor dx = a.output(a.cols()), dgamma = Args::grad_like(gamma);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::rmsnorm::Cache<T> cache;
    dev.restore(saved[0], cache.rstd, a.rows());
    cu::rmsnorm::backward<T>({maybe_in<Dev, T>(dev, gamma)}, {eps, 1}, cache,
                             crows(dev.template in<T>(x), a.rows(), a.cols()),
                             crows(dev.template in<T>(dy), a.rows(), a.cols()),
                             rows(dev.template out<T>(dx), a.rows(), a.cols()),
                             {maybe_out<Dev, T>(dev, dgamma)}, dev.workspace(), dev.stream());
  });
  return {dx, dgamma};
}

// ---- LayerNorm --------------------------------------------------------------

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> layernorm(const Tensor& x, const optional<Tensor>& gamma,
                                                  const optional<Tensor>& beta, double eps) {
  constexpr const char* op = "layernorm";
  const Args a(op, x, Dev::kCuda);
  a.row("gamma", gamma, a.cols());
  a.row("beta", beta, a.cols());
  Tensor y = a.output(a.cols());
  std::vector<Tensor> saved;
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::layernorm::Cache<T> cache;
    cu::layernorm::forward<T>({maybe_in<Dev, T>(dev, gamma), maybe_in<Dev, T>(dev, beta)}, {eps},
                              crows(dev.template in<T>(x), a.rows(), a.cols()),
                              rows(dev.template out<T>(y), a.rows(), a.cols()), &cache,
                              dev.stream());
    saved = {dev.saved(cache.mean, a.rows(), acc_type<T>()),
             dev.saved(cache.rstd, a.rows(), acc_type<T>())};
  });
  return {y, saved};
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor> layernorm_backward(const Tensor& dy, const Tensor& x,
                                                      const optional<Tensor>& gamma,
                                                      const optional<Tensor>& beta,
                                                      const std::vector<Tensor>& saved,
                                                      double eps) {
  constexpr const char* op = "layernorm_backward";
  const Args a(op, x, Dev::kCuda);
  a.row("gamma", gamma, a.cols());
  a.row("beta", beta, a.cols());
  a.grad_output(dy, a.cols());
  TORCH_CHECK_VALUE(saved.size() == 2, op, ": saved must be the forward's (2 tensors), got ",
                    saved.size());
  Tensor dx = a.output(a.cols()), dgamma = Args::grad_like(gamma), dbeta = Args::grad_like(beta);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::layernorm::Cache<T> cache;
    dev.restore(saved[0], cache.mean, a.rows());
    dev.restore(saved[1], cache.rstd, a.rows());
    cu::layernorm::backward<T>({maybe_in<Dev, T>(dev, gamma), maybe_in<Dev, T>(dev, beta)}, {eps},
                               cache, crows(dev.template in<T>(x), a.rows(), a.cols()),
                               crows(dev.template in<T>(dy), a.rows(), a.cols()),
                               rows(dev.template out<T>(dx), a.rows(), a.cols()),
                               {maybe_out<Dev, T>(dev, dgamma), maybe_out<Dev, T>(dev, dbeta)},
                               dev.workspace(), dev.stream());
  });
  return {dx, dgamma, dbeta};
}

// ---- DyT --------------------------------------------------------------------

template <class Dev>
Tensor dyt(const Tensor& x, const Tensor& alpha, const optional<Tensor>& gamma,
           const optional<Tensor>& beta) {
  constexpr const char* op = "dyt";
  const Args a(op, x, Dev::kCuda);
  a.row("alpha", alpha, 1);
  a.row("gamma", gamma, a.cols());
  a.row("beta", beta, a.cols());
  Tensor y = a.output(a.cols());
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::dyt::forward<T>(
        {dev.template in<T>(alpha), maybe_in<Dev, T>(dev, gamma), maybe_in<Dev, T>(dev, beta)},
        crows(dev.template in<T>(x), a.rows(), a.cols()),
        rows(dev.template out<T>(y), a.rows(), a.cols()), dev.stream());
  });
  return y;
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor, Tensor> dyt_backward(const Tensor& dy, const Tensor& x,
                                                        const Tensor& alpha,
                                                        const optional<Tensor>& gamma,
                                                        const optional<Tensor>& beta) {
  constexpr const char* op = "dyt_backward";
  const Args a(op, x, Dev::kCuda);
  a.row("alpha", alpha, 1);
  a.row("gamma", gamma, a.cols());
  a.row("beta", beta, a.cols());
  a.grad_output(dy, a.cols());
  Tensor dx = a.output(a.cols()), dalpha = Args::grad_like(alpha);
  Tensor dgamma = Args::grad_like(gamma), dbeta = Args::grad_like(beta);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::dyt::backward<T>(
        {dev.template in<T>(alpha), maybe_in<Dev, T>(dev, gamma), maybe_in<Dev, T>(dev, beta)},
        crows(dev.template in<T>(x), a.rows(), a.cols()),
        crows(dev.template in<T>(dy), a.rows(), a.cols()),
        rows(dev.template out<T>(dx), a.rows(), a.cols()),
        {dev.template out<T>(dalpha), maybe_out<Dev, T>(dev, dgamma),
         maybe_out<Dev, T>(dev, dbeta)},
        dev.workspace(), dev.stream());
  });
  return {dx, dalpha, dgamma, dbeta};
}

// ---- SeeDNorm and AdaSeeDNorm -------------------------------------------------

// The kernels' config from the operator's settings, alpha's and beta's shapes checked.
inline cu::seednorm::Config seednorm_config(const Args& a, const optional<Tensor>& alpha,
                                            const optional<Tensor>& beta, double eps,
                                            const std::string& sigma, int64_t heads,
                                            const std::string& alpha_form,
                                            const std::string& beta_form) {
  const char* op = a.op();
  const auto act = spec::value_of(norm::kActivationNames, sigma);
  TORCH_CHECK_VALUE(act.has_value(), op, ": unknown sigma \"", sigma,
                    "\"; expected tanh, sigmoid, hardtanh, softsign, gelu_tanh or swish");
  const auto form = spec::value_of(norm::seednorm::kAlphaForms, alpha_form);
  TORCH_CHECK_VALUE(form.has_value(), op, ": unknown alpha_form \"", alpha_form,
                    "\"; expected vector, scalar or none");
  TORCH_CHECK_VALUE(beta_form == "dot", op, ": beta_form \"", beta_form,
                    "\" has no kernel (the kernels compute x . beta per head); the reference "
                    "(backend \"default\" on CPU tensors) has every form");
  TORCH_CHECK_VALUE(alpha.has_value() == (*form != norm::seednorm::AlphaForm::none), op,
                    ": alpha_form is \"", alpha_form, "\" and alpha is ", alpha ? "given" : "None",
                    "; pass alpha exactly when its form is not \"none\"");
  TORCH_CHECK_VALUE(beta.has_value(), op, ": beta is None; beta_form \"dot\" needs it");
  TORCH_CHECK_VALUE(heads >= 1 && heads <= a.cols(), op, ": heads must be in [1, D = ", a.cols(),
                    "], got ", heads);
  if (alpha) a.row("alpha", alpha, *form == norm::seednorm::AlphaForm::scalar ? 1 : a.cols());
  a.row("beta", beta, a.cols());
  return {eps, *act, static_cast<int>(heads), *form};
}

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> seednorm(const Tensor& x, const optional<Tensor>& alpha,
                                                 const optional<Tensor>& beta,
                                                 const optional<Tensor>& gamma, double eps,
                                                 std::string sigma, int64_t heads,
                                                 std::string alpha_form, std::string beta_form) {
  constexpr const char* op = "seednorm";
  const Args a(op, x, Dev::kCuda);
  const auto c = seednorm_config(a, alpha, beta, eps, sigma, heads, alpha_form, beta_form);
  a.row("gamma", gamma, a.cols());
  Tensor y = a.output(a.cols());
  std::vector<Tensor> saved;
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::seednorm::Cache<T> cache;
    cu::seednorm::forward<T>(
        {maybe_in<Dev, T>(dev, alpha), maybe_in<Dev, T>(dev, beta), maybe_in<Dev, T>(dev, gamma)},
        c, crows(dev.template in<T>(x), a.rows(), a.cols()),
        rows(dev.template out<T>(y), a.rows(), a.cols()), &cache, dev.stream());
    saved = {dev.saved(cache.rstd, a.rows(), acc_type<T>()),
             dev.saved(cache.z, a.rows() * heads, acc_type<T>())};
  });
  return {y, saved};
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor, Tensor> seednorm_backward(
    const Tensor& dy, const Tensor& x, const optional<Tensor>& alpha, const optional<Tensor>& beta,
    const optional<Tensor>& gamma, const std::vector<Tensor>& saved, double eps, std::string sigma,
    int64_t heads, std::string alpha_form, std::string beta_form) {
  constexpr const char* op = "seednorm_backward";
  const Args a(op, x, Dev::kCuda);
  const auto c = seednorm_config(a, alpha, beta, eps, sigma, heads, alpha_form, beta_form);
  a.row("gamma", gamma, a.cols());
  a.grad_output(dy, a.cols());
  TORCH_CHECK_VALUE(saved.size() == 2, op, ": saved must be the forward's (2 tensors), got ",
                    saved.size());
  Tensor dx = a.output(a.cols()), dalpha = Args::grad_like(alpha);
  Tensor dbeta = Args::grad_like(beta), dgamma = Args::grad_like(gamma);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::seednorm::Cache<T> cache;
    dev.restore(saved[0], cache.rstd, a.rows());
    dev.restore(saved[1], cache.z, a.rows() * heads);
    cu::seednorm::backward<T>(
        {maybe_in<Dev, T>(dev, alpha), maybe_in<Dev, T>(dev, beta), maybe_in<Dev, T>(dev, gamma)},
        c, cache, crows(dev.template in<T>(x), a.rows(), a.cols()),
        crows(dev.template in<T>(dy), a.rows(), a.cols()),
        rows(dev.template out<T>(dx), a.rows(), a.cols()),
        {maybe_out<Dev, T>(dev, dalpha), maybe_out<Dev, T>(dev, dbeta),
         maybe_out<Dev, T>(dev, dgamma)},
        dev.workspace(), dev.stream());
  });
  return {dx, dalpha, dbeta, dgamma};
}

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> adaseednorm(const Tensor& x, const optional<Tensor>& alpha,
                                                    const optional<Tensor>& beta,
                                                    const Tensor& gamma_c, const Tensor& eta_c,
                                                    double eps, std::string sigma, int64_t heads,
                                                    std::string alpha_form, std::string beta_form) {
  constexpr const char* op = "adaseednorm";
  const Args a(op, x, Dev::kCuda);
  const auto c = seednorm_config(a, alpha, beta, eps, sigma, heads, alpha_form, beta_form);
  a.like_x("gamma_c", gamma_c);
  a.like_x("eta_c", eta_c);
  Tensor y = a.output(a.cols());
  std::vector<Tensor> saved;
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::seednorm::Cache<T> cache;
    const cu::seednorm::Condition<T> cond{crows(dev.template in<T>(gamma_c), a.rows(), a.cols()),
                                          crows(dev.template in<T>(eta_c), a.rows(), a.cols())};
    cu::seednorm::ada_forward<T>({maybe_in<Dev, T>(dev, alpha), maybe_in<Dev, T>(dev, beta)}, c,
                                 cond, crows(dev.template in<T>(x), a.rows(), a.cols()),
                                 rows(dev.template out<T>(y), a.rows(), a.cols()), &cache,
                                 dev.stream());
    saved = {dev.saved(cache.rstd, a.rows(), acc_type<T>()),
             dev.saved(cache.z, a.rows() * heads, acc_type<T>())};
  });
  return {y, saved};
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> adaseednorm_backward(
    const Tensor& dy, const Tensor& x, const optional<Tensor>& alpha, const optional<Tensor>& beta,
    const Tensor& gamma_c, const Tensor& eta_c, const std::vector<Tensor>& saved, double eps,
    std::string sigma, int64_t heads, std::string alpha_form, std::string beta_form) {
  constexpr const char* op = "adaseednorm_backward";
  const Args a(op, x, Dev::kCuda);
  const auto c = seednorm_config(a, alpha, beta, eps, sigma, heads, alpha_form, beta_form);
  a.like_x("gamma_c", gamma_c);
  a.like_x("eta_c", eta_c);
  a.grad_output(dy, a.cols());
  TORCH_CHECK_VALUE(saved.size() == 2, op, ": saved must be the forward's (2 tensors), got ",
                    saved.size());
  Tensor dx = a.output(a.cols()), dalpha = Args::grad_like(alpha), dbeta = Args::grad_like(beta);
  Tensor dgamma_c = a.output(a.cols()), deta_c = a.output(a.cols());
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::seednorm::Cache<T> cache;
    dev.restore(saved[0], cache.rstd, a.rows());
    dev.restore(saved[1], cache.z, a.rows() * heads);
    const cu::seednorm::Condition<T> cond{crows(dev.template in<T>(gamma_c), a.rows(), a.cols()),
                                          crows(dev.template in<T>(eta_c), a.rows(), a.cols())};
    const cu::seednorm::ConditionGrads<T> cg{
        rows(dev.template out<T>(dgamma_c), a.rows(), a.cols()),
        rows(dev.template out<T>(deta_c), a.rows(), a.cols())};
    cu::seednorm::ada_backward<T>(
        {maybe_in<Dev, T>(dev, alpha), maybe_in<Dev, T>(dev, beta)}, c, cond, cache,
        crows(dev.template in<T>(x), a.rows(), a.cols()),
        crows(dev.template in<T>(dy), a.rows(), a.cols()),
        rows(dev.template out<T>(dx), a.rows(), a.cols()),
        {maybe_out<Dev, T>(dev, dalpha), maybe_out<Dev, T>(dev, dbeta), nullptr}, cg,
        dev.workspace(), dev.stream());
  });
  return {dx, dalpha, dbeta, dgamma_c, deta_c};
}

// ---- SDD ----------------------------------------------------------------------

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> sdd(const Tensor& x, const Tensor& V, const Tensor& alpha,
                                            double eps) {
  constexpr const char* op = "sdd";
  const Args a(op, x, Dev::kCuda);
  TORCH_CHECK_VALUE(V.dim() == 2, op, ": V must be 2-D ([d_out, d_in]), got shape ", V.sizes());
  const int64_t d_out = V.size(0);
  a.matrix("V", V, d_out, a.cols());
  a.row("alpha", alpha, d_out);
  Tensor y = a.output(d_out);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::sdd::Cache<T> cache;
    cu::sdd::forward<T>(dev.blas(),
                        {crows(dev.template in<T>(V), d_out, a.cols()), dev.template in<T>(alpha)},
                        {eps}, crows(dev.template in<T>(x), a.rows(), a.cols()),
                        rows(dev.template out<T>(y), a.rows(), d_out), &cache, dev.stream());
  });
  return {y, {}};
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor> sdd_backward(const Tensor& dy, const Tensor& x, const Tensor& V,
                                                const Tensor& alpha, const std::vector<Tensor>&,
                                                double eps) {
  constexpr const char* op = "sdd_backward";
  const Args a(op, x, Dev::kCuda);
  TORCH_CHECK_VALUE(V.dim() == 2, op, ": V must be 2-D ([d_out, d_in]), got shape ", V.sizes());
  const int64_t d_out = V.size(0);
  a.matrix("V", V, d_out, a.cols());
  a.row("alpha", alpha, d_out);
  a.grad_output(dy, d_out);
  Tensor dx = a.output(a.cols()), dV = Args::grad_like(V), dalpha = Args::grad_like(alpha);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::sdd::Cache<T> cache;
    const cu::sdd::Params<T> p{crows(dev.template in<T>(V), d_out, a.cols()),
                               dev.template in<T>(alpha)};
    const auto xr = crows(dev.template in<T>(x), a.rows(), a.cols());
    Tensor y = a.output(d_out);  // the forward again, for its cache (y itself is not read)
    cu::sdd::forward<T>(dev.blas(), p, {eps}, xr, rows(dev.template out<T>(y), a.rows(), d_out),
                        &cache, dev.stream());
    cu::sdd::backward<T>(
        dev.blas(), p, {eps}, cache, xr, crows(dev.template in<T>(dy), a.rows(), d_out),
        rows(dev.template out<T>(dx), a.rows(), a.cols()),
        {rows(dev.template out<T>(dV), d_out, a.cols()), dev.template out<T>(dalpha)},
        dev.workspace(), dev.stream());
  });
  return {dx, dV, dalpha};
}

// ---- Scale vectors ------------------------------------------------------------

struct ScaleVectorArgs {
  const optional<Tensor>& g;
  const optional<Tensor>& a;
  const optional<Tensor>& r;
  const optional<Tensor>& u;
};

inline cu::scalevec::Config scalevec_config(const Args& args, const Tensor& W,
                                            const ScaleVectorArgs& v, const std::string& strategy,
                                            double eps, int64_t heads) {
  const char* op = args.op();
  const auto s = spec::value_of(scalevec::kStrategyNames, strategy);
  TORCH_CHECK_VALUE(s.has_value(), op, ": unknown strategy \"", strategy,
                    "\"; expected none, standard, AP, DP, DNP or MD");
  TORCH_CHECK_VALUE(W.dim() == 2, op, ": W must be 2-D ([d_out, d_in]), got shape ", W.sizes());
  const int64_t d_out = W.size(0), d_in = args.cols();
  args.matrix("W", W, d_out, d_in);
  const bool md = *s == cu::scalevec::Strategy::md;
  const auto want = [&](const char* name, const optional<Tensor>& t, bool used, int64_t n) {
    TORCH_CHECK_VALUE(t.has_value() == used, op, ": strategy ", strategy,
                      used ? " needs " : " has no ", name, used ? "" : "; pass None");
    args.row(name, t, n);
  };
  want("g", v.g, cu::scalevec::uses_g(*s), d_in);
  want("a", v.a, cu::scalevec::uses_a(*s), d_out);
  want("r", v.r, md, 1);
  want("u", v.u, md, d_in);
  TORCH_CHECK_VALUE(heads == 1 || *s == cu::scalevec::Strategy::dnp, op,
                    ": heads is DNP's alone (strategy ", strategy, "), got ", heads);
  return {*s, eps, static_cast<int>(heads)};
}

template <class Dev, class T>
cu::scalevec::Params<T> scalevec_params(Dev& dev, const Tensor& W, const ScaleVectorArgs& v) {
  return {crows(dev.template in<T>(W), W.size(0), W.size(1)), maybe_in<Dev, T>(dev, v.g),
          maybe_in<Dev, T>(dev, v.a), maybe_in<Dev, T>(dev, v.r), maybe_in<Dev, T>(dev, v.u)};
}

template <class Dev>
std::tuple<Tensor, std::vector<Tensor>> scalevec(const Tensor& x, const Tensor& W,
                                                 const optional<Tensor>& g,
                                                 const optional<Tensor>& av,
                                                 const optional<Tensor>& r,
                                                 const optional<Tensor>& u, std::string strategy,
                                                 double eps, int64_t heads) {
  constexpr const char* op = "scalevec";
  const Args a(op, x, Dev::kCuda);
  const ScaleVectorArgs v{g, av, r, u};
  const auto c = scalevec_config(a, W, v, strategy, eps, heads);
  const int64_t d_out = W.size(0);
  Tensor y = a.output(d_out);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::scalevec::Cache<T> cache;
    cu::scalevec::forward<T>(dev.blas(), scalevec_params<Dev, T>(dev, W, v), c,
                             crows(dev.template in<T>(x), a.rows(), a.cols()),
                             rows(dev.template out<T>(y), a.rows(), d_out), &cache, dev.stream());
  });
  return {y, {}};
}

template <class Dev>
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> scalevec_backward(
    const Tensor& dy, const Tensor& x, const Tensor& W, const optional<Tensor>& g,
    const optional<Tensor>& av, const optional<Tensor>& r, const optional<Tensor>& u,
    const std::vector<Tensor>&, std::string strategy, double eps, int64_t heads) {
  constexpr const char* op = "scalevec_backward";
  const Args a(op, x, Dev::kCuda);
  const ScaleVectorArgs v{g, av, r, u};
  const auto c = scalevec_config(a, W, v, strategy, eps, heads);
  const int64_t d_out = W.size(0);
  a.grad_output(dy, d_out);
  Tensor dx = a.output(a.cols()), dW = Args::grad_like(W), dg = Args::grad_like(g);
  Tensor da = Args::grad_like(av), dr = Args::grad_like(r), du = Args::grad_like(u);
  run<Dev>(op, x, [&]<class T>(Dev& dev) {
    cu::scalevec::Cache<T> cache;
    const auto p = scalevec_params<Dev, T>(dev, W, v);
    const auto xr = crows(dev.template in<T>(x), a.rows(), a.cols());
    Tensor y = a.output(d_out);  // the forward again, for its cache (y itself is not read)
    cu::scalevec::forward<T>(dev.blas(), p, c, xr, rows(dev.template out<T>(y), a.rows(), d_out),
                             &cache, dev.stream());
    cu::scalevec::backward<T>(
        dev.blas(), p, c, cache, xr, crows(dev.template in<T>(dy), a.rows(), d_out),
        rows(dev.template out<T>(dx), a.rows(), a.cols()),
        {rows(dev.template out<T>(dW), d_out, a.cols()), maybe_out<Dev, T>(dev, dg),
         maybe_out<Dev, T>(dev, da), maybe_out<Dev, T>(dev, dr), maybe_out<Dev, T>(dev, du)},
        dev.workspace(), dev.stream());
  });
  return {dx, dW, dg, da, dr, du};
}

// ---- Rescalers ------------------------------------------------------------------

template <class Dev>
void rescale_(Tensor& W, std::string rule, optional<double> sigma, optional<std::string> std_kind,
              optional<double> threshold) {
  constexpr const char* op = "rescale_";
  const Args a(op, W, Dev::kCuda);
  TORCH_CHECK_VALUE(W.dim() == 2, op, ": W must be 2-D (a weight matrix), got ", W.dim(), "-D");
  const bool uwr = rule == "uwr", zwr = rule == "zwr", tvr = rule == "tvr";
  const bool authors = rule == "tvr_authors_code";
  TORCH_CHECK_VALUE(uwr || zwr || tvr || authors, op, ": unknown rule \"", rule,
                    "\"; expected uwr, zwr, tvr or tvr_authors_code");
  TORCH_CHECK_VALUE(!(uwr && sigma), op, ": uwr takes no sigma");
  TORCH_CHECK_VALUE(!((uwr || authors) && std_kind), op, ": ", rule, " takes no std");
  TORCH_CHECK_VALUE(!(threshold && !authors), op, ": only tvr_authors_code takes a threshold");
  auto kind = metrics::StdKind::population;
  if (std_kind) {
    const auto k = spec::value_of(metrics::kStdKinds, *std_kind);
    TORCH_CHECK_VALUE(k.has_value(), op, ": unknown std \"", *std_kind,
                      "\"; expected population or unbiased");
    kind = *k;
  }
  // Defaults: the reference's (scaleref/spec/rescale.hpp).
  const double target = sigma.value_or(scaleref::rescale::Schedule{}.sigma_target);
  // The result goes to a new tensor, then into W: the kernels are not asked to read
  // and write one buffer, and a non-contiguous W is rescaled too.
  Tensor result = a.output(W.size(1));
  run<Dev>(op, W, [&]<class T>(Dev& dev) {
    const auto w = crows(dev.template in<T>(W), W.size(0), W.size(1));
    const auto out = rows(dev.template out<T>(result), W.size(0), W.size(1));
    auto& ws = dev.workspace();
    if (uwr) {
      cu::rescale::uwr<T>(w, out, ws, dev.stream());
    } else if (zwr) {
      cu::rescale::zwr<T>(w, out, target, kind, ws, dev.stream());
    } else if (tvr) {
      cu::rescale::tvr<T>(w, out, target, kind, ws, dev.stream());
    } else {
      cu::rescale::AuthorsTvr config;
      config.sigma_target = target;
      if (threshold) config.threshold = *threshold;
      cu::rescale::tvr_authors_code<T>(w, out, config, ws, dev.stream());
    }
  });
  at::NoGradGuard no_grad;
  W.copy_(result);
}

// Registers every kernel operator of `Dev` (schema.hpp) with `m`.
template <class Dev>
void register_all(torch::Library& m) {
  m.impl("rmsnorm", rmsnorm<Dev>);
  m.impl("rmsnorm_backward", rmsnorm_backward<Dev>);
  m.impl("layernorm", layernorm<Dev>);
  m.impl("layernorm_backward", layernorm_backward<Dev>);
  m.impl("dyt", dyt<Dev>);
  m.impl("dyt_backward", dyt_backward<Dev>);
  m.impl("seednorm", seednorm<Dev>);
  m.impl("seednorm_backward", seednorm_backward<Dev>);
  m.impl("adaseednorm", adaseednorm<Dev>);
  m.impl("adaseednorm_backward", adaseednorm_backward<Dev>);
  m.impl("sdd", sdd<Dev>);
  m.impl("sdd_backward", sdd_backward<Dev>);
  m.impl("scalevec", scalevec<Dev>);
  m.impl("scalevec_backward", scalevec_backward<Dev>);
  m.impl("rescale_", rescale_<Dev>);
}

}  // namespace scaleref::torch_ops::kernels
