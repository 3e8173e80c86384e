// scaleref: the reference from the command line.
//
//   scaleref methods [--json]
//   scaleref eval METHOD --dir DIR [--set KEY=VALUE ...] [--precision 50] [--bf16]
//
// eval reads DIR/<input>.npy for every input of the method (a parameter
// without a file takes its paper's initial value; any float or integer dtype,
// '<u2' as bfloat16 with --bf16; leading batch dimensions kept) and DIR/dy.npy
// when present, and writes DIR/out/<output>.npy (cli/evaluate.hpp).
//   scaleref compare A.npy B.npy [--dtype fp64|fp32|bf16|fp16] [--atol X] [--rtol Y]
//
// Exit status: 0 success (compare: every entry within tolerance), 1 compare
// found a mismatch, 2 bad usage or bad input (the message on stderr).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/npy.hpp>
#include <scaleref/verify/compare.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "evaluate.hpp"
#include "registry.hpp"

namespace fs = std::filesystem;
using namespace scaleref;
using nlohmann::ordered_json;  // keys in the order they are set

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  scaleref methods [--json]\n"
    "  scaleref eval METHOD --dir DIR [--set KEY=VALUE ...] [--precision 50] [--bf16]\n"
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

// An input file as the evaluation's Array: its shape as given, its values [rows, cols].
cli::Array read_array(const std::string& path, const npy::ReadOptions& opt) {
  const npy::Array a = npy::read(path, opt);
  const auto [rows, cols] = cli::matrix_shape(a.shape);
  cli::Array out{a.shape, Mat<double>(rows, cols), path};
  std::copy(a.data.begin(), a.data.end(), out.values.data());
  return out;
}

// The outputs of a run replace every .npy file an earlier run left in DIR/out/:
// they are written under a temporary folder first and moved in when all are
// complete, so a failed run leaves no output at all and none from before.
void clear_outputs(const fs::path& out_dir) {
  if (!fs::is_directory(out_dir)) return;
  for (const auto& f : fs::directory_iterator(out_dir))
    if (f.is_regular_file() && f.path().extension() == ".npy") fs::remove(f.path());
}

void write_outputs(const fs::path& out_dir, const std::map<std::string, cli::Array>& outputs) {
  fs::create_directories(out_dir);
  const fs::path tmp = out_dir / (".partial-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directory(tmp);
  try {
    for (const auto& [name, a] : outputs) {
      npy::Array arr{a.shape, npy::DType::f8,
                     std::vector<double>(a.values.data(), a.values.data() + a.values.size())};
      npy::write((tmp / (name + ".npy")).string(), arr);
    }
    for (const auto& [name, a] : outputs) {
      const fs::path file = out_dir / (name + ".npy");
      fs::rename(tmp / (name + ".npy"), file);
      std::cout << "wrote " << file.string() << " " << cli::shape_tuple(a.shape) << "\n";
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    clear_outputs(out_dir);
    throw;
  }
  fs::remove_all(tmp);
}

int cmd_eval(const std::vector<std::string>& args) {
  std::string method, dir, precision = "double";
  std::map<std::string, std::string> set;
  npy::ReadOptions read_options;
  read_options.integers = true;
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
    } else if (a == "--bf16") {
      read_options.u2_is_bf16 = true;
    } else if (!a.empty() && a[0] == '-') {
      fail("eval: unknown option ", a);
    } else {
      require(method.empty(), "eval", "one METHOD expected, got ", method, " and ", a);
      method = a;
    }
  }
  require(!method.empty(), "eval", "expected a METHOD (scaleref methods lists them)");
  require(!dir.empty(), "eval", "expected --dir DIR");
  require(fs::is_directory(dir), "eval", "--dir ", dir, " is not a directory");
  const fs::path out_dir = fs::path(dir) / "out";
  clear_outputs(out_dir);  // from here on, no output of an earlier run is left
  const cli::Method& m = cli::find_method(method);
  const cli::Settings s(m.name, m.keys, set);

  std::map<std::string, cli::Array> in;
  std::vector<std::string> names;
  for (const auto& t : m.inputs(s)) names.push_back(t.name);
  if (m.kind == cli::Kind::layer) names.push_back("dy");
  for (const auto& name : names) {
    const fs::path file = fs::path(dir) / (name + ".npy");
    if (fs::exists(file)) {
      in[name] = read_array(file.string(), read_options);
      continue;
    }
    for (const auto& t : m.inputs(s)) {
      require(t.name != name || t.initial != spec::Initial::none, "eval", "missing input file ",
              file.string(), " (", m.name, "'s ", name, " has no default)");
      if (t.name == name)  // say so: a misspelt file name would otherwise go unnoticed
        std::cout << "no " << file.string() << ": " << name << " takes its initial value\n";
    }
  }
  require(m.kind == cli::Kind::layer || !fs::exists(fs::path(dir) / "dy.npy"), "eval", m.name,
          " is a ", cli::kind_name(m.kind), " with no backward, but ", dir, " holds dy.npy");
  const cli::Evaluation e = cli::evaluate(
      m, s, std::move(in), precision == "50" ? cli::Precision::real50 : cli::Precision::fp64);
  write_outputs(out_dir, e.outputs);
  for (const auto& [name, err] : e.double_error)
    std::cout << "double " << name << " against 50 digits: max abs err " << err.max_abs
              << ", normwise rel err " << err.max_rel << "\n";
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
  const auto [rows, cols] = cli::matrix_shape(a.shape);
  Mat<double> m(rows, cols);
  std::copy(a.data.begin(), a.data.end(), m.data());
  return m;
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
  require(a.shape == r.shape, "compare", "shapes differ: ", files[0], " is ",
          cli::shape_tuple(a.shape), ", ", files[1], " is ", cli::shape_tuple(r.shape));
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
    const long flat_index = static_cast<long>(c.worst_row * flat(a).cols() + c.worst_col);
    std::cout << "worst index in shape " << cli::shape_tuple(a.shape) << ": "
              << cli::shape_tuple(cli::unravel(flat_index, a.shape)) << "\n";
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
  } catch (const std::bad_alloc&) {
    std::cerr << "scaleref: out of memory: the inputs or the sizes set need more than this "
                 "process may allocate\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scaleref: " << e.what() << "\n";
    return 2;
  }
}
