// Every tape primitive as a gradient-check problem, with where its inputs live.
//
// Shared by the primitive property tests (tests/autodiff_primitives_test.cpp)
// and the self-report (scaleref_selfcheck), so both check the same thing.
// Shapes are written with three extents: n (rows), d (columns), k (an inner
// or second width); each case draws them small (n <= 6, d <= 7, k <= 5).
#pragma once

#include <rapidcheck.h>

#include <scaleref/verify/generators.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>
#include <vector>

namespace scaleref::autodiff {

enum class Extent { n, d, k, one };

struct InputSpec {
  Extent rows, cols;
  verify::gen::Domain domain;
};

struct PrimitiveCase {
  verify::Problem problem;  // name "tape.<op>"; forward and backward from the tape
  std::vector<InputSpec> inputs;
};

// One case per primitive, in the order tape.hpp declares them.
const std::vector<PrimitiveCase>& primitive_catalog();

// Draws extents, then every input of `c` from its domain.
rc::Gen<verify::Inputs<double>> draw_inputs(const PrimitiveCase& c);

}  // namespace scaleref::autodiff
