// simt/device_api.h - the CUDA device-side API for kernels compiled by the host SIMT emulator:
// barriers, warp shuffles / votes / matches / reductions, atomics, memory fences, __ldg and the
// cache-hinted loads/stores, fast-math and integer intrinsics, type punning, clocks.
//
// Every function that needs other threads (barriers, warp collectives) takes the caller's source
// location through default arguments (__builtin_FILE / __builtin_LINE), so that errors (divergent
// barriers, lanes that exited, deadlocks) say where each thread waits.
//
// Included by the shadow <cuda_runtime.h>; kernels never include it directly.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_functions.h>
#include <vector_types.h>

#include "simt/runtime.h"

#define VK_SIMT_SITE_PARAMS const char *vk_file = __builtin_FILE(), int vk_line = __builtin_LINE()

static constexpr int warpSize = 32;

// Race mode (simt.load_inline(..., racecheck=True)): the source rewrite registers every static
// __shared__ variable with the race checker right after its declaration (simt/racecheck.inc).
VK_SIMT_API void vk_simt_rc_shared(const void* p, unsigned long n, const char* name);
// Every build: the source rewrite registers each static __shared__ variable once per OS thread (the initializer of a
// `static thread_local` guard after its declaration); the runtime poisons the registered regions at every block start.
VK_SIMT_API int vk_simt_shared_region(void* p, unsigned long n);
#if defined(VK_SIMT_RACECHECK)
// The mark the runtime looks for in a kernel's module: its launches run under the race checker.
// (weak, not inline: an inline variable would be a GNU unique symbol, one for the whole process)
extern "C" __attribute__((weak, visibility("default"), used)) const int vk_simt_racecheck_module = 1;
#endif

namespace vk_simt {
// Counted global-memory traffic (simt/device_host.h and __ldg & co).
inline void count_load(const void* p, size_t n) {
  WorkerView* w = vk_simt_worker;
  if (VK_SIMT_LIKELY(w != nullptr)) {
    w->c.ld_ops++;
    w->c.ld_bytes += n;
    if (VK_SIMT_UNLIKELY(w->attributing | w->programmatic)) vk_simt_note_access(p, n, 0);
  }
}
inline void count_store(const void* p, size_t n) {
  WorkerView* w = vk_simt_worker;
  if (VK_SIMT_LIKELY(w != nullptr)) {
    w->c.st_ops++;
    w->c.st_bytes += n;
    if (VK_SIMT_UNLIKELY(w->attributing | w->programmatic)) vk_simt_note_access(p, n, 1);
  }
}
inline void count_atomic() {
  if (WorkerView* w = vk_simt_worker) w->c.atomics++;
}
template <class T>
inline uint64_t to_bits(const T& v) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "warp shuffles and matches take values of at most 8 bytes");
  uint64_t b = 0;
  memcpy(&b, static_cast<const void*>(&v), sizeof(T));
  return b;
}
template <class T>
inline T from_bits(uint32_t lo, uint32_t hi) {
  const uint64_t b = uint64_t(lo) | (uint64_t(hi) << 32);
  T v;
  memcpy(static_cast<void*>(&v), &b, sizeof(T));
  return v;
}
template <class T>
inline T shfl(int kind, unsigned mask, T var, int b, int width, const char* f, int l) {
  CollArgs a;
  a.kind = kind; a.mask = mask; a.param = width; a.b = b;
  a.v = to_bits(var); a.vbytes = int(sizeof(T));
  vk_simt_collective(&a, f, l);
  return from_bits<T>(a.out[0], a.out[1]);
}
inline unsigned vote(int kind, unsigned mask, int pred, const char* f, int l) {
  CollArgs a;
  a.kind = kind; a.mask = mask; a.param = 0; a.b = pred != 0; a.v = 0; a.vbytes = 0;
  vk_simt_collective(&a, f, l);
  return a.out[0];
}
inline uint32_t reduce(int kind, unsigned mask, uint32_t v, const char* f, int l) {
  CollArgs a;
  a.kind = kind; a.mask = mask; a.param = 0; a.b = 0; a.v = v; a.vbytes = 4;
  vk_simt_collective(&a, f, l);
  return a.out[0];
}
}  // namespace vk_simt

// ------------------------------------------------------------------------------------- barriers
inline void __syncthreads(VK_SIMT_SITE_PARAMS) { vk_simt_barrier(0, 0, vk_file, vk_line); }
inline int __syncthreads_count(int pred, VK_SIMT_SITE_PARAMS) { return vk_simt_barrier(1, pred, vk_file, vk_line); }
inline int __syncthreads_and(int pred, VK_SIMT_SITE_PARAMS) { return vk_simt_barrier(2, pred, vk_file, vk_line); }
inline int __syncthreads_or(int pred, VK_SIMT_SITE_PARAMS) { return vk_simt_barrier(3, pred, vk_file, vk_line); }
inline void __syncwarp(unsigned mask = 0xffffffffu, VK_SIMT_SITE_PARAMS) {
  vk_simt::CollArgs a;
  a.kind = vk_simt::kSyncwarp; a.mask = mask; a.param = 0; a.b = 0; a.v = 0; a.vbytes = 0;
  vk_simt_collective(&a, vk_file, vk_line);
}
// Fibers of a block run one at a time on one OS thread, so block-level ordering holds trivially;
// across blocks (several OS threads) a real fence keeps the C++ memory model honest.
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Thread-block clusters (sm_90 and later: CUDA's sm_90_rt.h intrinsics). The CTAs of a cluster run at once, one worker each;
// a launch without a cluster dimension is a cluster of 1 x 1 x 1. Ranks count x fastest, as %cluster_ctarank does.
inline dim3 __clusterDim() { unsigned c[3]; vk_simt_cluster_dims(c); return dim3(c[0], c[1], c[2]); }
inline unsigned __clusterSizeInBlocks() { const dim3 c = __clusterDim(); return c.x * c.y * c.z; }
inline dim3 __clusterRelativeBlockIdx() { const dim3 c = __clusterDim(); return dim3(blockIdx.x % c.x, blockIdx.y % c.y, blockIdx.z % c.z); }
inline unsigned __clusterRelativeBlockRank() {
  const dim3 c = __clusterDim(), r = __clusterRelativeBlockIdx();
  return r.x + c.x * (r.y + c.y * r.z);
}
inline dim3 __clusterIdx() { const dim3 c = __clusterDim(); return dim3(blockIdx.x / c.x, blockIdx.y / c.y, blockIdx.z / c.z); }
inline dim3 __clusterGridDimInClusters() { const dim3 c = __clusterDim(); return dim3(gridDim.x / c.x, gridDim.y / c.y, gridDim.z / c.z); }
inline void __cluster_barrier_arrive(VK_SIMT_SITE_PARAMS) { vk_simt_cluster_arrive(vk_file, vk_line); }
inline void __cluster_barrier_arrive_relaxed(VK_SIMT_SITE_PARAMS) { vk_simt_cluster_arrive(vk_file, vk_line); }
inline void __cluster_barrier_wait(VK_SIMT_SITE_PARAMS) { vk_simt_cluster_wait(vk_file, vk_line); }
inline void __threadfence_cluster() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void* __cluster_map_shared_rank(const void* p, unsigned rank, VK_SIMT_SITE_PARAMS) {
  return vk_simt_cluster_map_shared(p, rank, vk_file, vk_line);
}
inline unsigned __cluster_query_shared_rank(const void* p, VK_SIMT_SITE_PARAMS) {
  return vk_simt_cluster_query_shared_rank(p, vk_file, vk_line);
}

// --------------------------------------------------------------------------------- warp shuffles
template <class T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, VK_SIMT_SITE_PARAMS) {
  return vk_simt::shfl(vk_simt::kShflIdx, mask, var, srcLane, width, vk_file, vk_line);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, VK_SIMT_SITE_PARAMS) {
  return vk_simt::shfl(vk_simt::kShflUp, mask, var, int(delta), width, vk_file, vk_line);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, VK_SIMT_SITE_PARAMS) {
  return vk_simt::shfl(vk_simt::kShflDown, mask, var, int(delta), width, vk_file, vk_line);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize, VK_SIMT_SITE_PARAMS) {
  return vk_simt::shfl(vk_simt::kShflXor, mask, var, laneMask, width, vk_file, vk_line);
}

// ------------------------------------------------------------------------------------ warp votes
inline unsigned __ballot_sync(unsigned mask, int pred, VK_SIMT_SITE_PARAMS) {
  return vk_simt::vote(vk_simt::kBallot, mask, pred, vk_file, vk_line);
}
inline int __any_sync(unsigned mask, int pred, VK_SIMT_SITE_PARAMS) {
  return int(vk_simt::vote(vk_simt::kAny, mask, pred, vk_file, vk_line));
}
inline int __all_sync(unsigned mask, int pred, VK_SIMT_SITE_PARAMS) {
  return int(vk_simt::vote(vk_simt::kAll, mask, pred, vk_file, vk_line));
}
// The lanes of the warp that execute this call together: the emulator waits until no thread of
// the block can run any more, then every lane waiting at this call site gets the mask of those lanes
// (lanes that took another branch have exited or wait elsewhere by then).
inline unsigned __activemask(VK_SIMT_SITE_PARAMS) { return vk_simt_activemask(vk_file, vk_line); }

template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, VK_SIMT_SITE_PARAMS) {
  vk_simt::CollArgs a;
  a.kind = vk_simt::kMatchAny; a.mask = mask; a.param = 0; a.b = 0;
  a.v = vk_simt::to_bits(value); a.vbytes = int(sizeof(T));
  vk_simt_collective(&a, vk_file, vk_line);
  return a.out[0];
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred, VK_SIMT_SITE_PARAMS) {
  vk_simt::CollArgs a;
  a.kind = vk_simt::kMatchAll; a.mask = mask; a.param = 0; a.b = 0;
  a.v = vk_simt::to_bits(value); a.vbytes = int(sizeof(T));
  vk_simt_collective(&a, vk_file, vk_line);
  *pred = int(a.out[1]);
  return a.out[0];
}

// sm_80 warp reductions
inline unsigned __reduce_add_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceAdd, mask, v, vk_file, vk_line); }
inline int __reduce_add_sync(unsigned mask, int v, VK_SIMT_SITE_PARAMS) { return int(vk_simt::reduce(vk_simt::kReduceAdd, mask, uint32_t(v), vk_file, vk_line)); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceUMin, mask, v, vk_file, vk_line); }
inline int __reduce_min_sync(unsigned mask, int v, VK_SIMT_SITE_PARAMS) { return int(vk_simt::reduce(vk_simt::kReduceMin, mask, uint32_t(v), vk_file, vk_line)); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceUMax, mask, v, vk_file, vk_line); }
inline int __reduce_max_sync(unsigned mask, int v, VK_SIMT_SITE_PARAMS) { return int(vk_simt::reduce(vk_simt::kReduceMax, mask, uint32_t(v), vk_file, vk_line)); }
inline unsigned __reduce_and_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceAnd, mask, v, vk_file, vk_line); }
inline unsigned __reduce_or_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceOr, mask, v, vk_file, vk_line); }
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v, VK_SIMT_SITE_PARAMS) { return vk_simt::reduce(vk_simt::kReduceXor, mask, v, vk_file, vk_line); }

// --------------------------------------------------------------------------------------- atomics
// Real atomic read-modify-write (blocks of a launch run on several OS threads at once).
namespace vk_simt {
template <class T, class F>
inline T atomic_update(T* p, F f) {  // compare-and-swap loop on the value's bits
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomic on 2, 4 or 8 bytes");
  using U = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  count_atomic();
  U* q = reinterpret_cast<U*>(p);
  U old = __atomic_load_n(q, __ATOMIC_RELAXED);
  for (;;) {
    T o;
    memcpy(static_cast<void*>(&o), &old, sizeof(T));
    const T n = f(o);
    U nb;
    memcpy(&nb, static_cast<const void*>(&n), sizeof(T));
    if (__atomic_compare_exchange_n(q, &old, nb, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return o;
  }
}
template <class T>
inline T atomic_fetch_add(T* p, T v) { count_atomic(); return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
}  // namespace vk_simt

inline int atomicAdd(int* p, int v) { return vk_simt::atomic_fetch_add(p, v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return vk_simt::atomic_fetch_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return vk_simt::atomic_fetch_add(p, v); }
inline float atomicAdd(float* p, float v) { return vk_simt::atomic_update(p, [v](float o) { return o + v; }); }
inline double atomicAdd(double* p, double v) { return vk_simt::atomic_update(p, [v](double o) { return o + v; }); }
inline __half atomicAdd(__half* p, __half v) {
  return vk_simt::atomic_update(p, [v](__half o) { return __float2half_rn(__half2float(o) + __half2float(v)); });
}
inline __nv_bfloat16 atomicAdd(__nv_bfloat16* p, __nv_bfloat16 v) {
  return vk_simt::atomic_update(p, [v](__nv_bfloat16 o) { return __float2bfloat16_rn(__bfloat162float(o) + __bfloat162float(v)); });
}
inline __half2 atomicAdd(__half2* p, __half2 v) {
  return vk_simt::atomic_update(p, [v](__half2 o) {
    return __floats2half2_rn(__low2float(o) + __low2float(v), __high2float(o) + __high2float(v));
  });
}
inline __nv_bfloat162 atomicAdd(__nv_bfloat162* p, __nv_bfloat162 v) {
  return vk_simt::atomic_update(p, [v](__nv_bfloat162 o) {
    return __floats2bfloat162_rn(__low2float(o) + __low2float(v), __high2float(o) + __high2float(v));
  });
}
inline int atomicSub(int* p, int v) { vk_simt::count_atomic(); return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
inline unsigned atomicSub(unsigned* p, unsigned v) { vk_simt::count_atomic(); return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
inline int atomicExch(int* p, int v) { vk_simt::count_atomic(); return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
inline unsigned atomicExch(unsigned* p, unsigned v) { vk_simt::count_atomic(); return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicExch(unsigned long long* p, unsigned long long v) { vk_simt::count_atomic(); return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
inline float atomicExch(float* p, float v) { return vk_simt::atomic_update(p, [v](float) { return v; }); }
#define VK_SIMT_MINMAX(T)                                                                              \
  inline T atomicMin(T* p, T v) { return vk_simt::atomic_update(p, [v](T o) { return v < o ? v : o; }); } \
  inline T atomicMax(T* p, T v) { return vk_simt::atomic_update(p, [v](T o) { return v > o ? v : o; }); }
VK_SIMT_MINMAX(int)
VK_SIMT_MINMAX(unsigned)
VK_SIMT_MINMAX(long long)
VK_SIMT_MINMAX(unsigned long long)
#undef VK_SIMT_MINMAX
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  return vk_simt::atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  return vk_simt::atomic_update(p, [limit](unsigned o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}
#define VK_SIMT_CAS(T)                                                                  \
  inline T atomicCAS(T* p, T compare, T val) {                                          \
    vk_simt::count_atomic();                                                            \
    __atomic_compare_exchange_n(p, &compare, val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                     \
  }
VK_SIMT_CAS(int)
VK_SIMT_CAS(unsigned)
VK_SIMT_CAS(unsigned long long)
VK_SIMT_CAS(unsigned short)
#undef VK_SIMT_CAS
#define VK_SIMT_BITOP(NAME, OP)                                                                      \
  inline int NAME(int* p, int v) { vk_simt::count_atomic(); return OP(p, v, __ATOMIC_RELAXED); }             \
  inline unsigned NAME(unsigned* p, unsigned v) { vk_simt::count_atomic(); return OP(p, v, __ATOMIC_RELAXED); } \
  inline unsigned long long NAME(unsigned long long* p, unsigned long long v) {                       \
    vk_simt::count_atomic(); return OP(p, v, __ATOMIC_RELAXED);                                        \
  }
VK_SIMT_BITOP(atomicAnd, __atomic_fetch_and)
VK_SIMT_BITOP(atomicOr, __atomic_fetch_or)
VK_SIMT_BITOP(atomicXor, __atomic_fetch_xor)
#undef VK_SIMT_BITOP
// scope variants (_block, _system): same operation
#define VK_SIMT_SCOPED(NAME)                                                                      \
  template <class... A> inline auto NAME##_block(A... a) -> decltype(NAME(a...)) { return NAME(a...); } \
  template <class... A> inline auto NAME##_system(A... a) -> decltype(NAME(a...)) { return NAME(a...); }
VK_SIMT_SCOPED(atomicAdd) VK_SIMT_SCOPED(atomicSub) VK_SIMT_SCOPED(atomicExch) VK_SIMT_SCOPED(atomicMin)
VK_SIMT_SCOPED(atomicMax) VK_SIMT_SCOPED(atomicInc) VK_SIMT_SCOPED(atomicDec) VK_SIMT_SCOPED(atomicCAS)
VK_SIMT_SCOPED(atomicAnd) VK_SIMT_SCOPED(atomicOr) VK_SIMT_SCOPED(atomicXor)
#undef VK_SIMT_SCOPED

// ----------------------------------------------------------------- read-only and cache-hinted memory
// Counted as global traffic like vk::ld_global / vk::st_global.
template <class T> inline T __ldg(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline T __ldcg(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline T __ldca(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline T __ldcs(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline T __ldlu(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline T __ldcv(const T* p) { vk_simt::count_load(p, sizeof(T)); return *p; }
template <class T> inline void __stcg(T* p, T v) { vk_simt::count_store(p, sizeof(T)); *p = v; }
template <class T> inline void __stcs(T* p, T v) { vk_simt::count_store(p, sizeof(T)); *p = v; }
template <class T> inline void __stwb(T* p, T v) { vk_simt::count_store(p, sizeof(T)); *p = v; }
template <class T> inline void __stwt(T* p, T v) { vk_simt::count_store(p, sizeof(T)); *p = v; }
inline size_t __cvta_generic_to_shared(const void* p) { return size_t(reinterpret_cast<uintptr_t>(p)); }

// ---------------------------------------------------------------------------- float math
// What a CUDA math function returns on the GPU is its correctly rounded value within the worst error
// the CUDA C++ Programming Guide documents for it ("Mathematical Functions" appendix: the ulp tables
// of the standard functions and of the intrinsics). The emulator computes the correctly rounded value
// (in double, rounded once) and hands it to vk_simt_math_model, which returns it unchanged
// (math_mode 0) or moved by the whole documented error (modes 1-3: see simt.set_device(math=...)),
// so parity can be proven against the worst the hardware may do. Kernel sources call the standard
// names (exp2f, tanhf, ...): verify_kernel.simt rewrites those calls to vk_simt_math:: (simt.MATH_MODEL
// lists them, with the PTX approximate instructions their GPU expansion may hold, which the static
// gate build.check_approx matches against every kernel's PTX). Operations IEEE defines exactly (+ - *
// and, as the project builds without --use_fast_math, / sqrtf and the _rn intrinsics) are plain host
// arithmetic: bit-exact.
namespace vk_simt_math {
inline float model(double exact, int max_ulp, float max_abs = 0.0f) {
  return vk_simt_math_model(float(exact), max_ulp, max_abs);
}
// standard functions (max ulp error, full range)
inline float exp2f(float x) { return model(std::exp2(double(x)), 2); }
inline float expf(float x) { return model(std::exp(double(x)), 2); }
inline float exp10f(float x) { return model(std::pow(10.0, double(x)), 2); }
inline float logf(float x) { return model(std::log(double(x)), 1); }
inline float log2f(float x) { return model(std::log2(double(x)), 1); }
inline float log10f(float x) { return model(std::log10(double(x)), 2); }
inline float tanhf(float x) { return model(std::tanh(double(x)), 2); }
inline float sinf(float x) { return model(std::sin(double(x)), 2); }
inline float cosf(float x) { return model(std::cos(double(x)), 2); }
inline float rsqrtf(float x) { return model(1.0 / std::sqrt(double(x)), 2); }
}  // namespace vk_simt_math
// intrinsics, global functions as on the GPU (__expf: 2 + floor(|1.173 x|) ulp; __logf, __log2f: an
// absolute error on [0.5, 2], ulps elsewhere; __fdividef: 2 ulp for 2^-126 <= |y| <= 2^126, and 0 for
// 2^126 < |y| < 2^128 as the guide says)
inline float __expf(float x) { return vk_simt_math::model(std::exp(double(x)), 2 + int(std::floor(std::fabs(1.173 * double(x))))); }
inline float __logf(float x) {
  return x >= 0.5f && x <= 2.0f ? vk_simt_math::model(std::log(double(x)), 0, float(std::exp2(-21.41)))
                                : vk_simt_math::model(std::log(double(x)), 3);
}
inline float __log2f(float x) {
  return x >= 0.5f && x <= 2.0f ? vk_simt_math::model(std::log2(double(x)), 0, 0x1p-22f) : vk_simt_math::model(std::log2(double(x)), 2);
}
inline float __fdividef(float a, float b) {
  const float ab = std::fabs(b);
  if (ab > 0x1p126f && std::isfinite(a)) return 0.0f * a;
  return vk_simt_math::model(double(a) / double(b), ab >= 0x1p-126f ? 2 : 0);
}
// IEEE-defined: exact on the host
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frsqrt_rn(float x) { return float(1.0 / std::sqrt(double(x))); }  // correctly rounded
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

// ----------------------------------------------------------------------------- bit reinterpretation
inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
inline unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned x) { float r; memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
inline int __double2hiint(double x) { return int(uint64_t(__double_as_longlong(x)) >> 32); }
inline int __double2loint(double x) { return int(uint32_t(uint64_t(__double_as_longlong(x)))); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>((uint64_t(uint32_t(hi)) << 32) | uint32_t(lo)));
}

// ----------------------------------------------------------------------------- float -> int
inline int __float2int_rn(float x) { return int(std::nearbyint(x)); }  // default rounding: to nearest even
inline int __float2int_rz(float x) { return int(std::trunc(x)); }
inline int __float2int_rd(float x) { return int(std::floor(x)); }
inline int __float2int_ru(float x) { return int(std::ceil(x)); }
inline unsigned __float2uint_rn(float x) { return unsigned(std::nearbyint(x)); }
inline unsigned __float2uint_rz(float x) { return unsigned(std::trunc(x)); }
inline unsigned __float2uint_rd(float x) { return unsigned(std::floor(x)); }
inline unsigned __float2uint_ru(float x) { return unsigned(std::ceil(x)); }
inline long long __float2ll_rn(float x) { return (long long)std::nearbyint(x); }
inline long long __float2ll_rz(float x) { return (long long)std::trunc(x); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned x) { return float(x); }
inline float __ll2float_rn(long long x) { return float(x); }
inline int __double2int_rn(double x) { return int(std::nearbyint(x)); }
inline float __double2float_rn(double x) { return float(x); }

// ----------------------------------------------------------------------------- integer intrinsics
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (uint64_t(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
// PRMT default mode: byte i of the result is byte s[i] (4 bits of selector each, low 3 used) of {y, x}.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const uint64_t v = (uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const uint64_t v = (uint64_t(hi) << 32) | lo;
  return unsigned((v << (shift & 31)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const uint64_t v = (uint64_t(hi) << 32) | lo;
  return unsigned((v << (shift > 32 ? 32 : shift)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const uint64_t v = (uint64_t(hi) << 32) | lo;
  return unsigned(v >> (shift & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const uint64_t v = (uint64_t(hi) << 32) | lo;
  return unsigned(v >> (shift > 32 ? 32 : shift));
}
inline int __mul24(int a, int b) { return int((int64_t(a) << 40 >> 40) * (int64_t(b) << 40 >> 40)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return int((int64_t(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((uint64_t(a) * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)((__int128(a) * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)((unsigned __int128)(a) * b >> 64);
}
inline unsigned __sad(int x, int y, unsigned z) { return z + unsigned(x > y ? x - y : y - x); }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }

// CUDA's global min/max overloads for integers (floats: fminf/fmaxf and std::min/max)
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned min(int a, unsigned b) { return min(unsigned(a), b); }
inline unsigned max(int a, unsigned b) { return max(unsigned(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, unsigned(b)); }
inline unsigned max(unsigned a, int b) { return max(a, unsigned(b)); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ------------------------------------------------------------------------------ clocks, traps
#if defined(__x86_64__)
inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
#else
inline long long clock64() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
#endif
inline void __nanosleep(unsigned) {}
[[noreturn]] inline void __trap(VK_SIMT_SITE_PARAMS) {
  vk_simt_fail("__trap()", vk_file, vk_line);
  __builtin_unreachable();
}
[[noreturn]] inline void __brkpt(VK_SIMT_SITE_PARAMS) {
  vk_simt_fail("__brkpt()", vk_file, vk_line);
  __builtin_unreachable();
}
