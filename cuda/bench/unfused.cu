// The unfused baselines (rules: unfused.hpp). Three kinds of simple kernel:
//
//   map          one thread per entry of an [R, D] (or [1, n]) array, an
//                elementwise functor that may read row statistics (by row)
//                and parameter vectors (by column)
//   row_sum      one block per row or head segment: a strided sum, then a
//                shared-memory tree; times a scale (1 / width for a mean)
//   col_sum      per column: sums over chunks of 64 rows, then the chunks in
//                order (two launches)
//
// Each op's sequence is written out below, one line per launch; t0..t4 are
// [R, D] temporaries in T, row0..row3 [R * heads] statistics in Acc<T>.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "detail/device.cuh"
#include "unfused.hpp"

namespace scaleref::cuda::bench::unfused {

namespace {

using detail::AccT;
using detail::Dev;
using detail::narrow;
using detail::widen;

std::int64_t g_launches = 0;
constexpr i64 kChunkRows = 64;  // rows per partial sum of col_sum

cudaStream_t raw(Stream s) { return reinterpret_cast<cudaStream_t>(s); }

// T, in a parameter that takes no part in deducing a template's arguments.
template <class T>
struct NoDeduce {
  using type = T;
};

template <class Out, class A>
__device__ inline Out convert(A a) {
  if constexpr (std::is_same_v<Out, A>) {
    return a;
  } else {
    return narrow<Out>(a);
  }
}

// ---- map ---------------------------------------------------------------------

template <class F>
__global__ void map_kernel(i64 rows, i64 cols, F f) {
  for (i64 r = blockIdx.y; r < rows; r += gridDim.y)
    for (i64 c = i64(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
         c += i64(gridDim.x) * blockDim.x)
      f(r, c, r * cols + c);
}

template <class F>
void map(i64 rows, i64 cols, F f, Stream s) {
  const i64 gx = (cols + 255) / 256;
  const i64 gy = std::min<i64>(rows, 65535);
  launch<map_kernel<F>>(dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), 256, 0, raw(s),
                        rows, cols, f);
  ++g_launches;
  check_launch("bench::unfused::map");
}

// The elementwise functors: f(row, col, index). D is the device storage type.
template <class D>
struct Square {              // out = x^2
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> x;
  DevPtr<D> out;
  __device__ void operator()(i64, i64, i64 i) const {
    const AccT<D> v = widen(ld(x + i));
    st(out + i, narrow<D>(v * v));
  }
};

template <class D>
struct Mul {                 // out = a b
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const D> b;
  DevPtr<D> out;
  __device__ void operator()(i64, i64, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) * widen(ld(b + i))));
  }
};

template <class D>
struct MulCol {              // out = a v[col]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const D> v;
  DevPtr<D> out;
  __device__ void operator()(i64, i64 c, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) * widen(ld(v + c))));
  }
};

template <class D>
struct MulRow {              // out = a s[row]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const AccT<D>> s;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) * ld(s + r)));
  }
};

template <class D>
struct MulSegment {          // out = a s[row, head of col]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const AccT<D>> s;
  i64 width;
  int heads;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64 c, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) * ld(s + (r * heads + c / width))));
  }
};

template <class D>
struct SubRow {              // out = a - m[row]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const AccT<D>> m;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) - ld(m + r)));
  }
};

template <class D>
struct ScaleRowCol {         // out = x s[row] g[col]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> x;
  DevPtr<const AccT<D>> s;
  DevPtr<const D> g;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64 c, i64 i) const {
    st(out + i, narrow<D>((widen(ld(x + i)) * ld(s + r)) * widen(ld(g + c))));
  }
};

template <class D>
struct AffineCol {           // out = a g[col] + b[col]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const D> g;
  DevPtr<const D> b;
  DevPtr<D> out;
  __device__ void operator()(i64, i64 c, i64 i) const {
    st(out + i, narrow<D>(widen(ld(a + i)) * widen(ld(g + c)) + widen(ld(b + c))));
  }
};

template <class D>
struct Normalize {           // out = (x - mean[row]) rstd[row]
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> x;
  DevPtr<const AccT<D>> mean;
  DevPtr<const AccT<D>> rstd;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64, i64 i) const {
    st(out + i, narrow<D>((widen(ld(x + i)) - ld(mean + r)) * ld(rstd + r)));
  }
};

template <class D>
struct RmsDx {               // out = rstd[row] (g - xhat m[row])
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> g;
  DevPtr<const D> xhat;
  DevPtr<const AccT<D>> rstd;
  DevPtr<const AccT<D>> m;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64, i64 i) const {
    st(out + i, narrow<D>(ld(rstd + r) * (widen(ld(g + i)) - widen(ld(xhat + i)) * ld(m + r))));
  }
};

template <class D>
struct LayerNormDx {         // out = rstd[row] (g - mg[row] - xhat mgx[row])
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> g;
  DevPtr<const D> xhat;
  DevPtr<const AccT<D>> rstd;
  DevPtr<const AccT<D>> mg;
  DevPtr<const AccT<D>> mgx;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64, i64 i) const {
    st(out + i, narrow<D>(ld(rstd + r) *
                          (widen(ld(g + i)) - ld(mg + r) - widen(ld(xhat + i)) * ld(mgx + r))));
  }
};

template <class D>
struct TanhScale {           // out = tanh(alpha x)
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> x;
  DevPtr<const D> alpha;
  DevPtr<D> out;
  __device__ void operator()(i64, i64, i64 i) const {
    st(out + i, narrow<D>(tanh(widen(ld(alpha)) * widen(ld(x + i)))));
  }
};

template <class D>
struct TanhGrad {            // out = dy gamma[col] (1 - t^2)
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> dy;
  DevPtr<const D> gamma;
  DevPtr<const D> t;
  DevPtr<D> out;
  __device__ void operator()(i64, i64 c, i64 i) const {
    const AccT<D> tv = widen(ld(t + i));
    st(out + i, narrow<D>(widen(ld(dy + i)) * widen(ld(gamma + c)) * (AccT<D>(1) - tv * tv)));
  }
};

template <class D>
struct ScaleScalar {         // out = alpha a
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> a;
  DevPtr<const D> alpha;
  DevPtr<D> out;
  __device__ void operator()(i64, i64, i64 i) const {
    st(out + i, narrow<D>(widen(ld(alpha)) * widen(ld(a + i))));
  }
};

template <class D>
struct Gate {                // out = s[row, head] alpha[col] + gamma[col]  (SeeDNorm's bracket)
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const AccT<D>> s;
  DevPtr<const D> alpha;
  DevPtr<const D> gamma;
  i64 width;
  int heads;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64 c, i64 i) const {
    st(out + i,
       narrow<D>(ld(s + (r * heads + c / width)) * widen(ld(alpha + c)) + widen(ld(gamma + c))));
  }
};

template <class D>
struct SeedDx {              // out = dz[row, head] beta[col] + rstd[row] (g - xhat m[row])
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const AccT<D>> dz;
  DevPtr<const D> beta;
  DevPtr<const AccT<D>> rstd;
  DevPtr<const D> g;
  DevPtr<const D> xhat;
  DevPtr<const AccT<D>> m;
  i64 width;
  int heads;
  DevPtr<D> out;
  __device__ void operator()(i64 r, i64 c, i64 i) const {
    st(out + i, narrow<D>(ld(dz + (r * heads + c / width)) * widen(ld(beta + c)) +
                          ld(rstd + r) * (widen(ld(g + i)) - widen(ld(xhat + i)) * ld(m + r))));
  }
};

// Functors over [1, n] statistics arrays (Acc only).
template <class A>
struct RsqrtEps {            // s = 1 / sqrt(s + eps), in place
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<A> s;
  A eps;
  __device__ void operator()(i64, i64, i64 i) const { st(s + i, A(1) / sqrt(ld(s + i) + eps)); }
};

template <class A>
struct Tanh {                // out = tanh(z)
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const A> z;
  DevPtr<A> out;
  __device__ void operator()(i64, i64, i64 i) const { st(out + i, tanh(ld(z + i))); }
};

template <class A>
struct TanhBack {            // out = (1 - s^2) ds (out may be ds)
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const A> s;
  DevPtr<const A> ds;
  DevPtr<A> out;
  __device__ void operator()(i64, i64, i64 i) const {
    st(out + i, (A(1) - ld(s + i) * ld(s + i)) * ld(ds + i));
  }
};

// ---- row_sum -------------------------------------------------------------------

template <class In, class Out>
__global__ void row_sum_kernel(DevPtr<const In> in, i64 segments, i64 width, AccT<In> scale,
                               DevPtr<Out> out) {
  using A = AccT<In>;
  SCALEREF_SHARED(A, part, 256);
  for (i64 seg = blockIdx.x; seg < segments; seg += gridDim.x) {
    DevPtr<const In> p = in + seg * width;
    A s = 0;
    for (i64 j = threadIdx.x; j < width; j += blockDim.x) s += widen(ld(p + j));
    st(part + threadIdx.x, s);
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
      if (threadIdx.x < half)
        st(part + threadIdx.x, ld(part + threadIdx.x) + ld(part + (threadIdx.x + half)));
      __syncthreads();
    }
    if (threadIdx.x == 0) st(out + seg, convert<Out>(ld(part) * scale));
    __syncthreads();
  }
}

// out[k] = scale sum_j in[k width + j] for k < segments.
template <class In, class Out>
void row_sum(DevPtr<In> in, i64 segments, i64 width, AccT<std::remove_const_t<In>> scale,
             DevPtr<Out> out, Stream s) {
  using I = std::remove_const_t<In>;
  int threads = 32;
  while (threads < 256 && threads < width) threads *= 2;
  const i64 blocks = std::min<i64>(segments, 1 << 20);
  launch<row_sum_kernel<I, Out>>(static_cast<unsigned>(blocks), threads, 0, raw(s), in, segments,
                                 width, scale, out);
  ++g_launches;
  check_launch("bench::unfused::row_sum");
}

// ---- col_sum -------------------------------------------------------------------

template <class D>
__global__ void col_partial_kernel(DevPtr<const D> in, i64 rows, i64 cols,
                                   DevPtr<AccT<D>> partials) {
  const i64 c = i64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const i64 r0 = i64(blockIdx.y) * kChunkRows;
  const i64 r1 = r0 + kChunkRows < rows ? r0 + kChunkRows : rows;
  AccT<D> s = 0;
  for (i64 r = r0; r < r1; ++r) s += widen(ld(in + (r * cols + c)));
  st(partials + (i64(blockIdx.y) * cols + c), s);
}

template <class D>
__global__ void col_final_kernel(DevPtr<const AccT<D>> partials, i64 chunks, i64 cols,
                                 DevPtr<D> out) {
  const i64 c = i64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  AccT<D> s = 0;
  for (i64 k = 0; k < chunks; ++k) s += ld(partials + (k * cols + c));
  st(out + c, narrow<D>(s));
}

// out[c] = sum_r in[r, c], through `partials` ([ceil(rows / 64), cols]).
template <class D>
void col_sum(typename NoDeduce<DevPtr<const D>>::type in, i64 rows, i64 cols,
             DevPtr<AccT<D>> partials, DevPtr<D> out, Stream s) {
  const i64 chunks = (rows + kChunkRows - 1) / kChunkRows;
  const auto gx = static_cast<unsigned>((cols + 255) / 256);
  launch<col_partial_kernel<D>>(dim3(gx, static_cast<unsigned>(chunks)), 256, 0, raw(s), in, rows,
                                cols, partials);
  launch<col_final_kernel<D>>(gx, 256, 0, raw(s), partials, chunks, cols, out);
  g_launches += 2;
  check_launch("bench::unfused::col_sum");
}

// A host pointer to device memory as the kernels take it (bf16 as __nv_bfloat16).
template <class T>
DevPtr<const Dev<T>> d(const T* p) {
  return DevPtr<const Dev<T>>(detail::dev(p));
}
template <class T>
DevPtr<Dev<T>> d(T* p) {
  return DevPtr<Dev<T>>(detail::dev(p));
}
// The same for a statistics array in Acc<T>.
template <class A>
DevPtr<A> a(A* p) {
  return DevPtr<A>(p);
}

}  // namespace

std::int64_t launches() { return g_launches; }

template <class T>
void Work<T>::reserve(i64 rows, i64 cols, int heads) {
  for (auto& t : tmp_) t.reserve(static_cast<std::size_t>(rows * cols));
  for (auto& r : row_) r.reserve(static_cast<std::size_t>(rows * heads));
  partials_.reserve(static_cast<std::size_t>((rows + kChunkRows - 1) / kChunkRows * cols));
}

// RMSNorm forward: Square x -> t0; row_sum t0 / D -> rstd; RsqrtEps rstd;
// ScaleRowCol x rstd gamma -> y. (4 launches)
template <class T>
void rmsnorm_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* gamma, double eps, T* y,
                     Acc<T>* rstd, Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  DevPtr<D> t0 = d(w.tmp(0));
  map(rows, cols, Square<D>{d(x), t0}, s);
  row_sum(t0, rows, cols, A(1) / A(cols), a(rstd), s);
  map(1, rows, RsqrtEps<A>{a(rstd), A(eps)}, s);
  map(rows, cols, ScaleRowCol<D>{d(x), a(rstd), d(gamma), d(y)}, s);
}

// RMSNorm backward: MulCol dy gamma -> t0 (g); MulRow x rstd -> t1 (x_hat);
// Mul t0 t1 -> t2; row_sum t2 / D -> row0 (m); RmsDx -> dx; Mul dy t1 -> t2;
// col_sum t2 -> dgamma. (8 launches)
template <class T>
void rmsnorm_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* gamma,
                      const Acc<T>* rstd, T* dx, T* dgamma, Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1)), t2 = d(w.tmp(2));
  DevPtr<A> m = a(w.row(0));
  map(rows, cols, MulCol<D>{d(dy), d(gamma), t0}, s);
  map(rows, cols, MulRow<D>{d(x), a(rstd), t1}, s);
  map(rows, cols, Mul<D>{t0, t1, t2}, s);
  row_sum(t2, rows, cols, A(1) / A(cols), m, s);
  map(rows, cols, RmsDx<D>{t0, t1, a(rstd), m, d(dx)}, s);
  map(rows, cols, Mul<D>{d(dy), t1, t2}, s);
  col_sum(t2, rows, cols, a(w.partials()), d(dgamma), s);
}

// LayerNorm forward: row_sum x / D -> mean; SubRow x mean -> t0; Square t0 ->
// t1; row_sum t1 / D -> rstd; RsqrtEps rstd; MulRow t0 rstd -> t1 (x_hat);
// AffineCol t1 gamma beta -> y. (7 launches)
template <class T>
void layernorm_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* gamma, const T* beta,
                       double eps, T* y, Acc<T>* mean, Acc<T>* rstd, Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1));
  row_sum(d(x), rows, cols, A(1) / A(cols), a(mean), s);
  map(rows, cols, SubRow<D>{d(x), a(mean), t0}, s);
  map(rows, cols, Square<D>{t0, t1}, s);
  row_sum(t1, rows, cols, A(1) / A(cols), a(rstd), s);
  map(1, rows, RsqrtEps<A>{a(rstd), A(eps)}, s);
  map(rows, cols, MulRow<D>{t0, a(rstd), t1}, s);
  map(rows, cols, AffineCol<D>{t1, d(gamma), d(beta), d(y)}, s);
}

// LayerNorm backward: Normalize x -> t0 (x_hat); MulCol dy gamma -> t1 (g);
// row_sum t1 / D -> row0 (mean g); Mul t1 t0 -> t2; row_sum t2 / D -> row1;
// LayerNormDx -> dx; Mul dy t0 -> t2; col_sum t2 -> dgamma; col_sum dy ->
// dbeta. (12 launches)
template <class T>
void layernorm_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* gamma,
                        const Acc<T>* mean, const Acc<T>* rstd, T* dx, T* dgamma, T* dbeta,
                        Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1)), t2 = d(w.tmp(2));
  DevPtr<A> mg = a(w.row(0)), mgx = a(w.row(1));
  map(rows, cols, Normalize<D>{d(x), a(mean), a(rstd), t0}, s);
  map(rows, cols, MulCol<D>{d(dy), d(gamma), t1}, s);
  row_sum(t1, rows, cols, A(1) / A(cols), mg, s);
  map(rows, cols, Mul<D>{t1, t0, t2}, s);
  row_sum(t2, rows, cols, A(1) / A(cols), mgx, s);
  map(rows, cols, LayerNormDx<D>{t1, t0, a(rstd), mg, mgx, d(dx)}, s);
  map(rows, cols, Mul<D>{d(dy), t0, t2}, s);
  col_sum(t2, rows, cols, a(w.partials()), d(dgamma), s);
  col_sum(d(dy), rows, cols, a(w.partials()), d(dbeta), s);
}

// DyT forward: TanhScale x alpha -> t0; AffineCol t0 gamma beta -> y. (2 launches)
template <class T>
void dyt_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* alpha, const T* gamma,
                 const T* beta, T* y, Stream s) {
  using D = Dev<T>;
  DevPtr<D> t0 = d(w.tmp(0));
  map(rows, cols, TanhScale<D>{d(x), d(alpha), t0}, s);
  map(rows, cols, AffineCol<D>{t0, d(gamma), d(beta), d(y)}, s);
}

// DyT backward: TanhScale x alpha -> t0 (t); Mul dy t0 -> t1; col_sum t1 ->
// dgamma; col_sum dy -> dbeta; TanhGrad dy gamma t0 -> t2 (u); ScaleScalar
// t2 alpha -> dx; Mul t2 x -> t1; row_sum t1 -> row0; row_sum row0 -> dalpha.
// (11 launches)
template <class T>
void dyt_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* alpha,
                  const T* gamma, T* dx, T* dalpha, T* dgamma, T* dbeta, Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1)), t2 = d(w.tmp(2));
  DevPtr<A> per_row = a(w.row(0));
  map(rows, cols, TanhScale<D>{d(x), d(alpha), t0}, s);
  map(rows, cols, Mul<D>{d(dy), t0, t1}, s);
  col_sum(t1, rows, cols, a(w.partials()), d(dgamma), s);
  col_sum(d(dy), rows, cols, a(w.partials()), d(dbeta), s);
  map(rows, cols, TanhGrad<D>{d(dy), d(gamma), t0, t2}, s);
  map(rows, cols, ScaleScalar<D>{t2, d(alpha), d(dx)}, s);
  map(rows, cols, Mul<D>{t2, d(x), t1}, s);
  row_sum(t1, rows, cols, A(1), per_row, s);
  row_sum(per_row, 1, rows, A(1), d(dalpha), s);
}

// SeeDNorm forward (Algorithm 1 of the paper, one op at a time): MulCol x
// beta -> t0; row_sum t0 per head -> z; Tanh z -> row0 (s); Square x -> t1;
// row_sum t1 / D -> rstd; RsqrtEps rstd; Gate s alpha gamma -> t0; MulRow x
// rstd -> t1 (x_hat); Mul t0 t1 -> y. (9 launches)
template <class T>
void seednorm_forward(Work<T>& w, i64 rows, i64 cols, int heads, const T* x, const T* alpha,
                      const T* beta, const T* gamma, double eps, T* y, Acc<T>* rstd, Acc<T>* z,
                      Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  const i64 width = cols / heads;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1));
  DevPtr<A> act = a(w.row(0));
  map(rows, cols, MulCol<D>{d(x), d(beta), t0}, s);
  row_sum(t0, rows * heads, width, A(1), a(z), s);
  map(1, rows * heads, Tanh<A>{a(z), act}, s);
  map(rows, cols, Square<D>{d(x), t1}, s);
  row_sum(t1, rows, cols, A(1) / A(cols), a(rstd), s);
  map(1, rows, RsqrtEps<A>{a(rstd), A(eps)}, s);
  map(rows, cols, Gate<D>{act, d(alpha), d(gamma), width, heads, t0}, s);
  map(rows, cols, MulRow<D>{d(x), a(rstd), t1}, s);
  map(rows, cols, Mul<D>{t0, t1, d(y)}, s);
}

// SeeDNorm backward (seednorm eq. 16-26, one op at a time): Tanh z -> row0
// (s); MulRow x rstd -> t0 (x_hat); Gate -> t1 (u); Mul dy t0 -> t2 (q);
// MulCol t2 alpha -> t3; row_sum t3 per head -> row1 (ds); TanhBack -> row1
// (dz); Mul dy t1 -> t3 (g); Mul t3 t0 -> t4; row_sum t4 / D -> row2 (m);
// SeedDx -> dx; MulSegment t2 s -> t4; col_sum t4 -> dalpha; MulSegment x
// dz -> t4; col_sum t4 -> dbeta; col_sum t2 -> dgamma. (19 launches)
template <class T>
void seednorm_backward(Work<T>& w, i64 rows, i64 cols, int heads, const T* x, const T* dy,
                       const T* alpha, const T* beta, const T* gamma, const Acc<T>* rstd,
                       const Acc<T>* z, T* dx, T* dalpha, T* dbeta, T* dgamma, Stream s) {
  using D = Dev<T>;
  using A = Acc<T>;
  const i64 width = cols / heads;
  DevPtr<D> t0 = d(w.tmp(0)), t1 = d(w.tmp(1)), t2 = d(w.tmp(2)), t3 = d(w.tmp(3)),
            t4 = d(w.tmp(4));
  DevPtr<A> act = a(w.row(0)), dz = a(w.row(1)), m = a(w.row(2));
  map(1, rows * heads, Tanh<A>{a(z), act}, s);
  map(rows, cols, MulRow<D>{d(x), a(rstd), t0}, s);
  map(rows, cols, Gate<D>{act, d(alpha), d(gamma), width, heads, t1}, s);
  map(rows, cols, Mul<D>{d(dy), t0, t2}, s);
  map(rows, cols, MulCol<D>{t2, d(alpha), t3}, s);
  row_sum(t3, rows * heads, width, A(1), dz, s);
  map(1, rows * heads, TanhBack<A>{act, dz, dz}, s);
  map(rows, cols, Mul<D>{d(dy), t1, t3}, s);
  map(rows, cols, Mul<D>{t3, t0, t4}, s);
  row_sum(t4, rows, cols, A(1) / A(cols), m, s);
  map(rows, cols, SeedDx<D>{dz, d(beta), a(rstd), t3, t0, m, width, heads, d(dx)}, s);
  map(rows, cols, MulSegment<D>{t2, act, width, heads, t4}, s);
  col_sum(t4, rows, cols, a(w.partials()), d(dalpha), s);
  map(rows, cols, MulSegment<D>{d(x), dz, width, heads, t4}, s);
  col_sum(t4, rows, cols, a(w.partials()), d(dbeta), s);
  col_sum(t2, rows, cols, a(w.partials()), d(dgamma), s);
}

#define SCALEREF_INSTANTIATE(T)                                                                    \
  template class Work<T>;                                                                          \
  template void rmsnorm_forward<T>(Work<T>&, i64, i64, const T*, const T*, double, T*, Acc<T>*,    \
                                   Stream);                                                        \
  template void rmsnorm_backward<T>(Work<T>&, i64, i64, const T*, const T*, const T*,              \
                                    const Acc<T>*, T*, T*, Stream);                                \
  template void layernorm_forward<T>(Work<T>&, i64, i64, const T*, const T*, const T*, double, T*, \
                                     Acc<T>*, Acc<T>*, Stream);                                    \
  template void layernorm_backward<T>(Work<T>&, i64, i64, const T*, const T*, const T*,            \
                                      const Acc<T>*, const Acc<T>*, T*, T*, T*, Stream);           \
  template void dyt_forward<T>(Work<T>&, i64, i64, const T*, const T*, const T*, const T*, T*,     \
                               Stream);                                                            \
  template void dyt_backward<T>(Work<T>&, i64, i64, const T*, const T*, const T*, const T*, T*,    \
                                T*, T*, T*, Stream);                                               \
  template void seednorm_forward<T>(Work<T>&, i64, i64, int, const T*, const T*, const T*,         \
                                    const T*, double, T*, Acc<T>*, Acc<T>*, Stream);               \
  template void seednorm_backward<T>(Work<T>&, i64, i64, int, const T*, const T*, const T*,        \
                                     const T*, const T*, const Acc<T>*, const Acc<T>*, T*, T*, T*, \
                                     T*, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::bench::unfused
