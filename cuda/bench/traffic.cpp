// cuda_traffic: what each fused kernel of cuda_bench asks of the memory
// system, counted by the CPU emulator (scaleref/emu/traffic.hpp) at the speed
// model's shapes. scripts/cuda_model.py runs it, adds what ptxas says of
// each kernel (registers, spills, shared memory) and turns both into the
// model's table; this program only counts. Emulator build only.
//
//   cuda_traffic [--shape RxD]... [--dtype LIST] [--op LIST] [--dir LIST]
//                [--sample N] --json FILE
//
// Defaults: the shapes 4096x4096, 2048x16384, 1024x65536, 16x4096; every
// dtype; every op but sdd_layer (its time is cuBLAS's GEMM, not a memory
// pattern of ours); fwd and bwd; --sample 64 (at most 64 blocks of a launch
// run, evenly spaced, counts scaled: traffic.hpp). A case runs its fused call
// once after cuda_bench's own preparation (for bwd, the forward that leaves
// the statistics), all of it sampled: the values are not checked here
// (cuda_check and cuda_bench do that), only the accesses counted.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <scaleref/cuda/device.hpp>
#include <scaleref/emu/launch.hpp>
#include <scaleref/emu/traffic.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "ops.hpp"

namespace {

using namespace scaleref::cuda;
using namespace scaleref::cuda::bench;
using json = nlohmann::json;
using i64 = std::int64_t;

struct Options {
  std::vector<Shape> shapes;
  std::vector<DType> dtypes{DType::bf16, DType::f32, DType::f64};
  std::vector<Op> ops{Op::rmsnorm,  Op::layernorm,    Op::dyt,
                      Op::seednorm, Op::seednorm_h16, Op::sdd_epilogue};
  std::vector<Dir> dirs{Dir::fwd, Dir::bwd};
  unsigned sample = 64;
  std::string json_path;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = s.find(',', at);
    const std::string part =
        s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

template <class E, std::size_t N>
std::vector<E> parse_names(const std::string& arg, const scaleref::spec::NameTable<E, N>& table,
                           const char* what) {
  std::vector<E> out;
  for (const std::string& p : split(arg)) {
    bool found = false;
    for (const auto& entry : table)
      if (p == entry.name) {
        out.push_back(entry.value);
        found = true;
      }
    if (!found) scaleref::fail("cuda_traffic: unknown ", what, " '", p, "'");
  }
  if (out.empty()) scaleref::fail("cuda_traffic: expected at least one ", what);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) scaleref::fail("cuda_traffic: ", a, " expects a value");
      return argv[++i];
    };
    if (a == "--shape") {
      const std::string v = next();
      long long r = 0, d = 0;
      char tail = 0;
      if (std::sscanf(v.c_str(), "%lldx%lld%c", &r, &d, &tail) != 2 || r < 1 || d < 16 ||
          d % 16 != 0)
        scaleref::fail("cuda_traffic: --shape expects RxD with D a multiple of 16, got '", v, "'");
      o.shapes.push_back({r, d, 1});
    } else if (a == "--dtype") {
      o.dtypes = parse_names(next(), kDTypeNames, "dtype");
    } else if (a == "--op") {
      o.ops = parse_names(next(), kOpNames, "op");
    } else if (a == "--dir") {
      o.dirs = parse_names(next(), kDirNames, "direction");
    } else if (a == "--sample") {
      const std::string v = next();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 65535)
        scaleref::fail("cuda_traffic: --sample expects an integer in [1, 65535], got '", v, "'");
      o.sample = static_cast<unsigned>(n);
    } else if (a == "--json") {
      o.json_path = next();
    } else {
      scaleref::fail("cuda_traffic: unknown argument '", a, "'");
    }
  }
  if (o.shapes.empty())
    o.shapes = {{4096, 4096, 1}, {2048, 16384, 1}, {1024, 65536, 1}, {16, 4096, 1}};
  if (o.json_path.empty()) scaleref::fail("cuda_traffic: --json FILE is required");
  for (Op op : o.ops)
    if (op == Op::sdd_layer)
      scaleref::fail("cuda_traffic: sdd_layer is cuBLAS's GEMM; not modelled");
  return o;
}

json site_json(const scaleref::emu::SiteTraffic& s) {
  json j = {{"site", s.site},
            {"memory", s.shared ? "shared" : "global"},
            {"kind", s.store ? "store" : "load"},
            {"requests", s.requests},
            {"bytes", s.bytes}};
  if (s.shared) {
    j["wavefronts"] = s.wavefronts;
    j["min_wavefronts"] = s.min_wavefronts;
    j["worst_degree"] = s.worst_degree;
  } else {
    j["sectors"] = s.sectors;
    j["min_sectors"] = s.min_sectors;
  }
  return j;
}

json launch_json(const scaleref::emu::LaunchTraffic& t) {
  json sites = json::array();
  for (const auto& s : t.sites) sites.push_back(site_json(s));
  return {{"kernel", t.kernel},
          {"grid", {t.grid[0], t.grid[1], t.grid[2]}},
          {"block", {t.block[0], t.block[1], t.block[2]}},
          {"dynamic_shared_bytes", t.shared_bytes},
          {"cluster", t.cluster},
          {"blocks", t.blocks},
          {"blocks_run", t.blocks_run},
          {"scale", t.scale()},
          {"first_read_sectors", t.first_read_sectors},
          {"shared_first_read_sectors", t.shared_first_read_sectors},
          {"written_sectors", t.written_sectors},
          {"reread_by_log2_distance", t.reread},
          {"shared_reread_sectors", t.shared_rereads},
          {"dirty_reread_by_log2_distance", t.reread_dirty},
          {"sites", sites}};
}

int storage_bytes(DType t) { return t == DType::f64 ? 8 : t == DType::f32 ? 4 : 2; }
int acc_bytes(DType t) { return t == DType::f64 ? 8 : 4; }

int run(const Options& o) {
  scaleref::emu::Options& eo = scaleref::emu::options();
  eo.schedules = {scaleref::emu::Schedule{}};
  eo.sample_blocks = o.sample;
  eo.traffic = false;
  // a launch small enough to run whole reads what sampled launches left
  // unwritten: initcheck is off for the whole run, memcheck stays on
  eo.initcheck = false;
  json cases = json::array();
  for (DType t : o.dtypes)
    for (const Shape& base : o.shapes) {
      std::unique_ptr<Runner> runner =
          make_runner(t, base.rows * base.cols, base.rows, base.cols, nullptr);
      for (Op op : o.ops)
        for (Dir dir : o.dirs) {
          const Shape shape{base.rows, base.cols, op_heads(op)};
          Prepared p = runner->prepare(op, dir, shape);
          scaleref::emu::take_traffic();
          eo.traffic = true;
          p.fused(nullptr);
          synchronize();
          eo.traffic = false;
          json launches = json::array();
          for (const auto& l : scaleref::emu::take_traffic()) launches.push_back(launch_json(l));
          cases.push_back(
              {{"op", op_name(op)},
               {"dir", dir_name(dir)},
               {"dtype", dtype_name(t)},
               {"rows", shape.rows},
               {"cols", shape.cols},
               {"heads", shape.heads},
               {"min_bytes", bytes_moved(op, dir, shape, storage_bytes(t), acc_bytes(t))},
               {"workspace_bytes", p.workspace_bytes},
               {"launches", launches}});
          std::printf("%s %s %s %lldx%lld: %zu launches\n", op_name(op), dir_name(dir),
                      dtype_name(t), static_cast<long long>(shape.rows),
                      static_cast<long long>(shape.cols), launches.size());
          std::fflush(stdout);
        }
    }
  const json doc = {
      {"schema", "scaleref.cuda_traffic/1"}, {"sample_blocks", o.sample}, {"cases", cases}};
  scaleref::io::write_file_atomically(o.json_path, doc.dump(1) + "\n");
  std::printf("cuda_traffic: wrote %s (%zu cases)\n", o.json_path.c_str(), cases.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "cuda_traffic: error: %s\n", e.what());
    return 1;
  }
}
