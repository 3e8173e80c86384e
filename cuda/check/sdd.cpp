// cuda_check's SDD cases: the layer (cuBLAS z = x V^T, then the RMSNorm
// epilogue with gain alpha) and its backward, against reference sdd::layer,
// with eps = 0 (the paper's norm) and 1e-6 (the authors' code).
//
// Tolerance: y depends on the GEMM's d_in-term sums and the norm's d_out-term
// row sum, and z is stored in T before the epilogue reads it (2 storage
// roundings); dx and dV go through dz (stored in T) and a second GEMM of
// d_out (dx) or N (dV) terms (3 roundings); dalpha sums N rows.
#include <cstring>
#include <scaleref/cuda/sdd.hpp>
#include <scaleref/sdd/layer.hpp>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

struct SddShape {
  i64 n, d_in, d_out, x_stride;
  std::string str() const {
    std::string s = std::to_string(n) + "x" + std::to_string(d_in) + "->" + std::to_string(d_out);
    if (x_stride != d_in) s += "/s" + std::to_string(x_stride);
    return s;
  }
};

template <class T>
void sdd_case(Report& r, Blas& blas, const SddShape& s, double eps) {
  const MatD x = draw<T>(20, s.n, s.d_in, -1, 1), dy = draw<T>(23, s.n, s.d_out, -1, 1);
  const MatD V = draw<T>(21, s.d_out, s.d_in, -0.5, 0.5), alpha = draw<T>(22, 1, s.d_out, 0.5, 1.5);
  DeviceMatrix<T> X(x, s.x_stride), DY(dy, s.d_out), VV(V, s.d_in), A(alpha),
      Y(MatD::Zero(s.n, s.d_out), s.d_out), DX(MatD::Zero(s.n, s.d_in), s.x_stride),
      DV(MatD::Zero(s.d_out, s.d_in), s.d_in), DA(MatD::Zero(1, s.d_out));
  sdd::Cache<T> cache;
  Workspace ws;
  const sdd::Params<T> p{VV.cview(), A.data()};
  sdd::forward<T>(blas, p, {eps}, X.cview(), Y.view(), &cache);
  DeviceMatrix<T> Y2(MatD::Zero(s.n, s.d_out), s.d_out);  // no cache: z lives in y
  sdd::forward<T>(blas, p, {eps}, X.cview(), Y2.view(), nullptr);
  sdd::backward<T>(blas, p, {eps}, cache, X.cview(), DY.cview(), DX.view(), {DV.view(), DA.data()},
                   ws);
  synchronize();

  const scaleref::sdd::Params<double> ph{V, alpha};
  scaleref::sdd::Cache<double> k;
  const MatD y = scaleref::sdd::forward(ph, {eps}, x, &k);
  const auto g = scaleref::sdd::backward(ph, {eps}, k, dy);
  const std::string name = eps == 0 ? "sdd" : "sdd/eps";
  const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
  const auto lab = [&](const char* out) { return name + " " + at + " " + out; };
  add<T>(r, lab("y"), Y.values(), y, Kind::reduced, s.d_in + s.d_out, 2);
  const std::vector<T> with = Y.buffer.download(), without = Y2.buffer.download();
  r.expect(std::memcmp(with.data(), without.data(), with.size() * sizeof(T)) == 0,
           lab("y without a cache"), "the same bits as with one (z normalized in place in y)");
  // dz = r g - r z_hat mean(g z_hat), g = dy (.) alpha, can cancel far below its
  // terms (d_out = 1: dz = r g (1 - z_hat^2), which is 0 at eps = 0 and ~eps / z^2
  // of r g otherwise), and dx = dz V, dV = dz^T x carry that error: their atol is
  // relative to the terms' size, |dz|'s terms through |V| and |x| (as norms.cpp's dx).
  const MatD gg = dy.array().rowwise() * alpha.row(0).array();
  const MatD mean_gz = gg.cwiseProduct(k.z_hat).rowwise().sum() / static_cast<double>(s.d_out);
  const MatD dz_terms = (k.r.col(0).asDiagonal() * gg).cwiseAbs() +
                        (k.r.cwiseProduct(mean_gz).col(0).asDiagonal() * k.z_hat).cwiseAbs();
  const DType t = dtype_of<T>();
  r.add(lab("dx"), DX.values(), g.dx,
        tolerance(t, Kind::reduced, 2 * s.d_out, max_abs(MatD(dz_terms * V.cwiseAbs())), 3));
  r.add(lab("dV"), DV.values(), g.dV,
        tolerance(t, Kind::reduced, s.n + s.d_out,
                  max_abs(MatD(dz_terms.transpose() * x.cwiseAbs())), 3));
  add<T>(r, lab("dalpha"), DA.values(), g.dalpha, Kind::reduced, s.n, 2);
  expect_padding(r, lab("dx padding"), DX);
}

template <class T>
void run_dtype(Report& r, Blas& blas, bool quick) {
  std::vector<SddShape> shapes{{5, 7, 9, 7}, {33, 100, 64, 104}, {64, 256, 256, 256}};
  if (!quick) {
    shapes.push_back({1, 1, 1, 1});
    shapes.push_back({300, 1023, 513, 1024});
    shapes.push_back({128, 1024, 4096, 1024});
  }
  for (const SddShape& s : shapes)
    for (double eps :
         {scaleref::sdd::Config::paper().eps, scaleref::sdd::Config::authors_code().eps})
      guarded(r, std::string("sdd ") + dtype_name(dtype_of<T>()) + " " + s.str(),
              [&] { sdd_case<T>(r, blas, s, eps); });
}

}  // namespace

Family sdd_family() {
  return {"sdd", [](Report& r, bool quick) {
            Blas blas;
            run_dtype<double>(r, blas, quick);
            run_dtype<float>(r, blas, quick);
            run_dtype<bf16>(r, blas, quick);
          }};
}

}  // namespace scaleref::cuda::check
