// The Setup of a run: the typed checks (validate), and the `key = value` front
// end that reads one (parse_model_config, parse_setup).
#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <scaleref/memory.hpp>
#include <scaleref/train/trainer.hpp>

namespace scaleref::train {

namespace {

std::vector<std::string> split_commas(const std::string& v) {
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
std::string first_layer_matrix(const lm::Config& c, const char* group, lm::Proj r) {
  return std::string("layers.0.") + group + "." + lm::proj_name(r) + (c.uses_sdd(r) ? ".V" : ".W");
}

}  // namespace

std::vector<std::string> default_stable_rank_matrices(const lm::Config& model) {
  return {first_layer_matrix(model, "attn", lm::Proj::q),
          first_layer_matrix(model, "ffn", lm::Proj::down)};
}

Setup make_setup(const TaskConfig& task) {
  validate(task);
  Setup s;
  s.train.task = task;
  s.model.vocab = vocab_of(task);
  s.model.max_seq = task.seq;
  s.train.stable_rank_matrices = default_stable_rank_matrices(s.model);
  return s;
}

namespace {

// The training settings alone (not the task, the model or the schedule).
void check_training(const TrainConfig& t, const char* where) {
  require(t.steps >= 1, where, "key 'steps': expected >= 1, got ", t.steps);
  require(t.batch >= 1, where, "key 'batch': expected >= 1, got ", t.batch);
  require(spec::holds(kOptimizers, t.optimizer), where, "key 'optimizer': unknown optimizer ",
          static_cast<int>(t.optimizer));
  require(spec::holds(kLrShapes, t.schedule), where, "key 'schedule': unknown schedule ",
          static_cast<int>(t.schedule));
  require(std::isfinite(t.lr) && t.lr >= 0, where, "key 'lr': expected >= 0, got ", t.lr);
  require(std::isfinite(t.min_lr) && t.min_lr >= 0 && t.min_lr <= t.lr, where,
          "key 'min_lr': expected 0 <= min_lr <= lr = ", t.lr, ", got ", t.min_lr);
  require(t.warmup >= 0 && t.warmup <= t.steps, where,
          "key 'warmup': expected 0 <= warmup <= ", "steps = ", t.steps, ", got ", t.warmup);
  const double weight_decay =
      t.optimizer == OptimizerKind::adamw ? t.adamw.weight_decay : t.sgd.weight_decay;
  require(std::isfinite(weight_decay) && weight_decay >= 0, where,
          "key 'weight_decay': expected >= 0, got ", weight_decay);
  require(t.adamw.beta1 >= 0 && t.adamw.beta1 < 1, where, "key 'beta1': expected [0, 1), got ",
          t.adamw.beta1);
  require(t.adamw.beta2 >= 0 && t.adamw.beta2 < 1, where, "key 'beta2': expected [0, 1), got ",
          t.adamw.beta2);
  require(std::isfinite(t.adamw.eps) && t.adamw.eps >= 0, where,
          "key 'adam_eps': expected >= 0, got ", t.adamw.eps);
  require(t.sgd.momentum >= 0 && t.sgd.momentum < 1, where, "key 'momentum': expected [0, 1), got ",
          t.sgd.momentum);
  require(!t.sgd.nesterov || t.sgd.momentum > 0, where,
          "key 'nesterov': needs momentum > 0, got momentum = ", t.sgd.momentum);
  require(std::isfinite(t.clip) && t.clip >= 0, where, "key 'clip': expected >= 0 (0: off), got ",
          t.clip);
  require(t.eval_every >= 1, where, "key 'eval_every': expected >= 1, got ", t.eval_every);
  require(t.eval_batches >= 1, where, "key 'eval_batches': expected >= 1, got ", t.eval_batches);
  require(t.log_every >= 1, where, "key 'log_every': expected >= 1, got ", t.log_every);
  require(t.progress_every >= 0, where, "key 'progress_every': expected >= 0, got ",
          t.progress_every);
  require(t.threads >= 0, where, "key 'threads': expected >= 0 (0: default), got ", t.threads);
  require(t.stable_rank_iterations >= 1 && t.stable_rank_iterations <= 1000000, where,
          "key 'stable_rank_iterations': expected 1 .. 1000000, got ", t.stable_rank_iterations);
}

// At least the bytes a run allocates: the parameters with their gradients and
// the optimizer's state (AdamW: two moments; SGD: a momentum buffer), and one
// batch's logits with their gradient, 8 bytes each. Counted in double from a
// one- and a two-layer layout, so that absurd sizes neither overflow nor
// allocate a layout of their own.
double least_bytes(const Setup& s) {
  const auto count = [&](long layers) {
    lm::Config c = s.model;
    c.n_layers = layers;
    double n = 0;
    for (const auto& p : lm::layout(c)) n += static_cast<double>(p.rows) * p.cols;
    return n;
  };
  const double base = count(1), per_layer = count(2) - base;
  const double params = base + per_layer * static_cast<double>(s.model.n_layers - 1);
  const double copies = s.train.optimizer == OptimizerKind::adamw ? 4 : 3;
  const double logits = 2.0 * static_cast<double>(s.train.batch) *
                        static_cast<double>(s.train.task.seq) * static_cast<double>(s.model.vocab);
  return 8 * (copies * params + logits);
}

}  // namespace

void validate(const Setup& s, const char* where) {
  const TrainConfig& t = s.train;
  validate(t.task);
  check_training(t, where);
  lm::validate(s.model);
  const long need = vocab_of(t.task);
  require(s.model.vocab >= need, where, "key 'vocab': task ", task_name(t.task.kind),
          " needs vocab >= ", need, ", got ", s.model.vocab);
  require(s.model.max_seq >= t.task.seq, where,
          "key 'seq': expected seq <= max_seq = ", s.model.max_seq, ", got ", t.task.seq);
  require_memory(where, least_bytes(s),
                 "the run (its parameters with gradients and optimizer state, and a batch's "
                 "logits; keys d_model, d_ff, n_layers, vocab, batch, seq)");
  if (!t.log.empty()) {
    try {  // refused with the other keys, not once the run has started
      io::require_writable(t.log);
    } catch (const Error& e) {
      fail(where, ": key 'log': ", e.what());
    }
  }

  if (t.rescale) {
    const rescale::Schedule& sch = *t.rescale;
    require(sch.every_k_steps >= 1, where, "key 'rescale_every': rescale = ",
            spec::name_of(kRescaleRules, std::optional(sch.method)),
            " needs rescale_every >= 1, got ", sch.every_k_steps);
    require(sch.form == rescale::Form::paper || sch.method == rescale::Method::TVR, where,
            "key 'rescale_form': authors_code exists for tvr only");
    try {
      rescale::check_schedule(where, sch);
    } catch (const Error& e) {
      fail(where, ": key 'rescale_target' / 'rescale_threshold': ", e.what());
    }
  }

  const std::vector<lm::ParamInfo> layout = lm::layout(s.model);
  for (const std::string& name : t.stable_rank_matrices) {
    bool found = false;
    for (const auto& p : layout) found = found || p.name == name;
    require(found, where, "key 'stable_rank_matrices': no parameter named '", name, "'");
  }
}

lm::Config parse_model_config(Options& o) {
  lm::Config c;
  c.vocab = o.get_int("vocab", c.vocab);
  c.d_model = o.get_int("d_model", c.d_model);
  c.n_layers = o.get_int("n_layers", c.n_layers);
  c.n_heads = o.get_int("n_heads", c.n_heads);
  c.d_ff = o.get_int("d_ff", c.d_ff);
  c.max_seq = o.get_int("max_seq", c.max_seq);
  c.norm = o.get_choice("norm", c.norm, lm::kNormKinds);
  c.norm_eps = o.get_double("norm_eps", c.norm_eps);
  c.norm_heads = o.get_int("norm_heads", c.norm_heads);
  c.dyt_alpha_init = o.get_double("dyt_alpha_init", c.dyt_alpha_init);
  c.placement = o.get_choice("placement", c.placement, lm::kPlacements);
  c.final_norm = o.get_bool("final_norm", c.placement == lm::Placement::pre);
  c.positions = o.get_bool("positions", c.positions);
  c.tie_embeddings = o.get_bool("tie_embeddings", c.tie_embeddings);
  c.gated_attention = o.get_bool("gated_attention", c.gated_attention);
  c.qk_norm = o.get_bool("qk_norm", c.qk_norm);
  c.sdd = lm::parse_sdd_set(o.get_string("sdd", "none"));
  const std::string sdd_norm = o.get_string("sdd_norm", spec::name_of(lm::kSddNorms, c.sdd_norm));
  if (const auto k = spec::value_of(lm::kSddNorms, sdd_norm))
    c.sdd_norm = *k;
  else if (spec::value_of(lm::kNormKinds, sdd_norm))
    fail(
        "lm::Config: key 'sdd_norm': SDD needs a scale-invariant norm (sdd eq. 5: norm(k V x) = "
        "norm(V x)), and ",
        sdd_norm, " is not; expected rmsnorm or layernorm");
  else
    fail("lm::Config: key 'sdd_norm': unknown value '", sdd_norm,
         "', expected one of rmsnorm, layernorm");
  c.sdd_eps = o.get_double("sdd_eps", c.sdd_eps);
  c.sdd_alpha_rule = o.get_choice("sdd_alpha_rule", c.sdd_alpha_rule, sdd::kAlphaRules);
  c.scale_vectors = o.get_choice("scale_vectors", c.scale_vectors, lm::kScaleVectorChoices);
  c.scale_vector_decay =
      o.get_choice("scale_vector_decay", c.scale_vector_decay, scalevec::kDecayPolicies);
  c.init = o.get_choice("init", c.init, lm::kInitMethods);
  c.init_sigma = o.get_double("init_sigma", c.init_sigma);
  c.init_gamma = o.get_double("init_gamma", c.init_gamma);
  c.init_alpha = o.get_double("init_alpha", c.init_alpha);
  c.lir = o.get_bool("lir", c.lir);
  c.sir = o.get_bool("sir", c.sir);
  c.seed = o.get_uint64("seed", c.seed);
  lm::validate(c);
  return c;
}

Setup parse_setup(Options& o) {
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
  validate(task);  // vocab_of(task) below needs a valid task
  t.data_seed = o.get_uint64("data_seed", t.data_seed);

  t.steps = o.get_int("steps", t.steps);
  t.batch = o.get_int("batch", t.batch);
  t.optimizer = o.get_choice("optimizer", t.optimizer, kOptimizers);
  t.schedule = o.get_choice("schedule", t.schedule, kLrShapes);
  t.lr = o.get_double("lr", t.lr);
  t.min_lr = o.get_double("min_lr", t.min_lr);
  t.warmup = o.get_int("warmup", t.warmup);
  // one weight_decay key for either optimizer, defaulting to that optimizer's own
  const bool adamw = t.optimizer == OptimizerKind::adamw;
  const double weight_decay =
      o.get_double("weight_decay", adamw ? t.adamw.weight_decay : t.sgd.weight_decay);
  t.adamw.weight_decay = t.sgd.weight_decay = weight_decay;
  t.adamw.beta1 = o.get_double("beta1", t.adamw.beta1);
  t.adamw.beta2 = o.get_double("beta2", t.adamw.beta2);
  t.adamw.eps = o.get_double("adam_eps", t.adamw.eps);
  t.sgd.momentum = o.get_double("momentum", t.sgd.momentum);
  t.sgd.nesterov = o.get_bool("nesterov", t.sgd.nesterov);
  t.sgd.decoupled = o.get_choice("sgd_decay", t.sgd.decoupled, kSgdDecays);
  t.clip = o.get_double("clip", t.clip);
  t.eval_every = o.get_int("eval_every", t.eval_every);
  t.eval_batches = o.get_int("eval_batches", t.eval_batches);
  t.log = o.get_string("log", t.log);
  t.log_every = o.get_int("log_every", t.log_every);
  t.progress_every = o.get_int("progress_every", t.progress_every);
  t.threads = o.get_int("threads", t.threads);
  const long iterations = o.get_int("stable_rank_iterations", t.stable_rank_iterations);
  require(iterations >= 1 && iterations <= 1000000, where,  // before it narrows to an int
          "key 'stable_rank_iterations': expected 1 .. 1000000, got ", iterations);
  t.stable_rank_iterations = static_cast<int>(iterations);
  check_training(t, where);  // before the model's keys, as each key was checked when read
  if (adamw) {
    for (const char* k : {"momentum", "nesterov", "sgd_decay"})
      require(!o.has(k), where, "key '", k, "' is an SGD option, but optimizer = adamw");
  } else {
    for (const char* k : {"beta1", "beta2", "adam_eps"})
      require(!o.has(k), where, "key '", k, "' is an AdamW option, but optimizer = sgd");
  }
  const std::string chosen = o.get_string("stable_rank_matrices", "");

  // the rescale keys (spec/rescale.hpp's Schedule)
  const std::optional<rescale::Method> method =
      o.get_choice("rescale", std::optional<rescale::Method>(), kRescaleRules);
  const long every = o.get_int("rescale_every", 0);
  const rescale::Form form = o.get_choice("rescale_form", rescale::Form::paper, rescale::kForms);
  const double threshold = o.get_double("rescale_threshold", rescale::Schedule{}.threshold);
  const bool depth_scaled = o.get_bool("rescale_depth_scaled", false);
  const bool has_target = o.has("rescale_target");
  double target = o.get_double("rescale_target", 0.0);

  // the model: vocab from the task, max_seq from seq, unless given
  if (!o.has("vocab")) o.set("vocab", std::to_string(vocab_of(task)));
  if (!o.has("max_seq")) o.set("max_seq", std::to_string(task.seq));
  s.model = parse_model_config(o);

  if (!method)
    for (const char* k : {"rescale_every", "rescale_form", "rescale_threshold",
                          "rescale_depth_scaled", "rescale_target"})
      require(!o.has(k), where, "key '", k, "' is given, but rescale = none");
  if (method) {
    if (!has_target) target = s.model.init_sigma;
    rescale::Schedule sch;
    sch.method = *method;
    sch.form = form;
    sch.every_k_steps = every;
    sch.sigma_target = *method == rescale::Method::UWR ? 0.0 : target;
    if (*method == rescale::Method::TVR && form == rescale::Form::authors_code)
      sch.threshold = threshold;
    sch.depth_scaled = *method != rescale::Method::UWR && depth_scaled;
    t.rescale = sch;
  }

  t.stable_rank_matrices =
      chosen.empty() ? default_stable_rank_matrices(s.model) : split_commas(chosen);
  validate(s, where);
  o.finish();
  return s;
}

// The parsed setup of `text` (a config file's contents) plus `args` (flags).
Setup parse_setup(const std::string& text, const std::vector<std::string>& args) {
  Options o;
  o.read_text(text);
  const auto rest = o.read_args(args);
  require(rest.empty(), "train::parse_setup", "unexpected argument '",
          rest.empty() ? "" : rest.front(), "' (options are --key=value)");
  return parse_setup(o);
}

}  // namespace scaleref::train
