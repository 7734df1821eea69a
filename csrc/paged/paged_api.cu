// paged: torch host API (tensor checks -> params -> launch). The Python entry point
// verify_kernel.paged.verify_attn_fwd decides what is served and validates arguments with friendlier
// messages first; these checks guard direct calls (nothing here syncs with the device).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include "paged/paged_launch.cuh"

namespace {

constexpr const char* kFn = "paged_verify_fwd";

IndexArray index_array(const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 1, kFn, ": ", name, " must be 1-D, got shape ", t.sizes());
  TORCH_CHECK(t.scalar_type() == at::kInt || t.scalar_type() == at::kLong, kFn, ": ", name, " must be int32 or int64, got ",
              t.scalar_type());
  TORCH_CHECK(t.numel() <= 1 || t.stride(0) == 1, kFn, ": ", name, " must be contiguous");
  return IndexArray{t.data_ptr(), t.scalar_type() == at::kLong ? 1 : 0};
}

void check_rows(const at::Tensor& t, const char* name, int64_t dim) {
  TORCH_CHECK(t.scalar_type() == at::kBFloat16, kFn, ": ", name, " must be bfloat16, got ", t.scalar_type());
  TORCH_CHECK(t.dim() == 3 && t.size(2) == dim, kFn, ": ", name, " must be 3-D with last dim ", dim, ", got ", t.sizes());
  TORCH_CHECK(t.stride(2) == 1, kFn, ": ", name, " must have unit stride in its last dim, got strides ", t.strides());
  TORCH_CHECK(reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0, kFn, ": ", name, " must start 16-byte aligned");
}

}  // namespace

void paged_verify_fwd(at::Tensor q, at::Tensor k_extend, std::optional<at::Tensor> v_extend, at::Tensor o,
                      at::Tensor k_buffer, at::Tensor qo_indptr, at::Tensor kv_indptr, at::Tensor kv_indices,
                      std::optional<at::Tensor> custom_mask, std::optional<at::Tensor> mask_indptr,
                      std::optional<at::Tensor> lse, at::Tensor workspace, int64_t max_len_extend, double sm_scale,
                      double k_scale, double v_scale, double logit_cap, bool is_causal, bool skip_prefix_custom_mask,
                      int64_t target_ctas, int64_t min_tiles_per_split) {
  using paged::kHeadDimQK;
  using paged::kHeadDimV;
  check_rows(q, "q", kHeadDimQK);
  check_rows(k_extend, "k_extend", kHeadDimQK);
  check_rows(k_buffer, "k_buffer", kHeadDimQK);
  check_rows(o, "o", kHeadDimV);
  const int64_t T = q.size(0), H = q.size(1), S = k_buffer.size(0);
  TORCH_CHECK(k_extend.size(0) == T && k_extend.size(1) == 1, kFn, ": k_extend must be [T, 1, 576] with T = ", T, ", got ",
              k_extend.sizes());
  TORCH_CHECK(k_buffer.size(1) == 1, kFn, ": k_buffer must be [S, 1, 576] (one latent KV head), got ", k_buffer.sizes());
  TORCH_CHECK(o.size(0) == T && o.size(1) == H, kFn, ": o must be [T, H, 512] = [", T, ", ", H, ", 512], got ", o.sizes());
  for (const auto* t : {&q, &k_extend, &k_buffer, &o}) {
    TORCH_CHECK(t->device() == q.device(), kFn, ": all tensors must be on q's device ", q.device());
  }
  TORCH_CHECK((q.stride(0) | q.stride(1) | k_extend.stride(0) | k_buffer.stride(0)) % 8 == 0, kFn,
              ": rows of q, k_extend and k_buffer must start 16-byte aligned (strides multiples of 8 elements)");
  TORCH_CHECK((o.stride(0) | o.stride(1)) % 4 == 0, kFn, ": o rows must start 8-byte aligned (strides multiples of 4)");
  TORCH_CHECK(T * H < (int64_t(1) << 31), kFn, ": T * H must be < 2^31, got ", T * H);
  TORCH_CHECK(max_len_extend >= 0 && max_len_extend <= paged::kMaxDraft, kFn, ": max_len_extend must be in [0, ",
              paged::kMaxDraft, "], got ", max_len_extend);
  TORCH_CHECK(target_ctas >= 1 && min_tiles_per_split >= 1, kFn, ": target_ctas and min_tiles_per_split must be >= 1");
  TORCH_CHECK(custom_mask.has_value() == mask_indptr.has_value(), kFn, ": custom_mask and mask_indptr go together");
  const int64_t B = qo_indptr.numel() - 1;
  TORCH_CHECK(B >= 0 && kv_indptr.numel() == B + 1, kFn, ": qo_indptr and kv_indptr must both have B + 1 entries, got ",
              qo_indptr.numel(), " and ", kv_indptr.numel());

  PagedVerifyParams p{};
  p.q = reinterpret_cast<const __nv_bfloat16*>(q.data_ptr());
  p.k_extend = reinterpret_cast<const __nv_bfloat16*>(k_extend.data_ptr());
  p.kv_cache = reinterpret_cast<const __nv_bfloat16*>(k_buffer.data_ptr());
  p.o = reinterpret_cast<__nv_bfloat16*>(o.data_ptr());
  p.qo_indptr = index_array(qo_indptr, "qo_indptr");
  p.kv_indptr = index_array(kv_indptr, "kv_indptr");
  p.kv_indices = index_array(kv_indices, "kv_indices");
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
  if (custom_mask.has_value()) {
    const at::Tensor& m = *custom_mask;
    TORCH_CHECK(m.dim() == 1 && (m.scalar_type() == at::kByte || m.scalar_type() == at::kBool) && (m.numel() <= 1 || m.stride(0) == 1),
                kFn, ": custom_mask must be a contiguous 1-D uint8 or bool tensor");
    TORCH_CHECK(mask_indptr->numel() == B + 1, kFn, ": mask_indptr must have B + 1 entries");
    p.custom_mask = static_cast<const uint8_t*>(m.data_ptr());
    p.mask_len = m.numel();
    p.mask_indptr = index_array(*mask_indptr, "mask_indptr");
  }
  if (lse.has_value()) {
    const at::Tensor& l = *lse;
    TORCH_CHECK(l.scalar_type() == at::kFloat && l.dim() == 2 && l.size(0) == T && l.size(1) == H && l.device() == q.device(), kFn,
                ": lse must be a float32 [T, H] tensor on q's device, got ", l.scalar_type(), " ", l.sizes());
    p.lse = l.data_ptr<float>();
    p.lse_token_stride = l.stride(0);
    p.lse_head_stride = l.stride(1);
  }
  const paged::WorkspaceLayout ws = paged::workspace_layout(B, target_ctas);
  TORCH_CHECK(workspace.scalar_type() == at::kByte && workspace.is_contiguous() && workspace.device() == q.device(), kFn,
              ": workspace must be a contiguous uint8 tensor on q's device");
  TORCH_CHECK(workspace.numel() >= ws.bytes, kFn, ": workspace must hold at least ", ws.bytes, " bytes, got ", workspace.numel());
  TORCH_CHECK(reinterpret_cast<uintptr_t>(workspace.data_ptr()) % 16 == 0, kFn, ": workspace must start 16-byte aligned");
  unsigned char* wbase = static_cast<unsigned char*>(workspace.data_ptr());
  p.plan = reinterpret_cast<int*>(wbase + ws.plan);
  p.partial_lse = reinterpret_cast<float*>(wbase + ws.partial_lse);
  p.partial_o = reinterpret_cast<float*>(wbase + ws.partial_o);

  p.batch = int(B);
  p.num_tokens = int(T);
  p.num_heads = int(H);
  p.num_slots = S;
  p.kv_indices_len = kv_indices.numel();
  p.max_len_extend = int(max_len_extend);
  p.sm_scale = float(sm_scale);
  p.k_scale = float(k_scale);
  p.v_scale = float(v_scale);
  p.logit_cap = float(logit_cap);
  p.is_causal = is_causal ? 1 : 0;
  p.skip_prefix_custom_mask = skip_prefix_custom_mask ? 1 : 0;
  p.target_ctas = int(target_ctas);
  p.min_tiles_per_split = int(min_tiles_per_split);
  p.partial_slots = int(paged::partial_slots(target_ctas));

  const at::cuda::OptionalCUDAGuard guard(q.device());
  const cudaError_t err = paged_verify(p, at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, kFn, ": launch failed: ", cudaGetErrorString(err));
}

int64_t paged_workspace_bytes(int64_t batch, int64_t target_ctas) {
  TORCH_CHECK(batch >= 0 && target_ctas >= 1, "paged_workspace_bytes: batch must be >= 0 and target_ctas >= 1");
  return paged_verify_workspace_bytes(batch, target_ctas);
}

int64_t paged_num_sms() {
  int sms = 0;
  const cudaError_t err = paged_verify_device_sms(&sms);
  TORCH_CHECK(err == cudaSuccess, "paged_num_sms: ", cudaGetErrorString(err));
  return sms;
}

std::vector<int64_t> paged_constants() {
  using T = paged::Traits;
  return {T::kBlockM, T::kBlockN, T::kStages, T::kThreads, T::kSmemBytes, paged::kMaxDraft, paged::kCtasPerSm,
          paged::kDefaultMinTilesPerSplit, paged::kCombineWarps * 32};
}
