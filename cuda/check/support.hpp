// What every cuda_check case shares (host code): inputs drawn from the
// project's Philox streams and rounded to the storage type, so the double
// reference sees exactly the values the GPU sees; device matrices whose
// padding (stride > cols) holds a NaN sentinel, checked untouched after the
// kernel ran; and the report that collects one comparison per output.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/eigen.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

#include "compare.hpp"

namespace scaleref::cuda::check {

using i64 = std::int64_t;
using MatD = Mat<double>;

// One case's data shape: rows x cols, rows stored `stride` entries apart.
struct Shape {
  i64 rows, cols, stride;
  std::string str() const;  // "64x4096" or "64x4095/s4104"
};

// rows x cols values uniform in [lo, hi), each rounded to T (so exactly
// representable in T), drawn from stream (seed, tensor).
template <class T>
MatD draw(std::uint32_t tensor, i64 rows, i64 cols, double lo, double hi) {
  MatD m(rows, cols);
  for (i64 k = 0; k < m.size(); ++k) {
    const double u = random::uniform(20261122, tensor, static_cast<std::uint64_t>(k));
    m.data()[k] = to_double(from_double<T>(lo + (hi - lo) * u));
  }
  return m;
}

// A matrix on the device with its host copy's shape and stride; padding
// entries hold a quiet NaN so a kernel that reads them poisons its result.
template <class T>
struct DeviceMatrix {
  DeviceBuffer<T> buffer;
  i64 rows = 0, cols = 0, stride = 0;

  DeviceMatrix(const MatD& m, i64 stride_) : rows(m.rows()), cols(m.cols()), stride(stride_) {
    std::vector<T> host(static_cast<std::size_t>(rows * stride),
                        from_double<T>(std::numeric_limits<double>::quiet_NaN()));
    for (i64 i = 0; i < rows; ++i)
      for (i64 j = 0; j < cols; ++j) host[i * stride + j] = from_double<T>(m(i, j));
    buffer = DeviceBuffer<T>(host);
  }
  // A dense 1 x n row (a parameter vector).
  explicit DeviceMatrix(const MatD& m) : DeviceMatrix(m, m.cols()) {}

  Rows<T> view() { return {buffer.data(), rows, cols, stride}; }
  Rows<const T> cview() { return {buffer.data(), rows, cols, stride}; }
  T* data() { return buffer.data(); }

  // The values, and whether every padding entry still holds its NaN.
  MatD values(bool* padding_intact = nullptr) const {
    const std::vector<T> host = buffer.download();
    MatD m(rows, cols);
    bool intact = true;
    for (i64 i = 0; i < rows; ++i)
      for (i64 j = 0; j < stride; ++j) {
        const double v = to_double(host[i * stride + j]);
        if (j < cols) {
          m(i, j) = v;
        } else if (!std::isnan(v)) {
          intact = false;
        }
      }
    if (padding_intact) *padding_intact = intact;
    return m;
  }
};

// The comparisons of one run of cuda_check.
class Report {
 public:
  // Compares one output; `label` names kernel, dtype, shape and output.
  void add(const std::string& label, const MatD& got, const MatD& want, const Tolerance& tol);
  // Records a failure that is not a comparison (padding overwritten, an Error).
  void fail(const std::string& label, const std::string& what);
  // A yes/no check (bitwise equality): prints PASS or FAIL with `what`.
  void expect(bool ok, const std::string& label, const std::string& what);
  int failures() const { return failures_; }
  int checks() const { return checks_; }
  double worst_used() const { return worst_used_; }

 private:
  int failures_ = 0, checks_ = 0;
  double worst_used_ = 0;
};

// Compares with the table's tolerance for dtype T, sized from the reference.
template <class T>
void add(Report& r, const std::string& label, const MatD& got, const MatD& want, Kind kind,
         i64 terms, int roundings = 1) {
  r.add(label, got, want, tolerance(dtype_of<T>(), kind, terms, max_abs(want), roundings));
}

// Reports a failure unless every padding entry of m still holds its NaN.
template <class T>
void expect_padding(Report& r, const std::string& label, const DeviceMatrix<T>& m) {
  bool intact = true;
  m.values(&intact);
  if (!intact) r.fail(label, "a kernel wrote into the row padding (stride > cols)");
}

// "rmsnorm fp32 64x4095/s4104 dx"
template <class T>
std::string label(const char* kernel, const Shape& s, const char* output) {
  return std::string(kernel) + " " + dtype_name(dtype_of<T>()) + " " + s.str() + " " + output;
}

// One kernel family's cases for every dtype and shape; registered in main.cpp.
struct Family {
  const char* name;
  std::function<void(Report&, bool quick)> run;
};

std::vector<Shape> norm_shapes(bool quick);

// Runs one case, turning an Error (a rejected shape, a CUDA failure) into a FAIL line.
template <class F>
void guarded(Report& r, const std::string& what, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    r.fail(what, e.what());
  }
}  // the shape grid every row kernel runs on

}  // namespace scaleref::cuda::check
