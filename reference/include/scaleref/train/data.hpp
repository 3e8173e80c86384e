// Synthetic training data for the tiny LM, generated here (nothing is
// downloaded): every example is a pure function of (task config, seed, split,
// index), drawn from the project's Philox 4x32-10 (random/philox.hpp), so a
// run's data is fixed by its seed and the same on every machine.
//
// Tasks (a window of T + 1 tokens w_0 .. w_T gives tokens w_0 .. w_{T-1} and
// targets w_1 .. w_T; target -1 marks a position that does not count):
//
//   modular    equations "a + b = c" with c = (a + b) mod p, packed one after
//              another: a + b = c a + b = c ...  Loss only on the answers c
//              (the target at each '=' position). Needs context: c depends on
//              the a and b three and one tokens back. Vocabulary: 0 .. p-1,
//              '+', '='. A perfect predictor's loss: 0.
//   kv_recall  n (key, value) pairs with distinct keys, then queries
//              "Q k v" with k one of the n keys: k1 v1 .. kn vn Q k v Q k v ...
//              Loss only on the value after each queried key, which only the
//              pairs earlier in the sequence determine. Vocabulary: K keys,
//              V values, Q. A perfect predictor's loss: 0.
//   grammar    sentences of a small fixed probabilistic context-free grammar
//              (below), each ending in '.', the stream starting with '.';
//              next-token loss everywhere. A perfect predictor's loss is not
//              known in closed form: the task reports the unigram baseline.
//
// The grammar (probabilities in brackets; at depth >= grammar_depth the
// recursive rules NP -> NP PP and VP -> VP PP are dropped and the others
// renormalized, so every sentence is finite):
//
//   S  -> NP VP '.'                      [1]
//   NP -> Det N [.6] | Det Adj N [.3] | NP PP [.1]
//   VP -> Vt NP [.5] | Vi [.3] | VP PP [.2]
//   PP -> P NP [1]
//   Det -> the [.6] | a [.4]             N  -> cat [.3] | dog [.3] | bird [.2] | mouse [.2]
//   Adj -> big [.4] | small [.4] | red [.2]
//   Vt -> sees [.5] | chases [.5]        Vi -> sleeps [.6] | runs [.4]
//   P  -> with [.5] | near [.5]
//
// Train and validation splits are disjoint by construction: a hash decides
// which split an item belongs to, and an example of a split is redrawn until
// its item falls in that split. For modular the item is by default the pair
// (a, b): every equation of a validation example is one never seen in
// training (the grokking split, which a short run does not generalize to:
// validation loss first falls towards ln p, then rises as the train table is
// memorized); with modular_hold_pairs = false it is the window, as for the
// other tasks (validation windows are new sequences of seen equations). For
// kv_recall and grammar the item is the whole window of T + 1 tokens. Membership: u = uniform(seed,
// kSplitTensor, h) < val_fraction means validation, h the pair index a p + b, or the FNV-1a hash of
// the window.
//
// Random draws: example `index` of `split`, attempt r, uses the blocks
// philox(seed, tensor = kDataTensor + 4 task + split, index 2^16 index + j, draw = r),
// j = 0, 1, ..., four 32-bit words each, in order. An integer below n is
// floor(w n / 2^32) for one word w; a probability is open01 of two words.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <scaleref/error.hpp>
#include <scaleref/lm/batch.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/spec/common.hpp>
#include <string>
#include <vector>

namespace scaleref::train {

enum class TaskKind { modular, kv_recall, grammar };
enum class Split { train, validation };

inline constexpr spec::NameTable<TaskKind, 3> kTaskKinds{{{TaskKind::modular, "modular"},
                                                          {TaskKind::kv_recall, "kv_recall"},
                                                          {TaskKind::grammar, "grammar"}}};
inline constexpr spec::NameTable<Split, 2> kSplits{
    {{Split::train, "train"}, {Split::validation, "validation"}}};

constexpr const char* task_name(TaskKind k) { return spec::name_of(kTaskKinds, k); }
constexpr const char* split_name(Split s) { return spec::name_of(kSplits, s); }

struct TaskConfig {
  TaskKind kind = TaskKind::modular;
  long seq = 32;                   // T, tokens per example
  double val_fraction = 0.2;       // the share of items (pairs, windows) in validation
  long modulus = 7;                // modular: p
  bool modular_hold_pairs = true;  // modular: hold out pairs (a, b) (true) or windows (false)
  long kv_keys = 16;               // kv_recall: K
  long kv_values = 16;             // kv_recall: V
  long kv_pairs = 4;               // kv_recall: n pairs per sequence
  long grammar_depth = 4;          // grammar: recursion cap
};

struct TaskInfo {
  std::string name;
  std::string description;
  long vocab = 0;                      // the vocabulary the task needs
  std::vector<std::string> tokens;     // a name for every token id
  std::optional<double> optimal_loss;  // a perfect predictor's loss, when known
  double unigram_loss = 0;             // the loss of the counted targets' unigram
                                       // distribution, estimated (plug-in entropy, nats)
                                       // on the first unigram_examples train examples
  long unigram_examples = 0;
};

inline constexpr std::uint32_t kDataTensor = 0x44415400u;   // "DAT\0"
inline constexpr std::uint32_t kSplitTensor = 0x53504c54u;  // "SPLT"
inline constexpr int kMaxAttempts = 1 << 16;

namespace detail {

// The words of one (seed, task, split, index, attempt).
class Draws {
 public:
  Draws(std::uint64_t seed, TaskKind task, Split split, std::uint64_t index, std::uint32_t attempt)
      : seed_(seed),
        tensor_(kDataTensor + 4u * static_cast<std::uint32_t>(task) +
                static_cast<std::uint32_t>(split)),
        base_(index << 16),
        attempt_(attempt) {}

  std::uint32_t word() {
    if (used_ == 4) {
      require(next_ < (1u << 16), "train::data", "an example used more than 2^16 Philox blocks");
      current_ = random::block(seed_, tensor_, base_ + next_++, attempt_);
      used_ = 0;
    }
    return current_.w[used_++];
  }
  // floor(w n / 2^32), in [0, n) for 1 <= n < 2^32.
  long below(long n) {
    return static_cast<long>((static_cast<std::uint64_t>(word()) * static_cast<std::uint64_t>(n)) >>
                             32);
  }
  double probability() {
    const std::uint32_t hi = word(), lo = word();
    return random::open01(hi, lo);
  }

 private:
  std::uint64_t seed_;
  std::uint32_t tensor_;
  std::uint64_t base_;
  std::uint32_t attempt_;
  std::uint64_t next_ = 0;
  random::Block current_{};
  int used_ = 4;
};

inline std::uint64_t fnv1a(const std::vector<int>& w) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (int t : w) {
    auto u = static_cast<std::uint32_t>(t);
    for (int b = 0; b < 4; ++b) {
      h ^= (u >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

inline Split split_of_hash(std::uint64_t seed, double val_fraction, std::uint64_t h) {
  return random::uniform(seed, kSplitTensor, h) < val_fraction ? Split::validation : Split::train;
}

// ---- the grammar ----------------------------------------------------------------

enum Sym : int {
  kDot,
  kThe,
  kA,
  kCat,
  kDog,
  kBird,
  kMouse,
  kBig,
  kSmall,
  kRed,
  kSees,
  kChases,
  kSleeps,
  kRuns,
  kWith,
  kNear,
  kGrammarVocab
};

inline const std::vector<std::string>& grammar_tokens() {
  static const std::vector<std::string> names{".",      "the",  "a",     "cat", "dog",  "bird",
                                              "mouse",  "big",  "small", "red", "sees", "chases",
                                              "sleeps", "runs", "with",  "near"};
  return names;
}

// Picks index i with probability p[i] / sum(p[0 .. n)).
inline int choose(Draws& d, const double* p, int n) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += p[i];
  const double u = d.probability() * total;
  double acc = 0;
  for (int i = 0; i < n - 1; ++i) {
    acc += p[i];
    if (u < acc) return i;
  }
  return n - 1;
}

inline void terminal(Draws& d, std::vector<int>& out, const std::vector<int>& syms,
                     const std::vector<double>& p) {
  out.push_back(syms[static_cast<std::size_t>(choose(d, p.data(), static_cast<int>(p.size())))]);
}

inline void np(Draws& d, std::vector<int>& out, long depth, long cap);

inline void pp(Draws& d, std::vector<int>& out, long depth, long cap) {
  terminal(d, out, {kWith, kNear}, {0.5, 0.5});
  np(d, out, depth + 1, cap);
}

inline void np(Draws& d, std::vector<int>& out, long depth, long cap) {
  const double p[3] = {0.6, 0.3, 0.1};
  const int rule = choose(d, p, depth >= cap ? 2 : 3);
  if (rule == 2) {
    np(d, out, depth + 1, cap);
    pp(d, out, depth + 1, cap);
    return;
  }
  terminal(d, out, {kThe, kA}, {0.6, 0.4});
  if (rule == 1) terminal(d, out, {kBig, kSmall, kRed}, {0.4, 0.4, 0.2});
  terminal(d, out, {kCat, kDog, kBird, kMouse}, {0.3, 0.3, 0.2, 0.2});
}

inline void vp(Draws& d, std::vector<int>& out, long depth, long cap) {
  const double p[3] = {0.5, 0.3, 0.2};
  const int rule = choose(d, p, depth >= cap ? 2 : 3);
  if (rule == 2) {
    vp(d, out, depth + 1, cap);
    pp(d, out, depth + 1, cap);
  } else if (rule == 1) {
    terminal(d, out, {kSleeps, kRuns}, {0.6, 0.4});
  } else {
    terminal(d, out, {kSees, kChases}, {0.5, 0.5});
    np(d, out, depth + 1, cap);
  }
}

inline void sentence(Draws& d, std::vector<int>& out, long cap) {
  np(d, out, 1, cap);
  vp(d, out, 1, cap);
  out.push_back(kDot);
}

// ---- windows of T + 1 tokens, one per task ----------------------------------------

inline std::vector<int> modular_window(const TaskConfig& c, std::uint64_t seed, Split split,
                                       Draws& d) {
  const long p = c.modulus, n = c.seq + 1;
  std::vector<int> w;
  while (static_cast<long>(w.size()) < n) {
    long a = 0, b = 0;
    for (int k = 0;; ++k) {
      require(k < kMaxAttempts, "train::data", "modular: no pair of the ", split_name(split),
              " split found in ", kMaxAttempts, " draws");
      a = d.below(p);
      b = d.below(p);
      if (!c.modular_hold_pairs ||
          split_of_hash(seed, c.val_fraction, static_cast<std::uint64_t>(a * p + b)) == split)
        break;
    }
    for (long t : {a, p, b, p + 1, (a + b) % p}) w.push_back(static_cast<int>(t));
  }
  w.resize(static_cast<std::size_t>(n));
  return w;
}

inline std::vector<int> kv_window(const TaskConfig& c, Draws& d) {
  const long K = c.kv_keys, V = c.kv_values, n = c.kv_pairs, q = K + V;
  std::vector<int> keys(static_cast<std::size_t>(K));
  for (long i = 0; i < K; ++i) keys[static_cast<std::size_t>(i)] = static_cast<int>(i);
  for (long i = 0; i < n; ++i)  // partial Fisher-Yates: n distinct keys
    std::swap(keys[static_cast<std::size_t>(i)],
              keys[static_cast<std::size_t>(i + d.below(K - i))]);
  std::vector<int> values(static_cast<std::size_t>(n));
  std::vector<int> w;
  for (long i = 0; i < n; ++i) {
    values[static_cast<std::size_t>(i)] = static_cast<int>(K + d.below(V));
    w.push_back(keys[static_cast<std::size_t>(i)]);
    w.push_back(values[static_cast<std::size_t>(i)]);
  }
  while (static_cast<long>(w.size()) < c.seq + 1) {
    const auto i = static_cast<std::size_t>(d.below(n));
    for (int t : {static_cast<int>(q), keys[i], values[i]}) w.push_back(t);
  }
  w.resize(static_cast<std::size_t>(c.seq + 1));
  return w;
}

inline std::vector<int> grammar_window(const TaskConfig& c, Draws& d) {
  std::vector<int> w{kDot};
  while (static_cast<long>(w.size()) < c.seq + 1) sentence(d, w, c.grammar_depth);
  w.resize(static_cast<std::size_t>(c.seq + 1));
  return w;
}

// Which positions of a window's targets count (w_{t+1} is target t).
inline std::vector<int> targets_of(const TaskConfig& c, const std::vector<int>& w) {
  std::vector<int> y(static_cast<std::size_t>(c.seq), -1);
  for (long t = 0; t < c.seq; ++t) {
    const auto i = static_cast<std::size_t>(t);
    const int next = w[i + 1];
    switch (c.kind) {
      case TaskKind::modular:  // answers sit at 5k + 4, predicted from '=' at 5k + 3
        if (t % 5 == 3) y[i] = next;
        break;
      case TaskKind::kv_recall:  // the value after a queried key (after Q)
        if (t >= 1 && w[i - 1] == c.kv_keys + c.kv_values) y[i] = next;
        break;
      case TaskKind::grammar:
        y[i] = next;
        break;
    }
  }
  return y;
}

}  // namespace detail

// Throws Error naming the key unless c describes a task.
inline void validate(const TaskConfig& c) {
  constexpr const char* where = "train::TaskConfig";
  require(c.val_fraction > 0 && c.val_fraction < 1, where,
          "key 'val_fraction': expected a value in (0, 1), got ", c.val_fraction);
  require(c.seq >= 1 && c.seq <= 4096, where, "key 'seq': expected 1 <= seq <= 4096, got ", c.seq);
  switch (c.kind) {
    case TaskKind::modular:
      require(c.modulus >= 2 && c.modulus <= 4096, where,
              "key 'modulus': expected 2 <= p <= 4096, got ", c.modulus);
      require(c.seq >= 4, where, "key 'seq': modular needs seq >= 4 (a + b = predicts c), got ",
              c.seq);
      break;
    case TaskKind::kv_recall:
      require(c.kv_keys >= 1 && c.kv_keys <= 4096, where,
              "key 'kv_keys': expected 1 <= K <= 4096, got ", c.kv_keys);
      require(c.kv_values >= 1 && c.kv_values <= 4096, where,
              "key 'kv_values': expected 1 <= V <= 4096, got ", c.kv_values);
      require(c.kv_pairs >= 1 && c.kv_pairs <= c.kv_keys, where,
              "key 'kv_pairs': expected 1 <= n <= kv_keys = ", c.kv_keys, " (distinct keys), got ",
              c.kv_pairs);
      require(c.seq >= 2 * c.kv_pairs + 2, where,
              "key 'seq': kv_recall with kv_pairs = ", c.kv_pairs,
              " needs seq >= 2 kv_pairs + 2 = ", 2 * c.kv_pairs + 2, " (one query), got ", c.seq);
      break;
    case TaskKind::grammar:
      require(c.grammar_depth >= 1 && c.grammar_depth <= 64, where,
              "key 'grammar_depth': expected 1 <= depth <= 64, got ", c.grammar_depth);
      break;
  }
}

// The vocabulary size the task needs.
inline long vocab_of(const TaskConfig& c) {
  switch (c.kind) {
    case TaskKind::modular:
      return c.modulus + 2;
    case TaskKind::kv_recall:
      return c.kv_keys + c.kv_values + 1;
    case TaskKind::grammar:
      return detail::kGrammarVocab;
  }
  fail("train::vocab_of: unknown task");
}

// The split an item belongs to (the membership that makes the splits disjoint).
inline Split split_of_pair(const TaskConfig& c, std::uint64_t seed, long a, long b) {
  return detail::split_of_hash(seed, c.val_fraction, static_cast<std::uint64_t>(a * c.modulus + b));
}
inline Split split_of_window(const TaskConfig& c, std::uint64_t seed, const std::vector<int>& w) {
  return detail::split_of_hash(seed, c.val_fraction, detail::fnv1a(w));
}

struct Example {
  std::vector<int> window;   // w_0 .. w_T
  std::vector<int> tokens;   // w_0 .. w_{T-1}
  std::vector<int> targets;  // w_1 .. w_T where they count, else -1
};

// Example `index` of `split`: a pure function of (c, seed, split, index).
inline Example example(const TaskConfig& c, std::uint64_t seed, Split split, std::uint64_t index) {
  validate(c);
  require(index < (std::uint64_t{1} << 47), "train::example", "expected index < 2^47, got ", index);
  for (std::uint32_t attempt = 0; attempt < kMaxAttempts; ++attempt) {
    detail::Draws d(seed, c.kind, split, index, attempt);
    std::vector<int> w;
    switch (c.kind) {
      case TaskKind::modular:
        w = detail::modular_window(c, seed, split, d);  // pairs held out: all in `split`
        break;
      case TaskKind::kv_recall:
        w = detail::kv_window(c, d);
        break;
      case TaskKind::grammar:
        w = detail::grammar_window(c, d);
        break;
    }
    const bool by_pairs = c.kind == TaskKind::modular && c.modular_hold_pairs;
    if (!by_pairs && split_of_window(c, seed, w) != split) continue;
    Example e;
    e.tokens.assign(w.begin(), w.end() - 1);
    e.targets = detail::targets_of(c, w);
    e.window = std::move(w);
    return e;
  }
  fail("train::example: no ", task_name(c.kind), " window of the ", split_name(split),
       " split found in ", kMaxAttempts, " attempts (is val_fraction extreme?)");
}

// Examples first .. first + batch - 1 of `split` as one lm::Batch [batch, seq].
inline lm::Batch make_batch(const TaskConfig& c, std::uint64_t seed, Split split,
                            std::uint64_t first, long batch) {
  require(batch >= 1, "train::make_batch", "expected batch >= 1, got ", batch);
  lm::Batch b;
  b.batch = batch;
  b.seq = c.seq;
  for (long i = 0; i < batch; ++i) {
    const Example e = example(c, seed, split, first + static_cast<std::uint64_t>(i));
    b.tokens.insert(b.tokens.end(), e.tokens.begin(), e.tokens.end());
    b.targets.insert(b.targets.end(), e.targets.begin(), e.targets.end());
  }
  return b;
}

// What the task is and what loss would count as learned.
inline TaskInfo info(const TaskConfig& c, std::uint64_t seed, long unigram_examples = 256) {
  validate(c);
  require(unigram_examples >= 1, "train::info", "expected unigram_examples >= 1, got ",
          unigram_examples);
  TaskInfo out;
  out.name = task_name(c.kind);
  out.vocab = vocab_of(c);
  switch (c.kind) {
    case TaskKind::modular: {
      out.description = "a + b = c (mod " + std::to_string(c.modulus) + "), loss on c";
      for (long i = 0; i < c.modulus; ++i) out.tokens.push_back(std::to_string(i));
      out.tokens.push_back("+");
      out.tokens.push_back("=");
      out.optimal_loss = 0.0;
      if (!c.modular_hold_pairs) break;
      // both splits need pairs: a fixed test over all p^2 pairs
      long val = 0;
      for (long a = 0; a < c.modulus; ++a)
        for (long b = 0; b < c.modulus; ++b)
          val += split_of_pair(c, seed, a, b) == Split::validation;
      require(val >= 1 && val < c.modulus * c.modulus, "train::info",
              "modular: with modulus = ", c.modulus, " and val_fraction = ", c.val_fraction, ", ",
              val, " of ", c.modulus * c.modulus,
              " pairs are in validation: each split needs at least one (change modulus, "
              "val_fraction or data_seed)");
      break;
    }
    case TaskKind::kv_recall:
      out.description = std::to_string(c.kv_pairs) + " pairs of " + std::to_string(c.kv_keys) +
                        " keys / " + std::to_string(c.kv_values) +
                        " values, then queries Q k -> v; loss on v";
      // (appending, not "k" + std::to_string(i): GCC 12 warns falsely on that form, bug 105329)
      for (long i = 0; i < c.kv_keys; ++i)
        out.tokens.push_back(std::string("k").append(std::to_string(i)));
      for (long i = 0; i < c.kv_values; ++i)
        out.tokens.push_back(std::string("v").append(std::to_string(i)));
      out.tokens.push_back("Q");
      out.optimal_loss = 0.0;
      break;
    case TaskKind::grammar:
      out.description = "a small PCFG (S -> NP VP .), next-token loss everywhere";
      out.tokens = detail::grammar_tokens();
      break;
  }
  std::vector<long> counts(static_cast<std::size_t>(out.vocab), 0);
  long total = 0;
  for (long i = 0; i < unigram_examples; ++i)
    for (int y : example(c, seed, Split::train, static_cast<std::uint64_t>(i)).targets)
      if (y >= 0) {
        ++counts[static_cast<std::size_t>(y)];
        ++total;
      }
  double h = 0;
  for (long n : counts)
    if (n > 0) {
      const double p = static_cast<double>(n) / static_cast<double>(total);
      h -= p * std::log(p);
    }
  out.unigram_loss = h;
  out.unigram_examples = unigram_examples;
  return out;
}

}  // namespace scaleref::train
