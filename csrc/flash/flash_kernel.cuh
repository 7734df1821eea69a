// flash: device code. Three kernels over one request (see flash_params.h for the shapes):
//   verify_naive_kernel         one CTA per query row (draft token, head); the whole score row in
//                               shared memory; three passes (scores, softmax, P.V). The baseline.
//   flash_verify_split_kernel   split-K flash decode: CTA (split, m_block) runs an online softmax
//                               over its split's keys for kBlockM query rows (heads x draft tokens
//                               folded together), so each KV row is loaded once per split and
//                               m_block; writes a normalized partial output and its LSE.
//   flash_verify_combine_kernel merges the splits' partials by their LSEs.
// All arithmetic is fp32; inputs and the output are float or bf16 (one element type, a template
// parameter). Scores live in the log2 domain (s2 = q.k * sm_scale * log2(e), exp2), LSEs are
// natural logs.
#pragma once
#include <cstdint>
#include "vk/device.cuh"
#include "flash/flash_params.h"

namespace flash {

constexpr int kHeadDimQK = 576;  // latent (512) + rope (64) dims of q and k
constexpr int kHeadDimV = 512;   // v = the first 512 dims of a kv row
constexpr float kLn2 = 0.693147180559945309f;
constexpr float kNegInf = -__builtin_huge_valf();
constexpr float kNaN = __builtin_nanf("");
constexpr unsigned kFullMask = 0xffffffffu;

// ------------------------------------------------------------------ element type helpers
// A 16-byte chunk (one 128-bit load) holds kElems elements of T.
template <typename T> struct Chunk;
template <> struct Chunk<float> {
  static constexpr int kElems = 4;
  // acc + sum_i a[i] * b[i] over the chunk's elements
  static __device__ __forceinline__ float dot(const uint4& a, const uint4& b, float acc) {
    const float4 x = reinterpret_cast<const float4&>(a), y = reinterpret_cast<const float4&>(b);
    acc = fmaf(x.x, y.x, acc); acc = fmaf(x.y, y.y, acc);
    acc = fmaf(x.z, y.z, acc); acc = fmaf(x.w, y.w, acc);
    return acc;
  }
  static __device__ __forceinline__ void to_float(const uint4& a, float* out) {
    const float4 x = reinterpret_cast<const float4&>(a);
    out[0] = x.x; out[1] = x.y; out[2] = x.z; out[3] = x.w;
  }
};
template <> struct Chunk<__nv_bfloat16> {
  static constexpr int kElems = 8;
  static __device__ __forceinline__ float2 pair(uint32_t w) {
    return __bfloat1622float2(reinterpret_cast<const __nv_bfloat162&>(w));  // exact widening
  }
  static __device__ __forceinline__ float dot(const uint4& a, const uint4& b, float acc) {
    const uint32_t wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 x = pair(wa[i]), y = pair(wb[i]);
      acc = fmaf(x.x, y.x, acc); acc = fmaf(x.y, y.y, acc);
    }
    return acc;
  }
  static __device__ __forceinline__ void to_float(const uint4& a, float* out) {
    const uint32_t w[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) { const float2 x = pair(w[i]); out[2 * i] = x.x; out[2 * i + 1] = x.y; }
  }
};

template <typename T> __device__ __forceinline__ float to_float(T x);
template <> __device__ __forceinline__ float to_float<float>(float x) { return x; }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

// Store 4 consecutive outputs (fp32 accumulators) as T: one 16-byte (float) or 8-byte (bf16) store.
template <typename T> __device__ __forceinline__ void store4(T* dst, const float (&v)[4]);
template <> __device__ __forceinline__ void store4<float>(float* dst, const float (&v)[4]) {
  vk::st_global(reinterpret_cast<float4*>(dst), make_float4(v[0], v[1], v[2], v[3]));
}
template <> __device__ __forceinline__ void store4<__nv_bfloat16>(__nv_bfloat16* dst, const float (&v)[4]) {
  vk::st_global(reinterpret_cast<uint2*>(dst), make_uint2(vk::pack_bf16x2(v[0], v[1]), vk::pack_bf16x2(v[2], v[3])));
}
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// ------------------------------------------------------------------ warp / block reductions
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kFullMask, v, off);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, off));
  return v;
}
// Sum / max over aligned groups of kWidth lanes (every lane gets its group's result).
template <int kWidth> __device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int off = kWidth / 2; off > 0; off >>= 1) v += __shfl_xor_sync(kFullMask, v, off);
  return v;
}
template <int kWidth> __device__ __forceinline__ float group_max(float v) {
#pragma unroll
  for (int off = kWidth / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, off));
  return v;
}

// One butterfly step of the reduce-scatter below: lanes l and l ^ kHalf exchange halves of their
// 2 * kHalf live values; the lane with bit kHalf set keeps (and sums) the upper half.
template <int kN, int kHalf>
__device__ __forceinline__ void reduce_scatter_step(float (&v)[kN], int lane) {
  const bool upper = (lane & kHalf) != 0;
#pragma unroll
  for (int i = 0; i < kHalf; ++i) {
    const float lo = v[i], hi = v[i + kHalf];
    v[i] = (upper ? hi : lo) + __shfl_xor_sync(kFullMask, upper ? lo : hi, kHalf);
  }
}
template <int kN, int kHalf>
__device__ __forceinline__ void reduce_scatter_steps(float (&v)[kN], int lane) {
  if constexpr (kHalf >= 1) {
    reduce_scatter_step<kN, kHalf>(v, lane);
    reduce_scatter_steps<kN, kHalf / 2>(v, lane);
  }
}

// Reduce-scatter of kN (a power of two <= 32) partial sums across a warp: on entry every lane
// holds its partials v[0..kN) of kN different dot products; on return lane l holds the complete
// sum (over the 32 lanes) of dot product l % kN. A butterfly that halves the live values at every
// step (kN/2 + ... + 1 = kN - 1 shuffles), then an all-reduce over the 32/kN lanes that hold the
// same dot product: for kN = 32, 31 shuffles for 32 dot products instead of 32 x 5 = 160.
template <int kN>
__device__ __forceinline__ float warp_reduce_scatter(float (&v)[kN], int lane) {
  static_assert(kN >= 1 && kN <= 32 && (kN & (kN - 1)) == 0, "kN: a power of two <= 32");
  reduce_scatter_steps<kN, kN / 2>(v, lane);
  float r = v[0];
#pragma unroll
  for (int off = kN; off < 32; off <<= 1) r += __shfl_xor_sync(kFullMask, r, off);
  return r;
}

// Block-wide max / sum for kThreads threads; `red` holds >= kThreads/32 floats. Every thread gets
// the result; `red` may be reused after the call.
template <int kThreads, bool kMax>
__device__ __forceinline__ float block_reduce(float v, float* red) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  v = kMax ? warp_max(v) : warp_sum(v);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  v = red[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) v = kMax ? fmaxf(v, red[w]) : v + red[w];
  __syncthreads();
  return v;
}

// ================================================================== the naive kernel
// Grid: one CTA per query row m = t * H + h. Dynamic shared memory: q row (576 floats), a
// reduction scratch (32 floats) and the score row (num_keys floats): verify_naive_smem_bytes().
// Masked keys are neither loaded nor multiplied (their probability is exactly 0).
template <typename T, int kNWarps>
__global__ void __launch_bounds__(kNWarps * 32) verify_naive_kernel(const VerifyParams p) {
  constexpr int kThreads = kNWarps * 32;
  const int m = blockIdx.x;
  const int t = m / p.num_heads, h = m % p.num_heads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t num_keys = p.num_keys;
  float* q_s = vk::dynamic_smem<float>();  // [576]
  float* red_s = q_s + kHeadDimQK;         // [32]
  float* p_s = red_s + 32;                 // [num_keys]: scores (log2 domain), then probabilities

  const T* q_row = static_cast<const T*>(p.q) + t * p.q_token_stride + h * p.q_head_stride;
  for (int d = threadIdx.x; d < kHeadDimQK; d += kThreads) q_s[d] = to_float(vk::ld_global(q_row + d));
  __syncthreads();

  // 1. scores, one warp per key
  const uint8_t* mask_row = p.mask + t * p.mask_row_stride;
  const T* kv = static_cast<const T*>(p.kv);
  for (int64_t key = warp; key < num_keys; key += kNWarps) {
    float s = kNegInf;
    if (vk::ld_global(mask_row + key) != 0) {  // warp-uniform
      const T* k_row = kv + key * p.kv_row_stride;
      float dot = 0.f;
      for (int d = lane; d < kHeadDimQK; d += 32) dot = fmaf(q_s[d], to_float(vk::ld_global(k_row + d)), dot);
      s = warp_sum(dot) * p.scale_softmax_log2;
    }
    if (lane == 0) p_s[key] = s;
  }
  __syncthreads();

  // 2. softmax over the row. A masked key (-inf) gets probability 0; a NaN score (a NaN in a
  // visible row) propagates to the whole row, as in the oracle.
  float mx = kNegInf;
  for (int64_t key = threadIdx.x; key < num_keys; key += kThreads) mx = fmaxf(mx, p_s[key]);
  mx = block_reduce<kThreads, true>(mx, red_s);
  float sum = 0.f;
  for (int64_t key = threadIdx.x; key < num_keys; key += kThreads) {
    const float s = p_s[key];
    const float pr = s == kNegInf ? 0.f : exp2f(s - mx);
    p_s[key] = pr;
    sum += pr;
  }
  sum = block_reduce<kThreads, false>(sum, red_s);  // its barrier also publishes p_s
  const bool none = sum == 0.f;                     // no visible key: o = 0, lse = -inf

  // 3. o = P . V, one output dim per thread at a time
  T* o_row = static_cast<T*>(p.o) + t * p.o_token_stride + h * p.o_head_stride;
  const float inv = none ? 0.f : 1.f / sum;  // NaN stays NaN
  for (int d = threadIdx.x; d < kHeadDimV; d += kThreads) {
    float acc = 0.f;
    for (int64_t key = 0; key < num_keys; ++key) {
      const float pr = p_s[key];
      if (pr != 0.f) acc = fmaf(pr, to_float(vk::ld_global(kv + key * p.kv_row_stride + d)), acc);
    }
    vk::st_global(o_row + d, from_float<T>(acc * inv));
  }
  if (threadIdx.x == 0) vk::st_global(p.lse + t * p.lse_token_stride + h, none ? kNegInf : mx * kLn2 + logf(sum));
}

// ================================================================== the split-K flash kernel
// Compile-time shape of the split kernel.
template <typename Element_, int kBlockM_, int kBlockN_, int kNWarps_, int kPairs_ = 32>
struct FlashVerifyTraits {
  using Element = Element_;
  static constexpr int kBlockM = kBlockM_;  // query rows (heads x draft tokens) per CTA
  static constexpr int kBlockN = kBlockN_;  // keys per tile
  static constexpr int kNWarps = kNWarps_;
  static constexpr int kThreads = kNWarps * 32;
  static constexpr int kElemsPerChunk = Chunk<Element>::kElems;        // per 128-bit load
  static constexpr int kChunksQK = kHeadDimQK / kElemsPerChunk;       // chunks in a q / kv row
  static constexpr int kChunksV = kHeadDimV / kElemsPerChunk;         // chunks in a v row
  static constexpr int kChunksPerLane = (kChunksQK + 31) / 32;        // a warp loads a row
  static constexpr int kKeysPerWarp = kBlockN / kNWarps;              // warp-per-key, kKeysPerWarp at once
  static constexpr int kPairs = kPairs_;                              // (row, key) dot products per reduce-scatter
  static constexpr int kRowsPerBatch = kPairs / kKeysPerWarp;
  static constexpr int kRowsPerWarp = kBlockM / kNWarps;              // softmax: rows owned by each warp
  static constexpr int kRowsPerPass = 32 / kBlockN;                   // softmax: rows a warp handles at once
  static constexpr int kDimsPerThread = 8;                            // P.V: output dims per thread
  static constexpr int kDimGroups = kHeadDimV / kDimsPerThread;       // 64
  static constexpr int kRowGroups = kThreads / kDimGroups;
  static constexpr int kRowsPerThread = kBlockM / kRowGroups;         // P.V: rows per thread
  static constexpr int kSStride = kBlockN + 1;                        // padded score rows
  // shared memory, bytes (16-byte aligned pieces first)
  static constexpr int kQBytes = kBlockM * kHeadDimQK * int(sizeof(Element));  // q tile
  static constexpr int kVBytes = kBlockN * kHeadDimV * int(sizeof(Element));   // v tile
  static constexpr int kSBytes = kBlockM * kSStride * 4;                       // scores / probabilities
  static constexpr int kStatBytes = 3 * kBlockM * 4;                           // alpha, row max, row sum
  static constexpr int kSmemBytes = kQBytes + kVBytes + kSBytes + kStatBytes;

  static_assert(kHeadDimQK % kElemsPerChunk == 0 && kHeadDimV % kElemsPerChunk == 0, "whole chunks");
  static_assert(kBlockN % kNWarps == 0 && kPairs % kKeysPerWarp == 0, "keys split evenly over warps and batches");
  static_assert(kBlockN <= 32 && (kBlockN & (kBlockN - 1)) == 0, "softmax: one lane per key, whole lane groups");
  static_assert(kBlockM % kRowsPerBatch == 0 && kBlockM % kNWarps == 0 && kRowsPerWarp % kRowsPerPass == 0, "rows split evenly");
  static_assert(kThreads % kDimGroups == 0 && kBlockM % kRowGroups == 0, "P.V tiling");
  static_assert(kDimsPerThread % kElemsPerChunk == 0, "P.V reads whole chunks");
  static_assert(kSmemBytes <= 101376, "sm_120 allows 99 KB (101,376 B) of shared memory per block");
};

// Grid (ceil(n*H / kBlockM), num_splits), kThreads threads, Traits::kSmemBytes dynamic smem.
// Per key tile of kBlockN keys:
//   1. warp-per-key load: each warp reads kKeysPerWarp kv rows with 128-bit loads (lanes split the
//      576 dims) into registers, and stores their first 512 dims (V) into the shared v tile;
//   2. scores: each lane multiplies its slice of those keys with the same slice of every q row of
//      the tile (q tile in shared memory), a reduce-scatter turns 32 partial sums per lane into 32
//      dot products (one per lane), masked / out-of-range pairs become -inf;
//   3. online softmax: warp w owns rows w, w + kNWarps, ... (running max / sum in shared memory,
//      one lane per key): probabilities in place of the scores, per-row rescale factor alpha;
//   4. P.V: thread (row group, dim group) rescales its accumulators by alpha and adds p * v.
template <typename Traits>
__global__ void __launch_bounds__(Traits::kThreads, 1) flash_verify_split_kernel(const VerifyParams p) {
  using T = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM, kBlockN = Traits::kBlockN, kNWarps = Traits::kNWarps;
  constexpr int kThreads = Traits::kThreads, kChunksQK = Traits::kChunksQK, kChunksV = Traits::kChunksV;
  constexpr int kChunksPerLane = Traits::kChunksPerLane, kKeysPerWarp = Traits::kKeysPerWarp;
  constexpr int kPairs = Traits::kPairs, kRowsPerBatch = Traits::kRowsPerBatch;
  constexpr int kRowsPerWarp = Traits::kRowsPerWarp, kRowsPerPass = Traits::kRowsPerPass;
  constexpr int kDimGroups = Traits::kDimGroups, kRowGroups = Traits::kRowGroups;
  constexpr int kRowsPerThread = Traits::kRowsPerThread, kSStride = Traits::kSStride;
  constexpr int kVChunksPerThread = Traits::kDimsPerThread / Traits::kElemsPerChunk;

  const int split = blockIdx.y;
  const int m0 = blockIdx.x * kBlockM;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int num_rows = p.num_tokens * p.num_heads;
  // key indices fit 32 bits (the host API checks num_keys < 2^31); row offsets are 64-bit
  const int key_begin = int(min(int64_t(split) * p.keys_per_split, p.num_keys));
  const int key_end = int(min(int64_t(key_begin) + p.keys_per_split, p.num_keys));

  unsigned char* smem = vk::dynamic_smem();
  uint4* q_s = reinterpret_cast<uint4*>(smem);                                   // [kBlockM][kChunksQK]
  uint4* v_s = reinterpret_cast<uint4*>(smem + Traits::kQBytes);                 // [kBlockN][kChunksV]
  float* s_s = reinterpret_cast<float*>(smem + Traits::kQBytes + Traits::kVBytes);  // [kBlockM][kSStride]
  float* alpha_s = s_s + kBlockM * kSStride;                                     // [kBlockM]
  float* max_s = alpha_s + kBlockM;                                              // [kBlockM]
  float* sum_s = max_s + kBlockM;                                                // [kBlockM]

  // The q tile (rows past n*H are zeros; never stored). Skipped by an empty split.
  if (key_begin < key_end) {
    for (int idx = threadIdx.x; idx < kBlockM * kChunksQK; idx += kThreads) {
      const int r = idx / kChunksQK, c = idx % kChunksQK, m = m0 + r;
      uint4 val = make_uint4(0u, 0u, 0u, 0u);
      if (m < num_rows) {
        const T* row = static_cast<const T*>(p.q) + (m / p.num_heads) * p.q_token_stride + (m % p.num_heads) * p.q_head_stride;
        val = vk::ldg(reinterpret_cast<const uint4*>(row) + c);
      }
      q_s[idx] = val;
    }
  }
  for (int r = threadIdx.x; r < kBlockM; r += kThreads) { max_s[r] = kNegInf; sum_s[r] = 0.f; }  // softmax state
  __syncthreads();

  const int dim_group = threadIdx.x % kDimGroups, row_group = threadIdx.x / kDimGroups;
  float acc[kRowsPerThread][Traits::kDimsPerThread];  // P.V accumulators: rows row_group + kRowGroups*i
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i)
#pragma unroll
    for (int d = 0; d < Traits::kDimsPerThread; ++d) acc[i][d] = 0.f;

  const T* kv = static_cast<const T*>(p.kv);
  for (int tile = key_begin; tile < key_end; tile += kBlockN) {
    // 1. warp-per-key load of this warp's keys (K in registers, V also to shared memory)
    uint4 k_r[kKeysPerWarp][kChunksPerLane];
#pragma unroll
    for (int j = 0; j < kKeysPerWarp; ++j) {
      const int slot = warp * kKeysPerWarp + j;
      const int key = tile + slot;
      const bool valid = key < key_end;
      const uint4* row = reinterpret_cast<const uint4*>(kv + (valid ? int64_t(key) : 0) * p.kv_row_stride);
#pragma unroll
      for (int i = 0; i < kChunksPerLane; ++i) {
        const int c = lane + 32 * i;
        k_r[j][i] = (valid && c < kChunksQK) ? vk::ldg(row + c) : make_uint4(0u, 0u, 0u, 0u);
        if (c < kChunksV) v_s[slot * kChunksV + c] = k_r[j][i];  // zeros for keys past the split
      }
    }

    // 2. scores for every (row, key) pair of the tile, 32 pairs per reduce-scatter
#pragma unroll 1
    for (int b = 0; b < kBlockM / kRowsPerBatch; ++b) {
      float part[kPairs];
#pragma unroll
      for (int r = 0; r < kRowsPerBatch; ++r) {
#pragma unroll
        for (int j = 0; j < kKeysPerWarp; ++j) part[r * kKeysPerWarp + j] = 0.f;
        const uint4* q_row = q_s + (b * kRowsPerBatch + r) * kChunksQK;
#pragma unroll
        for (int i = 0; i < kChunksPerLane; ++i) {
          const int c = lane + 32 * i;
          if (c < kChunksQK) {
            const uint4 qc = q_row[c];
#pragma unroll
            for (int j = 0; j < kKeysPerWarp; ++j)
              part[r * kKeysPerWarp + j] = Chunk<T>::dot(qc, k_r[j][i], part[r * kKeysPerWarp + j]);
          }
        }
      }
      const float dot = warp_reduce_scatter<kPairs>(part, lane);  // the dot product of pair lane % kPairs
      const int pair = lane % kPairs;
      const int row = b * kRowsPerBatch + pair / kKeysPerWarp, slot = warp * kKeysPerWarp + pair % kKeysPerWarp;
      const int m = m0 + row;
      const int key = tile + slot;
      if (lane < kPairs) {  // lanes kPairs.. hold copies of the same dot products
        const bool visible = m < num_rows && key < key_end && vk::ld_global(p.mask + (m / p.num_heads) * p.mask_row_stride + key) != 0;
        s_s[row * kSStride + slot] = visible ? dot * p.scale_softmax_log2 : kNegInf;
      }
    }
    __syncthreads();

    // 3. online softmax: warp w owns rows w + kNWarps * i (running max / sum in shared memory); a
    //    group of kBlockN lanes takes one row (lane = key), 32 / kBlockN rows at a time
#pragma unroll 1
    for (int i = 0; i < kRowsPerWarp; i += kRowsPerPass) {
      const int row = warp + kNWarps * (i + lane / kBlockN), key = lane % kBlockN;
      const float s = s_s[row * kSStride + key];
      const float old_max = max_s[row];
      const float new_max = fmaxf(old_max, group_max<kBlockN>(s));
      // masked (-inf) -> 0; a NaN score propagates (fmaxf ignores it, exp2f keeps it)
      const float pr = s == kNegInf ? 0.f : exp2f(s - new_max);
      const float alpha = new_max == kNegInf ? 1.f : exp2f(old_max - new_max);  // nothing visible yet: no rescale
      const float tile_sum = group_sum<kBlockN>(pr);
      s_s[row * kSStride + key] = pr;
      if (key == 0) {
        alpha_s[row] = alpha;
        max_s[row] = new_max;
        sum_s[row] = sum_s[row] * alpha + tile_sum;
      }
    }
    __syncthreads();

    // 4. acc = acc * alpha + P . V
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
      const float a = alpha_s[row_group + kRowGroups * i];
#pragma unroll
      for (int d = 0; d < Traits::kDimsPerThread; ++d) acc[i][d] *= a;
    }
#pragma unroll 4
    for (int k = 0; k < kBlockN; ++k) {
      float v[Traits::kDimsPerThread];
#pragma unroll
      for (int c = 0; c < kVChunksPerThread; ++c)
        Chunk<T>::to_float(v_s[k * kChunksV + dim_group * kVChunksPerThread + c], v + c * Traits::kElemsPerChunk);
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) {
        const float pr = s_s[(row_group + kRowGroups * i) * kSStride + k];
#pragma unroll
        for (int d = 0; d < Traits::kDimsPerThread; ++d) acc[i][d] = fmaf(pr, v[d], acc[i][d]);
      }
    }
    __syncthreads();  // the next tile overwrites v_s and s_s
  }

  // Epilogue (the last barrier of the loop published max_s / sum_s): each row's LSE and every
  // thread's normalized partial outputs. An empty or fully masked split writes o = 0, lse = -inf.
  const int64_t part_row0 = int64_t(split) * num_rows;
  for (int row = threadIdx.x; row < kBlockM; row += kThreads) {
    const float l = sum_s[row];
    if (m0 + row < num_rows) vk::st_global(p.lse_partial + part_row0 + m0 + row, l == 0.f ? kNegInf : max_s[row] * kLn2 + logf(l));
  }
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int row = row_group + kRowGroups * i, m = m0 + row;
    if (m >= num_rows) continue;
    const float l = sum_s[row];
    const float inv = l == 0.f ? 0.f : 1.f / l;  // nothing visible: acc = 0 -> o = 0; NaN stays NaN
    float* dst = p.o_partial + (part_row0 + m) * kHeadDimV + dim_group * Traits::kDimsPerThread;
#pragma unroll
    for (int d = 0; d < Traits::kDimsPerThread; d += 4)
      vk::st_global(reinterpret_cast<float4*>(dst + d),
                    make_float4(acc[i][d] * inv, acc[i][d + 1] * inv, acc[i][d + 2] * inv, acc[i][d + 3] * inv));
  }
}

// ================================================================== the combine kernel
// Grid: one CTA per query row; kThreads = 128 threads x 4 output dims. Dynamic smem: num_splits
// floats (the row's split LSEs). lse = log(sum_s exp(lse_s)), o = sum_s exp(lse_s - lse) * o_s;
// splits with lse_s = -inf get weight 0 and their partial output is not read.
template <typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) flash_verify_combine_kernel(const VerifyParams p) {
  static_assert(kThreads * 4 == kHeadDimV, "4 output dims per thread");
  const int m = blockIdx.x;
  const int num_rows = p.num_tokens * p.num_heads, num_splits = p.num_splits;
  float* lse_s = vk::dynamic_smem<float>();  // [num_splits]
  for (int s = threadIdx.x; s < num_splits; s += kThreads) lse_s[s] = vk::ldg(p.lse_partial + int64_t(s) * num_rows + m);
  __syncthreads();

  float mx = kNegInf;
  bool nan = false;  // a split that read a NaN poisons the row (as in the oracle), never hidden
  for (int s = 0; s < num_splits; ++s) { const float l = lse_s[s]; mx = fmaxf(mx, l); nan |= l != l; }
  float out[4] = {0.f, 0.f, 0.f, 0.f};
  float lse = kNegInf;
  if (nan) {
    lse = kNaN;
    out[0] = out[1] = out[2] = out[3] = lse;
  } else if (mx != kNegInf) {
    float sum = 0.f;
    for (int s = 0; s < num_splits; ++s) sum += expf(lse_s[s] - mx);
    lse = mx + logf(sum);
    for (int s = 0; s < num_splits; ++s) {
      const float w = expf(lse_s[s] - lse);
      if (w == 0.f) continue;  // an empty / fully masked split (or one that underflows): skip its row
      const float4 x = vk::ldg(reinterpret_cast<const float4*>(p.o_partial + (int64_t(s) * num_rows + m) * kHeadDimV) + threadIdx.x);
      out[0] = fmaf(w, x.x, out[0]); out[1] = fmaf(w, x.y, out[1]);
      out[2] = fmaf(w, x.z, out[2]); out[3] = fmaf(w, x.w, out[3]);
    }
  }
  const int t = m / p.num_heads, h = m % p.num_heads;
  store4<T>(static_cast<T*>(p.o) + t * p.o_token_stride + h * p.o_head_stride + 4 * threadIdx.x, out);
  if (threadIdx.x == 0) vk::st_global(p.lse + t * p.lse_token_stride + h, lse);
}

}  // namespace flash
