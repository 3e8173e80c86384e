// The bad-input corpus: every program a user runs (scaleref, scaleref_train,
// proofs_check) fed the inputs in tests/data/bad_inputs.json, one case per
// line. Each case runs the program in a fresh directory that holds only the
// case's files, and requires
//   - the exit status the case names (2, bad usage or input, unless it says),
//     reached by exiting and not by a signal (an abort, a sanitizer report);
//   - a message on stderr that contains the case's text (the problem named);
//   - the directory exactly as it was: no output, log or temporary file left
//     behind, and no input changed.
//
// A case: {"name", "program", "args", "message", "status" (optional, 2),
// "files" (optional)}. A file is one of
//   {"shape": [r, c]}                  random doubles in [-2, 2), fixed seed
//   {"shape": [r, c], "value": v}      every entry v
//   {"rows": [[...], ...]}             these entries
//   ... with "set": [[i, j, v], ...]   entries overwritten afterwards
//   {"text": "..."}                    these bytes
//   {"copy": "npy_malformed/x.npy"}    a copy of a file under tests/data/
//   {"dir": true}                      an empty directory
// Entries are numbers or the strings "nan", "inf", "-inf".
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <scaleref/io/npy.hpp>
#include <scaleref/types.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Case {
  std::string name;
  json spec;
};

// The case's name: ctest names each test Corpus/BadInput.<test>/<name> from it.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<Case> load_corpus() {
  std::ifstream in(SCALEREF_BAD_INPUTS);
  if (!in) throw std::runtime_error("cannot read " SCALEREF_BAD_INPUTS);
  const json all = json::parse(in);
  std::vector<Case> out;
  for (const json& c : all) out.push_back({c.at("name").get<std::string>(), c});
  return out;
}

const std::vector<Case>& corpus() {
  static const std::vector<Case> cases = load_corpus();
  return cases;
}

std::string program_path(const std::string& program) {
  static const std::map<std::string, std::string> paths = {
      {"scaleref", SCALEREF_CLI},
      {"scaleref_train", SCALEREF_TRAIN},
      {"proofs_check", SCALEREF_PROOFS_CHECK},
  };
  const auto it = paths.find(program);
  return it == paths.end() ? std::string() : it->second;
}

// 'text' for the shell, with any single quote inside closed and reopened.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) {
    if (ch == '\'')
      out.append("'\\''");
    else
      out.push_back(ch);
  }
  out.push_back('\'');
  return out;
}

double entry(const json& v) {
  return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>();
}

scaleref::Mat<double> matrix(const json& spec, std::mt19937_64& rng) {
  scaleref::Mat<double> m;
  if (spec.contains("rows")) {
    const json& rows = spec.at("rows");
    m.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j)
        m(i, j) = entry(rows.at(static_cast<std::size_t>(i)).at(static_cast<std::size_t>(j)));
  } else {
    const json& shape = spec.at("shape");
    m.resize(shape.at(0).get<Eigen::Index>(), shape.at(1).get<Eigen::Index>());
    std::uniform_real_distribution<double> u(-2, 2);
    for (Eigen::Index k = 0; k < m.size(); ++k)
      m.data()[k] = spec.contains("value") ? entry(spec.at("value")) : u(rng);
  }
  const json set = spec.value("set", json::array());
  for (const json& s : set)
    m(s.at(0).get<Eigen::Index>(), s.at(1).get<Eigen::Index>()) = entry(s.at(2));
  return m;
}

void make_file(const fs::path& path, const json& spec, std::mt19937_64& rng) {
  if (spec.contains("dir")) {
    fs::create_directory(path);
  } else if (spec.contains("text")) {
    std::ofstream(path, std::ios::binary) << spec.at("text").get<std::string>();
  } else if (spec.contains("copy")) {
    fs::copy_file(fs::path(SCALEREF_TEST_DATA) / spec.at("copy").get<std::string>(), path);
  } else {
    scaleref::npy::write(path.string(), scaleref::npy::from_matrix(matrix(spec, rng)));
  }
}

// Every path under `dir`, each with its bytes ("/" for a directory).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    out[rel] = e.is_directory() ? std::string("/") : read_all(e.path());
  }
  return out;
}

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, ExitsWithAMessageAndLeavesNothingBehind) {
  const json& c = GetParam().spec;
  const std::string program = program_path(c.at("program").get<std::string>());
  ASSERT_FALSE(program.empty()) << "unknown program " << c.at("program");
  const fs::path root = fs::path(::testing::TempDir()) /
                        ("bad_input_" + GetParam().name + "_" + std::to_string(::getpid()));
  const fs::path work = root / "work";
  fs::remove_all(root);
  fs::create_directories(work);
  std::mt19937_64 rng(20261125);
  const json files = c.value("files", json::object());
  for (const auto& [name, spec] : files.items()) make_file(work / name, spec, rng);
  const auto before = snapshot(work);

  // appended piece by piece: GCC 12 warns falsely on operator+ chains (-Wrestrict)
  std::string cmd = "cd ";
  cmd.append(quoted(work.string())).append(" && exec ").append(quoted(program));
  for (const json& a : c.at("args")) cmd.append(" ").append(quoted(a.get<std::string>()));
  cmd.append(" >").append(quoted((root / "stdout").string()));
  cmd.append(" 2>").append(quoted((root / "stderr").string()));
  const int raw = std::system(cmd.c_str());
  const std::string err = read_all(root / "stderr");

  ASSERT_TRUE(WIFEXITED(raw)) << cmd << "\nended by a signal, status " << raw << "\n" << err;
  EXPECT_EQ(WEXITSTATUS(raw), c.value("status", 2)) << cmd << "\n" << err;
  const std::string message = c.at("message").get<std::string>();
  EXPECT_NE(err.find(message), std::string::npos)
      << cmd << "\nexpected stderr to contain: " << message << "\nstderr:\n"
      << err << "\ncase: " << c.dump();
  const auto after = snapshot(work);
  for (const auto& [path, bytes] : after) {
    const auto it = before.find(path);
    if (it == before.end()) {
      ADD_FAILURE() << cmd << "\nleft " << path << " behind";
    } else {
      EXPECT_TRUE(it->second == bytes) << cmd << "\nchanged " << path;
    }
  }
  for (const auto& [path, bytes] : before)
    EXPECT_TRUE(after.count(path)) << cmd << "\nremoved the input " << path;
  if (!HasFailure()) fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(corpus()));

// The corpus itself: names usable as test names and unique, each program fed
// some of it, and every case with a message to look for.
TEST(BadInputCorpus, NamesEveryProgramAndAMessagePerCase) {
  std::set<std::string> names, programs;
  for (const Case& c : corpus()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    for (const char ch : c.name)
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') << c.name;
    programs.insert(c.spec.at("program").get<std::string>());
    EXPECT_FALSE(c.spec.at("message").get<std::string>().empty()) << c.name;
  }
  EXPECT_EQ(programs, (std::set<std::string>{"scaleref", "scaleref_train", "proofs_check"}));
}

}  // namespace
