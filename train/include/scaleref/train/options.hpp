// Key = value options, the text front end of a training run: a config file
// (one `key = value` per line, `#` starts a comment) and flags (`--key=value`
// or `--key value`), later entries overriding earlier ones. parse_setup
// (trainer.hpp) reads a run from them into the typed Setup.
//
// Every reader marks its key as used; finish() then rejects any key no reader
// asked for, so a misspelt option is an Error naming it instead of a silently
// ignored default. Every Error names the key and the value that came.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace scaleref::train {

class Options {
 public:
  void set(const std::string& key, const std::string& value);
  bool has(const std::string& key) const { return values_.count(key) != 0; }

  // Lines `key = value`; blank lines and `#` comments are skipped.
  void read_text(std::string_view text, const std::string& origin = "text");
  void read_file(const std::string& path);

  // --key=value and --key value; `--config FILE` reads a file in place.
  // Returns the arguments that are not options (none are expected by the
  // callers, which reject them).
  std::vector<std::string> read_args(const std::vector<std::string>& args);

  // ---- readers: each marks its key used -----------------------------------------------
  std::string get_string(const std::string& key, const std::string& fallback);
  long get_int(const std::string& key, long fallback);
  std::uint64_t get_uint64(const std::string& key, std::uint64_t fallback);
  double get_double(const std::string& key, double fallback);
  bool get_bool(const std::string& key, bool fallback);

  // One of the names of `table` (exact spelling, scaleref/spec/): its value.
  template <class E, std::size_t N>
  E get_choice(const std::string& key, E fallback, const spec::NameTable<E, N>& table) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    if (const std::optional<E> e = spec::value_of(table, v)) return *e;
    std::string all;
    for (const auto& entry : table) (all += all.empty() ? "" : ", ") += entry.name;
    fail("train::Options: key '", key, "': unknown value '", v, "', expected one of ", all);
  }

  // Throws Error naming every key no reader asked for.
  void finish() const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

}  // namespace scaleref::train
