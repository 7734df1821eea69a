// probe: torch host API (tensor checks -> params -> launch).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include "probe/probe_launch.cuh"

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
