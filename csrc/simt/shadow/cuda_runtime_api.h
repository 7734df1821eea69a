// Shadow of <cuda_runtime_api.h> for the host SIMT emulator: the host API calls launch code uses,
// answered by the emulated device (verify_kernel.simt.set_device). Types and enums are the CUDA
// toolkit's own (driver_types.h), so code that compiles here compiles against the real runtime.
// Streams are synchronous; memory is host memory (cudaMemcpy* is memcpy, cudaMalloc is malloc).
#pragma once
#if !defined(VK_SIMT)
#error "csrc/simt/shadow is for host SIMT emulation builds (VK_SIMT) only"
#endif
#include "simt/qualifiers.h"
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <driver_types.h>
#include <vector_functions.h>
#include <vector_types.h>
#include "simt/runtime.h"

#define CUDART_VERSION 13000

VK_SIMT_API const char* vk_simt_error_string(int code, int name_only);

inline const char* cudaGetErrorName(cudaError_t e) { return vk_simt_error_string(int(e), 1); }
// The emulator's detailed message when `e` is the last error it recorded, else CUDA's text.
inline const char* cudaGetErrorString(cudaError_t e) { return vk_simt_error_string(int(e), 0); }
inline cudaError_t cudaGetLastError() { return cudaError_t(vk_simt_get_last_error(1)); }
inline cudaError_t cudaPeekAtLastError() { return cudaError_t(vk_simt_get_last_error(0)); }
namespace vk_simt {
inline cudaError_t api_error(cudaError_t e, const char* detail) {
  vk_simt_set_last_error(int(e), detail);
  return e;
}
inline VkSimtProps props() {
  VkSimtProps p;
  vk_simt_get_props(&p);
  return p;
}
}  // namespace vk_simt

// ------------------------------------------------------------------------------------ devices
inline cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : vk_simt::api_error(cudaErrorInvalidDevice, "cudaSetDevice: the emulator has one device (0)");
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int device) {
  if (device != 0) return vk_simt::api_error(cudaErrorInvalidDevice, "cudaDeviceGetAttribute: the emulator has one device (0)");
  const VkSimtProps p = vk_simt::props();
  switch (attr) {
    case cudaDevAttrMultiProcessorCount: *v = p.sm_count; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = p.smem_per_block; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = p.smem_optin; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = p.smem_per_sm; break;
    case cudaDevAttrMaxThreadsPerBlock: *v = p.max_threads_per_block; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.max_threads_per_sm; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regs_per_block; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regs_per_sm; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.max_blocks_per_sm; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.cc_major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.cc_minor; break;
    case cudaDevAttrL2CacheSize: *v = p.l2_bytes; break;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: *v = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *v = 64; break;
    case cudaDevAttrMaxGridDimX: *v = 2147483647; break;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: *v = 65535; break;
    case cudaDevAttrClockRate: *v = p.clock_khz; break;
    case cudaDevAttrMemoryClockRate: *v = p.mem_clock_khz; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.mem_bus_width; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *v = 1024; break;
    default:
      return vk_simt::api_error(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute not emulated");
  }
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return vk_simt::api_error(cudaErrorInvalidDevice, "cudaGetDeviceProperties: the emulator has one device (0)");
  const VkSimtProps p = vk_simt::props();
  memset(prop, 0, sizeof *prop);
  strncpy(prop->name, p.name, sizeof prop->name - 1);
  prop->totalGlobalMem = size_t(p.global_mem);
  prop->sharedMemPerBlock = size_t(p.smem_per_block);
  prop->regsPerBlock = p.regs_per_block;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = p.max_threads_per_block;
  prop->maxThreadsDim[0] = 1024; prop->maxThreadsDim[1] = 1024; prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647; prop->maxGridSize[1] = 65535; prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 65536;
  prop->major = p.cc_major;
  prop->minor = p.cc_minor;
  prop->multiProcessorCount = p.sm_count;
  prop->memoryBusWidth = p.mem_bus_width;
  prop->l2CacheSize = p.l2_bytes;
  prop->maxThreadsPerMultiProcessor = p.max_threads_per_sm;
  prop->sharedMemPerMultiprocessor = size_t(p.smem_per_sm);
  prop->regsPerMultiprocessor = p.regs_per_sm;
  prop->sharedMemPerBlockOptin = size_t(p.smem_optin);
  prop->maxBlocksPerMultiProcessor = p.max_blocks_per_sm;
  prop->reservedSharedMemPerBlock = 1024;
  prop->concurrentKernels = 1;
  prop->unifiedAddressing = 1;
  prop->cooperativeLaunch = 1;
  return cudaSuccess;
}
#if !defined(cudaGetDeviceProperties_v2)
inline cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* prop, int device) { return cudaGetDeviceProperties(prop, device); }
#endif

// ------------------------------------------------------------------------------------ kernels
inline cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize)
    return cudaError_t(vk_simt_func_set_max_dyn_smem(func, value));
  return cudaSuccess;  // carve-out preferences and the like: accepted, no effect
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(entry), attr, value);
}
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* func) {
  const VkSimtProps p = vk_simt::props();
  memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = p.max_threads_per_block;
  a->maxDynamicSharedSizeBytes = vk_simt_func_get_max_dyn_smem(func);
  a->ptxVersion = a->binaryVersion = p.cc_major * 10 + p.cc_minor;
  return cudaSuccess;  // registers, local and static shared sizes are unknown here (see the static gates)
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, T* entry) {
  return cudaFuncGetAttributes(a, reinterpret_cast<const void*>(entry));
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T*, cudaFuncCache) { return cudaSuccess; }
// Resident blocks per SM from the thread and shared-memory limits (registers are not known on the
// host: the static gates compute occupancy with ptxas's register counts).
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* func, int block_size,
                                                                 size_t dyn_smem) {
  const VkSimtProps p = vk_simt::props();
  if (block_size <= 0) return vk_simt::api_error(cudaErrorInvalidValue, "cudaOccupancyMaxActiveBlocksPerMultiprocessor: block size must be > 0");
  const int warps = (block_size + 31) / 32;
  int by_warps = p.warps_per_sm / warps;
  int by_smem = dyn_smem ? int(size_t(p.smem_per_sm) / (dyn_smem + 1024)) : p.max_blocks_per_sm;
  if (dyn_smem > size_t(vk_simt_func_get_max_dyn_smem(func))) by_smem = 0;
  int r = by_warps < by_smem ? by_warps : by_smem;
  *n = r < p.max_blocks_per_sm ? r : p.max_blocks_per_sm;
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, T* func, int block_size, size_t dyn_smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, reinterpret_cast<const void*>(func), block_size, dyn_smem);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, T* func, int block_size,
                                                                          size_t dyn_smem, unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, reinterpret_cast<const void*>(func), block_size, dyn_smem);
}

// ------------------------------------------------------------------------------------ streams
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus* s) {
  *s = cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------------ memory
inline cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t = nullptr) { memset(p, value, n); return cudaSuccess; }
inline cudaError_t cudaMemset(void* p, int value, size_t n) { memset(p, value, n); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind, cudaStream_t = nullptr) {
  memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind) { memmove(dst, src, n); return cudaSuccess; }
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t n, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  memcpy(reinterpret_cast<char*>(const_cast<T*>(&symbol)) + offset, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t n, size_t offset = 0,
                                           cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, n, offset);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t n, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  memcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, n);
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, size_t n) {
  *p = nullptr;
  if (posix_memalign(p, 256, n ? n : 1)) return vk_simt::api_error(cudaErrorMemoryAllocation, "cudaMalloc: out of host memory");
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMalloc(T** p, size_t n) { return cudaMalloc(reinterpret_cast<void**>(p), n); }
inline cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return cudaMalloc(p, n); }
template <class T>
inline cudaError_t cudaMallocAsync(T** p, size_t n, cudaStream_t) { return cudaMalloc(reinterpret_cast<void**>(p), n); }
inline cudaError_t cudaFree(void* p) { free(p); return cudaSuccess; }
inline cudaError_t cudaFreeAsync(void* p, cudaStream_t) { free(p); return cudaSuccess; }
