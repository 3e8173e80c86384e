#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <scaleref/train/options.hpp>
#include <system_error>

namespace scaleref::train {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

void Options::set(const std::string& key, const std::string& value) {
  require(!key.empty(), "train::Options", "expected a non-empty key, got '' = '", value, "'");
  values_[key] = value;
}

void Options::read_text(std::string_view text, const std::string& origin) {
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
    require(eq != std::string::npos, "train::Options", origin, ":", line_no,
            ": expected 'key = value', got '", line, "'");
    set(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
  }
}

void Options::read_file(const std::string& path) {
  std::error_code ec;
  require(!std::filesystem::is_directory(path, ec), "train::Options", "config file '", path,
          "' is a directory");
  std::ifstream in(path);
  require(in.good(), "train::Options", "cannot open config file '", path, "'");
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {  // libstdc++ throws on a read error
    fail("train::Options: cannot read config file '", path, "': ", e.what());
  }
  read_text(text, path);
}

std::vector<std::string> Options::read_args(const std::vector<std::string>& args) {
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
      require(i + 1 < args.size(), "train::Options", "option --", key, " expects a value");
      value = args[++i];
    }
    if (key == "config")
      read_file(value);
    else
      set(key, value);
  }
  return rest;
}

std::string Options::get_string(const std::string& key, const std::string& fallback) {
  used_.insert(key);
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

long Options::get_int(const std::string& key, long fallback) {
  const std::string v = get_string(key, "");
  if (!has(key)) return fallback;
  std::size_t n = 0;
  long out = 0;
  try {
    out = std::stol(v, &n);
  } catch (const std::exception&) {
    n = 0;
  }
  require(n == v.size() && !v.empty(), "train::Options", "key '", key,
          "': expected an integer, got '", v, "'");
  return out;
}

std::uint64_t Options::get_uint64(const std::string& key, std::uint64_t fallback) {
  const std::string v = get_string(key, "");
  if (!has(key)) return fallback;
  std::size_t n = 0;
  unsigned long long out = 0;
  try {
    out = std::stoull(v, &n);
  } catch (const std::exception&) {
    n = 0;
  }
  require(n == v.size() && !v.empty() && v[0] != '-', "train::Options", "key '", key,
          "': expected a non-negative integer, got '", v, "'");
  return out;
}

double Options::get_double(const std::string& key, double fallback) {
  const std::string v = get_string(key, "");
  if (!has(key)) return fallback;
  std::size_t n = 0;
  double out = 0;
  try {
    out = std::stod(v, &n);
  } catch (const std::exception&) {
    n = 0;
  }
  require(n == v.size() && !v.empty(), "train::Options", "key '", key,
          "': expected a number, got '", v, "'");
  return out;
}

bool Options::get_bool(const std::string& key, bool fallback) {
  const std::string v = get_string(key, "");
  if (!has(key)) return fallback;
  if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "off" || v == "no") return false;
  fail("train::Options: key '", key, "': expected true or false, got '", v, "'");
}

void Options::finish() const {
  std::string unknown;
  for (const auto& [key, value] : values_)
    if (!used_.count(key)) unknown += (unknown.empty() ? "" : ", ") + key + " = " + value;
  require(unknown.empty(), "train::Options", "unknown key(s): ", unknown);
}

}  // namespace scaleref::train
