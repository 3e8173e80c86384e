// The vocabulary of the GPU API, host side: storage types, the accumulator
// each one reduces in, a device matrix view, and the stream handle. No CUDA
// headers, so C++20 host programs (cuda_check, the tests) include it freely.
//
// Storage types: double, float and bf16 (bfloat16: 1 sign, 8 exponent and 7
// mantissa bits; the upper half of a float). Accumulation (row statistics,
// dot products, parameter-gradient sums) is in float for float and bf16 and
// in double for double (docs/design.md, "Storage and accumulation types").
#pragma once

#include <cstdint>
#include <cstring>
#include <scaleref/spec/common.hpp>
#include <type_traits>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace scaleref::cuda {

using Stream = CUstream_st*;  // nullptr: the default stream

// bfloat16 as stored: the 16 upper bits of an IEEE float. The device code
// reinterprets it as CUDA's __nv_bfloat16; the host converts with the same
// round-to-nearest-even rule as __float2bfloat16_rn.
struct bf16 {
  std::uint16_t bits = 0;
};

inline float to_float(bf16 h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline bf16 to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
    return bf16{static_cast<std::uint16_t>((u >> 16) | 0x0040u)};  // NaN stays a (quiet) NaN
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);       // ties to even
  return bf16{static_cast<std::uint16_t>((u + rounding) >> 16)};
}

// Storage value <-> double, for host programs that compare with the reference.
inline double to_double(double v) { return v; }
inline double to_double(float v) { return v; }
inline double to_double(bf16 v) { return to_float(v); }

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bf16>) {
    return to_bf16(static_cast<float>(v));  // double -> float -> bf16, as the device does
  } else {
    return static_cast<T>(v);
  }
}

enum class DType { f64, f32, bf16 };

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, double>) return DType::f64;
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  if constexpr (std::is_same_v<T, bf16>) return DType::bf16;
}

inline constexpr spec::NameTable<DType, 3> kDTypeNames{
    {{DType::f64, "fp64"}, {DType::f32, "fp32"}, {DType::bf16, "bf16"}}};
inline constexpr const char* dtype_name(DType t) { return spec::name_of(kDTypeNames, t); }

// The type a storage type accumulates in: double for double, float otherwise.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// A row-major [rows, cols] matrix in device memory: entry (i, j) at
// data[i * stride + j]. The last dimension is contiguous; stride >= cols lets
// a view pick columns out of a wider tensor (a slice of a fused QKV output).
template <class T>
struct Rows {
  T* data = nullptr;
  std::int64_t rows = 0, cols = 0, stride = 0;
};

// A dense [rows, cols] view (stride = cols).
template <class T>
Rows<T> dense(T* data, std::int64_t rows, std::int64_t cols) {
  return {data, rows, cols, cols};
}

// The read-only view of a view.
template <class T>
Rows<const T> as_const(Rows<T> r) {
  return {r.data, r.rows, r.cols, r.stride};
}

}  // namespace scaleref::cuda
