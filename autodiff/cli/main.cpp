// scaleref: the reference from the command line.
//
//   scaleref methods [--json]
//   scaleref eval METHOD --dir DIR [--set KEY=VALUE ...] [--precision 50]
//   scaleref compare A.npy B.npy [--dtype fp64|fp32|bf16|fp16] [--atol X] [--rtol Y]
//
// Exit status: 0 success (compare: every entry within tolerance), 1 compare
// found a mismatch, 2 bad usage or bad input (the message on stderr).
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/npy.hpp>
#include <scaleref/verify/compare.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "registry.hpp"

namespace fs = std::filesystem;
using namespace scaleref;
using nlohmann::ordered_json;  // keys in the order they are set

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  scaleref methods [--json]\n"
    "  scaleref eval METHOD --dir DIR [--set KEY=VALUE ...] [--precision 50]\n"
    "  scaleref compare A.npy B.npy [--dtype fp64|fp32|bf16|fp16] [--atol X] [--rtol Y]\n"
    "exit status: 0 ok, 1 compare mismatch, 2 bad usage or input\n";

// ---- methods ------------------------------------------------------------------------------

ordered_json json_tensors(const std::vector<cli::TensorSpec>& ts) {
  ordered_json out = ordered_json::array();
  for (const auto& t : ts) out.push_back({{"name", t.name}, {"shape", cli::shape_text(t.shape)}});
  return out;
}

std::string text_tensors(const std::vector<cli::TensorSpec>& ts) {
  if (ts.empty()) return "(none)";
  std::string out;
  for (std::size_t i = 0; i < ts.size(); ++i)
    out += (i ? ", " : "") + ts[i].name + " " + cli::shape_text(ts[i].shape);
  return out;
}

// The settings of a method with `key` (if any) set to `value`, every other key at its default;
// required keys without a default (an initializer's d_out, d_in) are set to 1 here: the
// listing prints shapes by name, and those keys only size tensors.
cli::Settings listing_settings(const cli::Method& m, std::map<std::string, std::string> set = {}) {
  for (const auto& k : m.keys)
    if (k.def.empty()) set.emplace(k.name, "1");
  return cli::Settings(m.name, m.keys, set);
}

const cli::KeySpec* variant_key(const cli::Method& m) {
  for (const auto& k : m.keys)
    if (k.name == m.variant_key) return &k;
  return nullptr;
}

int cmd_methods(const std::vector<std::string>& args) {
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json")
      json = true;
    else
      fail("methods: unknown argument \"", a, "\" (expected --json or nothing)");
  }
  const auto& reg = cli::registry();
  if (json) {
    ordered_json methods = ordered_json::array();
    for (const auto& m : reg) {
      const cli::Settings s = listing_settings(m);
      ordered_json keys = ordered_json::array();
      for (const auto& k : m.keys) {
        ordered_json key = {
            {"name", k.name},
            {"type", cli::type_name(k.type)},
            {"default", k.def.empty() ? ordered_json(nullptr) : ordered_json(k.def)}};
        if (!k.choices.empty()) key["choices"] = k.choices;
        key["help"] = k.help;
        keys.push_back(std::move(key));
      }
      ordered_json method = {{"name", m.name},
                             {"kind", cli::kind_name(m.kind)},
                             {"summary", m.summary},
                             {"inputs", json_tensors(m.inputs(s))},
                             {"output", json_tensors({m.output(s)})},
                             {"keys", std::move(keys)}};
      if (const cli::KeySpec* vk = variant_key(m)) {
        ordered_json inputs = ordered_json::object();
        for (const auto& c : vk->choices)
          inputs[c] = json_tensors(m.inputs(listing_settings(m, {{vk->name, c}})));
        method["variants"] = {{"key", vk->name}, {"inputs", std::move(inputs)}};
      }
      methods.push_back(std::move(method));
    }
    const ordered_json doc = {{"methods", std::move(methods)}};
    std::cout << doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  for (const auto& m : reg) {
    const cli::Settings s = listing_settings(m);
    std::cout << m.name << " (" << cli::kind_name(m.kind) << "): " << m.summary << "\n";
    std::cout << "  inputs: " << text_tensors(m.inputs(s)) << "\n";
    std::cout << "  output: " << text_tensors({m.output(s)}) << "\n";
    if (const cli::KeySpec* vk = variant_key(m))
      for (const auto& c : vk->choices)
        std::cout << "    " << vk->name << "=" << c << ": "
                  << text_tensors(m.inputs(listing_settings(m, {{vk->name, c}}))) << "\n";
    for (const auto& k : m.keys) {
      std::cout << "  --set " << k.name << "=" << (k.def.empty() ? "<required>" : k.def) << "  ("
                << cli::type_name(k.type);
      if (!k.choices.empty()) {
        std::cout << ":";
        for (const auto& c : k.choices) std::cout << " " << c;
      }
      std::cout << ") " << k.help << "\n";
    }
  }
  return 0;
}

// ---- eval ---------------------------------------------------------------------------------

struct Bindings {
  std::map<std::string, long> dims;

  // Checks m against the symbolic shape, binding symbols seen for the first time.
  void check(const std::string& method, const cli::TensorSpec& t, const Mat<double>& m,
             const std::string& file) {
    require(t.shape.size() == 2, "eval", "internal: a 2-D shape expected");
    const long got[2] = {static_cast<long>(m.rows()), static_cast<long>(m.cols())};
    std::map<std::string, long> next = dims;
    bool ok = true;
    std::string want = "[";
    for (int i = 0; i < 2; ++i) {
      const std::string& sym = t.shape[static_cast<std::size_t>(i)];
      long v = 0;
      if (!sym.empty() && std::isdigit(static_cast<unsigned char>(sym[0]))) {
        v = std::stol(sym);
      } else if (next.count(sym)) {
        v = next[sym];
      } else {
        v = next[sym] = got[i];
      }
      ok = ok && v == got[i];
      want += (i ? "x" : "") + std::to_string(v);
    }
    want += "]";
    if (!ok)
      fail("eval ", method, ": expected ", t.name, " ", cli::shape_text(t.shape), " = ", want,
           ", got ", shape_str(m), " in ", file);
    dims = next;
  }
};

Mat<double> read_matrix(const std::string& path) {
  require(fs::exists(path), "eval", "missing input file ", path);
  const npy::Array a = npy::read(path);
  require(a.shape.size() <= 2, "eval", "expected a 0-, 1- or 2-D array in ", path, ", got ",
          a.shape.size(), " dimensions");
  return npy::to_matrix(a);
}

template <class S>
cli::Named<double> run(const cli::Method& m, const cli::Settings& s, const cli::Named<double>& in) {
  if constexpr (std::is_same_v<S, double>) {
    return m.eval_double(s, in);
  } else {
    cli::Named<S> wide;
    for (const auto& [k, v] : in) wide[k] = cast<S>(v);
    cli::Named<double> out;
    for (const auto& [k, v] : m.eval_real50(s, wide)) out[k] = cast<double>(v);
    return out;
  }
}

int cmd_eval(const std::vector<std::string>& args) {
  std::string method, dir, precision = "double";
  std::map<std::string, std::string> set;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      require(i + 1 < args.size(), "eval", a, " needs a value");
      return args[++i];
    };
    if (a == "--dir") {
      dir = value();
    } else if (a == "--set") {
      const std::string& kv = value();
      const auto eq = kv.find('=');
      require(eq != std::string::npos && eq > 0, "eval", "expected --set KEY=VALUE, got --set ",
              kv);
      const std::string key = kv.substr(0, eq);
      require(!set.count(key), "eval", "--set ", key, " given twice");
      set[key] = kv.substr(eq + 1);
    } else if (a == "--precision") {
      precision = value();
      require(precision == "50" || precision == "double", "eval",
              "expected --precision 50 (Real50) or double, got ", precision);
    } else if (!a.empty() && a[0] == '-') {
      fail("eval: unknown option ", a);
    } else {
      require(method.empty(), "eval", "one METHOD expected, got ", method, " and ", a);
      method = a;
    }
  }
  require(!method.empty(), "eval", "expected a METHOD (scaleref methods lists them)");
  require(!dir.empty(), "eval", "expected --dir DIR");
  const cli::Method& m = cli::find_method(method);
  const cli::Settings s(m.name, m.keys, set);

  cli::Named<double> in;
  Bindings b;
  for (const auto& t : m.inputs(s)) {
    const std::string file = (fs::path(dir) / (t.name + ".npy")).string();
    in[t.name] = read_matrix(file);
    b.check(m.name, t, in[t.name], file);
  }
  const std::string dy_file = (fs::path(dir) / "dy.npy").string();
  const bool has_dy = m.kind == cli::Kind::layer && fs::exists(dy_file);
  if (has_dy) {
    in["dy"] = read_matrix(dy_file);
    cli::TensorSpec t = m.output(s);
    t.name = "dy";
    b.check(m.name, t, in["dy"], dy_file);
  }

  const cli::Named<double> out = precision == "50" ? run<Real50>(m, s, in) : run<double>(m, s, in);
  const fs::path out_dir = fs::path(dir) / "out";
  fs::create_directories(out_dir);
  for (const auto& [name, mat] : out) {
    const std::string file = (out_dir / (name + ".npy")).string();
    npy::write(file, npy::from_matrix(mat));
    std::cout << "wrote " << file << " " << shape_str(mat) << "\n";
  }
  return 0;
}

// ---- compare ------------------------------------------------------------------------------

struct DTypeTolerance {
  const char* name;
  npy::DType dtype;
  double atol, rtol;
  const char* why;
};

// Default tolerances per dtype; rtol is a small multiple of the unit roundoff u.
constexpr DTypeTolerance kTolerances[] = {
    {"fp64", npy::DType::f8, 1e-14, 1e-12,
     "fp64: u = 2^-53 ~ 1.1e-16; rtol 1e-12 leaves ~1e4 u for reordered sums over long rows"},
    {"fp32", npy::DType::f4, 1e-6, 1e-5,
     "fp32: u = 2^-24 ~ 6e-8; rtol 1e-5 ~ 170 u for accumulation order, atol 1e-6 for values "
     "near 0"},
    {"bf16", npy::DType::bf16, 1e-5, 1.6e-2,
     "bf16: u = 2^-8 ~ 3.9e-3; rtol 1.6e-2 ~ 4 u (torch.testing's bf16 default), atol 1e-5"},
    {"fp16", npy::DType::f2, 1e-5, 1e-3,
     "fp16: u = 2^-11 ~ 4.9e-4; rtol 1e-3 ~ 2 u (torch.testing's fp16 default), atol 1e-5"},
};

const DTypeTolerance& tolerance_for(const std::string& name) {
  for (const auto& t : kTolerances)
    if (name == t.name) return t;
  fail("compare: expected --dtype fp64, fp32, bf16 or fp16, got ", name);
}

const DTypeTolerance& tolerance_for(npy::DType d) {
  for (const auto& t : kTolerances)
    if (d == t.dtype) return t;
  return kTolerances[0];
}

double parse_double(const std::string& opt, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  require(used == text.size() && used > 0 && std::isfinite(v) && v >= 0, "compare",
          "expected a finite number >= 0 for ", opt, ", got \"", text, "\"");
  return v;
}

// An N-D array as [prod(shape[:-1]), shape[-1]].
Mat<double> flat(const npy::Array& a) {
  long cols = a.shape.empty() ? 1 : a.shape.back();
  long rows = 1;
  for (std::size_t i = 0; i + 1 < a.shape.size(); ++i) rows *= a.shape[i];
  Mat<double> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = a.data[static_cast<std::size_t>(i)];
  return m;
}

std::string shape_list(const std::vector<long>& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

int cmd_compare(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string dtype, atol_text, rtol_text;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      require(i + 1 < args.size(), "compare", a, " needs a value");
      return args[++i];
    };
    if (a == "--dtype")
      dtype = value();
    else if (a == "--atol")
      atol_text = value();
    else if (a == "--rtol")
      rtol_text = value();
    else if (!a.empty() && a[0] == '-' && a.size() > 1)
      fail("compare: unknown option ", a);
    else
      files.push_back(a);
  }
  require(files.size() == 2, "compare", "expected two .npy files, got ", files.size());
  if (!dtype.empty()) tolerance_for(dtype);  // reject a bad --dtype before reading
  npy::ReadOptions opt;
  opt.u2_is_bf16 = dtype == "bf16";
  for (const auto& f : files) require(fs::exists(f), "compare", "missing file ", f);
  const npy::Array a = npy::read(files[0], opt), r = npy::read(files[1], opt);
  require(a.shape == r.shape, "compare", "shapes differ: ", files[0], " is ", shape_list(a.shape),
          ", ", files[1], " is ", shape_list(r.shape));
  const DTypeTolerance& d = dtype.empty() ? tolerance_for(a.dtype) : tolerance_for(dtype);
  verify::Tolerance tol{d.atol, d.rtol, d.why};
  if (!atol_text.empty()) tol.atol = parse_double("--atol", atol_text);
  if (!rtol_text.empty()) tol.rtol = parse_double("--rtol", rtol_text);
  if (!atol_text.empty() || !rtol_text.empty())
    tol.why = "given on the command line (--dtype " + std::string(d.name) + " default: atol " +
              std::to_string(d.atol) + ", rtol " + std::to_string(d.rtol) + ")";
  const verify::Comparison c =
      verify::compare<double>(files[0] + " vs " + files[1], flat(a), flat(r), tol);
  std::cout << c.str() << "\n";
  if (a.shape.size() != 2 && c.worst_row >= 0) {
    // the worst entry's index in the arrays' own shape
    long flat_index = static_cast<long>(c.worst_row * flat(a).cols() + c.worst_col);
    std::vector<long> idx(a.shape.size());
    for (std::size_t k = a.shape.size(); k-- > 0;) {
      idx[k] = flat_index % a.shape[k];
      flat_index /= a.shape[k];
    }
    std::cout << "worst index in shape " << shape_list(a.shape) << ": " << shape_list(idx) << "\n";
  }
  return c.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      (args.empty() ? std::cerr : std::cout) << kUsage;
      return args.empty() ? 2 : 0;
    }
    const std::string cmd = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "methods") return cmd_methods(rest);
    if (cmd == "eval") return cmd_eval(rest);
    if (cmd == "compare") return cmd_compare(rest);
    std::cerr << "scaleref: unknown command \"" << cmd << "\"\n" << kUsage;
    return 2;
  } catch (const Error& e) {
    std::cerr << "scaleref: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scaleref: " << e.what() << "\n";
    return 2;
  }
}
