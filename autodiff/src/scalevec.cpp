#include <scaleref/autodiff/scalevec.hpp>

namespace scaleref::autodiff {

namespace {

using scalevec::Strategy;
using verify::Problem;

template <class In>
using ScalarOf = typename std::decay_t<In>::value_type::Scalar;

// The parameters from a problem's inputs (x, W, then those the strategy reads).
template <class S>
scalevec::Params<S> params_of(Strategy s, const std::vector<Mat<S>>& in) {
  scalevec::Params<S> p;
  p.W = in[1];
  std::size_t i = 2;
  if (scalevec::uses_g(s)) p.g = in[i++];
  if (scalevec::uses_a(s)) p.a = in[i++];
  if (s == Strategy::md) {
    p.r = in[i++];
    p.u = in[i++];
  }
  return p;
}

template <class S>
std::vector<scalevec::Branch<S>> branches_of(const std::vector<Mat<S>>& in) {
  std::vector<scalevec::Branch<S>> b;
  for (std::size_t i = 1; i + 1 < in.size(); i += 2) b.push_back({in[i], in[i + 1]});
  return b;
}

template <class S>
Mat<S> concat(const std::vector<Mat<S>>& parts) {
  Eigen::Index cols = 0;
  for (const auto& m : parts) cols += m.cols();
  Mat<S> out(parts.front().rows(), cols);
  Eigen::Index c = 0;
  for (const auto& m : parts) {
    out.middleCols(c, m.cols()) = m;
    c += m.cols();
  }
  return out;
}

std::vector<std::string> hg_inputs(int branches) {
  std::vector<std::string> names{"x"};
  for (int b = 1; b <= branches; ++b) {
    names.push_back("W_" + std::to_string(b));
    names.push_back("g_" + std::to_string(b));
  }
  return names;
}

}  // namespace

std::vector<std::string> scalevec_inputs(Strategy s) {
  scalevec::Config c;
  c.strategy = s;
  return spec::names(scalevec::inputs(c));
}

Problem analytic_scalevec(const scalevec::Config& c) {
  return Problem::make(
      std::string("scalevec ") + scalevec::strategy_name(c.strategy), scalevec_inputs(c.strategy),
      [c](const auto& in) {
        using S = ScalarOf<decltype(in)>;
        return scalevec::forward<S>(params_of<S>(c.strategy, in), c, in[0]);
      },
      [c](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        const auto p = params_of<S>(c.strategy, in);
        scalevec::Cache<S> k;
        Mat<S> y = scalevec::forward<S>(p, c, in[0], &k);
        auto g = scalevec::backward<S>(p, c, k, dy);
        return verify::vjp<S>(std::move(y), {&g.dx, &g.dW, &g.dg, &g.da, &g.dr, &g.du});
      });
}

Problem tape_scalevec_problem(const scalevec::Config& c) {
  return Problem::from_tape(std::string("tape scalevec ") + scalevec::strategy_name(c.strategy),
                            scalevec_inputs(c.strategy), [c](auto& t, const auto& v) {
                              const auto p = [&](std::string_view name) {
                                const auto names = scalevec_inputs(c.strategy);
                                for (std::size_t i = 0; i < names.size(); ++i)
                                  if (names[i] == name) return v[i];
                                return v[0];  // unread by this strategy
                              };
                              return tape_scalevec(t, v[0], v[1], p("g"), p("a"), p("r"), p("u"),
                                                   c);
                            });
}

Problem analytic_scalevec_hg(int branches, double eps) {
  return Problem::make(
      "scalevec HG", hg_inputs(branches),
      [eps](const auto& in) {
        using S = ScalarOf<decltype(in)>;
        return concat<S>(scalevec::forward_hg<S>(branches_of<S>(in), eps, in[0]));
      },
      [eps](const auto& in, const auto& dy) {
        using S = ScalarOf<decltype(in)>;
        const auto b = branches_of<S>(in);
        scalevec::HGCache<S> k;
        scalevec::forward_hg<S>(b, eps, in[0], &k);
        std::vector<Mat<S>> dys;
        Eigen::Index col = 0;
        for (const auto& br : b) {
          dys.push_back(dy.middleCols(col, br.W.rows()));
          col += br.W.rows();
        }
        const auto g = scalevec::backward_hg<S>(b, k, dys);
        std::vector<Mat<S>> out{g.dx};
        for (std::size_t i = 0; i < b.size(); ++i) {
          out.push_back(g.dW[i]);
          out.push_back(g.dg[i]);
        }
        return out;
      });
}

Problem tape_scalevec_hg_problem(int branches, double eps) {
  return Problem::from_tape("tape scalevec HG", hg_inputs(branches),
                            [eps](auto& t, const auto& v) { return tape_scalevec_hg(t, v, eps); });
}

}  // namespace scaleref::autodiff
