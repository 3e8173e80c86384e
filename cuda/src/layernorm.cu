// LayerNorm kernels (formulas: scaleref/cuda/layernorm.hpp).
//
// forward: per row, a pass for sum x (the mean), a pass for sum (x - mu)^2
//   (the variance, centred: no E[x^2] - mu^2 cancellation) and, at eps = 0,
//   the row's range, a pass writing y back to front. A wide row's first
//   columns come from shared memory after the first pass (launch.hpp's
//   stash_columns); the sums walk the row front to back, as they always did.
// backward: a pass for sum g and sum g x_hat, a pass writing dx and adding
//   dy x_hat and dy into the block's dgamma and dbeta sums, back to front
//   where the resident blocks' rows do not fit in L2 (launch.hpp's
//   backward_back_to_front); then sum_partials. A row whose sums would not
//   fit on chip is split over the blocks of a cluster, each a part of its
//   columns and their sums, its two sums added over the parts
//   (partials.cuh's RowSplit).
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/spec/rescale.hpp>  // metrics::has_spread

#include "detail/device.cuh"
#include "detail/launch.hpp"
#include "detail/partials.cuh"

namespace scaleref::cuda::layernorm {

namespace {

using namespace detail;

// (kMaxThreads, 1): ptxas may use the 64 registers a 1024-thread group
// leaves; with (kMaxThreads) alone it held the fp64 V = 1 instantiation to 32
// and spilled 8 bytes (scripts/cuda_resources.py).
//
// A row too wide for a block's stash (launch.hpp's row_slices) is taken in
// `parts` parts, each part's sums a group_sum, the parts' added in order
// (its range, at eps = 0, the parts' maximum): in a cluster of `parts`
// blocks a row, block r the r-th part (split.slices = parts: through
// distributed shared memory, partials.cuh's row_statistics), or, where
// clusters cannot be launched, a block a row walking every part in turn
// (split.slices = 1): the same sums in the same order, so the same bits. A
// row in parts is its own instantiation (kSplit): one kernel for both had
// taken the forward from 28-56 registers to 56-64 (fp32's 4096 x 4096 from
// 5 blocks of 256 threads an SM to 4). Without kSplit the split's arguments
// are ignored: one part, the code there was before.
template <class D, int V, bool kSplit>
__global__ void __launch_bounds__(kMaxThreads, 1)
    forward_kernel(DevRows<const D> x, DevRows<D> y, DevPtr<const D> gamma, DevPtr<const D> beta,
                   AccT<D> eps, bool zero_eps, i64 stash_cols, DevPtr<AccT<D>> mean_out,
                   DevPtr<AccT<D>> rstd_out, int parts_arg, RowSplit<AccT<D>> split_arg) {
  using A = AccT<D>;
  const RowSplit<A> split = kSplit ? split_arg : RowSplit<A>{};
  const int parts = kSplit ? parts_arg : 1;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const RowStash<D> stash{ptr_cast<D*>(dynamic_shared), stash_cols};  // its parts' first columns
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared + stash_bytes(stash_cols, sizeof(D)));
  int turn = 0;
  const i64 w = x.cols, part = w / parts;
  // the parts this block walks: its rank's in a cluster, else all of them
  const i64 p0 = split.slices > 1 ? i64(split.rank()) : 0;
  const i64 p1 = split.slices > 1 ? p0 + 1 : parts;
  for (RowLoop rows(x.rows, split.slices); rows.more(); rows.next()) {
    const i64 i = rows.row();
    const bool on = rows.active();
    DevPtr<const D> xr = x.data + (on ? i * x.stride : 0);
    A sum[1] = {parts_first_pass<V>(xr, {part, p0, p1}, stash, on, scratch, [](A v) { return v; })};
    row_statistics(split, sum, i, turn, exchange);
    const A mu = sum[0] / A(w);
    A ss[1] = {0}, lo = Limits<A>::largest, hi = -Limits<A>::largest;  // and the row's range
    for (i64 p = p0; p < p1; ++p) {
      A s = 0;
      if (on)
        for (i64 j = first_col<V>(); j < part; j += col_step<V>()) {  // front to back: a sum
          A v[V];
          load_kept<V>(xr + p * part, j, part, stash, (p - p0) * part + j, v);
#pragma unroll
          for (int k = 0; k < V; ++k)
            if (j + k < part) {  // the tail's zeros are not x
              s += (v[k] - mu) * (v[k] - mu);
              if (zero_eps) {
                lo = fmin(lo, v[k]);
                hi = fmax(hi, v[k]);
              }
            }
        }
      s = group_sum(s, scratch);
      ss[0] = p == p0 ? s : ss[0] + s;
    }
    row_statistics(split, ss, i, turn, exchange);
    const A var = ss[0] / A(w);
    // At eps = 0 (zero_eps: decided on the host, where eps is a double; the
    // same for every row) a row without spread cannot be normalized: a
    // constant row's computed variance is its mean's rounding error squared,
    // not 0, and would map it to +-1. The reference's rule
    // (metrics::has_spread, as in norm/layernorm.hpp) needs the row's range.
    bool spread = true;
    if (zero_eps) {
      A range[2] = {group_max(-lo, scratch), group_max(hi, scratch)};  // -lo, hi
      row_statistics(split, range, i, turn, exchange, Max{});
      lo = -range[0];
      hi = range[1];
      const A u = Limits<A>::roundoff;  // a value: has_spread takes a reference
      spread = metrics::has_spread(lo, hi, A(sqrt(var)), double(w), u);
    }
    if (!on) continue;
    const A r = spread ? inverse_sqrt_or_nan<D>(var + eps) : Limits<A>::nan();
    if (threadIdx.x == 0 && p0 == 0 && rstd_out) {
      st(mean_out + i, mu);
      st(rstd_out + i, r);
    }
    DevPtr<D> yr = y.data + i * y.stride;
    for (i64 p = p1 - 1; p >= p0; --p)  // back to front
      for (i64 j = last_col<V>(part); j >= 0; j -= col_step<V>()) {
        A v[V], g[V], b[V], out[V];
        load_kept<V>(xr + p * part, j, part, stash, (p - p0) * part + j, v);
        load_or<V>(gamma ? gamma + p * part : nullptr, j, part, A(1), g);
        load_or<V>(beta ? beta + p * part : nullptr, j, part, A(0), b);
#pragma unroll
        for (int k = 0; k < V; ++k) out[k] = ((v[k] - mu) * r) * g[k] + b[k];
        store<V>(yr + p * part, j, part, out);
      }
  }
  end_split(split);
}

// Partial row layout: [dgamma: D][dbeta: D]; under a row split into S parts
// [part 0: dgamma's, dbeta's][part 1: ...]...
template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads, 1)
    backward_kernel(DevRows<const D> x, DevRows<const D> dy, DevRows<D> dx, DevPtr<const D> gamma,
                    DevPtr<const AccT<D>> mean, DevPtr<const AccT<D>> rstd,
                    DevPtr<AccT<D>> partials, i64 kept_sums, int cluster, bool back,
                    RowSplit<AccT<D>> split) {
  using A = AccT<D>;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const i64 w = x.cols;
  // a row split: this block's slice, columns c0 .. c0 + ws - 1
  const i64 ws = w / split.slices, c0 = i64(split.rank()) * ws;
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared);
  int turn = 0;
  Accumulators<A> acc{};
  if (partials) {
    const DevPtr<A> kept = exchange + split_exchange_entries(split.slices);
    acc = split.slices > 1 ? slice_accumulators(partials, 2 * w, kept, kept_sums, split, 2 * ws)
                           : block_accumulators(partials, 2 * w, kept, kept_sums, cluster);
    zero_owned<V>(acc, ws, 2);
  }
  const DevPtr<const D> gs = gamma ? gamma + c0 : nullptr;
  for (RowLoop rows(x.rows, split.slices); rows.more(); rows.next()) {  // all active
    const i64 i = rows.row();
    const A mu = ld(mean + i), r = ld(rstd + i);
    DevPtr<const D> xr = x.data + i * x.stride + c0;
    DevPtr<const D> dyr = dy.data + i * dy.stride + c0;
    A sums[2] = {0, 0};  // sum g, sum g x_hat
    if (split.first_pass()) {
      for (i64 j = first_col<V>(); j < ws; j += col_step<V>()) {
        A v[V], d[V], g[V];
        load<V>(xr, j, ws, v);
        load<V>(dyr, j, ws, d);
        load_or<V>(gs, j, ws, A(1), g);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if (j + k >= ws) continue;
          const A gk = d[k] * g[k];
          sums[0] += gk;
          sums[1] += gk * ((v[k] - mu) * r);
        }
      }
      sums[0] = group_sum(sums[0], scratch);
      sums[1] = group_sum(sums[1], scratch);
    }
    row_statistics(split, sums, i, turn, exchange);
    if (!split.second_pass()) continue;
    const A mean_g = sums[0] / A(w);
    const A mean_gx = sums[1] / A(w);
    DevPtr<D> dxr = dx.data + i * dx.stride + c0;
    for (i64 j = pass_start<V>(ws, back); j >= 0 && j < ws; j += pass_step<V>(back)) {
      A v[V], d[V], g[V], out[V];
      load<V>(xr, j, ws, v);
      load<V>(dyr, j, ws, d);
      load_or<V>(gs, j, ws, A(1), g);
      const Run run = owned_run<V>(ws, 0, j);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const A x_hat = (v[k] - mu) * r;
        out[k] = r * (d[k] * g[k] - mean_g - x_hat * mean_gx);
        if (partials && j + k < ws) {
          add_to(acc, run(k), d[k] * x_hat);
          add_to(acc, ws + run(k), d[k]);
        }
      }
      store<V>(dxr, j, ws, out);
    }
  }
  if (partials && split.second_pass()) finish_sums<V>(acc, ws, 2, cluster);
  end_split(split);
}

}  // namespace

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream) {
  constexpr const char* where = "cuda::layernorm::forward";
  check_forward_views(where, x, y);
  check_eps(where, c.eps);
  Acc<T>*mean = nullptr, *rstd = nullptr;
  if (cache) {
    const auto n = static_cast<std::size_t>(x.rows);
    if (cache->mean.size() != n) cache->mean = DeviceBuffer<Acc<T>>(n);
    if (cache->rstd.size() != n) cache->rstd = DeviceBuffer<Acc<T>>(n);
    mean = cache->mean.data();
    rstd = cache->rstd.data();
  }
  const int V = vector_width<T>(where, {x.data, y.data, p.gamma, p.beta}, {x.stride, y.stride});
  // a row that the stash would not hold is taken in parts
  const ForwardPlan<Acc<T>> f = plan_forward<Acc<T>>(where, x.rows, x.cols, sizeof(T), V, 1);
  with_vector_width<T>(V, [&](auto vc) {
    with_split(f.parts > 1, [&](auto split) {
      constexpr auto kernel = forward_kernel<Dev<T>, decltype(vc)::value, split()>;
      allow_dynamic_shared(where, kernel, f.smem);
      launch_cluster<kernel>(f.grid(), dim3(f.geo.group, f.geo.rows_per_block), f.blocks_a_row,
                             f.smem, stream, dev(x), dev(y), dev(p.gamma), dev(p.beta),
                             Acc<T>(c.eps), c.eps == 0, f.stash, mean, rstd, f.parts, f.split);
    });
  });
  check_launch(where);
}

template <class T>
void backward(const Params<T>& p, const Config&, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::layernorm::backward";
  check_backward_views(where, x, dy, dx);
  const auto n = static_cast<std::size_t>(x.rows);
  require(cache.mean.size() == n && cache.rstd.size() == n, where,
          "expected a cache from forward on ", x.rows, " rows, got ", cache.rstd.size(),
          " statistics");
  require(!g.dgamma || p.gamma, where, "dgamma asked for, but there is no gamma");
  const int V =
      vector_width<T>(where, {x.data, dy.data, dx.data, p.gamma}, {x.stride, dy.stride, dx.stride});
  using A = Acc<T>;
  // dgamma's and dbeta's sums split the row where they would not fit on chip
  // (whether they are wanted or not: the split decides dx's bits too)
  const i64 grid = grid_limit(where);
  const int slices = row_slices(x.cols, 2, sizeof(A), 16 / sizeof(T), grid);
  const i64 slice = x.cols / slices;
  const Geometry geo = split_geometry(x.rows, slice, slices, V, grid);
  const bool want = g.dgamma || g.dbeta;
  const i64 count = want ? 2 * x.cols : 0;
  const PartialPlan<A> plan =
      plan_partials<A>(where, ws, geo.blocks, count, count / slices, 0, {slices, 2, x.rows});
  const bool back = second_pass_back_to_front(
      where, 2 * static_cast<std::size_t>(slice) * sizeof(T), plan, geo.blocks * slices, geo.group);
  A* const partials = want ? plan.partials : nullptr;
  with_vector_width<T>(V, [&](auto vc) {
    constexpr auto kernel = backward_kernel<Dev<T>, vc()>;
    allow_dynamic_shared(where, kernel, plan.smem);
    for (int k = 0; k < plan.launches(); ++k)
      launch_cluster<kernel>(geo.blocks * slices, geo.group, plan.launch_cluster(), plan.smem,
                             stream, dev(x), dev(dy), dev(dx), dev(p.gamma), cache.mean.data(),
                             cache.rstd.data(), partials, plan.kept, plan.cluster, back,
                             plan.split(k));
  });
  check_launch(where);
  if (want) {
    Outputs<Dev<T>> outs;
    outs.add(dev(g.dgamma), 0, x.cols);
    outs.add(dev(g.dbeta), x.cols, x.cols);
    launch_sum_partials<Dev<T>>(plan, count, outs,
                                SumLayout{slice, 2 * slices, geo.group, V, slices}, stream);
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

}  // namespace scaleref::cuda::layernorm
