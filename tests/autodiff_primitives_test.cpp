// Every tape primitive, as a property: its reverse-mode gradient matches
// central finite differences in 50 digits (to 1e-20) and in double, its
// transposition identity holds, and its Taylor remainder falls as h^2, over
// random shapes (1 and odd sizes included) and magnitudes over many decades.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <scaleref/autodiff/catalog.hpp>

namespace {

using scaleref::autodiff::draw_inputs;
using scaleref::autodiff::primitive_catalog;
using scaleref::verify::Inputs;

class Primitive : public ::testing::TestWithParam<std::size_t> {};

// A fixed draw of inputs for the deterministic properties below.
Inputs<double> sample(std::size_t i, std::uint64_t seed) {
  return draw_inputs(primitive_catalog()[i])(rc::Random(seed), 50).value();
}

TEST_P(Primitive, GradientMatchesFiniteDifferences) {
  const auto& c = primitive_catalog()[GetParam()];
  const bool ok = rc::check(c.problem.name + ": gradient matches finite differences", [&c] {
    const Inputs<double> x = *draw_inputs(c);
    RC_CLASSIFY(x[0].rows() == 1, "one row");
    RC_CLASSIFY(x[0].cols() == 1, "one column");
    for (std::size_t p = 0; p < x.size(); ++p)
      RC_LOG() << c.problem.input_names[p] << " = " << scaleref::verify::matrix_text(x[p]);
    const auto report = scaleref::verify::check(c.problem, x);
    RC_LOG() << report.str();
    RC_ASSERT(report.ok());
  });
  EXPECT_TRUE(ok) << c.problem.name << ": see the rapidcheck report above";
}

TEST_P(Primitive, ZeroOutputGradientGivesZeroGradients) {
  const auto& c = primitive_catalog()[GetParam()];
  const Inputs<double> x = sample(GetParam(), 7);
  const auto y = c.problem.f64.forward(x);
  for (const auto& g : c.problem.f64.backward(x, scaleref::Mat<double>::Zero(y.rows(), y.cols())))
    EXPECT_TRUE((g.array() == 0).all()) << c.problem.name;
}

TEST_P(Primitive, BackwardTwiceIsBitwiseEqual) {
  const auto& c = primitive_catalog()[GetParam()];
  const Inputs<double> x = sample(GetParam(), 11);
  const auto y = c.problem.f64.forward(x);
  const scaleref::Mat<double> dy = scaleref::Mat<double>::Random(y.rows(), y.cols());
  const auto g1 = c.problem.f64.backward(x, dy);
  const auto g2 = c.problem.f64.backward(x, dy);
  ASSERT_EQ(g1.size(), g2.size());
  for (std::size_t p = 0; p < g1.size(); ++p)
    EXPECT_EQ(0, std::memcmp(g1[p].data(), g2[p].data(), sizeof(double) * g1[p].size()))
        << c.problem.name << " input " << p;
}

INSTANTIATE_TEST_SUITE_P(Tape, Primitive,
                         ::testing::Range<std::size_t>(0, primitive_catalog().size()),
                         [](const auto& info) {
                           std::string n = primitive_catalog()[info.param].problem.name.substr(5);
                           return n;  // "tape.row_sum" -> "row_sum"
                         });

}  // namespace
