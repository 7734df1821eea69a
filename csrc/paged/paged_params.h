// paged: the production tree-verify kernel on SGLang's paged bf16 MLA cache, read in place.
//
// Layout of this family (as csrc/probe): params (this file), device code (paged_kernel.cuh), launch
// code without torch (paged_launch.cuh), torch host API (paged_api.cu / paged_api.h).
// Design, tiling and the shared-memory / register budgets: plans/0002-paged-bf16-kernel.md.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>

// An index array whose element type (int32 or int64) is known only at run time; read with
// `paged::load_index`. SGLang passes int32 kv_indptr, int32 or int64 qo_indptr (the CUDA-graph
// buffers are int64), int64 kv_indices and mask_indptr.
struct IndexArray {
  const void* __restrict__ ptr;
  int is64;  // 1: int64 elements, 0: int32 elements
};

struct PagedVerifyParams {
  // ---- inputs (bf16)
  const __nv_bfloat16* __restrict__ q;         // [T, H, 576] q_extend
  const __nv_bfloat16* __restrict__ k_extend;  // [T, 1, 576] draft latent keys
  const __nv_bfloat16* __restrict__ v_extend;  // [T, 1, 512] draft values (nullptr: the first 512 dims of k_extend)
  const __nv_bfloat16* __restrict__ kv_cache;  // [S, 1, 576] k_buffer; v_buffer is its [..., :512] view
  IndexArray qo_indptr;                        // [B+1] draft rows of each request
  IndexArray kv_indptr;                        // [B+1] prefix entries of each request in kv_indices
  IndexArray kv_indices;                       // [>= kv_indptr[B]] cache slot of each prefix token (page_size 1)
  const uint8_t* __restrict__ custom_mask;     // flat FULL_MASK (uint8 or bool), nullptr: no custom mask
  IndexArray mask_indptr;                      // [B+1] start of request b's [n, L+n] block in custom_mask
  // ---- outputs
  __nv_bfloat16* __restrict__ o;               // [T, H, 512] o_extend
  float* __restrict__ lse;                     // [T, H] natural-log LSE, nullptr: not wanted
  // ---- workspace (see paged_workspace_bytes): plan table, partial LSEs, partial outputs
  int* __restrict__ plan;                      // [B][2] (first partial slot, splits) of each request
  float* __restrict__ partial_lse;             // [slots][64] log2-domain LSE of each split's rows
  float* __restrict__ partial_o;               // [slots][64][512] normalized fp32 output of each split

  // ---- strides in elements
  int64_t q_token_stride, q_head_stride;
  int64_t k_extend_row_stride, v_extend_row_stride;
  int64_t cache_row_stride;
  int64_t o_token_stride, o_head_stride;
  int64_t lse_token_stride, lse_head_stride;

  // ---- sizes
  int batch;               // B requests
  int num_tokens;          // T rows of q_extend
  int num_heads;           // H
  int64_t num_slots;       // S cache slots (kv_indices outside [0, S) are never read)
  int64_t kv_indices_len;  // elements of kv_indices
  int64_t mask_len;        // elements of custom_mask
  int max_len_extend;      // the host's bound on n (SGLang: num_draft_tokens); sizes the grid and the mask words

  // ---- scores: s = (q . k) * sm_scale (* k_scale for prefix keys); cap * tanh(s / cap) if cap > 0
  float sm_scale;
  float k_scale;           // prefix (cache) keys only, as SGLang's k descale
  float v_scale;           // prefix (cache) values only, folded into P before its bf16 rounding
  float logit_cap;         // 0: off
  int is_causal;           // draft block without custom_mask: causal (1) or full (0)
  int skip_prefix_custom_mask;

  // ---- split scheduling (computed on the device from the lengths; the grid is fixed by the host)
  int target_ctas;         // CTAs the schedule aims at (SM count x CTAs per SM)
  int min_tiles_per_split; // no split shorter than this many 16-key tiles (unless the request is)
  int partial_slots;       // capacity of partial_o / partial_lse in 64-row slots
};
