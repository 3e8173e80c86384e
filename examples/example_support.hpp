// What the examples share. start(): what every example does first: read
// `--out DIR` (where its CSV files go, created if missing) and `--quick` (the
// tiny sizes its ctest smoke run uses), and run on one OpenMP thread: these
// models are small, and threads that spin-wait on a shared, busy machine can
// make a run many times slower. read_csv(): a CSV the trainer wrote, by column.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

namespace scaleref::examples {

struct Args {
  std::filesystem::path out;
  bool quick = false;
};

// Exits with status 2 and a usage line on bad arguments.
inline Args start(int argc, char** argv, const std::string& program) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--quick") {
      a.quick = true;
    } else if (s == "--out" && i + 1 < argc) {
      a.out = argv[++i];
    } else {
      std::cerr << "usage: " << program << " --out DIR [--quick]\n";
      std::exit(2);
    }
  }
  if (a.out.empty()) {
    std::cerr << program << ": --out DIR is required\n";
    std::exit(2);
  }
  omp_set_num_threads(1);
  std::filesystem::create_directories(a.out);
  return a;
}

// The tiny LM's recipe shared by the seednorm and scalevec examples: a 4-layer,
// 4-head Pre-Norm model (d_model 16 quick, else 64) trained with AdamW at lr
// 3e-3, cosine decay and clipping at 1.0, for 10 steps (quick) or 400.
inline train::Setup short_pre_norm_run(train::TaskKind kind, bool quick) {
  train::Setup s = train::make_setup({.kind = kind, .seq = 32});
  s.model.n_heads = 4;
  s.model.n_layers = 4;
  s.model.placement = lm::Placement::pre;
  s.model.d_model = quick ? 16 : 64;
  train::TrainConfig& t = s.train;
  t.optimizer = train::OptimizerKind::adamw;
  t.lr = 3e-3;
  t.schedule = train::LrShape::cosine;
  t.clip = 1.0;
  t.eval_batches = 4;
  t.stable_rank_iterations = 5;  // stable rank is not used there
  t.steps = quick ? 10 : 400;
  t.warmup = quick ? 2 : 20;
  t.eval_every = quick ? 5 : 20;
  return s;
}

// The cells of one CSV line, in order; an empty cell (a column not measured on
// that row) is kept.
inline std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= line.size()) {
    const std::size_t end = std::min(line.find(',', pos), line.size());
    out.push_back(line.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// A CSV the trainer wrote, as columns by name (cells as text; empty: not measured).
inline std::map<std::string, std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_cells(line);
  std::map<std::string, std::vector<std::string>> cols;
  while (std::getline(in, line)) {
    const std::vector<std::string> row = csv_cells(line);
    for (std::size_t k = 0; k < header.size() && k < row.size(); ++k)
      cols[header[k]].push_back(row[k]);
  }
  return cols;
}

}  // namespace scaleref::examples
