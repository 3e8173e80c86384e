// SeeDNorm, multi-head SeeDNorm and AdaSeeDNorm kernels (formulas:
// scaleref/cuda/seednorm.hpp). One kernel template per direction; kAda
// switches in eq. 8's conditioning.
//
// forward, per row: pass 1 walks the row head by head and sums x^2 and each
//   head's x_h . beta_h from the same loads (the fused statistics); a
//   head's sum is group_sum'd at the end of its head, sum x^2 at the end of
//   the row (with more than one head: a row a block, its heads split over
//   blockDim.y slices, whose sums of x^2 are added in slice order);
//   sigma(z_h) goes to shared memory for pass 2, which writes y back to
//   front, a wide row's first columns from shared memory (launch.hpp's
//   stash_columns). A row the stash would not hold goes in parts (whole
//   heads, or slices of the one head) over a cluster of blocks, whose sums
//   are added in part order (forward_kernel's comment).
// backward, per row: pass 1 sums ds_h per head and sum g x_hat over the row;
//   dz_h = sigma'(z_h) ds_h goes to shared memory; pass 2 writes dx (and
//   AdaSeeDNorm's d gamma(c), d eta(c)) and adds dbeta, dgamma, dalpha into
//   the block's sums, back to front where the resident blocks' rows do not
//   fit in L2 (launch.hpp's backward_back_to_front; a scalar alpha's
//   per-thread sum is taken in pass 1, so no order of pass 2 changes a
//   bit); then sum_partials. A block takes one row at a time,
//   its heads split over blockDim.y slices (head h to slice h mod slices),
//   each slice a group of blockDim.x threads sized by the head: with 16
//   heads of 256 columns a one-slice block was one warp in bf16, and an SM
//   held 1-8 warps of them (the H200 timed it at 1.9-43x the speed model's
//   bandwidth-bound time).
#include <scaleref/cuda/seednorm.hpp>

#include "detail/device.cuh"
#include "detail/launch.hpp"
#include "detail/partials.cuh"

namespace scaleref::cuda::seednorm {

namespace {

using namespace detail;

// sigma and sigma' (scaleref/spec/seednorm.hpp, shared with the reference),
// with GELU's constants as literals rounded to A.
template <class A>
__device__ inline A activate(Activation s, A z) {
  return scaleref::norm::activate(s, z, scaleref::norm::gelu_literals<A>());
}
template <class A>
__device__ inline A derivative(Activation s, A z) {
  return scaleref::norm::activate_derivative(s, z, scaleref::norm::gelu_literals<A>());
}

// What both directions read besides x and dy.
template <class D>
struct Net {
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  DevPtr<const D> alpha;
  DevPtr<const D> beta;
  DevPtr<const D> gamma;  // nullptr: none (SeeDNorm); AdaSeeDNorm's bracket has 1
  AlphaForm alpha_form;
  Activation sigma;
  int heads;
  DevRows<const D> gamma_c, eta_c;  // AdaSeeDNorm only
};

// The alpha entries a_k of columns j .. j + V - 1 of head h.
template <int V, class D>
__device__ inline void load_alpha(const Net<D>& n, i64 h, i64 j, i64 w, AccT<D> (&a)[V]) {
  using A = AccT<D>;
  if (n.alpha_form == AlphaForm::vector) {
    load<V>(n.alpha + h * w, j, w, a);
  } else {
    const A s = n.alpha_form == AlphaForm::scalar ? widen(ld(n.alpha)) : A(1);
#pragma unroll
    for (int k = 0; k < V; ++k) a[k] = s;
  }
}

// v summed over the block's slices (each slice's group_sum'd value), in
// slice order, so every thread gets the same bits; `slot` holds blockDim.y
// values of shared memory. Every thread of the block must call it.
template <class A>
__device__ A slices_sum(A v, DevPtr<A> slot) {
  if (blockDim.y == 1) return v;
  if (threadIdx.x == 0) st(slot + threadIdx.y, v);
  __syncthreads();
  A s = ld(slot);
  for (unsigned y = 1; y < blockDim.y; ++y) s += ld(slot + y);
  __syncthreads();  // slot may be written again by the next call
  return s;
}

// __launch_bounds__(kMaxThreads): a row's group may be 1024 threads (launch.hpp's
// group_size), so a thread may hold at most 64 registers; without the bound the
// bf16 (V = 8) and fp64 AdaSeeDNorm backward take 72-80 and a 1024-thread launch
// fails with "too many resources requested for launch".
//
// Shared memory: the stash (the row's first stash_cols entries, RowStash; a
// row in parts: the block's parts'), the exchange of a row in parts
// (partials.cuh's row_statistics), then sigma(z_h) for each head of each of
// the block's rows, then one slices_sum slot per slice. With one head,
// blockDim.y is the block's rows; with more, it is the row's head slices
// (head h to slice h mod slices), and a block takes one row at a time.
//
// A row the stash would not hold (fp32 and fp64 at 65536 columns:
// partials.cuh's plan_forward) is taken in `parts` parts: whole heads, or
// slices of the one head. Each part has `units` units of w columns (its
// heads, or its slice of the one head), unit u of the row at columns u w; a
// part's sum of x^2 (and the one head's x . beta) is a group_sum (with
// heads, added over the slices), the parts' added in part order. In a
// cluster of `parts` blocks a row, block r takes part r and the sums go
// through distributed shared memory (split.slices = parts); where clusters
// cannot be launched a block a row walks every part (split.slices = 1): the
// same sums in the same order, so the same bits. A row in parts is its own
// instantiation (kSplit), so that the kernels without parts keep their 32-51
// registers (one kernel for both took 52-64: at 4096 columns, fp64's 512
// threads a row went from 3 blocks an SM to 2). Its groups stop at 512
// threads (kSplitMaxThreads) and its bound asks for 2 blocks an SM (the
// others' for none: a 0 there emits no .minnctapersm), which leaves 64
// registers: with the thread bound alone, ptxas held its V = 1
// kernels to 40 registers and spilled 8-32 bytes. Without kSplit the split's
// arguments are ignored: one part, and the code and the order of the sums
// there were before.
inline constexpr int kSplitMaxThreads = 512;
template <class D, int V, bool kAda, bool kSplit>
__global__ void __launch_bounds__(kSplit ? kSplitMaxThreads : kMaxThreads, kSplit ? 2 : 0)
    forward_kernel(Net<D> n, DevRows<const D> x, DevRows<D> y, AccT<D> eps, i64 stash_cols,
                   DevPtr<AccT<D>> rstd_out, DevPtr<AccT<D>> z_out, int parts_arg, int units_arg,
                   i64 unit_arg, RowSplit<AccT<D>> split_arg) {
  using A = AccT<D>;
  const RowSplit<A> split = kSplit ? split_arg : RowSplit<A>{};
  const int parts = kSplit ? parts_arg : 1;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const RowStash<D> stash{ptr_cast<D*>(dynamic_shared), stash_cols};
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared + stash_bytes(stash_cols, sizeof(D)));
  int turn = 0;
  const bool sliced = n.heads > 1;
  const unsigned per_block = sliced ? 1u : blockDim.y;  // rows (in parts: one)
  const unsigned slot_of_row = sliced ? 0u : threadIdx.y;
  const DevPtr<A> stats = exchange + split_exchange_entries(split.slices);
  DevPtr<A> s_row = stats + i64(slot_of_row) * n.heads;  // sigma(z_h) of this thread's row
  DevPtr<A> slot = stats + i64(per_block) * n.heads;     // slices_sum's
  const int units = kSplit ? units_arg : n.heads;        // of a part
  const i64 w = kSplit ? unit_arg : x.cols / n.heads;    // a unit's columns
  const int h0 = sliced ? int(threadIdx.y) : 0, dh = sliced ? int(blockDim.y) : 1;
  // the parts this block walks: its rank's in a cluster, else all of them
  const i64 p0 = split.slices > 1 ? i64(split.rank()) : 0;
  const i64 p1 = split.slices > 1 ? p0 + 1 : parts;
  // their units: u0 .. u1 - 1, unit u kept in the stash from (u - u0) w
  const int u0 = int(p0) * units, u1 = int(p1) * units;
  const i64 groups = gridDim.x / unsigned(split.slices);  // a block, or a cluster, a row group
  for (i64 base = i64(blockIdx.x / unsigned(split.slices)) * per_block; base < x.rows;
       base += groups * per_block) {
    const i64 i = base + slot_of_row;
    const bool on = i < x.rows;
    DevPtr<const D> xr = x.data + (on ? i * x.stride : 0);
    A sums[2] = {0, 0};  // sum x^2; the one head's x . beta
    for (i64 p = p0; p < p1; ++p) {
      A ss = 0;
      for (int hl = h0; hl < units; hl += dh) {
        const int u = int(p) * units + hl;
        A dot = 0;
        if (on)
          for (i64 j = first_col<V>(); j < w; j += col_step<V>()) {
            A v[V], b[V];
            load_keep<V>(xr + u * w, j, w, stash, (u - u0) * w + j, v);
            load<V>(n.beta + u * w, j, w, b);
#pragma unroll
            for (int k = 0; k < V; ++k) {
              ss += v[k] * v[k];
              dot += v[k] * b[k];
            }
          }
        dot = group_sum(dot, scratch);
        if (kSplit && !sliced) {  // a slice of the one head: x . beta is the parts'
          sums[1] = p == p0 ? dot : sums[1] + dot;
        } else if (threadIdx.x == 0) {
          st(s_row + u, activate(n.sigma, dot));
          if (on && z_out) st(z_out + (i * n.heads + u), dot);
        }
      }
      ss = group_sum(ss, scratch);
      if (sliced) ss = slices_sum(ss, slot);  // in slice order
      sums[0] = p == p0 ? ss : sums[0] + ss;
    }
    row_statistics(split, sums, i, turn, exchange);
    if (kSplit && !sliced && threadIdx.x == 0) {
      st(s_row, activate(n.sigma, sums[1]));
      if (on && z_out && p0 == 0) st(z_out + i, sums[1]);
    }
    __syncthreads();  // s_row written by thread 0 of each slice is seen by the whole block
    if (on) {
      const A r = inverse_sqrt_or_nan<D>(sums[0] / A(x.cols) + eps);
      if (threadIdx.x == 0 && threadIdx.y == slot_of_row && rstd_out && p0 == 0)
        st(rstd_out + i, r);
      DevPtr<D> yr = y.data + i * y.stride;
      // back to front: the slice's last unit first, each from its last column
      // (a slice's units, u0 + h0 + k dh, run on over the parts: dh divides
      // units)
      for (int u = u0 + h0 + (u1 - u0 - 1 - h0) / dh * dh; u >= u0; u -= dh) {
        const A s = ld(s_row + (kSplit && !sliced ? 0 : u));
        for (i64 j = last_col<V>(w); j >= 0; j -= col_step<V>()) {
          A v[V], a[V], out[V];
          load_kept<V>(xr + u * w, j, w, stash, (u - u0) * w + j, v);
          load_alpha<V>(n, u, j, w, a);
          if constexpr (kAda) {
            A gc[V], ec[V];
            load<V>(n.gamma_c.data + i * n.gamma_c.stride + u * w, j, w, gc);
            load<V>(n.eta_c.data + i * n.eta_c.stride + u * w, j, w, ec);
#pragma unroll
            for (int k = 0; k < V; ++k)
              out[k] = ((a[k] * s + A(1)) * (v[k] * r)) * (A(1) + gc[k]) + ec[k];
          } else {
            A g[V];
            load_or<V>(n.gamma ? n.gamma + u * w : nullptr, j, w, A(0), g);
#pragma unroll
            for (int k = 0; k < V; ++k) out[k] = (a[k] * s + g[k]) * (v[k] * r);
          }
          store<V>(yr + u * w, j, w, out);
        }
      }
    }
    __syncthreads();  // s_row is rewritten for the next row only after every read
  }
  end_split(split);
}

// AdaSeeDNorm's backward holds the condition's row and two more gradients
// besides SeeDNorm's: under the 64 registers a 1024-thread block leaves, its
// bf16 (V = 8) and fp64 (V = 1) instantiations spilled 96 and 8 bytes
// (scripts/cuda_resources.py). Its groups stop at 512 threads, which leave 128.
// The row split's instantiations (kSplit) hold its parts, offsets and
// exchange besides: under 64 registers SeeDNorm's bf16 (V = 8) and fp64
// spilled 16-136 bytes. Their groups stop at 512 threads too (split_geometry
// gives a part of 8192 columns 512 in every storage type: two accesses a
// thread a row in bf16, four in fp32, eight in fp64).
template <bool kAda, bool kSplit = false>
inline constexpr int kBackwardThreads = kAda || kSplit ? kSplitMaxThreads : kMaxThreads;

// Partial row layout: [dbeta: D][dgamma: D][dalpha: D (vector) | 1 (scalar) | 0].
// Under a row split into S parts (partials.cuh's RowSplit): a part is a
// slice of one head's columns (one head) or S-th of the heads (more), its
// sums [dbeta][dgamma][dalpha] one part after another, and a scalar alpha's
// S entries after them. The block of part r holds `units` segments of w
// columns each (its heads, or its slice of the one head), unit u of the row
// (u = r units + the block's own unit) at columns u w; a row's sum g x_hat
// (and the one head's ds) are added over the parts in part order. Without
// kSplit the split's arguments are ignored: one part of n.heads units, and
// the same code as before there was a split.
template <class D, int V, bool kAda, bool kSplit>
__global__ void __launch_bounds__(kBackwardThreads<kAda, kSplit>, 1)
    backward_kernel(Net<D> n, DevRows<const D> x, DevRows<const D> dy, DevRows<D> dx,
                    DevRows<D> dgamma_c, DevRows<D> deta_c, DevPtr<const AccT<D>> rstd,
                    DevPtr<const AccT<D>> z, DevPtr<AccT<D>> partials, i64 kept_sums, int cluster,
                    bool back, RowSplit<AccT<D>> split_arg, i64 part_arg, int units_arg) {
  using A = AccT<D>;
  SCALEREF_SHARED(ScratchRow<A>, scratch, 32);
  const RowSplit<A> split = kSplit ? split_arg : RowSplit<A>{};
  // the row, a part (`units` units of w columns), this part's first unit
  const i64 cols = x.cols, part = kSplit ? part_arg : cols;
  const int units = kSplit ? units_arg : n.heads;
  const i64 w = part / units, u0 = i64(split.rank()) * units;
  // unit h's head: itself, but a part of the one head is of head 0
  const bool one_head = kSplit && n.heads == 1;
  const bool alpha_vector = n.alpha_form == AlphaForm::vector;
  const i64 count = 2 * cols + (alpha_vector                        ? cols
                                : n.alpha_form == AlphaForm::scalar ? split.slices
                                                                    : 0);
  const i64 segments = (alpha_vector ? 3 : 2) * i64(units);
  const DevPtr<A> exchange = ptr_cast<A*>(dynamic_shared);
  const DevPtr<A> kept = exchange + split_exchange_entries(split.slices);
  int turn = 0;
  DevPtr<A> dz_row = kept + kept_sums;  // each unit's dz = sigma'(z) ds
  DevPtr<A> slot = dz_row + units;      // slices_sum's
  const Accumulators<A> acc =
      split.slices > 1 ? slice_accumulators(partials, count, kept, kept_sums, split, segments * w)
                       : block_accumulators(partials, count, kept, kept_sums, cluster);
  // this slice's segments: segment p = parameter x units + h is slice p mod
  // slices's, which is h mod slices's because head_slices divides units
  zero_owned<V>(acc, w, segments);
  A dalpha_scalar = 0;
  const int h0 = int(threadIdx.y), dh = int(blockDim.y);  // this slice's units: h0, h0 + dh, ...
  const unsigned parts = unsigned(split.slices);
  // pass 1 runs in every phase, Phase::finish's too: pass 2 needs each
  // unit's ds, and a scalar alpha's terms are taken in pass 1
  for (i64 i = blockIdx.x / parts; i < x.rows; i += gridDim.x / parts) {  // a row at a time
    const A r = ld(rstd + i);
    DevPtr<const D> xr = x.data + i * x.stride;
    DevPtr<const D> dyr = dy.data + i * dy.stride;
    DevPtr<const D> gcr = kAda ? n.gamma_c.data + i * n.gamma_c.stride : nullptr;
    A gx = 0;  // sum g x_hat, g = dy' (a s + gamma)
    A ds = 0;  // the last unit's: the one head's slice under a split
    for (int hl = h0; hl < units; hl += dh) {
      const i64 h = u0 + hl;  // the unit (the head, where there are more than one)
      const A zh = ld(z + (i * n.heads + (one_head ? 0 : h))), s = activate(n.sigma, zh);
      ds = 0;
      for (i64 j = first_col<V>(); j < w; j += col_step<V>()) {
        A v[V], d[V], a[V], g[V];
        load<V>(xr + h * w, j, w, v);
        load<V>(dyr + h * w, j, w, d);
        load_alpha<V>(n, h, j, w, a);
        if constexpr (kAda) {
          A gc[V];
          load<V>(gcr + h * w, j, w, gc);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            d[k] *= A(1) + gc[k];
            g[k] = A(1);
          }
        } else {
          load_or<V>(n.gamma ? n.gamma + h * w : nullptr, j, w, A(0), g);
        }
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A x_hat = v[k] * r, q = d[k] * x_hat;
          ds += a[k] * q;
          gx += d[k] * (a[k] * s + g[k]) * x_hat;
          // a scalar alpha's sum: here, front to back, whatever order pass 2 takes
          if (!alpha_vector && j + k < w) dalpha_scalar += s * q;
        }
      }
      ds = group_sum(ds, scratch);
      if (threadIdx.x == 0) st(dz_row + hl, derivative(n.sigma, zh) * ds);
    }
    // sum g x_hat, and the one head's ds (with more heads, the last unit's
    // of this thread's slice, which is not used)
    A stats[2] = {slices_sum(group_sum(gx, scratch), slot), ds};
    row_statistics(split, stats, i, turn, exchange);
    if (!split.second_pass()) continue;
    // a part of the one head: its dz from ds added over the parts
    if (split.slices > 1 && n.heads == 1 && threadIdx.x == 0)
      st(dz_row, derivative(n.sigma, ld(z + i)) * stats[1]);
    const A mean = stats[0] / A(cols);
    __syncthreads();  // dz_row written by thread 0 is seen by all
    DevPtr<D> dxr = dx.data + i * dx.stride;
    // back to front: the slice's last unit first, each from its last column
    const int h_last = h0 + (units - 1 - h0) / dh * dh;
    for (int hl = back ? h_last : h0; hl >= h0 && hl < units; hl += back ? -dh : dh) {
      const i64 h = u0 + hl;
      const A s = activate(n.sigma, ld(z + (i * n.heads + (one_head ? 0 : h))));
      const A dz = ld(dz_row + hl);
      for (i64 j = pass_start<V>(w, back); j >= 0 && j < w; j += pass_step<V>(back)) {
        A v[V], d[V], a[V], b[V], g[V], gc[V] = {}, out[V];
        load<V>(xr + h * w, j, w, v);
        load<V>(dyr + h * w, j, w, d);
        load<V>(n.beta + h * w, j, w, b);
        load_alpha<V>(n, h, j, w, a);
        if constexpr (kAda) {
          load<V>(gcr + h * w, j, w, gc);
#pragma unroll
          for (int k = 0; k < V; ++k) g[k] = A(1);
        } else {
          load_or<V>(n.gamma ? n.gamma + h * w : nullptr, j, w, A(0), g);
        }
        A dgc[V] = {}, dec[V] = {};
        const Run run = owned_run<V>(w, hl, j);  // the sums of the unit's column j + k
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A x_hat = v[k] * r;
          A dyk = d[k];  // dy', the bracket's gradient
          if constexpr (kAda) {
            dyk = d[k] * (A(1) + gc[k]);
            dgc[k] = d[k] * ((a[k] * s + A(1)) * x_hat);
            dec[k] = d[k];
          }
          const A q = dyk * x_hat;
          out[k] = dz * b[k] + r * (dyk * (a[k] * s + g[k]) - x_hat * mean);
          if (j + k < w) {
            add_to(acc, run(k), dz * v[k]);  // dbeta
            add_to(acc, part + run(k), q);   // dgamma
            if (alpha_vector) add_to(acc, 2 * part + run(k), s * q);
          }
        }
        store<V>(dxr + h * w, j, w, out);
        if constexpr (kAda) {
          if (dgamma_c.data) store<V>(dgamma_c.data + i * dgamma_c.stride + h * w, j, w, dgc);
          if (deta_c.data) store<V>(deta_c.data + i * deta_c.stride + h * w, j, w, dec);
        }
      }
    }
    __syncthreads();  // dz_row is rewritten for the next row only after every read
  }
  if (split.second_pass()) {
    finish_sums<V>(acc, w, segments, cluster);
    if (n.alpha_form == AlphaForm::scalar) {
      dalpha_scalar = slices_sum(group_sum(dalpha_scalar, scratch), slot);
      finish_scalar(acc, count, 2 * cols, dalpha_scalar, threadIdx.x == 0 && threadIdx.y == 0,
                    cluster, split, segments * w);
    }
  }
  end_split(split);
}

template <class T>
Net<Dev<T>> net(const Params<T>& p, const Config& c, const Condition<T>* cond) {
  using D = Dev<T>;
  Net<D> n{DevPtr<const D>(dev(p.alpha)),
           DevPtr<const D>(dev(p.beta)),
           DevPtr<const D>(dev(p.gamma)),
           c.alpha,
           c.sigma,
           c.heads,
           {},
           {}};
  if (cond) {
    n.gamma = nullptr;
    n.gamma_c = DevRows<const D>(dev(cond->gamma_c));
    n.eta_c = DevRows<const D>(dev(cond->eta_c));
  }
  return n;
}

template <class T>
void check_call(const char* where, const Params<T>& p, const Config& c, Rows<const T> x,
                const Condition<T>* cond) {
  check_view(where, "x", x);
  check_heads(where, x.cols, c.heads);
  check_eps(where, c.eps);
  require(p.beta != nullptr, where, "expected beta [D], got nullptr");
  require(c.alpha == AlphaForm::none || p.alpha != nullptr, where,
          "expected alpha for AlphaForm::vector or scalar, got nullptr");
  require(
      c.heads * sizeof(Acc<T>) * (kForwardThreads / 32) + kStaticSharedBytes <= kLaunchSharedBytes,
      where, "too many heads for the per-head statistics in shared memory: ", c.heads);
  if (cond) {
    check_view(where, "gamma(c)", cond->gamma_c);
    check_view(where, "eta(c)", cond->eta_c);
    check_same_shape(where, "x", x, "gamma(c)", cond->gamma_c);
    check_same_shape(where, "x", x, "eta(c)", cond->eta_c);
  }
}

// The vector width every pointer and step of a call allows (the head width
// too: a head's first column must stay aligned).
template <class T>
int width_for(const char* where, const Params<T>& p, const Config& c, i64 w,
              std::vector<const void*> ptrs, std::vector<i64> steps) {
  ptrs.push_back(p.beta);
  ptrs.push_back(p.gamma);
  if (c.alpha == AlphaForm::vector) ptrs.push_back(p.alpha);
  steps.push_back(w);
  return vector_width_of<T>(where, ptrs, steps);
}

template <bool kAda, class T>
void run_forward(const char* where, const Params<T>& p, const Config& c, const Condition<T>* cond,
                 Rows<const T> x, Rows<T> y, Cache<T>* cache, Stream stream) {
  check_call(where, p, c, x, cond);
  check_forward_views(where, x, y);
  Acc<T>*rstd = nullptr, *z = nullptr;
  if (cache) {
    const auto rows = static_cast<std::size_t>(x.rows);
    if (cache->rstd.size() != rows) cache->rstd = DeviceBuffer<Acc<T>>(rows);
    if (cache->z.size() != rows * c.heads) cache->z = DeviceBuffer<Acc<T>>(rows * c.heads);
    rstd = cache->rstd.data();
    z = cache->z.data();
  }
  const i64 w = x.cols / c.heads;
  const int V =
      cond ? width_for(where, p, c, w, {x.data, y.data, cond->gamma_c.data, cond->eta_c.data},
                       {x.stride, y.stride, cond->gamma_c.stride, cond->eta_c.stride})
           : width_for(where, p, c, w, {x.data, y.data}, {x.stride, y.stride});
  // one head: rows_per_block rows a block; more: a row a block, its heads in
  // slices; a row the stash would not hold in parts (plan_forward). The
  // kernel's own shared memory: sigma(z_h) for each head of each row, and
  // with more heads a slices_sum slot per slice (rows_per_block is the slices)
  const auto own = [&](const Geometry& g) {
    return sizeof(Acc<T>) *
           (c.heads == 1 ? std::size_t(g.rows_per_block) : std::size_t(c.heads) + g.rows_per_block);
  };
  const ForwardPlan<Acc<T>> f =
      plan_forward<Acc<T>>(where, x.rows, x.cols, sizeof(T), V, c.heads, own, kSplitMaxThreads);
  const int units = c.heads > 1 ? c.heads / f.parts : 1;  // of a part: heads, or a slice
  with_vector_width<T>(V, [&](auto vc) {
    with_split(f.parts > 1, [&](auto split) {
      constexpr auto kernel = forward_kernel<Dev<T>, decltype(vc)::value, kAda, split()>;
      allow_dynamic_shared(where, kernel, f.smem);
      launch_cluster<kernel>(f.grid(), dim3(f.geo.group, f.geo.rows_per_block), f.blocks_a_row,
                             f.smem, stream, net(p, c, cond), dev(x), dev(y), Acc<T>(c.eps),
                             f.stash, rstd, z, f.parts, units, x.cols / f.parts / units, f.split);
    });
  });
  check_launch(where);
}

template <bool kAda, class T>
void run_backward(const char* where, const Params<T>& p, const Config& c, const Condition<T>* cond,
                  const Cache<T>& cache, Rows<const T> x, Rows<const T> dy, Rows<T> dx,
                  const Grads<T>& g, const ConditionGrads<T>* cg, Workspace& ws, Stream stream) {
  check_call(where, p, c, x, cond);
  check_backward_views(where, x, dy, dx);
  const auto rows = static_cast<std::size_t>(x.rows);
  require(cache.rstd.size() == rows && cache.z.size() == rows * c.heads, where,
          "expected a cache from forward on ", x.rows, " rows and ", c.heads, " heads, got ",
          cache.rstd.size(), " rows");
  require(!g.dalpha || c.alpha != AlphaForm::none, where, "dalpha asked for, but alpha is none");
  require(!g.dgamma || (p.gamma && !kAda), where, "dgamma asked for, but there is no gamma");
  std::vector<const void*> ptrs{x.data, dy.data, dx.data};
  std::vector<i64> strides{x.stride, dy.stride, dx.stride};
  Rows<T> dgc{}, dec{};
  if (cond) {
    ptrs.push_back(cond->gamma_c.data);
    strides.push_back(cond->gamma_c.stride);
    dgc = cg->dgamma_c;
    dec = cg->deta_c;
    for (Rows<T> r : {dgc, dec})
      if (r.data) {
        check_view(where, "d gamma(c) / d eta(c)", r);
        check_same_shape(where, "x", x, "d gamma(c) / d eta(c)", r);
        ptrs.push_back(r.data);
        strides.push_back(r.stride);
      }
  }
  const i64 w = x.cols / c.heads;
  const int V = width_for(where, p, c, w, ptrs, strides);
  using A = Acc<T>;
  const bool alpha_vector = c.alpha == AlphaForm::vector;
  const int sums = alpha_vector ? 3 : 2;
  // The row split where the sums would not fit on chip: a part is a slice of
  // the one head, or whole heads (a power of two dividing them)
  const i64 grid = grid_limit(where);
  int parts = row_slices(x.cols, sums, sizeof(A), 16 / sizeof(T), grid);
  while (c.heads > 1 && c.heads % parts != 0) parts /= 2;
  const int units = c.heads > 1 ? c.heads / parts : 1;  // segments of a part
  const i64 part = x.cols / parts, uw = part / units;   // a part's columns, a unit's
  const int threads = parts > 1 ? kBackwardThreads<kAda, true> : kBackwardThreads<kAda>;
  const Geometry geo = split_geometry(x.rows, uw, parts, V, grid, threads);
  const int slices = head_slices(units, geo.group, group_size(part, V, threads));
  const i64 count = 2 * x.cols + (alpha_vector ? x.cols : c.alpha == AlphaForm::scalar ? parts : 0);
  // each unit's dz and slices_sum's slots stay in shared memory whatever
  // happens to the sums
  const PartialPlan<A> plan = plan_partials<A>(where, ws, geo.blocks, count, sums * part,
                                               (units + slices) * sizeof(A), {parts, 2, x.rows});
  // both passes read x and dy (and AdaSeeDNorm's gamma(c)) over the part
  const bool back =
      second_pass_back_to_front(where, (kAda ? 3 : 2) * static_cast<std::size_t>(part) * sizeof(T),
                                plan, geo.blocks * parts, geo.group * slices);
  with_vector_width<T>(V, [&](auto vc) {
    with_split(parts > 1, [&](auto split) {
      constexpr auto kernel = backward_kernel<Dev<T>, decltype(vc)::value, kAda, split()>;
      allow_dynamic_shared(where, kernel, plan.smem);
      for (int k = 0; k < plan.launches(); ++k)
        launch_cluster<kernel>(geo.blocks * parts, dim3(geo.group, slices), plan.launch_cluster(),
                               plan.smem, stream, net(p, c, cond), dev(x), dev(dy), dev(dx),
                               dev(dgc), dev(dec), cache.rstd.data(), cache.z.data(), plan.partials,
                               plan.kept, plan.cluster, back, plan.split(k), part, units);
    });
  });
  check_launch(where);
  Outputs<Dev<T>> outs;
  outs.add(dev(g.dbeta), 0, x.cols);
  outs.add(kAda ? nullptr : dev(g.dgamma), x.cols, x.cols);
  if (c.alpha != AlphaForm::none) outs.add(dev(g.dalpha), 2 * x.cols, alpha_vector ? x.cols : 1);
  launch_sum_partials<Dev<T>>(
      plan, count, outs, SumLayout{uw, sums * units * parts, geo.group, V, parts, units}, stream);
}

}  // namespace

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream) {
  run_forward<false, T>("cuda::seednorm::forward", p, c, nullptr, x, y, cache, stream);
}

template <class T>
void backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws, Stream stream) {
  run_backward<false, T>("cuda::seednorm::backward", p, c, nullptr, cache, x, dy, dx, g, nullptr,
                         ws, stream);
}

template <class T>
void ada_forward(const Params<T>& p, const Config& c, const Condition<T>& cond, Rows<const T> x,
                 Rows<T> y, Cache<T>* cache, Stream stream) {
  run_forward<true, T>("cuda::seednorm::ada_forward", p, c, &cond, x, y, cache, stream);
}

template <class T>
void ada_backward(const Params<T>& p, const Config& c, const Condition<T>& cond,
                  const Cache<T>& cache, Rows<const T> x, Rows<const T> dy, Rows<T> dx,
                  const Grads<T>& g, const ConditionGrads<T>& cg, Workspace& ws, Stream stream) {
  run_backward<true, T>("cuda::seednorm::ada_backward", p, c, &cond, cache, x, dy, dx, g, &cg, ws,
                        stream);
}

#define SCALEREF_INSTANTIATE(T)                                                                \
  template void forward<T>(const Params<T>&, const Config&, Rows<const T>, Rows<T>, Cache<T>*, \
                           Stream);                                                            \
  template void backward<T>(const Params<T>&, const Config&, const Cache<T>&, Rows<const T>,   \
                            Rows<const T>, Rows<T>, const Grads<T>&, Workspace&, Stream);      \
  template void ada_forward<T>(const Params<T>&, const Config&, const Condition<T>&,           \
                               Rows<const T>, Rows<T>, Cache<T>*, Stream);                     \
  template void ada_backward<T>(const Params<T>&, const Config&, const Condition<T>&,          \
                                const Cache<T>&, Rows<const T>, Rows<const T>, Rows<T>,        \
                                const Grads<T>&, const ConditionGrads<T>&, Workspace&, Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::seednorm
