// Shadow of <c10/cuda/CUDAStream.h> for the host SIMT emulator: a stream is an id (verify_kernel.simt.Stream; 0 the default
// stream) that launches record; every launch runs synchronously whatever its stream.
#pragma once
#include <cuda_runtime_api.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <cstdint>

extern "C" unsigned long long vk_simt_current_stream(void);
extern "C" void vk_simt_set_current_stream(unsigned long long s);

namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  CUDAStream() = default;
  explicit CUDAStream(c10::Stream) {}
  explicit CUDAStream(unsigned long long id) : id_(id) {}
  cudaStream_t stream() const { return reinterpret_cast<cudaStream_t>(id_); }
  operator cudaStream_t() const { return stream(); }
  c10::DeviceIndex device_index() const { return 0; }
  c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
  c10::StreamId id() const { return c10::StreamId(id_); }
  int priority() const { return 0; }
  bool query() const { return true; }
  void synchronize() const {}
  c10::Stream unwrap() const { return c10::Stream(c10::Stream::DEFAULT, device()); }
  operator c10::Stream() const { return unwrap(); }
  bool operator==(const CUDAStream& o) const { return id_ == o.id_; }
  bool operator!=(const CUDAStream& o) const { return id_ != o.id_; }
 private:
  unsigned long long id_ = 0;
};
inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) { return CUDAStream(vk_simt_current_stream()); }
inline CUDAStream getDefaultCUDAStream(c10::DeviceIndex = -1) { return CUDAStream(); }
inline CUDAStream getStreamFromPool(bool = false, c10::DeviceIndex = -1) { return CUDAStream(); }
inline CUDAStream getStreamFromPool(int, c10::DeviceIndex = -1) { return CUDAStream(); }
inline void setCurrentCUDAStream(CUDAStream s) { vk_simt_set_current_stream(static_cast<unsigned long long>(s.id())); }
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
