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

// A CSV the trainer wrote, as columns by name (cells as text; empty: not measured).
inline std::map<std::string, std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = train::detail::split_commas(line);
  std::map<std::string, std::vector<std::string>> cols;
  while (std::getline(in, line)) {
    std::size_t pos = 0, k = 0;
    while (pos <= line.size() && k < header.size()) {
      const std::size_t end = std::min(line.find(',', pos), line.size());
      cols[header[k++]].push_back(line.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  return cols;
}

}  // namespace scaleref::examples
