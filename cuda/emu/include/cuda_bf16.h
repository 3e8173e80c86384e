// The emulator's stand-in for <cuda_bf16.h> (cuda/emu/): bfloat16 storage and
// the conversions the kernels use, with CUDA's rounding: float -> bf16 to
// nearest even (a NaN stays a quiet NaN), bf16 -> float exact. The bit rules
// are the host API's own (scaleref/cuda/types.hpp), so host and emulated
// device round alike by construction.
#pragma once

#include <scaleref/cuda/types.hpp>

struct __nv_bfloat16 {
  unsigned short __x;
};
using nv_bfloat16 = __nv_bfloat16;

inline float __bfloat162float(__nv_bfloat16 h) { return scaleref::cuda::to_float({h.__x}); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return {scaleref::cuda::to_bf16(f).bits}; }
inline __nv_bfloat16 __float2bfloat16(float f) { return __float2bfloat16_rn(f); }
