// The `scaleref` torch operators (schema.hpp) and their CPU implementation:
// the double-precision reference, through the oracle's one call
// (autodiff/cli/evaluate.hpp) that the command line and the Python module
// make. A CPU tensor of any storage type is widened to double, the reference
// runs, and its outputs are rounded to the input's dtype. The cost: a copy to
// double and back of every tensor, the reference's own speed (written for
// reading, not for speed), and in the backward a second evaluation of the
// forward in double, since the reference keeps no state between calls (its
// `saved` is empty).
//
// Errors: a scaleref::Error of the reference (a bad shape, eps, heads, a
// non-finite input) becomes ValueError in Python, with the reference's
// message; a tensor of the wrong dtype or device, TypeError or ValueError
// naming the argument.
#include <c10/util/Optional.h>
#include <torch/library.h>
#include <torch/types.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <scaleref/error.hpp>
#include <string>
#include <vector>

#include "evaluate.hpp"
#include "registry.hpp"
#include "schema.hpp"
#include "support.hpp"

namespace scaleref::torch_ops {
namespace {

using Texts = std::map<std::string, std::string>;
using Inputs = std::map<std::string, cli::Array>;

std::string text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

cli::Array to_array(const at::Tensor& t) {
  const at::Tensor d = t.detach().to(at::kDouble).contiguous();
  const std::vector<long> shape(d.sizes().begin(), d.sizes().end());
  const auto [rows, cols] = cli::matrix_shape(shape);
  cli::Array a{shape, Mat<double>(rows, cols), ""};
  if (d.numel() > 0)
    std::memcpy(a.values.data(), d.data_ptr<double>(),
                static_cast<std::size_t>(d.numel()) * sizeof(double));
  return a;
}

at::Tensor to_tensor(const cli::Array& a, at::ScalarType dtype) {
  const std::vector<int64_t> shape(a.shape.begin(), a.shape.end());
  at::Tensor d = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  if (d.numel() > 0)
    std::memcpy(d.data_ptr<double>(), a.values.data(),
                static_cast<std::size_t>(d.numel()) * sizeof(double));
  return d.to(dtype);
}

// One evaluation of the reference: `tensors` by the spec's names ("dy" for the
// backward), each checked against x's dtype and the CPU first.
class Call {
 public:
  Call(const char* op, std::string method, const at::Tensor& x)
      : op_(op), method_(std::move(method)), dtype_(x.scalar_type()) {
    check_storage(op_, "x", x);
    TORCH_CHECK_VALUE(x.device().is_cpu(), op_, ": x is on ", x.device(),
                      "; this implementation runs CPU tensors (the reference)");
  }

  Call& set(const std::string& key, std::string value) {
    settings_[key] = std::move(value);
    return *this;
  }
  Call& set(const std::string& key, double value) { return set(key, text(value)); }
  Call& set(const std::string& key, int64_t value) { return set(key, std::to_string(value)); }
  Call& set_bool(const std::string& key, bool value) { return set(key, value ? "true" : "false"); }

  Call& tensor(const std::string& name, const at::Tensor& t) {
    check_storage(op_, name.c_str(), t);
    TORCH_CHECK_TYPE(t.scalar_type() == dtype_, op_, ": ", name, " is ", t.scalar_type(),
                     " and x is ", dtype_, "; pass every tensor in one dtype");
    TORCH_CHECK_VALUE(t.device().is_cpu(), op_, ": ", name, " is on ", t.device(),
                      " and x on the CPU; pass every tensor on one device");
    in_[name] = to_array(t);
    return *this;
  }
  Call& tensor(const std::string& name, const c10::optional<at::Tensor>& t) {
    return t ? tensor(name, *t) : *this;
  }

  // The outputs by name ("y" or "W", "dx", "d<param>") in x's dtype.
  std::map<std::string, at::Tensor> run() {
    std::map<std::string, at::Tensor> out;
    try {
      const cli::Method& m = cli::find_method(method_);
      const cli::Settings s(method_, m.keys, settings_);
      cli::Evaluation e = cli::evaluate(m, s, std::move(in_));
      for (const auto& [name, a] : e.outputs) out[name] = to_tensor(a, dtype_);
    } catch (const Error& e) {
      TORCH_CHECK_VALUE(false, op_, ": ", e.what());
    }
    return out;
  }

 private:
  const char* op_;
  std::string method_;
  at::ScalarType dtype_;
  Texts settings_;
  Inputs in_;
};

// out[name] when the layer has that parameter, else an undefined tensor (None).
at::Tensor grad(std::map<std::string, at::Tensor>& out, const std::string& name, bool has) {
  return has ? out.at(name) : at::Tensor();
}

std::tuple<at::Tensor, std::vector<at::Tensor>> rmsnorm(const at::Tensor& x,
                                                        const c10::optional<at::Tensor>& gamma,
                                                        double eps) {
  auto out = Call("scaleref::rmsnorm", "rmsnorm", x)
                 .set("eps", eps)
                 .tensor("x", x)
                 .tensor("gamma", gamma)
                 .run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor> rmsnorm_backward(const at::Tensor& dy, const at::Tensor& x,
                                                    const c10::optional<at::Tensor>& gamma,
                                                    const std::vector<at::Tensor>&, double eps) {
  auto out = Call("scaleref::rmsnorm_backward", "rmsnorm", x)
                 .set("eps", eps)
                 .tensor("x", x)
                 .tensor("gamma", gamma)
                 .tensor("dy", dy)
                 .run();
  return {out.at("dx"), grad(out, "dgamma", gamma.has_value())};
}

Call layernorm_call(const char* op, const at::Tensor& x, const c10::optional<at::Tensor>& gamma,
                    const c10::optional<at::Tensor>& beta, double eps) {
  Call c(op, "layernorm", x);
  c.set("eps", eps).set_bool("bias", beta.has_value()).tensor("x", x).tensor("gamma", gamma);
  c.tensor("beta", beta);
  return c;
}

std::tuple<at::Tensor, std::vector<at::Tensor>> layernorm(const at::Tensor& x,
                                                          const c10::optional<at::Tensor>& gamma,
                                                          const c10::optional<at::Tensor>& beta,
                                                          double eps) {
  auto out = layernorm_call("scaleref::layernorm", x, gamma, beta, eps).run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layernorm_backward(
    const at::Tensor& dy, const at::Tensor& x, const c10::optional<at::Tensor>& gamma,
    const c10::optional<at::Tensor>& beta, const std::vector<at::Tensor>&, double eps) {
  auto out =
      layernorm_call("scaleref::layernorm_backward", x, gamma, beta, eps).tensor("dy", dy).run();
  return {out.at("dx"), grad(out, "dgamma", gamma.has_value()),
          grad(out, "dbeta", beta.has_value())};
}

Call dyt_call(const char* op, const at::Tensor& x, const at::Tensor& alpha,
              const c10::optional<at::Tensor>& gamma, const c10::optional<at::Tensor>& beta) {
  Call c(op, "dyt", x);
  c.set_bool("bias", beta.has_value()).tensor("x", x).tensor("alpha", alpha);
  c.tensor("gamma", gamma).tensor("beta", beta);
  return c;
}

at::Tensor dyt(const at::Tensor& x, const at::Tensor& alpha, const c10::optional<at::Tensor>& gamma,
               const c10::optional<at::Tensor>& beta) {
  return dyt_call("scaleref::dyt", x, alpha, gamma, beta).run().at("y");
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> dyt_backward(
    const at::Tensor& dy, const at::Tensor& x, const at::Tensor& alpha,
    const c10::optional<at::Tensor>& gamma, const c10::optional<at::Tensor>& beta) {
  auto out = dyt_call("scaleref::dyt_backward", x, alpha, gamma, beta).tensor("dy", dy).run();
  return {out.at("dx"), out.at("dalpha"), grad(out, "dgamma", gamma.has_value()),
          grad(out, "dbeta", beta.has_value())};
}

// SeeDNorm's and AdaSeeDNorm's settings: alpha_form and beta_form are the
// reference's `alpha` and `beta` choices (a tensor is given iff its form is not
// "none").
Call seednorm_call(const char* op, const char* method, const at::Tensor& x,
                   const c10::optional<at::Tensor>& alpha, const c10::optional<at::Tensor>& beta,
                   double eps, const std::string& sigma, int64_t heads,
                   const std::string& alpha_form, const std::string& beta_form) {
  TORCH_CHECK_VALUE(alpha.has_value() == (alpha_form != "none"), op, ": alpha_form is \"",
                    alpha_form, "\" and alpha is ", alpha ? "given" : "None",
                    "; pass alpha exactly when its form is not \"none\"");
  TORCH_CHECK_VALUE(beta.has_value() == (beta_form != "none"), op, ": beta_form is \"", beta_form,
                    "\" and beta is ", beta ? "given" : "None",
                    "; pass beta exactly when its form is not \"none\"");
  Call c(op, method, x);
  c.set("eps", eps).set("sigma", sigma).set("heads", heads).set("alpha", alpha_form);
  c.set("beta", beta_form).tensor("x", x).tensor("alpha", alpha).tensor("beta", beta);
  return c;
}

std::tuple<at::Tensor, std::vector<at::Tensor>> seednorm(
    const at::Tensor& x, const c10::optional<at::Tensor>& alpha,
    const c10::optional<at::Tensor>& beta, const c10::optional<at::Tensor>& gamma, double eps,
    std::string sigma, int64_t heads, std::string alpha_form, std::string beta_form) {
  auto c = seednorm_call("scaleref::seednorm", "seednorm", x, alpha, beta, eps, sigma, heads,
                         alpha_form, beta_form);
  auto out = c.set_bool("gamma", gamma.has_value()).tensor("gamma", gamma).run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> seednorm_backward(
    const at::Tensor& dy, const at::Tensor& x, const c10::optional<at::Tensor>& alpha,
    const c10::optional<at::Tensor>& beta, const c10::optional<at::Tensor>& gamma,
    const std::vector<at::Tensor>&, double eps, std::string sigma, int64_t heads,
    std::string alpha_form, std::string beta_form) {
  auto c = seednorm_call("scaleref::seednorm_backward", "seednorm", x, alpha, beta, eps, sigma,
                         heads, alpha_form, beta_form);
  auto out = c.set_bool("gamma", gamma.has_value()).tensor("gamma", gamma).tensor("dy", dy).run();
  return {out.at("dx"), grad(out, "dalpha", alpha.has_value()),
          grad(out, "dbeta", beta.has_value()), grad(out, "dgamma", gamma.has_value())};
}

std::tuple<at::Tensor, std::vector<at::Tensor>> adaseednorm(
    const at::Tensor& x, const c10::optional<at::Tensor>& alpha,
    const c10::optional<at::Tensor>& beta, const at::Tensor& gamma_c, const at::Tensor& eta_c,
    double eps, std::string sigma, int64_t heads, std::string alpha_form, std::string beta_form) {
  auto c = seednorm_call("scaleref::adaseednorm", "adaseednorm", x, alpha, beta, eps, sigma, heads,
                         alpha_form, beta_form);
  auto out = c.tensor("gamma_c", gamma_c).tensor("eta_c", eta_c).run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> adaseednorm_backward(
    const at::Tensor& dy, const at::Tensor& x, const c10::optional<at::Tensor>& alpha,
    const c10::optional<at::Tensor>& beta, const at::Tensor& gamma_c, const at::Tensor& eta_c,
    const std::vector<at::Tensor>&, double eps, std::string sigma, int64_t heads,
    std::string alpha_form, std::string beta_form) {
  auto c = seednorm_call("scaleref::adaseednorm_backward", "adaseednorm", x, alpha, beta, eps,
                         sigma, heads, alpha_form, beta_form);
  auto out = c.tensor("gamma_c", gamma_c).tensor("eta_c", eta_c).tensor("dy", dy).run();
  return {out.at("dx"), grad(out, "dalpha", alpha.has_value()),
          grad(out, "dbeta", beta.has_value()), out.at("dgamma_c"), out.at("deta_c")};
}

std::tuple<at::Tensor, std::vector<at::Tensor>> sdd(const at::Tensor& x, const at::Tensor& V,
                                                    const at::Tensor& alpha, double eps) {
  auto out = Call("scaleref::sdd", "sdd", x)
                 .set("eps", eps)
                 .tensor("x", x)
                 .tensor("V", V)
                 .tensor("alpha", alpha)
                 .run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> sdd_backward(
    const at::Tensor& dy, const at::Tensor& x, const at::Tensor& V, const at::Tensor& alpha,
    const std::vector<at::Tensor>&, double eps) {
  auto out = Call("scaleref::sdd_backward", "sdd", x)
                 .set("eps", eps)
                 .tensor("x", x)
                 .tensor("V", V)
                 .tensor("alpha", alpha)
                 .tensor("dy", dy)
                 .run();
  return {out.at("dx"), out.at("dV"), out.at("dalpha")};
}

struct ScaleVectors {
  const c10::optional<at::Tensor>& g;
  const c10::optional<at::Tensor>& a;
  const c10::optional<at::Tensor>& r;
  const c10::optional<at::Tensor>& u;
};

Call scalevec_call(const char* op, const at::Tensor& x, const at::Tensor& W, const ScaleVectors& v,
                   const std::string& strategy, double eps, int64_t heads) {
  Call c(op, "scalevec", x);
  c.set("strategy", strategy).set("eps", eps);
  // heads is DNP's alone; any other strategy refuses it (the reference's unread-setting rule).
  if (strategy == "DNP" || heads != 1) c.set("heads", heads);
  c.tensor("x", x).tensor("W", W).tensor("g", v.g).tensor("a", v.a).tensor("r", v.r);
  c.tensor("u", v.u);
  return c;
}

std::tuple<at::Tensor, std::vector<at::Tensor>> scalevec(
    const at::Tensor& x, const at::Tensor& W, const c10::optional<at::Tensor>& g,
    const c10::optional<at::Tensor>& a, const c10::optional<at::Tensor>& r,
    const c10::optional<at::Tensor>& u, std::string strategy, double eps, int64_t heads) {
  auto out = scalevec_call("scaleref::scalevec", x, W, {g, a, r, u}, strategy, eps, heads).run();
  return {out.at("y"), {}};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
scalevec_backward(const at::Tensor& dy, const at::Tensor& x, const at::Tensor& W,
                  const c10::optional<at::Tensor>& g, const c10::optional<at::Tensor>& a,
                  const c10::optional<at::Tensor>& r, const c10::optional<at::Tensor>& u,
                  const std::vector<at::Tensor>&, std::string strategy, double eps, int64_t heads) {
  auto out = scalevec_call("scaleref::scalevec_backward", x, W, {g, a, r, u}, strategy, eps, heads)
                 .tensor("dy", dy)
                 .run();
  return {out.at("dx"),
          out.at("dW"),
          grad(out, "dg", out.count("dg") > 0),
          grad(out, "da", out.count("da") > 0),
          grad(out, "dr", out.count("dr") > 0),
          grad(out, "du", out.count("du") > 0)};
}

// W (2-D) takes the rescaler's result in place.
void rescale_(at::Tensor& W, std::string rule, c10::optional<double> sigma,
              c10::optional<std::string> std_kind, c10::optional<double> threshold) {
  constexpr const char* op = "scaleref::rescale_";
  const bool known = rule == "uwr" || rule == "zwr" || rule == "tvr" || rule == "tvr_authors_code";
  TORCH_CHECK_VALUE(known, op, ": unknown rule \"", rule,
                    "\"; expected uwr, zwr, tvr or tvr_authors_code");
  TORCH_CHECK_VALUE(W.dim() == 2, op, ": W must be 2-D (a weight matrix), got ", W.dim(), "-D");
  Call c(op, rule, W);
  if (sigma) c.set(rule == "zwr" ? "sigma_init" : "sigma_target", *sigma);
  if (std_kind) c.set("std", *std_kind);
  if (threshold) c.set("threshold", *threshold);
  auto out = c.tensor("W", W).run();
  at::NoGradGuard no_grad;
  W.copy_(out.at("W"));
}

// W (2-D, [d_out, d_in]) is drawn from the initializer in place.
void init_(at::Tensor& W, std::string method, std::string role, int64_t layer, int64_t seed,
           int64_t tensor, c10::optional<double> sigma, c10::optional<int64_t> n_layers,
           c10::optional<double> alpha, c10::optional<double> gamma) {
  constexpr const char* op = "scaleref::init_";
  TORCH_CHECK_VALUE(W.dim() == 2, op, ": W must be 2-D ([d_out, d_in]), got ", W.dim(), "-D");
  Call c(op, "init", W);
  c.set("method", method).set("role", role).set("d_out", W.size(0)).set("d_in", W.size(1));
  if (role != "embedding" && role != "head") c.set("layer", layer);
  c.set("seed", seed).set("tensor", tensor);
  if (sigma) c.set("sigma", *sigma);
  if (n_layers) c.set("n_layers", *n_layers);
  if (alpha) c.set("alpha", *alpha);
  if (gamma) c.set("gamma", *gamma);
  auto out = c.run();
  at::NoGradGuard no_grad;
  W.copy_(out.at("W"));
}

}  // namespace

TORCH_LIBRARY(scaleref, m) { define_schemas(m); }

TORCH_LIBRARY_IMPL(scaleref, CPU, m) {
  m.impl("rmsnorm", rmsnorm);
  m.impl("rmsnorm_backward", rmsnorm_backward);
  m.impl("layernorm", layernorm);
  m.impl("layernorm_backward", layernorm_backward);
  m.impl("dyt", dyt);
  m.impl("dyt_backward", dyt_backward);
  m.impl("seednorm", seednorm);
  m.impl("seednorm_backward", seednorm_backward);
  m.impl("adaseednorm", adaseednorm);
  m.impl("adaseednorm_backward", adaseednorm_backward);
  m.impl("sdd", sdd);
  m.impl("sdd_backward", sdd_backward);
  m.impl("scalevec", scalevec);
  m.impl("scalevec_backward", scalevec_backward);
  m.impl("rescale_", rescale_);
  m.impl("init_", init_);
}

}  // namespace scaleref::torch_ops
