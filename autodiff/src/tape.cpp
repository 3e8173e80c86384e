// The tape's primitives: each forward, then the rule that sends its output
// gradient g back to its inputs. Notation: x, a, b inputs; y the output; g = dL/dy.
#include <algorithm>
#include <atomic>
#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <limits>
#include <scaleref/autodiff/tape.hpp>

namespace scaleref::autodiff {

namespace {

// Elementwise f over a matrix, as a lazy expression, with f found by
// argument-dependent lookup so the same code serves double (std::) and
// Real50 (boost::multiprecision::).
template <class S, class F>
auto map(const Mat<S>& m, F f) {
  return m.unaryExpr([f](const S& v) { return S(f(v)); });
}

// A number no recording of any tape of this process has had: a Var of a
// destroyed tape is not taken for one of a new tape built at its address.
std::uint64_t new_recording() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

template <class S>
S sigmoid_of(const S& v) {
  using std::exp;
  return S(1) / (S(1) + exp(-v));
}

}  // namespace

// ---- storage and bookkeeping -----------------------------------------------------

template <class S>
Tape<S>::Tape() : recording_(new_recording()) {}

template <class S>
Mat<S> Tape<S>::take(Eigen::Index rows, Eigen::Index cols) {
  const auto it = kept_.find(rows * cols);
  if (it == kept_.end() || it->second.empty()) return Matrix(rows, cols);
  Matrix m = std::move(it->second.back());
  it->second.pop_back();
  m.resize(rows, cols);  // the same number of entries: no allocation
  return m;
}

template <class S>
void Tape<S>::keep(Matrix& m) {
  if (m.size() > 0) kept_[m.size()].push_back(std::move(m));
  m.resize(0, 0);  // a moved-from Eigen matrix is already empty; said here for the reader
}

template <class S>
void Tape<S>::clear() {
  for (Record& r : records_) {
    keep(r.value);
    keep(r.grad);
  }
  records_.clear();
  recording_ = new_recording();
}

template <class S>
Var<S> Tape<S>::append(const char* op, Matrix&& value, bool needs_grad, Rule rule) {
  records_.push_back(Record{op, std::move(value), Matrix(), needs_grad, std::move(rule)});
  return V{this, records_.size() - 1, recording_};
}

template <class S>
template <class E>
Var<S> Tape<S>::push(const char* op, const Eigen::MatrixBase<E>& value, bool needs_grad,
                     Rule rule) {
  Matrix y = take(value.rows(), value.cols());
  // Row by row on the threads (rows.hpp), and before the append: `value` may
  // read records_, which can move.
  for_each_row(y.rows(), y.cols(), [&](Eigen::Index i) { y.row(i) = value.row(i); });
  return append(op, std::move(y), needs_grad, std::move(rule));
}

template <class S>
Var<S> Tape<S>::leaf(const Matrix& value) {
  require(value.size() > 0, "tape::leaf", "expected a non-empty matrix, got ", shape_str(value));
  return push("leaf", value, true, nullptr);
}

template <class S>
Var<S> Tape<S>::constant(const Matrix& value) {
  require(value.size() > 0, "tape::constant", "expected a non-empty matrix, got ",
          shape_str(value));
  return push("constant", value, false, nullptr);
}

template <class S>
const typename Tape<S>::Record& Tape<S>::rec(V v, const char* op) const {
  require(v.tape == this, op, "a Var from another tape (or a default-constructed one) was passed");
  require(v.recording == recording_, op,
          "a Var recorded before the tape's last clear() was passed");
  require(v.id < records_.size(), op, "a Var whose record does not exist was passed");
  return records_[v.id];
}

template <class S>
const Mat<S>& Tape<S>::value(V v) const {
  return rec(v, "tape::value").value;
}

template <class S>
const char* Tape<S>::op_name(V v) const {
  return rec(v, "tape::op_name").op;
}

template <class S>
void Tape<S>::same_shape(const char* op, V a, V b) const {
  const Matrix& x = rec(a, op).value;
  const Matrix& y = rec(b, op).value;
  require(x.rows() == y.rows() && x.cols() == y.cols(), op, "expected equal shapes, got ",
          shape_str(x), " and ", shape_str(y));
}

template <class S>
template <class E>
void Tape<S>::accumulate(std::size_t id, const Eigen::MatrixBase<E>& g) {
  Record& r = records_[id];
  if (!r.needs_grad) return;
  Matrix& d = r.grad;
  if (d.size() == 0) {
    d = take(r.value.rows(), r.value.cols());
    for_each_row(d.rows(), d.cols(), [&](Eigen::Index i) { d.row(i) = g.row(i); });
  } else {
    for_each_row(d.rows(), d.cols(), [&](Eigen::Index i) { d.row(i) += g.row(i); });
  }
}

template <class S>
template <class F>
void Tape<S>::add_row_sums(Matrix& dv, bool fresh, Eigen::Index n, F&& f) {
  if (fresh) {
    sum_rows<S>(n, dv.cols(), f, dv);
    return;
  }
  Matrix part = take(1, dv.cols());
  sum_rows<S>(n, dv.cols(), f, part);
  dv += part;
  keep(part);
}

template <class S>
template <class A, class B>
void Tape<S>::accumulate_product(std::size_t id, const A& a, const B& b) {
  Record& r = records_[id];
  if (!r.needs_grad) return;
  if (r.grad.size() == 0) {
    r.grad = take(a.rows(), b.cols());
    scaleref::matmul(a, b, r.grad);
  } else {
    Matrix p = take(a.rows(), b.cols());
    scaleref::matmul(a, b, p);
    r.grad += p;
    keep(p);
  }
}

template <class S>
void Tape<S>::pass_through(std::size_t s, std::size_t id) {
  Record& in = records_[id];
  Record& out = records_[s];
  if (!in.needs_grad) return;
  if (in.grad.size() == 0 && !out.wanted)
    in.grad.swap(out.grad);  // handed over: s's rule has run, nothing reads its gradient again
  else
    accumulate(id, out.grad);
}

template <class S>
Mat<S>* Tape<S>::grad_slot(std::size_t id, bool& fresh) {
  Record& r = records_[id];
  if (!r.needs_grad) return nullptr;
  fresh = r.grad.size() == 0;
  if (fresh) r.grad = take(r.value.rows(), r.value.cols());
  return &r.grad;
}

template <class S>
Mat<S>& Tape<S>::zeroed_grad(std::size_t id) {
  Record& r = records_[id];
  if (r.grad.size() == 0) {
    r.grad = take(r.value.rows(), r.value.cols());
    r.grad.setZero();
  }
  return r.grad;
}

template <class S>
std::vector<Mat<S>> Tape<S>::gradients(V out, const Matrix& seed, const std::vector<V>& wrt) {
  const Matrix& y = rec(out, "tape::gradients").value;
  require(seed.rows() == y.rows() && seed.cols() == y.cols(), "tape::gradients",
          "expected a seed shaped like the output ", shape_str(y), ", got ", shape_str(seed));
  for (const V& w : wrt) rec(w, "tape::gradients");
  for (Record& r : records_) {
    keep(r.grad);  // empty: not reached yet
    r.wanted = false;
  }
  for (const V& w : wrt) records_[w.id].wanted = true;
  Record& o = records_[out.id];
  o.grad = take(seed.rows(), seed.cols());
  o.grad = seed;
  for (std::size_t i = out.id + 1; i-- > 0;) {
    Record& r = records_[i];
    if (r.backward && r.needs_grad && r.grad.size() > 0) r.backward(*this, i);
  }
  std::vector<Matrix> result;
  result.reserve(wrt.size());
  for (const V& w : wrt) {
    const Record& r = records_[w.id];
    if (r.grad.size() > 0)
      result.push_back(r.grad);
    else
      result.push_back(Matrix::Zero(r.value.rows(), r.value.cols()));
  }
  return result;
}

template <class S>
std::vector<Mat<S>> Tape<S>::gradients(V out, const std::vector<V>& wrt) {
  const Matrix& y = rec(out, "tape::gradients").value;
  require(y.size() == 1, "tape::gradients", "expected a 1x1 output when no seed is given, got ",
          shape_str(y));
  return gradients(out, Matrix::Ones(1, 1), wrt);
}

template <class S>
template <class E, class LocalRule>
Var<S> Tape<S>::unary(const char* op, V a, const Eigen::MatrixBase<E>& y, LocalRule dx) {
  const std::size_t ia = a.id;
  return push(op, y, records_[ia].needs_grad, [ia, dx](Tape& t, std::size_t self) {
    t.accumulate(ia, dx(t.val(ia), t.val(self), t.grad(self)));
  });
}

// ---- elementwise, same shape ---------------------------------------------------------

template <class S>
Var<S> Tape<S>::add(V a, V b) {
  same_shape("tape::add", a, b);
  const std::size_t ia = a.id, ib = b.id;
  return push("add", val(ia) + val(ib), needs(a) || needs(b), [ia, ib](Tape& t, std::size_t s) {
    t.accumulate(ib, t.grad(s));  // dy/db = 1
    t.pass_through(s, ia);        // dy/da = 1 (last: it may hand g over)
  });
}

template <class S>
Var<S> Tape<S>::sub(V a, V b) {
  same_shape("tape::sub", a, b);
  const std::size_t ia = a.id, ib = b.id;
  return push("sub", val(ia) - val(ib), needs(a) || needs(b), [ia, ib](Tape& t, std::size_t s) {
    t.accumulate(ib, -t.grad(s));  // dy/db = -1
    t.pass_through(s, ia);         // dy/da = 1 (last: it may hand g over)
  });
}

template <class S>
Var<S> Tape<S>::mul(V a, V b) {
  same_shape("tape::mul", a, b);
  const std::size_t ia = a.id, ib = b.id;
  return push("mul", val(ia).cwiseProduct(val(ib)), needs(a) || needs(b),
              [ia, ib](Tape& t, std::size_t s) {
                t.accumulate(ia, t.grad(s).cwiseProduct(t.val(ib)));  // dy/da = b
                t.accumulate(ib, t.grad(s).cwiseProduct(t.val(ia)));  // dy/db = a
              });
}

template <class S>
Var<S> Tape<S>::div(V a, V b) {
  same_shape("tape::div", a, b);
  const std::size_t ia = a.id, ib = b.id;
  return push("div", val(ia).cwiseQuotient(val(ib)), needs(a) || needs(b),
              [ia, ib](Tape& t, std::size_t s) {
                const auto ga = t.grad(s).cwiseQuotient(t.val(ib));  // dy/da = 1/b
                t.accumulate(ia, ga);
                t.accumulate(ib, -ga.cwiseProduct(t.val(s)));  // dy/db = -a/b^2 = -y/b
              });
}

template <class S>
Var<S> Tape<S>::neg(V a) {
  return unary("neg", a, -rec(a, "tape::neg").value,
               [](const Matrix&, const Matrix&, const Matrix& g) { return -g; });
}

template <class S>
Var<S> Tape<S>::scale(V a, const S& c) {
  return unary("scale", a, c * rec(a, "tape::scale").value,
               [c](const Matrix&, const Matrix&, const Matrix& g) { return c * g; });
}

template <class S>
Var<S> Tape<S>::add_constant(V a, const S& c) {
  const Matrix& x = rec(a, "tape::add_constant").value;  // checked before needs(a) reads it
  const std::size_t ia = a.id;
  return push("add_constant", (x.array() + c).matrix(), needs(a),
              [ia](Tape& t, std::size_t s) { t.pass_through(s, ia); });
}

template <class S>
Var<S> Tape<S>::square(V a) {
  const Matrix& x = rec(a, "tape::square").value;
  return unary("square", a, x.cwiseProduct(x), [](const Matrix& x, const Matrix&, const Matrix& g) {
    return S(2) * g.cwiseProduct(x);  // d(x^2) = 2x
  });
}

template <class S>
Var<S> Tape<S>::sqrt(V a) {
  using std::sqrt;
  const Matrix& x = rec(a, "tape::sqrt").value;
  return unary("sqrt", a, map(x, [](const S& v) { return sqrt(v); }),
               [](const Matrix&, const Matrix& y, const Matrix& g) {
                 return g.cwiseQuotient(S(2) * y);  // d sqrt(x) = 1 / (2 sqrt(x))
               });
}

template <class S>
Var<S> Tape<S>::rsqrt(V a) {
  using std::sqrt;
  const Matrix& x = rec(a, "tape::rsqrt").value;
  return unary("rsqrt", a, map(x, [](const S& v) { return S(1) / sqrt(v); }),
               [](const Matrix&, const Matrix& y, const Matrix& g) {
                 // d x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2
                 return S(-0.5) * g.cwiseProduct(y.cwiseProduct(y).cwiseProduct(y));
               });
}

template <class S>
Var<S> Tape<S>::exp(V a) {
  using std::exp;
  const Matrix& x = rec(a, "tape::exp").value;
  return unary("exp", a, map(x, [](const S& v) { return exp(v); }),
               [](const Matrix&, const Matrix& y, const Matrix& g) {
                 return g.cwiseProduct(y);  // d e^x = e^x
               });
}

template <class S>
Var<S> Tape<S>::log(V a) {
  using std::log;
  const Matrix& x = rec(a, "tape::log").value;
  return unary("log", a, map(x, [](const S& v) { return log(v); }),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 return g.cwiseQuotient(x);  // d log x = 1/x
               });
}

template <class S>
Var<S> Tape<S>::tanh(V a) {
  using std::tanh;
  const Matrix& x = rec(a, "tape::tanh").value;
  return unary("tanh", a, map(x, [](const S& v) { return tanh(v); }),
               [](const Matrix&, const Matrix& y, const Matrix& g) {
                 // d tanh x = 1 - tanh^2 x
                 return (g.array() * (S(1) - y.array().square())).matrix();
               });
}

template <class S>
Var<S> Tape<S>::sigmoid(V a) {
  const Matrix& x = rec(a, "tape::sigmoid").value;
  return unary("sigmoid", a, map(x, [](const S& v) { return sigmoid_of(v); }),
               [](const Matrix&, const Matrix& y, const Matrix& g) {
                 // d sigma(x) = sigma(x) (1 - sigma(x))
                 return (g.array() * y.array() * (S(1) - y.array())).matrix();
               });
}

template <class S>
Var<S> Tape<S>::softsign(V a) {
  using std::abs;
  const Matrix& x = rec(a, "tape::softsign").value;
  return unary("softsign", a, map(x, [](const S& v) { return v / (S(1) + abs(v)); }),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 // d x/(1+|x|) = 1 / (1+|x|)^2
                 return (g.array() / (S(1) + x.array().abs()).square()).matrix();
               });
}

template <class S>
Var<S> Tape<S>::hardtanh(V a) {
  const Matrix& x = rec(a, "tape::hardtanh").value;
  return unary("hardtanh", a,
               map(x, [](const S& v) { return v < S(-1) ? S(-1) : (v > S(1) ? S(1) : v); }),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 // 1 strictly inside (-1, 1), 0 at and beyond the edges (PyTorch's convention)
                 return x.binaryExpr(
                     g, [](const S& v, const S& gv) { return v > S(-1) && v < S(1) ? gv : S(0); });
               });
}

template <class S>
Var<S> Tape<S>::gelu(V a) {
  using std::sqrt;
  using std::tanh;
  const S c = sqrt(S(2) / boost::math::constants::pi<S>());
  const S k = from_decimal<S>("0.044715");
  const Matrix& x = rec(a, "tape::gelu").value;
  const auto y =
      map(x, [c, k](const S& v) { return S(0.5) * v * (S(1) + tanh(c * (v + k * v * v * v))); });
  return unary("gelu", a, y, [c, k](const Matrix& x, const Matrix&, const Matrix& g) {
    // y = x/2 (1 + t), t = tanh(u), u = c (x + k x^3):
    // dy/dx = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 k x^2)
    return x.binaryExpr(g, [c, k](const S& v, const S& gv) {
      const S t = tanh(c * (v + k * v * v * v));
      return S(gv *
               (S(0.5) * (S(1) + t) + S(0.5) * v * (S(1) - t * t) * c * (S(1) + S(3) * k * v * v)));
    });
  });
}

template <class S>
Var<S> Tape<S>::silu(V a) {
  const Matrix& x = rec(a, "tape::silu").value;
  return unary("silu", a, map(x, [](const S& v) { return v * sigmoid_of(v); }),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 // d x sigma(x) = sigma + x sigma (1 - sigma)
                 return x.binaryExpr(g, [](const S& v, const S& gv) {
                   const S sg = sigmoid_of(v);
                   return S(gv * (sg + v * sg * (S(1) - sg)));
                 });
               });
}

// ---- products and layout -------------------------------------------------------------

template <class S>
Var<S> Tape<S>::matmul(V a, V b) {
  const Matrix& x = rec(a, "tape::matmul").value;
  const Matrix& w = rec(b, "tape::matmul").value;
  require(x.cols() == w.rows(), "tape::matmul", "expected a.cols() == b.rows(), got a ",
          shape_str(x), " and b ", shape_str(w));
  const std::size_t ia = a.id, ib = b.id;
  Matrix y = take(x.rows(), w.cols());
  scaleref::matmul(x, w, y);
  return append("matmul", std::move(y), needs(a) || needs(b), [ia, ib](Tape& t, std::size_t s) {
    const Matrix& g = t.grad(s);
    t.accumulate_product(ia, g, t.val(ib).transpose());  // dA = G B^T
    t.accumulate_product(ib, t.val(ia).transpose(), g);  // dB = A^T G
  });
}

template <class S>
Var<S> Tape<S>::transpose(V a) {
  return unary("transpose", a, rec(a, "tape::transpose").value.transpose(),
               [](const Matrix&, const Matrix&, const Matrix& g) { return g.transpose(); });
}

template <class S>
Var<S> Tape<S>::slice_cols(V a, Eigen::Index start, Eigen::Index count) {
  const Matrix& x = rec(a, "tape::slice_cols").value;
  require(start >= 0 && count > 0 && start + count <= x.cols(), "tape::slice_cols",
          "expected 0 <= start, 0 < count, start + count <= cols, got start ", start, ", count ",
          count, " of ", shape_str(x));
  const std::size_t ia = a.id;
  return push("slice_cols", x.middleCols(start, count), needs(a),
              [ia, start, count](Tape& t, std::size_t s) {
                t.zeroed_grad(ia).middleCols(start, count) += t.grad(s);  // the rest gets 0
              });
}

template <class S>
Var<S> Tape<S>::concat_cols(const std::vector<V>& parts) {
  require(!parts.empty(), "tape::concat_cols", "expected at least one part, got none");
  const Eigen::Index rows = rec(parts[0], "tape::concat_cols").value.rows();
  Eigen::Index cols = 0;
  bool needs_any = false;
  for (const V& p : parts) {
    const Matrix& x = rec(p, "tape::concat_cols").value;
    require(x.rows() == rows, "tape::concat_cols", "expected equal row counts, got ",
            shape_str(rec(parts[0], "tape::concat_cols").value), " and ", shape_str(x));
    cols += x.cols();
    needs_any = needs_any || needs(p);
  }
  Matrix y = take(rows, cols);
  std::vector<std::size_t> ids;
  Eigen::Index at = 0;
  for (const V& p : parts) {
    y.middleCols(at, val(p.id).cols()) = val(p.id);
    at += val(p.id).cols();
    ids.push_back(p.id);
  }
  return append("concat_cols", std::move(y), needs_any, [ids](Tape& t, std::size_t s) {
    Eigen::Index at = 0;
    for (std::size_t id : ids) {  // each part gets its own block of columns back
      const Eigen::Index c = t.val(id).cols();
      t.accumulate(id, t.grad(s).middleCols(at, c));
      at += c;
    }
  });
}

// ---- broadcasts ------------------------------------------------------------------

template <class S>
Var<S> Tape<S>::add_rowvec(V x, V v) {
  const Matrix& m = rec(x, "tape::add_rowvec").value;
  const Matrix& r = rec(v, "tape::add_rowvec").value;
  require(r.rows() == 1 && r.cols() == m.cols(), "tape::add_rowvec", "expected v [1x", m.cols(),
          "] for x ", shape_str(m), ", got v ", shape_str(r));
  const std::size_t ix = x.id, iv = v.id;
  return push(
      "add_rowvec", m.rowwise() + r.row(0), needs(x) || needs(v), [ix, iv](Tape& t, std::size_t s) {
        const Matrix& g = t.grad(s);
        bool fresh = false;
        if (Matrix* dv = t.grad_slot(iv, fresh))  // v is added to every row
          t.add_row_sums(*dv, fresh, g.rows(), [&](Eigen::Index i, auto& acc) { acc += g.row(i); });
        t.pass_through(s, ix);
      });
}

template <class S>
Var<S> Tape<S>::mul_rowvec(V x, V v) {
  const Matrix& m = rec(x, "tape::mul_rowvec").value;
  const Matrix& r = rec(v, "tape::mul_rowvec").value;
  require(r.rows() == 1 && r.cols() == m.cols(), "tape::mul_rowvec", "expected v [1x", m.cols(),
          "] for x ", shape_str(m), ", got v ", shape_str(r));
  const std::size_t ix = x.id, iv = v.id;
  return push("mul_rowvec", (m.array().rowwise() * r.array().row(0)).matrix(), needs(x) || needs(v),
              [ix, iv](Tape& t, std::size_t s) {
                // dx_i = g_i (.) v, dv = sum_i g_i (.) x_i: one pass over the rows of g
                const Matrix& g = t.grad(s);
                const Matrix &xv = t.val(ix), &vv = t.val(iv);
                bool dx_fresh = false, dv_fresh = false;
                Matrix* dx = t.grad_slot(ix, dx_fresh);
                Matrix* dv = t.grad_slot(iv, dv_fresh);
                auto dx_row = [&](Eigen::Index i) {
                  if (dx && dx_fresh)
                    dx->row(i) = g.row(i).cwiseProduct(vv);
                  else if (dx)
                    dx->row(i) += g.row(i).cwiseProduct(vv);
                };
                if (!dv) {
                  for_each_row(g.rows(), g.cols(), dx_row);
                  return;
                }
                t.add_row_sums(*dv, dv_fresh, g.rows(), [&](Eigen::Index i, auto& acc) {
                  dx_row(i);  // row i's own entries: safe on any thread
                  acc += g.row(i).cwiseProduct(xv.row(i));
                });
              });
}

template <class S>
Var<S> Tape<S>::add_colvec(V x, V c) {
  const Matrix& m = rec(x, "tape::add_colvec").value;
  const Matrix& r = rec(c, "tape::add_colvec").value;
  require(r.cols() == 1 && r.rows() == m.rows(), "tape::add_colvec", "expected c [", m.rows(),
          "x1] for x ", shape_str(m), ", got c ", shape_str(r));
  const std::size_t ix = x.id, ic = c.id;
  return push("add_colvec", m.colwise() + r.col(0), needs(x) || needs(c),
              [ix, ic](Tape& t, std::size_t s) {
                t.accumulate(ic, t.grad(s).rowwise().sum());  // c_i is added to all of row i
                t.pass_through(s, ix);
              });
}

template <class S>
Var<S> Tape<S>::mul_colvec(V x, V c) {
  const Matrix& m = rec(x, "tape::mul_colvec").value;
  const Matrix& r = rec(c, "tape::mul_colvec").value;
  require(r.cols() == 1 && r.rows() == m.rows(), "tape::mul_colvec", "expected c [", m.rows(),
          "x1] for x ", shape_str(m), ", got c ", shape_str(r));
  const std::size_t ix = x.id, ic = c.id;
  return push("mul_colvec", (m.array().colwise() * r.array().col(0)).matrix(), needs(x) || needs(c),
              [ix, ic](Tape& t, std::size_t s) {
                // dx_i = c_i g_i, dc_i = <g_i, x_i>: one pass over the rows of g
                const Matrix& g = t.grad(s);
                const Matrix &xv = t.val(ix), &cv = t.val(ic);
                bool dx_fresh = false, dc_fresh = false;
                Matrix* dx = t.grad_slot(ix, dx_fresh);
                Matrix* dc = t.grad_slot(ic, dc_fresh);
                for_each_row(g.rows(), g.cols(), [&](Eigen::Index i) {
                  if (dx && dx_fresh)
                    dx->row(i) = cv(i, 0) * g.row(i);
                  else if (dx)
                    dx->row(i) += cv(i, 0) * g.row(i);
                  if (dc) {
                    const S dot = g.row(i).dot(xv.row(i));
                    (*dc)(i, 0) = dc_fresh ? dot : S((*dc)(i, 0) + dot);
                  }
                });
              });
}

template <class S>
Var<S> Tape<S>::mul_scalar(V x, V s) {
  const Matrix& m = rec(x, "tape::mul_scalar").value;
  const Matrix& a = rec(s, "tape::mul_scalar").value;
  require(a.size() == 1, "tape::mul_scalar", "expected s [1x1], got s ", shape_str(a), " for x ",
          shape_str(m));
  const std::size_t ix = x.id, is = s.id;
  return push("mul_scalar", a(0, 0) * m, needs(x) || needs(s), [ix, is](Tape& t, std::size_t o) {
    const Matrix& g = t.grad(o);
    t.accumulate(ix, t.val(is)(0, 0) * g);
    t.accumulate(is, Matrix::Constant(1, 1, g.cwiseProduct(t.val(ix)).sum()));
  });
}

// ---- reductions ------------------------------------------------------------------

template <class S>
Var<S> Tape<S>::row_sum(V a) {
  const Matrix& x = rec(a, "tape::row_sum").value;
  return unary("row_sum", a, x.rowwise().sum(),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 return g.col(0).replicate(1, x.cols());  // every entry of row i gets g_i
               });
}

template <class S>
Var<S> Tape<S>::row_mean(V a) {
  const Matrix& x = rec(a, "tape::row_mean").value;
  const S inv = S(1) / S(static_cast<long>(x.cols()));
  return unary("row_mean", a, x.rowwise().sum() * inv,
               [inv](const Matrix& x, const Matrix&, const Matrix& g) {
                 return inv * g.col(0).replicate(1, x.cols());
               });
}

template <class S>
Var<S> Tape<S>::col_sum(V a) {
  const Matrix& x = rec(a, "tape::col_sum").value;
  return unary("col_sum", a, x.colwise().sum(),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 return g.row(0).replicate(x.rows(), 1);  // every entry of column j gets g_j
               });
}

template <class S>
Var<S> Tape<S>::col_mean(V a) {
  const Matrix& x = rec(a, "tape::col_mean").value;
  const S inv = S(1) / S(static_cast<long>(x.rows()));
  return unary("col_mean", a, x.colwise().sum() * inv,
               [inv](const Matrix& x, const Matrix&, const Matrix& g) {
                 return inv * g.row(0).replicate(x.rows(), 1);
               });
}

template <class S>
Var<S> Tape<S>::sum(V a) {
  const Matrix& x = rec(a, "tape::sum").value;
  return unary("sum", a, Matrix::Constant(1, 1, x.sum()),
               [](const Matrix& x, const Matrix&, const Matrix& g) {
                 return Matrix::Constant(x.rows(), x.cols(), g(0, 0));
               });
}

template <class S>
Var<S> Tape<S>::mean(V a) {
  const Matrix& x = rec(a, "tape::mean").value;
  const S inv = S(1) / S(static_cast<long>(x.size()));
  return unary("mean", a, Matrix::Constant(1, 1, x.sum() * inv),
               [inv](const Matrix& x, const Matrix&, const Matrix& g) {
                 return Matrix::Constant(x.rows(), x.cols(), inv * g(0, 0));
               });
}

// ---- attention -------------------------------------------------------------------

template <class S>
Var<S> Tape<S>::row_softmax(V a) {
  using std::exp;
  const Matrix& x = rec(a, "tape::row_softmax").value;
  Matrix y = take(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const S top = x.row(i).maxCoeff();  // subtracting the row max changes nothing but overflow
    for (Eigen::Index j = 0; j < x.cols(); ++j) y(i, j) = exp(x(i, j) - top);
    y.row(i) /= y.row(i).sum();
  }
  const std::size_t ia = a.id;
  return append("row_softmax", std::move(y), needs(a), [ia](Tape& t, std::size_t s) {
    // dx_i = y_i * (g_i - <g_i, y_i>) for each row i
    const Matrix& y = t.val(s);
    const Matrix& g = t.grad(s);
    Matrix inner = t.take(y.rows(), 1);
    inner = g.cwiseProduct(y).rowwise().sum();
    t.accumulate(ia, (y.array() * (g.colwise() - inner.col(0)).array()).matrix());
    t.keep(inner);
  });
}

template <class S>
Var<S> Tape<S>::causal_mask(V a) {
  const Matrix& x = rec(a, "tape::causal_mask").value;
  require(x.rows() == x.cols(), "tape::causal_mask", "expected square scores [t x t], got ",
          shape_str(x));
  Matrix y = take(x.rows(), x.cols());
  y = x;
  for (Eigen::Index i = 0; i < y.rows(); ++i)
    for (Eigen::Index j = i + 1; j < y.cols(); ++j) y(i, j) = -std::numeric_limits<S>::infinity();
  const std::size_t ia = a.id;
  return append("causal_mask", std::move(y), needs(a), [ia](Tape& t, std::size_t s) {
    // masked entries (above the diagonal) are constants: no gradient flows through them
    Matrix& d = t.zeroed_grad(ia);
    const Matrix& g = t.grad(s);
    for (Eigen::Index i = 0; i < d.rows(); ++i) d.row(i).head(i + 1) += g.row(i).head(i + 1);
  });
}

template class Tape<double>;
template class Tape<Real50>;

}  // namespace scaleref::autodiff
