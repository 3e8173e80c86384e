// The sdd paper's claims (see proofs_check/include/scaleref/audit/claim.hpp),
// split by the paper's sections: layer.cpp (Sec. 2.2, eq. 2-3), cost.cpp
// (Sec. 2.2, the FLOP and parameter overheads), expressiveness.cpp (Sec. 3.1,
// Appendix D), gradients.cpp (Sec. 3.2, Appendix E), setup.cpp (Sec. 4.1, the
// models of Table 3, Appendix F), tables.cpp (Sec. 4.2-4.4, Tables 1-2,
// Fig. 9), registered in that order by all.cpp.
//
// Paper: Scale-Distribution Decoupling (../shared/papers/sdd.txt). The layer is
// y = alpha (.) norm(V x), norm(z) = z / ||z||_RMS (eq. 2-3). Vectors are rows
// here (x [1, n], z = x V^T), so the paper's column formulas appear transposed.
//
// Tensor ids of the sdd claims: 0x5DD000 + k, one k per draw, never reused
// (across all the files of this directory). Every draw is on the run's seed
// (Context::seed).
//
// Not registered (cannot be recomputed here): everything measured on trained
// 1B / 7B / MoE models (loss curves, Fig. 7 gradient norms, Fig. 10 depth
// scaling, the 2.1x speed-up). Fig. 9's caption against Sec. 4.4's text is
// sdd.fig.9-similarity (the consistency of the two statements, not the
// figure's data).
#pragma once

#include <cmath>
#include <cstdint>
#include <scaleref/eigen_dense.hpp>
#include <scaleref/linalg.hpp>
#include <scaleref/sdd/layer.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "claims/support.hpp"

namespace scaleref::audit {

// The section adders, called in this order by add_sdd_claims (all.cpp).
void add_sdd_layer_claims(Registrar& r);
void add_sdd_cost_claims(Registrar& r);
void add_sdd_expressiveness_claims(Registrar& r);
void add_sdd_gradient_claims(Registrar& r);
void add_sdd_setup_claims(Registrar& r);
void add_sdd_table_claims(Registrar& r);

// Helpers shared by several sections. The namespace is not named sdd: inside
// scaleref::audit that name must keep meaning scaleref::sdd, the layer.
namespace sdd_paper {

inline constexpr std::uint32_t kT = 0x5DD000;  // the sdd claims' tensor ids: kT + k

using M = Mat<double>;
using M50 = Mat<Real50>;

template <class In>
using ScalarOf = typename std::decay_t<In>::value_type::Scalar;

template <class S>
S rms(const Mat<S>& z) {
  using std::sqrt;
  return S(sqrt(z.squaredNorm() / S(static_cast<long>(z.size()))));
}

// eq. 3 written out: norm(z) = z / ||z||_RMS (one row).
template <class S>
Mat<S> norm3(const Mat<S>& z) {
  return z / rms(z);
}

// ||a - b||_F / ||b||_F
template <class S>
double rel(const Mat<S>& a, const Mat<S>& b) {
  return to_double<S>((a - b).norm() / b.norm());
}

inline double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
inline double stddev(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// A Householder reflection I - 2 v v^T / (v^T v), exactly orthogonal at any precision.
template <class S>
Mat<S> householder(const Mat<S>& v) {
  const long n = v.cols();
  return Mat<S>::Identity(n, n) - S(2) * v.transpose() * v / v.squaredNorm();
}

// A random orthogonal matrix (Q of a Gaussian matrix's QR), in double.
inline M random_orthogonal(std::uint64_t seed, long n, std::uint32_t tensor) {
  const M g = gaussian(seed, n, n, 1.0, tensor);
  Eigen::HouseholderQR<M> qr(g);
  return M(qr.householderQ());
}

// V = P diag(gamma) Q^T with given singular values and random P, Q.
inline M with_spectrum(std::uint64_t seed, const std::vector<double>& gamma, std::uint32_t tensor) {
  const long n = static_cast<long>(gamma.size());
  const M P = random_orthogonal(seed, n, tensor), Q = random_orthogonal(seed, n, tensor + 1);
  M D = M::Zero(n, n);
  for (long i = 0; i < n; ++i) D(i, i) = gamma[static_cast<std::size_t>(i)];
  return P * D * Q.transpose();
}

// The exact layer in double (scaleref's reference, eps = 0 as in eq. 3).
struct Exact {
  M y, dx, dV, dalpha;
};
inline Exact exact_layer(const M& x, const M& V, const M& alpha, const M& dy) {
  sdd::Params<double> p{V, alpha};
  sdd::Cache<double> k;
  Exact e;
  e.y = sdd::forward<double>(p, sdd::Config::paper(), x, &k);
  const auto g = sdd::backward<double>(p, sdd::Config::paper(), k, dy);
  e.dx = g.dx;
  e.dV = g.dV;
  e.dalpha = g.dalpha;
  return e;
}

// (alpha (.) dy) (I - z z^T / (n ||z||_RMS^2)) as a row: the common factor of
// eq. 29, 31, 33 (row convention: the projector is symmetric).
inline M projected(const M& alpha, const M& dy, const M& z) {
  const double n = static_cast<double>(z.cols());
  const double r2 = z.squaredNorm() / n;
  const M g = alpha.cwiseProduct(dy);
  return g - (g.cwiseProduct(z).sum() / (n * r2)) * z;
}

inline std::string fmt_n(long n) { return std::to_string(n); }

// ---- Table 3 (Appendix F), read by sdd.reading.table3 ------------------------

// One column of Table 3 as printed. experts = 0 for a dense model.
struct Table3Column {
  const char* name;
  double active_printed, total_printed;  // "581M" = 581e6, "3.4B" = 3.4e9
  double active_step, total_step;        // the printed precision: 1e6 for "581M", 1e8 for "3.4B"
  long hidden, intermediate, gqa_groups, heads, layers, experts, top_k, vocab;
};
inline const std::vector<Table3Column>& table3() {
  static const std::vector<Table3Column> t{
      {"OLMo2-581M", 581e6, 581e6, 1e6, 1e6, 2048, 8192, 8, 32, 8, 0, 0, 100278},
      {"OLMo2-1B", 1e9, 1e9, 1e9, 1e9, 2048, 8192, 8, 32, 16, 0, 0, 100278},
      {"OLMo2-7B", 7e9, 7e9, 1e9, 1e9, 4096, 22016, 8, 32, 32, 0, 0, 100278},
      {"OLMoE-588M-3B", 588e6, 3.4e9, 1e6, 1e8, 1024, 512, 1, 16, 32, 64, 8, 50280}};
  return t;
}

// How sdd.reading.table3 reads "GQA Groups" and "Intermediate Size"; the
// alternatives are only reported.
enum class Gqa { kv_heads, group_size };  // G = key/value heads (the reading) | queries per head
enum class Ffn { per_matrix, fused };     // I = each gated matrix's width (the reading) | gate+up

// One linear layer of a block: its input and output widths and how many of
// it a token uses (MoE experts: top_k active, experts in all).
struct Linear {
  const char* what;
  double d_in, d_out, active, total;
};

// The linear layers of one block of a Table 3 column (q, k, v, o, the gated
// FFN's gate, up, down (per expert), the router), under a reading.
inline std::vector<Linear> block_linears(const Table3Column& c, Gqa g = Gqa::kv_heads,
                                         Ffn f = Ffn::per_matrix) {
  const double H = static_cast<double>(c.hidden), hd = H / static_cast<double>(c.heads);
  const double kv_heads = g == Gqa::kv_heads
                              ? static_cast<double>(c.gqa_groups)
                              : static_cast<double>(c.heads) / static_cast<double>(c.gqa_groups);
  const double kv = kv_heads * hd;
  const double I = f == Ffn::per_matrix ? static_cast<double>(c.intermediate)
                                        : static_cast<double>(c.intermediate) / 2;
  const double act = c.experts ? static_cast<double>(c.top_k) : 1.0;
  const double all = c.experts ? static_cast<double>(c.experts) : 1.0;
  std::vector<Linear> out{{"q", H, H, 1, 1},       {"k", H, kv, 1, 1},       {"v", H, kv, 1, 1},
                          {"o", H, H, 1, 1},       {"gate", H, I, act, all}, {"up", H, I, act, all},
                          {"down", I, H, act, all}};
  if (c.experts) out.push_back({"router", H, static_cast<double>(c.experts), 1, 1});
  return out;
}

// Parameters of a Table 3 column under a reading: the linear layers, two
// RMSNorm gains of H per block, a final norm H, the embedding (and a separate
// LM head unless tied). No biases.
struct ParamCount {
  double active, total;
};
inline ParamCount table3_params(const Table3Column& c, bool tied, Gqa g = Gqa::kv_heads,
                                Ffn f = Ffn::per_matrix) {
  const double H = static_cast<double>(c.hidden), L = static_cast<double>(c.layers);
  double act = 2 * H, all = 2 * H;
  for (const Linear& l : block_linears(c, g, f)) {
    act += l.active * l.d_in * l.d_out;
    all += l.total * l.d_in * l.d_out;
  }
  const double emb = static_cast<double>(c.vocab) * H * (tied ? 1 : 2);
  return {L * act + emb + H, L * all + emb + H};
}

}  // namespace sdd_paper
}  // namespace scaleref::audit
