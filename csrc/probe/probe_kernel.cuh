#pragma once
#include "vk/device.cuh"
#include "probe/probe_params.h"

// y[i] = a * x[i]; total += sum(x). One element per thread, a shared-memory + warp-shuffle block
// reduction, one atomicAdd per block: exercises global loads/stores, __shared__, __syncthreads,
// __shfl_xor_sync and atomics.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) probe_axpy_sum_kernel(const ProbeParams p) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  __shared__ float warp_sums[kThreads / 32];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const float v = i < p.n ? vk::ld_global(p.x + i) : 0.f;
  if (i < p.n) vk::st_global(p.y + i, p.a * v);
  float s = v;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) block_sum += warp_sums[w];
    atomicAdd(p.total, block_sum);
  }
}
