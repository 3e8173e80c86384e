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
// A run is a typed Setup (lm::Config + TrainConfig) that a program fills in
// field by field and checks with validate(); make_setup(task) starts one with
// the model fitted to the task. The `key = value` text (train::Options,
// options.hpp) is a front end to it: parse_setup reads the keys below into a
// Setup and validates it. The keys (model keys: parse_model_config; unknown
// keys: Error):
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

#include <iosfwd>
#include <optional>
#include <scaleref/init/rescale.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/spec/rescale.hpp>
#include <scaleref/train/data.hpp>
#include <scaleref/train/optim.hpp>
#include <scaleref/train/options.hpp>
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

// A setup for `task` with every other setting at its default: the model's
// vocab and max_seq fitted to the task (vocab_of(task), seq), and the
// stable-rank columns at their default (default_stable_rank_matrices).
Setup make_setup(const TaskConfig& task);

// The first layer's query map and FFN down map (W, or V under SDD).
std::vector<std::string> default_stable_rank_matrices(const lm::Config& model);

// Throws Error naming the offending key (the field's name in the text front
// end) unless s describes a run: every setting in range, the model valid
// (lm::validate), its vocab and max_seq enough for the task, the rescale
// schedule complete, every stable-rank matrix a parameter of the model.
void validate(const Setup& s, const char* where = "train::validate");

// The model's keys of `o` (each marked used), validated (lm::validate).
// final_norm defaults to placement = pre.
lm::Config parse_model_config(Options& o);

// Reads every key of a run from `o` (the model's through parse_model_config),
// fills in the defaults that depend on other keys (vocab and max_seq from the
// task, weight_decay from the optimizer, rescale_target from init_sigma, the
// stable-rank matrices from the model), rejects keys that the chosen optimizer
// or rescale rule does not read, validates the Setup, then o.finish(): an
// unknown or misspelt key is an Error naming it.
Setup parse_setup(Options& o);

// The parsed setup of `text` (a config file's contents) plus `args` (flags).
Setup parse_setup(const std::string& text, const std::vector<std::string>& args = {});

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
double validation_loss(const Setup& s, const lm::ParamStore<double>& p);

// Validates s, then runs the training it describes; writes the CSV to `csv`
// and progress lines to `progress` when they are not null.
Result run(const Setup& s, std::ostream* csv, std::ostream* progress);

// run(), writing the CSV to s.train.log when one is named.
Result run(const Setup& s, std::ostream* progress);

}  // namespace scaleref::train
