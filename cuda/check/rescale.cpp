// cuda_check's rescaling cases: UWR, ZWR, TVR (population and unbiased std,
// in place and out of place) and the authors' TVR (depth-scaled and rescaling;
// under its threshold: an exact copy), every dtype, against
// reference/include/scaleref/init/rescale.hpp in double on the same T-rounded W.
// W is drawn uniform in [-0.05, 0.15): mean 0.05, std 0.058, so the mean
// matters and TVR's sigma_target 0.02 shrinks W while ZWR's sigma_init 0.1
// grows it. Shapes: one row, one column (dense and strided), odd and padded
// widths, and matrices of 2^24 entries and more (where every block sums more
// than the minimum 2^14 entries and the chunk boundaries cut rows).
//
// Tolerance. The statistics accumulate in double for every storage type
// (rescale.hpp), so the table's entry is the fp64 one for a sum of n = rows x
// cols terms, (16 + n) 2^-53, plus the rounding of the result to T: 2^-24 for
// fp32, 2^-8 + 2^-24 for bf16 (double -> float -> bf16). The table's fp32 row,
// (16 + n) 2^-24, would be vacuous here: it reaches 1 at n = 2^24. atol is
// rtol times the terms' size, max(max |W|, max |reference|): the mean's error
// is relative to |W|'s entries, and it moves every rescaled entry. mu(W),
// sigma(W) and ||W||_F are compared (as 1 x 1 outputs) with the fp64 entry.
#include <algorithm>
#include <cstring>
#include <scaleref/cuda/rescale.hpp>
#include <scaleref/init/rescale.hpp>
#include <type_traits>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

namespace ref = ::scaleref::rescale;
namespace gpu = ::scaleref::cuda::rescale;

// The rounding of a double result to T, relative (see the file comment).
template <class T>
double storage_rounding() {
  if constexpr (std::is_same_v<T, double>) return 0.0;
  if constexpr (std::is_same_v<T, float>) return 0x1p-24;
  return 0x1p-8 + 0x1p-24;
}

template <class T>
Tolerance rescaled_tolerance(i64 n, double scale) {
  Tolerance t = tolerance(DType::f64, Kind::reduced, n, scale);
  t.rtol += storage_rounding<T>();
  t.atol = t.rtol * scale;
  if (!std::is_same_v<T, double>)
    t.why += std::is_same_v<T, float> ? " + 2^-24 (fp32 result; statistics in double)"
                                      : " + 2^-8 + 2^-24 (bf16 result via float; statistics "
                                        "in double)";
  t.why += "; scale = max(max|W|, max|ref|)";
  return t;
}

MatD scalar(double v) { return MatD::Constant(1, 1, v); }

// One statistic against the reference's: the fp64 entry for n terms of size `scale`.
void add_statistic(Report& r, const std::string& label, double got, double want, i64 n,
                   double scale) {
  r.add(label, scalar(got), scalar(want), tolerance(DType::f64, Kind::reduced, n, scale));
}

template <class T>
bool same_bits(const DeviceMatrix<T>& a, const DeviceMatrix<T>& b) {
  const std::vector<T> ha = a.buffer.download(), hb = b.buffer.download();
  return ha.size() == hb.size() && std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(T)) == 0;
}

const char* kind_name(gpu::StdKind k) { return spec::name_of(metrics::kStdKinds, k); }

// What every rule case shares: W on the device (NaN padding) and its rounded values.
template <class T>
struct Case {
  Shape s;
  MatD w;
  i64 n;
  double w_scale;
  Case(const Shape& shape, std::uint32_t tensor)
      : s(shape),
        w(draw<T>(tensor, shape.rows, shape.cols, -0.05, 0.15)),
        n(shape.rows * shape.cols),
        w_scale(max_abs(w)) {}
  DeviceMatrix<T> device() const { return DeviceMatrix<T>(w, s.stride); }
  DeviceMatrix<T> output() const { return DeviceMatrix<T>(MatD::Zero(s.rows, s.cols), s.stride); }
  // The rescaled matrix against the reference's, and the padding.
  void compare(Report& r, const std::string& name, const DeviceMatrix<T>& out,
               const MatD& want) const {
    r.add(label<T>(name.c_str(), s, "W'"), out.values(), want,
          rescaled_tolerance<T>(n, std::max(w_scale, max_abs(want))));
    expect_padding(r, label<T>(name.c_str(), s, "padding"), out);
  }
};

template <class T>
void uwr_case(Report& r, const Case<T>& c) {
  DeviceMatrix<T> W = c.device(), out = c.output();
  Workspace ws;
  const gpu::Outcome o = gpu::uwr<T>(W.cview(), out.view(), ws);
  synchronize();
  c.compare(r, "uwr", out, ref::uwr(c.w));
  const double norm = ref::frobenius_norm(c.w);
  add_statistic(r, label<T>("uwr", c.s, "||W||_F"), o.before, norm, c.n, norm);
}

// ZWR (sigma_init 0.1, out of place) or TVR (sigma_target 0.02, in place).
template <class T>
void to_target_case(Report& r, const Case<T>& c, bool zwr, gpu::StdKind kind) {
  const double target = zwr ? 0.1 : 0.02;
  const std::string name = std::string(zwr ? "zwr/" : "tvr/") + kind_name(kind);
  DeviceMatrix<T> W = c.device(), separate = c.output();
  DeviceMatrix<T>& out = zwr ? separate : W;
  Workspace ws;
  const gpu::Outcome o = zwr ? gpu::zwr<T>(W.cview(), out.view(), target, kind, ws)
                             : gpu::tvr<T>(W.cview(), out.view(), target, kind, ws);  // in place
  synchronize();
  const MatD want = zwr ? ref::zwr(c.w, target, kind) : ref::tvr(c.w, target, kind);
  c.compare(r, name, out, want);
  const auto m = ref::moments(c.w, kind);
  add_statistic(r, label<T>(name.c_str(), c.s, "mean"), o.mean, m.mean, c.n, c.w_scale);
  add_statistic(r, label<T>(name.c_str(), c.s, "std"), o.before, m.std, c.n, c.w_scale);
  r.expect(o.rescaled && o.target == target, label<T>(name.c_str(), c.s, "outcome"),
           "rescaled, with the target asked for");
}

// The authors' TVR as the reference's schedule runs it at decoder layer 4 with
// depth scaling: sigma_target 0.02 gives the target 0.01 (unbiased std 0.058:
// rescaled), 0.1 gives 0.05 (left alone: an exact copy).
template <class T>
void authors_case(Report& r, const Case<T>& c, double sigma_target) {
  const ref::Schedule schedule = ref::Schedule::tvr_authors_code(sigma_target, 50, 1.2, true);
  const ref::Outcome<double> want = ref::on_step(schedule, 50, 4, c.w);
  const std::string name = std::string("tvr-authors/") + (want.rescaled ? "above" : "below");
  DeviceMatrix<T> W = c.device(), out = c.output();
  Workspace ws;
  const gpu::Outcome o =
      gpu::tvr_authors_code<T>(W.cview(), out.view(), {sigma_target, 1.2, true, 4}, ws);
  synchronize();
  r.expect(o.rescaled == want.rescaled && o.target == want.target,
           label<T>(name.c_str(), c.s, "outcome"),
           want.rescaled ? "rescaled, with the reference's target"
                         : "left alone, with the reference's target");
  if (want.rescaled) {
    c.compare(r, name, out, want.W);
  } else {
    r.expect(same_bits(out, W), label<T>(name.c_str(), c.s, "W'"), "an exact copy of W");
  }
  add_statistic(r, label<T>(name.c_str(), c.s, "std"), o.before, want.before, c.n, c.w_scale);
}

template <class T>
void run_dtype(Report& r, const Shape& s) {
  const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
  const Case<T> c(s, 40);
  guarded(r, "uwr " + at, [&] { uwr_case<T>(r, c); });
  for (auto kind : {gpu::StdKind::population, gpu::StdKind::unbiased}) {
    guarded(r, std::string("zwr ") + at, [&] { to_target_case<T>(r, c, true, kind); });
    guarded(r, std::string("tvr ") + at, [&] { to_target_case<T>(r, c, false, kind); });
  }
  for (double sigma_target : {0.02, 0.1})
    guarded(r, "tvr-authors " + at, [&] { authors_case<T>(r, c, sigma_target); });
}

std::vector<Shape> rescale_shapes(bool quick) {
  if (quick) return {{1, 7, 7}, {9, 1, 1}, {5, 7, 9}, {33, 1023, 1040}, {512, 512, 512}};
  return {{1, 7, 7},         {9, 1, 1},          {13, 1, 3},        {5, 7, 9},
          {1, 65537, 65537}, {33, 1023, 1040},   {300, 300, 300},   {1100, 96, 100},
          {64, 4095, 4104},  {4096, 4096, 4096}, {4097, 4099, 4104}};
}

}  // namespace

Family rescale_family() {
  return {"rescale", [](Report& r, bool quick) {
            for (const Shape& s : rescale_shapes(quick)) {
              run_dtype<double>(r, s);
              run_dtype<float>(r, s);
              run_dtype<bf16>(r, s);
            }
          }};
}

}  // namespace scaleref::cuda::check
