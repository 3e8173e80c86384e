// cuda_check's replay cases: every backward run twice on the same inputs
// must give the same bits in dx and in every parameter gradient. The
// parameter gradients are sums over rows; they are reproducible because
// each block adds its rows into its own partial row and a second pass adds
// the partial rows in block order (no atomics, a launch shape fixed by the
// shape). Shapes with many rows per block, so the order is exercised.
#include <cstring>
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/sdd.hpp>
#include <scaleref/cuda/seednorm.hpp>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

template <class T>
bool same_bits(const DeviceMatrix<T>& a, const DeviceMatrix<T>& b) {
  const std::vector<T> ha = a.buffer.download(), hb = b.buffer.download();
  return ha.size() == hb.size() && std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(T)) == 0;
}

// Two runs of `backward(dx, grads...)` into fresh outputs; `outputs` makes one set.
template <class T, class Outputs, class Run>
void replay(Report& r, const std::string& name, Outputs make, Run backward) {
  auto first = make(), second = make();
  backward(first);
  backward(second);
  synchronize();
  bool same = true;
  for (std::size_t k = 0; k < first.size(); ++k) same = same && same_bits(first[k], second[k]);
  r.expect(same, name, same ? "backward gives the same bits twice" : "two runs differ");
}

template <class T>
void run_dtype(Report& r, const Shape& s) {
  const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
  const MatD x = draw<T>(30, s.rows, s.cols, -2, 2), dy = draw<T>(31, s.rows, s.cols, -1, 1);
  const MatD p1 = draw<T>(32, 1, s.cols, 0.5, 1.5), p2 = draw<T>(33, 1, s.cols, -0.5, 0.5),
             a = draw<T>(34, 1, 1, 0.3, 0.9);
  DeviceMatrix<T> X(x, s.stride), DY(dy, s.stride), P1(p1), P2(p2), A(a);
  const auto outputs = [&](int params) {
    return [&, params] {
      std::vector<DeviceMatrix<T>> o;
      o.emplace_back(MatD::Zero(s.rows, s.cols), s.stride);
      for (int k = 0; k < params; ++k) o.emplace_back(MatD::Zero(1, s.cols));
      o.emplace_back(MatD::Zero(1, 1));
      return o;
    };
  };
  DeviceMatrix<T> Y(x, s.stride);  // forward outputs, not compared
  Workspace ws;
  guarded(r, "replay rmsnorm " + at, [&] {
    rmsnorm::Cache<T> c;
    rmsnorm::forward<T>({P1.data()}, {}, X.cview(), Y.view(), &c);
    replay<T>(r, "replay rmsnorm " + at, outputs(1), [&](auto& o) {
      rmsnorm::backward<T>({P1.data()}, {}, c, X.cview(), DY.cview(), o[0].view(), {o[1].data()},
                           ws);
    });
  });
  guarded(r, "replay layernorm " + at, [&] {
    layernorm::Cache<T> c;
    layernorm::forward<T>({P1.data(), P2.data()}, {}, X.cview(), Y.view(), &c);
    replay<T>(r, "replay layernorm " + at, outputs(2), [&](auto& o) {
      layernorm::backward<T>({P1.data(), P2.data()}, {}, c, X.cview(), DY.cview(), o[0].view(),
                             {o[1].data(), o[2].data()}, ws);
    });
  });
  guarded(r, "replay dyt " + at, [&] {
    replay<T>(r, "replay dyt " + at, outputs(2), [&](auto& o) {
      dyt::backward<T>({A.data(), P1.data(), P2.data()}, X.cview(), DY.cview(), o[0].view(),
                       {o[3].data(), o[1].data(), o[2].data()}, ws);
    });
  });
  for (int heads : {1, 4}) {
    if (s.cols % heads) continue;
    seednorm::Config c;
    c.heads = heads;
    const std::string n = "replay seednorm/h" + std::to_string(heads) + " " + at;
    guarded(r, n, [&] {
      seednorm::Cache<T> k;
      seednorm::forward<T>({P1.data(), P2.data(), P1.data()}, c, X.cview(), Y.view(), &k);
      replay<T>(r, n, outputs(3), [&](auto& o) {
        seednorm::backward<T>({P1.data(), P2.data(), P1.data()}, c, k, X.cview(), DY.cview(),
                              o[0].view(), {o[1].data(), o[2].data(), o[3].data()}, ws);
      });
    });
  }
  guarded(r, "replay sdd " + at, [&] {
    Blas blas;
    const MatD V = draw<T>(35, s.cols, s.cols, -0.1, 0.1);
    DeviceMatrix<T> VV(V, s.cols);
    sdd::Cache<T> k;
    const sdd::Params<T> p{VV.cview(), P1.data()};
    sdd::forward<T>(blas, p, {}, X.cview(), Y.view(), &k);
    std::vector<DeviceMatrix<T>> dv;
    replay<T>(r, "replay sdd " + at, outputs(1), [&](auto& o) {
      dv.emplace_back(MatD::Zero(s.cols, s.cols), s.cols);
      sdd::backward<T>(blas, p, {}, k, X.cview(), DY.cview(), o[0].view(),
                       {dv.back().view(), o[1].data()}, ws);
    });
    r.expect(same_bits(dv[0], dv[1]), "replay sdd " + at + " dV",
             "the weight gradient from cuBLAS is the same bits twice");
  });
}

}  // namespace

Family replay_family() {
  return {"replay", [](Report& r, bool quick) {
            const Shape many_rows{quick ? 4000 : 20000, 96, 100};
            const Shape wide{quick ? 600 : 5000, 1000, 1000};
            for (const Shape& s : {many_rows, wide}) {
              run_dtype<float>(r, s);
              run_dtype<bf16>(r, s);
            }
          }};
}

}  // namespace scaleref::cuda::check
