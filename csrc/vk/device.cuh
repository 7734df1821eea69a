// vk/device.cuh - the small device API every kernel in csrc/ uses for global memory, async
// copies and tensor cores.
//
// Kernel bodies are plain idiomatic CUDA; they go through these helpers for global-memory traffic
// and warp-level matrix instructions, for two reasons:
//   * on the GPU each helper is one instruction (a plain/`ld.global.nc` load or store, cp.async,
//     ldmatrix, mma.sync) - no cost;
//   * under the host SIMT emulator (verify_kernel.simt.load_inline defines VK_SIMT) the very same
//     names are provided by simt/device_host.h, which counts global bytes (per launch, attributed
//     to named tensors) and reproduces the PTX ISA fragment layouts exactly.
// Only sm_80-level instructions are used, so one source serves sm_120a (RTX PRO 6000 Blackwell),
// sm_90a (H200) and sm_80.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#if defined(VK_SIMT)
#include "simt/device_host.h"  // host (emulator) implementations of everything below
#else

#define VK_DEVICE __device__ __forceinline__

namespace vk {

// ---------------------------------------------------------------- global memory
// Plain global load / store (any trivially copyable T; 16-byte T such as uint4/float4 gives one
// 128-bit instruction when the address is 16-byte aligned).
template <typename T> VK_DEVICE T ld_global(const T* p) { return *p; }
template <typename T> VK_DEVICE void st_global(T* p, const T& v) { *p = v; }
// Read-only (non-coherent, ld.global.nc) load for data no thread writes during the kernel.
// T must be one of the types CUDA's __ldg is overloaded for (float, float4, int4, uint4, int,
// long long, __nv_bfloat16, __nv_bfloat162, ...).
template <typename T> VK_DEVICE T ldg(const T* __restrict__ p) { return __ldg(p); }

// ---------------------------------------------------------------- shared memory
// The block's dynamic shared memory (the launch's third <<<>>> argument), 16-byte aligned.
template <typename T = unsigned char> VK_DEVICE T* dynamic_smem() {
  extern __shared__ __align__(16) unsigned char vk_dynamic_smem[];
  return reinterpret_cast<T*>(vk_dynamic_smem);
}
VK_DEVICE uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------- cp.async (sm_80+)
// Copy 16 bytes global -> shared asynchronously (cp.async.cg, bypasses L1). When `valid` is false
// nothing is read from global memory (src may be any address) and the 16 shared bytes are zeroed.
// Both addresses must be 16-byte aligned.
VK_DEVICE void cp_async_16(void* smem_dst, const void* gmem_src, bool valid = true) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}
VK_DEVICE void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Marks where a thread's chain of dependent loads ends in a kernel without cp.async (its next load is the
// first of its bulk data). No instruction on the GPU; the emulator records the chain's depth per CTA
// (the first cp.async ends a chain by itself).
VK_DEVICE void chain_end() {}

// ---------------------------------------------------------------- programmatic dependent launch (sm_90+)
// A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start before the previous kernel on its
// stream has finished: once every CTA of that kernel has called launch_dependents() (or exited). It must call
// wait_primary_grid() before it touches anything the previous kernel writes (and before any global store): the wait
// returns when that kernel has completed and its writes are visible. What it does before the wait - index lookups in
// data written by earlier kernels - overlaps the previous kernel's tail and hides its own launch. Below sm_90 there is
// no such launch (the host does not ask for one) and both are no-ops.
VK_DEVICE void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
VK_DEVICE void wait_primary_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
// Wait until at most N committed groups are still in flight (then __syncthreads() to publish).
template <int N> VK_DEVICE void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ---------------------------------------------------------------- tensor cores
// ldmatrix: each of the 8 (x1), 16 (x2) or 32 (x4) participating lanes gives the shared address of
// one 16-byte row (8 x 16-bit) of an 8x8 matrix; lanes 0-7 address matrix 0, 8-15 matrix 1, ...
// Register r[i] of lane l receives elements (row l/4, cols 2*(l%4), 2*(l%4)+1) of matrix i
// (the .trans variants deliver the transpose). All 32 lanes must execute it (.sync.aligned).
VK_DEVICE void ldmatrix_x1(uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(r[0]) : "r"(smem_addr(row)));
}
VK_DEVICE void ldmatrix_x2(uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(row)));
}
VK_DEVICE void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(row)));
}
VK_DEVICE void ldmatrix_x1_trans(uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
               : "=r"(r[0]) : "r"(smem_addr(row)));
}
VK_DEVICE void ldmatrix_x2_trans(uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(row)));
}
VK_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(row)));
}

// D = A * B + C with mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32.
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16", g = lane/4, t = lane%4):
//   a[0]: A[g][2t..2t+1]   a[1]: A[g+8][2t..2t+1]   a[2]: A[g][2t+8..2t+9]   a[3]: A[g+8][2t+8..2t+9]
//   b[0]: B[2t..2t+1][g]   b[1]: B[2t+8..2t+9][g]          (pairs packed low element first)
//   c/d[0..1]: C[g][2t..2t+1]   c/d[2..3]: C[g+8][2t..2t+1]
VK_DEVICE void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}
VK_DEVICE void mma_f16_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                             const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}

}  // namespace vk
#endif  // VK_SIMT

namespace vk {
// ---------------------------------------------------------------- small shared helpers
// Two floats -> one bf16x2 register (round to nearest even), low half = `lo`.
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
__device__ __forceinline__ uint32_t pack_f16x2(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}
// Four e4m3 values (SGLang's fp8 cache: float8_e4m3fn, no infinities, S.1111.111 is NaN; byte i of `v`)
// -> four bf16 (element i: the low half of .x first), exactly: every e4m3 value is a bf16 value. The
// toolkit's conversion (cvt.rn.f16x2.e4m3x2 on sm_89+, its software path elsewhere and on the host),
// then f16 -> f32 -> bf16, each step exact.
__device__ __forceinline__ uint2 e4m3x4_to_bf16x4(uint32_t v) {
  const __half2_raw lo = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(v & 0xffffu), __NV_E4M3);
  const __half2_raw hi = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(v >> 16), __NV_E4M3);
  const float2 a = __half22float2(__half2(lo)), b = __half22float2(__half2(hi));
  return make_uint2(pack_bf16x2(a.x, a.y), pack_bf16x2(b.x, b.y));
}
}  // namespace vk
