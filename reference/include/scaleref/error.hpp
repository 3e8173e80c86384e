// scaleref::Error: the one exception type for bad input anywhere in scaleref.
//
// Every message names the function, what it expected and what it got, e.g.
//   "tape::matmul: expected a.cols() == b.rows(), got a [3x4] and b [5x2]".
// Nothing in scaleref clamps or repairs bad input silently.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace scaleref {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Builds a message from any streamable parts and throws Error.
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw Error(os.str());
}

// Throws Error(where + ": " + parts...) unless `ok`.
template <class... Parts>
void require(bool ok, const char* where, const Parts&... parts) {
  if (!ok) fail(where, ": ", parts...);
}

}  // namespace scaleref
