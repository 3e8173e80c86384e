// Output files written whole or not at all. The text goes to a temporary name
// beside the target (same directory, so the rename cannot cross file systems),
// is flushed and checked, and is renamed over the target only when complete. A
// failure (a full disk, a target that is a directory, no permission), an
// exception or an early return leaves the target as it was, with no temporary
// file behind; a failure throws scaleref::Error naming the path.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <scaleref/error.hpp>
#include <string>
#include <string_view>
#include <system_error>

namespace scaleref::io {

// Write to stream(), then commit(). Destroyed without commit(), it removes its
// temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& path) : path_(path) {
    std::error_code ec;
    require(!std::filesystem::is_directory(path_, ec), "io::AtomicFile", "'", path_.string(),
            "' is a directory");
    // .<name>.partial-<pid>, appended piece by piece (GCC 12 warns falsely on
    // operator+ chains of strings, -Wrestrict, bug 105329)
    std::string name = ".";
    name.append(path_.filename().string()).append(".partial-").append(std::to_string(::getpid()));
    tmp_ = path_.parent_path() / name;
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    require(out_.is_open(), "io::AtomicFile", "cannot write '", path_.string(),
            "' (no such directory, or no permission?)");
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (committed_) return;
    out_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }

  std::ostream& stream() { return out_; }

  // Flushes, checks every write, and moves the complete file into place.
  void commit() {
    out_.flush();
    const bool written = out_.good();
    out_.close();
    std::error_code ec;
    if (!written || out_.fail()) {
      std::filesystem::remove(tmp_, ec);
      fail("io::AtomicFile: cannot write '", path_.string(), "' (full disk?)");
    }
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) {
      std::filesystem::remove(tmp_, ec);
      fail("io::AtomicFile: cannot move the complete file into place at '", path_.string(), "'");
    }
    committed_ = true;
  }

 private:
  std::filesystem::path path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFile f(path);
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  f.commit();
}

}  // namespace scaleref::io
