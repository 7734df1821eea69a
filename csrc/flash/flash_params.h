// flash: tree-verify attention for one request on a contiguous MLA latent cache (phases 0-1).
//
//   q    [n, H, 576]    the request's n draft-token queries, H query heads (latent + rope dims)
//   kv   [L + n, 576]   the latent cache rows the request attends to: L prefix rows, then the n
//                       draft rows; K is the whole row, V is the view kv[:, :512] (never copied)
//   mask [n, L + n]     bool/uint8, nonzero = key visible to the draft token (the tree mask)
//   o    [n, H, 512]    softmax(q . k^T * sm_scale, masked) . v, in the input dtype
//   lse  [n, H]         fp32, natural log of the sum of exp of the scaled visible scores
//                       (-inf, and o = 0, for a row that sees no key: SGLang's convention)
//
// Query rows are numbered m = t * H + h (draft token t, head h): the "M" dimension into which the
// flash kernel folds every head and draft token of the request, so a KV row loaded once serves
// all of them.
#pragma once
#include <cstdint>

struct VerifyParams {
  // ---- inputs: q, kv and o have one element type (float or __nv_bfloat16), picked at dispatch
  const void* __restrict__ q;      // [n, H, 576]   strides q_token_stride, q_head_stride, 1
  const void* __restrict__ kv;     // [L + n, 576]  stride kv_row_stride, 1; V = kv[:, :512]
  const uint8_t* __restrict__ mask;  // [n, L + n]  stride mask_row_stride, 1
  // ---- outputs
  void* __restrict__ o;            // [n, H, 512]   strides o_token_stride, o_head_stride, 1
  float* __restrict__ lse;         // [n, H]        stride lse_token_stride, 1
  // ---- flash only: the split-K workspace (fp32), written by the split kernel, read by the combine
  float* __restrict__ o_partial;   // [num_splits, n * H, 512]  each split's normalized output
  float* __restrict__ lse_partial; // [num_splits, n * H]       each split's natural-log LSE (-inf: no key)

  // strides in elements
  int64_t q_token_stride, q_head_stride;
  int64_t kv_row_stride;
  int64_t mask_row_stride;
  int64_t o_token_stride, o_head_stride;
  int64_t lse_token_stride;

  // sizes
  int num_tokens;          // n (draft tokens of the request, >= 1)
  int num_heads;           // H
  int64_t num_keys;        // L + n
  int num_splits;          // flash: parts the key range [0, num_keys) is split into (>= 1)
  int64_t keys_per_split;  // flash: ceil(num_keys / num_splits); split s covers [s*kps, min((s+1)*kps, num_keys))

  float sm_scale;            // softmax scale applied to q . k
  float scale_softmax_log2;  // sm_scale * log2(e): scores are kept in the log2 domain (exp2)
};
