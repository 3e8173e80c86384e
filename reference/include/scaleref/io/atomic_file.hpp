// Writing a file whole or not at all: the text goes to a temporary name beside
// the target (same directory, so the rename cannot cross file systems), is
// flushed and checked, and is renamed over the target only when complete. A
// failure (a full disk, a target that is a directory, no permission) throws
// scaleref::Error naming the path and leaves the target as it was, with no
// temporary file behind.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <scaleref/error.hpp>
#include <string>
#include <string_view>
#include <system_error>

namespace scaleref::io {

inline void write_file_atomically(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  require(!fs::is_directory(path, ec), "io::write_file_atomically", "'", path, "' is a directory");
  const fs::path target(path);
  // .<name>.partial-<pid>, appended piece by piece (GCC 12 warns falsely on
  // operator+ chains of strings, -Wrestrict, bug 105329)
  std::string name = ".";
  name.append(target.filename().string()).append(".partial-").append(std::to_string(::getpid()));
  const fs::path tmp = target.parent_path() / name;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out.good()) {
      out.close();
      fs::remove(tmp, ec);
      fail("io::write_file_atomically: cannot write '", path, "' (", text.size(),
           " bytes; full disk, or no permission?)");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail("io::write_file_atomically: cannot move the complete file into place at '", path, "'");
  }
}

}  // namespace scaleref::io
