#include "evaluate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <scaleref/error.hpp>
#include <span>
#include <utility>

namespace scaleref::cli {

std::pair<long, long> matrix_shape(const std::vector<long>& shape) {
  long rows = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    require(shape[i] >= 0, "cli::matrix_shape", "negative size in ", shape_tuple(shape));
    if (i + 1 < shape.size()) rows *= shape[i];
  }
  return {rows, shape.empty() ? 1 : shape.back()};
}

std::string shape_tuple(const std::vector<long>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::vector<long> unravel(long flat, const std::vector<long>& shape) {
  std::vector<long> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] > 0 ? flat % shape[k] : 0;
    if (shape[k] > 0) flat /= shape[k];
  }
  return idx;
}

namespace {

bool is_literal(const std::string& sym) {
  return !sym.empty() && std::isdigit(static_cast<unsigned char>(sym[0]));
}

std::string label(const std::string& name, const Array& a) {
  return a.source.empty() ? name : name + " (" + a.source + ")";
}

std::string joined(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// The shapes a tensor may be given in, in words: "(D,) or (1, D)".
std::string accepted(const TensorSpec& t) {
  const std::string& r = t.shape[0];
  const std::string& c = t.shape[1];
  if (r == "N") return "(..., " + c + ")";
  if (r == "1") return "(" + c + ",) or (1, " + c + ")" + (c == "1" ? " or ()" : "");
  return "(" + r + ", " + c + ")";
}

// Binds the shape symbols of the tensors a call is given, checking each against
// the sizes earlier tensors bound.
class Binder {
 public:
  explicit Binder(std::string method) : method_(std::move(method)) {}

  // Checks `a` against `t`, binding the symbols seen for the first time.
  void bind(const TensorSpec& t, const Array& a) {
    const std::string& r = t.shape[0];
    const std::string& c = t.shape[1];
    const std::vector<long>& sh = a.shape;
    auto bad = [&]() {
      std::string want = "expected " + t.name + " of shape " + accepted(t);
      std::string bound;
      for (const std::string& sym : {r, c})
        if (!is_literal(sym) && sym != "N" && dims_.count(sym))
          bound += (bound.empty() ? " with " : ", ") + sym + " = " + std::to_string(dims_[sym]) +
                   " (from " + origin_[sym] + ")";
      fail(method_, ": ", want, bound, ", got ", shape_tuple(sh),
           a.source.empty() ? "" : " in " + a.source);
    };
    if (r == "N") {
      if (sh.empty()) bad();
      const std::vector<long> lead(sh.begin(), sh.end() - 1);
      if (!batch_name_.empty() && lead != batch_)
        fail(method_, ": ", t.name, " has leading dimensions ", shape_tuple(lead), " but ",
             batch_name_, " has ", shape_tuple(batch_), "; every batch input shares them",
             a.source.empty() ? "" : " (" + a.source + ")");
      if (batch_name_.empty()) {
        batch_ = lead;
        batch_name_ = t.name;
        long n = 1;
        for (long v : lead) n *= v;
        dims_["N"] = n;
        origin_["N"] = t.name;
      }
      match(c, sh.back(), t.name, bad);
    } else if (r == "1") {
      const bool scalar_ok = c == "1" && sh.empty();
      const bool row = sh.size() == 1 || (sh.size() == 2 && sh[0] == 1);
      if (!scalar_ok && !row) bad();
      match(c, sh.empty() ? 1 : sh.back(), t.name, bad);
    } else {
      if (sh.size() != 2) bad();
      match(r, sh[0], t.name, bad);
      match(c, sh[1], t.name, bad);
    }
  }

  long size(const std::string& sym) const {
    if (is_literal(sym)) return std::stol(sym);
    const auto it = dims_.find(sym);
    require(it != dims_.end(), method_.c_str(), "internal: the size ", sym,
            " is bound by no input");
    return it->second;
  }
  const std::vector<long>& batch() const { return batch_; }
  const Dims& dims() const { return dims_; }

 private:
  template <class Bad>
  void match(const std::string& sym, long got, const std::string& tensor, Bad bad) {
    if (is_literal(sym)) {
      if (std::stol(sym) != got) bad();
    } else if (const auto it = dims_.find(sym); it != dims_.end()) {
      if (it->second != got) bad();
    } else {
      dims_[sym] = got;
      origin_[sym] = tensor;
    }
  }

  std::string method_;
  Dims dims_;
  std::map<std::string, std::string> origin_;
  std::vector<long> batch_;
  std::string batch_name_;
};

void require_non_empty(const std::string& method, const std::string& name, const Array& a) {
  const long total = [&] {
    long n = 1;
    for (long v : a.shape) n *= v;
    return n;
  }();
  require(total > 0, method.c_str(), label(name, a), " is empty (shape ", shape_tuple(a.shape),
          "); every input needs at least one entry");
}

void require_finite(const std::string& method, const std::string& name, const Array& a) {
  if (all_finite(a.values)) return;  // vectorized; only a failure looks for the entry
  const double* v = a.values.data();
  for (Eigen::Index i = 0; i < a.values.size(); ++i)
    if (!std::isfinite(v[i]))
      fail(method, ": ", label(name, a), " holds ", v[i], " at index ",
           shape_tuple(unravel(static_cast<long>(i), a.shape)), "; every input must be finite");
}

// The message for a setting the run did not read.
std::string unread_reason(const Method& m, const Settings& s, const std::vector<TensorSpec>& specs,
                          const std::string& key) {
  for (const TensorSpec& t : specs)
    if (t.initial == spec::Initial::setting && t.initial_setting == key)
      return key + " is " + t.name + "'s initial value, read only when " + t.name +
             " is left out; " + t.name + " was given";
  std::vector<std::string> choices;
  for (const KeySpec& k : m.keys)
    if (k.type == KeyType::choice) choices.push_back(k.name + "=" + s.choice(k.name));
  return key + " is not read by " + m.name +
         (choices.empty() ? std::string(" with these settings") : " with " + joined(choices));
}

template <class S>
Named<double> run(const Method& m, const Settings& s, Named<double>& in) {
  if constexpr (std::is_same_v<S, double>) {
    return m.eval_double(s, in);
  } else {
    Named<S> wide;
    for (const auto& [k, v] : in) wide[k] = cast<S>(v);
    Named<double> out;
    for (const auto& [k, v] : m.eval_real50(s, wide)) out[k] = cast<double>(v);
    return out;
  }
}

Measured distance(const Mat<double>& d, const Mat<double>& r) {
  Measured e;
  const double scale = max_abs(r);
  for (Eigen::Index i = 0; i < d.size(); ++i)
    e.max_abs = std::max(e.max_abs, std::abs(d.data()[i] - r.data()[i]));
  e.max_rel = scale > 0 ? e.max_abs / scale : e.max_abs;
  return e;
}

}  // namespace

Evaluation evaluate(const Method& m, const Settings& s, std::map<std::string, Array> in,
                    Precision p, Named<double>* spent) {
  const std::vector<TensorSpec> specs = m.inputs(s);
  const bool layer = m.kind == Kind::layer;
  std::vector<std::string> names;
  for (const TensorSpec& t : specs) names.push_back(t.name);
  for (const auto& [name, a] : in) {
    const bool known = std::find(names.begin(), names.end(), name) != names.end();
    if (name == "dy" && !layer)
      fail(m.name, ": a ", kind_name(m.kind), " has no backward; dy is not an input");
    if (!known && name != "dy")
      fail(m.name, ": unknown input \"", name, "\" (its inputs",
           names.empty() ? std::string(": none") : ": " + joined(names) + (layer ? ", dy" : ""),
           ")");
    require_non_empty(m.name, name, a);
  }

  Binder b(m.name);
  for (const TensorSpec& t : specs) {
    const auto it = in.find(t.name);
    if (it != in.end()) {
      b.bind(t, it->second);
    } else if (t.initial == spec::Initial::none) {
      fail(m.name, ": missing input ", t.name, " ", accepted(t));
    }
  }
  const TensorSpec out_spec = m.output(s);
  if (const auto dy = in.find("dy"); dy != in.end()) {
    TensorSpec t = out_spec;
    t.name = "dy";
    b.bind(t, dy->second);
  }
  for (const auto& [name, a] : in) require_finite(m.name, name, a);

  // Parameters left out: their paper's initial value, 1-D.
  std::map<std::string, std::vector<long>> shapes;
  for (const auto& [name, a] : in) shapes[name] = a.shape;
  for (const TensorSpec& t : specs) {
    if (in.count(t.name)) continue;
    const long rows = b.size(t.shape[0]), cols = b.size(t.shape[1]);
    double v = 0;
    switch (t.initial) {
      case spec::Initial::zeros:
        break;
      case spec::Initial::ones:
        v = 1;
        break;
      case spec::Initial::setting:
        v = s.real(t.initial_setting);
        require(std::isfinite(v), m.name.c_str(), "expected a finite ", t.initial_setting, ", got ",
                v);
        break;
      case spec::Initial::none:
        fail(m.name, ": internal: ", t.name, " has no initial value");
    }
    in[t.name] = Array{rows == 1 ? std::vector<long>{cols} : std::vector<long>{rows, cols},
                       Mat<double>::Constant(rows, cols, v), ""};
    shapes[t.name] = in[t.name].shape;
  }

  Named<double> named;
  for (auto& [name, a] : in) named[name] = std::move(a.values);
  Evaluation e;
  e.dims = b.dims();
  Named<double> result;
  if (p == Precision::real50) {
    const Named<double> dbl = run<double>(m, s, named);
    result = run<Real50>(m, s, named);
    for (const auto& [name, r] : result) e.double_error[name] = distance(dbl.at(name), r);
  } else {
    result = run<double>(m, s, named);
  }
  if (spent) *spent = std::move(named);
  const std::vector<std::string> unread = s.unread();
  if (!unread.empty()) {
    std::vector<std::string> reasons;
    for (const std::string& k : unread) reasons.push_back(unread_reason(m, s, specs, k));
    fail(m.name, ": ", joined(reasons, "; "));
  }

  for (auto& [name, mat] : result) {
    std::vector<long> shape;
    if (name == out_spec.name) {
      if (layer) {
        shape = b.batch();
        shape.push_back(mat.cols());
      } else {
        shape = {static_cast<long>(mat.rows()), static_cast<long>(mat.cols())};
      }
    } else {
      const auto it = shapes.find(name.substr(1));  // d<name>
      require(name.size() > 1 && name[0] == 'd' && it != shapes.end(), m.name.c_str(),
              "internal: an output \"", name, "\" of no input");
      shape = it->second;
    }
    e.outputs[name] = Array{std::move(shape), std::move(mat), ""};
  }
  return e;
}

std::vector<OutputCheck> check_outputs(const Method& m, const Settings& s, const Evaluation& ref,
                                       const std::map<std::string, Array>& actual,
                                       oracle::Storage storage) {
  std::vector<std::string> have;
  for (const auto& kv : ref.outputs) have.push_back(kv.first);
  std::vector<OutputCheck> out;
  for (const auto& [name, a] : actual) {
    const auto it = ref.outputs.find(name);
    if (it == ref.outputs.end())
      fail(m.name, ": no output \"", name,
           "\" to compare with (the oracle's outputs here: ", joined(have), ")");
    const Array& r = it->second;
    require(a.shape == r.shape, m.name.c_str(), label(name, a), " has shape ", shape_tuple(a.shape),
            ", the oracle's ", name, " has ", shape_tuple(r.shape));
    OutputCheck c;
    c.name = name;
    c.shape = a.shape;
    c.rule = m.rule(s, name, ref.dims);
    // atol relative to the output's largest entry for every output, element-wise
    // ones too (terms = 1): the entries' own terms (DyT's gamma tanh + beta) can
    // cancel, and here, unlike in cuda_check, the terms are not at hand.
    c.tol = oracle::tolerance(storage, oracle::Kind::reduced, c.rule.terms, max_abs(r.values),
                              c.rule.roundings);
    c.cmp = oracle::compare(
        std::span<const double>(a.values.data(), static_cast<std::size_t>(a.values.size())),
        std::span<const double>(r.values.data(), static_cast<std::size_t>(r.values.size())), c.tol);
    c.worst_index = unravel(static_cast<long>(c.cmp.worst), a.shape);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace scaleref::cli
