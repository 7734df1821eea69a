// simt_asan.cu - planted out-of-bounds accesses for the emulator's AddressSanitizer mode
// (nbs/01_simt.ipynb builds it with simt.load_inline(..., sanitize='address') under simt.run_asan).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include "vk/device.cuh"

// One block of n threads (n <= 1024), n floats of dynamic shared memory. Everything in bounds for
// mode 0 (shared memory, a barrier, a shuffle, counted loads); for mode 1..4 thread 0 also
// 1: reads x[n], one past the end of the global tensor; 2: reads dynamic shared memory one float
// past what the launch asked for; 3: reads one past a static __shared__ array; 4: writes out[n].
__global__ void oob_kernel(const float* x, float* out, int n, int mode) {
  extern __shared__ float dyn[];
  __shared__ float stat[64];
  const int t = threadIdx.x;
  dyn[t] = vk::ld_global(x + t);
  stat[t % 64] = dyn[t];
  __syncthreads();
  float v = __shfl_xor_sync(0xffffffffu, dyn[t], 1);
  if (t == 0) {
    if (mode == 1) v += vk::ld_global(x + n);
    else if (mode == 2) v += dyn[n];
    else if (mode == 3) v += stat[64 + n - int(blockDim.x)];  // index 64 (n == blockDim.x)
    else if (mode == 4) out[n] = 1.f;
  }
  out[t] = dyn[t] + stat[t % 64] + v;
}

at::Tensor asan_oob(at::Tensor x, int64_t mode) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.dim() == 1 && x.numel() % 32 == 0 && x.numel() <= 1024, "x: float32 [32k <= 1024]");
  const int n = int(x.numel());
  auto out = at::empty_like(x);
  oob_kernel<<<1, n, size_t(n) * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), out.data_ptr<float>(), n, int(mode));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
