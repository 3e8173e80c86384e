// RMSNorm kernels (formulas: scaleref/cuda/rmsnorm.hpp).
//
// forward: per row and head, one pass for sum x^2 (group_sum), one that
//   writes y = (x r) gamma back to front; the second reads the row again,
//   from L1/L2, or a wide head's first columns from shared memory (launch.hpp's
//   stash_columns).
// backward: per row and head, one pass for sum g x_hat, one that writes dx
//   and adds dy x_hat into the block's dgamma sums, back to front where the
//   resident blocks' heads do not fit in L2 (launch.hpp's
//   backward_back_to_front); then sum_partials. A row whose dgamma sums
//   would not fit on chip (one head) is split over the blocks of a cluster,
//   each a slice of its columns and their sums, its sum g x_hat added over
//   the slices (partials.cuh's RowSplit).
#include <scaleref/cuda/rmsnorm.hpp>

#include "detail/device.cuh"
#include "detail/launch.hpp"
#include "detail/partials.cuh"

namespace scaleref::cuda::rmsnorm {

namespace {

using namespace detail;

// A row of one head too wide for a block's stash (launch.hpp's row_slices)
// is summed in `parts` parts, each part's sum of x^2 a group_sum, the parts'
// added in order: in a cluster of `parts` blocks a row, block r the r-th part
// (split.slices = parts: the sums through distributed shared memory,
// partials.cuh's row_statistics), or, where clusters cannot be launched, a
// block a row walking every part in turn (split.slices = 1): the same sums in
// the same order, so the same bits. A row in parts is its own instantiation
// (kSplit): one kernel for both had taken the forward from 26-36 registers
// to 58-64, and fp32's 4096 x 4096 from 8 blocks of 256 threads an SM to 4
// (the speed model's occupancy, 1.00 to 0.50). Without kSplit the split's
// arguments are ignored: one part, the code there was before.
template <class D, int V, bool kSplit>
__global__ void __launch_bounds__(kMaxThreads)
    forward_kernel(DevRows<const D> x, DevRows<D> y, DevPtr<const D> gamma, int heads, AccT<D> eps,
                   i64 stash_cols, DevPtr<AccT<D>> rstd, int parts_arg,
                   RowSplit<AccT<D>> split_arg) {
  using A = AccT<D>;
  const RowSplit<A> split = kSplit ? split_arg : RowSplit<A>{};
  const int parts = kSplit ? parts_arg : 1;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const RowStash<D> stash{ptr_cast<D*>(dynamic_shared), stash_cols};  // its parts' first columns
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared + stash_bytes(stash_cols, sizeof(D)));
  int turn = 0;
  const i64 w = x.cols / heads, part = w / parts;
  // the parts this block walks: its rank's in a cluster, else all of them
  const i64 p0 = split.slices > 1 ? i64(split.rank()) : 0;
  const i64 p1 = split.slices > 1 ? p0 + 1 : parts;
  for (RowLoop rows(x.rows, split.slices); rows.more(); rows.next()) {
    const i64 i = rows.row();
    const bool on = rows.active();
    for (int h = 0; h < heads; ++h) {
      DevPtr<const D> xr = x.data + (on ? i * x.stride + h * w : 0);
      A ss[1] = {
          parts_first_pass<V>(xr, {part, p0, p1}, stash, on, scratch, [](A v) { return v * v; })};
      row_statistics(split, ss, i * heads + h, turn, exchange);
      if (!on) continue;
      const A r = inverse_sqrt_or_nan<D>(ss[0] / A(w) + eps);
      if (rstd && threadIdx.x == 0 && p0 == 0) st(rstd + (i * heads + h), r);
      DevPtr<D> yr = y.data + i * y.stride + h * w;
      DevPtr<const D> gr = gamma ? gamma + h * w : nullptr;
      for (i64 p = p1 - 1; p >= p0; --p)  // back to front
        for (i64 j = last_col<V>(part); j >= 0; j -= col_step<V>()) {
          A v[V], g[V], out[V];
          load_kept<V>(xr + p * part, j, part, stash, (p - p0) * part + j, v);
          load_or<V>(gr ? gr + p * part : nullptr, j, part, A(1), g);
#pragma unroll
          for (int k = 0; k < V; ++k) out[k] = (v[k] * r) * g[k];
          store<V>(yr + p * part, j, part, out);
        }
    }
  }
  end_split(split);
}

template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads, 1)
    backward_kernel(DevRows<const D> x, DevRows<const D> dy, DevRows<D> dx, DevPtr<const D> gamma,
                    int heads, DevPtr<const AccT<D>> rstd, DevPtr<AccT<D>> partials, i64 kept_sums,
                    int cluster, bool back, RowSplit<AccT<D>> split) {
  using A = AccT<D>;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const i64 w = x.cols / heads;
  // a row split (one head): this block's slice, columns c0 .. c0 + ws - 1
  const i64 ws = w / split.slices, c0 = i64(split.rank()) * ws;
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared);
  int turn = 0;
  // dgamma's running sums (when wanted: partials != nullptr); thread-owned columns
  Accumulators<A> dgamma{};
  if (partials) {
    const DevPtr<A> kept = exchange + split_exchange_entries(split.slices);
    dgamma = split.slices > 1 ? slice_accumulators(partials, x.cols, kept, kept_sums, split, ws)
                              : block_accumulators(partials, x.cols, kept, kept_sums, cluster);
    zero_owned<V>(dgamma, ws, heads);  // head- (slice-) relative columns, as the loop below adds
  }
  for (RowLoop rows(x.rows, split.slices); rows.more(); rows.next()) {  // all active
    const i64 i = rows.row();
    for (int h = 0; h < heads; ++h) {
      const A r = ld(rstd + (i * heads + h));
      DevPtr<const D> xr = x.data + i * x.stride + h * w + c0;
      DevPtr<const D> dyr = dy.data + i * dy.stride + h * w + c0;
      DevPtr<const D> gr = gamma ? gamma + h * w + c0 : nullptr;
      A proj[1] = {0};  // sum g x_hat
      if (split.first_pass()) {
        for (i64 j = first_col<V>(); j < ws; j += col_step<V>()) {
          A v[V], d[V], g[V];
          load<V>(xr, j, ws, v);
          load<V>(dyr, j, ws, d);
          load_or<V>(gr, j, ws, A(1), g);
#pragma unroll
          for (int k = 0; k < V; ++k) proj[0] += (d[k] * g[k]) * (v[k] * r);
        }
        proj[0] = group_sum(proj[0], scratch);
      }
      row_statistics(split, proj, i * heads + h, turn, exchange);
      if (!split.second_pass()) continue;
      const A mean = proj[0] / A(w);
      DevPtr<D> dxr = dx.data + i * dx.stride + h * w + c0;
      for (i64 j = pass_start<V>(ws, back); j >= 0 && j < ws; j += pass_step<V>(back)) {
        A v[V], d[V], g[V], out[V];
        load<V>(xr, j, ws, v);
        load<V>(dyr, j, ws, d);
        load_or<V>(gr, j, ws, A(1), g);
        const Run run = owned_run<V>(ws, h, j);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A x_hat = v[k] * r;
          out[k] = r * (d[k] * g[k] - x_hat * mean);
          if (partials && j + k < ws) add_to(dgamma, run(k), d[k] * x_hat);
        }
        store<V>(dxr, j, ws, out);
      }
    }
  }
  if (partials && split.second_pass()) finish_sums<V>(dgamma, ws, heads, cluster);
  end_split(split);
}

}  // namespace

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream) {
  constexpr const char* where = "cuda::rmsnorm::forward";
  check_forward_views(where, x, y);
  check_heads(where, x.cols, c.heads);
  check_eps(where, c.eps);
  const i64 w = x.cols / c.heads;
  Acc<T>* rstd = nullptr;
  if (cache) {
    const auto n = static_cast<std::size_t>(x.rows * c.heads);
    if (cache->rstd.size() != n) cache->rstd = DeviceBuffer<Acc<T>>(n);
    rstd = cache->rstd.data();
  }
  const int V = vector_width<T>(where, {x.data, y.data, p.gamma}, {x.stride, y.stride, w});
  // a row of one head that the stash would not hold is summed in parts
  const ForwardPlan<Acc<T>> f =
      plan_forward<Acc<T>>(where, x.rows, w, sizeof(T), V, c.heads == 1 ? 1 : 0);
  with_vector_width<T>(V, [&](auto vc) {
    with_split(f.parts > 1, [&](auto split) {
      constexpr auto kernel = forward_kernel<Dev<T>, decltype(vc)::value, split()>;
      allow_dynamic_shared(where, kernel, f.smem);
      launch_cluster<kernel>(f.grid(), dim3(f.geo.group, f.geo.rows_per_block), f.blocks_a_row,
                             f.smem, stream, dev(x), dev(y), dev(p.gamma), c.heads, Acc<T>(c.eps),
                             f.stash, rstd, f.parts, f.split);
    });
  });
  check_launch(where);
}

template <class T>
void backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::rmsnorm::backward";
  check_backward_views(where, x, dy, dx);
  check_heads(where, x.cols, c.heads);
  require(cache.rstd.size() == static_cast<std::size_t>(x.rows * c.heads), where,
          "expected a cache from forward on ", x.rows, " rows and ", c.heads, " heads, got ",
          cache.rstd.size(), " statistics");
  require(!g.dgamma || p.gamma, where, "dgamma asked for, but there is no gamma");
  const i64 w = x.cols / c.heads;
  const int V = vector_width<T>(where, {x.data, dy.data, dx.data, p.gamma},
                                {x.stride, dy.stride, dx.stride, w});
  using A = Acc<T>;
  // dgamma's sums split the row where they would not fit on chip; the split
  // (the bits) does not depend on whether dgamma is wanted
  const i64 grid = grid_limit(where);
  const int slices = c.heads == 1 ? row_slices(w, 1, sizeof(A), 16 / sizeof(T), grid) : 1;
  const i64 slice = w / slices;
  const Geometry geo = split_geometry(x.rows, slice, slices, V, grid);
  const bool want = g.dgamma != nullptr;
  const PartialPlan<A> plan = plan_partials<A>(where, ws, geo.blocks, want ? x.cols : 0,
                                               want ? x.cols / slices : 0, 0, {slices, 1, x.rows});
  const bool back = second_pass_back_to_front(
      where, 2 * static_cast<std::size_t>(slice) * sizeof(T), plan, geo.blocks * slices, geo.group);
  A* const partials = want ? plan.partials : nullptr;
  with_vector_width<T>(V, [&](auto vc) {
    constexpr auto kernel = backward_kernel<Dev<T>, vc()>;
    allow_dynamic_shared(where, kernel, plan.smem);
    for (int k = 0; k < plan.launches(); ++k)
      launch_cluster<kernel>(geo.blocks * slices, geo.group, plan.launch_cluster(), plan.smem,
                             stream, dev(x), dev(dy), dev(dx), dev(p.gamma), c.heads,
                             cache.rstd.data(), partials, plan.kept, plan.cluster, back,
                             plan.split(k));
  });
  check_launch(where);
  if (g.dgamma) {
    Outputs<Dev<T>> outs;
    outs.add(dev(g.dgamma), 0, x.cols);
    launch_sum_partials<Dev<T>>(plan, x.cols, outs,
                                SumLayout{slice, c.heads * slices, geo.group, V, slices}, stream);
  }
}

#define SCALEREF_INSTANTIATE(T)                                                                \
  template void forward<T>(const Params<T>&, const Config&, Rows<const T>, Rows<T>, Cache<T>*, \
                           Stream);                                                            \
  template void backward<T>(const Params<T>&, const Config&, const Cache<T>&, Rows<const T>,   \
                            Rows<const T>, Rows<T>, const Grads<T>&, Workspace&, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::rmsnorm
