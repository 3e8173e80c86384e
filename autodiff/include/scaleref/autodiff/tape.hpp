// A tiny reverse-mode tape over row-major Eigen matrices.
//
// Every operation appends one record (its value, and the rule that sends its
// output gradient to its inputs) to a std::vector, in creation order.
// gradients() seeds the output, then walks the vector once in reverse; every
// rule adds into its inputs' gradients with +=, so a value used twice gets the
// sum of both contributions. No recursion, no hashing, no re-walking of shared
// paths (the lessons of micrograd and of the C++ autodiff library).
//
// The tape is an independent formulation of each method: tests rebuild a
// method from these primitives and compare with the hand-derived backward in
// reference/. Each primitive's backward sits next to its forward, and each is
// checked against 50-digit finite differences (tests/autodiff_primitives_test).
//
//   Tape<double> t;
//   Var x = t.leaf(x0), g = t.leaf(gamma0);
//   Var r = t.rsqrt(t.add_constant(t.row_mean(t.square(x)), eps));
//   Var y = t.mul_rowvec(t.mul_colvec(x, r), g);          // RMSNorm
//   auto grads = t.gradients(y, dy, {x, g});               // {dx, dgamma}
//
// Shape errors throw scaleref::Error naming the op and both shapes.
// Tape<double> and Tape<Real50> are compiled once, in autodiff/src/tape.cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <scaleref/error.hpp>
#include <scaleref/linalg.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

namespace scaleref::autodiff {

template <class S>
class Tape;

// A handle to one record of a tape: cheap to copy, valid while its tape lives.
template <class S>
struct Var {
  Tape<S>* tape = nullptr;
  std::size_t id = 0;
};

template <class S>
class Tape {
 public:
  using Matrix = Mat<S>;
  using V = Var<S>;

  // ---- leaves -------------------------------------------------------------
  V leaf(Matrix value);      // a value gradients can be asked for
  V constant(Matrix value);  // a value that never receives a gradient

  const Matrix& value(V v) const;
  std::size_t size() const { return records_.size(); }
  const char* op_name(V v) const;

  // Reverse sweep from `out`, seeded with d(out) = seed (same shape as out).
  // Returns d/d(leaf) for each requested leaf, in order; a leaf `out` does not
  // depend on gets zeros. Every call starts from zero gradients, so calling
  // it twice gives bitwise identical results.
  std::vector<Matrix> gradients(V out, const Matrix& seed, const std::vector<V>& wrt);
  // Same, for a 1 x 1 output seeded with 1.
  std::vector<Matrix> gradients(V out, const std::vector<V>& wrt);

  // ---- elementwise, same shape -----------------------------------------------
  V add(V a, V b);
  V sub(V a, V b);
  V mul(V a, V b);  // Hadamard product
  V div(V a, V b);
  V neg(V a);
  V scale(V a, const S& c);         // c * a, c a constant
  V add_constant(V a, const S& c);  // a + c, c a constant (the epsilon in a norm)
  V square(V a);
  V sqrt(V a);
  V rsqrt(V a);  // 1 / sqrt(a)
  V exp(V a);
  V log(V a);
  V tanh(V a);
  V sigmoid(V a);
  V softsign(V a);  // a / (1 + |a|)
  V hardtanh(V a);  // clamp(a, -1, 1); derivative 1 on (-1, 1), 0 elsewhere (PyTorch)
  V gelu(V a);      // tanh form: a/2 (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3)))
  V silu(V a);      // a * sigmoid(a), also called Swish

  // ---- products and layout -------------------------------------------------------
  V matmul(V a, V b);  // [n,k] x [k,m] -> [n,m]
  V transpose(V a);
  V slice_cols(V a, Eigen::Index start, Eigen::Index count);  // one head's columns
  V concat_cols(const std::vector<V>& parts);                 // heads back together

  // ---- broadcasts ------------------------------------------------------------
  V add_rowvec(V x, V v);  // x [n,d] + v [1,d] on every row
  V mul_rowvec(V x, V v);  // x [n,d] * v [1,d] on every row
  V add_colvec(V x, V c);  // x [n,d] + c [n,1]: one scalar per row
  V mul_colvec(V x, V c);  // x [n,d] * c [n,1]: one scalar per row
  V mul_scalar(V x, V s);  // x [n,d] * s [1,1]: a learned scalar

  // ---- reductions --------------------------------------------------------------
  V row_sum(V a);   // [n,d] -> [n,1]: sum of each row
  V row_mean(V a);  // [n,d] -> [n,1]
  V col_sum(V a);   // [n,d] -> [1,d]: sum over rows
  V col_mean(V a);  // [n,d] -> [1,d]
  V sum(V a);       // [n,d] -> [1,1]
  V mean(V a);      // [n,d] -> [1,1]

  // ---- attention -------------------------------------------------------------
  V row_softmax(V a);  // softmax of each row
  V causal_mask(V a);  // [t,t]: entries above the diagonal become -inf

 private:
  using Rule = std::function<void(Tape&, std::size_t self)>;
  struct Record {
    const char* op;
    Matrix value;
    Matrix grad;      // filled during a sweep
    bool needs_grad;  // true when a leaf is upstream
    Rule backward;    // sends grad to the inputs; empty for leaves
  };

  V push(const char* op, Matrix value, bool needs_grad, Rule rule);
  // An elementwise op y = f(x): `dx(x, y, g)` returns the gradient it sends to x.
  using LocalRule = std::function<Matrix(const Matrix& x, const Matrix& y, const Matrix& g)>;
  V unary(const char* op, V a, Matrix y, LocalRule dx);
  const Record& rec(V v, const char* op) const;
  const Matrix& val(std::size_t id) const { return records_[id].value; }
  const Matrix& grad(std::size_t id) const { return records_[id].grad; }
  bool needs(V v) const { return records_[v.id].needs_grad; }
  void accumulate(std::size_t id, const Matrix& g);
  void same_shape(const char* op, V a, V b) const;

  std::vector<Record> records_;
};

template <class S>
Var<S> operator+(Var<S> a, Var<S> b) {
  return a.tape->add(a, b);
}
template <class S>
Var<S> operator-(Var<S> a, Var<S> b) {
  return a.tape->sub(a, b);
}
template <class S>
Var<S> operator-(Var<S> a) {
  return a.tape->neg(a);
}

}  // namespace scaleref::autodiff
