// Declarations the torch bindings are generated from (load_inline `functions`).
#pragma once
#include <optional>
#include <vector>
#include <torch/extension.h>

// Paged bf16 tree-verify attention (SGLang target_verify, MLA 576/512). Writes o (and lse when given).
// v_extend: draft values when they are their own tensor (nullopt: the first 512 dims of k_extend).
// custom_mask / mask_indptr: FULL_MASK layout (both or neither). workspace: uint8, at least
// paged_workspace_bytes(batch, target_ctas) bytes. target_ctas: CTAs the split schedule aims at
// (SMs x CTAs per SM); min_tiles_per_split: shortest split in 16-key tiles; split_balance_q10: the live-work rule's balance
// x 1024 (0: off; the chunk that least takes the longer of a split's tensor time and the batch's L2 time); row_halves: the
// rule may give a full M tile two CTAs, one a row half, where that costs less. planned: the workspace
// already holds this batch's plan (paged_plan_fwd); else the plan kernel runs first.
void paged_verify_fwd(at::Tensor q, at::Tensor k_extend, std::optional<at::Tensor> v_extend, at::Tensor o,
                      at::Tensor k_buffer, at::Tensor qo_indptr, at::Tensor kv_indptr, at::Tensor kv_indices,
                      std::optional<at::Tensor> custom_mask, std::optional<at::Tensor> mask_indptr,
                      std::optional<at::Tensor> lse, at::Tensor workspace, int64_t max_len_extend, double sm_scale,
                      double k_scale, double v_scale, double logit_cap, bool is_causal, bool skip_prefix_custom_mask,
                      int64_t target_ctas, int64_t min_tiles_per_split, int64_t split_balance_q10, bool row_halves, bool planned);
// The split plan of a batch into `workspace` (one small kernel, no host sync): every layer's
// paged_verify_fwd(..., planned=true) with the same index arrays and sizes reuses it. runs_ctas: CTAs of the runs kernel
// (0: target_ctas; its warps stride over the live entries kv_indices[0, kv_indptr[B]) whatever the grid).
void paged_plan_fwd(at::Tensor qo_indptr, at::Tensor kv_indptr, at::Tensor kv_indices, std::optional<at::Tensor> custom_mask,
                    std::optional<at::Tensor> mask_indptr, at::Tensor workspace, int64_t num_tokens, int64_t num_heads,
                    int64_t max_len_extend, int64_t target_ctas, int64_t min_tiles_per_split, int64_t split_balance_q10,
                    bool row_halves, int64_t runs_ctas);
// Workspace bytes for `batch` requests of at most `max_len_extend` drafts x `num_heads` heads, a schedule
// aiming at `target_ctas` CTAs and kv_indices of `kv_indices_len` elements (1 bit each for the runs).
int64_t paged_workspace_bytes(int64_t batch, int64_t num_heads, int64_t max_len_extend, int64_t target_ctas, int64_t kv_indices_len);
// The combine kernel as a programmatic dependent launch (sm_90+: its launch and row lookup overlap the main kernel):
// mode -1 when the device has it (the default), 0 off, 1 on; returns the previous mode. Process-wide.
int64_t paged_set_overlap_combine(int64_t mode);
// Whether this process's next launch on the current device makes the combine a programmatic launch.
bool paged_overlap_combine_active();
// SM count of the current device (the emulated one under the SIMT emulator).
int64_t paged_num_sms();
// Compile-time constants: {block_m, block_n, stages, threads, smem_bytes, max_draft, ctas_per_sm,
// default_min_tiles_per_split, combine_threads, plan_threads, smem_bytes of the fp8-cache kernel}.
std::vector<int64_t> paged_constants();
