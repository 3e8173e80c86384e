// A tiny reverse-mode tape over row-major Eigen matrices.
//
// Every operation appends one record (its value, and the rule that sends its
// output gradient to its inputs) to a std::vector, in creation order.
// gradients() seeds the output, then walks the vector once in reverse; every
// rule adds into its inputs' gradients (the first contribution is written,
// not added to zeros, and an identity rule hands its gradient matrix over),
// so a value used twice gets the sum of both contributions. No recursion, no hashing, no re-walking
// of shared paths (the lessons of micrograd and of the C++ autodiff library).
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
// Storage. A tape is meant to be recorded again and again (a test's many
// draws, a benchmark's repetitions): clear() forgets the records but keeps
// their matrices, and every value and gradient is written into a kept matrix
// with the same number of entries when there is one. A tape cleared and
// refilled with the same shapes therefore allocates no matrix storage beyond
// the gradients gradients() hands back (only the little bookkeeping of its
// records), where a fresh tape per recording would ask the kernel for fresh,
// zeroed pages for every one of its matrices. Kept matrices hold the previous
// recording's numbers, not NaN: every op writes all of its output. The kept
// storage is given back when the tape is destroyed, never before.
//
// Threads. Elementwise values and gradients are written row by row on the
// OpenMP threads (rows.hpp), products are linalg.hpp's, and the broadcast
// products' sums over rows take rows.hpp's fixed order; the rest (softmax,
// the mask, slices, full reductions) runs on one thread. A gradient is bitwise
// the same for any number of threads.
//
// Shape errors throw scaleref::Error naming the op and both shapes; a Var
// from another tape, or from before a clear(), is rejected the same way.
// Tape<double> and Tape<Real50> are compiled once, in autodiff/src/tape.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <scaleref/error.hpp>
#include <scaleref/linalg.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

namespace scaleref::autodiff {

template <class S>
class Tape;

// A handle to one record of a tape: cheap to copy, valid while its tape lives
// and until its tape is cleared.
template <class S>
struct Var {
  Tape<S>* tape = nullptr;
  std::size_t id = 0;
  std::uint64_t recording = 0;  // which recording of the tape it belongs to
};

template <class S>
class Tape {
 public:
  using Matrix = Mat<S>;
  using V = Var<S>;

  Tape();
  Tape(const Tape&) = delete;  // Vars point at their tape: it stays where it is
  Tape& operator=(const Tape&) = delete;

  // ---- leaves -------------------------------------------------------------
  V leaf(const Matrix& value);      // a value gradients can be asked for
  V constant(const Matrix& value);  // a value that never receives a gradient

  const Matrix& value(V v) const;
  std::size_t size() const { return records_.size(); }
  const char* op_name(V v) const;

  // Forgets every record (their Vars become invalid) and keeps their matrices
  // for the next recording.
  void clear();

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
    Matrix grad;          // filled during a sweep
    bool needs_grad;      // true when a leaf is upstream
    Rule backward;        // sends grad to the inputs; empty for leaves
    bool wanted = false;  // its gradient is asked for by the sweep under way
  };

  // A [rows, cols] matrix (contents unspecified): a kept one of that size
  // when there is one, else a new one.
  Matrix take(Eigen::Index rows, Eigen::Index cols);
  // Keeps m's storage for a later take(); m is left empty.
  void keep(Matrix& m);
  // Appends a record holding `value` (a matrix from take()).
  V append(const char* op, Matrix&& value, bool needs_grad, Rule rule);
  // Appends a record whose value is `value` evaluated into taken storage.
  template <class E>
  V push(const char* op, const Eigen::MatrixBase<E>& value, bool needs_grad, Rule rule);
  // An elementwise op y = f(x): `dx(x, y, g)` gives (as an Eigen expression)
  // the gradient it sends to x.
  template <class E, class LocalRule>
  V unary(const char* op, V a, const Eigen::MatrixBase<E>& y, LocalRule dx);
  const Record& rec(V v, const char* op) const;
  const Matrix& val(std::size_t id) const { return records_[id].value; }
  const Matrix& grad(std::size_t id) const { return records_[id].grad; }
  bool needs(V v) const { return records_[v.id].needs_grad; }
  // Adds g into record id's gradient; the first contribution is written, not
  // added to zeros. g must not read id's own gradient.
  template <class E>
  void accumulate(std::size_t id, const Eigen::MatrixBase<E>& g);
  // Adds the product a b into record id's gradient, through taken storage.
  template <class A, class B>
  void accumulate_product(std::size_t id, const A& a, const B& b);
  // Adds the sum over rows i < n of f's contributions (f(i, acc) adds row i's
  // [1, width] into acc) into dv, in sum_rows' fixed order (rows.hpp): the
  // same bits for any thread count. fresh: dv holds nothing yet.
  template <class F>
  void add_row_sums(Matrix& dv, bool fresh, Eigen::Index n, F&& f);
  // Sends record s's gradient unchanged to input id (dy/dx = 1). When it is the
  // first to reach id and s's own gradient is not asked for, the matrix is
  // handed over instead of copied; so a rule calls it last.
  void pass_through(std::size_t s, std::size_t id);
  // Record id's gradient to write into, or nullptr if it needs none; `fresh`
  // says nothing reached it yet (its contents are then unspecified: assign,
  // do not add).
  Matrix* grad_slot(std::size_t id, bool& fresh);
  // Record id's gradient, set to zeros if nothing reached it yet: for rules
  // that add into a part of it.
  Matrix& zeroed_grad(std::size_t id);
  void same_shape(const char* op, V a, V b) const;

  std::vector<Record> records_;
  std::uint64_t recording_;  // unique in the process: new at construction and clear()
  std::map<Eigen::Index, std::vector<Matrix>> kept_;  // by number of entries
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
