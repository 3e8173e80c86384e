// The training loop of a Setup (trainer.hpp describes the step, the CSV and
// the progress lines).
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/metrics/activations.hpp>
#include <scaleref/metrics/attention.hpp>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/train/trainer.hpp>

namespace scaleref::train {

double validation_loss(const Setup& s, const lm::ParamStore<double>& p) {
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

namespace {

std::string fmt(double v) {
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

Columns columns(const Setup& s, const std::vector<lm::ParamInfo>& info) {
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
void weight_columns(const Setup& s, const Columns& cols, const lm::ParamStore<double>& p,
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
void probe_columns(const Columns& cols, const lm::Cache<double>& cache, Row& row) {
  for (std::size_t l = 0; l < cache.residual.size(); ++l)
    row.set(cols.max_act + l, metrics::max_abs_activation(cache.residual[l]).value);
  for (std::size_t l = 0; l < cache.attention.size(); ++l)
    row.set(cols.sink + l, metrics::layer_sink_score(cache.attention[l]));
  row.set(cols.flow, metrics::residual_flow_ratio(cache.residual.back(), cache.residual.front(),
                                                  metrics::TokenReduction::ratio_of_norms));
}

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

}  // namespace

Result run(const Setup& s, std::ostream* csv, std::ostream* progress) {
  validate(s, "train::run");
  const TrainConfig& t = s.train;
  const ThreadScope threads(t.threads);
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
  const Columns cols = columns(s, p.info);
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
    Row row(cols.names.size());
    row.set(cols.step, 0L);
    row.set(cols.val_loss, v);
    weight_columns(s, cols, p, row);
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
      Row row(cols.names.size());
      row.set(cols.step, step);
      row.set(cols.lr, lr);
      row.set(cols.loss, loss);
      if (val) row.set(cols.val_loss, *val);
      row.set(cols.grad_norm, gnorm);
      for (long l = 0; l < L; ++l)
        row.set(cols.grad_layers + static_cast<std::size_t>(l),
                std::sqrt(layer_sq[static_cast<std::size_t>(l)]));
      probe_columns(cols, cache, row);
      weight_columns(s, cols, p, row);
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

Result run(const Setup& s, std::ostream* progress) {
  if (s.train.log.empty()) return run(s, nullptr, progress);
  // The log is written whole or not at all: a run that fails (a non-finite
  // loss, memory exhausted, a full disk) leaves no log, nor a partial one.
  std::optional<io::AtomicFile> out;
  try {
    out.emplace(s.train.log);
  } catch (const Error& e) {
    fail("train::run: key 'log': ", e.what());
  }
  Result r = run(s, &out->stream(), progress);
  try {
    out->commit();
  } catch (const Error& e) {
    fail("train::run: key 'log': ", e.what());
  }
  return r;
}

}  // namespace scaleref::train
