// simt_selftest.cu - kernels that test the host SIMT emulator (nbs/01_simt.ipynb), one source for
// both builds: verify_kernel.simt.load_inline (CPU) and torch's load_inline (GPU, the #| gpu cells
// compare the two bitwise where the math is deterministic). Each kernel exercises one feature;
// the host functions take and return torch tensors (CPU tensors under the emulator, CUDA on a GPU).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <cassert>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "vk/device.cuh"

#define ST_CHECK_LAUNCH() C10_CUDA_KERNEL_LAUNCH_CHECK()

namespace {
cudaStream_t stream() { return at::cuda::getCurrentCUDAStream(); }
int64_t blocks_for(int64_t n, int threads) { return (n + threads - 1) / threads; }
}  // namespace

// ------------------------------------------------------------------ block reduction (static smem)
// out[b] = sum of x over block b's kThreads elements: a tree in static shared memory, a fixed
// order of additions (deterministic on any device).
template <int kThreads>
__global__ void __launch_bounds__(kThreads) block_reduce_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  __shared__ float s[kThreads];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  s[threadIdx.x] = i < n ? vk::ld_global(x + i) : 0.f;
  __syncthreads();
#pragma unroll
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) vk::st_global(out + blockIdx.x, s[0]);
}

at::Tensor st_block_reduce(at::Tensor x, int64_t threads) {
  TORCH_CHECK(x.dim() == 1 && x.scalar_type() == at::kFloat && x.is_contiguous(), "x: contiguous float32 [n]");
  const int64_t n = x.numel();
  auto out = at::empty({blocks_for(n, int(threads))}, x.options());
  const dim3 grid(unsigned(out.numel()));
  const float* xp = x.data_ptr<float>();
  float* op = out.data_ptr<float>();
  switch (threads) {
    case 32: block_reduce_kernel<32><<<grid, 32, 0, stream()>>>(xp, op, n); break;
    case 128: block_reduce_kernel<128><<<grid, 128, 0, stream()>>>(xp, op, n); break;
    case 256: block_reduce_kernel<256><<<grid, 256, 0, stream()>>>(xp, op, n); break;
    case 1024: block_reduce_kernel<1024><<<grid, 1024, 0, stream()>>>(xp, op, n); break;
    default: TORCH_CHECK(false, "threads must be 32, 128, 256 or 1024, got ", threads);
  }
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ warp shuffles
// One block of vals.numel() threads; lanes in `mask` shuffle vals with b[lane] as srcLane / delta /
// laneMask; the others write `sentinel`. mode: 0 idx, 1 up, 2 down, 3 xor.
template <typename T>
__global__ void shfl_kernel(const T* vals, const int* b, T* out, int mode, int width, unsigned mask, T sentinel) {
  const int t = threadIdx.x, lane = t % 32;
  const T v = vals[t];
  T r = sentinel;
  if (mask >> lane & 1u) {
    switch (mode) {
      case 0: r = __shfl_sync(mask, v, b[t], width); break;
      case 1: r = __shfl_up_sync(mask, v, unsigned(b[t]), width); break;
      case 2: r = __shfl_down_sync(mask, v, unsigned(b[t]), width); break;
      default: r = __shfl_xor_sync(mask, v, b[t], width); break;
    }
  }
  out[t] = r;
}

at::Tensor st_shfl(at::Tensor vals, at::Tensor b, int64_t mode, int64_t width, int64_t mask) {
  TORCH_CHECK(vals.dim() == 1 && vals.numel() <= 1024 && vals.numel() % 32 == 0, "vals: [32k], k <= 32");
  TORCH_CHECK(b.scalar_type() == at::kInt && b.numel() == vals.numel(), "b: int32 like vals");
  auto out = at::empty_like(vals);
  const unsigned m = unsigned(uint32_t(mask));
  const int n = int(vals.numel());
  if (vals.scalar_type() == at::kInt)
    shfl_kernel<int><<<1, n, 0, stream()>>>(vals.data_ptr<int>(), b.data_ptr<int>(), out.data_ptr<int>(), int(mode), int(width), m, INT32_MIN);
  else if (vals.scalar_type() == at::kLong)
    shfl_kernel<long long><<<1, n, 0, stream()>>>(reinterpret_cast<long long*>(vals.data_ptr<int64_t>()), b.data_ptr<int>(),
                                                  reinterpret_cast<long long*>(out.data_ptr<int64_t>()), int(mode), int(width), m, INT64_MIN);
  else
    TORCH_CHECK(false, "vals must be int32 or int64");
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ votes, matches, reductions
// out[t] = {ballot, any, all, match_any, match_all, match_all pred, reduce add, min, max, umin, and,
// or, xor} for lanes in `mask` (others: -1).
constexpr int kWarpOps = 13;
__global__ void warp_ops_kernel(const int* pred, const int* vals, int* out, unsigned mask) {
  const int t = threadIdx.x, lane = t % 32;
  int* o = out + t * kWarpOps;
  if (!(mask >> lane & 1u)) {
    for (int k = 0; k < kWarpOps; ++k) o[k] = -1;
    return;
  }
  const int p = pred[t], v = vals[t];
  o[0] = int(__ballot_sync(mask, p));
  o[1] = __any_sync(mask, p);
  o[2] = __all_sync(mask, p);
  o[3] = int(__match_any_sync(mask, v));
  int all_pred = 0;
  o[4] = int(__match_all_sync(mask, v, &all_pred));
  o[5] = all_pred;
  o[6] = __reduce_add_sync(mask, v);
  o[7] = __reduce_min_sync(mask, v);
  o[8] = __reduce_max_sync(mask, v);
  o[9] = int(__reduce_min_sync(mask, unsigned(v)));
  o[10] = int(__reduce_and_sync(mask, unsigned(v)));
  o[11] = int(__reduce_or_sync(mask, unsigned(v)));
  o[12] = int(__reduce_xor_sync(mask, unsigned(v)));
  __syncwarp(mask);
}

at::Tensor st_warp_ops(at::Tensor pred, at::Tensor vals, int64_t mask) {
  TORCH_CHECK(pred.scalar_type() == at::kInt && vals.scalar_type() == at::kInt && pred.numel() == vals.numel(), "int32 pred, vals");
  TORCH_CHECK(vals.numel() % 32 == 0 && vals.numel() <= 1024, "whole warps, at most 1024 threads");
  auto out = at::empty({vals.numel(), kWarpOps}, vals.options());
  warp_ops_kernel<<<1, int(vals.numel()), 0, stream()>>>(pred.data_ptr<int>(), vals.data_ptr<int>(), out.data_ptr<int>(), unsigned(uint32_t(mask)));
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ dynamic smem, 1D/2D/3D launches
// Each thread writes its linear id into dynamic shared memory; after a barrier it reads the slot
// of the mirrored thread. out[global thread] = {tid.x, tid.y, tid.z, bid.x, bid.y, bid.z, mirrored
// id, blockDim.x*y*z, gridDim.x*y*z}.
constexpr int kIdCols = 9;
__global__ void ids_kernel(int* out) {
  extern __shared__ int ids[];
  const int nt = int(blockDim.x * blockDim.y * blockDim.z);
  const int t = int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int b = int(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  ids[t] = t;
  __syncthreads();
  int* o = out + (int64_t(b) * nt + t) * kIdCols;
  o[0] = int(threadIdx.x); o[1] = int(threadIdx.y); o[2] = int(threadIdx.z);
  o[3] = int(blockIdx.x); o[4] = int(blockIdx.y); o[5] = int(blockIdx.z);
  o[6] = ids[nt - 1 - t];
  o[7] = nt;
  o[8] = int(gridDim.x * gridDim.y * gridDim.z);
}

at::Tensor st_ids(at::Tensor like, std::vector<int64_t> grid, std::vector<int64_t> block) {
  TORCH_CHECK(grid.size() == 3 && block.size() == 3, "grid and block: 3 ints");
  const dim3 g{static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2])};
  const dim3 b{static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2])};
  const int64_t nt = block[0] * block[1] * block[2], nb = grid[0] * grid[1] * grid[2];
  auto out = at::full({nb * nt, kIdCols}, -1, like.options().dtype(at::kInt));
  ids_kernel<<<g, b, size_t(nt) * sizeof(int), stream()>>>(out.data_ptr<int>());
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ dynamic smem opt-in
__global__ void big_smem_kernel(float* out, int n) {
  float* s = vk::dynamic_smem<float>();
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  if (threadIdx.x == 0) {
    float acc = 0.f;
    for (int i = 0; i < n; ++i) acc += s[i];
    out[0] = acc;
  }
}

// Sets the opt-in (when optin > 0) and launches with `bytes` of dynamic smem; returns the CUDA
// error code of the attribute call (0 when not made) and of the launch, and the kernel's result.
std::vector<int64_t> st_smem_optin(at::Tensor out, int64_t bytes, int64_t optin) {
  int64_t attr = 0;
  if (optin > 0) attr = cudaFuncSetAttribute(big_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(optin));
  (void)cudaGetLastError();
  big_smem_kernel<<<1, 128, size_t(bytes), stream()>>>(out.data_ptr<float>(), int(bytes / 4));
  const int64_t launch = cudaGetLastError();
  return {attr, launch};
}

// Device attributes as launch code sees them.
std::vector<int64_t> st_device_attrs() {
  int dev = -1, sms = 0, optin = 0, per_block = 0, warp = 0, major = 0, minor = 0, per_sm = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, dev);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  const cudaDeviceProp* p = at::cuda::getCurrentDeviceProperties();
  return {dev, sms, optin, per_block, warp, major, minor, per_sm, p->multiProcessorCount, int64_t(p->sharedMemPerBlockOptin)};
}

// Host API calls launch code makes: device guards, memset/memcpy on the stream, occupancy and
// function attributes. Returns {x's bytes set to 0x3f, a copy of x, [occupancy of
// block_reduce_kernel<256> with 256 threads, its maxThreadsPerBlock]}.
std::vector<at::Tensor> st_host_api(at::Tensor x) {
  const at::cuda::OptionalCUDAGuard guard(x.device());
  auto a = at::empty_like(x), b = at::empty_like(x);
  const cudaStream_t s = stream();
  C10_CUDA_CHECK(cudaMemsetAsync(a.data_ptr(), 0x3f, a.nbytes(), s));
  C10_CUDA_CHECK(cudaMemcpyAsync(b.data_ptr(), x.data_ptr(), x.nbytes(), cudaMemcpyDeviceToDevice, s));
  int blocks = 0;
  C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, block_reduce_kernel<256>, 256, 0));
  cudaFuncAttributes fa;
  C10_CUDA_CHECK(cudaFuncGetAttributes(&fa, block_reduce_kernel<256>));
  return {a, b, at::tensor({int64_t(blocks), int64_t(fa.maxThreadsPerBlock)})};
}

// ------------------------------------------------------------------ atomics
// ints[0]: sum (atomicAdd), [1]: max, [2]: min, [3]: count of CAS-claimed slots, [4]: atomicInc
// counter (wraps at 7), [5]: exchanges seen, [6]: or of bits, [7]: xor; hist[16]: shared-memory
// histogram of x & 15 flushed with global atomicAdd; fsum: float atomicAdd (exact for integer-valued
// inputs); bsum: bf16x2 atomicAdd.
constexpr int kAtomicInts = 8;
__global__ void atomics_kernel(const int* x, int n, int* ints, int* hist, float* fsum, int* claimed) {
  __shared__ int h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    const int v = x[i];
    atomicAdd(&ints[0], v);
    atomicMax(&ints[1], v);
    atomicMin(&ints[2], v);
    if (atomicCAS(&claimed[v & 63], 0, 1) == 0) atomicAdd(&ints[3], 1);
    atomicInc(reinterpret_cast<unsigned*>(&ints[4]), 7u);
    atomicExch(&ints[5], 1);
    atomicOr(&ints[6], 1 << (v & 31));
    atomicXor(&ints[7], v);
    atomicAdd(&h[v & 15], 1);
    atomicAdd(fsum, float(v));
  }
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

std::vector<at::Tensor> st_atomics(at::Tensor x) {
  TORCH_CHECK(x.scalar_type() == at::kInt && x.dim() == 1, "x: int32 [n]");
  const int n = int(x.numel());
  auto ints = at::zeros({kAtomicInts}, x.options());
  ints[1].fill_(INT32_MIN);
  ints[2].fill_(INT32_MAX);
  auto hist = at::zeros({16}, x.options());
  auto fsum = at::zeros({1}, x.options().dtype(at::kFloat));
  auto claimed = at::zeros({64}, x.options());
  atomics_kernel<<<unsigned(blocks_for(n, 128)), 128, 0, stream()>>>(x.data_ptr<int>(), n, ints.data_ptr<int>(), hist.data_ptr<int>(),
                                                                     fsum.data_ptr<float>(), claimed.data_ptr<int>());
  ST_CHECK_LAUNCH();
  return {ints, hist, fsum};
}

// ------------------------------------------------------------------ bf16 / fp16 conversions
// mode 0: bf16 bits -> f32; 1: f16 bits -> f32; 2: f32 -> bf16 bits (rn); 3: f32 -> f16 bits (rn);
// 4: pack_bf16x2(x[2i], x[2i+1]) bits; 5: pack_f16x2; 6: four e4m3 codes (word i) -> four bf16 (words 2i, 2i+1),
// the fp8-cache conversion the paged kernel uses (vk::e4m3x4_to_bf16x4).
__global__ void convert_kernel(const void* in, void* out, int64_t n, int mode) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint16_t* bits = static_cast<const uint16_t*>(in);
  const float* f = static_cast<const float*>(in);
  switch (mode) {
    case 0: static_cast<float*>(out)[i] = __bfloat162float(__ushort_as_bfloat16(bits[i])); break;
    case 1: static_cast<float*>(out)[i] = __half2float(__ushort_as_half(bits[i])); break;
    case 2: static_cast<uint16_t*>(out)[i] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i])); break;
    case 3: static_cast<uint16_t*>(out)[i] = __half_as_ushort(__float2half_rn(f[i])); break;
    case 4: static_cast<uint32_t*>(out)[i] = vk::pack_bf16x2(f[2 * i], f[2 * i + 1]); break;
    case 6: static_cast<uint2*>(out)[i] = vk::e4m3x4_to_bf16x4(static_cast<const uint32_t*>(in)[i]); break;
    default: static_cast<uint32_t*>(out)[i] = vk::pack_f16x2(f[2 * i], f[2 * i + 1]); break;
  }
}

at::Tensor st_convert(at::Tensor in, int64_t mode) {
  TORCH_CHECK(in.is_contiguous(), "in: contiguous");
  at::Tensor out;
  int64_t n = in.numel();
  if (mode <= 1) { TORCH_CHECK(in.scalar_type() == at::kShort, "bits: int16"); out = at::empty(in.sizes(), in.options().dtype(at::kFloat)); }
  else if (mode <= 3) { TORCH_CHECK(in.scalar_type() == at::kFloat, "x: float32"); out = at::empty(in.sizes(), in.options().dtype(at::kShort)); }
  else if (mode <= 5) { TORCH_CHECK(in.scalar_type() == at::kFloat && n % 2 == 0, "x: float32, even length"); n /= 2; out = at::empty({n}, in.options().dtype(at::kInt)); }
  else { TORCH_CHECK(mode == 6 && in.scalar_type() == at::kInt, "mode 6: e4m3 codes packed four to an int32 word"); out = at::empty({2 * n}, in.options().dtype(at::kInt)); }
  if (n == 0) return out;
  convert_kernel<<<unsigned(blocks_for(n, 256)), 256, 0, stream()>>>(in.data_ptr(), out.data_ptr(), n, int(mode));
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ ldmatrix
// One warp; smem holds 32 rows of 8 b16 values (src, row-major). Lane l gives the address of row
// perm[l]. variant: count (1, 2, 4) | trans << 8. out[l][i] = r[i] of lane l (0 for i >= count).
__global__ void ldmatrix_kernel(const uint16_t* src, const int* perm, int* out, int variant) {
  __shared__ __align__(16) uint16_t rows[32][8];
  const int l = threadIdx.x;
  for (int k = 0; k < 8; ++k) rows[l][k] = src[l * 8 + k];
  __syncwarp();
  uint32_t r[4] = {0, 0, 0, 0};
  const void* row = rows[perm[l]];
  switch (variant) {
    case 1: { uint32_t q[1]; vk::ldmatrix_x1(q, row); r[0] = q[0]; break; }
    case 2: { uint32_t q[2]; vk::ldmatrix_x2(q, row); r[0] = q[0]; r[1] = q[1]; break; }
    case 4: { uint32_t q[4]; vk::ldmatrix_x4(q, row); for (int i = 0; i < 4; ++i) r[i] = q[i]; break; }
    case 256 + 1: { uint32_t q[1]; vk::ldmatrix_x1_trans(q, row); r[0] = q[0]; break; }
    case 256 + 2: { uint32_t q[2]; vk::ldmatrix_x2_trans(q, row); r[0] = q[0]; r[1] = q[1]; break; }
    default: { uint32_t q[4]; vk::ldmatrix_x4_trans(q, row); for (int i = 0; i < 4; ++i) r[i] = q[i]; break; }
  }
  for (int i = 0; i < 4; ++i) out[l * 4 + i] = int(r[i]);
}

at::Tensor st_ldmatrix(at::Tensor src, at::Tensor perm, int64_t count, bool trans) {
  TORCH_CHECK(src.scalar_type() == at::kShort && src.numel() == 256, "src: int16 [32, 8]");
  TORCH_CHECK(perm.scalar_type() == at::kInt && perm.numel() == 32, "perm: int32 [32]");
  TORCH_CHECK(count == 1 || count == 2 || count == 4, "count: 1, 2 or 4");
  auto out = at::empty({32, 4}, perm.options());
  ldmatrix_kernel<<<1, 32, 0, stream()>>>(reinterpret_cast<const uint16_t*>(src.data_ptr<int16_t>()), perm.data_ptr<int>(),
                                          out.data_ptr<int>(), int(count) | (trans ? 256 : 0));
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ mma.sync m16n8k16
// D[16x8] = A[16x16] B[16x8] + C, one warp. via_ldmatrix: fragments loaded with ldmatrix from
// shared memory (A: x4, B stored [K][N] row-major: x2.trans); otherwise built by hand from the PTX
// ISA fragment layout with plain loads.
template <bool kBf16>
__global__ void mma_kernel(const uint16_t* A, const uint16_t* B, const float* C, float* D, bool via_ldmatrix) {
  __shared__ __align__(16) uint16_t sa[16][16];
  __shared__ __align__(16) uint16_t sb[16][8];
  const int l = threadIdx.x, g = l / 4, t = l % 4;
  uint32_t a[4], b[2];
  if (via_ldmatrix) {
    for (int k = l; k < 256; k += 32) sa[k / 16][k % 16] = A[k];
    for (int k = l; k < 128; k += 32) sb[k / 8][k % 8] = B[k];
    __syncwarp();
    const int mi = l / 8, r = l % 8;  // A: matrices (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15)
    vk::ldmatrix_x4(a, &sa[(mi % 2) * 8 + r][(mi / 2) * 8]);
    vk::ldmatrix_x2_trans(b, &sb[(l % 16)][0]);  // lanes 0-15: rows k of B; .trans gives B[k][n] per column n
  } else {
    auto pk = [](uint16_t lo, uint16_t hi) { return uint32_t(lo) | (uint32_t(hi) << 16); };
    a[0] = pk(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]);
    a[1] = pk(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]);
    a[2] = pk(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]);
    a[3] = pk(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9]);
    b[0] = pk(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
    b[1] = pk(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g]);
  }
  const float c[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]};
  float d[4];
  if (kBf16) vk::mma_bf16_16816(d, a, b, c);
  else vk::mma_f16_16816(d, a, b, c);
  D[g * 8 + 2 * t] = d[0];
  D[g * 8 + 2 * t + 1] = d[1];
  D[(g + 8) * 8 + 2 * t] = d[2];
  D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

at::Tensor st_mma(at::Tensor A, at::Tensor B, at::Tensor C, bool via_ldmatrix) {
  TORCH_CHECK(A.sizes() == at::IntArrayRef({16, 16}) && B.sizes() == at::IntArrayRef({16, 8}) && C.sizes() == at::IntArrayRef({16, 8}),
              "A [16,16], B [16,8] (K x N), C [16,8]");
  TORCH_CHECK(A.scalar_type() == B.scalar_type() && (A.scalar_type() == at::kBFloat16 || A.scalar_type() == at::kHalf), "A, B: both bf16 or both f16");
  TORCH_CHECK(C.scalar_type() == at::kFloat && A.is_contiguous() && B.is_contiguous() && C.is_contiguous(), "C float32; all contiguous");
  auto D = at::empty_like(C);
  const uint16_t* a = static_cast<const uint16_t*>(A.data_ptr());
  const uint16_t* b = static_cast<const uint16_t*>(B.data_ptr());
  if (A.scalar_type() == at::kBFloat16) mma_kernel<true><<<1, 32, 0, stream()>>>(a, b, C.data_ptr<float>(), D.data_ptr<float>(), via_ldmatrix);
  else mma_kernel<false><<<1, 32, 0, stream()>>>(a, b, C.data_ptr<float>(), D.data_ptr<float>(), via_ldmatrix);
  ST_CHECK_LAUNCH();
  return D;
}

// ------------------------------------------------------------------ mma.sync throughput
// Every warp issues `iters` rounds of kRateChains independent mma.sync m16n8k16 (bf16 operands, fp32 accumulation)
// on fragments of 0.125: each product is 1/64, so each mma adds 16/64 = 0.25 to every accumulator, exactly. Each
// thread writes the sum of its accumulators: kRateChains * 4 * 0.25 * iters = kRateChains * iters (exact while
// iters <= 2^20). Timed on a GPU it gives the card's dense mma.sync rate (check step (a)); the emulator checks the sums.
constexpr int kRateChains = 8;

__global__ void mma_rate_kernel(float* out, int iters) {
  constexpr uint32_t kEighths = 0x3E003E00u;  // two bf16 0.125
  const uint32_t a[4] = {kEighths, kEighths, kEighths, kEighths}, b[2] = {kEighths, kEighths};
  float acc[kRateChains][4] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kRateChains; ++c) {
      float d[4];
      vk::mma_bf16_16816(d, a, b, acc[c]);
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[c][e] = d[e];
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < kRateChains; ++c) sum += (acc[c][0] + acc[c][1]) + (acc[c][2] + acc[c][3]);
  out[int64_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

at::Tensor st_mma_rate(at::Tensor like, int64_t blocks, int64_t threads, int64_t iters) {
  TORCH_CHECK(blocks >= 1 && blocks <= (1 << 20), "st_mma_rate: blocks must be in [1, 2^20], got ", blocks);
  TORCH_CHECK(threads >= 32 && threads <= 1024 && threads % 32 == 0, "st_mma_rate: threads must be whole warps, 32 to 1024, got ", threads);
  TORCH_CHECK(iters >= 1 && iters <= (1 << 20), "st_mma_rate: iters must be in [1, 2^20] (the sums stay exact), got ", iters);
  auto out = at::empty({blocks * threads}, like.options().dtype(at::kFloat));
  mma_rate_kernel<<<unsigned(blocks), unsigned(threads), 0, stream()>>>(out.data_ptr<float>(), int(iters));
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ thread-block clusters (sm_90 and later)
// Every CTA of a cluster puts its 64 values in shared memory; after a cluster barrier each sums, in rank order, the 64
// values of every CTA of its cluster read from their shared memory (distributed shared memory), and a second barrier
// keeps each CTA's shared memory until every peer has read it. The same fp32 adds in the same order on the GPU and on
// the emulator: bitwise equal.
__global__ void cluster_sum_kernel(const float* x, float* out, int* ranks) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  float* vals = vk::dynamic_smem<float>();
  const unsigned rank = __clusterRelativeBlockRank(), size = __clusterSizeInBlocks();
  const int64_t i = int64_t(blockIdx.x) * 64 + threadIdx.x;
  vals[threadIdx.x] = x[i];
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  float acc = 0.f;
  for (unsigned q = 0; q < size; ++q) acc += static_cast<const float*>(__cluster_map_shared_rank(vals, q))[threadIdx.x];
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  out[i] = acc;
  if (threadIdx.x == 0) ranks[blockIdx.x] = int(rank);
#endif
}

// A launch configuration of `grid` CTAs in 1-D clusters of `cluster` (attr: its one attribute's storage).
cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, size_t smem, unsigned cluster, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid; cfg.blockDim = block; cfg.dynamicSmemBytes = smem; cfg.stream = stream();
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  return cfg;
}

std::vector<at::Tensor> st_cluster_sum(at::Tensor x, int64_t cluster) {
  TORCH_CHECK(x.dtype() == at::kFloat && x.is_contiguous() && x.numel() % 64 == 0, "st_cluster_sum: x must be contiguous fp32, 64 values a CTA");
  const int64_t blocks = x.numel() / 64;
  TORCH_CHECK(cluster >= 0 && cluster <= 8 && (cluster == 0 || blocks % cluster == 0),
              "st_cluster_sum: cluster must be 0 (a launch without clusters) or 1-8 dividing the ", blocks, " CTAs, got ", cluster);
  auto out = at::empty_like(x);
  auto ranks = at::empty({blocks}, x.options().dtype(at::kInt));
  if (cluster == 0) {  // no cluster dimension: each CTA a cluster of one
    cluster_sum_kernel<<<unsigned(blocks), 64, 64 * sizeof(float), stream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), ranks.data_ptr<int>());
    ST_CHECK_LAUNCH();
    return {out, ranks};
  }
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_config(dim3(unsigned(blocks)), dim3(64), 64 * sizeof(float), unsigned(cluster), attr);
  C10_CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_sum_kernel, x.data_ptr<float>(), out.data_ptr<float>(), ranks.data_ptr<int>()));
  return {out, ranks};
}

// Shared-memory read throughput, the probe for plans/0002 4f (is the GPC's SM-to-SM network faster than L2 for a cluster's
// reduction?): every CTA fills `bytes` of its dynamic shared memory with 1.0f, then reads a whole buffer `iters` times,
// float4 a thread a step, from `source` 0: its own shared memory, 1: its cluster's next CTA's (distributed shared memory),
// 2: global memory through L2 only (`__ldcg`, a buffer of `bytes` a CTA, L1 bypassed). Every thread's sum is exact (4 x
// its float4 loads), so a wrong sum (a missed byte) shows.
__global__ void smem_rate_kernel(const float4* global, float* out, int bytes, int iters, int source) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  float4* mine = vk::dynamic_smem<float4>();
  const int n4 = bytes / 16;
  for (int k = threadIdx.x; k < n4; k += blockDim.x) mine[k] = make_float4(1.f, 1.f, 1.f, 1.f);
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  const unsigned next = (__clusterRelativeBlockRank() + 1) % __clusterSizeInBlocks();
  const float4* from = source == 1 ? static_cast<const float4*>(__cluster_map_shared_rank(mine, next)) : mine;
  const float4* g = global + int64_t(blockIdx.x) * n4;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int it = 0; it < iters; ++it)
    for (int k = threadIdx.x; k < n4; k += blockDim.x) {
      const float4 v = source == 2 ? __ldcg(g + k) : from[k];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  __cluster_barrier_arrive();  // the next CTA's shared memory stays until this one has read it
  __cluster_barrier_wait();
  out[int64_t(blockIdx.x) * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
#endif
}

at::Tensor st_smem_rate(at::Tensor like, int64_t clusters, int64_t cluster, int64_t kbytes, int64_t iters, int64_t source) {
  TORCH_CHECK(clusters >= 1 && clusters <= (1 << 16) && cluster >= 1 && cluster <= 8, "st_smem_rate: clusters must be in [1, 2^16], cluster 1-8");
  TORCH_CHECK(kbytes >= 1 && kbytes <= 96 && iters >= 1 && iters <= (1 << 16) && source >= 0 && source <= 2,
              "st_smem_rate: kbytes 1-96, iters in [1, 2^16], source 0 (own), 1 (the cluster's next CTA) or 2 (L2)");
  const int threads = 256, bytes = int(kbytes) * 1024;
  const int64_t blocks = clusters * cluster;
  auto out = at::empty({blocks * threads}, like.options().dtype(at::kFloat));
  auto global = at::ones({source == 2 ? blocks * bytes / 4 : 4}, like.options().dtype(at::kFloat));
  C10_CUDA_CHECK(cudaFuncSetAttribute(smem_rate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_config(dim3(unsigned(blocks)), dim3(threads), size_t(bytes), unsigned(cluster), attr);
  C10_CUDA_CHECK(cudaLaunchKernelEx(&cfg, smem_rate_kernel, reinterpret_cast<const float4*>(global.data_ptr<float>()), out.data_ptr<float>(),
                                    bytes, int(iters), int(source)));
  return out;
}

// ------------------------------------------------------------------ cp.async
// Thread r copies 16-byte row r of src into dynamic smem (zero-fill where valid[r] == 0) in two
// commit groups (even rows, then odd rows); it reads its destination before any wait (early),
// after cp_async_wait<1> (the even group is complete: mid) and after cp_async_wait<0> (late).
// On a GPU `early` (and `mid` for odd rows) race with the copy; the emulator lands a group's bytes
// when the issuing thread waits for it.
__global__ void cp_async_kernel(const float4* src, const int* valid, float4* early, float4* mid, float4* late) {
  float4* s = vk::dynamic_smem<float4>();
  const int r = threadIdx.x, n = blockDim.x;
  const bool even = r % 2 == 0;
  if (even) vk::cp_async_16(&s[r], &src[r], valid[r] != 0);
  vk::cp_async_commit();
  if (!even) vk::cp_async_16(&s[r], &src[r], valid[r] != 0);
  vk::cp_async_commit();
  early[r] = s[r];
  vk::cp_async_wait<1>();
  mid[r] = s[r];
  vk::cp_async_wait<0>();
  __syncthreads();
  late[r] = s[n - 1 - r];  // another thread's row: visible after wait + barrier
}

std::vector<at::Tensor> st_cp_async(at::Tensor src, at::Tensor valid) {
  TORCH_CHECK(src.scalar_type() == at::kFloat && src.dim() == 2 && src.size(1) == 4 && src.size(0) <= 1024 && src.is_contiguous(), "src: float32 [rows <= 1024, 4]");
  TORCH_CHECK(valid.scalar_type() == at::kInt && valid.numel() == src.size(0), "valid: int32 [rows]");
  auto early = at::empty_like(src), mid = at::empty_like(src), late = at::empty_like(src);
  const int rows = int(src.size(0));
  cp_async_kernel<<<1, rows, size_t(rows) * 16, stream()>>>(reinterpret_cast<const float4*>(src.data_ptr<float>()), valid.data_ptr<int>(),
                                                            reinterpret_cast<float4*>(early.data_ptr<float>()), reinterpret_cast<float4*>(mid.data_ptr<float>()),
                                                            reinterpret_cast<float4*>(late.data_ptr<float>()));
  ST_CHECK_LAUNCH();
  return {early, mid, late};
}

// ------------------------------------------------------------------ counted traffic
// Thread i < n: one 4-byte ld_global of x[i], one 4-byte ldg of y[i % m], and when i % 4 == 0 one
// 16-byte ld_global (float4) of x[i..i+3] (x is 16-byte aligned, n % 4 == 0); one cp.async of
// x[i..i+3] that is valid only for i % 8 == 0; one 4-byte st_global of out[i]. Block 0 thread 0
// also does __ldg(&y[0]). The notebook counts this by hand.
__global__ void traffic_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, int n, int m) {
  float4* s = vk::dynamic_smem<float4>();
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    float acc = vk::ld_global(x + i) + vk::ldg(y + i % m);
    if (i % 4 == 0) {
      const float4 v = vk::ld_global(reinterpret_cast<const float4*>(x + i));
      acc += v.x + v.y + v.z + v.w;
      vk::cp_async_16(&s[threadIdx.x], x + i, i % 8 == 0);
    }
    vk::cp_async_commit();
    vk::cp_async_wait<0>();
    if (i == 0) acc += __ldg(y);
    vk::st_global(out + i, acc);
  }
}

at::Tensor st_traffic(at::Tensor x, at::Tensor y, int64_t threads) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && y.scalar_type() == at::kFloat && x.is_contiguous() && y.is_contiguous(), "float32, contiguous");
  TORCH_CHECK(x.numel() % 4 == 0 && reinterpret_cast<uintptr_t>(x.data_ptr()) % 16 == 0, "x: 16-byte aligned, numel % 4 == 0");
  auto out = at::empty_like(x);
  const int n = int(x.numel()), m = int(y.numel());
  traffic_kernel<<<unsigned(blocks_for(n, int(threads))), unsigned(threads), size_t(threads) * 16, stream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(), n, m);
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ integer and float intrinsics
// out[i] = {popc, clz, ffs, brev, byte_perm(v, ~v, sel[i%8]), funnelshift_l, funnelshift_r,
// mulhi, float_as_uint(int_as_float(v)), __float2int_rn(v / 7), min, max} (ints); fout[i] =
// {__fdividef, __frcp_rn, __expf, exp2f, __saturatef, rsqrtf} of f[i] (floats).
constexpr int kIntrInts = 12, kIntrFloats = 6;
__global__ void intrinsics_kernel(const int* v, const float* f, int* out, float* fout, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const int x = v[i];
  const unsigned u = unsigned(x);
  int* o = out + i * kIntrInts;
  o[0] = __popc(u);
  o[1] = __clz(x);
  o[2] = __ffs(x);
  o[3] = int(__brev(u));
  const unsigned sel[8] = {0x3210u, 0x7654u, 0x0123u, 0x4567u, 0x5140u, 0x2637u, 0x1111u, 0x7070u};
  o[4] = int(__byte_perm(u, ~u, sel[i % 8]));
  o[5] = int(__funnelshift_l(u, u * 2654435761u, unsigned(i % 40)));
  o[6] = int(__funnelshift_r(u, u * 2654435761u, unsigned(i % 40)));
  o[7] = __mulhi(x, 1103515245);
  o[8] = int(__float_as_uint(__int_as_float(x)));
  o[9] = __float2int_rn(float(x % 1000) / 8.0f);
  o[10] = min(x, 12345);
  o[11] = max(x, -12345);
  const float a = f[i];
  float* p = fout + i * kIntrFloats;
  p[0] = __fdividef(a, 3.0f);
  p[1] = __frcp_rn(a);
  p[2] = __expf(a);
  p[3] = exp2f(a);
  p[4] = __saturatef(a);
  p[5] = rsqrtf(fabsf(a));
}

std::vector<at::Tensor> st_intrinsics(at::Tensor v, at::Tensor f) {
  TORCH_CHECK(v.scalar_type() == at::kInt && f.scalar_type() == at::kFloat && v.numel() == f.numel(), "v int32, f float32, same length");
  const int n = int(v.numel());
  auto out = at::empty({n, kIntrInts}, v.options());
  auto fout = at::empty({n, kIntrFloats}, f.options());
  intrinsics_kernel<<<unsigned(blocks_for(n, 128)), 128, 0, stream()>>>(v.data_ptr<int>(), f.data_ptr<float>(), out.data_ptr<int>(), fout.data_ptr<float>(), n);
  ST_CHECK_LAUNCH();
  return {out, fout};
}

// ------------------------------------------------------------------ errors the emulator must report
// kind 1: thread 5 exits before a __syncthreads; 2: two halves of the block wait at different
// __syncthreads; 3: lane 3 exits before a full-mask shuffle; 4: half a warp shuffles while the
// other half waits at __syncthreads (deadlock); 5: assert; 6: __trap; 7: ldmatrix with a
// misaligned row address; 8: a lane calls a shuffle with a mask that excludes it; 9: shuffle
// width 3; 10: a full-mask shuffle in a 48-thread block (lanes 16-31 of warp 1 do not exist);
// 11: a 1 MB local array, more than a fiber stack (only in a subprocess: the process ends);
// 12: a misaligned float4 vk::ldg (the emulator checks every vk:: global access's alignment);
// 0: none of these (the same kernel runs cleanly).
__device__ __noinline__ int big_frame(int t) {
  volatile char big[1 << 20];
  big[t] = char(t);
  return big[t];
}

__global__ void error_kernel(int* out, int kind) {
  const int t = threadIdx.x, lane = t % 32;
  int v = t;
  __shared__ __align__(16) uint16_t rows[32][8];
  switch (kind) {
    case 1:
      if (t == 5) return;
      __syncthreads();
      break;
    case 2:
      if (t < 32) __syncthreads();
      else __syncthreads();
      break;
    case 3:
      if (lane == 3) return;
      v = __shfl_sync(0xffffffffu, v, 0);
      break;
    case 4:
      if (lane < 16) v = __shfl_sync(0xffffffffu, v, 0);
      else __syncthreads();
      break;
    case 5:
      assert(t != 7 && "thread 7 is not welcome");
      break;
    case 6:
      if (blockIdx.x == 1 && t == 9) __trap();
      break;
    case 7: {
      uint32_t r[1];
      vk::ldmatrix_x1(r, reinterpret_cast<const unsigned char*>(rows[lane % 8]) + (lane == 2 ? 4 : 0));
      v = int(r[0]);
      break;
    }
    case 8:
      v = __shfl_sync(lane == 4 ? 0xffffffefu : 0xffffffffu, v, 0);
      break;
    case 9:
      v = __shfl_sync(0xffffffffu, v, 0, 3);
      break;
    case 10:
      v = __shfl_sync(0xffffffffu, v, 0);
      break;
    case 12: {  // a float4 load 4 bytes past a 16-byte boundary (a GPU faults: misaligned address)
      const float4 f = vk::ldg(reinterpret_cast<const float4*>(reinterpret_cast<const char*>(out) + 4));
      v = int(f.x);
      break;
    }
    default:
      __syncthreads();
      v = __shfl_sync(0xffffffffu, v, 0);
      break;
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// Kind 11 in a kernel of its own: a GPU sizes a kernel's local memory for its deepest call, so the 1 MB frame in
// error_kernel made every launch of it fail with cudaErrorInvalidValue (per-thread local memory is capped below 1 MB),
// the clean kind 0 included (found on an H200, 2026-12-04).
__global__ void big_frame_kernel(int* out) {
  const int t = threadIdx.x;
  out[blockIdx.x * blockDim.x + t] = big_frame(t);
}

at::Tensor st_error(at::Tensor like, int64_t kind) {
  const int threads = kind == 10 ? 48 : 64;
  auto out = at::zeros({2 * threads}, like.options().dtype(at::kInt));
  if (kind == 11) big_frame_kernel<<<2, threads, 0, stream()>>>(out.data_ptr<int>());
  else error_kernel<<<2, threads, 0, stream()>>>(out.data_ptr<int>(), int(kind));
  ST_CHECK_LAUNCH();
  return out;
}

// A launch with `threads` threads per block (> 1024 is an invalid configuration).
at::Tensor st_launch_threads(at::Tensor like, int64_t threads) {
  auto out = at::zeros({int64_t(2) * threads}, like.options().dtype(at::kInt));
  error_kernel<<<2, unsigned(threads), 0, stream()>>>(out.data_ptr<int>(), 0);
  ST_CHECK_LAUNCH();
  return out;
}

// ------------------------------------------------------------------ flash-verify-sized workloads
// (the emulator's speed figures): 8 heads x 16 drafts = 128 query rows over a 512-token prefix,
// 576-dim latent keys, 512-dim values (the first 512 dims of each latent row, read in place).

// Scalar attention, one block per query row: s_j = (q . k_j) * scale (576 dims, 128-bit loads),
// softmax over the n keys, o = sum_j p_j v_j (512 dims). q [rows, 576] bf16, kv [n, 576] bf16,
// out [rows, 512] f32. Every block reads the whole cache: each KV row is read once per query row.
namespace {
template <int kThreads>
__device__ float block_allreduce(float v, float* red, bool is_max) {
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float r = red[0];
  for (int i = 1; i < kThreads / 32; ++i) r = is_max ? fmaxf(r, red[i]) : r + red[i];
  __syncthreads();
  return r;
}
}  // namespace

template <int kThreads>
__global__ void __launch_bounds__(kThreads) attn_rowwise_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ kv,
                                                                float* __restrict__ out, int n, float scale) {
  constexpr int kD = 576, kDv = 512, kDvPerThread = kDv / kThreads;
  static_assert(kDvPerThread == 4, "4 value dims per thread");
  extern __shared__ float smem[];  // q row (576) then n scores
  float* qs = smem;
  float* p = smem + kD;
  __shared__ float red[kThreads / 32];
  const int row = blockIdx.x, t = threadIdx.x;
  const __nv_bfloat162* q2 = reinterpret_cast<const __nv_bfloat162*>(q + int64_t(row) * kD);
  for (int d = t; d < kD / 2; d += kThreads) {
    const __nv_bfloat162 v = vk::ld_global(q2 + d);
    qs[2 * d] = __low2float(v);
    qs[2 * d + 1] = __high2float(v);
  }
  __syncthreads();
  float mx = -INFINITY;
  for (int j = t; j < n; j += kThreads) {
    const uint4* k = reinterpret_cast<const uint4*>(kv + int64_t(j) * kD);
    float s = 0.f;
    for (int c = 0; c < kD / 8; ++c) {
      const uint4 u = vk::ld_global(k + c);  // 8 bf16
      const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&u);
#pragma unroll
      for (int e = 0; e < 4; ++e) s += qs[8 * c + 2 * e] * __low2float(h[e]) + qs[8 * c + 2 * e + 1] * __high2float(h[e]);
    }
    s *= scale;
    p[j] = s;
    mx = fmaxf(mx, s);
  }
  mx = block_allreduce<kThreads>(mx, red, true);
  float sum = 0.f;
  for (int j = t; j < n; j += kThreads) {
    const float e = __expf(p[j] - mx);
    p[j] = e;
    sum += e;
  }
  sum = block_allreduce<kThreads>(sum, red, false);  // its barriers also publish p[]
  float o[4] = {0.f, 0.f, 0.f, 0.f};
  for (int j = 0; j < n; ++j) {
    const uint2 u = vk::ld_global(reinterpret_cast<const uint2*>(kv + int64_t(j) * kD) + t);  // dims 4t..4t+3
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&u);
    o[0] += p[j] * __low2float(h[0]); o[1] += p[j] * __high2float(h[0]);
    o[2] += p[j] * __low2float(h[1]); o[3] += p[j] * __high2float(h[1]);
  }
  const float inv = 1.f / sum;
  vk::st_global(reinterpret_cast<float4*>(out + int64_t(row) * kDv) + t, make_float4(o[0] * inv, o[1] * inv, o[2] * inv, o[3] * inv));
}

at::Tensor st_attn_rowwise(at::Tensor q, at::Tensor kv, double scale) {
  TORCH_CHECK(q.scalar_type() == at::kBFloat16 && kv.scalar_type() == at::kBFloat16, "q, kv: bf16");
  TORCH_CHECK(q.dim() == 2 && q.size(1) == 576 && kv.dim() == 2 && kv.size(1) == 576 && q.is_contiguous() && kv.is_contiguous(), "q [rows, 576], kv [n, 576], contiguous");
  const int rows = int(q.size(0)), n = int(kv.size(0));
  auto out = at::empty({rows, 512}, q.options().dtype(at::kFloat));
  const size_t smem = (576 + size_t(n)) * sizeof(float);
  TORCH_CHECK(smem <= 48 * 1024, "n too large for this kernel's shared memory");
  attn_rowwise_kernel<128><<<rows, 128, smem, stream()>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()),
                                                         reinterpret_cast<const __nv_bfloat16*>(kv.data_ptr()), out.data_ptr<float>(), n, float(scale));
  ST_CHECK_LAUNCH();
  return out;
}

// Tensor-core tile loop: C[M,N] (f32) = A[M,K] (bf16, rows lda apart) x B, where B is given as
// [N][K] (kBKMajor: the latent keys in S = Q K^T) or as [K][N] (the values in O = P V, read in
// place from the latent cache with rows 576 apart). Block tile 64x64, 4 warps of 16 rows, K steps
// of 32 staged by cp.async (two stages), fragments by ldmatrix, mma.sync m16n8k16.
template <bool kBKMajor>
__global__ void __launch_bounds__(128) gemm_tc_kernel(const __nv_bfloat16* __restrict__ A, int64_t lda, const __nv_bfloat16* __restrict__ B,
                                                      int64_t ldb, float* __restrict__ C, int64_t ldc, int K) {
  constexpr int BM = 64, BN = 64, BK = 32;
  __shared__ __align__(16) __nv_bfloat16 sA[2][BM][BK];
  __shared__ __align__(16) __nv_bfloat16 sB[2][kBKMajor ? BN : BK][kBKMajor ? BK : BN];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int64_t m0 = int64_t(blockIdx.y) * BM, n0 = int64_t(blockIdx.x) * BN;
  auto load = [&](int stage, int k0) {
    for (int c = t; c < BM * BK / 8; c += 128) {
      const int r = c / (BK / 8), cc = c % (BK / 8);
      vk::cp_async_16(&sA[stage][r][cc * 8], A + (m0 + r) * lda + k0 + cc * 8);
    }
    if (kBKMajor) {
      for (int c = t; c < BN * BK / 8; c += 128) {
        const int r = c / (BK / 8), cc = c % (BK / 8);
        vk::cp_async_16(&sB[stage][r][cc * 8], B + (n0 + r) * ldb + k0 + cc * 8);
      }
    } else {
      for (int c = t; c < BK * BN / 8; c += 128) {
        const int r = c / (BN / 8), cc = c % (BN / 8);
        vk::cp_async_16(&sB[stage][r][cc * 8], B + (k0 + r) * ldb + n0 + cc * 8);
      }
    }
    vk::cp_async_commit();
  };
  float acc[8][4];
  for (int j = 0; j < 8; ++j)
    for (int e = 0; e < 4; ++e) acc[j][e] = 0.f;
  const int nk = K / BK;
  load(0, 0);
  for (int kt = 0; kt < nk; ++kt) {
    if (kt + 1 < nk) {
      load((kt + 1) & 1, (kt + 1) * BK);
      vk::cp_async_wait<1>();
    } else {
      vk::cp_async_wait<0>();
    }
    __syncthreads();
    const int s = kt & 1;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[4];
      const int mi = lane / 8, r = lane % 8;
      vk::ldmatrix_x4(a, &sA[s][warp * 16 + (mi % 2) * 8 + r][kk + (mi / 2) * 8]);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t b[2];
        if (kBKMajor) vk::ldmatrix_x2(b, &sB[s][j * 8 + lane % 8][kk + ((lane / 8) % 2) * 8]);
        else vk::ldmatrix_x2_trans(b, &sB[s][kk + lane % 16][j * 8]);
        vk::mma_bf16_16816(acc[j], a, b, acc[j]);
      }
    }
    __syncthreads();
  }
  const int g = lane / 4, tq = lane % 4;
  for (int j = 0; j < 8; ++j) {
    float* c0 = C + (m0 + warp * 16 + g) * ldc + n0 + j * 8 + 2 * tq;
    vk::st_global(reinterpret_cast<float2*>(c0), make_float2(acc[j][0], acc[j][1]));
    vk::st_global(reinterpret_cast<float2*>(c0 + 8 * ldc), make_float2(acc[j][2], acc[j][3]));
  }
}

// A [M, K] bf16; B [N, K] (b_kmajor) or [K, N] bf16; rows may be strided (inner stride 1, rows
// 16-byte aligned). Returns C [M, N] f32. M, N multiples of 64, K of 32.
at::Tensor st_gemm_tc(at::Tensor A, at::Tensor B, bool b_kmajor) {
  TORCH_CHECK(A.scalar_type() == at::kBFloat16 && B.scalar_type() == at::kBFloat16 && A.dim() == 2 && B.dim() == 2, "A, B: 2-D bf16");
  TORCH_CHECK(A.stride(1) == 1 && B.stride(1) == 1 && A.stride(0) % 8 == 0 && B.stride(0) % 8 == 0, "rows contiguous and 16-byte aligned");
  const int64_t M = A.size(0), K = A.size(1), N = b_kmajor ? B.size(0) : B.size(1);
  TORCH_CHECK((b_kmajor ? B.size(1) : B.size(0)) == K, "inner dimensions differ");
  TORCH_CHECK(M % 64 == 0 && N % 64 == 0 && K % 32 == 0, "M, N multiples of 64, K of 32");
  auto C = at::empty({M, N}, A.options().dtype(at::kFloat));
  const dim3 grid(unsigned(N / 64), unsigned(M / 64));
  const auto* a = reinterpret_cast<const __nv_bfloat16*>(A.data_ptr());
  const auto* b = reinterpret_cast<const __nv_bfloat16*>(B.data_ptr());
  if (b_kmajor) gemm_tc_kernel<true><<<grid, 128, 0, stream()>>>(a, A.stride(0), b, B.stride(0), C.data_ptr<float>(), N, int(K));
  else gemm_tc_kernel<false><<<grid, 128, 0, stream()>>>(a, A.stride(0), b, B.stride(0), C.data_ptr<float>(), N, int(K));
  ST_CHECK_LAUNCH();
  return C;
}
