// Shadow of <c10/cuda/CUDAFunctions.h> for the host SIMT emulator: one device.
#pragma once
#include <cuda_runtime_api.h>
#include <c10/core/Device.h>

namespace c10 {
namespace cuda {
inline c10::DeviceIndex device_count() noexcept { return 1; }
inline c10::DeviceIndex current_device() { return 0; }
inline void set_device(c10::DeviceIndex, bool = false) {}
inline void device_synchronize() {}
}  // namespace cuda
}  // namespace c10
