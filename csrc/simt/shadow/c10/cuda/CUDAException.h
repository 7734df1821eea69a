// Shadow of <c10/cuda/CUDAException.h> for the host SIMT emulator.
#pragma once
#include <cuda_runtime_api.h>
#include <c10/util/Exception.h>

#define C10_CUDA_CHECK(EXPR)                                                              \
  do {                                                                                    \
    const cudaError_t vk_simt_err_ = (EXPR);                                              \
    TORCH_CHECK(vk_simt_err_ == cudaSuccess, "CUDA error: ", cudaGetErrorString(vk_simt_err_)); \
  } while (0)
#define C10_CUDA_CHECK_WARN(EXPR) \
  do {                            \
    (void)(EXPR);                 \
  } while (0)
#define C10_CUDA_IGNORE_ERROR(EXPR) \
  do {                              \
    (void)(EXPR);                   \
    (void)cudaGetLastError();       \
  } while (0)
#define C10_CUDA_CLEAR_ERROR() (void)cudaGetLastError()
#define C10_CUDA_ERROR_HANDLED(EXPR) EXPR
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
