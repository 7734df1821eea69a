// Shadow of <cuda_runtime.h> for the host SIMT emulator (verify_kernel.simt puts this directory
// first on the include path and includes this header at the top of the CUDA sources, as nvcc does).
#pragma once
#if !defined(VK_SIMT)
#error "csrc/simt/shadow is for host SIMT emulation builds (VK_SIMT) only"
#endif
#include "simt/qualifiers.h"
#include <cuda_runtime_api.h>
#include "simt/device_api.h"
#include "simt/launch.h"
// cudaLaunchKernelEx(&config, kernel, args...): the emulator's launch, named after the kernel expression (simt/launch.h)
#define cudaLaunchKernelEx(config, kernel, ...) ::vk_simt::launch_ex(#kernel, __FILE__, __LINE__, config, kernel, ##__VA_ARGS__)
