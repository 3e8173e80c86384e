// io::write_file_atomically: the file is whole or untouched, and no temporary
// file is left behind either way.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <string>

namespace fs = std::filesystem;
using scaleref::io::require_writable;
using scaleref::io::write_file_atomically;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("atomic_file_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The directory holds exactly these names.
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesAWholeFile) {
  const fs::path f = dir_ / "a.json";
  write_file_atomically(f.string(), "first");
  EXPECT_EQ(read_all(f), "first");
  write_file_atomically(f.string(), std::string(1 << 20, 'x'));
  EXPECT_EQ(read_all(f), std::string(1 << 20, 'x'));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, AFailureLeavesTheTargetAsItWasAndNoTemporary) {
  const fs::path sub = dir_ / "sub";
  fs::create_directory(sub);
  try {
    write_file_atomically(sub.string(), "text");
    ADD_FAILURE() << "a directory target was accepted";
  } catch (const scaleref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(sub));
  const fs::path missing = dir_ / "no_such_dir" / "a.json";
  try {
    write_file_atomically(missing.string(), "text");
    ADD_FAILURE() << "a file in a missing directory was written";
  } catch (const scaleref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), 1u);  // only sub
}

// Through a symbolic link the named file is replaced and the link kept (a
// rename over the link would have turned it into a plain file).
TEST_F(AtomicFile, WritesThroughASymbolicLink) {
  fs::create_directory(dir_ / "real");
  const fs::path target = dir_ / "real" / "log.csv", link = dir_ / "log.csv";
  write_file_atomically(target, "old");
  fs::create_symlink(target, link);
  write_file_atomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_all(target), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), {}), 1);  // no temporary
}

// A relative link is read against its own directory, a dangling link creates
// the file it names (the link kept), and a loop is refused with nothing written.
TEST_F(AtomicFile, FollowsRelativeAndDanglingLinksAndRefusesALoop) {
  fs::create_directory(dir_ / "real");
  fs::create_directory(dir_ / "links");
  fs::create_symlink("../real/a.csv", dir_ / "links" / "a.csv");  // dangling until written
  write_file_atomically(dir_ / "links" / "a.csv", "first");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "links" / "a.csv")));
  EXPECT_EQ(read_all(dir_ / "real" / "a.csv"), "first");
  fs::create_symlink("b", dir_ / "links" / "c");  // b -> c -> b
  fs::create_symlink("c", dir_ / "links" / "b");
  try {
    write_file_atomically(dir_ / "links" / "b", "text");
    ADD_FAILURE() << "a loop of links was written";
  } catch (const scaleref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic links"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "links"), {}), 3);  // a.csv, b, c
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), {}), 1);
}

// A target that is not a regular file is written as a stream and stays what it
// was: /dev/null is still a character device (a rename, as root, would have
// put a plain file in its place), and /dev/full reports the full disk.
TEST_F(AtomicFile, StreamsAreWrittenInPlace) {
  write_file_atomically("/dev/null", "discarded");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (fs::exists("/dev/full")) {
    try {
      write_file_atomically("/dev/full", std::string(1 << 16, 'x'));
      ADD_FAILURE() << "a write to /dev/full succeeded";
    } catch (const scaleref::Error& e) {
      EXPECT_NE(std::string(e.what()).find("full disk"), std::string::npos) << e.what();
    }
  }
}

// The check programs make before their work: the same refusals, and nothing
// created.
TEST_F(AtomicFile, RequireWritableRefusesWhatAWriteWouldRefuse) {
  EXPECT_NO_THROW(require_writable(dir_ / "new.json"));
  EXPECT_NO_THROW(require_writable("/dev/null"));
  EXPECT_THROW(require_writable(dir_), scaleref::Error);
  EXPECT_THROW(require_writable(dir_ / "missing" / "a.json"), scaleref::Error);
  EXPECT_THROW(require_writable(""), scaleref::Error);
  EXPECT_EQ(entries(), 0u);
}

}  // namespace
