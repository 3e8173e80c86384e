// libFuzzer target for the values of `scaleref eval --set KEY=VALUE`
// (autodiff/cli/registry.hpp): for every method of the registry, cli::Settings
// made from the input's pairs (once all of them, once only the method's own
// keys), the method's tensors and output for them, every getter, and
// cli::evaluate on tiny fixed inputs. scaleref::Error is the only acceptable
// failure.
//
// Input: one KEY=VALUE per line, split at the first '=' (a later pair of the
// same key wins; a line without '=' is left out, as eval rejects it before
// any Settings). An odd-sized input gives the layers a dy too (the backward).
// An initializer's W is drawn only up to 4096 entries (d_out d_in), so that
// no input allocates much.
// Run: ./cli_settings_fuzz -max_total_time=60 CORPUS tests/data/fuzz/cli_settings
#include <cstddef>
#include <cstdint>
#include <map>
#include <scaleref/error.hpp>
#include <string>
#include <vector>

#include "evaluate.hpp"
#include "registry.hpp"

namespace {

using namespace scaleref;

// The size of a shape symbol in the fixed inputs: heads of 1, 2 or 4 divide D and d_out.
long size_of(const std::string& sym) {
  static const std::map<std::string, long> sizes{{"N", 2},     {"D", 4},    {"d_in", 3},
                                                 {"d_out", 4}, {"rows", 2}, {"cols", 3}};
  if (!sym.empty() && sym[0] >= '0' && sym[0] <= '9') return std::stol(sym);
  const auto it = sizes.find(sym);
  return it == sizes.end() ? 2 : it->second;
}

cli::Array fixed_array(const cli::TensorSpec& t) {
  const long rows = size_of(t.shape[0]), cols = size_of(t.shape[1]);
  cli::Array a;
  a.shape = t.shape[0] == "1" ? std::vector<long>{cols} : std::vector<long>{rows, cols};
  a.values.resize(rows, cols);
  for (long i = 0; i < a.values.size(); ++i)
    a.values.data()[i] = 0.3 * static_cast<double>(i % 7) - 0.8;
  return a;
}

void evaluate_tiny(const cli::Method& m, const cli::Settings& s, bool backward) {
  if (m.kind == cli::Kind::initializer) {
    cli::Settings peek = s;  // reading marks a key read: peek on a copy
    const long d_out = peek.integer("d_out"), d_in = peek.integer("d_in");
    if (d_out < 1 || d_in < 1 || d_out > 4096 || d_in > 4096 / d_out) return;
  }
  std::map<std::string, cli::Array> in;
  for (const cli::TensorSpec& t : m.inputs(s))
    if (t.initial == spec::Initial::none) in[t.name] = fixed_array(t);
  if (backward && m.kind == cli::Kind::layer) {
    cli::TensorSpec dy = m.output(s);
    in["dy"] = fixed_array(dy);
  }
  cli::evaluate(m, s, std::move(in));
}

void read_every_key(const cli::Method& m, const cli::Settings& s) {
  for (const cli::KeySpec& k : m.keys) {
    switch (k.type) {
      case cli::KeyType::real:
        s.real(k.name);
        break;
      case cli::KeyType::integer:
        s.integer(k.name);
        break;
      case cli::KeyType::boolean:
        s.boolean(k.name);
        break;
      case cli::KeyType::choice:
        s.choice(k.name);
        break;
    }
  }
  s.unread();
}

void one_method(const cli::Method& m, const std::map<std::string, std::string>& set,
                bool backward) {
  try {
    const cli::Settings s(m.name, m.keys, set);
    m.inputs(s);
    m.output(s);
    evaluate_tiny(m, s, backward);
  } catch (const Error&) {
  }
  try {
    const cli::Settings s(m.name, m.keys, set);
    read_every_key(m, s);
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> set;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    if (const std::size_t eq = line.find('='); eq != std::string::npos && eq > 0)
      set[line.substr(0, eq)] = line.substr(eq + 1);
    pos = end + 1;
  }
  const bool backward = size % 2 == 1;
  for (const cli::Method& m : cli::registry()) {
    one_method(m, set, backward);
    std::map<std::string, std::string> own;
    for (const cli::KeySpec& k : m.keys)
      if (const auto it = set.find(k.name); it != set.end()) own.insert(*it);
    one_method(m, own, backward);
  }
  return 0;
}
