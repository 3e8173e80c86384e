// One call of the oracle, as `scaleref eval` and Python's `scaleref` module
// make it: arrays of any rank in, the method's outputs out in the shapes the
// caller gave, and the judgement of a kernel's outputs against them.
//
// Shapes. A batch input ([N, D] in the spec: x, AdaSeeDNorm's conditions, dy)
// may have any number of leading dimensions, (..., D): N is their product and
// every batch input shares them; y comes back as (..., d_out). A parameter row
// ([1, D]) is (D,) or (1, D), a scalar ([1, 1]) also (); a matrix (V, W) is 2-D.
// Each gradient d<name> has the shape its input was given in.
//
// Defaults. A parameter left out takes its paper's initial value (spec::Tensor's
// `initial`: gamma = 1, beta = 0, alpha = alpha_init, scale vectors = 1, SDD's
// alpha = 1); its gradient comes back 1-D. A setting the caller set and the
// run did not read (alpha_init next to a given alpha, heads for a strategy
// other than DNP, an initializer's sigma for a method without one) is an error.
//
// Every input must be non-empty and finite, dy included; the message names the
// input (and its file), the first bad entry's index in the caller's shape and
// its value.
#pragma once

#include <map>
#include <scaleref/oracle/tolerance.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

#include "registry.hpp"

namespace scaleref::cli {

// An array as a caller holds it: its shape (any rank) and its values as a
// [rows, cols] matrix in row-major order, rows the product of all but the last
// dimension and cols the last (a 0-D array: 1 x 1).
struct Array {
  std::vector<long> shape;
  Mat<double> values;
  std::string source;  // where it came from, for messages ("d/x.npy"), or ""
};

// The [rows, cols] a shape is held as (above); an error for a negative size.
std::pair<long, long> matrix_shape(const std::vector<long>& shape);
std::string shape_tuple(const std::vector<long>& shape);  // "(2, 3)", "(4,)", "()"
// Entry `flat` (row-major) of an array of this shape, as an index "(1, 0, 2)".
std::vector<long> unravel(long flat, const std::vector<long>& shape);

enum class Precision { fp64, real50 };

// The double evaluation's distance from the 50-digit one, per output:
// max |double - 50-digit| and that over max |50-digit| (normwise).
struct Measured {
  double max_abs = 0, max_rel = 0;
};

struct Evaluation {
  std::map<std::string, Array> outputs;
  std::map<std::string, Measured> double_error;  // Precision::real50 only
  Dims dims;                                     // the sizes the inputs bound
};

// Runs `m` on `in` (moved in: a run copies nothing it is given; "dy" for a
// layer's backward). real50: the outputs are the 50-digit results rounded to
// double, and double_error measures the double evaluation against them.
// `spent`, when given, receives the inputs' storage after the run (the oracle
// keeps none of it), for a caller that converts its next call's inputs into
// storage already touched (the Python module).
Evaluation evaluate(const Method& m, const Settings& s, std::map<std::string, Array> in,
                    Precision p = Precision::fp64, Named<double>* spent = nullptr);

// A kernel's output judged against the oracle's (scaleref/oracle/tolerance.hpp
// with the method's rule; atol = rtol x the largest |oracle| entry of the
// output, element-wise outputs included).
struct OutputCheck {
  std::string name;
  std::vector<long> shape;
  oracle::Rule rule;
  oracle::Tolerance tol;
  oracle::Comparison cmp;
  std::vector<long> worst_index;  // cmp.worst in `shape`
};

// One check per entry of `actual`, in name order. An output the method does
// not have, or a shape that differs from the oracle's, is an error.
std::vector<OutputCheck> check_outputs(const Method& m, const Settings& s, const Evaluation& ref,
                                       const std::map<std::string, Array>& actual,
                                       oracle::Storage storage);

}  // namespace scaleref::cli
