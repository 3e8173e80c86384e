// Key = value options, the one input format of the tiny LM and its trainer:
// a config file (one `key = value` per line, `#` starts a comment) and flags
// (`--key=value` or `--key value`), later entries overriding earlier ones.
//
// Every reader marks its key as used; finish() then rejects any key no reader
// asked for, so a misspelt option is an Error naming it instead of a silently
// ignored default. Every Error names the key and the value that came.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scaleref::lm {

class Options {
 public:
  Options() = default;

  void set(const std::string& key, const std::string& value) {
    require(!key.empty(), "lm::Options", "expected a non-empty key, got '' = '", value, "'");
    values_[key] = value;
  }
  bool has(const std::string& key) const { return values_.count(key) != 0; }

  // Lines `key = value`; blank lines and `#` comments are skipped.
  void read_text(std::string_view text, const std::string& origin = "text") {
    long line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t end = std::min(text.find('\n', pos), text.size());
      std::string line(text.substr(pos, end - pos));
      pos = end + 1;
      ++line_no;
      if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      line = trim(line);
      if (line.empty()) continue;
      const auto eq = line.find('=');
      require(eq != std::string::npos, "lm::Options", origin, ":", line_no,
              ": expected 'key = value', got '", line, "'");
      set(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
    }
  }

  void read_file(const std::string& path) {
    std::ifstream in(path);
    require(in.good(), "lm::Options", "cannot open config file '", path, "'");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    read_text(text, path);
  }

  // --key=value and --key value; `--config FILE` reads a file in place.
  // Returns the arguments that are not options (none are expected by the
  // callers, which reject them).
  std::vector<std::string> read_args(const std::vector<std::string>& args) {
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind("--", 0) != 0) {
        rest.push_back(a);
        continue;
      }
      std::string key = a.substr(2), value;
      if (const auto eq = key.find('='); eq != std::string::npos) {
        value = key.substr(eq + 1);
        key.erase(eq);
      } else {
        require(i + 1 < args.size(), "lm::Options", "option --", key, " expects a value");
        value = args[++i];
      }
      if (key == "config")
        read_file(value);
      else
        set(key, value);
    }
    return rest;
  }

  // ---- readers: each marks its key used -----------------------------------------------
  std::string get_string(const std::string& key, const std::string& fallback) {
    used_.insert(key);
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }

  long get_int(const std::string& key, long fallback) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    std::size_t n = 0;
    long out = 0;
    try {
      out = std::stol(v, &n);
    } catch (const std::exception&) {
      n = 0;
    }
    require(n == v.size() && !v.empty(), "lm::Options", "key '", key,
            "': expected an integer, got '", v, "'");
    return out;
  }

  std::uint64_t get_uint64(const std::string& key, std::uint64_t fallback) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    std::size_t n = 0;
    unsigned long long out = 0;
    try {
      out = std::stoull(v, &n);
    } catch (const std::exception&) {
      n = 0;
    }
    require(n == v.size() && !v.empty() && v[0] != '-', "lm::Options", "key '", key,
            "': expected a non-negative integer, got '", v, "'");
    return out;
  }

  double get_double(const std::string& key, double fallback) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    std::size_t n = 0;
    double out = 0;
    try {
      out = std::stod(v, &n);
    } catch (const std::exception&) {
      n = 0;
    }
    require(n == v.size() && !v.empty(), "lm::Options", "key '", key, "': expected a number, got '",
            v, "'");
    return out;
  }

  bool get_bool(const std::string& key, bool fallback) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
    if (v == "false" || v == "0" || v == "off" || v == "no") return false;
    fail("lm::Options: key '", key, "': expected true or false, got '", v, "'");
  }

  // One of the names of `table` (exact spelling, scaleref/spec/): its value.
  template <class E, std::size_t N>
  E get_choice(const std::string& key, E fallback, const spec::NameTable<E, N>& table) {
    const std::string v = get_string(key, "");
    if (!has(key)) return fallback;
    if (const std::optional<E> e = spec::value_of(table, v)) return *e;
    std::string all;
    for (const auto& entry : table) (all += all.empty() ? "" : ", ") += entry.name;
    fail("lm::Options: key '", key, "': unknown value '", v, "', expected one of ", all);
  }

  // Throws Error naming every key no reader asked for.
  void finish() const {
    std::string unknown;
    for (const auto& [key, value] : values_)
      if (!used_.count(key)) unknown += (unknown.empty() ? "" : ", ") + key + " = " + value;
    require(unknown.empty(), "lm::Options", "unknown key(s): ", unknown);
  }

 private:
  static std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
  }

  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

}  // namespace scaleref::lm
