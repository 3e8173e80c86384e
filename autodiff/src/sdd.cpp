#include <scaleref/autodiff/sdd.hpp>

namespace scaleref::autodiff {

namespace {
template <class In>
using ScalarOf = typename std::decay_t<In>::value_type::Scalar;
}  // namespace

verify::Problem analytic_linear() {
  return verify::Problem::make(
      "linear", spec::names(linear::inputs()),
      [](const auto& in) { return linear::forward<ScalarOf<decltype(in)>>({in[1]}, in[0]); },
      [](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        linear::Cache<S> k;
        Mat<S> y = linear::forward<S>({in[1]}, in[0], &k);
        auto g = linear::backward<S>({in[1]}, k, dy);
        return verify::vjp<S>(std::move(y), {&g.dx, &g.dW});
      });
}

verify::Problem tape_linear_problem() {
  return verify::Problem::from_tape(
      "tape linear", spec::names(linear::inputs()),
      [](auto& t, const auto& v) { return tape_linear(t, v[0], v[1]); });
}

verify::Problem analytic_sdd(const sdd::Config& c) {
  return verify::Problem::make(
      "sdd", spec::names(sdd::inputs(c)),
      [c](const auto& in) {
        return sdd::forward<ScalarOf<decltype(in)>>({in[1], in[2]}, c, in[0]);
      },
      [c](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        sdd::Cache<S> k;
        Mat<S> y = sdd::forward<S>({in[1], in[2]}, c, in[0], &k);
        auto g = sdd::backward<S>({in[1], in[2]}, c, k, dy);
        return verify::vjp<S>(std::move(y), {&g.dx, &g.dV, &g.dalpha});
      });
}

verify::Problem tape_sdd_problem(const sdd::Config& c) {
  return verify::Problem::from_tape(
      "tape sdd", spec::names(sdd::inputs(c)),
      [c](auto& t, const auto& v) { return tape_sdd(t, v[0], v[1], v[2], c); });
}

}  // namespace scaleref::autodiff
