#include <scaleref/autodiff/norms.hpp>

namespace scaleref::autodiff {

namespace {

using norm::seednorm::AlphaForm;
using norm::seednorm::BetaForm;
using verify::Problem;

template <class In>
using ScalarOf = typename std::decay_t<In>::value_type::Scalar;

// SeeDNorm's parameters from a problem's inputs (x first, then those present).
template <class S>
norm::seednorm::Params<S> seednorm_params(const norm::seednorm::Config& c,
                                          const std::vector<Mat<S>>& in) {
  norm::seednorm::Params<S> p;
  std::size_t i = 1;
  if (c.alpha != AlphaForm::none) p.alpha = in[i++];
  if (c.beta != BetaForm::none) p.beta = in[i++];
  if (c.gamma) p.gamma = in[i++];
  return p;
}

using verify::vjp;

}  // namespace

std::vector<std::string> seednorm_inputs(const norm::seednorm::Config& c) {
  return spec::names(norm::seednorm::inputs(c));
}

Problem analytic_rmsnorm(const norm::rmsnorm::Config& c) {
  return Problem::make(
      "rmsnorm", spec::names(norm::rmsnorm::inputs(c)),
      [c](const auto& in) {
        return norm::rmsnorm::forward<ScalarOf<decltype(in)>>({in[1]}, c, in[0]);
      },
      [c](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        norm::rmsnorm::Cache<S> k;
        Mat<S> y = norm::rmsnorm::forward<S>({in[1]}, c, in[0], &k);
        auto g = norm::rmsnorm::backward<S>({in[1]}, c, k, dy);
        return vjp<S>(std::move(y), {&g.dx, &g.dgamma});
      });
}

Problem tape_rmsnorm_problem(const norm::rmsnorm::Config& c) {
  return Problem::from_tape("tape rmsnorm", spec::names(norm::rmsnorm::inputs(c)),
                            [c](auto& t, const auto& v) { return tape_rmsnorm(t, v[0], v[1], c); });
}

Problem analytic_layernorm(const norm::layernorm::Config& c) {
  const std::vector<std::string> names = spec::names(norm::layernorm::inputs(c));
  auto params = [c](const auto& in) {
    using S = ScalarOf<decltype(in)>;
    return norm::layernorm::Params<S>{in[1], c.bias ? in[2] : Mat<S>()};
  };
  return Problem::make(
      "layernorm", names,
      [c, params](const auto& in) { return norm::layernorm::forward(params(in), c, in[0]); },
      [c, params](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        norm::layernorm::Cache<S> k;
        Mat<S> y = norm::layernorm::forward(params(in), c, in[0], &k);
        auto g = norm::layernorm::backward(params(in), c, k, dy);
        return vjp<S>(std::move(y), {&g.dx, &g.dgamma, &g.dbeta});
      });
}

Problem tape_layernorm_problem(const norm::layernorm::Config& c) {
  return Problem::from_tape("tape layernorm", spec::names(norm::layernorm::inputs(c)),
                            [c](auto& t, const auto& v) {
                              return tape_layernorm(t, v[0], v[1], c.bias ? v[2] : v[1], c);
                            });
}

Problem analytic_dyt(const norm::dyt::Config& c) {
  const std::vector<std::string> names = spec::names(norm::dyt::inputs(c));
  auto params = [c](const auto& in) {
    using S = ScalarOf<decltype(in)>;
    return norm::dyt::Params<S>{in[1], in[2], c.bias ? in[3] : Mat<S>()};
  };
  return Problem::make(
      "dyt", names,
      [c, params](const auto& in) { return norm::dyt::forward(params(in), c, in[0]); },
      [c, params](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        norm::dyt::Cache<S> k;
        Mat<S> y = norm::dyt::forward(params(in), c, in[0], &k);
        auto g = norm::dyt::backward(params(in), c, k, dy);
        return vjp<S>(std::move(y), {&g.dx, &g.dalpha, &g.dgamma, &g.dbeta});
      });
}

Problem tape_dyt_problem(const norm::dyt::Config& c) {
  return Problem::from_tape("tape dyt", spec::names(norm::dyt::inputs(c)),
                            [c](auto& t, const auto& v) {
                              return tape_dyt(t, v[0], v[1], v[2], c.bias ? v[3] : v[2], c);
                            });
}

Problem analytic_seednorm(const norm::seednorm::Config& c) {
  return Problem::make(
      "seednorm", seednorm_inputs(c),
      [c](const auto& in) { return norm::seednorm::forward(seednorm_params(c, in), c, in[0]); },
      [c](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        const auto p = seednorm_params(c, in);
        norm::seednorm::Cache<S> k;
        Mat<S> y = norm::seednorm::forward(p, c, in[0], &k);
        auto g = norm::seednorm::backward(p, c, k, dy);
        return vjp<S>(std::move(y), {&g.dx, &g.dalpha, &g.dbeta, &g.dgamma});
      });
}

Problem tape_seednorm_problem(const norm::seednorm::Config& c) {
  return Problem::from_tape("tape seednorm", seednorm_inputs(c), [c](auto& t, const auto& v) {
    std::size_t i = 1;
    using V = std::decay_t<decltype(v[0])>;
    const V alpha = c.alpha != AlphaForm::none ? v[i++] : V{};
    const V beta = c.beta != BetaForm::none ? v[i++] : V{};
    const V gamma = c.gamma ? v[i++] : V{};
    return tape_seednorm(t, v[0], alpha, beta, gamma, c);
  });
}

Problem analytic_adaseednorm(const norm::adaseednorm::Config& c) {
  auto params = [c](const auto& in) {
    using S = ScalarOf<decltype(in)>;
    std::size_t i = 1;
    norm::adaseednorm::Params<S> p;
    if (c.alpha != AlphaForm::none) p.alpha = in[i++];
    if (c.beta != BetaForm::none) p.beta = in[i++];
    return p;
  };
  const std::size_t nc =
      spec::names(norm::adaseednorm::inputs(c)).size();  // gamma_c, eta_c are the last two inputs
  return Problem::make(
      "adaseednorm", spec::names(norm::adaseednorm::inputs(c)),
      [c, params, nc](const auto& in) {
        return norm::adaseednorm::forward(params(in), c, in[0], in[nc - 2], in[nc - 1]);
      },
      [c, params, nc](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        norm::adaseednorm::Cache<S> k;
        Mat<S> y = norm::adaseednorm::forward(params(in), c, in[0], in[nc - 2], in[nc - 1], &k);
        auto g = norm::adaseednorm::backward(params(in), c, k, dy);
        return vjp<S>(std::move(y), {&g.dx, &g.dalpha, &g.dbeta, &g.dgamma_c, &g.deta_c});
      });
}

Problem tape_adaseednorm_problem(const norm::adaseednorm::Config& c) {
  const std::size_t nc = spec::names(norm::adaseednorm::inputs(c)).size();
  return Problem::from_tape("tape adaseednorm", spec::names(norm::adaseednorm::inputs(c)),
                            [c, nc](auto& t, const auto& v) {
                              std::size_t i = 1;
                              using V = std::decay_t<decltype(v[0])>;
                              const V alpha = c.alpha != AlphaForm::none ? v[i++] : V{};
                              const V beta = c.beta != BetaForm::none ? v[i++] : V{};
                              return tape_adaseednorm(t, v[0], alpha, beta, v[nc - 2], v[nc - 1],
                                                      c);
                            });
}

}  // namespace scaleref::autodiff
