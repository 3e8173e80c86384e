// The command-line tool's one table of methods: what `scaleref methods` lists
// and what `scaleref eval` runs. Each entry's input tensors (x first, then the
// parameters), their shapes in symbols (N, D, d_in, d_out, ...) and its config
// keys with their defaults come from the method's spec header
// (scaleref/spec/), which the reference and the gradient checks read too.
#pragma once

#include <functional>
#include <map>
#include <scaleref/oracle/rules.hpp>
#include <scaleref/spec/common.hpp>
#include <scaleref/types.hpp>
#include <set>
#include <string>
#include <vector>

namespace scaleref::cli {

// One tensor: its name (the file is <name>.npy) and its shape in symbols,
// e.g. {"x", {"N", "D"}}. A symbol is a dimension name or a decimal literal.
struct TensorSpec {
  std::string name;
  std::vector<std::string> shape;
  // The value a caller who leaves the tensor out gets (spec::Tensor's).
  spec::Initial initial = spec::Initial::none;
  std::string initial_setting;
  // Whether the paper puts the tensor under weight decay, and where it says so
  // (spec::Tensor's weight_decay and source; inputs: false, "").
  bool weight_decay = false;
  std::string decay_source;
};

std::string shape_text(const std::vector<std::string>& shape);  // "[N,D]"

using KeyType = spec::SettingType;

// One config key. An empty default means the key is required.
struct KeySpec {
  std::string name;
  KeyType type = KeyType::real;
  std::string def;
  std::vector<std::string> choices;  // KeyType::choice only
  std::string help;
};

const char* type_name(KeyType t);

// The --set values of one run, checked against the method's keys when made:
// an unknown key or a value of the wrong type is a scaleref::Error. It
// records which keys a run reads, so that a key the caller set and the
// method did not read (SeeDNorm's alpha_init next to a given alpha, heads for
// a scale-vector strategy other than DNP) is an error, not silently ignored.
class Settings {
 public:
  Settings(const std::string& method, const std::vector<KeySpec>& keys,
           const std::map<std::string, std::string>& set);
  double real(const std::string& key) const;
  long integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  const std::string& choice(const std::string& key) const;

  const std::string& method() const { return method_; }
  bool given(const std::string& key) const { return given_.count(key) > 0; }
  // The keys the caller set that nothing has read so far, in key order.
  std::vector<std::string> unread() const;

 private:
  const std::string& raw(const std::string& key, KeyType want) const;
  std::string method_;
  std::vector<KeySpec> keys_;
  std::map<std::string, std::string> values_;
  std::set<std::string> given_;
  mutable std::set<std::string> read_;
};

template <class S>
using Named = std::map<std::string, Mat<S>>;

// Runs a method: `in` holds x (when the method has one), every parameter and,
// when present, dy; the result holds y (or W for initializers and rescalers)
// and, with dy, dx and d<param> for every parameter. A run copies nothing it
// is given and keeps nothing: a layer moves its inputs into its problem while
// it runs and back into `in` when done, so the caller may reuse their storage.
template <class S>
using EvalFn = std::function<Named<S>(const Settings&, Named<S>&)>;

// The sizes a run bound its shape symbols to ("N", "D", "d_in", "rows", ...).
using Dims = std::map<std::string, long>;

enum class Kind { layer, initializer, rescaler };
const char* kind_name(Kind k);

struct Method {
  std::string name;
  Kind kind = Kind::layer;
  std::string summary;
  std::vector<KeySpec> keys;
  // The input tensors (x first, then parameters) and the output, for these settings.
  std::function<std::vector<TensorSpec>(const Settings&)> inputs;
  std::function<TensorSpec(const Settings&)> output;
  // The key whose choices change the tensor list (scalevec's strategy), or "".
  std::string variant_key;
  // How each output ("y", "dx", "d<param>", "W") is judged in a storage type, for
  // these settings and sizes (scaleref/oracle/rules.hpp).
  std::function<oracle::Rule(const Settings&, const std::string& output, const Dims&)> rule;
  EvalFn<double> eval_double;
  EvalFn<Real50> eval_real50;
};

// Every method of the reference, in listing order.
const std::vector<Method>& registry();

// The entry named `name`, else scaleref::Error listing the names.
const Method& find_method(const std::string& name);

}  // namespace scaleref::cli
