#include "registry.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/autodiff/scalevec.hpp>
#include <scaleref/autodiff/sdd.hpp>
#include <scaleref/error.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/init/rescale.hpp>
#include <scaleref/linear/plain.hpp>
#include <scaleref/memory.hpp>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/random/stream.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <scaleref/sdd/layer.hpp>
#include <sstream>
#include <system_error>
#include <utility>

namespace scaleref::cli {

// ---- shapes, keys, settings ---------------------------------------------------------------

std::string shape_text(const std::vector<std::string>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + shape[i];
  return out + "]";
}

const char* type_name(KeyType t) { return spec::name_of(spec::kSettingTypes, t); }

constexpr spec::NameTable<Kind, 3> kKindNames{
    {{Kind::layer, "layer"}, {Kind::initializer, "initializer"}, {Kind::rescaler, "rescaler"}}};
const char* kind_name(Kind k) { return spec::name_of(kKindNames, k); }

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Shortest text that reads back as the same double.
std::string num(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool parse_real(const std::string& text, double& v) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

bool parse_integer(const std::string& text, long& v) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

bool parse_bool(const std::string& text, bool& v) {
  const std::string t = lower(text);
  if (t == "true" || t == "1") return v = true, true;
  if (t == "false" || t == "0") return v = false, true;
  return false;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// The canonical spelling of `text` among `choices` (case-insensitive), or "".
std::string match_choice(const std::vector<std::string>& choices, const std::string& text) {
  for (const auto& c : choices)
    if (lower(c) == lower(text)) return c;
  return "";
}

}  // namespace

Settings::Settings(const std::string& method, const std::vector<KeySpec>& keys,
                   const std::map<std::string, std::string>& set)
    : method_(method), keys_(keys) {
  for (const auto& kv : set) given_.insert(kv.first);
  std::vector<std::string> names;
  for (const auto& k : keys_) names.push_back(k.name);
  for (const auto& [key, value] : set) {
    const std::string& name = key;  // clang 14 captures no structured binding
    const auto it =
        std::find_if(keys_.begin(), keys_.end(), [&](const KeySpec& k) { return k.name == name; });
    if (it == keys_.end())
      fail("setting ", key, "=", value, ": ", method_, " has no key \"", key,
           "\" (its keys: ", names.empty() ? std::string("none") : joined(names), ")");
  }
  for (const auto& k : keys_) {
    const auto it = set.find(k.name);
    std::string value = it != set.end() ? it->second : k.def;
    const std::string origin = it != set.end() ? "setting " + k.name + "=" + value : "";
    if (value.empty()) {
      if (it == set.end())
        fail(method_, ": the key \"", k.name, "\" has no default: set ", k.name, "=<",
             type_name(k.type), ">");
      fail(origin, ": expected a ", type_name(k.type), " value, got an empty one");
    }
    double r = 0;
    long n = 0;
    bool b = false;
    switch (k.type) {
      case KeyType::real:
        if (!parse_real(value, r))
          fail(origin, ": expected a real number for ", method_, "'s ", k.name, ", got \"", value,
               "\"");
        break;
      case KeyType::integer:
        if (!parse_integer(value, n))
          fail(origin, ": expected an integer for ", method_, "'s ", k.name, ", got \"", value,
               "\"");
        break;
      case KeyType::boolean:
        if (!parse_bool(value, b))
          fail(origin, ": expected true or false for ", method_, "'s ", k.name, ", got \"", value,
               "\"");
        break;
      case KeyType::choice: {
        const std::string c = match_choice(k.choices, value);
        if (c.empty())
          fail(origin, ": expected one of ", joined(k.choices), " for ", method_, "'s ", k.name,
               ", got \"", value, "\"");
        value = c;
        break;
      }
    }
    values_[k.name] = value;
  }
}

const std::string& Settings::raw(const std::string& key, KeyType want) const {
  const auto it =
      std::find_if(keys_.begin(), keys_.end(), [&](const KeySpec& k) { return k.name == key; });
  require(it != keys_.end() && it->type == want, "cli::Settings", "internal: no key \"", key,
          "\" of type ", type_name(want), " in ", method_);
  read_.insert(key);
  return values_.at(key);
}

std::vector<std::string> Settings::unread() const {
  std::vector<std::string> out;
  for (const auto& k : given_)
    if (!read_.count(k)) out.push_back(k);
  return out;
}

double Settings::real(const std::string& key) const {
  double v = 0;
  parse_real(raw(key, KeyType::real), v);
  return v;
}

long Settings::integer(const std::string& key) const {
  long v = 0;
  parse_integer(raw(key, KeyType::integer), v);
  return v;
}

bool Settings::boolean(const std::string& key) const {
  bool v = false;
  parse_bool(raw(key, KeyType::boolean), v);
  return v;
}

const std::string& Settings::choice(const std::string& key) const {
  return raw(key, KeyType::choice);
}

// ---- the methods --------------------------------------------------------------------------

namespace {

// Both precisions from one generic evaluator: f.template operator()<S>(settings, inputs).
template <class F>
void set_eval(Method& m, F f) {
  m.eval_double = [f](const Settings& s, Named<double>& in) {
    return f.template operator()<double>(s, in);
  };
  m.eval_real50 = [f](const Settings& s, Named<Real50>& in) {
    return f.template operator()<Real50>(s, in);
  };
}

// A layer is evaluated through its analytic verify::Problem (autodiff/norms.hpp,
// sdd.hpp, scalevec.hpp), the same object the gradient tests check: the inputs
// in the problem's order, y from its forward or, with dy, y and "d" + name for
// every input from one forward-and-backward pass. make(settings) builds the
// problem for the config. The inputs go back into `in` when the pass is done.
template <class MakeProblem>
void set_layer_eval(Method& m, MakeProblem make) {
  set_eval(m, [make]<class S>(const Settings& s, Named<S>& in) {
    const verify::Problem pr = make(s);
    const verify::Differentiable<S>* f;
    if constexpr (std::is_same_v<S, double>)
      f = &pr.f64;
    else
      f = &pr.f50;
    std::vector<Mat<S>> xs;
    for (const auto& name : pr.input_names) xs.push_back(std::move(in.at(name)));
    const auto give_back = [&] {
      for (std::size_t i = 0; i < xs.size(); ++i) in[pr.input_names[i]] = std::move(xs[i]);
    };
    const auto dy = in.find("dy");
    if (dy == in.end()) {
      Named<S> out{{"y", f->forward(xs)}};
      give_back();
      return out;
    }
    verify::Vjp<S> r = f->value_and_backward(xs, dy->second);
    require(r.grads.size() == xs.size(), "cli", "internal: ", pr.name, " gave ", r.grads.size(),
            " gradients for ", xs.size(), " inputs");
    Named<S> out{{"y", std::move(r.y)}};
    for (std::size_t i = 0; i < r.grads.size(); ++i)
      out["d" + pr.input_names[i]] = std::move(r.grads[i]);
    give_back();
    return out;
  });
}

// A key of the command line from a setting of a spec header.
KeySpec key(const spec::Setting& s) {
  KeySpec k{std::string(s.name), s.type, "", {}, std::string(s.meaning)};
  switch (s.type) {
    case KeyType::real:
      k.def = num(s.number);
      break;
    case KeyType::integer:
      if (!s.required) k.def = std::to_string(static_cast<long>(s.number));
      break;
    case KeyType::boolean:
      k.def = s.number != 0 ? "true" : "false";
      break;
    case KeyType::choice:
      k.def = std::string(s.choice);
      for (std::size_t i = 0; i < s.n_choices; ++i) k.choices.emplace_back(s.choices[i]);
      break;
  }
  return k;
}

template <std::size_t N>
std::vector<KeySpec> keys(const std::array<spec::Setting, N>& settings) {
  std::vector<KeySpec> out;
  for (const spec::Setting& s : settings) out.push_back(key(s));
  return out;
}

std::vector<TensorSpec> tensors(const spec::TensorList& list) {
  std::vector<TensorSpec> out;
  for (const spec::Tensor& t : list)
    out.push_back({std::string(t.name),
                   {std::string(t.shape[0]), std::string(t.shape[1])},
                   t.initial,
                   std::string(t.initial_setting),
                   t.weight_decay,
                   std::string(t.source)});
  return out;
}

TensorSpec batch(const std::string& name, const std::string& d) {
  return {name, {"N", d}, {}, {}, false, {}};
}

// The value a choice key holds (Settings keeps the table's spelling).
template <class E, std::size_t N>
E chosen(const Settings& s, const std::string& key, const spec::NameTable<E, N>& table) {
  const std::optional<E> e = spec::value_of(table, s.choice(key));
  require(e.has_value(), "cli", "internal: no value named \"", s.choice(key), "\" for ", key);
  return *e;
}

// The keys SeeDNorm and AdaSeeDNorm share (AdaSeeDNorm holds gamma fixed at 1).
std::vector<KeySpec> seednorm_keys(bool with_gamma) {
  std::vector<KeySpec> k = keys(norm::seednorm::kSharedSettings);
  if (with_gamma) k.push_back(key(norm::seednorm::kGammaSetting));
  k.push_back(key(norm::seednorm::kAlphaInitSetting));
  return k;
}

// SeeDNorm's and AdaSeeDNorm's tolerance rule: the RMS over the whole row (heads
// or not: the per-head RMS is over a part of it).
oracle::Rule seednorm_rule(const Settings&, const std::string& out, const Dims& d) {
  return oracle::seednorm_rule(out, d.at("N"), d.at("D"));
}

norm::seednorm::Config seednorm_config(const Settings& s, bool with_gamma) {
  norm::seednorm::Config c;
  c.eps = s.real("eps");
  c.sigma = chosen(s, "sigma", norm::kActivationNames);
  const long heads = s.integer("heads");
  require(heads >= 1 && heads <= 1 << 30, "setting heads", "expected heads >= 1, got ", heads);
  c.heads = static_cast<int>(heads);
  c.alpha = chosen(s, "alpha", norm::seednorm::kAlphaForms);
  c.beta = chosen(s, "beta", norm::seednorm::kBetaForms);
  if (with_gamma) c.gamma = s.boolean("gamma");
  // alpha_init is alpha's initial value: read where alpha is left out (cli/evaluate.cpp)
  return c;
}

// ---- initializers ----

template <std::size_t... I>
init::Config init_by_index(std::size_t index, std::index_sequence<I...>) {
  init::Config c;
  ((index == I ? (c = init::Config(std::in_place_index<I>), 0) : 0), ...);
  return c;
}

init::Config init_config(const Settings& s) {
  init::Config c = init_by_index(chosen(s, "method", init::kMethods),
                                 std::make_index_sequence<std::variant_size_v<init::Config>>());
  std::visit(
      [&](auto& m) {
        if constexpr (requires { m.sigma; }) m.sigma = s.real("sigma");
        if constexpr (requires { m.n_layers; }) {
          const long n = s.integer("n_layers");
          require(n >= 0 && n <= 1 << 30, "setting n_layers", "expected n_layers >= 0, got ", n);
          m.n_layers = static_cast<int>(n);
        }
        if constexpr (requires { m.alpha; }) m.alpha = s.real("alpha");
        if constexpr (requires { m.gamma; }) m.gamma = s.real("gamma");
      },
      c);
  return c;
}

scalevec::Config scalevec_config(const Settings& s) {
  scalevec::Config c;
  c.strategy = chosen(s, "strategy", scalevec::kStrategyNames);
  c.eps = s.real("eps");
  if (c.strategy == scalevec::Strategy::dnp) {  // only DNP's n_h has heads
    const long heads = s.integer("heads");
    require(heads >= 1, "setting heads", "expected heads >= 1, got ", heads);
    c.heads = static_cast<Eigen::Index>(heads);
  }
  return c;
}

// ---- the table ----

std::vector<Method> build() {
  std::vector<Method> t;

  {  // RMSNorm
    Method m{"rmsnorm", Kind::layer, "y = gamma (.) x / RMS(x)", {}, {}, {}, "", {}, {}, {}};
    m.keys = keys(norm::rmsnorm::kSettings);
    m.inputs = [](const Settings& s) { return tensors(norm::rmsnorm::inputs({s.real("eps")})); };
    m.output = [](const Settings&) { return batch("y", "D"); };
    set_layer_eval(m,
                   [](const Settings& s) { return autodiff::analytic_rmsnorm({s.real("eps")}); });
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::rmsnorm_rule(out, d.at("N"), d.at("D"));
    };
    t.push_back(std::move(m));
  }

  {  // LayerNorm
    Method m{"layernorm", Kind::layer, "y = gamma (.) (x - mu) / sqrt(var + eps) + beta",
             {},          {},          {},
             "",          {},          {},
             {}};
    m.keys = keys(norm::layernorm::kSettings);
    m.inputs = [](const Settings& s) {
      return tensors(norm::layernorm::inputs({s.real("eps"), s.boolean("bias")}));
    };
    m.output = [](const Settings&) { return batch("y", "D"); };
    set_layer_eval(m, [](const Settings& s) {
      return autodiff::analytic_layernorm({s.real("eps"), s.boolean("bias")});
    });
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::layernorm_rule(out, d.at("N"), d.at("D"));
    };
    t.push_back(std::move(m));
  }

  {  // DyT
    Method m{"dyt", Kind::layer, "y = gamma (.) tanh(alpha x) + beta", {}, {}, {}, "", {}, {}, {}};
    m.keys = keys(norm::dyt::kSettings);
    // alpha_init is alpha's initial value: read where alpha is left out (cli/evaluate.cpp)
    m.inputs = [](const Settings& s) {
      return tensors(norm::dyt::inputs({.bias = s.boolean("bias")}));
    };
    m.output = [](const Settings&) { return batch("y", "D"); };
    set_layer_eval(
        m, [](const Settings& s) { return autodiff::analytic_dyt({.bias = s.boolean("bias")}); });
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::dyt_rule(out, d.at("N"), d.at("D"));
    };
    t.push_back(std::move(m));
  }

  {  // SeeDNorm
    Method m{"seednorm", Kind::layer, "y = [sigma(x . beta^T) alpha + gamma] (.) x / RMS(x)",
             {},         {},          {},
             "",         {},          {},
             {}};
    m.keys = seednorm_keys(true);
    m.inputs = [](const Settings& s) {
      return tensors(norm::seednorm::inputs(seednorm_config(s, true)));
    };
    m.output = [](const Settings&) { return batch("y", "D"); };
    set_layer_eval(
        m, [](const Settings& s) { return autodiff::analytic_seednorm(seednorm_config(s, true)); });
    m.rule = seednorm_rule;
    t.push_back(std::move(m));
  }

  {  // AdaSeeDNorm
    Method m{"adaseednorm",
             Kind::layer,
             "y = [(sigma(x . beta^T) alpha + 1) (.) x / RMS(x)] (.) (1 + gamma_c) + eta_c",
             {},
             {},
             {},
             "",
             {},
             {},
             {}};
    m.keys = seednorm_keys(false);
    m.inputs = [](const Settings& s) {
      return tensors(norm::adaseednorm::inputs(seednorm_config(s, false)));
    };
    m.output = [](const Settings&) { return batch("y", "D"); };
    set_layer_eval(m, [](const Settings& s) {
      return autodiff::analytic_adaseednorm(seednorm_config(s, false));
    });
    m.rule = seednorm_rule;
    t.push_back(std::move(m));
  }

  {  // SDD
    Method m{"sdd", Kind::layer, "y = alpha (.) norm(x V^T), norm(z) = z / sqrt(mean z^2 + eps)",
             {},    {},          {},
             "",    {},          {},
             {}};
    m.keys = keys(sdd::kSettings);
    m.inputs = [](const Settings& s) { return tensors(sdd::inputs({s.real("eps")})); };
    m.output = [](const Settings&) { return batch("y", "d_out"); };
    set_layer_eval(m, [](const Settings& s) { return autodiff::analytic_sdd({s.real("eps")}); });
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::sdd_rule(out, d.at("N"), d.at("d_in"), d.at("d_out"));
    };
    t.push_back(std::move(m));
  }

  {  // plain linear
    Method m{"linear", Kind::layer, "y = x W^T", {}, {}, {}, "", {}, {}, {}};
    m.inputs = [](const Settings&) { return tensors(linear::inputs()); };
    m.output = [](const Settings&) { return batch("y", "d_out"); };
    set_layer_eval(m, [](const Settings&) { return autodiff::analytic_linear(); });
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::linear_rule(out, d.at("N"), d.at("d_in"), d.at("d_out"));
    };
    t.push_back(std::move(m));
  }

  {  // scale-vector strategies
    Method m{"scalevec",
             Kind::layer,
             "a normalized linear map y = f(W, n(x)) with a scale-vector strategy (none: W n(x); "
             "standard: W (g (.) n(x)); AP: a (.) W n(x); DP: a (.) W (g (.) n(x)); DNP: a (.) "
             "n_h(W (g (.) n(x))); MD: W ((r u / RMS(u)) (.) n(x)))",
             {},
             {},
             {},
             "strategy",
             {},
             {},
             {}};
    m.keys = keys(scalevec::kSettings);
    m.inputs = [](const Settings& s) { return tensors(scalevec::inputs(scalevec_config(s))); };
    m.output = [](const Settings&) { return batch("y", "d_out"); };
    set_layer_eval(
        m, [](const Settings& s) { return autodiff::analytic_scalevec(scalevec_config(s)); });
    m.rule = [](const Settings& s, const std::string& out, const Dims& d) {
      const scalevec::Config c = scalevec_config(s);
      return oracle::scalevec_rule(c.strategy, out, d.at("N"), d.at("d_in"), d.at("d_out"),
                                   c.heads);
    };
    t.push_back(std::move(m));
  }

  {  // initializers
    Method m{"init",
             Kind::initializer,
             "draws W [d_out, d_in] from an initializer; element (i, j) uses index i * d_in + j "
             "of the stream (seed, tensor)",
             {},
             {},
             {},
             "",
             {},
             {},
             {}};
    m.keys = keys(init::kSettings);
    m.inputs = [](const Settings&) { return std::vector<TensorSpec>{}; };
    m.output = [](const Settings&) {
      return TensorSpec{"W", {"d_out", "d_in"}, {}, {}, false, {}};
    };
    set_eval(m, []<class S>(const Settings& s, const Named<S>&) {
      const long d_out = s.integer("d_out"), d_in = s.integer("d_in"), layer = s.integer("layer");
      const long seed = s.integer("seed"), tensor = s.integer("tensor");
      require(d_out >= 1 && d_in >= 1 && d_out <= (1L << 24) && d_in <= (1L << 24),
              "setting d_out, d_in", "expected 1 <= d_out, d_in <= 2^24, got ", d_out, " and ",
              d_in);
      require_memory("setting d_out, d_in", 2 * 8.0 * static_cast<double>(d_out) * d_in,
                     "W [d_out x d_in] in double, and its copy for the output,");
      require(layer >= 0 && layer <= (1L << 30), "setting layer", "expected layer >= 0, got ",
              layer);
      require(seed >= 0, "setting seed", "expected seed >= 0, got ", seed);
      require(tensor >= 0 && tensor <= 0xffffffffL, "setting tensor",
              "expected 0 <= tensor < 2^32, got ", tensor);
      const init::Shape shape{d_out, d_in, chosen(s, "role", init::kRoles)};
      const random::Stream rng{static_cast<std::uint64_t>(seed),
                               static_cast<std::uint32_t>(tensor)};
      return Named<S>{{"W", init::draw<S>(shape, static_cast<int>(layer), init_config(s), rng)}};
    });
    m.rule = [](const Settings&, const std::string& out, const Dims&) {
      return oracle::init_rule(out);
    };
    t.push_back(std::move(m));
  }

  // rescalers: W in, W out
  auto rescaler = [&](std::string name, std::string summary, std::vector<KeySpec> keys, auto f) {
    Method m{std::move(name),
             Kind::rescaler,
             std::move(summary),
             std::move(keys),
             {},
             {},
             "",
             {},
             {},
             {}};
    m.inputs = [](const Settings&) {
      return std::vector<TensorSpec>{{"W", {"rows", "cols"}, {}, {}, false, {}}};
    };
    m.output = [](const Settings&) { return TensorSpec{"W", {"rows", "cols"}, {}, {}, false, {}}; };
    set_eval(m, f);
    m.rule = [](const Settings&, const std::string& out, const Dims& d) {
      return oracle::rescale_rule(out, d.at("rows") * d.at("cols"));
    };
    t.push_back(std::move(m));
  };
  rescaler("uwr", "W / ||W||_F (unit weight rescaling)", {},
           []<class S>(const Settings&, const Named<S>& in) {
             return Named<S>{{"W", rescale::uwr(in.at("W"))}};
           });
  rescaler("zwr", "z-score W and rescale to std sigma_init, keeping its mean",
           keys(rescale::kZwrSettings), []<class S>(const Settings& s, const Named<S>& in) {
             return Named<S>{{"W", rescale::zwr(in.at("W"), s.real("sigma_init"),
                                                chosen(s, "std", metrics::kStdKinds))}};
           });
  rescaler("tvr", "rescale W to std sigma_target, keeping its mean (eq. 21)",
           keys(rescale::kTvrSettings), []<class S>(const Settings& s, const Named<S>& in) {
             return Named<S>{{"W", rescale::tvr(in.at("W"), s.real("sigma_target"),
                                                chosen(s, "std", metrics::kStdKinds))}};
           });
  rescaler("tvr_authors_code",
           "the authors' TVR: unbiased std, rescale only when std / sigma_target > threshold",
           keys(rescale::kTvrAuthorsCodeSettings),
           []<class S>(const Settings& s, const Named<S>& in) {
             return Named<S>{{"W", rescale::tvr_authors_code(in.at("W"), s.real("sigma_target"),
                                                             s.real("threshold"))}};
           });
  return t;
}

}  // namespace

const std::vector<Method>& registry() {
  static const std::vector<Method> table = build();
  return table;
}

const Method& find_method(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& m : registry()) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  fail("unknown method \"", name, "\": expected one of ", joined(names),
       " (scaleref methods lists them)");
}

}  // namespace scaleref::cli
