// The cases of cuda_bench: fused calls, unfused baselines and their
// comparison (interface: ops.hpp).
#include "ops.hpp"

#include <cmath>
#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/sdd.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/error.hpp>

#include "unfused.hpp"

namespace scaleref::cuda::bench {

namespace {

using i64 = std::int64_t;
using Pass = std::function<void(Stream)>;

// One output that both versions write: fused into `got`, unfused into `want`.
template <class T>
struct Output {
  const char* name;
  T* got;
  T* want;
  std::size_t n;
};

// Forward and backward of one op, fused and unfused, and what each writes.
template <class T>
struct Passes {
  Pass fwd, fwd_ref, bwd, bwd_ref;
  std::vector<Output<T>> fwd_out, bwd_out;
  int gemms_fwd = 0, gemms_bwd = 0;  // cuBLAS calls of the unfused version
};

template <class T>
class TypedRunner final : public Runner {
 public:
  TypedRunner(i64 entries, i64 max_rows, i64 max_cols, Stream stream)
      : stream_(stream),
        x_(entries),
        dy_(entries),
        y_(entries),
        dx_(entries),
        y_ref_(entries),
        dx_ref_(entries),
        gamma_(max_cols),
        bias_(max_cols),
        alpha_(max_cols),
        beta_(max_cols),
        dyt_alpha_(1),
        dgamma_(max_cols),
        dbeta_(max_cols),
        dalpha_(max_cols),
        dgamma_ref_(max_cols),
        dbeta_ref_(max_cols),
        dalpha_ref_(max_cols),
        stat0_(static_cast<std::size_t>(max_rows * 16)),
        stat1_(static_cast<std::size_t>(max_rows * 16)) {
    const auto n = static_cast<std::size_t>(entries), d = static_cast<std::size_t>(max_cols);
    fill_uniform(x_.data(), n, -2.0, 2.0, 1, stream_);
    fill_uniform(dy_.data(), n, -1.0, 1.0, 2, stream_);
    fill_uniform(gamma_.data(), d, 0.5, 1.5, 3, stream_);
    fill_uniform(bias_.data(), d, -0.5, 0.5, 4, stream_);
    fill_uniform(alpha_.data(), d, -0.5, 0.5, 5, stream_);
    fill_uniform(dyt_alpha_.data(), 1, 0.5, 0.5, 6, stream_);
    synchronize(stream_);
  }

  Prepared prepare(Op op, Dir dir, const Shape& shape) override {
    ws_ = Workspace();
    work_.reserve(shape.rows, shape.cols, shape.heads);
    Passes<T> p = passes(op, shape);
    Prepared r;
    std::vector<Output<T>> outputs;
    if (dir == Dir::fwd) {
      r.fused = p.fwd;
      r.unfused = p.fwd_ref;
      outputs = p.fwd_out;
    } else {
      if (dir == Dir::bwd) {
        p.fwd(stream_);  // the statistics each backward reads
        p.fwd_ref(stream_);
        r.fused = p.bwd;
        r.unfused = p.bwd_ref;
      } else {
        r.fused = [p](Stream s) {
          p.fwd(s);
          p.bwd(s);
        };
        r.unfused = [p](Stream s) {
          p.fwd_ref(s);
          p.bwd_ref(s);
        };
        outputs = p.fwd_out;
      }
      outputs.insert(outputs.end(), p.bwd_out.begin(), p.bwd_out.end());
    }
    for (const Output<T>& o : outputs) {  // so that an entry left unwritten reads as NaN
      poison(o.got, o.n * sizeof(T), stream_);
      poison(o.want, o.n * sizeof(T), stream_);
    }
    r.fused(stream_);
    const std::int64_t before = unfused::launches();
    r.unfused(stream_);
    r.unfused_launches = unfused::launches() - before +
                         (dir == Dir::fwd   ? p.gemms_fwd
                          : dir == Dir::bwd ? p.gemms_bwd
                                            : p.gemms_fwd + p.gemms_bwd);
    for (const Output<T>& o : outputs)
      r.differences.push_back({o.name, difference(o.got, o.want, o.n, stream_)});
    r.workspace_bytes = ws_.capacity();
    return r;
  }

 private:
  using A = Acc<T>;

  Rows<const T> in(const DeviceBuffer<T>& b, const Shape& s) const {
    return dense<const T>(b.data(), s.rows, s.cols);
  }
  Rows<T> out(DeviceBuffer<T>& b, const Shape& s) { return dense<T>(b.data(), s.rows, s.cols); }
  std::size_t rd(const Shape& s) const { return static_cast<std::size_t>(s.rows * s.cols); }
  std::size_t d(const Shape& s) const { return static_cast<std::size_t>(s.cols); }

  Passes<T> passes(Op op, const Shape& s) {
    switch (op) {
      case Op::rmsnorm:
        return rmsnorm_passes(s, rmsnorm::Config{}.eps);
      case Op::sdd_epilogue:
        return rmsnorm_passes(s, 0.0);  // gain alpha: the same buffer as gamma
      case Op::layernorm:
        return layernorm_passes(s);
      case Op::dyt:
        return dyt_passes(s);
      case Op::seednorm:
      case Op::seednorm_h16:
        return seednorm_passes(s);
      case Op::sdd_layer:
        return sdd_layer_passes(s);
    }
    fail("cuda_bench: unknown op");
  }

  Passes<T> rmsnorm_passes(const Shape& s, double eps) {
    Passes<T> p;
    const rmsnorm::Params<T> params{gamma_.data()};
    const rmsnorm::Config cfg{eps, 1};
    const rmsnorm::Grads<T> grads{dgamma_.data()};
    const auto x = in(x_, s), dy = in(dy_, s);
    const auto y = out(y_, s), dx = out(dx_, s);
    p.fwd = [=, this](Stream st) { rmsnorm::forward<T>(params, cfg, x, y, &rms_, st); };
    p.bwd = [=, this](Stream st) {
      rmsnorm::backward<T>(params, cfg, rms_, x, dy, dx, grads, ws_, st);
    };
    p.fwd_ref = [=, this](Stream st) {
      unfused::rmsnorm_forward<T>(work_, s.rows, s.cols, x_.data(), gamma_.data(), eps,
                                  y_ref_.data(), stat0_.data(), st);
    };
    p.bwd_ref = [=, this](Stream st) {
      unfused::rmsnorm_backward<T>(work_, s.rows, s.cols, x_.data(), dy_.data(), gamma_.data(),
                                   stat0_.data(), dx_ref_.data(), dgamma_ref_.data(), st);
    };
    p.fwd_out = {{"y", y_.data(), y_ref_.data(), rd(s)}};
    p.bwd_out = {{"dx", dx_.data(), dx_ref_.data(), rd(s)},
                 {"dgamma", dgamma_.data(), dgamma_ref_.data(), d(s)}};
    return p;
  }

  Passes<T> layernorm_passes(const Shape& s) {
    Passes<T> p;
    const layernorm::Params<T> params{gamma_.data(), bias_.data()};
    const layernorm::Config cfg;
    const layernorm::Grads<T> grads{dgamma_.data(), dbeta_.data()};
    const auto x = in(x_, s), dy = in(dy_, s);
    const auto y = out(y_, s), dx = out(dx_, s);
    p.fwd = [=, this](Stream st) { layernorm::forward<T>(params, cfg, x, y, &ln_, st); };
    p.bwd = [=, this](Stream st) {
      layernorm::backward<T>(params, cfg, ln_, x, dy, dx, grads, ws_, st);
    };
    p.fwd_ref = [=, this](Stream st) {
      unfused::layernorm_forward<T>(work_, s.rows, s.cols, x_.data(), gamma_.data(), bias_.data(),
                                    cfg.eps, y_ref_.data(), stat0_.data(), stat1_.data(), st);
    };
    p.bwd_ref = [=, this](Stream st) {
      unfused::layernorm_backward<T>(work_, s.rows, s.cols, x_.data(), dy_.data(), gamma_.data(),
                                     stat0_.data(), stat1_.data(), dx_ref_.data(),
                                     dgamma_ref_.data(), dbeta_ref_.data(), st);
    };
    p.fwd_out = {{"y", y_.data(), y_ref_.data(), rd(s)}};
    p.bwd_out = {{"dx", dx_.data(), dx_ref_.data(), rd(s)},
                 {"dgamma", dgamma_.data(), dgamma_ref_.data(), d(s)},
                 {"dbeta", dbeta_.data(), dbeta_ref_.data(), d(s)}};
    return p;
  }

  Passes<T> dyt_passes(const Shape& s) {
    Passes<T> p;
    const dyt::Params<T> params{dyt_alpha_.data(), gamma_.data(), bias_.data()};
    const dyt::Grads<T> grads{dalpha_.data(), dgamma_.data(), dbeta_.data()};
    const auto x = in(x_, s), dy = in(dy_, s);
    const auto y = out(y_, s), dx = out(dx_, s);
    p.fwd = [=](Stream st) { dyt::forward<T>(params, x, y, st); };
    p.bwd = [=, this](Stream st) { dyt::backward<T>(params, x, dy, dx, grads, ws_, st); };
    p.fwd_ref = [=, this](Stream st) {
      unfused::dyt_forward<T>(work_, s.rows, s.cols, x_.data(), dyt_alpha_.data(), gamma_.data(),
                              bias_.data(), y_ref_.data(), st);
    };
    p.bwd_ref = [=, this](Stream st) {
      unfused::dyt_backward<T>(work_, s.rows, s.cols, x_.data(), dy_.data(), dyt_alpha_.data(),
                               gamma_.data(), dx_ref_.data(), dalpha_ref_.data(),
                               dgamma_ref_.data(), dbeta_ref_.data(), st);
    };
    p.fwd_out = {{"y", y_.data(), y_ref_.data(), rd(s)}};
    p.bwd_out = {{"dx", dx_.data(), dx_ref_.data(), rd(s)},
                 {"dalpha", dalpha_.data(), dalpha_ref_.data(), 1},
                 {"dgamma", dgamma_.data(), dgamma_ref_.data(), d(s)},
                 {"dbeta", dbeta_.data(), dbeta_ref_.data(), d(s)}};
    return p;
  }

  Passes<T> seednorm_passes(const Shape& s) {
    // beta scaled to the head width, so that z = x_h . beta_h stays in tanh's curved range
    const double b = 1.5 / std::sqrt(static_cast<double>(s.cols / s.heads));
    fill_uniform(beta_.data(), d(s), -b, b, 7, stream_);
    Passes<T> p;
    const seednorm::Params<T> params{alpha_.data(), beta_.data(), gamma_.data()};
    seednorm::Config cfg;  // the spec's defaults (eps, tanh, vector alpha)
    cfg.heads = s.heads;
    const seednorm::Grads<T> grads{dalpha_.data(), dbeta_.data(), dgamma_.data()};
    const auto x = in(x_, s), dy = in(dy_, s);
    const auto y = out(y_, s), dx = out(dx_, s);
    p.fwd = [=, this](Stream st) { seednorm::forward<T>(params, cfg, x, y, &seed_, st); };
    p.bwd = [=, this](Stream st) {
      seednorm::backward<T>(params, cfg, seed_, x, dy, dx, grads, ws_, st);
    };
    p.fwd_ref = [=, this](Stream st) {
      unfused::seednorm_forward<T>(work_, s.rows, s.cols, s.heads, x_.data(), alpha_.data(),
                                   beta_.data(), gamma_.data(), cfg.eps, y_ref_.data(),
                                   stat0_.data(), stat1_.data(), st);
    };
    p.bwd_ref = [=, this](Stream st) {
      unfused::seednorm_backward<T>(work_, s.rows, s.cols, s.heads, x_.data(), dy_.data(),
                                    alpha_.data(), beta_.data(), gamma_.data(), stat0_.data(),
                                    stat1_.data(), dx_ref_.data(), dalpha_ref_.data(),
                                    dbeta_ref_.data(), dgamma_ref_.data(), st);
    };
    p.fwd_out = {{"y", y_.data(), y_ref_.data(), rd(s)}};
    p.bwd_out = {{"dx", dx_.data(), dx_ref_.data(), rd(s)},
                 {"dalpha", dalpha_.data(), dalpha_ref_.data(), d(s)},
                 {"dbeta", dbeta_.data(), dbeta_ref_.data(), d(s)},
                 {"dgamma", dgamma_.data(), dgamma_ref_.data(), d(s)}};
    return p;
  }

  // The SDD layer, d_in = d_out = D: fused = sdd::forward / backward (cuBLAS +
  // the fused epilogue); unfused = the same cuBLAS calls + the unfused RMSNorm.
  Passes<T> sdd_layer_passes(const Shape& s) {
    if (!blas_) blas_ = std::make_unique<Blas>();
    const auto dd = static_cast<std::size_t>(s.cols * s.cols);
    if (V_.size() != dd) {
      V_ = DeviceBuffer<T>(dd);
      dV_ = DeviceBuffer<T>(dd);
      dV_ref_ = DeviceBuffer<T>(dd);
      const double b = std::sqrt(3.0 / static_cast<double>(s.cols));
      fill_uniform(V_.data(), dd, -b, b, 8, stream_);
    }
    z_ref_.reserve(rd(s));
    dz_ref_.reserve(rd(s));
    Passes<T> p;
    const Rows<const T> V = dense<const T>(V_.data(), s.cols, s.cols);
    const sdd::Params<T> params{V, gamma_.data()};
    const sdd::Config cfg{0.0};
    const sdd::Grads<T> grads{dense<T>(dV_.data(), s.cols, s.cols), dalpha_.data()};
    const auto x = in(x_, s), dy = in(dy_, s);
    const auto y = out(y_, s), dx = out(dx_, s);
    const auto z_ref = dense<T>(z_ref_.data(), s.rows, s.cols);
    const auto dz_ref = dense<T>(dz_ref_.data(), s.rows, s.cols);
    const auto dx_ref = out(dx_ref_, s);
    const auto dV_ref = dense<T>(dV_ref_.data(), s.cols, s.cols);
    p.fwd = [=, this](Stream st) { sdd::forward<T>(*blas_, params, cfg, x, y, &sdd_, st); };
    p.bwd = [=, this](Stream st) {
      sdd::backward<T>(*blas_, params, cfg, sdd_, x, dy, dx, grads, ws_, st);
    };
    p.fwd_ref = [=, this](Stream st) {
      gemm_nt<T>(*blas_, x, V, z_ref, st);
      unfused::rmsnorm_forward<T>(work_, s.rows, s.cols, z_ref.data, gamma_.data(), 0.0,
                                  y_ref_.data(), stat0_.data(), st);
    };
    p.bwd_ref = [=, this](Stream st) {
      unfused::rmsnorm_backward<T>(work_, s.rows, s.cols, z_ref.data, dy_.data(), gamma_.data(),
                                   stat0_.data(), dz_ref.data, dalpha_ref_.data(), st);
      gemm_tn<T>(*blas_, as_const(dz_ref), x, dV_ref, st);
      gemm_nn<T>(*blas_, as_const(dz_ref), V, dx_ref, st);
    };
    p.gemms_fwd = 1;
    p.gemms_bwd = 2;
    p.fwd_out = {{"y", y_.data(), y_ref_.data(), rd(s)}};
    p.bwd_out = {{"dx", dx_.data(), dx_ref_.data(), rd(s)},
                 {"dV", dV_.data(), dV_ref_.data(), dd},
                 {"dalpha", dalpha_.data(), dalpha_ref_.data(), d(s)}};
    return p;
  }

  Stream stream_;
  DeviceBuffer<T> x_, dy_, y_, dx_, y_ref_, dx_ref_;
  DeviceBuffer<T> gamma_, bias_, alpha_, beta_, dyt_alpha_;
  DeviceBuffer<T> dgamma_, dbeta_, dalpha_, dgamma_ref_, dbeta_ref_, dalpha_ref_;
  DeviceBuffer<A> stat0_, stat1_;  // the unfused forwards' statistics
  rmsnorm::Cache<T> rms_;
  layernorm::Cache<T> ln_;
  seednorm::Cache<T> seed_;
  sdd::Cache<T> sdd_;
  Workspace ws_;
  unfused::Work<T> work_;
  std::unique_ptr<Blas> blas_;
  DeviceBuffer<T> V_, dV_, dV_ref_, z_ref_, dz_ref_;
};

}  // namespace

std::unique_ptr<Runner> make_runner(DType dtype, std::int64_t entries, std::int64_t max_rows,
                                    std::int64_t max_cols, Stream stream) {
  switch (dtype) {
    case DType::f64:
      return std::make_unique<TypedRunner<double>>(entries, max_rows, max_cols, stream);
    case DType::f32:
      return std::make_unique<TypedRunner<float>>(entries, max_rows, max_cols, stream);
    case DType::bf16:
      return std::make_unique<TypedRunner<bf16>>(entries, max_rows, max_cols, stream);
  }
  fail("cuda_bench: unknown dtype");
}

}  // namespace scaleref::cuda::bench
