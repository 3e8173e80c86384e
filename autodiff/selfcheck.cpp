// scaleref_selfcheck: the verifier's self-report on the tape's primitives.
//
// For every primitive in the catalog, draws cases from the same generators the
// property tests use (a fixed seed, so the report is reproducible), runs the
// full gradient check on each and prints one row: the worst normwise error of
// the tape's gradient against 50-digit and double finite differences
// (max|analytic - FD| over the size of that Jacobian block), the smallest
// Taylor slope, and the verdict. Exits 1 if any check failed.
//
//   scaleref_selfcheck [--cases N] [--seed S]
//
// Then the same for every normalization method's and the SDD and plain
// layers' analytic backward, on deterministic inputs at three scales.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <scaleref/autodiff/catalog.hpp>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/autodiff/scalevec.hpp>
#include <scaleref/autodiff/sdd.hpp>
#include <string>
#include <vector>

namespace {

using namespace scaleref;
using M = Mat<double>;

// The worst numbers over the cases of one row of the report.
struct Row {
  double worst50 = 0, worst64 = 0, slope = std::numeric_limits<double>::infinity();
  bool ok = true;
  std::string first_failure;

  void add(const verify::Report& r) {
    worst50 = std::max(worst50, r.worst_normwise_err("fd-50"));
    worst64 = std::max(worst64, r.worst_normwise_err("fd-double"));
    if (const auto* t = r.find("taylor-50"); t && !std::isnan(t->slope))
      slope = std::min(slope, t->slope);
    if (!r.ok() && ok) first_failure = r.str();
    ok = ok && r.ok();
  }
  // Prints the row; returns 1 if it failed.
  int print(const std::string& name) const {
    char taylor[32];
    if (std::isinf(slope))
      std::snprintf(taylor, sizeof taylor, "linear");
    else
      std::snprintf(taylor, sizeof taylor, "%.3f", slope);
    std::printf("%-30s %14.2e %14.2e %12s  %s\n", name.c_str(), worst50, worst64, taylor,
                ok ? "pass" : "FAIL");
    if (!ok) std::printf("%s", first_failure.c_str());
    return ok ? 0 : 1;
  }
};

void header(const char* what) {
  std::printf("%-30s %14s %14s %12s  %s\n", what, "err 50-digit", "err double", "min Taylor",
              "verdict");
}

// Deterministic inputs away from every initialization, at a given scale.
M wave(long rows, long cols, double scale, double phase) {
  M m(rows, cols);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      m(i, j) = scale * (std::sin(1.3 * i + 0.7 * j + phase) + 0.05 * (j + 1));
  return m;
}

struct Method {
  std::string name;
  verify::Problem problem;
  // inputs(x) -> every input of the problem for this x
  std::function<verify::Inputs<double>(const M& x)> inputs;
};

std::vector<Method> methods() {
  namespace seed = norm::seednorm;
  const long d = 8;
  auto gain = [d] { return M(wave(1, d, 0.4, 2.0).array() + 1.0); };
  auto bias = [d] { return wave(1, d, 0.2, 0.5); };
  // beta scaled to x, so sigma's argument stays of order one at every scale.
  auto beta = [d](const M& x, long width) {
    return M(wave(1, d, 0.6, 1.1) /
             (std::sqrt(x.squaredNorm() / x.size()) * std::sqrt(double(width))));
  };
  auto seednorm_row = [&](std::string name, seed::Config c) {
    const long width = c.beta == seed::BetaForm::dot ? d / c.heads : 1;
    return Method{std::move(name), autodiff::analytic_seednorm(c), [=](const M& x) {
                    verify::Inputs<double> in{x};
                    if (c.alpha == seed::AlphaForm::vector) in.push_back(M(gain().array() - 0.3));
                    if (c.alpha == seed::AlphaForm::scalar) in.push_back(M::Constant(1, 1, 0.8));
                    if (c.beta != seed::BetaForm::none) in.push_back(beta(x, width));
                    if (c.gamma) in.push_back(M(gain()));
                    return in;
                  }};
  };
  std::vector<Method> m;
  m.push_back({"rmsnorm", autodiff::analytic_rmsnorm({1e-6}), [=](const M& x) {
                 return verify::Inputs<double>{x, M(gain())};
               }});
  m.push_back({"layernorm (bias)", autodiff::analytic_layernorm({1e-5, true}), [=](const M& x) {
                 return verify::Inputs<double>{x, M(gain()), bias()};
               }});
  m.push_back({"dyt (bias)", autodiff::analytic_dyt({true, 0.5}), [=](const M& x) {
                 const double rms = std::sqrt(x.squaredNorm() / x.size());
                 return verify::Inputs<double>{x, M::Constant(1, 1, 0.8 / rms), M(gain()), bias()};
               }});
  seed::Config c;
  m.push_back(seednorm_row("seednorm (tanh)", c));
  c.heads = 4;
  m.push_back(seednorm_row("seednorm (4 heads)", c));
  c = {};
  c.heads = 2;
  c.sigma = norm::Activation::swish;
  m.push_back(seednorm_row("seednorm (2 heads, swish)", c));
  c = {};
  c.alpha = seed::AlphaForm::scalar;
  c.beta = seed::BetaForm::elementwise;
  c.sigma = norm::Activation::sigmoid;
  m.push_back(seednorm_row("seednorm (scalar a, x*b, sigm)", c));
  c = {};
  c.alpha = seed::AlphaForm::none;
  c.gamma = false;
  c.sigma = norm::Activation::softsign;
  m.push_back(seednorm_row("seednorm (no a, no g, softsign)", c));
  c = {};
  c.beta = seed::BetaForm::none;
  c.sigma = norm::Activation::gelu_tanh;
  m.push_back(seednorm_row("seednorm (no b, gelu)", c));
  norm::adaseednorm::Config a;
  m.push_back({"adaseednorm (tanh)", autodiff::analytic_adaseednorm(a), [=](const M& x) {
                 return verify::Inputs<double>{x, M(gain().array() - 0.3), beta(x, d),
                                               wave(3, d, 0.3, 0.2), wave(3, d, 0.5, 0.9)};
               }});
  // V [5 x 8]: rectangular, scaled so V x is of order one at every scale of x.
  auto V = [](const M& x) {
    return M(wave(5, 8, 1.0, 0.4) / (std::sqrt(x.squaredNorm() / x.size()) * std::sqrt(8.0)));
  };
  m.push_back({"linear (plain, eq. 1)", autodiff::analytic_linear(), [=](const M& x) {
                 return verify::Inputs<double>{x, V(x)};
               }});
  m.push_back(
      {"sdd (paper, no eps)", autodiff::analytic_sdd(sdd::Config::paper()), [=](const M& x) {
         return verify::Inputs<double>{x, V(x), wave(1, 5, 0.5, 0.3)};
       }});
  m.push_back({"sdd (authors' code, eps 1e-6)", autodiff::analytic_sdd(sdd::Config::authors_code()),
               [=](const M& x) {
                 return verify::Inputs<double>{x, V(x), wave(1, 5, 0.5, 0.3)};
               }});
  // Scale-vector strategies (the project's reading of scalevec): W [6 x 8],
  // scale vectors away from 1; DNP with 2 output heads.
  for (auto strategy : scalevec::kStrategies) {
    scalevec::Config sc;
    sc.strategy = strategy;
    sc.heads = strategy == scalevec::Strategy::dnp ? 2 : 1;
    m.push_back({std::string("scalevec ") + scalevec::strategy_name(strategy),
                 autodiff::analytic_scalevec(sc), [=](const M& x) {
                   verify::Inputs<double> in{x, wave(6, 8, 0.3, 0.8)};
                   if (scalevec::uses_g(strategy)) in.push_back(M(gain()));
                   if (scalevec::uses_a(strategy))
                     in.push_back(M(wave(1, 6, 0.4, 1.7).array() + 1.0));
                   if (strategy == scalevec::Strategy::md) {
                     in.push_back(M::Constant(1, 1, 1.3));
                     in.push_back(M(gain()));
                   }
                   return in;
                 }});
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int cases = 8;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cases") && i + 1 < argc)
      cases = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--cases N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  std::printf("Tape primitives vs central finite differences (%d random cases each, seed %llu)\n",
              cases, static_cast<unsigned long long>(seed));
  header("primitive");
  int failed = 0;
  for (const auto& c : autodiff::primitive_catalog()) {
    const auto gen = autodiff::draw_inputs(c);
    Row row;
    for (int k = 0; k < cases; ++k)
      row.add(verify::check(c.problem, gen(rc::Random(seed * 1000003 + k), 50).value()));
    failed += row.print(c.problem.name);
  }
  std::printf(
      "\nMethods, analytic backward vs central finite differences\n"
      "(x [3 x 8] at scales 1e-6, 1, 1e6; parameters away from their initialization)\n");
  header("method");
  for (const auto& m : methods()) {
    Row row;
    for (double scale : {1e-6, 1.0, 1e6})
      row.add(verify::check(m.problem, m.inputs(wave(3, 8, scale, 0.0))));
    failed += row.print(m.name);
  }
  std::printf("%zu primitives and %zu methods, %d failed\n", autodiff::primitive_catalog().size(),
              methods().size(), failed);
  return failed ? 1 : 0;
}
