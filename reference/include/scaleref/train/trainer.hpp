// The tiny LM's training loop: a synthetic task (train/data.hpp), the analytic
// model (lm/model.hpp), AdamW or SGD with global-norm clipping and a learning-
// rate schedule (train/optim.hpp), weight rescaling during training
// (init/rescale.hpp: UWR, ZWR, TVR), and a CSV log of the papers' diagnostics
// (metrics/*.hpp). A run is a pure function of its options: the same options
// give a byte-identical CSV, on any number of OpenMP threads.
//
// One optimizer step t = 1 .. steps:
//   1. batch t: train examples (t - 1) B .. t B - 1 of the task (data_seed)
//   2. loss, cache = lm::forward;  grads = lm::backward
//   3. grad norms (per decoder layer, global) before clipping; clip (clip > 0)
//   4. optimizer step with lr = lr_at(schedule, t)
//   5. rescale: rescale::on_step(schedule, t, l, W) for every decoder-layer
//      matrix (Kind::matrix, layer l >= 1)
//   6. validation loss when t is a multiple of eval_every, and at the last step:
//      the loss over validation examples 0 .. eval_batches B - 1, each batch's
//      mean weighted by its counted targets
// Step 0 evaluates the initial model (validation loss, weights) before any update.
//
// CSV: one header row, then the row of step 0 and of every step that is a
// multiple of log_every, and the last. Columns (empty where not measured):
//   step, lr, loss (this step's batch, before the update), val_loss,
//   grad_norm (global, pre-clip), grad_norm.layers.<l> (norm over every
//   parameter of decoder layer l, pre-clip), max_act.x<l> (max |x_l| of the
//   residual stream x_0 .. x_L of this step's forward, metrics/activations.hpp),
//   sink.layers.<l> (the attention sink score, smallinit eq. 5, averaged over
//   the batch's sequences and heads), residual_flow (||x_L - x_0||_F / ||x_0||_F),
//   std.<name> (population std of every Kind::matrix after the update and
//   rescale), stable_rank.<name> (smallinit eq. 7, of each chosen matrix),
//   rescaled (matrices the rescale rule changed at this step)
// Numbers are written with 17 significant digits, so equal bits give equal text.
//
// Options (lm::Options; model keys from lm::parse_config; unknown keys: Error):
//   task = modular | kv_recall | grammar, seq, val_fraction, modulus,
//   modular_holdout = pairs | windows, kv_keys,
//   kv_values, kv_pairs, grammar_depth, data_seed            the data (data.hpp)
//   steps, batch                                             the run
//   optimizer = adamw | sgd, lr, min_lr, warmup, schedule = cosine | constant,
//   beta1, beta2, adam_eps, weight_decay (default 0.01 for adamw, 0 for sgd),
//   momentum, nesterov, sgd_decay = coupled | decoupled, clip (0: none)
//   rescale = none | tvr | zwr | uwr, rescale_every (k), rescale_target
//   (default init_sigma), rescale_form = paper | authors_code (TVR),
//   rescale_threshold, rescale_depth_scaled
//   eval_every, eval_batches, log (CSV path), log_every, progress_every
//   (stderr; 0: about 20 lines per run), stable_rank_matrices (comma list; default
//   the first layer's q and ffn down matrices), stable_rank_iterations, threads
//   (OpenMP threads; 0: the default)
// vocab defaults to the task's vocabulary (an Error if given smaller), max_seq to seq.
#pragma once

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>
#include <scaleref/error.hpp>
#include <scaleref/init/rescale.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/lm/options.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/metrics/activations.hpp>
#include <scaleref/metrics/attention.hpp>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/train/data.hpp>
#include <scaleref/train/optim.hpp>
#include <string>
#include <vector>

namespace scaleref::train {

enum class OptimizerKind { adamw, sgd };
inline constexpr spec::NameTable<OptimizerKind, 2> kOptimizers{
    {{OptimizerKind::adamw, "adamw"}, {OptimizerKind::sgd, "sgd"}}};

// The choices of the keys whose values name a flag or a rule.
inline constexpr spec::NameTable<bool, 2> kModularHoldouts{{{true, "pairs"}, {false, "windows"}}};
inline constexpr spec::NameTable<bool, 2> kSgdDecays{{{false, "coupled"}, {true, "decoupled"}}};
// The rescale rules by the command-line tool's names (none: no rescaling).
inline constexpr spec::NameTable<std::optional<rescale::Method>, 4> kRescaleRules{
    {{std::nullopt, "none"},
     {rescale::Method::TVR, "tvr"},
     {rescale::Method::ZWR, "zwr"},
     {rescale::Method::UWR, "uwr"}}};

struct TrainConfig {
  TaskConfig task;
  std::uint64_t data_seed = 0;
  long steps = 200;
  long batch = 8;
  OptimizerKind optimizer = OptimizerKind::adamw;
  LrShape schedule = LrShape::cosine;
  double lr = 1e-3;
  double min_lr = 0.0;
  long warmup = 0;
  AdamWConfig adamw;  // beta1, beta2, eps, weight_decay
  SGDConfig sgd;      // momentum, nesterov, weight_decay, decoupled
  double clip = 1.0;  // max global grad norm; 0: no clipping
  std::optional<rescale::Schedule> rescale;
  long eval_every = 50;
  long eval_batches = 4;
  std::string log;  // CSV path; empty: no file
  long log_every = 1;
  long progress_every = 0;  // 0: about 20 lines per run
  std::vector<std::string> stable_rank_matrices;
  int stable_rank_iterations = 1000;
  long threads = 0;

  LrSchedule lr_schedule() const { return {schedule, lr, min_lr, warmup, steps}; }
};

struct Setup {
  lm::Config model;
  TrainConfig train;
};

namespace detail {

inline std::vector<std::string> split_commas(const std::string& v) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= v.size()) {
    const std::size_t end = std::min(v.find(',', pos), v.size());
    if (end > pos) out.push_back(v.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// The first layer's map r: W, or V under SDD.
inline std::string first_layer_matrix(const lm::Config& c, const char* group, lm::Proj r) {
  return std::string("layers.0.") + group + "." + lm::proj_name(r) + (c.uses_sdd(r) ? ".V" : ".W");
}

}  // namespace detail

// Reads every key of a run from `o` (the model's through lm::parse_config),
// then o.finish(): an unknown or misspelt key is an Error naming it.
inline Setup parse_setup(lm::Options& o) {
  constexpr const char* where = "train::parse_setup";
  Setup s;
  TrainConfig& t = s.train;
  TaskConfig& task = t.task;
  task.kind = o.get_choice("task", task.kind, kTaskKinds);
  task.seq = o.get_int("seq", task.seq);
  task.val_fraction = o.get_double("val_fraction", task.val_fraction);
  task.modulus = o.get_int("modulus", task.modulus);
  task.modular_hold_pairs =
      o.get_choice("modular_holdout", task.modular_hold_pairs, kModularHoldouts);
  task.kv_keys = o.get_int("kv_keys", task.kv_keys);
  task.kv_values = o.get_int("kv_values", task.kv_values);
  task.kv_pairs = o.get_int("kv_pairs", task.kv_pairs);
  task.grammar_depth = o.get_int("grammar_depth", task.grammar_depth);
  validate(task);
  t.data_seed = o.get_uint64("data_seed", t.data_seed);

  t.steps = o.get_int("steps", t.steps);
  require(t.steps >= 1, where, "key 'steps': expected >= 1, got ", t.steps);
  t.batch = o.get_int("batch", t.batch);
  require(t.batch >= 1, where, "key 'batch': expected >= 1, got ", t.batch);

  t.optimizer = o.get_choice("optimizer", t.optimizer, kOptimizers);
  t.schedule = o.get_choice("schedule", t.schedule, kLrShapes);
  t.lr = o.get_double("lr", t.lr);
  require(std::isfinite(t.lr) && t.lr >= 0, where, "key 'lr': expected >= 0, got ", t.lr);
  t.min_lr = o.get_double("min_lr", t.min_lr);
  require(std::isfinite(t.min_lr) && t.min_lr >= 0 && t.min_lr <= t.lr, where,
          "key 'min_lr': expected 0 <= min_lr <= lr = ", t.lr, ", got ", t.min_lr);
  t.warmup = o.get_int("warmup", t.warmup);
  require(t.warmup >= 0 && t.warmup <= t.steps, where,
          "key 'warmup': expected 0 <= warmup <= ", "steps = ", t.steps, ", got ", t.warmup);
  const bool adamw = t.optimizer == OptimizerKind::adamw;
  const double weight_decay = o.get_double("weight_decay", adamw ? 0.01 : 0.0);
  require(std::isfinite(weight_decay) && weight_decay >= 0, where,
          "key 'weight_decay': expected >= 0, got ", weight_decay);
  t.adamw.beta1 = o.get_double("beta1", t.adamw.beta1);
  require(t.adamw.beta1 >= 0 && t.adamw.beta1 < 1, where, "key 'beta1': expected [0, 1), got ",
          t.adamw.beta1);
  t.adamw.beta2 = o.get_double("beta2", t.adamw.beta2);
  require(t.adamw.beta2 >= 0 && t.adamw.beta2 < 1, where, "key 'beta2': expected [0, 1), got ",
          t.adamw.beta2);
  t.adamw.eps = o.get_double("adam_eps", t.adamw.eps);
  require(std::isfinite(t.adamw.eps) && t.adamw.eps >= 0, where,
          "key 'adam_eps': expected >= 0, got ", t.adamw.eps);
  t.adamw.weight_decay = weight_decay;
  t.sgd.momentum = o.get_double("momentum", t.sgd.momentum);
  require(t.sgd.momentum >= 0 && t.sgd.momentum < 1, where, "key 'momentum': expected [0, 1), got ",
          t.sgd.momentum);
  t.sgd.nesterov = o.get_bool("nesterov", t.sgd.nesterov);
  require(!t.sgd.nesterov || t.sgd.momentum > 0, where,
          "key 'nesterov': needs momentum > 0, got momentum = ", t.sgd.momentum);
  t.sgd.decoupled = o.get_choice("sgd_decay", t.sgd.decoupled, kSgdDecays);
  t.sgd.weight_decay = weight_decay;
  if (adamw) {
    for (const char* k : {"momentum", "nesterov", "sgd_decay"})
      require(!o.has(k), where, "key '", k, "' is an SGD option, but optimizer = adamw");
  } else {
    for (const char* k : {"beta1", "beta2", "adam_eps"})
      require(!o.has(k), where, "key '", k, "' is an AdamW option, but optimizer = sgd");
  }
  t.clip = o.get_double("clip", t.clip);
  require(std::isfinite(t.clip) && t.clip >= 0, where, "key 'clip': expected >= 0 (0: off), got ",
          t.clip);

  t.eval_every = o.get_int("eval_every", t.eval_every);
  require(t.eval_every >= 1, where, "key 'eval_every': expected >= 1, got ", t.eval_every);
  t.eval_batches = o.get_int("eval_batches", t.eval_batches);
  require(t.eval_batches >= 1, where, "key 'eval_batches': expected >= 1, got ", t.eval_batches);
  t.log = o.get_string("log", t.log);
  t.log_every = o.get_int("log_every", t.log_every);
  require(t.log_every >= 1, where, "key 'log_every': expected >= 1, got ", t.log_every);
  t.progress_every = o.get_int("progress_every", t.progress_every);
  require(t.progress_every >= 0, where, "key 'progress_every': expected >= 0, got ",
          t.progress_every);
  t.threads = o.get_int("threads", t.threads);
  require(t.threads >= 0, where, "key 'threads': expected >= 0 (0: default), got ", t.threads);
  const long iterations = o.get_int("stable_rank_iterations", t.stable_rank_iterations);
  require(iterations >= 1 && iterations <= 1000000, where,
          "key 'stable_rank_iterations': expected 1 .. 1000000, got ", iterations);
  t.stable_rank_iterations = static_cast<int>(iterations);
  const std::string chosen = o.get_string("stable_rank_matrices", "");

  // the rescale keys (init/rescale.hpp's Schedule)
  const std::optional<rescale::Method> method =
      o.get_choice("rescale", std::optional<rescale::Method>(), kRescaleRules);
  const long every = o.get_int("rescale_every", 0);
  const rescale::Form form = o.get_choice("rescale_form", rescale::Form::paper, rescale::kForms);
  const double threshold = o.get_double("rescale_threshold", rescale::Schedule{}.threshold);
  const bool depth_scaled = o.get_bool("rescale_depth_scaled", false);
  const bool has_target = o.has("rescale_target");
  double target = o.get_double("rescale_target", 0.0);

  // the model: vocab from the task, max_seq from seq, unless given
  const long need = vocab_of(task);
  if (!o.has("vocab")) o.set("vocab", std::to_string(need));
  if (!o.has("max_seq")) o.set("max_seq", std::to_string(task.seq));
  s.model = lm::parse_config(o);
  require(s.model.vocab >= need, where, "key 'vocab': task ", task_name(task.kind),
          " needs vocab >= ", need, ", got ", s.model.vocab);
  require(s.model.max_seq >= task.seq, where,
          "key 'seq': expected seq <= max_seq = ", s.model.max_seq, ", got ", task.seq);

  if (!method)
    for (const char* k : {"rescale_every", "rescale_form", "rescale_threshold",
                          "rescale_depth_scaled", "rescale_target"})
      require(!o.has(k), where, "key '", k, "' is given, but rescale = none");
  if (method) {
    require(every >= 1, where, "key 'rescale_every': rescale = ", o.get_string("rescale", ""),
            " needs rescale_every >= 1, got ", every);
    if (!has_target) target = s.model.init_sigma;
    require(form == rescale::Form::paper || *method == rescale::Method::TVR, where,
            "key 'rescale_form': authors_code exists for tvr only");
    rescale::Schedule sch;
    if (*method == rescale::Method::UWR)
      sch = rescale::Schedule::uwr(every);
    else if (*method == rescale::Method::ZWR)
      sch = rescale::Schedule::zwr(target, every, depth_scaled);
    else if (form == rescale::Form::paper)
      sch = rescale::Schedule::tvr(target, every, depth_scaled);
    else
      sch = rescale::Schedule::tvr_authors_code(target, every, threshold, depth_scaled);
    try {
      rescale::check_schedule("train::parse_setup", sch);
    } catch (const Error& e) {
      fail("train::parse_setup: key 'rescale_target' / 'rescale_threshold': ", e.what());
    }
    t.rescale = sch;
  }

  const std::vector<lm::ParamInfo> layout = lm::layout(s.model);
  t.stable_rank_matrices =
      chosen.empty()
          ? std::vector<std::string>{detail::first_layer_matrix(s.model, "attn", lm::Proj::q),
                                     detail::first_layer_matrix(s.model, "ffn", lm::Proj::down)}
          : detail::split_commas(chosen);
  for (const std::string& name : t.stable_rank_matrices) {
    bool found = false;
    for (const auto& p : layout) found = found || p.name == name;
    require(found, where, "key 'stable_rank_matrices': no parameter named '", name, "'");
  }
  o.finish();
  return s;
}

// The parsed setup of `text` (a config file's contents) plus `args` (flags).
inline Setup parse_setup(const std::string& text, const std::vector<std::string>& args = {}) {
  lm::Options o;
  o.read_text(text);
  const auto rest = o.read_args(args);
  require(rest.empty(), "train::parse_setup", "unexpected argument '",
          rest.empty() ? "" : rest.front(), "' (options are --key=value)");
  return parse_setup(o);
}

struct EvalPoint {
  long step;
  double val_loss;
};

struct Result {
  std::vector<EvalPoint> evals;  // step 0 (the initial model) first
  double last_loss = 0;          // the last step's training loss
  long rescaled = 0;             // matrices changed by the rescale rule, over the run
  lm::ParamStore<double> params;
  TaskInfo task;
};

// The validation loss of p: examples 0 .. eval_batches B - 1 of the validation
// split, each batch's mean loss weighted by its counted targets.
inline double validation_loss(const Setup& s, const lm::ParamStore<double>& p) {
  const TrainConfig& t = s.train;
  double sum = 0;
  long count = 0;
  for (long k = 0; k < t.eval_batches; ++k) {
    const lm::Batch b = make_batch(t.task, t.data_seed, Split::validation,
                                   static_cast<std::uint64_t>(k * t.batch), t.batch);
    const long n = b.counted();
    sum += lm::forward<double>(s.model, p, b) * static_cast<double>(n);
    count += n;
  }
  return sum / static_cast<double>(count);
}

namespace detail {

inline std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// One CSV row, built column by column; unmeasured columns stay empty.
class Row {
 public:
  explicit Row(std::size_t n) : cells_(n) {}
  void set(std::size_t i, double v) { cells_[i] = fmt(v); }
  void set(std::size_t i, long v) { cells_[i] = std::to_string(v); }
  std::string str() const {
    std::string out;
    for (std::size_t i = 0; i < cells_.size(); ++i) out += (i ? "," : "") + cells_[i];
    return out + "\n";
  }

 private:
  std::vector<std::string> cells_;
};

struct Columns {
  std::vector<std::string> names;
  std::size_t step, lr, loss, val_loss, grad_norm, grad_layers, max_act, sink, flow, stds, ranks,
      rescaled;
};

inline Columns columns(const Setup& s, const std::vector<lm::ParamInfo>& info) {
  Columns c;
  auto& n = c.names;
  const long L = s.model.n_layers;
  c.step = n.size(), n.push_back("step");
  c.lr = n.size(), n.push_back("lr");
  c.loss = n.size(), n.push_back("loss");
  c.val_loss = n.size(), n.push_back("val_loss");
  c.grad_norm = n.size(), n.push_back("grad_norm");
  c.grad_layers = n.size();
  for (long l = 0; l < L; ++l) n.push_back("grad_norm.layers." + std::to_string(l));
  c.max_act = n.size();
  for (long l = 0; l <= L; ++l) n.push_back("max_act.x" + std::to_string(l));
  c.sink = n.size();
  for (long l = 0; l < L; ++l) n.push_back("sink.layers." + std::to_string(l));
  c.flow = n.size(), n.push_back("residual_flow");
  c.stds = n.size();
  for (const auto& p : info)
    if (p.kind == lm::Kind::matrix) n.push_back("std." + p.name);
  c.ranks = n.size();
  for (const auto& name : s.train.stable_rank_matrices) n.push_back("stable_rank." + name);
  c.rescaled = n.size(), n.push_back("rescaled");
  return c;
}

// The weight columns: std of every matrix, stable rank of the chosen ones.
inline void weight_columns(const Setup& s, const Columns& cols, const lm::ParamStore<double>& p,
                           Row& row) {
  std::size_t k = cols.stds;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p.info[i].kind == lm::Kind::matrix) row.set(k++, metrics::mean_std(p.values[i]).std);
  metrics::PowerOptions<double> po;
  po.max_iterations = s.train.stable_rank_iterations;
  k = cols.ranks;
  for (const auto& name : s.train.stable_rank_matrices)
    row.set(k++, metrics::stable_rank(p.at(name), po).value);
}

// The forward probes of one step: activations, sink scores, residual flow.
inline void probe_columns(const Columns& cols, const lm::Cache<double>& cache, Row& row) {
  for (std::size_t l = 0; l < cache.residual.size(); ++l)
    row.set(cols.max_act + l, metrics::max_abs_activation(cache.residual[l]).value);
  for (std::size_t l = 0; l < cache.attention.size(); ++l)
    row.set(cols.sink + l, metrics::layer_sink_score(cache.attention[l]));
  row.set(cols.flow, metrics::residual_flow_ratio(cache.residual.back(), cache.residual.front(),
                                                  metrics::TokenReduction::ratio_of_norms));
}

}  // namespace detail

namespace detail {

// OpenMP's thread count set for one run and restored after it, so a caller's
// setting outlives the run.
class ThreadScope {
 public:
  explicit ThreadScope(long threads) : saved_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(static_cast<int>(threads));
  }
  ~ThreadScope() { omp_set_num_threads(saved_); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
};

}  // namespace detail

// Runs the training the setup describes; writes the CSV to `csv` and progress
// lines to `progress` when they are not null.
inline Result run(const Setup& s, std::ostream* csv, std::ostream* progress) {
  const TrainConfig& t = s.train;
  const detail::ThreadScope threads(t.threads);
  Result result;
  result.task = info(t.task, t.data_seed);
  lm::ParamStore<double> p = lm::init_params<double>(s.model);
  std::optional<AdamW<double>> adamw;
  std::optional<SGD<double>> sgd;
  if (t.optimizer == OptimizerKind::adamw)
    adamw.emplace(p, t.adamw);
  else
    sgd.emplace(p, t.sgd);
  const LrSchedule schedule = t.lr_schedule();
  check(schedule);
  const detail::Columns cols = detail::columns(s, p.info);
  const long L = s.model.n_layers;
  const long every = t.progress_every > 0 ? t.progress_every : std::max(1L, t.steps / 20);
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  if (progress) {
    *progress << "train: task " << result.task.name << " (" << result.task.description
              << "), vocab " << result.task.vocab << ", " << p.size() << " tensors, " << t.steps
              << " steps of " << t.batch << " x " << t.task.seq << " tokens\n"
              << "train: unigram baseline loss " << result.task.unigram_loss;
    if (result.task.optimal_loss) *progress << ", perfect predictor " << *result.task.optimal_loss;
    *progress << "\n";
  }
  if (csv) {
    for (std::size_t i = 0; i < cols.names.size(); ++i) *csv << (i ? "," : "") << cols.names[i];
    *csv << "\n";
  }
  {  // step 0: the initial model
    const double v = validation_loss(s, p);
    result.evals.push_back({0, v});
    detail::Row row(cols.names.size());
    row.set(cols.step, 0L);
    row.set(cols.val_loss, v);
    detail::weight_columns(s, cols, p, row);
    if (csv) *csv << row.str();
    if (progress) *progress << "step 0/" << t.steps << "  val " << v << "\n";
  }

  for (long step = 1; step <= t.steps; ++step) {
    const lm::Batch b = make_batch(t.task, t.data_seed, Split::train,
                                   static_cast<std::uint64_t>((step - 1) * t.batch), t.batch);
    lm::Cache<double> cache;
    double loss = 0;
    lm::ParamStore<double> g;
    try {
      loss = lm::forward<double>(s.model, p, b, &cache);
      require(std::isfinite(loss), "lm::forward", "the loss is not finite: ", loss);
      g = lm::backward<double>(s.model, p, b, cache);
    } catch (const Error& e) {
      fail("train::run: step ", step, " failed (lower lr or enable clip): ", e.what());
    }

    std::vector<double> layer_sq(static_cast<std::size_t>(L), 0.0);
    for (std::size_t i = 0; i < g.size(); ++i)
      if (g.info[i].layer >= 1) {
        const double n = metrics::frobenius_norm(g.values[i]);
        layer_sq[static_cast<std::size_t>(g.info[i].layer - 1)] += n * n;
      }
    const double gnorm = t.clip > 0 ? clip_grad_norm(g, t.clip) : global_norm(g);
    const double lr = lr_at(schedule, step);
    if (adamw)
      adamw->step(p, g, lr);
    else
      sgd->step(p, g, lr);

    for (std::size_t i = 0; i < p.size(); ++i)
      require(all_finite(p.values[i]), "train::run", "parameter '", p.info[i].name,
              "' is not finite after step ", step, " (lr = ", lr, "; lower lr or enable clip)");
    long rescaled = 0;
    if (t.rescale)
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (p.info[i].kind != lm::Kind::matrix || p.info[i].layer < 1) continue;
        rescale::Outcome<double> o =
            rescale::on_step(*t.rescale, step, p.info[i].layer, p.values[i]);
        if (o.rescaled) ++rescaled;
        p.values[i] = std::move(o.W);
      }
    result.rescaled += rescaled;
    result.last_loss = loss;

    const bool last = step == t.steps;
    std::optional<double> val;
    if (step % t.eval_every == 0 || last) {
      val = validation_loss(s, p);
      result.evals.push_back({step, *val});
    }
    if (csv && (step % t.log_every == 0 || last)) {
      detail::Row row(cols.names.size());
      row.set(cols.step, step);
      row.set(cols.lr, lr);
      row.set(cols.loss, loss);
      if (val) row.set(cols.val_loss, *val);
      row.set(cols.grad_norm, gnorm);
      for (long l = 0; l < L; ++l)
        row.set(cols.grad_layers + static_cast<std::size_t>(l),
                std::sqrt(layer_sq[static_cast<std::size_t>(l)]));
      detail::probe_columns(cols, cache, row);
      detail::weight_columns(s, cols, p, row);
      row.set(cols.rescaled, rescaled);
      *csv << row.str();
    }
    if (progress && (step % every == 0 || last)) {
      char vbuf[32] = "-";
      if (val) std::snprintf(vbuf, sizeof vbuf, "%.4f", *val);
      char line[256];
      std::snprintf(line, sizeof line,
                    "step %ld/%ld  loss %.4f  val %s  lr %.3g  |g| %.3g  %.1f s\n", step, t.steps,
                    loss, vbuf, lr, gnorm, seconds());
      *progress << line << std::flush;
    }
  }
  result.params = std::move(p);
  return result;
}

// run(), writing the CSV to s.train.log when one is named.
inline Result run(const Setup& s, std::ostream* progress) {
  if (s.train.log.empty()) return run(s, nullptr, progress);
  std::ofstream out(s.train.log);
  require(out.good(), "train::run", "key 'log': cannot open '", s.train.log, "' for writing");
  Result r = run(s, &out, progress);
  out.flush();
  require(out.good(), "train::run", "key 'log': writing '", s.train.log, "' failed");
  return r;
}

}  // namespace scaleref::train
