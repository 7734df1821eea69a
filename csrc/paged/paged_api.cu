// paged: torch host API (tensor checks -> params -> launch). The Python entry point
// verify_kernel.paged.verify_attn_fwd decides what is served and validates arguments with friendlier
// messages first; these checks guard direct calls (nothing here syncs with the device).
#include "paged/paged_launch.cuh"

// The torch API below is host code: nvcc's device passes (one an architecture) need only the kernels the
// launch header brings, so torch's headers are left out of them (about 30 s of CPU a pass, measured
// 2026-12-03); nvcc's host pass and the emulator's build compile all of it.
#ifndef __CUDA_ARCH__
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <atomic>

namespace {

constexpr const char* kFn = "paged_verify_fwd";

IndexArray index_array(const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 1, kFn, ": ", name, " must be 1-D, got shape ", t.sizes());
  TORCH_CHECK(t.scalar_type() == at::kInt || t.scalar_type() == at::kLong, kFn, ": ", name, " must be int32 or int64, got ",
              t.scalar_type());
  TORCH_CHECK(t.numel() <= 1 || t.stride(0) == 1, kFn, ": ", name, " must be contiguous");
  return IndexArray{t.data_ptr(), t.scalar_type() == at::kLong ? 1 : 0};
}

void check_rows(const at::Tensor& t, const char* name, int64_t dim, bool fp8_ok = false) {
  TORCH_CHECK(t.scalar_type() == at::kBFloat16 || (fp8_ok && t.scalar_type() == at::kFloat8_e4m3fn), kFn, ": ", name,
              " must be bfloat16", fp8_ok ? " or float8_e4m3fn" : "", ", got ", t.scalar_type());
  TORCH_CHECK(t.dim() == 3 && t.size(2) == dim, kFn, ": ", name, " must be 3-D with last dim ", dim, ", got ", t.sizes());
  TORCH_CHECK(t.stride(2) == 1, kFn, ": ", name, " must have unit stride in its last dim, got strides ", t.strides());
  TORCH_CHECK(reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0, kFn, ": ", name, " must start 16-byte aligned");
}

// Whether the combine kernel is a programmatic dependent launch: mode -1 (the default) when the device has it (compute
// capability 9.0 or later), 0 never, 1 always (below sm_90 the attribute only serializes as usual). One process-wide
// setting (paged_set_overlap_combine), read at every launch: a captured CUDA graph keeps the launch it recorded.
std::atomic<int> g_overlap_combine_mode{-1};
bool overlap_combine_on(int device) {  // a driver attribute query a launch (no stream work: capture-safe)
  const int mode = g_overlap_combine_mode.load();
  if (mode >= 0) return mode == 1;
  int major = 0;
  if (device < 0 && cudaGetDevice(&device) != cudaSuccess) { (void)cudaGetLastError(); return false; }
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) { (void)cudaGetLastError(); return false; }
  return major >= 9;
}

// The index arrays, sizes and schedule shared by the plan and the verify launch, on `dev`.
PagedVerifyParams batch_params(const at::Tensor& qo_indptr, const at::Tensor& kv_indptr, const at::Tensor& kv_indices,
                               const std::optional<at::Tensor>& custom_mask, const std::optional<at::Tensor>& mask_indptr,
                               const at::Tensor& workspace, const at::Device& dev, int64_t T, int64_t H, int64_t max_len_extend,
                               int64_t target_ctas, int64_t min_tiles_per_split, int64_t split_balance_q10, bool row_halves) {
  TORCH_CHECK(T >= 0 && H >= 1 && T * H < (int64_t(1) << 31), kFn, ": T * H must be < 2^31 (T = ", T, ", H = ", H, ")");
  TORCH_CHECK(max_len_extend >= 0 && max_len_extend <= paged::kMaxDraft, kFn, ": max_len_extend must be in [0, ",
              paged::kMaxDraft, "], got ", max_len_extend);
  TORCH_CHECK(target_ctas >= 1 && target_ctas <= (1 << 20) && min_tiles_per_split >= 1, kFn,
              ": target_ctas must be in [1, 2^20] and min_tiles_per_split >= 1");
  TORCH_CHECK(split_balance_q10 >= 0 && split_balance_q10 <= (1 << 20), kFn, ": split_balance_q10 must be in [0, 2^20], got ", split_balance_q10);
  TORCH_CHECK(custom_mask.has_value() == mask_indptr.has_value(), kFn, ": custom_mask and mask_indptr go together");
  const int64_t B = qo_indptr.numel() - 1;
  TORCH_CHECK(B >= 0 && kv_indptr.numel() == B + 1, kFn, ": qo_indptr and kv_indptr must both have B + 1 entries, got ",
              qo_indptr.numel(), " and ", kv_indptr.numel());
  for (const auto& [t, name] : {std::pair{&qo_indptr, "qo_indptr"}, std::pair{&kv_indptr, "kv_indptr"}, std::pair{&kv_indices, "kv_indices"},
                                std::pair{&workspace, "workspace"}}) {
    TORCH_CHECK(t->device() == dev, kFn, ": ", name, " must be on ", dev, ", got ", t->device());
  }
  PagedVerifyParams p{};
  p.qo_indptr = index_array(qo_indptr, "qo_indptr");
  p.kv_indptr = index_array(kv_indptr, "kv_indptr");
  p.kv_indices = index_array(kv_indices, "kv_indices");
  p.kv_indices_len = kv_indices.numel();
  if (custom_mask.has_value()) {
    const at::Tensor& m = *custom_mask;
    TORCH_CHECK(m.dim() == 1 && (m.scalar_type() == at::kByte || m.scalar_type() == at::kBool) && (m.numel() <= 1 || m.stride(0) == 1),
                kFn, ": custom_mask must be a contiguous 1-D uint8 or bool tensor");
    TORCH_CHECK(mask_indptr->numel() == B + 1, kFn, ": mask_indptr must have B + 1 entries");
    TORCH_CHECK(m.device() == dev && mask_indptr->device() == dev, kFn, ": custom_mask and mask_indptr must be on ", dev);
    p.custom_mask = static_cast<const uint8_t*>(m.data_ptr());
    p.mask_len = m.numel();
    p.mask_indptr = index_array(*mask_indptr, "mask_indptr");
  }
  TORCH_CHECK(B < (int64_t(1) << 31), kFn, ": more than 2^31 requests");
  p.batch = int(B);
  p.num_tokens = int(T);
  p.num_heads = int(H);
  p.max_len_extend = int(max_len_extend);
  p.target_ctas = int(target_ctas);
  p.min_tiles_per_split = int(min_tiles_per_split);
  p.split_balance_q10 = int(split_balance_q10);
  p.allow_row_halves = row_halves ? 1 : 0;
  const int64_t grid = paged::grid_ctas(target_ctas, B, H, max_len_extend);
  TORCH_CHECK(grid <= 0x7fffffff, kFn, ": the grid would need ", grid, " CTAs");
  p.grid_ctas = int(grid);
  const int64_t need = paged_verify_workspace_bytes(B, grid, target_ctas, kv_indices.numel());
  TORCH_CHECK(workspace.scalar_type() == at::kByte && workspace.is_contiguous(), kFn, ": workspace must be a contiguous uint8 tensor");
  TORCH_CHECK(workspace.numel() >= need, kFn, ": workspace must hold at least ", need, " bytes, got ", workspace.numel());
  TORCH_CHECK(reinterpret_cast<uintptr_t>(workspace.data_ptr()) % 256 == 0, kFn, ": workspace must start 256-byte aligned");
  paged::bind_workspace(p, workspace.data_ptr());
  return p;
}

}  // namespace

void paged_plan_fwd(at::Tensor qo_indptr, at::Tensor kv_indptr, at::Tensor kv_indices, std::optional<at::Tensor> custom_mask,
                    std::optional<at::Tensor> mask_indptr, at::Tensor workspace, int64_t num_tokens, int64_t num_heads,
                    int64_t max_len_extend, int64_t target_ctas, int64_t min_tiles_per_split, int64_t split_balance_q10,
                    bool row_halves, int64_t runs_ctas) {
  const at::Device dev = workspace.device();
  PagedVerifyParams p = batch_params(qo_indptr, kv_indptr, kv_indices, custom_mask, mask_indptr, workspace, dev, num_tokens,
                                     num_heads, max_len_extend, target_ctas, min_tiles_per_split, split_balance_q10, row_halves);
  TORCH_CHECK(runs_ctas >= 0 && runs_ctas <= 0x7fffffff, "paged_plan_fwd: runs_ctas must be in [0, 2^31) (0: target_ctas), got ", runs_ctas);
  p.runs_ctas = int(runs_ctas);
  const at::cuda::OptionalCUDAGuard guard(dev);
  const cudaError_t err = paged_verify_plan(p, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, "paged_plan_fwd: launch failed: ", cudaGetErrorString(err));
}

void paged_verify_fwd(at::Tensor q, at::Tensor k_extend, std::optional<at::Tensor> v_extend, at::Tensor o,
                      at::Tensor k_buffer, at::Tensor qo_indptr, at::Tensor kv_indptr, at::Tensor kv_indices,
                      std::optional<at::Tensor> custom_mask, std::optional<at::Tensor> mask_indptr,
                      std::optional<at::Tensor> lse, at::Tensor workspace, int64_t max_len_extend, double sm_scale,
                      double k_scale, double v_scale, double logit_cap, bool is_causal, bool skip_prefix_custom_mask,
                      int64_t target_ctas, int64_t min_tiles_per_split, int64_t split_balance_q10, bool row_halves, bool planned) {
  using paged::kHeadDimQK;
  using paged::kHeadDimV;
  check_rows(q, "q", kHeadDimQK);
  check_rows(k_extend, "k_extend", kHeadDimQK);
  check_rows(k_buffer, "k_buffer", kHeadDimQK, /*fp8_ok=*/true);
  check_rows(o, "o", kHeadDimV);
  const int64_t T = q.size(0), H = q.size(1), S = k_buffer.size(0);
  TORCH_CHECK(k_extend.size(0) == T && k_extend.size(1) == 1, kFn, ": k_extend must be [T, 1, 576] with T = ", T, ", got ",
              k_extend.sizes());
  TORCH_CHECK(k_buffer.size(1) == 1, kFn, ": k_buffer must be [S, 1, 576] (one latent KV head), got ", k_buffer.sizes());
  TORCH_CHECK(o.size(0) == T && o.size(1) == H, kFn, ": o must be [T, H, 512] = [", T, ", ", H, ", 512], got ", o.sizes());
  for (const auto& [t, name] : {std::pair{&k_extend, "k_extend"}, std::pair{&k_buffer, "k_buffer"}, std::pair{&o, "o"}}) {
    TORCH_CHECK(t->device() == q.device(), kFn, ": ", name, " must be on q's device ", q.device(), ", got ", t->device());
  }
  TORCH_CHECK((q.stride(0) | q.stride(1) | k_extend.stride(0)) % 8 == 0 && (k_buffer.stride(0) * k_buffer.element_size()) % 16 == 0,
              kFn, ": rows of q, k_extend and k_buffer must start 16-byte aligned (strides multiples of 16 bytes)");
  TORCH_CHECK((o.stride(0) | o.stride(1)) % 4 == 0, kFn, ": o rows must start 8-byte aligned (strides multiples of 4)");

  PagedVerifyParams p = batch_params(qo_indptr, kv_indptr, kv_indices, custom_mask, mask_indptr, workspace, q.device(), T, H,
                                     max_len_extend, target_ctas, min_tiles_per_split, split_balance_q10, row_halves);
  p.q = reinterpret_cast<const __nv_bfloat16*>(q.data_ptr());
  p.k_extend = reinterpret_cast<const __nv_bfloat16*>(k_extend.data_ptr());
  p.kv_cache = k_buffer.data_ptr();
  p.cache_fp8 = k_buffer.scalar_type() == at::kFloat8_e4m3fn ? 1 : 0;
  p.o = reinterpret_cast<__nv_bfloat16*>(o.data_ptr());
  p.q_token_stride = q.stride(0);
  p.q_head_stride = q.stride(1);
  p.k_extend_row_stride = k_extend.stride(0);
  p.cache_row_stride = k_buffer.stride(0);
  p.o_token_stride = o.stride(0);
  p.o_head_stride = o.stride(1);
  if (v_extend.has_value()) {
    const at::Tensor& v = *v_extend;
    check_rows(v, "v_extend", kHeadDimV);
    TORCH_CHECK(v.size(0) == T && v.size(1) == 1 && v.device() == q.device(), kFn, ": v_extend must be [T, 1, 512] on q's device");
    TORCH_CHECK(v.stride(0) % 8 == 0, kFn, ": v_extend rows must start 16-byte aligned");
    p.v_extend = reinterpret_cast<const __nv_bfloat16*>(v.data_ptr());
    p.v_extend_row_stride = v.stride(0);
  }
  if (lse.has_value()) {
    const at::Tensor& l = *lse;
    TORCH_CHECK(l.scalar_type() == at::kFloat && l.dim() == 2 && l.size(0) == T && l.size(1) == H && l.device() == q.device(), kFn,
                ": lse must be a float32 [T, H] tensor on q's device, got ", l.scalar_type(), " ", l.sizes());
    p.lse = l.data_ptr<float>();
    p.lse_token_stride = l.stride(0);
    p.lse_head_stride = l.stride(1);
  }
  p.num_slots = S;
  p.sm_scale = float(sm_scale);
  p.k_scale = float(k_scale);
  p.v_scale = float(v_scale);
  p.logit_cap = float(logit_cap);
  p.score_scale_prefix = float(sm_scale * k_scale);
  p.inv_logit_cap = logit_cap > 0 ? float(1.0 / logit_cap) : 0.f;
  p.is_causal = is_causal ? 1 : 0;
  p.skip_prefix_custom_mask = skip_prefix_custom_mask ? 1 : 0;

  const at::cuda::OptionalCUDAGuard guard(q.device());
  p.overlap_combine = overlap_combine_on(q.device().index()) ? 1 : 0;
  const cudaError_t err = paged_verify(p, at::cuda::getCurrentCUDAStream(), planned);
  TORCH_CHECK(err == cudaSuccess, kFn, ": launch failed: ", cudaGetErrorString(err));
}

int64_t paged_workspace_bytes(int64_t batch, int64_t num_heads, int64_t max_len_extend, int64_t target_ctas, int64_t kv_indices_len) {
  TORCH_CHECK(batch >= 0 && num_heads >= 1 && max_len_extend >= 0 && target_ctas >= 1 && kv_indices_len >= 0,
              "paged_workspace_bytes: batch, max_len_extend, kv_indices_len must be >= 0, num_heads and target_ctas >= 1");
  return paged_verify_workspace_bytes(batch, paged::grid_ctas(target_ctas, batch, num_heads, max_len_extend), target_ctas, kv_indices_len);
}

int64_t paged_set_overlap_combine(int64_t mode) {
  TORCH_CHECK(mode >= -1 && mode <= 1, "paged_set_overlap_combine: mode must be -1 (when the device has it), 0 (off) or 1 (on), got ", mode);
  return g_overlap_combine_mode.exchange(int(mode));
}

bool paged_overlap_combine_active() { return overlap_combine_on(-1); }

int64_t paged_num_sms() {
  int sms = 0;
  const cudaError_t err = paged_verify_device_sms(&sms);
  TORCH_CHECK(err == cudaSuccess, "paged_num_sms: ", cudaGetErrorString(err));
  return sms;
}

std::vector<int64_t> paged_constants() {
  using T = paged::Traits;
  return {T::kBlockM, T::kBlockN, T::kStages, T::kThreads, T::kSmemBytes, paged::kMaxDraft, paged::kCtasPerSm,
          paged::kDefaultMinTilesPerSplit, paged::kCombineWarps * 32, paged::kPlanThreads, paged::PagedTraitsE4m3::kSmemBytes};
}

#endif  // __CUDA_ARCH__
