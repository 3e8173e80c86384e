// The SwiGLU feed-forward block of the tiny LM (lm/config.hpp), inputs u_gate, u_up
// [N, d] (one shared matrix unless HG gives each map its own):
//
//   a = P_gate(u_gate),  b = P_up(u_up)                         [N, d_ff]
//   m = silu(a) (.) b,   silu(a) = a sigmoid(a)
//   out = P_down(m)                                             [N, d]
//
// Backward, with dm = dL/dm from P_down's backward and s = sigmoid(a):
//   da = dm (.) b (.) silu'(a),  silu'(a) = s (1 + a (1 - s))
//   db = dm (.) silu(a)
// then P_gate's and P_up's backward (lm/projection.hpp).
#pragma once

#include <scaleref/lm/projection.hpp>

namespace scaleref::lm {

template <class S>
struct FfnCache {
  ProjCache<S> pg, pu, pd;
  Mat<S> a, b;  // P_gate, P_up outputs
  Mat<S> s;     // sigmoid(a)
  Mat<S> m;     // silu(a) (.) b, P_down's input
};

// The input gradients, and the backward's temporaries (kept with them so that a
// repeated backward reuses their storage).
template <class S>
struct FfnGrads {
  Mat<S> du_gate, du_up;
  Mat<S> dz, da, db;  // P_down's output gradient (scratch), dL/da, dL/db
};

// out = FFN(u_gate, u_up), written into out.
template <class S>
void ffn_forward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                 const Mat<S>& u_gate, const Mat<S>& u_up, FfnCache<S>& k, Mat<S>& out) {
  const Name base = layer_prefix + "ffn.";
  proj_forward(c, p, Proj::gate, base + "gate.", u_gate, k.pg, k.a);
  proj_forward(c, p, Proj::up, base + "up.", u_up, k.pu, k.b);
  const Eigen::Index n = k.a.rows(), f = k.a.cols();
  k.s.resize(n, f);
  k.m.resize(n, f);
  for_each_row(n, f, [&](Eigen::Index i) {
    const auto a = k.a.row(i).array();
    k.s.row(i).array() = S(1) / (S(1) + (-a).exp());  // sigmoid
    k.m.row(i).array() = a * k.s.row(i).array() * k.b.row(i).array();
  });
  proj_forward(c, p, Proj::down, base + "down.", k.m, k.pd, out);
}

// The gradients of u_gate and u_up from dout, into d; writes the maps' parameter
// gradients into g.
template <class S>
void ffn_backward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                  const Mat<S>& u_gate, const Mat<S>& u_up, const FfnCache<S>& k,
                  const Mat<S>& dout, ParamStore<S>& g, FfnGrads<S>& d) {
  const Name base = layer_prefix + "ffn.";
  d.dz = dout;
  proj_backward(c, p, Proj::down, base + "down.", k.m, k.pd, d.dz, d.da, g);  // da <- dm
  const Eigen::Index n = d.da.rows(), f = d.da.cols();
  d.db.resize(n, f);
  for_each_row(n, f, [&](Eigen::Index i) {
    const auto s = k.s.row(i).array(), a = k.a.row(i).array();
    auto dm = d.da.row(i).array();
    d.db.row(i).array() = dm * a * s;                            // dm (.) silu(a)
    dm = dm * k.b.row(i).array() * s * (S(1) + a * (S(1) - s));  // dm (.) b (.) silu'(a)
  });
  proj_backward(c, p, Proj::gate, base + "gate.", u_gate, k.pg, d.da, d.du_gate, g);
  proj_backward(c, p, Proj::up, base + "up.", u_up, k.pu, d.db, d.du_up, g);
}

}  // namespace scaleref::lm
