// SCALEREF_HOST_DEVICE marks a function that compiles for the host and, under
// nvcc, for the device too (the Philox generator, the spec headers' formulas).
#pragma once

#if defined(__CUDACC__)
#define SCALEREF_HOST_DEVICE __host__ __device__
#else
#define SCALEREF_HOST_DEVICE
#endif
