// Shadow of <c10/cuda/CUDAStream.h> for the host SIMT emulator: one synchronous "stream" (null).
#pragma once
#include <cuda_runtime_api.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <cstdint>

namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  CUDAStream() = default;
  explicit CUDAStream(c10::Stream) {}
  cudaStream_t stream() const { return nullptr; }
  operator cudaStream_t() const { return stream(); }
  c10::DeviceIndex device_index() const { return 0; }
  c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
  c10::StreamId id() const { return 0; }
  int priority() const { return 0; }
  bool query() const { return true; }
  void synchronize() const {}
  c10::Stream unwrap() const { return c10::Stream(c10::Stream::DEFAULT, device()); }
  operator c10::Stream() const { return unwrap(); }
  bool operator==(const CUDAStream&) const { return true; }
  bool operator!=(const CUDAStream&) const { return false; }
};
inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) { return CUDAStream(); }
inline CUDAStream getDefaultCUDAStream(c10::DeviceIndex = -1) { return CUDAStream(); }
inline CUDAStream getStreamFromPool(bool = false, c10::DeviceIndex = -1) { return CUDAStream(); }
inline CUDAStream getStreamFromPool(int, c10::DeviceIndex = -1) { return CUDAStream(); }
inline void setCurrentCUDAStream(CUDAStream) {}
}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::setCurrentCUDAStream;
}  // namespace cuda
}  // namespace at
