// simt/device_host.h - host (SIMT emulator) implementation of the vk:: device API of vk/device.cuh.
//
// Same names and signatures as the GPU side. Global loads and stores are counted (bytes and
// instructions per launch, attributed to registered tensors while a trace is active); cp.async is
// a counted 16-byte global load whose copy lands in shared memory when the issuing thread waits for
// its group (cp_async_wait<N>), as on the GPU - reading the destination earlier sees the old bytes;
// ldmatrix and mma.sync are warp collectives that reproduce the PTX ISA fragment layouts exactly.
// The trailing (file, line) parameters are filled in at the call site and only serve error messages.
#pragma once
#include <cstdint>
#include <cstring>
#include <cstdio>
#include "simt/device_api.h"

#define VK_DEVICE __device__ __forceinline__

namespace vk {

// ---------------------------------------------------------------- alignment
// A GPU faults (a sticky misaligned-address error that ends the context) on a global or shared access not aligned to its
// size (1, 2, 4, 8 or 16 bytes); x86 does not. Every vk:: access checks it and fails the launch naming the kernel, the
// call site and the address (cp.async and ldmatrix are checked by the runtime). Plain dereferences in kernel code, such as
// a float4 cast of a shared pointer, are checked by GCC's -fsanitize=alignment (simt.FIDELITY_FLAGS), whose handlers the
// runtime defines (runtime.cpp, __ubsan_handle_type_mismatch_v1).
namespace detail {
template <size_t Bytes> VK_DEVICE void check_aligned(const void* p, const char* what, const char* file, int line) {
  constexpr size_t a = Bytes >= 16 ? 16 : Bytes;
  if constexpr ((Bytes & (Bytes - 1)) == 0) {
    if (reinterpret_cast<uintptr_t>(p) % a) {
      char msg[200];
      snprintf(msg, sizeof msg, "misaligned %s of %zu bytes at address %p (a GPU needs %zu-byte alignment)", what, Bytes, p, a);
      vk_simt_fail(msg, file, line);
    }
  }
}
}  // namespace detail

// ---------------------------------------------------------------- global memory
template <typename T> VK_DEVICE T ld_global(const T* p, VK_SIMT_SITE_PARAMS) {
  detail::check_aligned<sizeof(T)>(p, "global load", vk_file, vk_line);
  vk_simt::count_load(p, sizeof(T));
  return *p;
}
template <typename T> VK_DEVICE void st_global(T* p, const T& v, VK_SIMT_SITE_PARAMS) {
  detail::check_aligned<sizeof(T)>(p, "global store", vk_file, vk_line);
  vk_simt::count_store(p, sizeof(T));
  *p = v;
}
template <typename T> VK_DEVICE T ldg(const T* __restrict__ p, VK_SIMT_SITE_PARAMS) {
  detail::check_aligned<sizeof(T)>(p, "global load (ldg)", vk_file, vk_line);
  vk_simt::count_load(p, sizeof(T));
  return *p;
}

// ---------------------------------------------------------------- shared memory
template <typename T = unsigned char> VK_DEVICE T* dynamic_smem() {
  return reinterpret_cast<T*>(vk_simt_worker->dyn_smem);
}
// The host has no 32-bit shared window: the low 32 bits of the address (good for arithmetic and
// printing, not for turning back into a pointer).
VK_DEVICE uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p));
}

// ---------------------------------------------------------------- cp.async
VK_DEVICE void cp_async_16(void* smem_dst, const void* gmem_src, bool valid = true) {
  if (valid) vk_simt::count_load(gmem_src, 16);   // alignment: checked by the runtime (vk_simt_cp_async)
  vk_simt_cp_async(smem_dst, gmem_src, valid ? 1 : 0);
}
VK_DEVICE void cp_async_commit() { vk_simt_cp_async_commit(); }
VK_DEVICE void chain_end() { vk_simt_chain_end(); }
VK_DEVICE void launch_dependents() {}   // the emulator runs launches one after another: nothing to release early
VK_DEVICE void wait_primary_grid() { vk_simt_grid_dependency_wait(); }
template <int N> VK_DEVICE void cp_async_wait() { vk_simt_cp_async_wait(N); }

// ---------------------------------------------------------------- tensor cores
namespace detail {
template <int Count, bool Trans>
VK_DEVICE void ldmatrix(uint32_t* r, const void* row, const char* file, int line) {
  vk_simt::CollArgs a;
  a.kind = vk_simt::kLdmatrix; a.mask = 0xffffffffu; a.param = Count | (Trans ? 256 : 0);
  a.b = 0; a.v = 0; a.vbytes = 0; a.ptr = row;
  vk_simt_collective(&a, file, line);
  for (int i = 0; i < Count; ++i) r[i] = a.out[i];
}
VK_DEVICE void mma(int kind, float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                   const float (&c)[4], const char* file, int line) {
  vk_simt::CollArgs x;
  x.kind = vk_simt::kMma; x.mask = 0xffffffffu; x.param = kind; x.b = 0; x.v = 0; x.vbytes = 0;
  memcpy(x.frag, a, 16);
  memcpy(x.frag + 4, b, 8);
  memcpy(x.frag + 6, c, 16);
  vk_simt_collective(&x, file, line);
  memcpy(d, x.out, 16);
}
}  // namespace detail

VK_DEVICE void ldmatrix_x1(uint32_t (&r)[1], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<1, false>(r, row, vk_file, vk_line); }
VK_DEVICE void ldmatrix_x2(uint32_t (&r)[2], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<2, false>(r, row, vk_file, vk_line); }
VK_DEVICE void ldmatrix_x4(uint32_t (&r)[4], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<4, false>(r, row, vk_file, vk_line); }
VK_DEVICE void ldmatrix_x1_trans(uint32_t (&r)[1], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<1, true>(r, row, vk_file, vk_line); }
VK_DEVICE void ldmatrix_x2_trans(uint32_t (&r)[2], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<2, true>(r, row, vk_file, vk_line); }
VK_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row, VK_SIMT_SITE_PARAMS) { detail::ldmatrix<4, true>(r, row, vk_file, vk_line); }

VK_DEVICE void mma_bf16_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              const float (&c)[4], VK_SIMT_SITE_PARAMS) {
  detail::mma(vk_simt::kMmaBf16_16816, d, a, b, c, vk_file, vk_line);
}
VK_DEVICE void mma_f16_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                             const float (&c)[4], VK_SIMT_SITE_PARAMS) {
  detail::mma(vk_simt::kMmaF16_16816, d, a, b, c, vk_file, vk_line);
}

}  // namespace vk
