#pragma once
#include <cuda_runtime.h>
#include "probe/probe_kernel.cuh"

// Host launch code (no torch): grid from the params, one launch. Dispatch entry points are
// ordinary functions: this header is included by exactly one TU (probe_api.cu), and the static
// gates compile it alone to see every kernel instantiation the family uses.
cudaError_t probe_axpy_sum(const ProbeParams& p, cudaStream_t stream) {
  constexpr int kThreads = 256;
  if (p.n == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>((p.n + kThreads - 1) / kThreads));
  probe_axpy_sum_kernel<kThreads><<<grid, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}
