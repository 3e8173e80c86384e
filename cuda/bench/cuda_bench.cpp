// cuda_bench: how fast the fused CUDA kernels run against the memory system
// and against the same math unfused.
//
// For every case (op x direction x dtype x shape) it reports the median time
// of the fused call with its spread (p10 - p90, min, max) over --reps calls
// after warm-up, each call timed by CUDA events after an L2 flush
// (timing.hpp); the bytes the case must move by the explicit formula of
// bytes.hpp (the legend lists each term; every result line and JSON entry
// carries its formula); GB/s; the fraction of the bandwidth of a
// device-to-device copy of the same bytes timed the same way in the same
// run; and the ratio to the unfused baseline (unfused.hpp: the same math as
// separate simple kernels), after checking that both compute the same
// outputs (ops.hpp).
//
// Ops: rmsnorm, layernorm, dyt, seednorm (1 head), seednorm_h16 (16 heads),
// sdd_epilogue (RMSNorm with gain alpha, eps 0), sdd_layer (cuBLAS GEMM +
// epilogue, also reported in TFLOP/s); directions fwd, bwd, fwd_bwd.
// Cases: every op and direction at the default shape 16384 x 4096 in bf16,
// fp32 and fp64, and a sweep of the hidden size N = 1024 .. 262144 at the
// same element count (rows = 2^26 / N), forward and backward, in bf16.
//
//   cuda_bench                         everything above
//   cuda_bench --quick                 fewer reps, sweep N in {1024, 8192, 65536, 262144}
//   cuda_bench --op seednorm,dyt --dtype bf16 --reps 100 --json out.json
//   cuda_bench --smoke                 a tiny shape, 3 reps: does every case run and agree?
//
// Options: --op LIST, --dtype LIST (bf16, fp32, fp64, all), --dir LIST, --shape RxD
// (repeatable: each shape is a case; the sweep keeps the first one's element count),
// --reps N, --warmup N, --no-sweep, --json FILE, --commit SHA, --date TEXT.
// Exit status: 0 done (and, without a CUDA device, 0 under --smoke after
// printing why); 1 when a case failed (a CUDA error; the other cases still
// run and the JSON is still written), without a device outside --smoke, or
// under --smoke when fused and unfused disagree; 2 on bad arguments.
// scripts/bench_cuda.sh runs this with bench_torch.py and merges the two.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <map>
#include <memory>
#include <scaleref/cuda/device.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "ops.hpp"
#include "report.hpp"
#include "timing.hpp"

namespace {

using namespace scaleref::cuda;
using namespace scaleref::cuda::bench;
using i64 = std::int64_t;

struct Options {
  std::vector<Op> ops{std::begin(kAllOps), std::end(kAllOps)};
  std::vector<Dir> dirs{std::begin(kAllDirs), std::end(kAllDirs)};
  std::vector<DType> dtypes{DType::bf16, DType::f32, DType::f64};
  bool dtypes_given = false;
  std::vector<Shape> shapes{{16384, 4096, 1}};  // --shape, repeatable; the first sets the sweep
  bool shape_given = false;
  int reps = 50, warmup = 5;
  bool reps_given = false, warmup_given = false;
  bool quick = false, smoke = false, sweep = true;
  std::string json, commit = "unknown", date;
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: cuda_bench [--quick] [--smoke] [--op LIST] [--dtype LIST] [--dir LIST]\n"
               "                  [--shape RxD] [--reps N] [--warmup N] [--no-sweep]\n"
               "                  [--json FILE] [--commit SHA] [--date TEXT]\n"
               "  ops: rmsnorm layernorm dyt seednorm seednorm_h16 sdd_epilogue sdd_layer (all)\n"
               "  dtypes: bf16 fp32 fp64 (all); dirs: fwd bwd fwd_bwd (all)\n");
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

template <class E, class All>
std::vector<E> parse_list(const std::string& arg, const All& all, const char* (*name)(E),
                          const char* what) {
  std::vector<E> out;
  for (const std::string& p : split(arg)) {
    if (p == "all") return {std::begin(all), std::end(all)};
    bool found = false;
    for (E e : all)
      if (p == name(e)) {
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
        found = true;
      }
    if (!found) scaleref::fail("cuda_bench: unknown ", what, " '", p, "'");
  }
  if (out.empty()) scaleref::fail("cuda_bench: expected at least one ", what, ", got '", arg, "'");
  return out;
}

const char* dtype_label(DType t) { return dtype_name(t); }
constexpr DType kAllDTypes[] = {DType::bf16, DType::f32, DType::f64};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) scaleref::fail("cuda_bench: ", a, " expects a value");
      return argv[++i];
    };
    const auto count = [&](int lo) {
      const std::string v = next();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < lo || n > 100000)
        scaleref::fail("cuda_bench: ", a, " expects an integer >= ", lo, ", got '", v, "'");
      return static_cast<int>(n);
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--smoke") {
      o.smoke = true;
    } else if (a == "--no-sweep") {
      o.sweep = false;
    } else if (a == "--op") {
      o.ops = parse_list(next(), kAllOps, op_name, "op");
    } else if (a == "--dir") {
      o.dirs = parse_list(next(), kAllDirs, dir_name, "direction");
    } else if (a == "--dtype") {
      o.dtypes = parse_list(next(), kAllDTypes, dtype_label, "dtype");
      o.dtypes_given = true;
    } else if (a == "--shape") {
      const std::string v = next();
      long long r = 0, d = 0;
      char tail = 0;
      if (std::sscanf(v.c_str(), "%lldx%lld%c", &r, &d, &tail) != 2 || r < 1 || d < 16 ||
          d % 16 != 0)
        scaleref::fail("cuda_bench: --shape expects RxD with D a multiple of 16, got '", v, "'");
      if (!o.shape_given) o.shapes.clear();  // the first --shape replaces the default
      o.shapes.push_back({r, d, 1});
      o.shape_given = true;
    } else if (a == "--reps") {
      o.reps = count(1);
      o.reps_given = true;
    } else if (a == "--warmup") {
      o.warmup = count(0);
      o.warmup_given = true;
    } else if (a == "--json") {
      o.json = next();
    } else if (a == "--commit") {
      o.commit = next();
    } else if (a == "--date") {
      o.date = next();
    } else {
      scaleref::fail("cuda_bench: unknown argument '", a, "'");
    }
  }
  if (o.smoke) {
    if (!o.shape_given) o.shapes = {{256, 1024, 1}};
    if (!o.reps_given) o.reps = 3;
    if (!o.warmup_given) o.warmup = 1;
  } else if (o.quick) {
    if (!o.reps_given) o.reps = 20;
    if (!o.warmup_given) o.warmup = 3;
  }
  return o;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The hidden sizes of the sweep, at the default shape's element count.
std::vector<i64> sweep_cols(const Options& o) {
  if (o.smoke) return {256, 4096};
  if (o.quick) return {1024, 8192, 65536, 262144};
  return {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
}

struct Case {
  Op op;
  Dir dir;
  Shape shape;
  bool sweep;
};

// Every shape (the default, or each --shape in order) for every op and
// direction; then, for the sweep dtypes (bf16 unless --dtype names others),
// fwd and bwd at every N of the sweep, at the first shape's element count.
std::vector<Case> cases_for(const Options& o, DType t) {
  std::vector<Case> out;
  for (const Shape& s : o.shapes)
    for (Op op : o.ops)
      for (Dir d : o.dirs) out.push_back({op, d, {s.rows, s.cols, op_heads(op)}, false});
  const bool sweep_dtype = o.dtypes_given || t == DType::bf16;
  if (!o.sweep || !sweep_dtype) return out;
  const Shape& first = o.shapes.front();
  const i64 total = first.rows * first.cols;
  for (Op op : o.ops) {
    if (!op_in_sweep(op)) continue;
    for (Dir d : o.dirs) {
      if (d == Dir::fwd_bwd) continue;
      for (i64 n : sweep_cols(o)) {
        if (n == first.cols || total % n != 0) continue;
        out.push_back({op, d, {total / n, n, op_heads(op)}, true});
      }
    }
  }
  return out;
}

int storage_bytes(DType t) { return t == DType::f64 ? 8 : t == DType::f32 ? 4 : 2; }
int acc_bytes(DType t) { return t == DType::f64 ? 8 : 4; }

std::string case_label(Op op, Dir d, DType t, const Shape& s) {
  return std::string(op_name(op)) + " " + dir_name(d) + " " + dtype_name(t) + " " +
         std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

// Times every case of one dtype; appends to results. A case that throws (a
// CUDA error, a shape a kernel rejects) is reported and recorded in errors,
// and the run goes on, so one failure does not lose the other numbers.
void run_dtype(const Options& o, DType t, Timer& timer, std::map<std::size_t, Stats>& copies,
               std::vector<CaseResult>& results, std::vector<CaseError>& errors) {
  const std::vector<Case> cases = cases_for(o, t);
  i64 entries = 0, max_rows = 0, max_cols = 0;
  for (const Case& c : cases) {
    entries = std::max(entries, c.shape.rows * c.shape.cols);
    max_rows = std::max(max_rows, c.shape.rows);
    max_cols = std::max(max_cols, c.shape.cols);
  }
  std::unique_ptr<Runner> runner;
  try {
    runner = make_runner(t, entries, max_rows, max_cols, timer.stream());
  } catch (const std::exception& e) {
    errors.push_back({std::string("all ") + dtype_name(t) + " cases", e.what()});
    std::printf("%s: FAILED: %s\n", errors.back().label.c_str(), e.what());
    return;
  }
  for (const Case& c : cases) {
    CaseResult r;
    r.op = c.op;
    r.dir = c.dir;
    r.dtype = t;
    r.shape = c.shape;
    r.sweep = c.sweep;
    r.bytes = bytes_moved(c.op, c.dir, c.shape, storage_bytes(t), acc_bytes(t));
    r.flops = gemm_flops(c.op, c.dir, c.shape);
    r.tolerance = agreement_tolerance(t);
    try {
      Prepared p = runner->prepare(c.op, c.dir, c.shape);
      r.differences = p.differences;
      r.unfused_launches = p.unfused_launches;
      r.workspace_bytes = p.workspace_bytes;
      r.fused = timer.time(p.fused);
      r.unfused = timer.time(p.unfused);
      // A copy of bytes / 2 moves `bytes` (read + written); rounded to 16 bytes.
      const std::size_t half = (static_cast<std::size_t>(r.bytes / 2) + 15) / 16 * 16;
      auto it = copies.find(half);
      if (it == copies.end()) it = copies.emplace(half, timer.time_copy(half)).first;
      r.copy = it->second;
      r.copy_bytes = static_cast<double>(half);
    } catch (const std::exception& e) {
      errors.push_back({case_label(c.op, c.dir, t, c.shape), e.what()});
      std::printf("%s: FAILED: %s\n", errors.back().label.c_str(), e.what());
      std::fflush(stdout);
      continue;
    }
    print_line(stdout, r);
    std::fflush(stdout);
    results.push_back(std::move(r));
  }
}

int run(const Options& o) {
  const DeviceInfo dev = query_device();
  if (!dev.available) {
    std::printf("cuda_bench: %s\n", dev.reason.c_str());
    if (o.smoke) {
      std::printf("cuda_bench: --smoke: nothing to run without a CUDA device; skipped\n");
      return 0;
    }
    return 1;
  }
  RunInfo info;
  info.device_name = dev.name;
  info.device_line = dev.str();
  info.sm_major = dev.compute_major;
  info.sm_minor = dev.compute_minor;
  info.multiprocessors = dev.multiprocessors;
  info.memory_gib = dev.memory_gib;
  info.peak_bandwidth_gbs = dev.peak_bandwidth_gbs();
  info.date = o.date.empty() ? utc_now() : o.date;
  info.commit = o.commit;
  info.warmup = o.warmup;
  info.reps = o.reps;
  info.quick = o.quick;
  info.smoke = o.smoke;

  Timer timer(o.warmup, o.reps, !o.smoke);
  info.l2_bytes = timer.l2_bytes();
  info.flush_bytes = timer.flush_bytes();
  std::printf("cuda_bench on %s\n", info.device_line.c_str());
  std::printf(
      "date %s, commit %s; %d warm-up + %d timed calls per measurement, L2 (%.0f MB) "
      "flushed by reading %.0f MB before each\n",
      info.date.c_str(), info.commit.c_str(), o.warmup, o.reps, info.l2_bytes / 1e6,
      info.flush_bytes / 1e6);

  // The copy's ceiling: 1 GiB each way, or what a quarter of free memory allows.
  info.copy_peak_bytes = static_cast<double>(
      std::min<std::size_t>(std::size_t(1) << 30, free_device_bytes() / 4 / 16 * 16));
  if (o.smoke) info.copy_peak_bytes = 64 << 20;
  info.copy_peak = timer.time_copy(static_cast<std::size_t>(info.copy_peak_bytes));
  std::printf("device-to-device copy of %.0f MB: %.4f ms median, %.1f GB/s (read + written)\n\n",
              info.copy_peak_bytes / 1e6, info.copy_peak.median_ms,
              2 * info.copy_peak_bytes / (info.copy_peak.median_ms * 1e-3) / 1e9);
  print_legend(stdout, o.ops, o.dirs);
  std::printf("\n");
  print_header(stdout);

  std::vector<CaseResult> results;
  std::map<std::size_t, Stats> copies;  // copy timings by size, shared by cases of equal bytes
  std::vector<CaseError> errors;
  for (DType t : o.dtypes) run_dtype(o, t, timer, copies, results, errors);

  int mismatches = 0;
  for (const CaseResult& r : results) mismatches += r.agrees() ? 0 : 1;
  if (mismatches)
    std::printf(
        "\ncuda_bench: %d case(s) where fused and unfused outputs differ beyond the "
        "tolerance (MISMATCH above)\n",
        mismatches);
  if (!o.json.empty()) {
    scaleref::io::write_file_atomically(o.json, to_json(info, results, errors));
    std::printf("cuda_bench: wrote %s\n", o.json.c_str());
  }
  if (!errors.empty())
    std::printf("\ncuda_bench: %zu case(s) failed (FAILED above; 'errors' in the JSON)\n",
                errors.size());
  return !errors.empty() || (o.smoke && mismatches) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    usage(stderr);
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "cuda_bench: error: %s\n", e.what());
    return 1;
  }
}
