// Shadow of <c10/cuda/CUDAGuard.h> for the host SIMT emulator: one device, nothing to switch. The
// guards accept any device (the emulator's tensors are CPU tensors).
#pragma once
#include <c10/cuda/CUDAStream.h>
#include <c10/core/Device.h>
#include <optional>

namespace c10 {
namespace cuda {
struct CUDAGuard {
  CUDAGuard() = delete;
  template <class T> explicit CUDAGuard(const T&) {}
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  template <class T> void set_device(const T&) {}
  template <class T> void reset_device(const T&) {}
  void set_index(c10::DeviceIndex) {}
  c10::Device original_device() const { return c10::Device(c10::DeviceType::CPU); }
  c10::Device current_device() const { return c10::Device(c10::DeviceType::CPU); }
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard() = default;
  template <class T> explicit OptionalCUDAGuard(const T&) {}
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;
  template <class T> void set_device(const T&) {}
  template <class T> void reset_device(const T&) {}
  void set_index(c10::DeviceIndex) {}
  std::optional<c10::Device> original_device() const { return std::nullopt; }
  std::optional<c10::Device> current_device() const { return std::nullopt; }
  void reset() {}
};
struct CUDAStreamGuard {
  template <class T> explicit CUDAStreamGuard(const T&) {}
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  template <class T> void reset_stream(const T&) {}
  CUDAStream original_stream() const { return CUDAStream(); }
  CUDAStream current_stream() const { return CUDAStream(); }
};
struct OptionalCUDAStreamGuard {
  OptionalCUDAStreamGuard() = default;
  template <class T> explicit OptionalCUDAStreamGuard(const T&) {}
  OptionalCUDAStreamGuard(const OptionalCUDAStreamGuard&) = delete;
  template <class T> void reset_stream(const T&) {}
  void reset() {}
};
struct CUDAMultiStreamGuard {
  template <class T> explicit CUDAMultiStreamGuard(const T&) {}
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard&) = delete;
};
}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAMultiStreamGuard;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::OptionalCUDAStreamGuard;
}  // namespace cuda
}  // namespace at
