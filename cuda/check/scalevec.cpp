// cuda_check's scale-vector cases: every placement (none, standard, AP, DP,
// DNP, MD) and HG, forward and backward, against reference scalevec/linear.hpp
// in double on the same T-rounded inputs; scale vectors drawn away from their
// initial values (1), since ones hide a wrong use of g or a in dx. Each case
// also runs backward a second time and wants the same bits.
//
// Tolerance (compare.hpp): each output's terms and storage roundings are the
// oracle's rule (scaleref/oracle/rules.hpp, scalevec_rule, which Python's
// assert_close reads too). A scalar output (MD's
// dr) is compared with atol relative to the size of its terms (sum_k
// |dg_k u_hat_k|), not to its own value, which a cancelling sum can make
// arbitrarily small.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <scaleref/cuda/scalevec.hpp>
#include <scaleref/oracle/rules.hpp>
#include <scaleref/scalevec/linear.hpp>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

namespace ref = ::scaleref::scalevec;
using scalevec::Strategy;

using scalevec::kStrategies;

// x [n, d_in] -> y [n, d_out]; DNP's n_h has `heads` blocks; every matrix
// (x, y, dy, dx, W, dW) carries `pad` entries of padding after each row.
struct SvShape {
  i64 n, d_in, d_out, heads, pad;
  double eps;
  std::string str() const {
    std::string s = std::to_string(n) + "x" + std::to_string(d_in) + "->" + std::to_string(d_out);
    if (pad) s += "/p" + std::to_string(pad);
    char e[32];
    std::snprintf(e, sizeof e, " eps=%g", eps);
    return s + e;
  }
};

// d_in 7 (odd), 100 (not a multiple of bf16's 8-wide access) and 1000;
// padded rows, aligned (4, 8) and not (1); more rows than the backward's 1024
// partial rows x 8 rows cover in one step (9000); eps large enough to matter
// (0.25, 0.5) and the usual 1e-6. DNP's heads: w = d_out / heads of 3 to 64.
std::vector<SvShape> shapes(bool quick) {
  std::vector<SvShape> s{
      {5, 7, 6, 2, 0, 0.25}, {33, 100, 96, 4, 4, 1e-6}, {64, 256, 512, 8, 0, 0.5}};
  if (!quick) {
    s.push_back({17, 64, 48, 3, 1, 1e-6});
    s.push_back({9000, 16, 24, 3, 0, 0.25});
    s.push_back({128, 1000, 768, 12, 8, 1e-6});
  }
  return s;
}

MatD inf(i64 rows, i64 cols) {
  return MatD::Constant(rows, cols, std::numeric_limits<double>::infinity());
}

template <class T>
bool same_bits(const DeviceMatrix<T>& a, const DeviceMatrix<T>& b) {
  const std::vector<T> ha = a.buffer.download(), hb = b.buffer.download();
  return ha.size() == hb.size() && std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(T)) == 0;
}

// One draw of everything a case reads, rounded to T.
struct Inputs {
  MatD x, W, g, a, r, u, dy;
};

template <class T>
Inputs draw_inputs(const SvShape& s) {
  Inputs in;
  in.x = draw<T>(70, s.n, s.d_in, -2, 2);
  in.W = draw<T>(71, s.d_out, s.d_in, -0.5, 0.5);
  in.g = draw<T>(72, 1, s.d_in, 0.25, 2);
  in.a = draw<T>(73, 1, s.d_out, 0.25, 2);
  in.r = draw<T>(74, 1, 1, 0.5, 2);
  in.u = draw<T>(75, 1, s.d_in, -2, 2);
  in.dy = draw<T>(76, s.n, s.d_out, -1, 1);
  return in;
}

// The gradients one backward writes, pre-filled with infinity so an entry
// never written fails its comparison.
template <class T>
struct Outs {
  DeviceMatrix<T> dx, dW, dg, da, dr, du;
};

template <class T>
Outs<T> make_outs(const SvShape& s) {
  return {DeviceMatrix<T>(inf(s.n, s.d_in), s.d_in + s.pad),
          DeviceMatrix<T>(inf(s.d_out, s.d_in), s.d_in + s.pad),
          DeviceMatrix<T>(inf(1, s.d_in)),
          DeviceMatrix<T>(inf(1, s.d_out)),
          DeviceMatrix<T>(inf(1, 1)),
          DeviceMatrix<T>(inf(1, s.d_in))};
}

template <class T>
scalevec::Grads<T> grads_of(Outs<T>& o, Strategy st) {
  scalevec::Grads<T> g;
  g.dW = o.dW.view();
  if (scalevec::uses_g(st)) g.dg = o.dg.data();
  if (scalevec::uses_a(st)) g.da = o.da.data();
  if (st == Strategy::md) {
    g.dr = o.dr.data();
    g.du = o.du.data();
  }
  return g;
}

// MD's dg(r, u) = sum_rows (dy W) (.) n(x), and the size of dr's terms.
double dr_scale(const Inputs& in, const ref::Cache<double>& k) {
  const MatD ds = in.dy * in.W;
  const MatD dgv = ds.cwiseProduct(k.x_hat).colwise().sum();
  return dgv.cwiseProduct(k.u_hat).cwiseAbs().sum();
}

template <class T>
void strategy_case(Report& r, Blas& blas, const SvShape& s, Strategy st) {
  const Inputs in = draw_inputs<T>(s);
  const bool md = st == Strategy::md;
  const i64 heads = st == Strategy::dnp ? s.heads : 1;

  ref::Params<double> ph;
  ph.W = in.W;
  if (scalevec::uses_g(st)) ph.g = in.g;
  if (scalevec::uses_a(st)) ph.a = in.a;
  if (md) {
    ph.r = in.r;
    ph.u = in.u;
  }
  const ref::Config rc{st, s.eps, heads};
  ref::Cache<double> k;
  const MatD y = ref::forward(ph, rc, in.x, &k);
  const ref::Grads<double> want = ref::backward(ph, rc, k, in.dy);

  const i64 sx = s.d_in + s.pad, sy = s.d_out + s.pad;
  DeviceMatrix<T> X(in.x, sx), W(in.W, sx), G(in.g), A(in.a), R(in.r), U(in.u), DY(in.dy, sy),
      Y(inf(s.n, s.d_out), sy);
  scalevec::Params<T> p;
  p.W = W.cview();
  p.g = G.data();
  p.a = A.data();
  p.r = R.data();
  p.u = U.data();
  const scalevec::Config c{st, s.eps, static_cast<int>(heads)};
  scalevec::Cache<T> cache;
  Workspace ws;
  Outs<T> o = make_outs<T>(s), again = make_outs<T>(s);
  scalevec::forward<T>(blas, p, c, X.cview(), Y.view(), &cache);
  scalevec::backward<T>(blas, p, c, cache, X.cview(), DY.cview(), o.dx.view(), grads_of(o, st), ws);
  scalevec::backward<T>(blas, p, c, cache, X.cview(), DY.cview(), again.dx.view(),
                        grads_of(again, st), ws);
  synchronize();

  const std::string at = std::string("scalevec/") + scalevec::strategy_name(st) + " " +
                         dtype_name(dtype_of<T>()) + " " + s.str() + " ";
  const auto out = [&](const char* name, const MatD& got, const MatD& ref) {
    const oracle::Rule u = oracle::scalevec_rule(st, name, s.n, s.d_in, s.d_out, heads);
    add<T>(r, at + name, got, ref, u.kind, u.terms, u.roundings);
  };
  out("y", Y.values(), y);
  out("dx", o.dx.values(), want.dx);
  out("dW", o.dW.values(), want.dW);
  if (scalevec::uses_g(st)) out("dg", o.dg.values(), want.dg);
  if (scalevec::uses_a(st)) out("da", o.da.values(), want.da);
  if (md) {
    const oracle::Rule u = oracle::scalevec_rule(st, "dr", s.n, s.d_in, s.d_out, heads);
    r.add(at + "dr", o.dr.values(), want.dr,
          tolerance(dtype_of<T>(), u.kind, u.terms, dr_scale(in, k), u.roundings));
    out("du", o.du.values(), want.du);
  }
  expect_padding(r, at + "y padding", Y);
  expect_padding(r, at + "dx padding", o.dx);
  expect_padding(r, at + "dW padding", o.dW);
  const bool same = same_bits(o.dx, again.dx) && same_bits(o.dW, again.dW) &&
                    same_bits(o.dg, again.dg) && same_bits(o.da, again.da) &&
                    same_bits(o.dr, again.dr) && same_bits(o.du, again.du);
  r.expect(same, at + "replay", same ? "backward gives the same bits twice" : "two runs differ");
}

// HG: three branches (attention's q, k, v) of widths d_out, d_out / 2 + 1 and
// d_in sharing one n(x). dx sums the branches' shares: one more rounding.
template <class T>
void hg_case(Report& r, Blas& blas, const SvShape& s) {
  const std::vector<i64> widths{s.d_out, s.d_out / 2 + 1, s.d_in};
  const std::size_t count = widths.size();
  const MatD x = draw<T>(80, s.n, s.d_in, -2, 2);
  std::vector<ref::Branch<double>> bh;
  std::vector<MatD> dy;
  for (std::size_t b = 0; b < count; ++b) {
    const auto id = static_cast<std::uint32_t>(81 + 3 * b);
    bh.push_back({draw<T>(id, widths[b], s.d_in, -0.5, 0.5), draw<T>(id + 1, 1, s.d_in, 0.25, 2)});
    dy.push_back(draw<T>(id + 2, s.n, widths[b], -1, 1));
  }
  ref::HGCache<double> k;
  const std::vector<MatD> y = ref::forward_hg(bh, s.eps, x, &k);
  const ref::HGGrads<double> want = ref::backward_hg(bh, k, dy);

  const i64 sx = s.d_in + s.pad;
  DeviceMatrix<T> X(x, sx), DX(inf(s.n, s.d_in), sx);
  std::vector<DeviceMatrix<T>> W, G, DY, Y, DW, DG;
  std::vector<scalevec::Branch<T>> branches;
  std::vector<Rows<T>> y_views;
  std::vector<Rows<const T>> dy_views;
  std::vector<scalevec::BranchGrads<T>> grads;
  for (std::size_t b = 0; b < count; ++b) {
    const i64 sy = widths[b] + s.pad;
    W.emplace_back(bh[b].W, sx);
    G.emplace_back(bh[b].g);
    DY.emplace_back(dy[b], sy);
    Y.emplace_back(inf(s.n, widths[b]), sy);
    DW.emplace_back(inf(widths[b], s.d_in), sx);
    DG.emplace_back(inf(1, s.d_in));
  }
  for (std::size_t b = 0; b < count; ++b) {  // views after the vectors stopped growing
    branches.push_back({W[b].cview(), G[b].data()});
    y_views.push_back(Y[b].view());
    dy_views.push_back(DY[b].cview());
    grads.push_back({DW[b].view(), DG[b].data()});
  }
  scalevec::HGCache<T> cache;
  Workspace ws;
  scalevec::forward_hg<T>(blas, branches, s.eps, X.cview(), y_views, &cache);
  scalevec::backward_hg<T>(blas, branches, cache, X.cview(), dy_views, DX.view(), grads, ws);
  synchronize();

  const std::string at = std::string("scalevec/HG ") + dtype_name(dtype_of<T>()) + " " + s.str();
  for (std::size_t b = 0; b < count; ++b) {
    const std::string br = at + " branch " + std::to_string(b) + " ";
    // y_b: RMS(x) and the GEMM over d_in; s_b, y_b stored. dW_b: n rows of dy_b s_b.
    // dg_b: n rows of ds_b n(x), ds_b over d_out_b; ds_b, dg_b stored.
    add<T>(r, br + "y", Y[b].values(), y[b], Kind::reduced, 2 * s.d_in, 2);
    add<T>(r, br + "dW", DW[b].values(), want.dW[b], Kind::reduced, s.n + s.d_in, 2);
    add<T>(r, br + "dg", DG[b].values(), want.dg[b], Kind::reduced, s.n + widths[b] + s.d_in, 2);
    expect_padding(r, br + "y padding", Y[b]);
    expect_padding(r, br + "dW padding", DW[b]);
  }
  // dx: ds_b over d_out_b, n(x)'s backward over d_in, the branches' sum; ds_b,
  // each branch's share and dx stored.
  const i64 widest = *std::max_element(widths.begin(), widths.end());
  add<T>(r, at + " dx", DX.values(), want.dx, Kind::reduced,
         widest + 2 * s.d_in + static_cast<i64>(count), 3);
  expect_padding(r, at + " dx padding", DX);
}

template <class T>
void run_dtype(Report& r, Blas& blas, bool quick) {
  for (const SvShape& s : shapes(quick)) {
    const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
    for (Strategy st : kStrategies)
      guarded(r, std::string("scalevec/") + scalevec::strategy_name(st) + " " + at,
              [&] { strategy_case<T>(r, blas, s, st); });
    guarded(r, "scalevec/HG " + at, [&] { hg_case<T>(r, blas, s); });
  }
}

}  // namespace

Family scalevec_family() {
  return {"scalevec", [](Report& r, bool quick) {
            Blas blas;
            run_dtype<double>(r, blas, quick);
            run_dtype<float>(r, blas, quick);
            run_dtype<bf16>(r, blas, quick);
          }};
}

}  // namespace scaleref::cuda::check
