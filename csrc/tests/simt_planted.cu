// simt_planted.cu - planted bugs a GPU exposes and a lenient emulator hides (nbs/01_simt.ipynb, "Fidelity: what a GPU
// leaves undefined"). Each kernel reads memory the CUDA programming model leaves undefined, or makes a vector access
// a GPU faults on; each gives the "right" answer where that memory happens to hold zeros or stale good values.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>
#include <cstring>
#include "vk/device.cuh"

namespace {
cudaStream_t stream() { return at::cuda::getCurrentCUDAStream(); }
constexpr int kThreads = 64;
}  // namespace

// Static shared memory read before it is written: `acc` is summed into with shared atomics but never set to 0 first
// (the bug). Thread 0 clears it after the block's result is out, so where static shared memory starts at zero and keeps
// the last block's values (the emulator before the poison), every block sums correctly. out[b] = sum of x's block b.
__global__ void planted_static_shared_kernel(const float* x, float* out) {
  __shared__ float acc;
  const int t = threadIdx.x;
  __syncthreads();
  atomicAdd(&acc, x[blockIdx.x * kThreads + t]);
  __syncthreads();
  if (t == 0) { out[blockIdx.x] = acc; acc = 0.f; }
}

at::Tensor pl_static_shared(at::Tensor x, int64_t blocks) {
  TORCH_CHECK(x.numel() == blocks * kThreads && x.scalar_type() == at::kFloat, "x: blocks * 64 floats");
  auto out = at::empty({blocks}, x.options());
  planted_static_shared_kernel<<<unsigned(blocks), kThreads, 0, stream()>>>(x.data_ptr<float>(), out.data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// A local array read past what was written: `sum_first` sums all 8 slots of `v` although only the first n were set
// (the bug). It runs right after `fill_stack`, a call of the same shape whose frame left 0.0f in those slots, so
// without local poisoning the stale stack holds exactly the zeros the bug needs. out[t] = sum of x[t*8 .. t*8+n).
__device__ __noinline__ float fill_stack(int n) {
  volatile float v[8];
  for (int i = 0; i < 8; ++i) v[i] = 0.f;
  return v[n & 7];
}
__device__ __noinline__ float sum_first(const float* x, int n) {
  volatile float v[8];
  for (int i = 0; i < n; ++i) v[i] = x[i];
  float s = 0.f;
  for (int i = 0; i < 8; ++i) s += v[i];
  return s;
}
__global__ void planted_local_kernel(const float* x, float* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const float z = fill_stack(n);
  out[t] = sum_first(x + t * 8, n) + z;
}

at::Tensor pl_local(at::Tensor x, int64_t n) {
  TORCH_CHECK(x.numel() == 2 * kThreads * 8 && x.scalar_type() == at::kFloat && n >= 0 && n <= 8, "x: 1024 floats, n in [0, 8]");
  auto out = at::empty({2 * kThreads}, x.options());
  planted_local_kernel<<<2, kThreads, 0, stream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), int(n));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// A workspace read before it is written: the kernel adds x into a float accumulator in the caller's workspace that
// nobody cleared (the bug). Where a new allocation is zero pages (torch.empty of a large CPU tensor) it is right; a
// GPU's caching allocator hands back old bytes, and the emulator's workspaces start as 0xFF (NaN).
__global__ void planted_workspace_kernel(const float* x, float* acc, float* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const float a = vk::ld_global(acc + t) + vk::ld_global(x + t);   // counted accesses: simt.trace / stream_check see them
  vk::st_global(acc + t, a);
  vk::st_global(out + t, a);
}

at::Tensor pl_workspace(at::Tensor x, at::Tensor ws) {
  const int64_t n = x.numel();
  TORCH_CHECK(x.scalar_type() == at::kFloat && ws.scalar_type() == at::kByte && ws.numel() >= n * 4, "x float, ws bytes >= 4 n");
  TORCH_CHECK(reinterpret_cast<uintptr_t>(ws.data_ptr()) % 16 == 0, "ws: 16-byte aligned");
  auto out = at::empty_like(x);
  planted_workspace_kernel<<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream()>>>(
      x.data_ptr<float>(), reinterpret_cast<float*>(ws.data_ptr()), out.data_ptr<float>(), int(n));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// A vector load from shared memory through a cast, `offset` floats past a 16-byte boundary (the bug when it is not a
// multiple of the vector's size; offset 0 is the same kernel, correct): a `float4` (vec 4) or a `uint2` (vec 2, read
// as two floats). A GPU faults on either (misaligned address). On x86 the 8-byte uint2 load just works, and the float4
// one is a 16-byte SSE load that g++ may emit as the aligned movaps: a segfault of the whole process, naming nothing.
// out[t * vec + i] = the vec floats at t * vec + offset.
template <class V, int kVec>
__global__ void planted_misaligned_shared_kernel(const float* x, float* out, int offset) {
  __shared__ __align__(16) float s[kThreads * 4 + 4];
  const int t = threadIdx.x;
  for (int i = t; i < kThreads * 4 + 4; i += kThreads) s[i] = x[i];
  __syncthreads();
  const V v = *reinterpret_cast<const V*>(&s[t * kVec + offset]);
  float f[kVec];
  memcpy(f, &v, sizeof v);
  for (int i = 0; i < kVec; ++i) out[t * kVec + i] = f[i];
}

at::Tensor pl_misaligned_shared(at::Tensor x, int64_t offset, int64_t vec) {
  TORCH_CHECK(x.numel() == kThreads * 4 + 4 && x.scalar_type() == at::kFloat && offset >= 0 && offset <= 4, "x: 260 floats");
  TORCH_CHECK(vec == 2 || vec == 4, "vec: 2 (uint2) or 4 (float4)");
  auto out = at::empty({kThreads * vec}, x.options());
  if (vec == 4) planted_misaligned_shared_kernel<float4, 4><<<1, kThreads, 0, stream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), int(offset));
  else planted_misaligned_shared_kernel<uint2, 2><<<1, kThreads, 0, stream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), int(offset));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
