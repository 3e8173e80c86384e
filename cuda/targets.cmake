# The CUDA targets of one backend: the kernel library, cuda_check and
# cuda_bench. Called twice: from cuda/CMakeLists.txt for nvcc (SUFFIX ""),
# and from cuda/emu/CMakeLists.txt for the CPU emulator (SUFFIX "_emu"), in
# whose directory the .cu sources are compiled as C++ by the host compiler.
# The sources are the same files; only the runtime they link differs.
#
#   scaleref_cuda_targets(SUFFIX <s> RUNTIME <targets...> [KERNEL_OPTIONS <options...>]
#                         [FMA] [NO_BENCH])
#
# FMA: the kernel library is compiled with a * b + c
# fused into one FMA wherever the compiler finds one (-ffp-contract=fast), the
# emulator's second arithmetic mode; otherwise never (-ffp-contract=off, the
# top-level CMakeLists.txt). NO_BENCH: no cuda_bench.
set(SCALEREF_CUDA_DIR ${CMAKE_CURRENT_LIST_DIR})

set(SCALEREF_CUDA_KERNEL_SOURCES
  src/device.cu src/philox_fill.cu src/buffer.cu
  src/rmsnorm.cu src/blas.cu
  src/layernorm.cu src/dyt.cu src/seednorm.cu src/sdd.cu
  src/scalevec.cu
  src/rescale.cu src/init_fill.cu)
list(TRANSFORM SCALEREF_CUDA_KERNEL_SOURCES PREPEND ${SCALEREF_CUDA_DIR}/)
set(SCALEREF_CUDA_BENCH_CU_SOURCES bench/timing.cu bench/unfused.cu)
list(TRANSFORM SCALEREF_CUDA_BENCH_CU_SOURCES PREPEND ${SCALEREF_CUDA_DIR}/)

function(scaleref_cuda_targets)
  cmake_parse_arguments(C "FMA;NO_BENCH" "SUFFIX" "RUNTIME;KERNEL_OPTIONS" ${ARGN})
  set(d ${SCALEREF_CUDA_DIR})
  set(lib scaleref_cuda${C_SUFFIX})
  add_library(${lib} STATIC ${SCALEREF_CUDA_KERNEL_SOURCES} ${d}/src/init.cpp)
  target_include_directories(${lib} PUBLIC ${d}/include)
  # RUNTIME may carry its own PRIVATE part (nvcc: cuBLAS), so it comes last.
  target_link_libraries(${lib} PUBLIC scaleref_flags ${C_RUNTIME})
  target_compile_options(${lib} PRIVATE ${C_KERNEL_OPTIONS})
  # The reference headers (the Philox generator, scaleref::Error, the spec headers of
  # scaleref/spec/) compile for the device too.
  target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR}/reference/include)
  # src/init.cpp (C++20, host) takes the initializers' laws from the reference's own
  # headers, which need Eigen and Boost; the .cu sources include neither.
  target_link_libraries(${lib} PRIVATE scaleref_reference)

  # cuda_check: every kernel against the reference (cuda/check/main.cpp). Host
  # code compiled as C++20 by the host compiler; the reference is linked as a library.
  add_executable(cuda_check${C_SUFFIX}
    ${d}/check/main.cpp ${d}/check/support.cpp
    ${d}/check/norms.cpp ${d}/check/sdd.cpp ${d}/check/scalevec.cpp ${d}/check/rescale.cpp
    ${d}/check/init.cpp ${d}/check/replay.cpp)
  target_link_libraries(cuda_check${C_SUFFIX} PRIVATE ${lib} scaleref_cuda_compare scaleref_reference)
  if(C_FMA)
    set_target_properties(${lib} PROPERTIES SCALEREF_FP_CONTRACT fast)
  endif()
  if(C_NO_BENCH)
    return()
  endif()

  # cuda_bench: the fused kernels against a device-to-device copy and against
  # unfused baselines of the same math (cuda/bench/; scripts/bench_cuda.sh runs it
  # with cuda/bench/bench_torch.py and merges both into cuda/results/).
  add_executable(cuda_bench${C_SUFFIX}
    ${d}/bench/cuda_bench.cpp ${d}/bench/ops.cpp ${d}/bench/report.cpp
    ${SCALEREF_CUDA_BENCH_CU_SOURCES})
  # detail/device.cuh: the bf16 <-> float conversions the baselines share with the kernels
  target_include_directories(cuda_bench${C_SUFFIX} PRIVATE ${d}/src)
  target_compile_options(cuda_bench${C_SUFFIX} PRIVATE ${C_KERNEL_OPTIONS})
  target_link_libraries(cuda_bench${C_SUFFIX} PRIVATE ${lib} nlohmann_json::nlohmann_json)
endfunction()

# cuda_check's judgement (check/compare.hpp over scaleref/oracle/tolerance.hpp)
# and the launch rules: header-only host code of either backend.
if(NOT TARGET scaleref_cuda_compare)
  add_library(scaleref_cuda_compare INTERFACE)
  target_include_directories(scaleref_cuda_compare INTERFACE ${SCALEREF_CUDA_DIR}/include
    ${PROJECT_SOURCE_DIR}/reference/include)
  target_link_libraries(scaleref_cuda_compare INTERFACE scaleref_flags)
endif()
