// The CUDA runtime API on the emulator (declared in scaleref/emu/runtime_api.hpp):
// errors, the device's properties (an H100's limits), copies and fills with
// their pointers checked, synchronous streams and events, and the
// per-kernel shared-memory opt-in.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <scaleref/emu/launch.hpp>
#include <string>

#include "internal.hpp"

namespace scaleref::emu {

namespace {

constexpr std::size_t kDefaultShared = 48 * 1024;  // per block without opting in
constexpr std::size_t kOptInShared = 227 * 1024;   // per block after cudaFuncSetAttribute
constexpr std::size_t kGlobalBytes = std::size_t(80) << 30;

struct Errors {
  cudaError_t last = cudaSuccess;     // for cudaGetLastError
  cudaError_t pending = cudaSuccess;  // for the next synchronizing call
  std::map<int, std::string> text;    // the latest detail of each code
};

Errors& errors() {
  thread_local Errors e;
  return e;
}

std::mutex g_attr_mutex;
std::map<const void*, std::size_t>& shared_limits() {
  static std::map<const void*, std::size_t> m;
  return m;
}

// The pending error of an earlier launch, else `e`; clears the pending one.
cudaError_t synchronizing(cudaError_t e = cudaSuccess) {
  Errors& s = errors();
  const cudaError_t p = s.pending;
  s.pending = cudaSuccess;
  return p != cudaSuccess ? p : e;
}

const char* standard_text(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer:
      return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorMisalignedAddress:
      return "misaligned address";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
  }
  return "unknown error";
}

// Checks that a copy's device side lies in device memory.
cudaError_t check_side(const char* call, const char* side, const void* p, std::size_t bytes) {
  if (memory::is_device(p, bytes)) return cudaSuccess;
  char b[200];
  std::snprintf(b, sizeof b,
                "%s: the %s range [%p, +%zu bytes) is not inside one device "
                "allocation",
                call, side, p, bytes);
  return record_error(cudaErrorInvalidValue, b);
}

cudaError_t copy(const char* call, void* dst, const void* src, std::size_t bytes,
                 cudaMemcpyKind kind) {
  if (bytes == 0) return synchronizing();
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return record_error(cudaErrorInvalidMemcpyDirection, call);
  if (dst_dev)
    if (cudaError_t e = check_side(call, "destination", dst, bytes)) return e;
  if (src_dev) {
    if (cudaError_t e = check_side(call, "source", src, bytes)) return e;
    // initcheck: compute-sanitizer reports such a copy's source too
    if (const std::string k = checks::unwritten(src, bytes); !k.empty())
      return record_error(cudaErrorInvalidValue,
                          std::string("initcheck: ") + call + " copies " + k +
                              ", which nothing wrote since cudaMalloc "
                              "(no copy, memset, cuBLAS call or kernel store)");
  }
  std::memmove(dst, src, bytes);
  if (dst_dev) checks::written(dst, bytes);
  return synchronizing();
}

}  // namespace

cudaError_t record_error(cudaError_t code, std::string detail) {
  Errors& s = errors();
  s.text[code] = std::string(standard_text(code)) + " (scaleref emulator: " + detail + ")";
  s.last = code;
  if (code == cudaErrorLaunchFailure || code == cudaErrorIllegalAddress) s.pending = code;
  return code;
}

std::size_t dynamic_shared_limit(const void* kernel) {
  const std::lock_guard lock(g_attr_mutex);
  const auto it = shared_limits().find(kernel);
  return it == shared_limits().end() ? kDefaultShared : it->second;
}

StaticSharedBudget static_shared_budget(const void* kernel, std::size_t dynamic_bytes) {
  const std::lock_guard lock(g_attr_mutex);
  const auto it = shared_limits().find(kernel);
  if (it == shared_limits().end())
    return {dynamic_bytes <= kDefaultShared ? kDefaultShared - dynamic_bytes : 0,
            std::to_string(dynamic_bytes) + " bytes of dynamic shared memory leave of the " +
                std::to_string(kDefaultShared) + " a block gets without opting in"};
  return {kOptInShared - it->second,
          "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, " +
              std::to_string(it->second) + ") leaves of the " + std::to_string(kOptInShared) +
              " one block may opt in to (a GPU refuses the attribute itself)"};
}

}  // namespace scaleref::emu

using namespace scaleref::emu;

extern "C" {

const char* cudaGetErrorString(cudaError_t e) {
  const auto& text = errors().text;
  const auto it = text.find(e);
  return it != text.end() ? it->second.c_str() : standard_text(e);
}

const char* cudaGetErrorName(cudaError_t e) { return standard_text(e); }

cudaError_t cudaGetLastError() {
  Errors& s = errors();
  const cudaError_t e = s.last;
  s.last = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() { return errors().last; }

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record_error(cudaErrorInvalidValue, "cudaGetDeviceCount: null pointer");
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return record_error(cudaErrorInvalidValue, "cudaGetDevice: null pointer");
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess
                     : record_error(cudaErrorInvalidDevice, "the emulator has device 0 only");
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (!p) return record_error(cudaErrorInvalidValue, "cudaGetDeviceProperties: null pointer");
  if (device != 0) return record_error(cudaErrorInvalidDevice, "the emulator has device 0 only");
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "scaleref CPU emulator (H100 limits)");
  p->totalGlobalMem = kGlobalBytes;
  p->sharedMemPerBlock = kDefaultShared;
  p->sharedMemPerBlockOptin = kOptInShared;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = static_cast<int>(options().max_grid_x);
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 132;
  p->l2CacheSize = options().l2_bytes;
  p->memoryBusWidth = 5120;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  cudaDeviceProp p;
  if (!value) return record_error(cudaErrorInvalidValue, "cudaDeviceGetAttribute: null pointer");
  if (cudaError_t e = cudaGetDeviceProperties(&p, device)) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY:
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[attr - cudaDevAttrMaxBlockDimX];
      break;
    case cudaDevAttrMaxGridDimX:
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[attr - cudaDevAttrMaxGridDimX];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = 2619000;  // kHz
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrClusterLaunch:  // launch_cluster_kernel (launch.hpp)
      *value = 1;
      break;
    default:
      return record_error(
          cudaErrorInvalidValue,
          "cudaDeviceGetAttribute: attribute " + std::to_string(int(attr)) + " is not emulated");
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return synchronizing(); }

cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (!free || !total) return record_error(cudaErrorInvalidValue, "cudaMemGetInfo: null pointer");
  *total = kGlobalBytes;
  const std::size_t used = device_bytes_in_use();
  *free = used < kGlobalBytes ? kGlobalBytes - used : 0;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) { return allocate(ptr, bytes); }
cudaError_t cudaFree(void* ptr) { return synchronizing(release(ptr)); }
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return release(ptr); }

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  return copy("cudaMemcpy", dst, src, bytes, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  return copy("cudaMemcpyAsync", dst, src, bytes, kind);
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                              std::size_t width, std::size_t height, cudaMemcpyKind kind,
                              cudaStream_t) {
  if (width > dpitch || width > spitch)
    return record_error(cudaErrorInvalidValue, "cudaMemcpy2DAsync: width exceeds a pitch");
  for (std::size_t r = 0; r < height; ++r)
    if (cudaError_t e = copy("cudaMemcpy2DAsync", static_cast<char*>(dst) + r * dpitch,
                             static_cast<const char*>(src) + r * spitch, width, kind))
      return e;
  return cudaSuccess;
}

cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (bytes == 0) return synchronizing();
  if (cudaError_t e = check_side("cudaMemset", "destination", dst, bytes)) return e;
  std::memset(dst, value, bytes);
  checks::written(dst, bytes);
  return synchronizing();
}

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(dst, value, bytes);
}

}  // extern "C"

// Streams and events: work is done when a call returns, so a stream is a
// handle and an event a time stamp.
struct CUstream_st {
  int id;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
  bool recorded = false;
};

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return record_error(cudaErrorInvalidValue, "cudaStreamCreate: null pointer");
  *s = new CUstream_st{1};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return synchronizing(); }

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return record_error(cudaErrorInvalidValue, "cudaEventCreate: null pointer");
  *e = new CUevent_st{};
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return record_error(cudaErrorInvalidResourceHandle, "cudaEventRecord: null event");
  e->at = std::chrono::steady_clock::now();
  e->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (!e) return record_error(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: null event");
  return synchronizing();
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b || !a->recorded || !b->recorded)
    return record_error(cudaErrorInvalidResourceHandle,
                        "cudaEventElapsedTime: an event that was never recorded");
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
    return record_error(cudaErrorInvalidValue, "cudaFuncSetAttribute: attribute " +
                                                   std::to_string(int(attr)) + " is not emulated");
  if (value < 0 || static_cast<std::size_t>(value) > kOptInShared)
    return record_error(cudaErrorInvalidValue,
                        "cudaFuncSetAttribute: " + std::to_string(value) +
                            " bytes of dynamic shared memory asked for; a block may opt in to "
                            "at most " +
                            std::to_string(kOptInShared));
  const std::lock_guard lock(g_attr_mutex);
  shared_limits()[func] = static_cast<std::size_t>(value);
  return cudaSuccess;
}

}  // extern "C"
