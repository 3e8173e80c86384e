// Output files written whole or not at all. The text goes to a temporary name
// beside the target (same directory, so the rename cannot cross file systems),
// is flushed and checked, and is renamed over the target only when complete. A
// failure (a full disk, a target that is a directory, no permission), an
// exception or an early return leaves the target as it was, with no temporary
// file behind; a failure throws scaleref::Error naming the path.
//
// A target that is a symbolic link is written through it: the file its chain
// of links ends at is replaced (or created) and the links kept. A stream
// (/dev/null, /dev/stdout, a FIFO: detail::is_stream) cannot be replaced by a
// rename; it is appended to directly and never replaced by a file. Any other
// target that is not a regular file (a block device) is refused.
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

namespace detail {

// A target written in place, as a stream: an existing character device, FIFO
// or socket (/dev/null), or any path under /dev/ or /proc/ (/dev/stdout may
// name a regular file the shell redirected to, which a rename would replace).
inline bool is_stream(const std::filesystem::path& path) {
  const std::string s = path.lexically_normal().string();
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);  // follows a link
  if (!std::filesystem::exists(st)) return false;
  return s.rfind("/dev/", 0) == 0 || s.rfind("/proc/", 0) == 0 ||
         std::filesystem::is_character_file(st) || std::filesystem::is_fifo(st) ||
         std::filesystem::is_socket(st);
}

// The file that a write to `path` replaces: `path`, or the file its chain of
// symbolic links ends at, existing or not (a relative target is read against
// its link's directory). Error on a chain longer than 40 links (a loop).
inline std::filesystem::path replaced_file(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops <= 40; ++hops) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec))) return p;
    const std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    require(!ec, "io::AtomicFile", "cannot read the symbolic link '", p.string(), "'");
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fail("io::AtomicFile: '", path.string(), "' is a chain of more than 40 symbolic links (a loop?)");
}

}  // namespace detail

// Throws Error unless `path` can be written: not a directory, in an existing
// directory that may be written (or an existing stream target that may be).
// Programs call it before long work, so that a bad output path is refused at
// once and not after the work.
inline void require_writable(const std::filesystem::path& path) {
  std::error_code ec;
  require(!path.empty(), "io::AtomicFile", "an empty file name");
  require(!std::filesystem::is_directory(path, ec), "io::AtomicFile", "'", path.string(),
          "' is a directory");
  if (detail::is_stream(path)) {
    require(::access(path.c_str(), W_OK) == 0, "io::AtomicFile", "no permission to write '",
            path.string(), "'");
    return;
  }
  const std::filesystem::path file = detail::replaced_file(path);
  require(!std::filesystem::exists(file, ec) || std::filesystem::is_regular_file(file, ec),
          "io::AtomicFile", "'", path.string(), "' is not a regular file");
  const std::filesystem::path parent = file.parent_path();
  const std::filesystem::path dir = parent.empty() ? std::filesystem::path(".") : parent;
  require(std::filesystem::is_directory(dir, ec), "io::AtomicFile", "cannot write '", path.string(),
          "': no such directory '", dir.string(), "'");
  require(::access(dir.c_str(), W_OK) == 0, "io::AtomicFile", "cannot write '", path.string(),
          "': no permission to write in '", dir.string(), "'");
}

// Write to stream(), then commit(). Destroyed without commit(), it removes its
// temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& path) : path_(path) {
    require_writable(path_);
    if (detail::is_stream(path_)) {  // written in place, appended; nothing to rename
      out_.open(path_, std::ios::binary | std::ios::app);
      require(out_.is_open(), "io::AtomicFile", "cannot write '", path_.string(), "'");
      return;
    }
    replaced_ = detail::replaced_file(path_);
    // .<name>.partial-<pid>, appended piece by piece (GCC 12 warns falsely on
    // operator+ chains of strings, -Wrestrict, bug 105329)
    std::string name = ".";
    name.append(replaced_.filename().string())
        .append(".partial-")
        .append(std::to_string(::getpid()));
    tmp_ = replaced_.parent_path() / name;
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
    if (!tmp_.empty()) std::filesystem::remove(tmp_, ec);
  }

  std::ostream& stream() { return out_; }

  // Flushes, checks every write, and moves the complete file into place.
  void commit() {
    out_.flush();
    const bool written = out_.good();
    out_.close();
    std::error_code ec;
    if (!written || out_.fail()) {
      if (!tmp_.empty()) std::filesystem::remove(tmp_, ec);
      fail("io::AtomicFile: cannot write '", path_.string(), "' (full disk?)");
    }
    committed_ = tmp_.empty();  // a stream target is complete once flushed
    if (committed_) return;
    std::filesystem::rename(tmp_, replaced_, ec);
    if (ec) {
      std::filesystem::remove(tmp_, ec);
      fail("io::AtomicFile: cannot move the complete file into place at '", path_.string(), "'");
    }
    committed_ = true;
  }

 private:
  std::filesystem::path path_;
  // The file renamed over and its temporary; both empty for a stream target.
  std::filesystem::path replaced_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFile f(path);
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  f.commit();
}

}  // namespace scaleref::io
