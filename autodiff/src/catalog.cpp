#include <algorithm>
#include <scaleref/autodiff/catalog.hpp>
#include <tuple>

namespace scaleref::autodiff {

namespace {

using verify::Problem;
using verify::gen::Domain;

// Domains, in decades of the matrix's common scale (see generators.hpp).
const Domain kReal{};                                         // 1e-9 .. 1e9
const Domain kPositive{-4, 4, 1, true, {}, 1e-3};             // sqrt, rsqrt, log
const Domain kModerate{-3, 1, 1, false, {}, 1e-3};            // exp and squashing functions
const Domain kUnitKinks{-2, 1, 1, false, {-1.0, 1.0}, 1e-3};  // hardtanh
// gelu's tanh form, evaluated in double, cancels in 1 + tanh(u) for x < -6
// (relative error of gelu'(-7) about 1e-2, seen by the fuzz run); in 50 digits
// it is exact. Random inputs stay within |x| <= 10^0.7 = 5, where double keeps
// about 1e-9 of it.
const Domain kGelu{-3, 0, 0.7, false, {}, 1e-3};

template <class Build>
PrimitiveCase unary(const char* op, Domain dom, Build build) {
  return {Problem::from_tape(std::string("tape.") + op, {"x"}, build),
          {{Extent::n, Extent::d, dom}}};
}

template <class Build>
PrimitiveCase binary(const char* op, InputSpec a, InputSpec b, Build build) {
  return {Problem::from_tape(std::string("tape.") + op, {"a", "b"}, build), {a, b}};
}

std::vector<PrimitiveCase> build_catalog() {
  const InputSpec nd{Extent::n, Extent::d, kReal};
  std::vector<PrimitiveCase> c;
  c.push_back(binary("add", nd, nd, [](auto& t, const auto& x) { return t.add(x[0], x[1]); }));
  c.push_back(binary("sub", nd, nd, [](auto& t, const auto& x) { return t.sub(x[0], x[1]); }));
  c.push_back(binary("mul", nd, nd, [](auto& t, const auto& x) { return t.mul(x[0], x[1]); }));
  c.push_back(binary("div", nd, nd, [](auto& t, const auto& x) { return t.div(x[0], x[1]); }));
  c.push_back(unary("neg", kReal, [](auto& t, const auto& x) { return t.neg(x[0]); }));
  c.push_back(unary("scale", kReal, [](auto& t, const auto& x) { return t.scale(x[0], -2.5); }));
  c.push_back(unary("add_constant", kReal,
                    [](auto& t, const auto& x) { return t.add_constant(x[0], 0.75); }));
  c.push_back(unary("square", kReal, [](auto& t, const auto& x) { return t.square(x[0]); }));
  c.push_back(unary("sqrt", kPositive, [](auto& t, const auto& x) { return t.sqrt(x[0]); }));
  c.push_back(unary("rsqrt", kPositive, [](auto& t, const auto& x) { return t.rsqrt(x[0]); }));
  c.push_back(unary("exp", kModerate, [](auto& t, const auto& x) { return t.exp(x[0]); }));
  c.push_back(unary("log", kPositive, [](auto& t, const auto& x) { return t.log(x[0]); }));
  c.push_back(unary("tanh", kModerate, [](auto& t, const auto& x) { return t.tanh(x[0]); }));
  c.push_back(unary("sigmoid", kModerate, [](auto& t, const auto& x) { return t.sigmoid(x[0]); }));
  c.push_back(unary("softsign", kReal, [](auto& t, const auto& x) { return t.softsign(x[0]); }));
  c.push_back(
      unary("hardtanh", kUnitKinks, [](auto& t, const auto& x) { return t.hardtanh(x[0]); }));
  c.push_back(unary("gelu", kGelu, [](auto& t, const auto& x) { return t.gelu(x[0]); }));
  c.push_back(unary("silu", kModerate, [](auto& t, const auto& x) { return t.silu(x[0]); }));
  c.push_back(binary("matmul", {Extent::n, Extent::k, kReal}, {Extent::k, Extent::d, kReal},
                     [](auto& t, const auto& x) { return t.matmul(x[0], x[1]); }));
  c.push_back(unary("transpose", kReal, [](auto& t, const auto& x) { return t.transpose(x[0]); }));
  c.push_back(unary("slice_cols", kReal, [](auto& t, const auto& x) {
    const long d = t.value(x[0]).cols();  // a middle block of columns, never empty
    return t.slice_cols(x[0], d / 3, std::max(1L, d - d / 3 - d / 4));
  }));
  c.push_back(binary("concat_cols", nd, {Extent::n, Extent::k, kReal}, [](auto& t, const auto& x) {
    return t.concat_cols({x[0], x[1], x[0]});
  }));
  c.push_back(binary("add_rowvec", nd, {Extent::one, Extent::d, kReal},
                     [](auto& t, const auto& x) { return t.add_rowvec(x[0], x[1]); }));
  c.push_back(binary("mul_rowvec", nd, {Extent::one, Extent::d, kReal},
                     [](auto& t, const auto& x) { return t.mul_rowvec(x[0], x[1]); }));
  c.push_back(binary("add_colvec", nd, {Extent::n, Extent::one, kReal},
                     [](auto& t, const auto& x) { return t.add_colvec(x[0], x[1]); }));
  c.push_back(binary("mul_colvec", nd, {Extent::n, Extent::one, kReal},
                     [](auto& t, const auto& x) { return t.mul_colvec(x[0], x[1]); }));
  c.push_back(binary("mul_scalar", nd, {Extent::one, Extent::one, kReal},
                     [](auto& t, const auto& x) { return t.mul_scalar(x[0], x[1]); }));
  c.push_back(unary("row_sum", kReal, [](auto& t, const auto& x) { return t.row_sum(x[0]); }));
  c.push_back(unary("row_mean", kReal, [](auto& t, const auto& x) { return t.row_mean(x[0]); }));
  c.push_back(unary("col_sum", kReal, [](auto& t, const auto& x) { return t.col_sum(x[0]); }));
  c.push_back(unary("col_mean", kReal, [](auto& t, const auto& x) { return t.col_mean(x[0]); }));
  c.push_back(unary("sum", kReal, [](auto& t, const auto& x) { return t.sum(x[0]); }));
  c.push_back(unary("mean", kReal, [](auto& t, const auto& x) { return t.mean(x[0]); }));
  c.push_back(
      unary("row_softmax", kModerate, [](auto& t, const auto& x) { return t.row_softmax(x[0]); }));
  // The mask's -inf entries would make a finite difference NaN: it is checked
  // through the softmax it feeds, as attention uses it.
  c.push_back({Problem::from_tape(
                   "tape.causal_mask", {"scores"},
                   [](auto& t, const auto& x) { return t.row_softmax(t.causal_mask(x[0])); }),
               {{Extent::n, Extent::n, kModerate}}});
  return c;
}

long extent_value(Extent e, long n, long d, long k) {
  switch (e) {
    case Extent::n:
      return n;
    case Extent::d:
      return d;
    case Extent::k:
      return k;
    case Extent::one:
      return 1;
  }
  return 1;
}

}  // namespace

const std::vector<PrimitiveCase>& primitive_catalog() {
  static const std::vector<PrimitiveCase> catalog = build_catalog();
  return catalog;
}

rc::Gen<verify::Inputs<double>> draw_inputs(const PrimitiveCase& c) {
  namespace g = verify::gen;
  const std::vector<InputSpec> specs = c.inputs;
  return rc::gen::mapcat(
      rc::gen::tuple(g::extent(6), g::extent(7), g::extent(5)),
      [specs](const std::tuple<long, long, long>& nk) {
        const auto [n, d, k] = nk;
        std::vector<rc::Gen<Mat<double>>> parts;
        for (const InputSpec& s : specs)
          parts.push_back(
              g::matrix(extent_value(s.rows, n, d, k), extent_value(s.cols, n, d, k), s.domain));
        // Inputs are drawn one after another; a two-input op pairs them up.
        if (parts.size() == 1)
          return rc::gen::map(parts[0], [](Mat<double> m) { return verify::Inputs<double>{m}; });
        return rc::gen::map(rc::gen::pair(parts[0], parts[1]),
                            [](const std::pair<Mat<double>, Mat<double>>& ab) {
                              return verify::Inputs<double>{ab.first, ab.second};
                            });
      });
}

}  // namespace scaleref::autodiff
