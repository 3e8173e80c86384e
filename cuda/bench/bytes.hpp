// The operations cuda_bench times and the bytes each one moves, written once
// (host code, no CUDA). bench_torch.py mirrors BYTES_TERMS term for term, and
// merge_results.py checks that both programs got the same byte count for
// every case they share.
//
// The byte model counts what a pass must read or write at least, each once:
//
//   [R, D] tensors   x and y (forward); x, dy and dx (backward)
//   [D] vectors      the parameters the pass reads, the gradients it writes
//   [1] scalars      DyT's alpha and its gradient
//   [R] statistics   what forward keeps for backward, in the accumulator type
//                    (1 / RMS, LayerNorm's mean, SeeDNorm's per-head x_h . beta_h):
//                    written by forward, read by backward
//
// with s = sizeof(storage type), a = sizeof(accumulator) (4 for bf16 and fp32,
// 8 for fp64), R rows, D columns (the hidden size) and H heads. Not counted:
// the backward's per-block partial sums of the parameter gradients (scratch
// written once and read once; cuda_bench reports their size as
// workspace_bytes), re-reads of a row from L1/L2, and for the SDD layer the
// [R, D] dz scratch between the epilogue and the two GEMMs. fwd_bwd is the
// sum of the two.
//
// Relative to the copy: a device-to-device cudaMemcpyAsync of bytes / 2 moves
// the same number of bytes (each read once and written once), so the
// fraction of copy bandwidth is t_copy / t_op.
#pragma once

#include <array>
#include <cstdint>
#include <scaleref/spec/common.hpp>
#include <string>
#include <vector>

namespace scaleref::cuda::bench {

enum class Op { rmsnorm, layernorm, dyt, seednorm, seednorm_h16, sdd_epilogue, sdd_layer };
enum class Dir { fwd, bwd, fwd_bwd };

inline constexpr spec::NameTable<Op, 7> kOpNames{{{Op::rmsnorm, "rmsnorm"},
                                                  {Op::layernorm, "layernorm"},
                                                  {Op::dyt, "dyt"},
                                                  {Op::seednorm, "seednorm"},
                                                  {Op::seednorm_h16, "seednorm_h16"},
                                                  {Op::sdd_epilogue, "sdd_epilogue"},
                                                  {Op::sdd_layer, "sdd_layer"}}};
inline constexpr const char* op_name(Op op) { return spec::name_of(kOpNames, op); }

inline constexpr spec::NameTable<Dir, 3> kDirNames{
    {{Dir::fwd, "fwd"}, {Dir::bwd, "bwd"}, {Dir::fwd_bwd, "fwd_bwd"}}};
inline constexpr const char* dir_name(Dir d) { return spec::name_of(kDirNames, d); }
inline constexpr std::array<Op, 7> kAllOps = spec::values_of(kOpNames);
inline constexpr std::array<Dir, 3> kAllDirs = spec::values_of(kDirNames);

// One line on what each op is, for the report's legend.
inline const char* op_what(Op op) {
  switch (op) {
    case Op::rmsnorm:
      return "RMSNorm with gain gamma, eps 1e-6";
    case Op::layernorm:
      return "LayerNorm with gamma and bias beta, eps 1e-5";
    case Op::dyt:
      return "DyT: gamma tanh(alpha x) + beta, scalar alpha";
    case Op::seednorm:
      return "SeeDNorm, 1 head: (tanh(x . beta) alpha + gamma) x / RMS(x), eps 1e-6";
    case Op::seednorm_h16:
      return "SeeDNorm, 16 heads (eq. 7), vector alpha, tanh, eps 1e-6";
    case Op::sdd_epilogue:
      return "SDD's norm-and-scale epilogue: alpha z / RMS(z), eps 0 (RMSNorm with gain alpha)";
    case Op::sdd_layer:
      return "the whole SDD layer: z = x V^T (cuBLAS, D x D), then the epilogue";
  }
  return "?";
}

inline int op_heads(Op op) { return op == Op::seednorm_h16 ? 16 : 1; }

// The SDD layer's GEMMs make it compute-bound; it runs at the default shape only.
inline bool op_in_sweep(Op op) { return op != Op::sdd_layer; }

// One term of a byte count: `count` tensors of `size` entries, each entry of
// the storage type (s) or the accumulator (a).
enum class Size { RD, D, R, RH, one, DD };
struct Term {
  Size size;
  int count;
  bool accumulator;  // a bytes per entry instead of s
  const char* what;
};

inline std::vector<Term> forward_terms(Op op) {
  switch (op) {
    case Op::rmsnorm:
    case Op::sdd_epilogue:
      return {{Size::RD, 2, false, "x read, y written"},
              {Size::D, 1, false, op == Op::rmsnorm ? "gamma" : "alpha"},
              {Size::R, 1, true, "1/RMS written"}};
    case Op::layernorm:
      return {{Size::RD, 2, false, "x read, y written"},
              {Size::D, 2, false, "gamma, beta"},
              {Size::R, 2, true, "mean, 1/std written"}};
    case Op::dyt:
      return {{Size::RD, 2, false, "x read, y written"},
              {Size::D, 2, false, "gamma, beta"},
              {Size::one, 1, false, "alpha"}};
    case Op::seednorm:
    case Op::seednorm_h16:
      return {{Size::RD, 2, false, "x read, y written"},
              {Size::D, 3, false, "alpha, beta, gamma"},
              {Size::R, 1, true, "1/RMS written"},
              {Size::RH, 1, true, "z = x_h . beta_h written"}};
    case Op::sdd_layer:
      return {{Size::RD, 3, false, "x read, z (kept for backward) and y written"},
              {Size::DD, 1, false, "V read"},
              {Size::D, 1, false, "alpha"},
              {Size::R, 1, true, "1/RMS(z) written"}};
  }
  return {};
}

inline std::vector<Term> backward_terms(Op op) {
  switch (op) {
    case Op::rmsnorm:
    case Op::sdd_epilogue:
      return {{Size::RD, 3, false, "x, dy read, dx written"},
              {Size::D, 2, false,
               op == Op::rmsnorm ? "gamma read, dgamma written" : "alpha read, dalpha written"},
              {Size::R, 1, true, "1/RMS read"}};
    case Op::layernorm:
      return {{Size::RD, 3, false, "x, dy read, dx written"},
              {Size::D, 3, false, "gamma read, dgamma, dbeta written"},
              {Size::R, 2, true, "mean, 1/std read"}};
    case Op::dyt:
      return {{Size::RD, 3, false, "x, dy read, dx written"},
              {Size::D, 3, false, "gamma read, dgamma, dbeta written"},
              {Size::one, 2, false, "alpha read, dalpha written"}};
    case Op::seednorm:
    case Op::seednorm_h16:
      return {{Size::RD, 3, false, "x, dy read, dx written"},
              {Size::D, 6, false, "alpha, beta, gamma read, their gradients written"},
              {Size::R, 1, true, "1/RMS read"},
              {Size::RH, 1, true, "z read"}};
    case Op::sdd_layer:
      return {{Size::RD, 4, false, "x, z, dy read, dx written"},
              {Size::DD, 2, false, "V read, dV written"},
              {Size::D, 2, false, "alpha read, dalpha written"},
              {Size::R, 1, true, "1/RMS(z) read"}};
  }
  return {};
}

inline std::vector<Term> terms(Op op, Dir dir) {
  if (dir == Dir::fwd) return forward_terms(op);
  if (dir == Dir::bwd) return backward_terms(op);
  std::vector<Term> t = forward_terms(op);  // fwd_bwd: the two added, like sizes merged
  for (const Term& b : backward_terms(op)) {
    bool merged = false;
    for (Term& a : t)
      if (a.size == b.size && a.accumulator == b.accumulator) {
        a.count += b.count;
        a.what = "forward + backward";
        merged = true;
      }
    if (!merged) t.push_back(b);
  }
  return t;
}

struct Shape {
  std::int64_t rows, cols;
  int heads;
};

inline double entries(Size size, const Shape& s) {
  const double r = static_cast<double>(s.rows), d = static_cast<double>(s.cols);
  switch (size) {
    case Size::RD:
      return r * d;
    case Size::D:
      return d;
    case Size::R:
      return r;
    case Size::RH:
      return r * s.heads;
    case Size::one:
      return 1;
    case Size::DD:
      return d * d;
  }
  return 0;
}

// The bytes a case moves: sum of count x entries x (s or a).
inline double bytes_moved(Op op, Dir dir, const Shape& shape, int storage_bytes, int acc_bytes) {
  double total = 0;
  for (const Term& t : terms(op, dir))
    total += t.count * entries(t.size, shape) * (t.accumulator ? acc_bytes : storage_bytes);
  return total;
}

// The same sum in symbols, "2*R*D*s + 1*D*s + 1*R*a", for the report.
inline std::string bytes_formula(Op op, Dir dir) {
  std::string f;
  for (const Term& t : terms(op, dir)) {
    static const char* const names[] = {"R*D", "D", "R", "R*H", "1", "D*D"};
    if (!f.empty()) f += " + ";
    f += std::to_string(t.count) + "*" + names[static_cast<int>(t.size)] +
         (t.accumulator ? "*a" : "*s");
  }
  return f;
}

// Floating-point operations of the SDD layer's GEMMs (2 per multiply-add):
// forward x V^T; backward dz^T x and dz V. 0 for the other ops.
inline double gemm_flops(Op op, Dir dir, const Shape& s) {
  if (op != Op::sdd_layer) return 0;
  const double one =
      2.0 * static_cast<double>(s.rows) * static_cast<double>(s.cols) * static_cast<double>(s.cols);
  return dir == Dir::fwd ? one : dir == Dir::bwd ? 2 * one : 3 * one;
}

}  // namespace scaleref::cuda::bench
