// The trainer (scaleref/train/trainer.hpp) and the scaleref_train binary:
// short runs of a tiny model learn each task, a Setup built field by field
// runs exactly as its text does and validate() names a bad field, a run is bitwise reproducible
// (the same options give a byte-identical CSV, on 1 or 2 threads), rescaling
// reaches exactly the decoder-layer matrices, and a bad key is an Error naming it.
// Sizes are tiny so that each run takes a second or two on one core.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/train/trainer.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "error_support.hpp"

namespace {

using scaleref::test::mentions;

using namespace scaleref;

// A tiny model and a short run; `extra` lines override.
std::string tiny(const std::string& task, const std::string& extra = "") {
  return "task = " + task +
         "\n"
         "seq = 20\nbatch = 8\nsteps = 150\nlr = 1e-2\nwarmup = 10\neval_every = 50\n"
         "eval_batches = 4\nd_model = 16\nn_heads = 2\nn_layers = 2\nthreads = 1\n"
         "stable_rank_iterations = 200\n" +
         extra;
}

// tiny(task) as fields: the typed API every behaviour test below builds its run with.
train::Setup tiny_setup(train::TaskKind kind) {
  train::Setup s = train::make_setup({.kind = kind, .seq = 20});
  s.model.d_model = 16;
  s.model.n_heads = 2;
  s.model.n_layers = 2;
  s.train.batch = 8;
  s.train.steps = 150;
  s.train.lr = 1e-2;
  s.train.warmup = 10;
  s.train.eval_every = 50;
  s.train.eval_batches = 4;
  s.train.threads = 1;
  s.train.stable_rank_iterations = 200;
  return s;
}

train::Result run_setup(const train::Setup& s, std::string* csv = nullptr) {
  std::ostringstream out;
  train::Result r = train::run(s, &out, nullptr);
  if (csv) *csv = out.str();
  return r;
}

train::Result run_text(const std::string& text, std::string* csv = nullptr) {
  const train::Setup s = train::parse_setup(text);
  std::ostringstream out;
  train::Result r = train::run(s, &out, nullptr);
  if (csv) *csv = out.str();
  return r;
}

std::string error_of(const std::string& text) {
  try {
    train::parse_setup(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

void expect_learns(train::TaskKind kind, double margin) {
  train::Setup s = tiny_setup(kind);
  if (kind == train::TaskKind::modular) s.train.task.modular_hold_pairs = false;  // windows
  const train::Result r = run_setup(s);
  const char* task = train::task_name(kind);
  ASSERT_GE(r.evals.size(), 2u);
  const double first = r.evals.front().val_loss, last = r.evals.back().val_loss;
  EXPECT_LT(last, first - margin) << task << ": validation loss " << first << " -> " << last;
  // and below what knowing only the target frequencies would give, beyond noise
  EXPECT_LT(last, r.task.unigram_loss + 0.1) << task;
}

// modular: the answers' loss falls from about ln(vocab) to ln(p) within this
// short run. Validation holds out windows here: with held-out pairs (the
// default) a run this short memorizes the training table and the validation
// loss rises again after its first fall.
TEST(Trainer, ModularValidationLossDecreases) { expect_learns(train::TaskKind::modular, 0.1); }
TEST(Trainer, KvRecallValidationLossDecreases) { expect_learns(train::TaskKind::kv_recall, 0.5); }
TEST(Trainer, GrammarValidationLossDecreases) { expect_learns(train::TaskKind::grammar, 1.0); }

TEST(Trainer, SgdWithMomentumDecreasesLoss) {
  train::Setup s = tiny_setup(train::TaskKind::grammar);
  s.train.optimizer = train::OptimizerKind::sgd;
  s.train.sgd.momentum = 0.9;
  s.train.sgd.weight_decay = 1e-4;
  s.train.lr = 0.1;
  const train::Result r = run_setup(s);
  EXPECT_LT(r.evals.back().val_loss, r.evals.front().val_loss - 0.5);
}

TEST(Trainer, SameConfigGivesByteIdenticalCsv) {
  train::Setup s = tiny_setup(train::TaskKind::kv_recall);
  s.train.steps = 30;
  s.train.rescale = rescale::Schedule::tvr(s.model.init_sigma, 10);
  std::string a, b;
  run_setup(s, &a);
  run_setup(s, &b);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 1000u);
}

TEST(Trainer, CsvIsTheSameOnOneAndTwoThreads) {
  train::Setup s = tiny_setup(train::TaskKind::grammar);
  s.train.steps = 4;
  s.train.warmup = 0;
  std::string one, two;
  run_setup(s, &one);
  s.train.threads = 2;
  run_setup(s, &two);
  EXPECT_EQ(one, two);
}

TEST(Trainer, CsvHasHeaderAndOneRowPerLoggedStep) {
  train::Setup s = tiny_setup(train::TaskKind::modular);
  s.train.steps = 20;
  s.train.log_every = 5;
  s.train.stable_rank_matrices = {"embed"};
  std::string csv;
  run_setup(s, &csv);
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  for (const char* col : {"step,lr,loss,val_loss,grad_norm,", "grad_norm.layers.1,", "max_act.x0,",
                          "max_act.x2,", "sink.layers.1,", "residual_flow,",
                          "std.layers.1.ffn.down.W,", "stable_rank.embed,", "rescaled"})
    EXPECT_TRUE(mentions(header, col)) << col << " missing from " << header;
  const auto n_cols = std::count(header.begin(), header.end(), ',') + 1;
  std::vector<std::string> steps;
  while (std::getline(in, line)) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ',') + 1, n_cols) << line;
    steps.push_back(line.substr(0, line.find(',')));
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"0", "5", "10", "15", "20"}));
}

// TVR (eq. 21) after steps 5, 10, ...: every decoder-layer matrix has
// population std exactly sigma_target afterwards (to rounding); embeddings and
// norm gains are not touched by the rule.
TEST(Trainer, RescaleReachesEveryDecoderMatrix) {
  train::Setup s = tiny_setup(train::TaskKind::grammar);
  s.train.steps = 10;
  s.train.rescale = rescale::Schedule::tvr(0.05, 5);
  const train::Result r = run_setup(s);
  long matrices = 0;
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    if (r.params.info[i].kind != lm::Kind::matrix) continue;
    ++matrices;
    EXPECT_NEAR(metrics::mean_std(r.params.values[i]).std, 0.05, 1e-12) << r.params.info[i].name;
  }
  EXPECT_EQ(matrices, 14);
  EXPECT_EQ(r.rescaled, 2 * matrices);
  EXPECT_GT(std::abs(metrics::mean_std(r.params.at("embed")).std - 0.05), 1e-3);
}

TEST(Trainer, BadKeysGiveErrorsNamingTheKey) {
  EXPECT_TRUE(mentions(error_of(tiny("modular", "lrr = 1\n")), "lrr"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "lr = -1\n")), "'lr'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "vocab = 5\n")), "'vocab'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "beta1 = 1\n")), "'beta1'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "beta2 = -0.5\n")), "'beta2'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "optimizer = adam\n")), "'optimizer'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "task = sorting\n")), "'task'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "rescale = tvr\n")), "'rescale_every'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "rescale_every = 3\n")), "'rescale_every'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular",
                                     "rescale = uwr\nrescale_every = 2\n"
                                     "rescale_form = authors_code\n")),
                       "'rescale_form'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "stable_rank_matrices = nope\n")),
                       "'stable_rank_matrices'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "max_seq = 10\n")), "'seq'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "warmup = 500\n")), "'warmup'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "momentum = 0.9\n")), "'momentum'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "optimizer = sgd\nbeta1 = 0.8\n")), "'beta1'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "steps = 0\n")), "'steps'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "clip = -1\n")), "'clip'"));
  EXPECT_TRUE(mentions(error_of(tiny("modular", "d_model = 15\n")), "'n_heads'"));
}

// ---- the typed API: a run built field by field ---------------------------------------

// tiny("grammar", "steps = 20\n") as fields.
train::Setup tiny_typed() {
  train::Setup s = tiny_setup(train::TaskKind::grammar);
  s.train.steps = 20;
  return s;
}

TEST(TrainerTypedApi, AFieldBuiltSetupRunsLikeItsText) {
  std::string from_text;
  run_text(tiny("grammar", "steps = 20\n"), &from_text);
  std::ostringstream from_fields;
  train::run(tiny_typed(), &from_fields, nullptr);
  EXPECT_EQ(from_fields.str(), from_text);
}

TEST(TrainerTypedApi, MakeSetupFitsTheModelToTheTask) {
  const train::Setup s = tiny_typed();
  EXPECT_EQ(s.model.vocab, train::vocab_of(s.train.task));
  EXPECT_EQ(s.model.max_seq, 20);
  EXPECT_EQ(s.train.stable_rank_matrices, train::default_stable_rank_matrices(s.model));
  EXPECT_NO_THROW(train::validate(s));
}

// validate() gives the text front end's errors, naming the key of the bad field.
TEST(TrainerTypedApi, ValidateNamesTheBadField) {
  auto error_after = [](auto&& change) {
    train::Setup s = tiny_typed();
    change(s);
    return scaleref::test::error_of([&] { train::validate(s); });
  };
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.train.steps = 0; }), "'steps'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.train.lr = NAN; }), "'lr'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.train.adamw.beta1 = 1; }), "'beta1'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.model.n_heads = 3; }), "'n_heads'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.model.vocab = 5; }), "'vocab'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.model.max_seq = 10; }), "'seq'"));
  EXPECT_TRUE(mentions(error_after([](train::Setup& s) { s.train.stable_rank_matrices = {"x"}; }),
                       "'stable_rank_matrices'"));
  EXPECT_TRUE(mentions(
      error_after([](train::Setup& s) { s.train.rescale = rescale::Schedule::tvr(0.02, 0); }),
      "'rescale_every'"));
  EXPECT_TRUE(mentions(
      error_after([](train::Setup& s) { s.train.rescale = rescale::Schedule::tvr(-1, 5); }),
      "'rescale_target'"));
}

// run() validates first: an invalid setup is an Error before any output.
TEST(TrainerTypedApi, RunRefusesAnInvalidSetupBeforeWritingAnything) {
  train::Setup s = tiny_typed();
  s.train.eval_batches = 0;
  std::ostringstream csv, progress;
  EXPECT_TRUE(mentions(scaleref::test::error_of([&] { train::run(s, &csv, &progress); }),
                       "'eval_batches'"));
  EXPECT_TRUE(csv.str().empty());
  EXPECT_TRUE(progress.str().empty());
}

// The vocabulary comes from the task unless given; a larger one is accepted.
TEST(Trainer, VocabDefaultsToTheTask) {
  EXPECT_EQ(train::parse_setup(tiny("grammar")).model.vocab, 16);
  EXPECT_EQ(train::parse_setup(tiny("grammar", "vocab = 40\n")).model.vocab, 40);
  EXPECT_EQ(train::parse_setup(tiny("modular", "modulus = 11\n")).model.vocab, 13);
  EXPECT_EQ(train::parse_setup(tiny("modular")).model.max_seq, 20);
}

#ifdef SCALEREF_TRAIN
std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The binary: two runs of one command line write byte-identical CSV files; a
// bad key exits non-zero.
TEST(TrainBinary, TwoRunsWriteIdenticalCsv) {
  const std::string dir = ::testing::TempDir();
  const std::string flags =
      " --task=kv_recall --steps=20 --seq=20 --batch=4 --d_model=16 --n_heads=2 --threads=1"
      " --eval_every=10 --progress_every=10";
  for (const char* name : {"a", "b"}) {
    const std::string cmd = std::string(SCALEREF_TRAIN) + flags + " --log=" + dir +
                            "train_binary_" + name + ".csv 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  const std::string a = read_all(dir + "train_binary_a.csv");
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, read_all(dir + "train_binary_b.csv"));
  const std::string bad = std::string(SCALEREF_TRAIN) + " --lrr=1 2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0);
}

// Inputs that aborted the binary (SIGABRT, an empty CSV): a config that is a
// directory, and sizes no machine holds, refused up front with the memory they
// need. Each exits 2 with a message naming the problem and writes no log.
TEST(TrainBinary, RefusesADirectoryConfigAndAbsurdSizesWithoutWritingALog) {
  const std::string dir = ::testing::TempDir();
  const std::string log = dir + "train_refused.csv", err = dir + "train_refused.err";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--config " + dir, "is a directory"},
      {"--d_model=10000000", "needs at least"},
      {"--vocab=1000000000", "needs at least"},
      {"--n_layers=100000000", "needs at least"},
  };
  for (const auto& [args, message] : cases) {
    std::remove(log.c_str());
    const std::string cmd =
        std::string(SCALEREF_TRAIN) + " " + args + " --log=" + log + " 2>" + err;
    const int raw = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 2) << cmd << ": status " << raw;
    EXPECT_NE(read_all(err).find(message), std::string::npos) << cmd << ": " << read_all(err);
    EXPECT_FALSE(std::ifstream(log).good()) << cmd << " left a log";
  }
}
#endif

}  // namespace
