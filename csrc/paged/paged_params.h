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

// ---- the plan: written by paged_verify_plan_kernel into the workspace, once per batch (every layer
// of a forward pass reuses it), read by the main kernel (one CtaWork a CTA) and the combine kernel.

// What a request's indptr / mask_indptr values say about it. Anything but kRequestOk: the request
// gets no CTA and the combine kernel writes NaN into every row of o (and lse) it owns, so that a
// malformed call is loud (validate mode compares against Triton) instead of silently wrong.
enum RequestStatus : int {
  kRequestOk = 0,
  kBadDraftRange = 1,    // qo_indptr not 0 <= q0 <= q1 <= T, or not non-decreasing over the batch
  kTooManyDrafts = 2,    // q1 - q0 > max_len_extend (the fixed grid has no CTA for the extra rows)
  kBadPrefixRange = 4,   // kv_indptr not 0 <= k0 <= k1 <= len(kv_indices)
  kBadMaskRange = 8,     // mask block [m0, m0 + n (L + n)) not inside custom_mask
  kNoPartialRoom = 16,   // the split partials would not fit the workspace (unreachable by the schedule's bound)
};

// Sizes the plan was made for: a call whose sizes differ must not use it (the combine kernel then
// writes NaN everywhere; the Python entry point refuses such a plan before launching).
struct PlanHeader {
  long long chunk_tiles;  // C: 16-key tiles a split (the same for every request of the batch)
  int batch, num_tokens, num_heads, max_len_extend;
  int grid_ctas, target_ctas, min_tiles_per_split, ctas_used;
  int slots_used, split_balance_q10, row_halves, pad[3];  // row_halves: 1 where full M tiles take a CTA a row half
};
// One request: its rows, its prefix length as planned, and where its split partials go.
struct RequestPlan {
  int q_start, q_end;     // rows [q_start, q_end) of q_extend / o_extend (clamped into [0, T])
  int prefix_len;         // L as planned (a kernel run whose live L differs writes NaN)
  int status;             // RequestStatus bits
  int first_slot;         // first 64-row partial slot, -1: unsplit (the main kernel writes o)
  int splits;             // key splits (0: no CTA)
  int m_tiles;            // 64-row M tiles of its n x H folded rows
  int pad;
};
// One CTA of the main kernel's fixed grid: its whole work descriptor, worked out by the plan kernel once a batch, so that
// a CTA reaches its first cp.async after one load of it (four 16-byte words read by four threads at once, while 16 more
// read the cache slots of its first 16 keys from first_tile_slots). Keys are counted from the CTA's first key: [0, prefix_keys) prefix keys (cache rows through kv_indices),
// [prefix_keys, num_keys) drafts draft0, draft0 + 1, ... of the request.
struct CtaWork {
  int request;            // -1: idle CTA
  int m_tile;             // bits 0-15: folded rows [64 m, 64 m + 64); bits 16+: its rows this CTA takes (0 all, 1 [0, 32), 2 [32, 64))
  int slot;               // partial slot, -1: write o directly
  int n;                  // draft tokens of the request
  int q_start;            // first q_extend row of the request
  int num_keys;           // keys of this CTA
  int prefix_keys;        // of which prefix keys
  int draft0;             // draft index of its first draft key
  long long index_start;  // kv_indices element of its first key
  long long run_first;    // -1 from the plan; the run-check kernel writes the first slot where the prefix keys are one run
  long long mask_start;   // custom_mask element of the request's [n, L + n] block
  int L;                  // prefix length of the request
  int key_begin;          // its first key in the request's [0, L + n): split = key_begin / (16 chunk_tiles)
};
// The keys of a CTA's first tile whose cache slots the run-check kernel copies ahead (PagedVerifyParams::first_tile_slots).
constexpr int kFirstTileKeys = 16;
static_assert(sizeof(CtaWork) == 64 && sizeof(RequestPlan) == 32 && sizeof(PlanHeader) == 64, "plan layout");

struct PagedVerifyParams {
  // ---- inputs (bf16)
  const __nv_bfloat16* __restrict__ q;         // [T, H, 576] q_extend
  const __nv_bfloat16* __restrict__ k_extend;  // [T, 1, 576] draft latent keys
  const __nv_bfloat16* __restrict__ v_extend;  // [T, 1, 512] draft values (nullptr: the first 512 dims of k_extend)
  const void* __restrict__ kv_cache;           // [S, 1, 576] k_buffer (bf16, or fp8 e4m3: see cache_fp8); v_buffer is its [..., :512] view
  IndexArray qo_indptr;                        // [B+1] draft rows of each request
  IndexArray kv_indptr;                        // [B+1] prefix entries of each request in kv_indices
  IndexArray kv_indices;                       // [>= kv_indptr[B]] cache slot of each prefix token (page_size 1)
  const uint8_t* __restrict__ custom_mask;     // flat FULL_MASK (uint8 or bool), nullptr: no custom mask
  IndexArray mask_indptr;                      // [B+1] start of request b's [n, L+n] block in custom_mask
  // ---- outputs
  __nv_bfloat16* __restrict__ o;               // [T, H, 512] o_extend: every row written (a result or NaN)
  float* __restrict__ lse;                     // [T, H] natural-log LSE, nullptr: not wanted
  // ---- workspace (see paged_verify_workspace_bytes): the plan, partial LSEs, partial outputs
  PlanHeader* plan_header;
  RequestPlan* plan_requests;                  // [B]
  CtaWork* plan_ctas;                          // [grid_ctas]
  long long* first_tile_slots;                 // [grid_ctas][kFirstTileKeys] kv_indices values of each CTA's first keys (-1 past its prefix keys)
  unsigned* runs;                              // [ceil(len(kv_indices) / 32)] adjacency bits of the live entries (paged_verify_runs_kernel); nullptr: no fast path
  float* __restrict__ partial_lse;             // [slots][64] log2-domain LSE of each split's rows
  float* __restrict__ partial_o;               // [slots][64][512] normalized fp32 output of each split

  // ---- strides in elements
  int64_t q_token_stride, q_head_stride;
  int64_t k_extend_row_stride, v_extend_row_stride;
  int64_t cache_row_stride;                    // elements of the cache's type
  int cache_fp8;                               // 1: the cache holds fp8 e4m3 (dequantized exactly to bf16 in shared memory)
  int64_t o_token_stride, o_head_stride;
  int64_t lse_token_stride, lse_head_stride;

  // ---- sizes
  int batch;               // B requests
  int num_tokens;          // T rows of q_extend
  int num_heads;           // H
  int64_t num_slots;       // S cache slots (a kv_indices value outside [0, S) is never read: its key is NaN)
  int64_t kv_indices_len;  // elements of kv_indices
  int64_t mask_len;        // elements of custom_mask
  int max_len_extend;      // the host's bound on n (SGLang: num_draft_tokens); sizes the grid

  // ---- scores: s = (q . k) * sm_scale (* k_scale for prefix keys); cap * tanh(s / cap) if cap > 0
  float sm_scale;
  float k_scale;           // prefix (cache) keys only, as SGLang's k descale
  float v_scale;           // prefix (cache) values only, folded into P before its bf16 rounding
  float logit_cap;         // 0: off
  float score_scale_prefix;  // sm_scale * k_scale (the host multiplies once)
  float inv_logit_cap;     // 1 / logit_cap (0 when off): the kernel multiplies, never divides
  int is_causal;           // draft block without custom_mask: causal (1) or full (0)
  int skip_prefix_custom_mask;

  // ---- split scheduling (computed on the device by the plan kernel; the grid is fixed by the host)
  int target_ctas;         // CTAs the schedule aims at (SM count x CTAs per SM)
  int min_tiles_per_split; // no split shorter than this many 16-key tiles (unless the request is)
  int allow_row_halves;    // 1: the rule may give a full M tile two CTAs, one a row half (the `row_halves` knob); 0: whole tiles
  int split_balance_q10;   // the live-work rule, x 1024 (0: off): the chunk that least takes the longer of a split's tensor time
                           // and the batch's L2 time (balance_tiles in paged_kernel.cuh). balance = a split's fixed L2 bytes (its
                           // Q tile, its partials written and read) over the L2 bandwidth, in units of one tile's tensor time on
                           // an SM (bench.split_balance derives it for a card)
  int partial_slots;       // capacity of partial_o / partial_lse in 64-row slots
  int grid_ctas;           // CTAs of the main kernel's grid (paged::grid_ctas)
  int runs_ctas;           // CTAs of the runs kernel's fixed grid (0: target_ctas); its warps stride over the live entries
  int overlap_combine;     // 1: the combine kernel is a programmatic dependent launch (sm_90+): its row lookup overlaps the
                           // main kernel's tail and its launch is hidden; it waits for the main kernel before its partials
};
