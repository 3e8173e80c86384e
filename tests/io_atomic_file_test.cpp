// io::write_file_atomically: the file is whole or untouched, and no temporary
// file is left behind either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <string>

namespace fs = std::filesystem;
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

}  // namespace
