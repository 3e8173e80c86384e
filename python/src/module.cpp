// scaleref._scaleref: the oracle's methods (autodiff/cli/registry.hpp), one
// call of them (cli/evaluate.hpp), the kernel check (scaleref/oracle/) and the
// gradient verifier (scaleref/verify/gradcheck.hpp) for Python. The package
// scaleref (python/scaleref/) wraps these in keyword functions; this layer
// takes NumPy arrays only.
//
// Arrays cross in one copy each way at most: an input is converted (a C-order
// float64 array by one memcpy, any other dtype or strides by NumPy) straight
// into the matrix the reference reads; an output matrix is handed to NumPy
// without a copy (the array owns it). scaleref::Error becomes ValueError
// (pybind11 maps std::invalid_argument), a dtype the oracle cannot read
// TypeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <scaleref/error.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <scaleref/sdd/init.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>
#include <vector>

#include "evaluate.hpp"
#include "registry.hpp"

namespace py = pybind11;
using namespace scaleref;

namespace {

using Texts = std::map<std::string, std::string>;

std::vector<long> shape_of(const py::array& a) {
  std::vector<long> shape;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) shape.push_back(static_cast<long>(a.shape(i)));
  return shape;
}

// Storage for converted inputs, kept from one call to the next on this thread:
// the last evaluation's inputs (the oracle keeps none of them), up to kKeptBytes.
// A new matrix costs an allocation, the NaN fill EIGEN_INITIALIZE_MATRICES_BY_NAN
// gives it and the page faults of fresh memory, which at 64 x 4096 took longer
// than the conversion itself; a kept one of the same shape costs none of these.
class InputStorage {
 public:
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;

  // A rows x cols matrix to convert into: a kept one of that shape, else a new one.
  Mat<double> take(long rows, long cols) {
    const auto it = std::find_if(kept_.begin(), kept_.end(), [&](const Mat<double>& m) {
      return m.rows() == rows && m.cols() == cols;
    });
    if (it == kept_.end()) return Mat<double>(rows, cols);
    Mat<double> m = std::move(*it);
    kept_.erase(it);
    return m;
  }

  // Keeps `spent` in place of what was kept, as far as kKeptBytes allows.
  void keep(cli::Named<double>&& spent) {
    kept_.clear();
    std::size_t bytes = 0;
    for (auto& [name, m] : spent) {
      const std::size_t b = static_cast<std::size_t>(m.size()) * sizeof(double);
      if (bytes + b > kKeptBytes) continue;
      bytes += b;
      kept_.push_back(std::move(m));
    }
  }

 private:
  std::vector<Mat<double>> kept_;
};

thread_local InputStorage input_storage;

// A NumPy array as an evaluation's Array, converted directly into the matrix's
// storage: a C-order float64 array by memcpy, any other by NumPy (dtype, strides).
cli::Array to_array(py::handle obj, const std::string& name) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(name + ": expected a NumPy array, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  const auto a = py::reinterpret_borrow<py::array>(obj);
  const char kind = a.dtype().kind();
  const bool integer = kind == 'i' || kind == 'u';
  if (!(kind == 'f' && a.itemsize() <= 8) && !integer)
    throw py::type_error(name +
                         ": expected a float (16, 32 or 64 bits) or integer array, got dtype " +
                         std::string(py::str(a.dtype())));
  const std::vector<long> shape = shape_of(a);
  const auto [rows, cols] = cli::matrix_shape(shape);
  cli::Array out{shape, input_storage.take(rows, cols), ""};
  if (integer && a.itemsize() == 8 && a.size() > 0) {
    const py::int_ limit(std::int64_t{1} << 53);  // every integer up to 2^53 is a double
    if (py::int_(a.attr("max")()) > limit || py::int_(a.attr("min")()) < -limit)
      throw py::value_error(name +
                            ": an integer entry exceeds 2^53 in magnitude: no double "
                            "holds it exactly");
  }
  if (out.values.size() == 0) return out;
  if (py::isinstance<py::array_t<double, py::array::c_style>>(a)) {
    std::memcpy(out.values.data(), a.data(),
                static_cast<std::size_t>(out.values.size()) * sizeof(double));
  } else {
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    // A view of the matrix's storage (the capsule owns nothing), filled by NumPy.
    py::array_t<double> view(dims, out.values.data(), py::capsule(out.values.data(), [](void*) {}));
    py::module_::import("numpy").attr("copyto")(view, a, py::arg("casting") = "safe");
  }
  return out;
}

// An Array as a NumPy array that owns its matrix: no copy.
py::array to_numpy(cli::Array&& a) {
  auto* m = new Mat<double>(std::move(a.values));
  py::capsule owner(m, [](void* p) { delete static_cast<Mat<double>*>(p); });
  const std::vector<py::ssize_t> dims(a.shape.begin(), a.shape.end());
  return py::array_t<double>(dims, m->data(), owner);
}

std::map<std::string, cli::Array> to_arrays(const py::dict& d) {
  std::map<std::string, cli::Array> out;
  for (const auto& [k, v] : d) {
    const std::string name = py::cast<std::string>(k);
    out[name] = to_array(v, name);
  }
  return out;
}

cli::Precision precision_of(int digits) {
  if (digits == 53) return cli::Precision::fp64;
  if (digits == 50) return cli::Precision::real50;
  throw py::value_error("precision: expected 50 (the 50-digit reference) or None (double), got " +
                        std::to_string(digits));
}

py::dict key_dict(const cli::KeySpec& k) {
  py::dict d;
  d["name"] = k.name;
  d["type"] = cli::type_name(k.type);
  d["default"] = k.def.empty() ? py::object(py::none()) : py::object(py::str(k.def));
  d["choices"] = k.choices;
  d["help"] = k.help;
  return d;
}

const char* initial_name(spec::Initial i) {
  switch (i) {
    case spec::Initial::zeros:
      return "zeros";
    case spec::Initial::ones:
      return "ones";
    case spec::Initial::setting:
      return "setting";
    case spec::Initial::none:
      break;
  }
  return "none";
}

py::list tensor_list(const std::vector<cli::TensorSpec>& ts) {
  py::list out;
  for (const auto& t : ts) {
    py::dict d;
    d["name"] = t.name;
    d["shape"] = t.shape;
    d["required"] = t.initial == spec::Initial::none;
    d["initial"] = initial_name(t.initial);
    d["initial_setting"] =
        t.initial_setting.empty() ? py::object(py::none()) : py::object(py::str(t.initial_setting));
    d["weight_decay"] = t.weight_decay;
    d["decay_source"] = t.decay_source;
    out.append(d);
  }
  return out;
}

// Every method with its keys; inputs and output at the default settings.
py::list methods() {
  py::list out;
  for (const cli::Method& m : cli::registry()) {
    Texts set;
    for (const auto& k : m.keys)
      if (k.def.empty()) set.try_emplace(k.name, "1");  // sizes only: shapes are named by symbol
    const cli::Settings s(m.name, m.keys, set);
    py::dict d;
    d["name"] = m.name;
    d["kind"] = cli::kind_name(m.kind);
    d["summary"] = m.summary;
    py::list keys;
    for (const auto& k : m.keys) keys.append(key_dict(k));
    d["keys"] = keys;
    d["inputs"] = tensor_list(m.inputs(s));
    d["output"] = m.output(s).name;
    d["variant_key"] = m.variant_key;
    out.append(d);
  }
  return out;
}

py::list inputs(const std::string& method, const Texts& settings) {
  const cli::Method& m = cli::find_method(method);
  return tensor_list(m.inputs(cli::Settings(m.name, m.keys, settings)));
}

py::tuple evaluate(const std::string& method, const Texts& settings, const py::dict& in,
                   int digits) {
  const cli::Method& m = cli::find_method(method);
  const cli::Settings s(m.name, m.keys, settings);
  std::map<std::string, cli::Array> arrays = to_arrays(in);
  const cli::Precision p = precision_of(digits);
  cli::Evaluation e;
  cli::Named<double> spent;
  {
    py::gil_scoped_release unlocked;  // the reference touches no Python object
    e = cli::evaluate(m, s, std::move(arrays), p, &spent);
  }
  input_storage.keep(std::move(spent));
  py::dict outputs, errors;
  for (auto& [name, a] : e.outputs) outputs[py::str(name)] = to_numpy(std::move(a));
  for (const auto& [name, err] : e.double_error) {
    py::dict d;
    d["max_abs"] = err.max_abs;
    d["max_rel"] = err.max_rel;
    errors[py::str(name)] = d;
  }
  return py::make_tuple(outputs, errors);
}

// A kernel's outputs against the oracle's (cli::check_outputs): one dict per output.
py::list check(const std::string& method, const Texts& settings, const py::dict& in,
               const py::dict& actual, const std::string& storage, int digits) {
  const std::optional<oracle::Storage> st = spec::value_of(oracle::kStorageNames, storage);
  if (!st) throw py::value_error("dtype: expected bf16, fp16, fp32 or fp64, got " + storage);
  const cli::Method& m = cli::find_method(method);
  const cli::Settings s(m.name, m.keys, settings);
  std::map<std::string, cli::Array> arrays = to_arrays(in), got = to_arrays(actual);
  const cli::Precision p = precision_of(digits);
  std::vector<cli::OutputCheck> checks;
  cli::Named<double> spent;
  {
    py::gil_scoped_release unlocked;
    const cli::Evaluation ref = cli::evaluate(m, s, std::move(arrays), p, &spent);
    checks = cli::check_outputs(m, s, ref, got, *st);
  }
  input_storage.keep(std::move(spent));
  py::list out;
  for (const auto& c : checks) {
    py::dict d;
    d["name"] = c.name;
    d["shape"] = c.shape;
    d["kind"] = spec::name_of(oracle::kKindNames, c.rule.kind);
    d["terms"] = c.rule.terms;
    d["roundings"] = c.rule.roundings;
    d["atol"] = c.tol.atol;
    d["rtol"] = c.tol.rtol;
    d["why"] = c.tol.why;
    d["count"] = c.cmp.count;
    d["mismatches"] = c.cmp.mismatches;
    d["max_abs"] = c.cmp.max_abs;
    d["max_rel"] = c.cmp.max_rel;
    d["used"] = c.cmp.used;
    d["worst_index"] = py::tuple(py::cast(c.worst_index));
    d["got"] = c.cmp.worst_got;
    d["want"] = c.cmp.worst_want;
    d["passed"] = c.cmp.pass();
    out.append(d);
  }
  return out;
}

// ---- gradcheck of a Python function --------------------------------------------------------

// A matrix as the caller's array (a copy: the verifier steps its inputs in place).
py::array as_shape(const Mat<double>& m, const std::vector<long>& shape) {
  cli::Array a{shape, m, ""};
  return to_numpy(std::move(a));
}

// obj as a matrix; with `want`, its shape must be exactly that.
Mat<double> as_matrix(py::handle obj, const std::string& what,
                      const std::vector<long>* want = nullptr) {
  cli::Array a = to_array(py::module_::import("numpy").attr("asarray")(obj), what);
  if (want && a.shape != *want)
    throw py::value_error(what + " has shape " + cli::shape_tuple(a.shape) + ", its input " +
                          cli::shape_tuple(*want));
  return std::move(a.values);
}

py::dict gradcheck(const py::function& forward, const py::function& backward,
                   const std::vector<std::string>& names, const py::list& xs, std::uint64_t seed,
                   long full_jacobian_limit) {
  if (names.size() != static_cast<std::size_t>(py::len(xs)) || names.empty())
    throw py::value_error("gradcheck: expected one name per input and at least one input");
  std::vector<std::vector<long>> shapes;
  verify::Inputs<double> x;
  for (std::size_t p = 0; p < names.size(); ++p) {
    cli::Array a = to_array(xs[p], names[p]);
    shapes.push_back(a.shape);
    x.push_back(std::move(a.values));
  }
  auto call_args = [shapes](const verify::Inputs<double>& in) {
    py::list args;
    for (std::size_t p = 0; p < in.size(); ++p) args.append(as_shape(in[p], shapes[p]));
    return args;
  };
  // y's shape, learned from the first forward call, for dy.
  auto y_shape = std::make_shared<std::vector<long>>();
  verify::Problem pr{"gradcheck", names, {}, {}};
  pr.f64.forward = [forward, call_args, y_shape](const verify::Inputs<double>& in) {
    const py::object y = forward(call_args(in));
    const py::array arr = py::module_::import("numpy").attr("asarray")(y);
    *y_shape = shape_of(arr);
    return as_matrix(arr, "f's output");
  };
  pr.f64.backward = [backward, call_args, shapes, names, y_shape](const verify::Inputs<double>& in,
                                                                  const Mat<double>& dy) {
    const py::object g = backward(call_args(in), as_shape(dy, *y_shape));
    const py::list gs(g);
    if (py::len(gs) != in.size())
      throw py::value_error("gradcheck: the vjp returned " + std::to_string(py::len(gs)) +
                            " gradients for " + std::to_string(in.size()) + " inputs");
    verify::Inputs<double> out;
    for (std::size_t p = 0; p < in.size(); ++p)
      out.push_back(as_matrix(gs[p], "the gradient of " + names[p], &shapes[p]));
    return out;
  };
  verify::Options o;
  o.seed = seed;
  o.full_jacobian_limit = full_jacobian_limit;
  const verify::Report r = verify::check(pr, x, o);
  py::list checks;
  for (const auto& c : r.checks) {
    py::dict d;
    d["check"] = c.check;
    d["input"] = c.input;
    d["ok"] = c.ok;
    d["max_rel_err"] = c.cmp.max_rel_err;
    d["used"] = c.cmp.worst_share;
    d["regime"] = c.regime;
    d["slope"] = c.slope;
    checks.append(d);
  }
  py::dict d;
  d["ok"] = r.ok();
  d["report"] = r.str();
  d["checks"] = checks;
  return d;
}

// Seconds per call of the method's C++ evaluation on already converted inputs
// (the reference's own time: no conversion, no Python): the median of `reps`.
double time_reference(const std::string& method, const Texts& settings, const py::dict& in,
                      int reps) {
  const cli::Method& m = cli::find_method(method);
  const cli::Settings s(m.name, m.keys, settings);
  cli::Named<double> named;  // the inputs as the evaluation left them, defaults included
  cli::evaluate(m, s, to_arrays(in), cli::Precision::fp64, &named);  // the checks, not timed
  std::vector<double> times;
  {
    py::gil_scoped_release unlocked;
    for (int r = 0; r < std::max(reps, 1); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const cli::Named<double> out = m.eval_double(s, named);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  input_storage.keep(std::move(named));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The scale-vector papers' decay policies by name (spec/scalevec.hpp).
std::vector<std::string> scale_vector_policies() {
  std::vector<std::string> out;
  for (const auto& [policy, name] : scaleref::scalevec::kDecayPolicies) out.emplace_back(name);
  return out;
}

// Whether `policy` decays the scale vector `name` (scalevec::decayed).
bool scale_vector_decayed(const std::string& policy, const std::string& name) {
  const auto p = scaleref::spec::value_of(scaleref::scalevec::kDecayPolicies, policy);
  if (!p) {
    std::string known;
    for (const std::string& n : scale_vector_policies()) known += (known.empty() ? "" : ", ") + n;
    scaleref::fail("scale_vector_decayed: unknown policy \"", policy, "\": expected one of ",
                   known);
  }
  return scaleref::scalevec::decayed(*p, name);
}

}  // namespace

PYBIND11_MODULE(_scaleref, mod) {
  mod.doc() = "scaleref's C++ oracle (use the scaleref package, not this module)";
  mod.def("methods", &methods);
  mod.def("inputs", &inputs, py::arg("method"), py::arg("settings"));
  mod.def("evaluate", &evaluate, py::arg("method"), py::arg("settings"), py::arg("inputs"),
          py::arg("digits"));
  mod.def("check", &check, py::arg("method"), py::arg("settings"), py::arg("inputs"),
          py::arg("actual"), py::arg("storage"), py::arg("digits"));
  mod.def("gradcheck", &gradcheck, py::arg("forward"), py::arg("backward"), py::arg("names"),
          py::arg("inputs"), py::arg("seed"), py::arg("full_jacobian_limit"));
  mod.def("time_reference", &time_reference, py::arg("method"), py::arg("settings"),
          py::arg("inputs"), py::arg("reps"));
  mod.def("scale_vector_policies", &scale_vector_policies);
  mod.def("scale_vector_decayed", &scale_vector_decayed, py::arg("policy"), py::arg("name"));
  mod.def(
      "sdd_v_std", [](long d_model) { return scaleref::sdd::v_std(d_model); }, py::arg("d_model"));
}
