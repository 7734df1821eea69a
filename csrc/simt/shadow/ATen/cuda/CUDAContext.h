// Shadow of <ATen/cuda/CUDAContext.h> for the host SIMT emulator: the current stream (null,
// synchronous) and the emulated device's properties (verify_kernel.simt.set_device).
#pragma once
#include <cuda_runtime_api.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

namespace at {
namespace cuda {
inline cudaDeviceProp* getDeviceProperties(c10::DeviceIndex = -1) {
  static thread_local cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);  // refreshed: the emulated device can change between calls
  return &prop;
}
inline cudaDeviceProp* getCurrentDeviceProperties() { return getDeviceProperties(); }
inline int warp_size() { return 32; }
inline bool is_available() { return true; }
inline c10::DeviceIndex device_count() { return 1; }
inline c10::DeviceIndex current_device() { return 0; }
inline int getNumGPUs() { return 1; }
}  // namespace cuda
}  // namespace at
