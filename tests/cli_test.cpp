// The `scaleref` command-line tool, run as a separate process (its path is
// SCALEREF_CLI): `methods --json` lists the registry, `eval` reproduces the
// reference bitwise in double and to ~1e-15 in Real50, `compare` exits 0/1,
// and bad input exits 2 with a message.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <scaleref/init/initializers.hpp>
#include <scaleref/init/rescale.hpp>
#include <scaleref/io/npy.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <scaleref/sdd/layer.hpp>
#include <scaleref/verify/compare.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "registry.hpp"

namespace fs = std::filesystem;
using namespace scaleref;

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("scaleref_cli_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  Result run(const std::string& args) const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd = std::string("'") + SCALEREF_CLI + "' " + args + " >'" + out.string() +
                            "' 2>'" + err.string() + "'";
    const int raw = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  void put(const std::string& name, const Mat<double>& m) const {
    npy::write((dir_ / (name + ".npy")).string(), npy::from_matrix(m));
  }
  Mat<double> got(const std::string& name) const {
    return npy::to_matrix(npy::read((dir_ / "out" / (name + ".npy")).string()));
  }
  std::string dir() const { return "--dir '" + dir_.string() + "'"; }

  Mat<double> random(long r, long c, double lo = -2, double hi = 2) {
    std::uniform_real_distribution<double> u(lo, hi);
    Mat<double> m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = u(rng_);
    return m;
  }

  fs::path dir_;
  std::mt19937_64 rng_{20261122};
};

::testing::AssertionResult bitwise(const char* ea, const char*, const Mat<double>& a,
                                   const Mat<double>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return ::testing::AssertionFailure()
           << ea << ": shape " << shape_str(a) << " vs " << shape_str(b);
  if (a.size() > 0 &&
      std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) != 0)
    return ::testing::AssertionFailure()
           << ea << ": not bitwise equal\n"
           << verify::compare<double>(ea, a, b, {0, 0, "bitwise"}).str();
  return ::testing::AssertionSuccess();
}

// ---- methods ------------------------------------------------------------------------------

TEST_F(CliTest, MethodsJsonListsEveryRegistryEntry) {
  const Result r = run("methods --json");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(r.out)) << r.out;
  const nlohmann::json& methods = doc.at("methods");
  const auto& reg = cli::registry();
  ASSERT_EQ(methods.size(), reg.size());
  for (std::size_t i = 0; i < reg.size(); ++i) {
    const cli::Method& m = reg[i];
    const nlohmann::json& j = methods.at(i);
    EXPECT_EQ(j.at("name"), m.name);
    EXPECT_EQ(j.at("kind"), cli::kind_name(m.kind));
    std::map<std::string, std::string> set;
    for (const auto& k : m.keys)
      if (k.def.empty()) set[k.name] = "1";
    const cli::Settings s(m.name, m.keys, set);
    const auto inputs = m.inputs(s);
    ASSERT_EQ(j.at("inputs").size(), inputs.size()) << m.name;
    for (std::size_t t = 0; t < inputs.size(); ++t) {
      EXPECT_EQ(j.at("inputs").at(t).at("name"), inputs[t].name);
      EXPECT_EQ(j.at("inputs").at(t).at("shape"), cli::shape_text(inputs[t].shape));
    }
    if (m.kind == cli::Kind::layer) {
      EXPECT_EQ(inputs.at(0).name, "x") << m.name;
    }
    ASSERT_EQ(j.at("keys").size(), m.keys.size()) << m.name;
    for (std::size_t k = 0; k < m.keys.size(); ++k) {
      const nlohmann::json& key = j.at("keys").at(k);
      EXPECT_EQ(key.at("name"), m.keys[k].name);
      // a required key (no default) has "default": null
      EXPECT_EQ(key.at("default"),
                m.keys[k].def.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.keys[k].def));
    }
  }
  // The brief's must-haves.
  std::vector<std::string> names;
  for (const auto& j : methods) names.push_back(j.at("name").get<std::string>());
  for (const char* want : {"rmsnorm", "layernorm", "dyt", "seednorm", "adaseednorm", "sdd",
                           "linear", "scalevec", "init", "uwr", "zwr", "tvr", "tvr_authors_code"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  const nlohmann::json& seed = methods.at(
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "seednorm") - names.begin()));
  std::vector<std::string> keys;
  for (const auto& k : seed.at("keys")) keys.push_back(k.at("name").get<std::string>());
  EXPECT_EQ(keys, (std::vector<std::string>{"eps", "sigma", "heads", "alpha", "beta", "gamma",
                                            "alpha_init"}));
  EXPECT_EQ(run("methods").status, 0);
}

// ---- eval: bitwise equal to the reference in double ---------------------------------------

TEST_F(CliTest, EvalRmsnormEqualsReference) {
  const Mat<double> x = random(5, 8), gamma = random(1, 8), dy = random(5, 8);
  put("x", x);
  put("gamma", gamma);
  put("dy", dy);
  const Result r = run("eval rmsnorm " + dir());
  ASSERT_EQ(r.status, 0) << r.err;
  const norm::rmsnorm::Params<double> p{gamma};
  const norm::rmsnorm::Config c;
  norm::rmsnorm::Cache<double> k;
  EXPECT_PRED_FORMAT2(bitwise, got("y"), norm::rmsnorm::forward(p, c, x, &k));
  const auto g = norm::rmsnorm::backward(p, c, k, dy);
  EXPECT_PRED_FORMAT2(bitwise, got("dx"), g.dx);
  EXPECT_PRED_FORMAT2(bitwise, got("dgamma"), g.dgamma);
}

TEST_F(CliTest, EvalSeednormTwoHeadsEqualsReference) {
  const Mat<double> x = random(4, 8), alpha = random(1, 8), beta = random(1, 8),
                    gamma = random(1, 8), dy = random(4, 8);
  put("x", x);
  put("alpha", alpha);
  put("beta", beta);
  put("gamma", gamma);
  put("dy", dy);
  const Result r = run("eval seednorm " + dir() + " --set heads=2 --set eps=1e-5");
  ASSERT_EQ(r.status, 0) << r.err;
  norm::seednorm::Config c;
  c.heads = 2;
  c.eps = 1e-5;
  const norm::seednorm::Params<double> p{alpha, beta, gamma};
  norm::seednorm::Cache<double> k;
  EXPECT_PRED_FORMAT2(bitwise, got("y"), norm::seednorm::forward(p, c, x, &k));
  const auto g = norm::seednorm::backward(p, c, k, dy);
  EXPECT_PRED_FORMAT2(bitwise, got("dx"), g.dx);
  EXPECT_PRED_FORMAT2(bitwise, got("dalpha"), g.dalpha);
  EXPECT_PRED_FORMAT2(bitwise, got("dbeta"), g.dbeta);
  EXPECT_PRED_FORMAT2(bitwise, got("dgamma"), g.dgamma);
}

TEST_F(CliTest, EvalSddEqualsReference) {
  const Mat<double> x = random(3, 6), V = random(4, 6), alpha = random(1, 4), dy = random(3, 4);
  put("x", x);
  put("V", V);
  put("alpha", alpha);
  put("dy", dy);
  const Result r = run("eval sdd " + dir());
  ASSERT_EQ(r.status, 0) << r.err;
  const sdd::Params<double> p{V, alpha};
  const sdd::Config c;
  sdd::Cache<double> k;
  EXPECT_PRED_FORMAT2(bitwise, got("y"), sdd::forward(p, c, x, &k));
  const auto g = sdd::backward(p, c, k, dy);
  EXPECT_PRED_FORMAT2(bitwise, got("dx"), g.dx);
  EXPECT_PRED_FORMAT2(bitwise, got("dV"), g.dV);
  EXPECT_PRED_FORMAT2(bitwise, got("dalpha"), g.dalpha);
}

TEST_F(CliTest, EvalScalevecDpEqualsReference) {
  const Mat<double> x = random(3, 6), W = random(5, 6), g = random(1, 6), a = random(1, 5),
                    dy = random(3, 5);
  put("x", x);
  put("W", W);
  put("g", g);
  put("a", a);
  put("dy", dy);
  const Result r = run("eval scalevec " + dir() + " --set strategy=dp");  // case-insensitive
  ASSERT_EQ(r.status, 0) << r.err;
  scalevec::Config c;
  c.strategy = scalevec::Strategy::dp;
  const scalevec::Params<double> p{W, g, a, {}, {}};
  scalevec::Cache<double> k;
  EXPECT_PRED_FORMAT2(bitwise, got("y"), scalevec::forward(p, c, x, &k));
  const auto gr = scalevec::backward(p, c, k, dy);
  EXPECT_PRED_FORMAT2(bitwise, got("dx"), gr.dx);
  EXPECT_PRED_FORMAT2(bitwise, got("dW"), gr.dW);
  EXPECT_PRED_FORMAT2(bitwise, got("dg"), gr.dg);
  EXPECT_PRED_FORMAT2(bitwise, got("da"), gr.da);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "dr.npy"));
}

TEST_F(CliTest, EvalWithoutDyWritesOnlyY) {
  put("x", random(2, 4));
  put("gamma", random(1, 4));
  ASSERT_EQ(run("eval rmsnorm " + dir()).status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "y.npy"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "dx.npy"));
}

TEST_F(CliTest, EvalInitializerEqualsReference) {
  const Result r = run("eval init " + dir() +
                       " --set method=KaimingNormal --set d_out=7 --set d_in=5 --set seed=3"
                       " --set tensor=2 --set role=up --set layer=2");
  ASSERT_EQ(r.status, 0) << r.err;
  const Mat<double> want =
      init::draw<double>({7, 5, init::Role::up}, 2, init::KaimingNormal{}, random::Stream{3, 2});
  EXPECT_PRED_FORMAT2(bitwise, got("W"), want);
}

TEST_F(CliTest, EvalRescalerEqualsReference) {
  const Mat<double> W = random(4, 6);
  put("W", W);
  const Result r = run("eval tvr " + dir() + " --set sigma_target=0.05");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_PRED_FORMAT2(bitwise, got("W"), rescale::tvr<double>(W, 0.05));
}

// ---- eval in Real50 -----------------------------------------------------------------------

TEST_F(CliTest, Precision50AgreesWithDouble) {
  const Mat<double> x = random(4, 8), alpha = random(1, 8), beta = random(1, 8),
                    gamma = random(1, 8, 0.5, 2), dy = random(4, 8);
  put("x", x);
  put("alpha", alpha);
  put("beta", beta);
  put("gamma", gamma);
  put("dy", dy);
  ASSERT_EQ(run("eval seednorm " + dir() + " --set heads=2").status, 0);
  std::map<std::string, Mat<double>> d;
  for (const char* n : {"y", "dx", "dalpha", "dbeta", "dgamma"}) d[n] = got(n);
  const Result r = run("eval seednorm " + dir() + " --set heads=2 --precision 50");
  ASSERT_EQ(r.status, 0) << r.err;
  // Double carries ~1e-16 per operation; a few dozen operations per entry.
  const verify::Tolerance tol{1e-15, 1e-14, "double vs Real50 rounded: a few ulps"};
  for (const auto& [n, m] : d) {
    const auto c = verify::compare<double>(n, m, got(n), tol);
    EXPECT_TRUE(c.ok()) << c.str();
  }
}

// ---- compare ------------------------------------------------------------------------------

TEST_F(CliTest, CompareExitCodes) {
  const Mat<double> a = random(3, 4);
  Mat<double> b = a;
  b(1, 2) *= 1 + 1e-3;
  put("a", a);
  put("b", b);
  const std::string A = "'" + (dir_ / "a.npy").string() + "'",
                    B = "'" + (dir_ / "b.npy").string() + "'";
  Result r = run("compare " + A + " " + A);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = run("compare " + A + " " + B);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("worst [1,2]"), std::string::npos) << r.out;  // the worst entry
  EXPECT_EQ(run("compare " + A + " " + B + " --dtype fp32").status, 1);
  EXPECT_EQ(run("compare " + A + " " + B + " --dtype bf16").status, 0);
  EXPECT_EQ(run("compare " + A + " " + B + " --rtol 1e-2").status, 0);
  EXPECT_EQ(run("compare " + A + " " + B + " --dtype fp99").status, 2);
  EXPECT_EQ(run("compare " + A + " " + B + " --atol nope").status, 2);
  put("c", random(4, 3));
  EXPECT_EQ(run("compare " + A + " '" + (dir_ / "c.npy").string() + "'").status, 2);
  EXPECT_EQ(run("compare " + A).status, 2);
}

TEST_F(CliTest, CompareNaNNeverMatches) {
  Mat<double> a = random(2, 3);
  a(0, 1) = std::numeric_limits<double>::quiet_NaN();
  put("a", a);
  const std::string A = "'" + (dir_ / "a.npy").string() + "'";
  // NaN against NaN is a mismatch: a NaN never matches, even itself.
  Result r = run("compare " + A + " " + A + " --rtol 1");
  EXPECT_EQ(r.status, 1) << r.out;
  Mat<double> b = a;
  b(0, 1) = 1.0;
  put("b", b);
  r = run("compare " + A + " '" + (dir_ / "b.npy").string() + "' --atol 1e9");
  EXPECT_EQ(r.status, 1) << r.out;
}

// ---- eval: shapes, defaults, settings, stale outputs ---------------------------------------

// An array of any rank, written as <name>.npy.
void put_array(const fs::path& file, std::vector<long> shape, const Mat<double>& values,
               npy::DType dtype = npy::DType::f8) {
  npy::Array a{std::move(shape), dtype,
               std::vector<double>(values.data(), values.data() + values.size())};
  npy::write(file.string(), a);
}

TEST_F(CliTest, EvalKeepsBatchDimensionsAndOneDParameters) {
  const Mat<double> x = random(6, 8), gamma = random(1, 8, 0.5, 1.5), dy = random(6, 8);
  put_array(dir_ / "x.npy", {2, 3, 8}, x);
  put_array(dir_ / "gamma.npy", {8}, gamma);
  put_array(dir_ / "dy.npy", {2, 3, 8}, dy);
  const Result r = run("eval rmsnorm " + dir());
  ASSERT_EQ(r.status, 0) << r.err;
  const npy::Array y = npy::read((dir_ / "out" / "y.npy").string());
  const npy::Array dg = npy::read((dir_ / "out" / "dgamma.npy").string());
  EXPECT_EQ(y.shape, (std::vector<long>{2, 3, 8}));
  EXPECT_EQ(dg.shape, (std::vector<long>{8}));
  norm::rmsnorm::Cache<double> k;
  const Mat<double> want = norm::rmsnorm::forward<double>({gamma}, {}, x, &k);
  EXPECT_PRED_FORMAT2(bitwise, Mat<double>(Eigen::Map<const Mat<double>>(y.data.data(), 6, 8)),
                      want);
}

TEST_F(CliTest, EvalReadsIntegerAndBf16Inputs) {
  Mat<double> x(2, 4);
  x << 1, -2, 3, 4, 5, 6, -7, 8;
  put_array(dir_ / "x.npy", {2, 4}, x, npy::DType::bf16);  // '<u2': bf16 with --bf16
  Result r = run("eval rmsnorm " + dir());                 // never as uint16 bit patterns
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bfloat16"), std::string::npos) << r.err;
  r = run("eval rmsnorm " + dir() + " --bf16");
  ASSERT_EQ(r.status, 0) << r.err;
  const Mat<double> from_bf16 = got("y");
  // the same values as int32: '<i4'
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 4), }";
  header.resize(117, ' ');  // 10 bytes of preamble + 118 of header = 128, a multiple of 64
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(118) + '\0' + header;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const auto v = static_cast<std::int32_t>(x.data()[i]);
    bytes.append(reinterpret_cast<const char*>(&v), 4);
  }
  std::ofstream(dir_ / "x.npy", std::ios::binary) << bytes;
  r = run("eval rmsnorm " + dir());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_PRED_FORMAT2(bitwise, got("y"), from_bf16);
}

TEST_F(CliTest, EvalDefaultsParametersAndRefusesSettingsItDoesNotRead) {
  const Mat<double> x = random(3, 8), dy = random(3, 8);
  put("x", x);
  put("dy", dy);
  // DyT with no parameter files: alpha = alpha_init, gamma = 1, beta = 0
  Result r = run("eval dyt " + dir() + " --set alpha_init=0.25");
  ASSERT_EQ(r.status, 0) << r.err;
  norm::dyt::Cache<double> k;
  const norm::dyt::Params<double> p{Mat<double>::Constant(1, 1, 0.25), Mat<double>::Ones(1, 8),
                                    Mat<double>::Zero(1, 8)};
  EXPECT_PRED_FORMAT2(bitwise, got("y"), norm::dyt::forward<double>(p, {}, x, &k));
  EXPECT_EQ(npy::read((dir_ / "out" / "dalpha.npy").string()).shape, (std::vector<long>{1}));
  // alpha_init next to a given alpha is not read: an error, and no output is left
  put("alpha", Mat<double>::Constant(1, 1, 0.5));
  r = run("eval dyt " + dir() + " --set alpha_init=0.25");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("alpha_init is alpha's initial value"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "y.npy"));
  // heads for a strategy other than DNP
  fs::remove(dir_ / "dy.npy");
  put("W", random(5, 8));
  r = run("eval scalevec " + dir() + " --set strategy=AP --set heads=5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("heads is not read by scalevec with strategy=AP"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, EvalLeavesNoStaleOutputs) {
  const Mat<double> x = random(3, 8), dy = random(3, 8);
  put("x", x);
  put("dy", dy);
  ASSERT_EQ(run("eval seednorm " + dir()).status, 0);
  ASSERT_TRUE(fs::exists(dir_ / "out" / "dbeta.npy"));
  ASSERT_EQ(run("eval seednorm " + dir() + " --set beta=none").status, 0);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "dbeta.npy"));  // beta=none has no dbeta
  EXPECT_TRUE(fs::exists(dir_ / "out" / "dalpha.npy"));
  Mat<double> bad = dy;
  bad(2, 5) = std::numeric_limits<double>::quiet_NaN();
  put("dy", bad);
  const Result r = run("eval seednorm " + dir());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("dy (" + (dir_ / "dy.npy").string() + ") holds nan at index (2, 5)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "y.npy"));  // a failed run leaves no output
  EXPECT_FALSE(fs::exists(dir_ / "out" / "dalpha.npy"));
}

// ---- errors -------------------------------------------------------------------------------

// The case: W = 4 x 4 of 0.3 (whose sum leaves the mean an ulp off)
// gave W = 0.31 everywhere and exit 0; zwr and tvr now refuse it and write nothing.
TEST_F(CliTest, ZwrAndTvrRefuseAConstantWAndWriteNothing) {
  for (const double c : {0.3, 0.1, 0.7, 0.5}) {
    put("W", Mat<double>::Constant(4, 4, c));
    for (const char* method : {"zwr", "tvr"}) {
      const Result r = run(std::string("eval ") + method + " " + dir());
      EXPECT_EQ(r.status, 2) << method << " " << c;
      EXPECT_NE(r.err.find("nonzero standard deviation"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(dir_ / "out" / "W.npy")) << method << " " << c;
    }
    const Result kept = run("eval tvr_authors_code " + dir() + " --set sigma_target=1e-300");
    EXPECT_EQ(kept.status, 0) << kept.err;
    EXPECT_PRED_FORMAT2(bitwise, got("W"), Mat<double>::Constant(4, 4, c));
    fs::remove_all(dir_ / "out");
  }
}

// Sizes no machine holds are refused before anything is allocated, with the
// memory they would need (this said only "std::bad_alloc").
TEST_F(CliTest, InitRefusesAShapeBeyondMemoryWithTheMemoryItNeeds) {
  const Result r = run("eval init " + dir() +
                       " --set d_out=16777216 --set d_in=16777216 --set method=XavierNormal"
                       " --set role=query");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("needs at least"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TiB"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "W.npy"));
}

TEST_F(CliTest, ErrorsExitTwoWithAMessage) {
  Result r = run("eval nosuchnorm " + dir());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown method"), std::string::npos) << r.err;

  r = run("eval rmsnorm " + dir());  // no x.npy
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("x.npy"), std::string::npos) << r.err;

  put("x", random(2, 4));
  put("gamma", random(1, 4));
  r = run("eval rmsnorm " + dir() + " --set nosuchkey=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nosuchkey"), std::string::npos) << r.err;

  r = run("eval rmsnorm " + dir() + " --set eps=abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("eps"), std::string::npos) << r.err;

  r = run("eval seednorm " + dir() + " --set sigma=relu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("relu"), std::string::npos) << r.err;

  put("gamma", random(1, 5));  // wrong shape
  r = run("eval rmsnorm " + dir());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gamma"), std::string::npos) << r.err;

  put("gamma", random(1, 4));
  put("dy", random(3, 4));  // wrong shape
  r = run("eval rmsnorm " + dir());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("dy"), std::string::npos) << r.err;

  r = run("eval init " + dir() + " --set d_out=3");  // d_in required
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("d_in"), std::string::npos) << r.err;

  r = run("eval rmsnorm " + dir() + " --precision 99");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("").status, 2);
}

}  // namespace
