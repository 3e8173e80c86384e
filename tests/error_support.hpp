// What the tests of bad input share: the message of the scaleref::Error a
// call throws, and whether a message mentions a part (a key, a name).
#pragma once

#include <functional>
#include <scaleref/error.hpp>
#include <string>

namespace scaleref::test {

// The message of the scaleref::Error f throws, or "no error".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

inline bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

}  // namespace scaleref::test
