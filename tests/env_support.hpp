// An environment variable set (or unset) for a scope, then restored: for the
// tests of what the library reads from the environment (SCALEREF_SECOND_PASS).
#pragma once

#include <cstdlib>
#include <string>

namespace scaleref::test {

class ScopedEnv {
 public:
  // value nullptr: unset while this lives
  ScopedEnv(const char* name, const char* value)
      : name_(name), had_(std::getenv(name) != nullptr), saved_(had_ ? std::getenv(name) : "") {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), saved_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_;
  std::string saved_;
};

}  // namespace scaleref::test
