// Refusing work that cannot fit in memory before allocating it: a size a user
// gives (a model's width, an initializer's shape) is checked against what this
// process may allocate, and the message says how much the work would need.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <scaleref/error.hpp>
#include <string>

namespace scaleref {

// The bytes this process may allocate at most: the machine's physical memory,
// or the address-space limit (ulimit -v) when that is lower. Infinity when
// neither can be read.
inline double memory_limit_bytes() {
  double limit = std::numeric_limits<double>::infinity();
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) limit = static_cast<double>(pages) * static_cast<double>(page);
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    limit = std::min(limit, static_cast<double>(as.rlim_cur));
  return limit;
}

// Bytes as text: "3.2 GiB", "512 MiB", "2.0e+06 TiB".
inline std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  char buf[48];
  std::snprintf(buf, sizeof buf, bytes < 1e5 ? "%.3g %s" : "%.2e %s", bytes, units[u]);
  return buf;
}

// Throws Error naming `where` when `bytes` (at least what `what` would
// allocate; a double, so that absurd sizes do not overflow) exceed
// memory_limit_bytes().
inline void require_memory(const char* where, double bytes, const std::string& what) {
  const double limit = memory_limit_bytes();
  require(bytes <= limit, where, what, " needs at least ", bytes_text(bytes), ", more than the ",
          bytes_text(limit), " this process may allocate");
}

}  // namespace scaleref
