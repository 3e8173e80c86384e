// What every example does first: read `--out DIR` (where its CSV files go,
// created if missing) and `--quick` (the tiny sizes its ctest smoke run
// uses), and run on one OpenMP thread: these models are small, and threads
// that spin-wait on a shared, busy machine can make a run many times slower.
#pragma once

#include <omp.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

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

}  // namespace scaleref::examples
