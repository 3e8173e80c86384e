// DyT kernels (formulas: scaleref/cuda/dyt.hpp). No row statistic: forward is
// one pass; backward one pass that also sums dalpha's u x terms per thread
// (a register), adds them over the block by group_sum's fixed tree after the
// last row, and leaves the block's total in its partial row. Where dgamma's
// and dbeta's sums would not fit on chip, the backward splits each row over
// blocks, each a slice of its columns and their sums (partials.cuh's
// RowSplit); with no statistic to exchange, they need no cluster.
#include <scaleref/cuda/dyt.hpp>

#include "detail/device.cuh"
#include "detail/launch.hpp"
#include "detail/partials.cuh"

namespace scaleref::cuda::dyt {

namespace {

using namespace detail;

template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads)
    forward_kernel(DevRows<const D> x, DevRows<D> y, DevPtr<const D> alpha, DevPtr<const D> gamma,
                   DevPtr<const D> beta) {
  using A = AccT<D>;
  const A a = widen(ld(alpha));
  const i64 w = x.cols;
  for (RowLoop rows(x.rows); rows.more(); rows.next()) {
    if (!rows.active()) continue;  // no barrier in this kernel
    const i64 i = rows.row();
    DevPtr<const D> xr = x.data + i * x.stride;
    DevPtr<D> yr = y.data + i * y.stride;
    for (i64 j = first_col<V>(); j < w; j += col_step<V>()) {
      A v[V], g[V], b[V], out[V];
      load<V>(xr, j, w, v);
      load_or<V>(gamma, j, w, A(1), g);
      load_or<V>(beta, j, w, A(0), b);
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = g[k] * tanh(a * v[k]) + b[k];
      store<V>(yr, j, w, out);
    }
  }
}

// Partial row layout: [dgamma: D][dbeta: D][dalpha: 1]; under a row split
// into S slices [slice 0: dgamma's, dbeta's][slice 1: ...]...[dalpha: S].
template <class D, int V>
__global__ void __launch_bounds__(kMaxThreads, 1)
    backward_kernel(DevRows<const D> x, DevRows<const D> dy, DevRows<D> dx, DevPtr<const D> alpha,
                    DevPtr<const D> gamma, DevPtr<AccT<D>> partials, i64 kept_sums, int cluster,
                    RowSplit<AccT<D>> split) {
  using A = AccT<D>;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const A a = widen(ld(alpha));
  const i64 w = x.cols, count = 2 * w + split.slices;
  // a row split: this block's slice, columns c0 .. c0 + ws - 1
  const i64 ws = w / split.slices, c0 = i64(split.rank()) * ws;
  const DevPtr<A> kept = ptr_cast<A*>(dynamic_shared);
  const Accumulators<A> acc =
      split.slices > 1 ? slice_accumulators(partials, count, kept, kept_sums, split, 2 * ws)
                       : block_accumulators(partials, count, kept, kept_sums, cluster);
  zero_owned<V>(acc, ws, 2);
  const DevPtr<const D> gs = gamma ? gamma + c0 : nullptr;
  A dalpha = 0;  // this thread's share of sum u x
  for (RowLoop rows(x.rows, split.slices); rows.more(); rows.next()) {  // all active
    const i64 i = rows.row();
    DevPtr<const D> xr = x.data + i * x.stride + c0;
    DevPtr<const D> dyr = dy.data + i * dy.stride + c0;
    DevPtr<D> dxr = dx.data + i * dx.stride + c0;
    for (i64 j = first_col<V>(); j < ws; j += col_step<V>()) {
      A v[V], d[V], g[V], out[V];
      load<V>(xr, j, ws, v);
      load<V>(dyr, j, ws, d);
      load_or<V>(gs, j, ws, A(1), g);
      const Run run = owned_run<V>(ws, 0, j);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const A t = tanh(a * v[k]);
        const A u = d[k] * g[k] * (A(1) - t * t);
        out[k] = a * u;
        if (j + k < ws) {
          dalpha += u * v[k];
          add_to(acc, run(k), d[k] * t);
          add_to(acc, ws + run(k), d[k]);
        }
      }
      store<V>(dxr, j, ws, out);
    }
  }
  finish_sums<V>(acc, ws, 2, cluster);
  dalpha = group_sum(dalpha, scratch);
  finish_scalar(acc, count, 2 * w, dalpha, threadIdx.x == 0, cluster, split, 2 * ws);
}

template <class T>
void check_params(const char* where, const Params<T>& p) {
  require(p.alpha != nullptr, where, "expected alpha (one device scalar), got nullptr");
}

}  // namespace

template <class T>
void forward(const Params<T>& p, Rows<const T> x, Rows<T> y, Stream stream) {
  constexpr const char* where = "cuda::dyt::forward";
  check_forward_views(where, x, y);
  check_params(where, p);
  const int V =
      vector_width<T>(where, {x.data, y.data, p.alpha, p.gamma, p.beta}, {x.stride, y.stride});
  const Geometry g = forward_geometry(x.rows, x.cols, V, grid_limit(where));
  with_vector_width<T>(V, [&](auto vc) {
    launch<forward_kernel<Dev<T>, vc()>>(g.blocks, dim3(g.group, g.rows_per_block), 0, stream,
                                         dev(x), dev(y), dev(p.alpha), dev(p.gamma), dev(p.beta));
  });
  check_launch(where);
}

template <class T>
void backward(const Params<T>& p, Rows<const T> x, Rows<const T> dy, Rows<T> dx, const Grads<T>& g,
              Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::dyt::backward";
  check_backward_views(where, x, dy, dx);
  check_params(where, p);
  require(!g.dgamma || p.gamma, where, "dgamma asked for, but there is no gamma");
  const int V = vector_width<T>(where, {x.data, dy.data, dx.data, p.alpha, p.gamma},
                                {x.stride, dy.stride, dx.stride});
  using A = Acc<T>;
  const i64 grid = grid_limit(where);
  const int slices = row_slices(x.cols, 2, sizeof(A), 16 / sizeof(T), grid);
  const i64 slice = x.cols / slices;
  const Geometry geo = split_geometry(x.rows, slice, slices, V, grid);
  const i64 count = 2 * x.cols + slices;  // dalpha: an entry per slice
  const PartialPlan<A> plan =
      plan_partials<A>(where, ws, geo.blocks, count, 2 * slice, 0, {slices, 0, x.rows});
  with_vector_width<T>(V, [&](auto vc) {
    constexpr auto kernel = backward_kernel<Dev<T>, vc()>;
    allow_dynamic_shared(where, kernel, plan.smem);
    launch_cluster<kernel>(geo.blocks * slices, geo.group, plan.launch_cluster(), plan.smem, stream,
                           dev(x), dev(dy), dev(dx), dev(p.alpha), dev(p.gamma), plan.partials,
                           plan.kept, plan.cluster, plan.split(0));
  });
  check_launch(where);
  Outputs<Dev<T>> outs;
  outs.add(dev(g.dgamma), 0, x.cols);
  outs.add(dev(g.dbeta), x.cols, x.cols);
  outs.add(dev(g.dalpha), 2 * x.cols, 1);
  launch_sum_partials<Dev<T>>(plan, count, outs, SumLayout{slice, 2 * slices, geo.group, V, slices},
                              stream);
}

#define SCALEREF_INSTANTIATE(T)                                                      \
  template void forward<T>(const Params<T>&, Rows<const T>, Rows<T>, Stream);        \
  template void backward<T>(const Params<T>&, Rows<const T>, Rows<const T>, Rows<T>, \
                            const Grads<T>&, Workspace&, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::dyt
