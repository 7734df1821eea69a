// flash: torch host API (tensor checks -> params -> dispatch). The Python wrappers in
// verify_kernel.flash check arguments first with friendlier messages; these checks guard direct calls.
#include "flash/flash_launch.cuh"

// The torch API below is host code: nvcc's device passes (one an architecture) need only the kernels the
// launch header brings, so torch's headers are left out of them (about 30 s of CPU a pass, measured
// 2026-12-03); nvcc's host pass and the emulator's build compile all of it.
#ifndef __CUDA_ARCH__
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include "flash/flash_api.h"

namespace {

struct Shape {
  int64_t n, H, num_keys;
  bool is_bf16;
};

Shape check_inputs(const char* fn, const at::Tensor& q, const at::Tensor& kv, const at::Tensor& mask) {
  TORCH_CHECK(q.dim() == 3 && q.size(2) == flash::kHeadDimQK, fn, ": q must have shape [n, H, 576], got ", q.sizes());
  TORCH_CHECK(kv.dim() == 2 && kv.size(1) == flash::kHeadDimQK, fn, ": kv must have shape [L + n, 576], got ", kv.sizes());
  const int64_t n = q.size(0), H = q.size(1), num_keys = kv.size(0);
  TORCH_CHECK(num_keys >= n, fn, ": kv must hold the L prefix rows and then the n = ", n, " draft rows, got ", num_keys, " rows");
  TORCH_CHECK(mask.dim() == 2 && mask.size(0) == n && mask.size(1) == num_keys, fn, ": custom_mask must have shape [n, L + n] = [",
              n, ", ", num_keys, "], got ", mask.sizes());
  TORCH_CHECK(q.scalar_type() == at::kFloat || q.scalar_type() == at::kBFloat16, fn, ": q must be float32 or bfloat16, got ", q.scalar_type());
  TORCH_CHECK(kv.scalar_type() == q.scalar_type(), fn, ": kv must have q's dtype ", q.scalar_type(), ", got ", kv.scalar_type());
  TORCH_CHECK(mask.scalar_type() == at::kBool || mask.scalar_type() == at::kByte, fn, ": custom_mask must be bool or uint8, got ", mask.scalar_type());
  TORCH_CHECK(kv.device() == q.device() && mask.device() == q.device(), fn, ": q, kv and custom_mask must be on one device, got ",
              q.device(), ", ", kv.device(), ", ", mask.device());
#if defined(VK_SIMT)
  TORCH_CHECK(q.device().is_cpu(), fn, ": the SIMT emulator build runs on CPU tensors, got ", q.device());
#else
  TORCH_CHECK(q.is_cuda(), fn, ": the CUDA build needs CUDA tensors, got ", q.device());
#endif
  TORCH_CHECK(q.is_contiguous() && kv.is_contiguous() && mask.is_contiguous(), fn, ": q, kv and custom_mask must be contiguous");
  TORCH_CHECK(reinterpret_cast<uintptr_t>(q.data_ptr()) % 16 == 0 && reinterpret_cast<uintptr_t>(kv.data_ptr()) % 16 == 0, fn,
              ": q and kv must start at 16-byte aligned addresses (128-bit loads)");
  TORCH_CHECK(n * H < (int64_t(1) << 31), fn, ": n * H must be < 2^31, got ", n * H);
  TORCH_CHECK(num_keys < (int64_t(1) << 31), fn, ": L + n must be < 2^31 keys, got ", num_keys);
  return {n, H, num_keys, q.scalar_type() == at::kBFloat16};
}

VerifyParams make_params(const Shape& s, const at::Tensor& q, const at::Tensor& kv, const at::Tensor& mask, const at::Tensor& o,
                         const at::Tensor& lse, double sm_scale) {
  VerifyParams p{};
  p.q = q.data_ptr();
  p.kv = kv.data_ptr();
  p.mask = static_cast<const uint8_t*>(mask.data_ptr());
  p.o = o.data_ptr();
  p.lse = lse.data_ptr<float>();
  p.q_token_stride = q.stride(0);
  p.q_head_stride = q.stride(1);
  p.kv_row_stride = kv.stride(0);
  p.mask_row_stride = mask.stride(0);
  p.o_token_stride = o.stride(0);
  p.o_head_stride = o.stride(1);
  p.lse_token_stride = lse.stride(0);
  p.num_tokens = int(s.n);
  p.num_heads = int(s.H);
  p.num_keys = s.num_keys;
  p.sm_scale = float(sm_scale);
  p.scale_softmax_log2 = float(sm_scale * 1.4426950408889634);
  return p;
}

}  // namespace

// Naive kernel. Returns {o [n, H, 512] (q's dtype), lse [n, H] float32}.
std::vector<at::Tensor> verify_naive_fwd(at::Tensor q, at::Tensor kv, at::Tensor custom_mask, double sm_scale) {
  const Shape s = check_inputs("verify_naive_fwd", q, kv, custom_mask);
  const at::cuda::OptionalCUDAGuard guard(q.device());
  int64_t max_keys = 0;
  cudaError_t err = verify_naive_max_keys(&max_keys);
  TORCH_CHECK(err == cudaSuccess, "verify_naive_fwd: device query failed: ", cudaGetErrorString(err));
  TORCH_CHECK(s.num_keys <= max_keys, "verify_naive_fwd: L + n = ", s.num_keys, " keys do not fit: the naive kernel keeps a row's ",
              "scores in shared memory, at most ", max_keys, " keys on this device (", verify_naive_smem_bytes(max_keys),
              " bytes, the opt-in limit per block); use verify_attn_flash");
  auto o = at::empty({s.n, s.H, flash::kHeadDimV}, q.options());
  auto lse = at::empty({s.n, s.H}, q.options().dtype(at::kFloat));
  const VerifyParams p = make_params(s, q, kv, custom_mask, o, lse, sm_scale);
  err = verify_naive(p, s.is_bf16, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, "verify_naive_fwd: kernel launch failed: ", cudaGetErrorString(err));
  return {o, lse};
}

// Split-K flash kernel + combine. num_splits <= 0: the default policy (flash_num_splits).
// Returns {o [n, H, 512] (q's dtype), lse [n, H] float32, o_partial [S, n*H, 512] float32,
// lse_partial [S, n*H] float32} (the workspace, for inspection).
std::vector<at::Tensor> verify_flash_fwd(at::Tensor q, at::Tensor kv, at::Tensor custom_mask, double sm_scale, int64_t num_splits) {
  const Shape s = check_inputs("verify_flash_fwd", q, kv, custom_mask);
  const at::cuda::OptionalCUDAGuard guard(q.device());
  if (num_splits <= 0) num_splits = flash_num_splits(s.num_keys, s.n * s.H, s.is_bf16);
  TORCH_CHECK(num_splits <= flash::kMaxSplits, "verify_flash_fwd: num_splits must be in [1, ", flash::kMaxSplits, "], got ", num_splits);
  auto o = at::empty({s.n, s.H, flash::kHeadDimV}, q.options());
  auto lse = at::empty({s.n, s.H}, q.options().dtype(at::kFloat));
  auto o_partial = at::empty({num_splits, s.n * s.H, flash::kHeadDimV}, q.options().dtype(at::kFloat));
  auto lse_partial = at::empty({num_splits, s.n * s.H}, q.options().dtype(at::kFloat));
  VerifyParams p = make_params(s, q, kv, custom_mask, o, lse, sm_scale);
  p.o_partial = o_partial.data_ptr<float>();
  p.lse_partial = lse_partial.data_ptr<float>();
  p.num_splits = int(num_splits);
  p.keys_per_split = (s.num_keys + num_splits - 1) / num_splits;
  const cudaError_t err = verify_flash(p, s.is_bf16, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, "verify_flash_fwd: kernel launch failed: ", cudaGetErrorString(err));
  return {o, lse, o_partial, lse_partial};
}

// The most keys (L + n) the naive kernel takes on the current device.
int64_t naive_max_keys() {
  int64_t max_keys = 0;
  const cudaError_t err = verify_naive_max_keys(&max_keys);
  TORCH_CHECK(err == cudaSuccess, "naive_max_keys: device query failed: ", cudaGetErrorString(err));
  return max_keys;
}

// The default split count for num_keys keys and num_rows = n * H query rows on the current device.
int64_t flash_num_splits(int64_t num_keys, int64_t num_rows, bool is_bf16) {
  int s = 1;
  const cudaError_t err = verify_flash_default_num_splits(num_keys, num_rows, is_bf16, &s);
  TORCH_CHECK(err == cudaSuccess, "flash_num_splits: device query failed: ", cudaGetErrorString(err));
  return s;
}

// Query rows (heads x draft tokens) per split-kernel CTA.
int64_t flash_block_m(bool is_bf16) { return verify_flash_block_m(is_bf16); }

#endif  // __CUDA_ARCH__
