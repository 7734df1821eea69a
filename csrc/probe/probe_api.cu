// probe: torch host API (tensor checks -> params -> launch).
#include "probe/probe_launch.cuh"

// The torch API below is host code: nvcc's device passes (one an architecture) need only the kernels the
// launch header brings, so torch's headers are left out of them (about 30 s of CPU a pass, measured
// 2026-12-03); nvcc's host pass and the emulator's build compile all of it.
#ifndef __CUDA_ARCH__
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

// Returns (y, total): y = a * x, total = [sum(x)]. x: float32, contiguous, 1-D.
std::vector<at::Tensor> probe_axpy_sum(at::Tensor x, double a) {
  TORCH_CHECK(x.dim() == 1, "probe_axpy_sum: x must be 1-D, got shape ", x.sizes());
  TORCH_CHECK(x.scalar_type() == at::kFloat, "probe_axpy_sum: x must be float32, got ", x.scalar_type());
  TORCH_CHECK(x.is_contiguous(), "probe_axpy_sum: x must be contiguous");
  const at::cuda::OptionalCUDAGuard guard(x.device());
  auto y = at::empty_like(x);
  auto total = at::zeros({1}, x.options());
  ProbeParams p{x.data_ptr<float>(), y.data_ptr<float>(), total.data_ptr<float>(),
                static_cast<float>(a), x.numel()};
  const cudaError_t err = probe_axpy_sum(p, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, "probe_axpy_sum: launch failed: ", cudaGetErrorString(err));
  return {y, total};
}

#endif  // __CUDA_ARCH__
