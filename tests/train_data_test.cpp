// The trainer's synthetic tasks (scaleref/train/data.hpp): each example is a
// pure function of (config, seed, split, index), the splits are disjoint by
// construction, and every example is a valid instance of its task.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <scaleref/train/data.hpp>
#include <set>
#include <string>

#include "error_support.hpp"
#include <vector>

namespace {

using scaleref::test::error_of;
using scaleref::test::mentions;

using namespace scaleref;
using train::Split;
using train::TaskConfig;
using train::TaskKind;

TaskConfig task(TaskKind kind, long seq = 24) {
  TaskConfig c;
  c.kind = kind;
  c.seq = seq;
  return c;
}

const std::vector<TaskKind> kAll{TaskKind::modular, TaskKind::kv_recall, TaskKind::grammar};

TEST(TrainData, ExamplesAreAPureFunctionOfSeedSplitIndex) {
  for (TaskKind k : kAll) {
    const TaskConfig c = task(k);
    for (Split s : {Split::train, Split::validation}) {
      const lm::Batch a = train::make_batch(c, 7, s, 3, 4), b = train::make_batch(c, 7, s, 3, 4);
      EXPECT_EQ(a.tokens, b.tokens) << train::task_name(k);
      EXPECT_EQ(a.targets, b.targets) << train::task_name(k);
      // example 4 is the same whether drawn alone or as the second of a batch
      EXPECT_EQ(train::example(c, 7, s, 4).tokens,
                std::vector<int>(a.tokens.begin() + c.seq, a.tokens.begin() + 2 * c.seq));
    }
    // another seed gives other data
    EXPECT_NE(train::make_batch(c, 7, Split::train, 0, 4).tokens,
              train::make_batch(c, 8, Split::train, 0, 4).tokens)
        << train::task_name(k);
  }
}

TEST(TrainData, TokensAreTargetsShiftedAndInVocab) {
  for (TaskKind k : kAll) {
    const TaskConfig c = task(k);
    const long vocab = train::vocab_of(c);
    lm::Config model;
    model.vocab = vocab;
    model.max_seq = c.seq;
    const lm::Batch b = train::make_batch(c, 1, Split::train, 0, 16);
    EXPECT_NO_THROW(lm::check_batch("test", model, b)) << train::task_name(k);
    for (long i = 0; i < b.batch; ++i) {
      const auto e = train::example(c, 1, Split::train, static_cast<std::uint64_t>(i));
      ASSERT_EQ(static_cast<long>(e.window.size()), c.seq + 1);
      for (long t = 0; t < c.seq; ++t) {
        const auto u = static_cast<std::size_t>(t);
        EXPECT_EQ(e.tokens[u], e.window[u]);
        if (e.targets[u] >= 0) {
          EXPECT_EQ(e.targets[u], e.window[u + 1]);
        }
      }
    }
  }
}

// Every '=' is followed by (a + b) mod p, and only answers count.
TEST(TrainData, ModularEquationsAreCorrect) {
  TaskConfig c = task(TaskKind::modular, 23);
  c.modulus = 11;
  const long p = c.modulus;
  for (Split s : {Split::train, Split::validation})
    for (std::uint64_t i = 0; i < 50; ++i) {
      const auto e = train::example(c, 3, s, i);
      for (std::size_t t = 0; t + 4 < e.window.size(); t += 5) {
        EXPECT_EQ(e.window[t + 1], p);
        EXPECT_EQ(e.window[t + 3], p + 1);
        EXPECT_EQ(e.window[t + 4], (e.window[t] + e.window[t + 2]) % p);
      }
      for (std::size_t t = 0; t < e.targets.size(); ++t)
        EXPECT_EQ(e.targets[t] >= 0, t % 5 == 3) << "position " << t;
    }
}

// Keys are distinct; each query's target is the value paired with its key.
TEST(TrainData, KvRecallQueriesAnswerFromContext) {
  TaskConfig c = task(TaskKind::kv_recall, 30);
  c.kv_pairs = 5;
  const int q = static_cast<int>(c.kv_keys + c.kv_values);
  for (std::uint64_t i = 0; i < 50; ++i) {
    const auto e = train::example(c, 5, Split::train, i);
    std::map<int, int> value_of;
    for (long k = 0; k < c.kv_pairs; ++k) {
      const int key = e.window[static_cast<std::size_t>(2 * k)];
      const int value = e.window[static_cast<std::size_t>(2 * k + 1)];
      EXPECT_LT(key, c.kv_keys);
      EXPECT_GE(value, c.kv_keys);
      EXPECT_LT(value, q);
      EXPECT_TRUE(value_of.emplace(key, value).second) << "key " << key << " repeated";
    }
    long counted = 0;
    for (std::size_t t = 0; t < e.targets.size(); ++t) {
      if (e.targets[t] < 0) continue;
      ++counted;
      ASSERT_GE(t, 1u);
      EXPECT_EQ(e.window[t - 1], q);
      EXPECT_EQ(e.targets[t], value_of.at(e.window[t]));
    }
    EXPECT_GE(counted, 1);
  }
}

// Grammar windows start with '.', every target counts, and each sentence ends
// in '.' after a verb phrase: a noun or an intransitive verb precedes every '.'.
TEST(TrainData, GrammarSentencesAreWellFormed) {
  const TaskConfig c = task(TaskKind::grammar, 40);
  const auto& names = train::info(c, 0, 8).tokens;
  const std::set<std::string> before_dot{"cat", "dog", "bird", "mouse", "sleeps", "runs"};
  for (std::uint64_t i = 0; i < 50; ++i) {
    const auto e = train::example(c, 2, Split::train, i);
    EXPECT_EQ(e.window[0], 0);
    for (int y : e.targets) EXPECT_GE(y, 0);
    for (std::size_t t = 1; t < e.window.size(); ++t)
      if (e.window[t] == 0) {
        EXPECT_TRUE(before_dot.count(names[static_cast<std::size_t>(e.window[t - 1])]))
            << names[static_cast<std::size_t>(e.window[t - 1])] << " before '.'";
      }
  }
}

// Disjoint by construction: every pair of a modular example, every window of
// the other tasks, belongs to the split it was drawn for; so no validation
// window equals a train window.
TEST(TrainData, SplitsAreDisjoint) {
  for (TaskKind k : kAll) {
    const TaskConfig c = task(k);
    std::set<std::vector<int>> train_windows;
    for (std::uint64_t i = 0; i < 300; ++i) {
      const auto e = train::example(c, 11, Split::train, i);
      train_windows.insert(e.window);
      if (k != TaskKind::modular) {
        EXPECT_EQ(train::split_of_window(c, 11, e.window), Split::train);
      }
    }
    for (std::uint64_t i = 0; i < 300; ++i) {
      const auto e = train::example(c, 11, Split::validation, i);
      EXPECT_FALSE(train_windows.count(e.window)) << train::task_name(k);
      if (k != TaskKind::modular) {
        EXPECT_EQ(train::split_of_window(c, 11, e.window), Split::validation);
      }
    }
  }
  TaskConfig m = task(TaskKind::modular);
  std::set<std::pair<int, int>> train_pairs, val_pairs;
  for (Split s : {Split::train, Split::validation})
    for (std::uint64_t i = 0; i < 200; ++i) {
      const auto e = train::example(m, 11, s, i);
      for (std::size_t t = 0; t + 4 < e.window.size(); t += 5) {
        EXPECT_EQ(train::split_of_pair(m, 11, e.window[t], e.window[t + 2]), s);
        (s == Split::train ? train_pairs : val_pairs).insert({e.window[t], e.window[t + 2]});
      }
    }
  for (const auto& pr : val_pairs) EXPECT_FALSE(train_pairs.count(pr));
  EXPECT_FALSE(val_pairs.empty());
  EXPECT_EQ(train_pairs.size() + val_pairs.size(), 49u);  // p = 7: all pairs seen
}

// modular_hold_pairs = false: the window is the held-out item, as for the other tasks.
TEST(TrainData, ModularWindowHoldoutIsDisjoint) {
  TaskConfig c = task(TaskKind::modular);
  c.modular_hold_pairs = false;
  std::set<std::vector<int>> train_windows;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto e = train::example(c, 4, Split::train, i);
    EXPECT_EQ(train::split_of_window(c, 4, e.window), Split::train);
    train_windows.insert(e.window);
  }
  for (std::uint64_t i = 0; i < 300; ++i) {
    const auto e = train::example(c, 4, Split::validation, i);
    EXPECT_EQ(train::split_of_window(c, 4, e.window), Split::validation);
    EXPECT_FALSE(train_windows.count(e.window));
  }
}

TEST(TrainData, InfoReportsVocabAndBaselines) {
  TaskConfig m = task(TaskKind::modular);
  m.modulus = 7;
  const auto mi = train::info(m, 0);
  EXPECT_EQ(mi.vocab, 9);
  EXPECT_EQ(static_cast<long>(mi.tokens.size()), mi.vocab);
  ASSERT_TRUE(mi.optimal_loss.has_value());
  EXPECT_EQ(*mi.optimal_loss, 0.0);
  EXPECT_NEAR(mi.unigram_loss, std::log(7.0), 0.05);  // answers nearly uniform over 0..6
  EXPECT_LE(mi.unigram_loss, std::log(7.0) + 1e-12);
  TaskConfig kv = task(TaskKind::kv_recall);
  const auto ki = train::info(kv, 0);
  EXPECT_EQ(ki.vocab, kv.kv_keys + kv.kv_values + 1);
  EXPECT_NEAR(ki.unigram_loss, std::log(static_cast<double>(kv.kv_values)), 0.05);
  const auto gi = train::info(task(TaskKind::grammar), 0);
  EXPECT_EQ(gi.vocab, 16);
  EXPECT_FALSE(gi.optimal_loss.has_value());
  EXPECT_GT(gi.unigram_loss, 1.0);
  EXPECT_LT(gi.unigram_loss, std::log(16.0));
}

TEST(TrainData, BadConfigsNameTheKey) {
  TaskConfig c = task(TaskKind::kv_recall, 6);
  EXPECT_TRUE(mentions(error_of([&] { train::validate(c); }), "'seq'"));
  c.seq = 30;
  c.kv_pairs = 40;
  EXPECT_TRUE(mentions(error_of([&] { train::validate(c); }), "'kv_pairs'"));
  TaskConfig m = task(TaskKind::modular);
  m.val_fraction = 1.0;
  EXPECT_TRUE(mentions(error_of([&] { train::validate(m); }), "'val_fraction'"));
  m.val_fraction = 0.2;
  m.modulus = 1;
  EXPECT_TRUE(mentions(error_of([&] { train::validate(m); }), "'modulus'"));
  // p = 2 has 4 pairs: some seed puts none in validation, and info says so
  m.modulus = 2;
  bool reported = false;
  for (std::uint64_t seed = 0; seed < 20 && !reported; ++seed)
    reported = mentions(error_of([&] { train::info(m, seed); }), "each split needs");
  EXPECT_TRUE(reported);
}

}  // namespace
