// The emulator's stand-in for the CUDA toolkit's <cuda_runtime.h> (cuda/emu/):
// the runtime API the project calls and the device-side language the kernels
// use, for the host C++ compiler. Only on the include path of the emulator's
// targets; the real header is never mixed with it.
#pragma once

#include <scaleref/emu/device.hpp>
#include <scaleref/emu/runtime_api.hpp>
