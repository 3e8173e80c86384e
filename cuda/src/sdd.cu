// The SDD layer (scaleref/cuda/sdd.hpp): cuBLAS for the products, RMSNorm's
// kernels with gain alpha for the norm-and-scale epilogue and its backward.
#include <scaleref/cuda/sdd.hpp>

#include "detail/launch.hpp"

namespace scaleref::cuda::sdd {

namespace {

template <class T>
void check_params(const char* where, const Params<T>& p, Rows<const T> x) {
  detail::check_view(where, "V", p.V);
  require(p.V.cols == x.cols, where, "expected V [d_out x ", x.cols, "] for x [", x.rows, "x",
          x.cols, "], got V [", p.V.rows, "x", p.V.cols, "]");
  require(p.alpha != nullptr, where, "expected alpha [d_out], got nullptr");
}

template <class T>
Rows<T> dense_view(DeviceBuffer<T>& b, std::int64_t rows, std::int64_t cols) {
  const auto n = static_cast<std::size_t>(rows * cols);
  if (b.size() != n) b = DeviceBuffer<T>(n);
  return dense(b.data(), rows, cols);
}

}  // namespace

template <class T>
void forward(Blas& blas, const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y,
             Cache<T>* cache, Stream stream) {
  constexpr const char* where = "cuda::sdd::forward";
  detail::check_view(where, "x", x);
  detail::check_view(where, "y", y);
  check_params(where, p, x);
  require(y.rows == x.rows && y.cols == p.V.rows, where, "expected y [", x.rows, "x", p.V.rows,
          "], got [", y.rows, "x", y.cols, "]");
  detail::check_eps(where, c.eps);
  // Without a cache z lives in y and is normalized in place.
  const Rows<T> z = cache ? dense_view(cache->z, x.rows, p.V.rows) : y;
  gemm_nt<T>(blas, x, p.V, z, stream);
  rmsnorm::forward<T>({p.alpha}, {c.eps, 1}, as_const(z), y, cache ? &cache->norm : nullptr,
                      stream);
}

template <class T>
void backward(Blas& blas, const Params<T>& p, const Config& c, Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::sdd::backward";
  detail::check_view(where, "x", x);
  detail::check_view(where, "dy", dy);
  check_params(where, p, x);
  require(dy.rows == x.rows && dy.cols == p.V.rows, where, "expected dy [", x.rows, "x", p.V.rows,
          "], got [", dy.rows, "x", dy.cols, "]");
  require(cache.z.size() == static_cast<std::size_t>(x.rows * p.V.rows), where,
          "expected a cache from forward on x [", x.rows, "x", x.cols, "]");
  const Rows<const T> z = dense<const T>(cache.z.data(), x.rows, p.V.rows);
  const Rows<T> dz = dense_view(cache.dz, x.rows, p.V.rows);
  rmsnorm::backward<T>({p.alpha}, {c.eps, 1}, cache.norm, z, dy, dz, {g.dalpha}, ws, stream);
  if (g.dV.data) gemm_tn<T>(blas, as_const(dz), x, g.dV, stream);
  if (dx.data) gemm_nn<T>(blas, as_const(dz), p.V, dx, stream);
}

#define SCALEREF_INSTANTIATE(T)                                                               \
  template void forward<T>(Blas&, const Params<T>&, const Config&, Rows<const T>, Rows<T>,    \
                           Cache<T>*, Stream);                                                \
  template void backward<T>(Blas&, const Params<T>&, const Config&, Cache<T>&, Rows<const T>, \
                            Rows<const T>, Rows<T>, const Grads<T>&, Workspace&, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::sdd
