// The scale-vector placements (scaleref/cuda/scalevec.hpp): RMSNorm's fused
// norm-and-scale kernels, cuBLAS, and the two small kernels of this file.
//
// Kernels here:
//   scale_columns_kernel           y = a (.) z, column j scaled by a_j
//                                  (AP's and DP's output; MD's r u_hat)
//   scale_columns_backward_kernel  dz = a (.) dy, and each block's partial row
//                                  of da = sum_rows dy (.) z; sum_partials adds
//                                  the partial rows in block order
//   sum_parts_kernel               HG's dx = sum_b dx_b, branches in order
// forward per strategy: [MD: u_hat = u / RMS(u), g = r u_hat] ->
//   s = g (.) n(x) -> z = s W^T -> [AP, DP: y = a (.) z | DNP: y = a (.) n_h(z)]
// backward runs the same steps in reverse; see backward() below.
#include <scaleref/cuda/scalevec.hpp>
#include <string>

#include "detail/device.cuh"
#include "detail/launch.hpp"
#include "detail/partials.cuh"

namespace scaleref::cuda::scalevec {

namespace {

using namespace detail;

// ---- kernels ----------------------------------------------------------------------------

// y(i, j) = a_j z(i, j). Elementwise: no block-wide sum, so a thread past the
// last row may skip its step. y may be z (each entry is read, then written,
// by the same thread).
template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads)
    scale_columns_kernel(DevRows<const D> z, DevRows<D> y, DevPtr<const D> a) {
  using A = AccT<D>;
  const i64 w = z.cols;
  for (RowLoop rows(z.rows); rows.more(); rows.next()) {
    if (!rows.active()) continue;
    const i64 i = rows.row();
    DevPtr<const D> zr = z.data + i * z.stride;
    DevPtr<D> yr = y.data + i * y.stride;
    for (i64 j = first_col<V>(); j < w; j += col_step<V>()) {
      A v[V], s[V], out[V];
      load<V>(zr, j, w, v);
      load<V>(a, j, w, s);
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = s[k] * v[k];
      store<V>(yr, j, w, out);
    }
  }
}

// dz(i, j) = a_j dy(i, j) (when dz.data != nullptr), and da_j's running sum
// of dy(i, j) z(i, j) over this block's rows (when partials != nullptr), in
// row order. Launched one row per block (backward_geometry): every step of
// the row loop is an existing row. Each thread zeroes, adds into and copies
// out only the sums of its own columns (partials.cuh): no barrier needed.
template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads, 1)
    scale_columns_backward_kernel(DevRows<const D> z, DevRows<const D> dy, DevRows<D> dz,
                                  DevPtr<const D> a, DevPtr<AccT<D>> partials, i64 kept_sums,
                                  int cluster) {
  using A = AccT<D>;
  const i64 w = z.cols;
  Accumulators<A> da{};
  if (partials) {
    da = block_accumulators(partials, w, ptr_cast<A*>(dynamic_shared), kept_sums, cluster);
    zero_owned<V>(da, w, 1);
  }
  for (RowLoop rows(z.rows); rows.more(); rows.next()) {
    const i64 i = rows.row();
    DevPtr<const D> zr = z.data + i * z.stride;
    DevPtr<const D> dyr = dy.data + i * dy.stride;
    DevPtr<D> dzr = dz.data ? dz.data + i * dz.stride : nullptr;
    for (i64 j = first_col<V>(); j < w; j += col_step<V>()) {
      A d[V];
      load<V>(dyr, j, w, d);
      if (dzr) {
        A s[V], out[V];
        load<V>(a, j, w, s);
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = s[k] * d[k];
        store<V>(dzr, j, w, out);
      }
      if (partials) {
        A v[V];
        load<V>(zr, j, w, v);
        const Run run = owned_run<V>(w, 0, j);
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (j + k < w) add_to(da, run(k), d[k] * v[k]);
      }
    }
  }
  if (partials) finish_sums<V>(da, w, 1, cluster);
}

// out(i, j) = sum over b = 0, 1, ... of parts[b * part + i * cols + j], in Acc,
// rounded once: `branches` dense [rows, cols] matrices, `part` entries apart.
template <class D>
__global__ void sum_parts_kernel(DevPtr<const D> parts, int branches, i64 part, DevRows<D> out) {
  const i64 n = out.rows * out.cols;
  for (i64 e = i64(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += i64(gridDim.x) * blockDim.x) {
    AccT<D> s = 0;
    for (int b = 0; b < branches; ++b) s += widen(ld(parts + (b * part + e)));
    st(out.data + ((e / out.cols) * out.stride + e % out.cols), narrow<D>(s));
  }
}

// ---- launchers --------------------------------------------------------------------------

template <class T>
void scale_columns(Rows<const T> z, Rows<T> y, const T* a, Stream stream) {
  constexpr const char* where = "cuda::scalevec: scale_columns";
  const int V = vector_width<T>(where, {z.data, y.data, a}, {z.stride, y.stride, z.cols});
  const Geometry g = forward_geometry(z.rows, z.cols, V, grid_limit(where));
  with_vector_width<T>(V, [&](auto vc) {
    launch<scale_columns_kernel<Dev<T>, vc()>>(g.blocks, dim3(g.group, g.rows_per_block), 0, stream,
                                               dev(z), dev(y), dev(a));
  });
  check_launch("cuda::scalevec: scale_columns");
}

// dz.data == nullptr: dz not wanted; da == nullptr: da not wanted.
template <class T>
void scale_columns_backward(Rows<const T> z, Rows<const T> dy, Rows<T> dz, const T* a, T* da,
                            Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::scalevec: scale_columns_backward";
  using A = Acc<T>;
  const i64 w = z.cols;
  const int V =
      vector_width<T>(where, {z.data, dy.data, dz.data, a}, {z.stride, dy.stride, dz.stride, w});
  const Geometry geo = backward_geometry(z.rows, w, V, grid_limit(where));
  const PartialPlan<A> plan = da ? plan_partials<A>(where, ws, geo.blocks, w, w) : PartialPlan<A>{};
  with_vector_width<T>(V, [&](auto vc) {
    constexpr auto kernel = scale_columns_backward_kernel<Dev<T>, vc()>;
    allow_dynamic_shared(where, kernel, plan.smem);
    launch_cluster<kernel>(geo.blocks, geo.group, plan.cluster, plan.smem, stream, dev(z), dev(dy),
                           dev(dz), dev(a), plan.partials, plan.kept, plan.cluster);
  });
  check_launch(where);
  if (da) {
    Outputs<Dev<T>> outs;
    outs.add(dev(da), 0, w);
    launch_sum_partials<Dev<T>>(plan, w, outs, SumLayout{w, 1, geo.group, V}, stream);
  }
}

template <class T>
void sum_parts(const T* parts, int branches, i64 part, Rows<T> out, Stream stream) {
  const i64 n = out.rows * out.cols;
  const i64 grid = std::min({(n + 255) / 256, kMaxBlocks, grid_limit("cuda::scalevec: sum_parts")});
  launch<sum_parts_kernel<Dev<T>>>(static_cast<unsigned>(grid), 256, 0, stream, dev(parts),
                                   branches, part, dev(out));
  check_launch("cuda::scalevec: sum_parts");
}

// ---- helpers ------------------------------------------------------------------------------

// A dense [rows, cols] view of b, reallocated when its size is not rows * cols.
template <class T>
Rows<T> dense_view(DeviceBuffer<T>& b, i64 rows, i64 cols) {
  const auto n = static_cast<std::size_t>(rows * cols);
  if (b.size() != n) b = DeviceBuffer<T>(n);
  return dense(b.data(), rows, cols);
}

// A 1 x d row seen as a d x 1 column (MD: one column that r scales).
template <class T>
Rows<T> column(Rows<T> row) {
  return {row.data, row.cols, 1, 1};
}

template <class T>
void check_vector(const char* where, const char* name, const T* p, i64 length, Strategy s) {
  require(p != nullptr, where, "expected ", name, " [", length, "] (", strategy_name(s),
          " reads it), got nullptr");
  require(reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0, where, "expected ", name,
          " aligned to its ", sizeof(T), "-byte entries");
}

template <class T>
void check_weight(const char* where, const char* name, Rows<const T> W, Rows<const T> x) {
  check_view(where, name, W);
  require(W.cols == x.cols, where, "expected ", name, " [d_out x ", x.cols, "] for x [", x.rows,
          "x", x.cols, "], got ", name, " [", W.rows, "x", W.cols, "]");
}

template <class T>
void check_output(const char* where, const char* name, Rows<T> v, i64 rows, i64 cols) {
  check_view(where, name, v);
  require(v.rows == rows && v.cols == cols, where, "expected ", name, " [", rows, "x", cols,
          "], got [", v.rows, "x", v.cols, "]");
}

// The strategy, heads and the parameters it reads.
template <class T>
void check_params(const char* where, const Params<T>& p, const Config& c, Rows<const T> x) {
  require(spec::holds(scaleref::scalevec::kStrategyNames, c.strategy), where, "unknown strategy ",
          static_cast<int>(c.strategy));
  check_weight(where, "W", p.W, x);
  check_eps(where, c.eps);
  const i64 d_in = x.cols, d_out = p.W.rows;
  require(c.heads >= 1, where, "expected heads >= 1, got heads = ", c.heads);
  if (c.strategy == Strategy::dnp)
    require(d_out % c.heads == 0, where, "expected heads dividing d_out = ", d_out,
            " (DNP's per-head n_h), got heads = ", c.heads);
  if (uses_g(c.strategy)) check_vector(where, "g", p.g, d_in, c.strategy);
  if (uses_a(c.strategy)) check_vector(where, "a", p.a, d_out, c.strategy);
  if (c.strategy == Strategy::md) {
    check_vector(where, "r", p.r, 1, c.strategy);
    check_vector(where, "u", p.u, d_in, c.strategy);
  }
}

template <class T>
void check_grad_vector(const char* where, const char* name, const T* p, bool learned, Strategy s) {
  if (!p) return;
  require(learned, where, name, " asked for, but ", strategy_name(s), " has no ", name + 1);
  require(reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0, where, "expected ", name,
          " aligned to its ", sizeof(T), "-byte entries");
}

// The input-side g forward used: none (none, AP), g, or MD's cached g(r, u).
template <class T>
const T* input_side_g(const Params<T>& p, const Config& c, const Cache<T>& k) {
  if (c.strategy == Strategy::md) return k.gv.data();
  return uses_g(c.strategy) ? p.g : nullptr;
}

// MD: g(r, u) = r u_hat with u_hat = u / RMS(u) (RMSNorm of the row u, no gain,
// eps = 0), then r scales u_hat's one column.
template <class T>
const T* md_gain(const Params<T>& p, Cache<T>& k, i64 d_in, Stream stream) {
  const Rows<T> u_hat = dense_view(k.u_hat, 1, d_in);
  rmsnorm::forward<T>({nullptr}, {0.0, 1}, dense(p.u, 1, d_in), u_hat, &k.nu, stream);
  const Rows<T> gv = dense_view(k.gv, 1, d_in);
  scale_columns<T>(column(as_const(u_hat)), column(gv), p.r, stream);
  return gv.data;
}

// MD's backward from dgv = dL/dg(r, u), with q = r dgv the gradient at u_hat:
//   dr = sum_k dgv_k u_hat_k                      (the "da" of r's one column)
//   du = RMSNorm backward of q at u, no gain      (1/RMS(u) (q - u_hat mean(q (.) u_hat)))
template <class T>
void md_backward(const Params<T>& p, Cache<T>& k, const Grads<T>& g, Workspace& ws, Stream stream) {
  const i64 d_in = k.d_in;
  const Rows<const T> u_hat = dense<const T>(k.u_hat.data(), 1, d_in);
  const Rows<const T> dgv = dense<const T>(k.dgv.data(), 1, d_in);
  const Rows<T> dq = g.du ? dense_view(k.dq, 1, d_in) : Rows<T>{};
  scale_columns_backward<T>(column(u_hat), column(dgv), Rows<T>{dq.data, d_in, 1, 1}, p.r, g.dr, ws,
                            stream);
  if (g.du)
    rmsnorm::backward<T>({nullptr}, {0.0, 1}, k.nu, dense(p.u, 1, d_in), as_const(dq),
                         dense(g.du, 1, d_in), {nullptr}, ws, stream);
}

}  // namespace

// ---- one linear map, every strategy -------------------------------------------------------

template <class T>
void check_forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y) {
  constexpr const char* where = "cuda::scalevec::forward";
  check_view(where, "x", x);
  check_params(where, p, c, x);
  check_output(where, "y", y, x.rows, p.W.rows);
}

template <class T>
void forward(Blas& blas, const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y,
             Cache<T>* cache, Stream stream) {
  check_forward(p, c, x, y);
  Cache<T> local;
  Cache<T>& k = cache ? *cache : local;
  const i64 n = x.rows, d_in = x.cols, d_out = p.W.rows;
  const T* gv = c.strategy == Strategy::md ? md_gain(p, k, d_in, stream) : input_side_g(p, c, k);
  const Rows<T> s = dense_view(k.s, n, d_in);
  rmsnorm::forward<T>({gv}, {c.eps, 1}, x, s, &k.nx, stream);
  // none, standard, MD: the product is the output; AP, DP, DNP scale it after.
  const Rows<T> z = uses_a(c.strategy) ? dense_view(k.z, n, d_out) : y;
  gemm_nt<T>(blas, as_const(s), p.W, z, stream);
  if (c.strategy == Strategy::dnp) {
    rmsnorm::forward<T>({p.a}, {c.eps, c.heads}, as_const(z), y, &k.nz, stream);
  } else if (uses_a(c.strategy)) {
    scale_columns<T>(as_const(z), y, p.a, stream);
  }
  k.strategy = c.strategy;
  k.heads = c.heads;
  k.rows = n;
  k.d_in = d_in;
  k.d_out = d_out;
}

template <class T>
void check_backward(const Params<T>& p, const Config& c, const Cache<T>& k, Rows<const T> x,
                    Rows<const T> dy, Rows<T> dx, const Grads<T>& g) {
  constexpr const char* where = "cuda::scalevec::backward";
  check_view(where, "x", x);
  check_params(where, p, c, x);
  const i64 n = x.rows, d_in = x.cols, d_out = p.W.rows;
  check_output(where, "dy", dy, n, d_out);
  if (dx.data) check_output(where, "dx", dx, n, d_in);
  if (g.dW.data) check_output(where, "dW", g.dW, d_out, d_in);
  check_grad_vector(where, "dg", g.dg, uses_g(c.strategy), c.strategy);
  check_grad_vector(where, "da", g.da, uses_a(c.strategy), c.strategy);
  check_grad_vector(where, "dr", g.dr, c.strategy == Strategy::md, c.strategy);
  check_grad_vector(where, "du", g.du, c.strategy == Strategy::md, c.strategy);
  require(k.rows > 0, where, "the cache is empty: pass a Cache to forward first");
  const bool same = k.strategy == c.strategy && k.rows == n && k.d_in == d_in && k.d_out == d_out &&
                    (c.strategy != Strategy::dnp || k.heads == c.heads);
  require(same, where, "expected the cache of a forward with the same strategy and shapes, got a ",
          strategy_name(k.strategy), " cache (heads ", k.heads, ") of x [", k.rows, "x", k.d_in,
          "] -> [", k.rows, "x", k.d_out, "] for ", strategy_name(c.strategy), " (heads ", c.heads,
          ") of x [", n, "x", d_in, "] -> [", n, "x", d_out, "]");
}

// Reverse of forward, with s = g (.) n(x), z = s W^T:
//   dz = AP, DP:  a (.) dy, with da = sum_rows dy (.) z          (scale_columns_backward)
//        DNP:     RMSNorm backward (gain a, heads) of dy at z, with da = sum_rows dy (.) n_h(z)
//        else:    dy
//   dW = dz^T s,   ds = dz W                                     (cuBLAS)
//   dx, dg = RMSNorm backward (gain g) of ds at x: dg = sum_rows ds (.) n(x)
//   MD: dg is the gradient at g(r, u): md_backward gives dr and du from it.
template <class T>
void backward(Blas& blas, const Params<T>& p, const Config& c, Cache<T>& k, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws, Stream stream) {
  check_backward(p, c, k, x, dy, dx, g);
  const i64 n = x.rows, d_in = x.cols, d_out = p.W.rows;
  Rows<const T> dz = dy;
  if (uses_a(c.strategy)) {
    const Rows<const T> z = dense<const T>(k.z.data(), n, d_out);
    const Rows<T> t = dense_view(k.dz, n, d_out);
    if (c.strategy == Strategy::dnp) {
      rmsnorm::backward<T>({p.a}, {c.eps, c.heads}, k.nz, z, dy, t, {g.da}, ws, stream);
    } else {
      scale_columns_backward<T>(z, dy, t, p.a, g.da, ws, stream);
    }
    dz = as_const(t);
  }
  if (g.dW.data) gemm_tn<T>(blas, dz, dense<const T>(k.s.data(), n, d_in), g.dW, stream);
  const bool md_wanted = c.strategy == Strategy::md && (g.dr || g.du);
  T* dgv = md_wanted ? dense_view(k.dgv, 1, d_in).data : g.dg;  // g.dg is null for MD
  if (!dx.data && !dgv) return;
  const Rows<T> ds = dense_view(k.ds, n, d_in);
  gemm_nn<T>(blas, dz, p.W, ds, stream);
  // Without dx wanted, RMSNorm's dx overwrites ds (allowed: dx may be dy).
  rmsnorm::backward<T>({input_side_g(p, c, k)}, {c.eps, 1}, k.nx, x, as_const(ds),
                       dx.data ? dx : ds, {dgv}, ws, stream);
  if (md_wanted) md_backward(p, k, g, ws, stream);
}

// ---- HG ---------------------------------------------------------------------------------------

namespace {

std::string indexed(const char* name, std::size_t b) { return name + std::to_string(b); }

template <class T>
void check_branches(const char* where, const std::vector<Branch<T>>& branches, Rows<const T> x) {
  require(!branches.empty(), where, "expected at least one branch, got 0");
  for (std::size_t b = 0; b < branches.size(); ++b) {
    check_weight(where, indexed("W_", b).c_str(), branches[b].W, x);
    require(branches[b].g != nullptr, where, "expected g_", b, " [", x.cols, "], got nullptr");
    require(reinterpret_cast<std::uintptr_t>(branches[b].g) % sizeof(T) == 0, where, "expected g_",
            b, " aligned to its ", sizeof(T), "-byte entries");
  }
}

template <class V>
void check_count(const char* where, const char* what, const std::vector<V>& v, std::size_t n) {
  require(v.size() == n, where, "expected ", n, " ", what, " (one per branch), got ", v.size());
}

}  // namespace

template <class T>
void check_forward_hg(const std::vector<Branch<T>>& branches, double eps, Rows<const T> x,
                      const std::vector<Rows<T>>& y) {
  constexpr const char* where = "cuda::scalevec::forward_hg";
  check_view(where, "x", x);
  check_eps(where, eps);
  check_branches(where, branches, x);
  check_count(where, "outputs", y, branches.size());
  for (std::size_t b = 0; b < branches.size(); ++b)
    check_output(where, indexed("y_", b).c_str(), y[b], x.rows, branches[b].W.rows);
}

template <class T>
void forward_hg(Blas& blas, const std::vector<Branch<T>>& branches, double eps, Rows<const T> x,
                const std::vector<Rows<T>>& y, HGCache<T>* cache, Stream stream) {
  check_forward_hg(branches, eps, x, y);
  HGCache<T> local;
  HGCache<T>& k = cache ? *cache : local;
  const i64 n = x.rows, d_in = x.cols;
  k.s.resize(branches.size());
  k.d_out.clear();
  for (std::size_t b = 0; b < branches.size(); ++b) {
    const Rows<T> s = dense_view(k.s[b], n, d_in);
    // Branch 0 stores 1 / RMS(x); the others compute the same bits again.
    rmsnorm::forward<T>({branches[b].g}, {eps, 1}, x, s, b == 0 ? &k.nx : nullptr, stream);
    gemm_nt<T>(blas, as_const(s), branches[b].W, y[b], stream);
    k.d_out.push_back(branches[b].W.rows);
  }
  k.rows = n;
  k.d_in = d_in;
}

template <class T>
void check_backward_hg(const std::vector<Branch<T>>& branches, const HGCache<T>& k, Rows<const T> x,
                       const std::vector<Rows<const T>>& dy, Rows<T> dx,
                       const std::vector<BranchGrads<T>>& g) {
  constexpr const char* where = "cuda::scalevec::backward_hg";
  check_view(where, "x", x);
  check_branches(where, branches, x);
  const std::size_t count = branches.size();
  check_count(where, "output gradients", dy, count);
  check_count(where, "gradient sets", g, count);
  if (dx.data) check_output(where, "dx", dx, x.rows, x.cols);
  for (std::size_t b = 0; b < count; ++b) {
    check_output(where, indexed("dy_", b).c_str(), dy[b], x.rows, branches[b].W.rows);
    if (g[b].dW.data)
      check_output(where, indexed("dW_", b).c_str(), g[b].dW, branches[b].W.rows, x.cols);
    require(reinterpret_cast<std::uintptr_t>(g[b].dg) % sizeof(T) == 0, where, "expected dg_", b,
            " aligned to its ", sizeof(T), "-byte entries");
  }
  require(k.rows > 0, where, "the cache is empty: pass an HGCache to forward_hg first");
  bool same =
      k.rows == x.rows && k.d_in == x.cols && k.d_out.size() == count && k.s.size() == count;
  for (std::size_t b = 0; same && b < count; ++b) same = k.d_out[b] == branches[b].W.rows;
  require(same, where, "expected the cache of a forward_hg with the same branches and x [", x.rows,
          "x", x.cols, "], got one of ", k.d_out.size(), " branches on x [", k.rows, "x", k.d_in,
          "]");
}

template <class T>
void backward_hg(Blas& blas, const std::vector<Branch<T>>& branches, HGCache<T>& k, Rows<const T> x,
                 const std::vector<Rows<const T>>& dy, Rows<T> dx,
                 const std::vector<BranchGrads<T>>& g, Workspace& ws, Stream stream) {
  check_backward_hg(branches, k, x, dy, dx, g);
  const i64 n = x.rows, d_in = x.cols;
  const int count = static_cast<int>(branches.size());
  // One branch writes dx itself; several write their shares, added after. Each
  // share starts on a 16-entry boundary, so RMSNorm's backward picks the vector
  // width it picks for a branch alone (the same bits as "standard" on it).
  const i64 part = (n * d_in + 15) / 16 * 16;
  T* parts = dx.data && count > 1 ? dense_view(k.dx_parts, count, part).data : nullptr;
  for (int b = 0; b < count; ++b) {
    const Rows<const T> s = dense<const T>(k.s[b].data(), n, d_in);
    if (g[b].dW.data) gemm_tn<T>(blas, dy[b], s, g[b].dW, stream);
    if (!dx.data && !g[b].dg) continue;
    const Rows<T> ds = dense_view(k.ds, n, d_in);
    gemm_nn<T>(blas, dy[b], branches[b].W, ds, stream);
    const Rows<T> out = !dx.data ? ds : parts ? dense(parts + b * part, n, d_in) : dx;
    // eps is not read by the backward (1 / RMS(x) comes from the cache).
    rmsnorm::backward<T>({branches[b].g}, {0.0, 1}, k.nx, x, as_const(ds), out, {g[b].dg}, ws,
                         stream);
  }
  if (parts) sum_parts<T>(parts, count, part, dx, stream);
}

#define SCALEREF_INSTANTIATE(T)                                                                    \
  template void check_forward<T>(const Params<T>&, const Config&, Rows<const T>, Rows<T>);         \
  template void forward<T>(Blas&, const Params<T>&, const Config&, Rows<const T>, Rows<T>,         \
                           Cache<T>*, Stream);                                                     \
  template void check_backward<T>(const Params<T>&, const Config&, const Cache<T>&, Rows<const T>, \
                                  Rows<const T>, Rows<T>, const Grads<T>&);                        \
  template void backward<T>(Blas&, const Params<T>&, const Config&, Cache<T>&, Rows<const T>,      \
                            Rows<const T>, Rows<T>, const Grads<T>&, Workspace&, Stream);          \
  template void check_forward_hg<T>(const std::vector<Branch<T>>&, double, Rows<const T>,          \
                                    const std::vector<Rows<T>>&);                                  \
  template void forward_hg<T>(Blas&, const std::vector<Branch<T>>&, double, Rows<const T>,         \
                              const std::vector<Rows<T>>&, HGCache<T>*, Stream);                   \
  template void check_backward_hg<T>(const std::vector<Branch<T>>&, const HGCache<T>&,             \
                                     Rows<const T>, const std::vector<Rows<const T>>&, Rows<T>,    \
                                     const std::vector<BranchGrads<T>>&);                          \
  template void backward_hg<T>(Blas&, const std::vector<Branch<T>>&, HGCache<T>&, Rows<const T>,   \
                               const std::vector<Rows<const T>>&, Rows<T>,                         \
                               const std::vector<BranchGrads<T>>&, Workspace&, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::scalevec
