// paged: device code of the paged bf16 tree-verify kernel (SGLang target_verify, MLA: 576-dim latent
// keys, values = their first 512 dims, one KV head shared by all query heads).
//
// One CTA = one (request, M tile, split): an M tile is 64 rows of the request's draft tokens x heads
// folded together (row r = token * H + head), so a KV row is read once per M tile and split; a split
// is a contiguous range of the request's keys [0, L + n): prefix keys through kv_indices (page_size 1)
// then the n draft keys from k_extend. Per 16-key tile:
//   1. cp.async (4-stage ring, issued 3 tiles ahead, kv_indices loaded one more tile ahead) brings the
//      16 latent rows (16 x 1152 B) into shared memory; the tile serves as K and its first 512 columns
//      as V (v_buffer is a view of k_buffer: never loaded twice).
//   2. S = Q K^T with mma.sync m16n8k16: Q lives in registers (loaded once per CTA straight from global
//      memory in A-fragment layout); 8 warps = 2 (32 rows) x 4 (144-dim slices), warp w on rows
//      32 (w / 4) (so the four warps of each row half sit on the SM's four sub-partitions); each warp
//      writes its partial S (fp32) to shared memory.
//   3. Softmax: 256 threads, one row x 4 keys each: sum the 4 partials, scale (x k_scale for prefix
//      keys), logit cap, tree mask (draft bits packed on the device at CTA start), online max/sum in
//      registers; P (bf16, x v_scale for prefix keys) and the row rescale factor go to shared memory.
//   4. O = alpha O + P V with mma.sync: warp w owns all 64 rows x Dv columns [64w, 64w + 64) (128 fp32
//      accumulators a thread); P through ldmatrix, V through ldmatrix.trans from the same K tile.
// The MMAs of a 16-row fragment that holds no row of the request (the last M tile of n x H < 64 rows,
// e.g. 32 at n = 4, H = 8) are skipped, in steps 2 and 4 alike: every sub-partition then issues
// 34 HMMA a tile for each live fragment, instead of 136 whatever the rows (block-uniform branches).
// A request whose keys were split writes normalized fp32 partials + LSE to a workspace and
// paged_verify_combine_kernel merges them; an unsplit one writes o (bf16) and lse directly.
// The split schedule is computed on the device, once per batch, by paged_verify_plan_kernel (one CTA):
// it reads qo_indptr / kv_indptr / mask_indptr, checks them, and writes one CtaWork per CTA of the
// main kernel's fixed grid plus one RequestPlan per request. Every layer of a forward pass reuses the
// plan; no host sync anywhere, so the three kernels can be captured in a CUDA graph.
// Malformed input never leaves garbage in o: a request whose index ranges are wrong gets no CTA and
// the combine kernel (which visits every row) writes NaN into its rows; a kv_indices value outside
// the cache is never read - its key row is NaN in shared memory, so every row reading it is NaN.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>
#include "vk/device.cuh"
#include "paged/paged_params.h"

namespace paged {

constexpr int kHeadDimQK = 576;  // MLA latent (kv_lora_rank 512 + rope 64)
constexpr int kHeadDimV = 512;
constexpr int kMaxDraft = 256;   // most draft tokens a request may have (sizes the packed tree mask)
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kNegInf = -__builtin_huge_valf();

// The cache's element type: SGLang's bf16 latent cache, or its fp8 e4m3 one (`--kv-cache-dtype
// fp8_e4m3`: a float8_e4m3fn view of uint8 storage, 576 B a row, descaled by k_scale / v_scale).
enum class CacheKind { kBf16, kE4m3 };

template <CacheKind kCache = CacheKind::kBf16>
struct PagedTraits {
  static constexpr CacheKind kCacheKind = kCache;
  static constexpr bool kFp8 = kCache == CacheKind::kE4m3;
  static constexpr int kBlockM = 64;    // folded (token, head) rows per CTA
  static constexpr int kBlockN = 16;    // keys per pipeline tile
  static constexpr int kStages = 4;     // cp.async ring depth (tiles in flight while one is computed)
  static constexpr int kWarps = 8;
  static constexpr int kThreads = kWarps * 32;
  // S = Q K^T: warps as kWarpsM (rows) x kWarpsD (slices of the 576 dims)
  static constexpr int kWarpsM = 2, kWarpsD = 4;
  static constexpr int kMTilesQK = kBlockM / kWarpsM / 16;        // 2 m16 tiles a warp
  static constexpr int kKStepsQK = kHeadDimQK / kWarpsD / 16;     // 9 k16 steps a warp
  // O += P V: every warp all 64 rows, Dv / 8 columns
  static constexpr int kMTilesPV = kBlockM / 16;                   // 4
  static constexpr int kColsPV = kHeadDimV / kWarps;               // 64
  static constexpr int kN8PV = kColsPV / 8;                        // 8
  // softmax: one row x kSoftCols keys a thread
  static constexpr int kSoftCols = kBlockM * kBlockN / kThreads;   // 4
  static constexpr int kDraftWords = kMaxDraft / 32;               // packed tree-mask words per token
  // shared memory (bytes). The tile the MMAs read holds bf16 rows (kRowBytes apart). With a bf16 cache
  // the cp.async ring stages are those tiles; with an fp8 cache the ring holds fp8 rows (half the
  // bytes) and each tile is dequantized into one bf16 tile (kOffTile) before Q K^T.
  static constexpr int kRowBytes = kHeadDimQK * 2 + 16;            // 1168: +16 B so ldmatrix rows hit distinct banks
  static constexpr int kCacheRowBytes = kHeadDimQK * (kFp8 ? 1 : 2) + 16;  // ring row pitch: 1168 (bf16), 592 (fp8)
  static constexpr int kStageBytes = kBlockN * kCacheRowBytes;     // 18,688 (bf16), 9,472 (fp8)
  static constexpr int kOffKV = 0;
  static constexpr int kOffTile = kOffKV + kStages * kStageBytes;  // fp8: the dequantized bf16 tile
  static constexpr int kOffS = kOffTile + (kFp8 ? kBlockN * kRowBytes : 0);  // partial scores [kWarpsD][64][16] fp32
  static constexpr int kOffP = kOffS + kWarpsD * kBlockM * kBlockN * 4;  // P [64][16] bf16
  static constexpr int kOffAlpha = kOffP + kBlockM * kBlockN * 2;  // row rescale factor [64] fp32
  static constexpr int kOffRowM = kOffAlpha + kBlockM * 4;          // final row max (log2 domain) [64]
  static constexpr int kOffRowL = kOffRowM + kBlockM * 4;           // final row sum [64]
  // the cache slots of the CTA's first kBlockN keys (int64, from the plan's first_tile_slots), read in the prologue only:
  // the row max and sum reuse these bytes after the main loop
  static constexpr int kOffFirstSlots = kOffRowM;
  static constexpr int kOffBits = kOffRowL + kBlockM * 4;           // packed draft mask [64 tokens][kDraftWords]
  static constexpr int kOffWork = kOffBits + kBlockM * kDraftWords * 4;  // this CTA's Work (<= 128 B)
  static constexpr int kSmemBytes = kOffWork + 128;                 // 96,128 B (bf16), 77,952 B (fp8)
  static_assert(kWarpsM * kWarpsD == kWarps && kSoftCols == 4 && kBlockN == 16, "tiling");
  static_assert(kBlockN == kFirstTileKeys && kBlockN * 8 <= 2 * kBlockM * 4 && kOffFirstSlots % 8 == 0, "first-tile slots");
  static_assert(kSmemBytes <= 101376, "sm_120 allows 99 KB (101,376 B) of shared memory per block");
};
using PagedTraitsBf16 = PagedTraits<CacheKind::kBf16>;
using PagedTraitsE4m3 = PagedTraits<CacheKind::kE4m3>;

// ------------------------------------------------------------------ small helpers
__device__ __forceinline__ int64_t load_index(const IndexArray& a, int64_t i) {
  return a.is64 ? int64_t(vk::ldg(static_cast<const long long*>(a.ptr) + i))
                : int64_t(vk::ldg(static_cast<const int*>(a.ptr) + i));
}
__device__ __forceinline__ int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Partial-score element (d, row, col) of the [kWarpsD][64][16] fp32 array; the 16-byte chunk index is
// swizzled with bit 1 of the row so that both the MMA-fragment writes (float2) and the softmax reads
// (float4, one row x 4 columns a thread) are free of bank conflicts.
__device__ __forceinline__ int s_index(int d, int row, int col) {
  return (d * 64 + row) * 16 + ((((col >> 2) ^ (((row >> 1) & 1) << 1))) << 2) + (col & 3);
}
// P element (row, col) of the [64][16] bf16 tile; the 16-byte half is swizzled with bit 2 of the row
// so that ldmatrix (8 rows x 16 B a matrix) hits 8 distinct bank groups.
__device__ __forceinline__ int p_index(int row, int col) {
  return row * 16 + ((((col >> 3) ^ ((row >> 2) & 1))) << 3) + (col & 7);
}

// Exclusive prefix sum of one value a thread over the block; *total gets the block's sum. Two barriers.
template <int kThreads>
__device__ __forceinline__ int64_t block_exclusive_scan(int64_t v, int64_t* scratch, int64_t* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int64_t x = v;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const long long y = __shfl_up_sync(0xffffffffu, (long long)x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) scratch[warp] = x;
  __syncthreads();
  int64_t before = 0, sum = 0;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) {
    const int64_t s = scratch[w];
    before += (w < warp) ? s : 0;
    sum += s;
  }
  __syncthreads();
  *total = sum;
  return before + x - v;
}

// The sums of kSums values and the largest of one more, each one a thread, over the block (in place: v[i] becomes the block's
// sum, *m the block's max); `scratch` holds (kSums + 1) x kThreads / 32. Two barriers.
template <int kThreads, int kSums>
__device__ __forceinline__ void block_sums_max(int64_t (&v)[kSums], int64_t* m, int64_t* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  constexpr int kW = kThreads / 32;
  int64_t mx = *m;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
#pragma unroll
    for (int i = 0; i < kSums; ++i) v[i] += __shfl_xor_sync(0xffffffffu, (long long)v[i], off);
    const int64_t o = __shfl_xor_sync(0xffffffffu, (long long)mx, off);
    mx = o > mx ? o : mx;
  }
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < kSums; ++i) scratch[i * kW + warp] = v[i];
    scratch[kSums * kW + warp] = mx;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kSums; ++i) {
    int64_t s = 0;
#pragma unroll
    for (int w = 0; w < kW; ++w) s += scratch[i * kW + w];
    v[i] = s;
  }
  mx = scratch[kSums * kW];
#pragma unroll
  for (int w = 1; w < kW; ++w) mx = scratch[kSums * kW + w] > mx ? scratch[kSums * kW + w] : mx;
  __syncthreads();
  *m = mx;
}

// One request's sizes from the live index arrays, clamped so that they can never address outside the
// tensors, and what is wrong with them (RequestStatus bits; n = 0 unless the status is kRequestOk).
struct RequestDims {
  int64_t q_start, q_end;      // rows [q_start, q_end) clamped into [0, T]
  int64_t kv_start, L;         // prefix entries [kv_start, kv_start + L) of kv_indices (clamped)
  int64_t mask_start;          // custom_mask element of the request's [n, L + n] block
  int n;                       // draft tokens (0 for a malformed request)
  int status;
};
// From its indptr values (m0: mask_indptr[b], read only with a custom mask).
__device__ __forceinline__ RequestDims request_dims_from(const PagedVerifyParams& p, int64_t q0, int64_t q1, int64_t k0, int64_t k1,
                                                         int64_t m0) {
  RequestDims r;
  r.status = kRequestOk;
  if (!(q0 >= 0 && q0 <= q1 && q1 <= p.num_tokens)) r.status |= kBadDraftRange;
  else if (q1 - q0 > p.max_len_extend) r.status |= kTooManyDrafts;
  if (!(k0 >= 0 && k0 <= k1 && k1 <= p.kv_indices_len)) r.status |= kBadPrefixRange;
  else if (k1 - k0 > 0x3fffffff) r.status |= kBadPrefixRange;  // a CtaWork holds L and its keys as int
  r.q_start = clamp64(q0, 0, p.num_tokens);
  r.q_end = clamp64(q1, r.q_start, p.num_tokens);
  r.kv_start = clamp64(k0, 0, p.kv_indices_len);
  r.L = clamp64(k1 - r.kv_start, 0, p.kv_indices_len - r.kv_start);
  r.n = int(r.q_end - r.q_start);
  r.mask_start = 0;
  if (p.custom_mask != nullptr && r.status == kRequestOk) {
    if (!(m0 >= 0 && m0 <= p.mask_len && p.mask_len - m0 >= int64_t(r.n) * (r.L + r.n))) r.status |= kBadMaskRange;
    else r.mask_start = m0;
  }
  if (r.status != kRequestOk) r.n = 0;
  return r;
}
__device__ __forceinline__ RequestDims request_dims(const PagedVerifyParams& p, int b) {
  return request_dims_from(p, load_index(p.qo_indptr, b), load_index(p.qo_indptr, b + 1), load_index(p.kv_indptr, b),
                           load_index(p.kv_indptr, b + 1), p.custom_mask != nullptr ? load_index(p.mask_indptr, b) : 0);
}

__device__ __forceinline__ RequestPlan load_request_plan(const PagedVerifyParams& p, int b) {
  const int4* src = reinterpret_cast<const int4*>(p.plan_requests + b);
  const int4 a = vk::ldg(src), c = vk::ldg(src + 1);
  return RequestPlan{a.x, a.y, a.z, a.w, c.x, c.y, c.z, c.w};
}
// The plan in the workspace was made for this call's sizes: field i (0 <= i < kPlanHeaderFields) of its header - batch,
// num_tokens, num_heads, max_len_extend, grid_ctas, target_ctas - equals this call's. One load a thread (or lane), so
// that the six checks share one round trip.
constexpr int kPlanHeaderFields = 6;
__device__ __forceinline__ bool plan_field_matches(const PagedVerifyParams& p, int i) {
  const PlanHeader* h = p.plan_header;
  const int* got = i == 0 ? &h->batch : i == 1 ? &h->num_tokens : i == 2 ? &h->num_heads
                 : i == 3 ? &h->max_len_extend : i == 4 ? &h->grid_ctas : &h->target_ctas;
  const int want = i == 0 ? p.batch : i == 1 ? p.num_tokens : i == 2 ? p.num_heads
                 : i == 3 ? p.max_len_extend : i == 4 ? p.grid_ctas : p.target_ctas;
  return vk::ldg(got) == want;
}

// ------------------------------------------------------------------ the plan kernel (one CTA)
// The live-work rule (split_balance_q10 > 0). A split costs its SM C tiles of tensor time; through L2 the batch moves each
// split's fixed bytes - its Q rows, and its fp32 partials and LSEs written and read back, both for the live rows of its M
// tile only - and each M tile's keys once. In units of one tile's tensor time on an SM:
//   L2(C) = balance x R / (64 C) + balance x (kKvTileBytes / kSplitFixedBytes) x W,
// R = sum_b live rows_b x ktiles_b, W = sum_b mtiles_b x ktiles_b, balance = kSplitFixedBytes / (L2 bandwidth x one tile's
// tensor time) (bench.split_balance derives it for a card). A CTA's tile costs f = live16 / 4 of a full one, live16 the
// batch's most live 16-row fragments in an M tile (1-4; the main kernel skips the MMAs of the others). The chunk is the C
// that least takes max(f C, L2(C)), i.e. max(C, L2(C) / f): the least C* with f C* >= L2(C*), or C* - 1 where
// L2(C* - 1) < f C*. Exact in 128-bit integers (every term x 4 x 64 x 1024 x 73) after a float guess, so that the device,
// the emulator and the Python mirrors (paged.balance_tiles, bench.paged_schedule) agree to the tile; 0 when off, and past
// 2^44 tile-rows (a batch no memory holds).
constexpr int64_t kSplitFixedBytes = 64 * (kHeadDimQK * 2 + 2 * (kHeadDimV + 1) * 4);  // 336,384: 64 Q rows; partials + LSE, out and back
constexpr int64_t kKvTileBytes = 16 * kHeadDimQK * 2;                                    // 18,432: one 16-key tile of bf16 cache rows
constexpr int64_t kRuleUnit = 4608;                                                      // their greatest common divisor: 73 and 4 units
constexpr int64_t kRuleMaxWork = int64_t(1) << 44;
static_assert(kSplitFixedBytes / kRuleUnit == 73 && kKvTileBytes / kRuleUnit == 4 && kSplitFixedBytes % kRuleUnit == 0 &&
              kKvTileBytes % kRuleUnit == 0, "the rule's byte ratio");
constexpr int kFragmentsM = 4;  // 16-row MMA fragments of a 64-row M tile
// The rule's cost at chunk C, every term x 4 x 64 x 1024 x 73: tensor F C^2 / C against L2 (a + b C) / C.
struct RuleTerms {
  __int128 a;  // balance x R / 64, x F / f
  __int128 b;  // balance x (4 / 73) x W, x F / f
  __int128 F;  // 4 x 64 x 1024 x 73 x f
};
__device__ __forceinline__ RuleTerms rule_terms(int64_t W, int64_t R, int balance_q10, int live16) {
  constexpr int64_t kFixed = kSplitFixedBytes / kRuleUnit, kKv = kKvTileBytes / kRuleUnit;
  return RuleTerms{__int128(R) * balance_q10 * (kFixed * kFragmentsM), __int128(W) * balance_q10 * (64 * kKv * kFragmentsM),
                   __int128(64 * 1024 * kFixed) * live16};
}
__device__ __forceinline__ int64_t balance_tiles(int64_t W, int64_t R, int balance_q10, int live16) {
  if (balance_q10 <= 0 || W <= 0 || R <= 0 || W >= kRuleMaxWork || R >= kRuleMaxWork) return 0;
  if (live16 < 1 || live16 > kFragmentsM) live16 = kFragmentsM;
  constexpr int64_t kFixed = kSplitFixedBytes / kRuleUnit, kKv = kKvTileBytes / kRuleUnit;
  const RuleTerms t = rule_terms(W, R, balance_q10, live16);
  const __int128 a = t.a, b = t.b, F = t.F;
  const float x = float(W) * float(balance_q10) * float(kKv * kFragmentsM) / float(2 * 1024 * kFixed * live16),
              y = float(R) * float(balance_q10) * float(kFragmentsM) / float(64 * 1024 * live16);
  int64_t c = int64_t(x + sqrtf(x * x + y));  // the positive root of C^2 = y + 2 x C
  if (c < 1) c = 1;
  while (F * c * c < a + b * c) ++c;
  while (c > 1 && F * (c - 1) * (c - 1) >= a + b * (c - 1)) --c;
  if (c > 1 && a + b * (c - 1) < F * c * (c - 1)) --c;  // C* - 1's L2 time is shorter than C*'s tensor time (both / f)
  return c;
}

// Row halves (issue 30): a split's M tile of more than 32 live rows may take two CTAs, one a row half (fragments 0-1 and
// 2-3), which share its partial slot. Each then issues the MMAs of at most 2 fragments (half a full tile's tensor time)
// and reads the tile's keys itself (twice the KV's L2 bytes); Q rows and partials are per live row and do not change.
// The plan kernel weighs both with the rule and takes halves where their cost is strictly less (only with the rule on and
// the knob allow_row_halves, below kHalvesMaxWork half-tile-rows, and when their CTAs fit the grid).
constexpr int64_t kHalvesMaxWork = int64_t(1) << 24;
constexpr int kRowPartShift = 16;  // CtaWork::m_tile: bits 0-15 the M tile, bits 16+ its rows (0 all, 1 the first 32, 2 the rest)
constexpr int kMTileMask = (1 << kRowPartShift) - 1;
// CTAs a split of a request of `rows` folded rows takes: its M tiles, or with halves two for each tile of more than 32 live rows.
__device__ __forceinline__ int64_t request_parts(int64_t rows, bool halves) {
  const int64_t mt = (rows + 63) / 64;
  if (!halves || mt == 0) return mt;
  return 2 * (mt - 1) + (rows - 64 * (mt - 1) > 32 ? 2 : 1);
}
// The rule's cost of chunk C, max(f C, L2(C)) as a fraction num / C (rule_terms' units): num = max(F C^2, a + b C).
// Below kHalvesMaxWork, num x C stays under 2^118.
__device__ __forceinline__ __int128 rule_cost_num(int64_t W, int64_t R, int balance_q10, int live16, int64_t C) {
  const RuleTerms t = rule_terms(W, R, balance_q10, live16);
  const __int128 tensor = t.F * C * C, l2 = t.a + t.b * C;
  return tensor > l2 ? tensor : l2;
}

// The split schedule of a batch:
//   work W = sum_b mtiles_b * ktiles_b (16-key tiles), chunk C = max(ceil(W / target_ctas), min_tiles, balance_tiles(W, R)),
//   splits_b = ceil(ktiles_b / C), CTAs ordered by (request, split, M tile): the M tiles that read the
//   same keys are launched together, so their re-reads of a key range hit L2 rather than DRAM.
// sum_b mtiles_b * splits_b <= target_ctas + sum_b mtiles_b <= the fixed grid the host launches, and
// the split requests use fewer than 2 * target_ctas partial slots. With the rule on, row halves (above) replace each
// M tile of more than 32 live rows by two CTAs where the rule's cost is strictly less and the CTAs still fit the grid
// (the work W2, the CTAs a split P, the chunk C2: sum_b parts_b ceil(ktiles_b / C2) <= (W2 + (C2 - 1) P) / C2 <= grid);
// the slots do not change. Writes the header, one RequestPlan a request and one CtaWork a CTA of the grid (idle CTAs: request -1).
constexpr int kPlanThreads = 256;

__global__ void __launch_bounds__(kPlanThreads) paged_verify_plan_kernel(const PagedVerifyParams p) {
  __shared__ int64_t scratch[5 * kPlanThreads / 32];
  const int tid = threadIdx.x;
  const int64_t H = p.num_heads;
  // pass 1: total work (tile-rows, live rows x tiles, and half-tile-rows with the CTAs a split takes in row halves), the
  // most live 16-row fragments of an M tile, and whether qo_indptr is non-decreasing over the whole batch (row ownership)
  int64_t sums[4] = {0, 0, 0, 0}, f_local = 0;  // W, R, W2, P
  int qo_unordered = 0;
  for (int b = tid; b < p.batch; b += kPlanThreads) {
    const RequestDims r = request_dims(p, b);
    if (r.n > 0) {
      const int64_t ktiles = (r.L + r.n + 15) / 16;
      sums[0] += ((r.n * H + 63) / 64) * ktiles;
      sums[1] += r.n * H * ktiles;
      const int64_t parts = request_parts(r.n * H, true);
      sums[2] += parts * ktiles;
      sums[3] += parts;
      const int64_t rows16 = (r.n * H + 15) / 16, f = rows16 < kFragmentsM ? rows16 : kFragmentsM;
      if (f > f_local) f_local = f;
    }
    if (b > 0 && load_index(p.qo_indptr, b) < load_index(p.qo_indptr, b - 1)) qo_unordered = 1;
  }
  const int batch_unordered = __syncthreads_or(qo_unordered);
  int64_t live16 = f_local;
  block_sums_max<kPlanThreads, 4>(sums, &live16, scratch);
  const int64_t W = sums[0], R = sums[1], W2 = sums[2], P = sums[3];
  const int64_t target = p.target_ctas > 0 ? p.target_ctas : 1;
  auto chunk = [&](int64_t work, int f) {
    int64_t c = (work + target - 1) / target;
    if (c < p.min_tiles_per_split) c = p.min_tiles_per_split;
    const int64_t cb = balance_tiles(work, R, p.split_balance_q10, f);
    if (c < cb) c = cb;
    return c < 1 ? int64_t(1) : c;
  };
  int64_t C = chunk(W, int(live16));
  bool halves = false;
  if (p.allow_row_halves && p.split_balance_q10 > 0 && W2 > W && W2 < kHalvesMaxWork) {
    const int f2 = live16 < 2 ? int(live16) : 2;
    const int64_t C2 = chunk(W2, f2);
    const bool fits = W2 + (C2 - 1) * P <= C2 * int64_t(p.grid_ctas);  // sum_b parts_b ceil(kt_b / C2) <= (W2 + (C2 - 1) P) / C2
    if (fits && rule_cost_num(W2, R, p.split_balance_q10, f2, C2) * C < rule_cost_num(W, R, p.split_balance_q10, int(live16), C) * C2) {
      halves = true;
      C = C2;
    }
  }

  // pass 2: CTAs and partial slots of each request (block scans in chunks of kPlanThreads requests)
  int64_t cta_carry = 0, slot_carry = 0;
  for (int b0 = 0; b0 < p.batch; b0 += kPlanThreads) {
    const int b = b0 + tid;
    RequestDims r{};
    if (b < p.batch) {
      r = request_dims(p, b);
      if (batch_unordered) { r.status |= kBadDraftRange; r.n = 0; }
    }
    int64_t mtiles = 0, ktiles = 0, splits = 0, parts = 0;
    if (b < p.batch && r.n > 0) {
      mtiles = (r.n * H + 63) / 64;
      parts = request_parts(r.n * H, halves);
      ktiles = (r.L + r.n + 15) / 16;
      splits = (ktiles + C - 1) / C;
    }
    int64_t ctas = parts * splits, slots = splits > 1 ? mtiles * splits : 0;
    int64_t cta_total = 0, slot_total = 0;
    const int64_t cta_base = cta_carry + block_exclusive_scan<kPlanThreads>(ctas, scratch, &cta_total);
    const int64_t slot_base = slot_carry + block_exclusive_scan<kPlanThreads>(slots, scratch, &slot_total);
    if (b < p.batch) {
      if (slots > 0 && slot_base + slots > p.partial_slots) { r.status |= kNoPartialRoom; ctas = 0; splits = 0; }
      if (cta_base + ctas > p.grid_ctas) { r.status |= kNoPartialRoom; ctas = 0; splits = 0; }  // unreachable (the bound above)
      RequestPlan rp;
      rp.q_start = int(r.q_start); rp.q_end = int(r.q_end); rp.prefix_len = int(r.L); rp.status = r.status;
      rp.first_slot = splits > 1 ? int(slot_base) : -1; rp.splits = int(splits); rp.m_tiles = int(mtiles); rp.pad = 0;
      int4* dst = reinterpret_cast<int4*>(p.plan_requests + b);
      vk::st_global(dst, make_int4(rp.q_start, rp.q_end, rp.prefix_len, rp.status));
      vk::st_global(dst + 1, make_int4(rp.first_slot, rp.splits, rp.m_tiles, rp.pad));
      for (int64_t k = 0; k < ctas; ++k) {  // CTA order: split-major, the M tiles (and their row halves) of one split adjacent
        const int64_t split = k / parts, j = k % parts;
        const int64_t key_begin = split * C * 16, key_end = key_begin + C * 16 < r.L + r.n ? key_begin + C * 16 : r.L + r.n;
        int64_t m = j, part = 0;
        if (halves) {
          m = j / 2 < mtiles - 1 ? j / 2 : mtiles - 1;
          const bool whole = m == mtiles - 1 && parts < 2 * mtiles;  // a last tile of <= 32 rows
          part = whole ? 0 : 1 + (j - 2 * m);
        }
        CtaWork cw;
        cw.request = b; cw.m_tile = int(m | (part << kRowPartShift)); cw.slot = splits > 1 ? int(slot_base + split * mtiles + m) : -1; cw.n = r.n;
        cw.q_start = int(r.q_start); cw.num_keys = int(key_end - key_begin);
        cw.prefix_keys = int(clamp64(r.L - key_begin, 0, key_end - key_begin));
        cw.draft0 = int(key_begin > r.L ? key_begin - r.L : 0);
        cw.index_start = r.kv_start + key_begin; cw.run_first = -1; cw.mask_start = r.mask_start;
        cw.L = int(r.L); cw.key_begin = int(key_begin);
        vk::st_global(p.plan_ctas + cta_base + k, cw);
      }
    }
    cta_carry += cta_total;
    slot_carry += slot_total;
  }
  for (int64_t c = cta_carry + tid; c < p.grid_ctas; c += kPlanThreads) {
    CtaWork idle{};
    idle.request = -1; idle.slot = -1; idle.run_first = -1;
    vk::st_global(p.plan_ctas + c, idle);
  }
  if (tid == 0) {
    PlanHeader h;
    h.chunk_tiles = C; h.batch = p.batch; h.num_tokens = p.num_tokens; h.num_heads = p.num_heads;
    h.max_len_extend = p.max_len_extend; h.grid_ctas = p.grid_ctas; h.target_ctas = p.target_ctas;
    h.min_tiles_per_split = p.min_tiles_per_split; h.ctas_used = int(cta_carry < p.grid_ctas ? cta_carry : p.grid_ctas);
    h.slots_used = int(slot_carry); h.split_balance_q10 = p.split_balance_q10; h.row_halves = halves ? 1 : 0;
    for (int i = 0; i < 3; ++i) h.pad[i] = 0;
    vk::st_global(p.plan_header, h);
  }
}

// ------------------------------------------------------------------ the runs kernel (once per batch)
// Bit j of p.runs (j in [0, live - 1), live = kv_indptr[B], the batch's live entries of kv_indices):
// kv_indices[j + 1] == kv_indices[j] + 1, i.e. the two keys sit in adjacent cache slots. A CTA whose prefix keys
// are one run (every bit of its range set) computes its slots as first slot + key and loads no index in its main
// loop - the contiguous-run fast path for caches kept in runs (KV defragmentation).
// The work is bounded by the live entries, never by len(kv_indices): under CUDA graphs SGLang passes its
// cuda_graph_kv_indices buffer (max_num_tokens x max_context_len, tens of millions of entries) whatever the batch.
// The grid is fixed by the host (p.runs_ctas: one wave, the schedule's target CTAs), so it can be captured, and its
// warps stride over the live words only: one 32-bit word a warp an iteration, live read on the device. Words past
// the live ones are not written - they keep an earlier batch's bits, so `keys_are_one_run` trusts a bit only
// inside the live entries (the last live key's bit is always 0: its next key is not live).
constexpr int kRunsThreads = 256;

// kv_indptr[B] clamped into [0, len(kv_indices)]: the entries of kv_indices this batch uses.
__device__ __forceinline__ int64_t live_entries(const PagedVerifyParams& p) {
  return p.batch > 0 ? clamp64(load_index(p.kv_indptr, p.batch), 0, p.kv_indices_len) : 0;
}

__global__ void __launch_bounds__(kRunsThreads) paged_verify_runs_kernel(const PagedVerifyParams p) {
  const int64_t live = live_entries(p);
  const int64_t words = (live + 31) >> 5;
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (kRunsThreads / 32);
  for (int64_t word = int64_t(blockIdx.x) * (kRunsThreads / 32) + (threadIdx.x >> 5); word < words; word += warps) {  // warp-uniform
    const int64_t j = (word << 5) + lane;
    const int64_t here = j < live ? load_index(p.kv_indices, j) : 0;           // one load an element ...
    int64_t next = __shfl_down_sync(0xffffffffu, here, 1);                      // ... the next one from the next lane
    if (lane == 31 && j + 1 < live) next = load_index(p.kv_indices, j + 1);
    const bool adjacent = j + 1 < live && next == here + 1;
    const unsigned bits = __ballot_sync(0xffffffffu, adjacent);
    if (lane == 0) vk::st_global(p.runs + word, bits);
  }
}

// Do the keys [first, first + count) of kv_indices sit in `count` adjacent slots (bits first .. first + count - 2 of
// p.runs set)? Only bits inside the live entries were written for this batch: keys reaching past them (a kv_indptr that
// is not non-decreasing) never take the fast path, whatever stale bits say. One warp, 32 words (1,024 keys) a round:
// the main kernel asks it after its first cp.async, so the answer costs the CTA's start nothing.
__device__ __forceinline__ bool keys_are_one_run_warp(const PagedVerifyParams& p, int64_t first, int64_t count, int lane) {
  if (count <= 1) return true;
  int64_t live = 0;
  if (lane == 0 && first >= 0) live = live_entries(p);  // issued with the words below
  const int64_t last = first + count - 2;                 // the last bit that must be set
  const int64_t w0 = first >> 5, w1 = last >> 5;
  bool ok = true;
  for (int64_t w = w0 + lane; w <= w1; w += 32) {
    unsigned need = 0xffffffffu;
    if (w == w0) need &= 0xffffffffu << (first & 31);
    if (w == w1) need &= 0xffffffffu >> (31 - (last & 31));
    if (first >= 0 && (vk::ldg(p.runs + w) & need) != need) ok = false;
  }
  live = __shfl_sync(0xffffffffu, (long long)live, 0);
  return __all_sync(0xffffffffu, ok) && first >= 0 && first + count <= live;
}

// The run check and the first tile of every CTA, once a batch after the runs kernel: one warp a CTA of the main kernel's
// grid (a grid the host fixes: grid_ctas / 8 blocks). Lanes 0-15 copy the kv_indices values of the CTA's first 16 keys into
// first_tile_slots (-1 past its prefix keys, and for idle CTAs), so that the main kernel issues its first cp.async one round
// trip after it starts; when all its prefix keys sit in adjacent slots (and the adjacency bits exist), the slot of its first
// prefix key goes into its work descriptor's run_first (-1 otherwise).
constexpr int kRunCheckThreads = 256;
__global__ void __launch_bounds__(kRunCheckThreads) paged_verify_run_check_kernel(const PagedVerifyParams p) {
  const int lane = threadIdx.x & 31;
  const int64_t c = int64_t(blockIdx.x) * (kRunCheckThreads / 32) + (threadIdx.x >> 5);
  if (c >= p.grid_ctas) return;  // warp-uniform
  const CtaWork* cw = p.plan_ctas + c;
  int req = 0, npre = 0;
  long long first = 0;
  if (lane == 0) { req = vk::ld_global(&cw->request); npre = vk::ld_global(&cw->prefix_keys); first = vk::ld_global(&cw->index_start); }
  req = __shfl_sync(0xffffffffu, req, 0); npre = __shfl_sync(0xffffffffu, npre, 0); first = __shfl_sync(0xffffffffu, first, 0);
  const bool prefix = req >= 0 && npre >= 1 && first >= 0 && first + npre <= p.kv_indices_len;  // warp-uniform
  int64_t slot = -1;
  if (lane < kFirstTileKeys) {
    if (prefix && lane < npre) slot = load_index(p.kv_indices, first + lane);
    vk::st_global(p.first_tile_slots + c * kFirstTileKeys + lane, (long long)slot);
  }
  if (!prefix || p.runs == nullptr) return;
  if (keys_are_one_run_warp(p, first, npre, lane) && lane == 0) vk::st_global(&p.plan_ctas[c].run_first, (long long)slot);
}

// ------------------------------------------------------------------ the main kernel
// The plan's entry for this CTA can be trusted only as far as memory safety goes when the call is malformed: the
// combine kernel (which re-checks every row against the live index arrays) writes NaN over any row of a request whose
// plan no longer matches. Every field that addresses memory is checked here, without a load.
__device__ __forceinline__ bool work_in_bounds(const PagedVerifyParams& p, const CtaWork& w) {
  return w.request < p.batch && p.num_heads >= 1 && p.num_heads <= (1 << 20) && w.n >= 1 && w.n <= p.max_len_extend && w.n <= kMaxDraft && w.q_start >= 0 &&
         int64_t(w.q_start) + w.n <= p.num_tokens && w.num_keys >= 1 && w.prefix_keys >= 0 && w.prefix_keys <= w.num_keys &&
         w.draft0 >= 0 && w.draft0 + (w.num_keys - w.prefix_keys) <= w.n && w.m_tile >= 0 && (w.m_tile >> kRowPartShift) <= 2 &&
         int64_t(w.m_tile & kMTileMask) * 64 < int64_t(w.n) * p.num_heads &&
         ((w.m_tile >> kRowPartShift) != 2 || int64_t(w.n) * p.num_heads - int64_t(w.m_tile & kMTileMask) * 64 > 32) &&
         w.slot >= -1 && w.slot < p.partial_slots &&
         (w.prefix_keys == 0 || (w.index_start >= 0 && w.index_start + w.prefix_keys <= p.kv_indices_len)) &&  // a drafts-only
         w.L >= 0 && w.key_begin >= 0;                                                                      // CTA reads no index
}

template <typename Tr>
__global__ void __launch_bounds__(Tr::kThreads, 1) paged_verify_kernel(const PagedVerifyParams p) {
  constexpr int kStages = Tr::kStages, kRowBytes = Tr::kRowBytes, kStageBytes = Tr::kStageBytes;
  static_assert(kRowBytes == 1168, "the MMAs read bf16 rows 1,168 B apart");
  constexpr int kBlockN = Tr::kBlockN;
  unsigned char* smem = vk::dynamic_smem<unsigned char>();
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;  // MMA fragment coordinates (group, thread in group)
  vk::launch_dependents();  // the combine kernel (a programmatic launch when p.overlap_combine) may start its row lookup now

  // The CTA's work descriptor, made by the plan kernel: threads 0-3 copy its four 16-byte words into shared memory while
  // threads 4-9 check that the plan was made for this call's sizes and threads 10-25 copy the cache slots of its first
  // 16 keys (one round trip, one barrier); every thread then takes the descriptor by value from there (which leaves the
  // main loop spill-free at sm_90a and sm_80), and the first tile's cp.async needs no kv_indices load.
  static_assert(sizeof(CtaWork) <= 128, "the work fits its shared-memory slot");
  static_assert(Tr::kThreads >= 4 + kPlanHeaderFields + kFirstTileKeys, "one load a thread");
  CtaWork* work_s = reinterpret_cast<CtaWork*>(smem + Tr::kOffWork);
  long long* first_slots_s = reinterpret_cast<long long*>(smem + Tr::kOffFirstSlots);
  bool plan_ok = true;
  if (tid < 4) {
    reinterpret_cast<int4*>(work_s)[tid] = vk::ldg(reinterpret_cast<const int4*>(p.plan_ctas + blockIdx.x) + tid);
  } else if (tid < 4 + kPlanHeaderFields) {
    plan_ok = plan_field_matches(p, tid - 4);
  } else if (tid < 4 + kPlanHeaderFields + kFirstTileKeys) {
    const int k = tid - 4 - kPlanHeaderFields;
    first_slots_s[k] = vk::ldg(p.first_tile_slots + int64_t(blockIdx.x) * kFirstTileKeys + k);
  }
  plan_ok = __syncthreads_and(plan_ok);  // B0
  const CtaWork w = *work_s;
  // block-uniform: a plan made for other sizes or an idle CTA does nothing (the combine kernel writes NaN where needed)
  if (!plan_ok || w.request < 0 || !work_in_bounds(p, w)) return;

  const int H = p.num_heads;
  const int nkeys = w.num_keys, npre = w.prefix_keys;
  // folded rows fit an int: n <= kMaxDraft drafts x H heads (work_in_bounds)
  const int rows = w.n * H;                          // folded rows of the request
  const int row0 = (w.m_tile & kMTileMask) * Tr::kBlockM;  // first folded row of this M tile
  const int tok0 = row0 / H;                         // first token of this M tile
  // The rows [row_lo, row_hi) of the M tile this CTA computes: those that hold a (token, head) of the request, or one row
  // half of them (CtaWork::m_tile). The MMAs of 16-row fragments outside are skipped; the rows outside are masked and
  // never stored (the other half's CTA stores them).
  const int part = w.m_tile >> kRowPartShift;
  const int tile_rows = rows - row0 < Tr::kBlockM ? rows - row0 : Tr::kBlockM;
  const int row_lo = part == 2 ? Tr::kBlockM / 2 : 0;
  const int row_hi = part == 1 && tile_rows > Tr::kBlockM / 2 ? Tr::kBlockM / 2 : tile_rows;
  auto outside = [&](int first, int count) { return first >= row_hi || first + count <= row_lo; };  // rows [first, +count)
  const int ntiles = (nkeys + kBlockN - 1) / kBlockN;

  // ---------------------------------------------------------------- K/V tile loader
  // Thread -> row ld_row of the 16-key tile, 16-byte chunks ld_chunk, +16, ... of its 72.
  const int ld_row = tid >> 4, ld_chunk = tid & 15;
  const __nv_bfloat16* draft_k = p.k_extend + (w.q_start + w.draft0) * p.k_extend_row_stride;  // draft row draft0
  // The cache slot of this thread's row of tile u: >= 0 a slot, -1 not a prefix row, -2 out of [0, S).
  auto slot_of = [&](int u) -> int64_t {
    const int j = u * kBlockN + ld_row;
    if (j >= npre) return -1;
    // prefix keys in adjacent slots (the contiguous-run fast path): no index load; the first tile's slots: copied with
    // the descriptor. run_first, index_start and those slots are read from shared memory, which costs the main loop no
    // register.
    const int64_t first = work_s->run_first;
    const int64_t s = first >= 0 ? first + j : j < kBlockN ? int64_t(first_slots_s[j]) : load_index(p.kv_indices, work_s->index_start + j);
    return (s >= 0 && s < p.num_slots) ? s : -2;
  };
  // Tile u's row ld_row into its ring stage: a prefix row from the cache, a draft row from k_extend,
  // zeros past the CTA's keys (masked), NaN for a slot outside the cache (never read; every row that
  // reads this tile becomes NaN - through its score, or through P V's 0 x NaN where it is masked).
  // fp8 cache: only prefix rows go through the ring (576 B); draft and tail rows are written into the
  // bf16 tile by `dequantize_tile`.
  constexpr int kCacheChunks = kHeadDimQK * (Tr::kFp8 ? 1 : 2) / 16;  // 16-byte chunks of a cache row: 72 / 36
  const unsigned char* cache = static_cast<const unsigned char*>(p.kv_cache);
  const int64_t cache_row_bytes = p.cache_row_stride * (Tr::kFp8 ? 1 : 2);
  auto issue_tile = [&](int u, int64_t slot) {
    unsigned char* dst = smem + Tr::kOffKV + (u % kStages) * kStageBytes + ld_row * Tr::kCacheRowBytes;
    const int j = u * kBlockN + ld_row;
    const bool prefix = j < npre;
    if (prefix && slot < 0) {
      const uint32_t nan4 = Tr::kFp8 ? 0x7f7f7f7fu : 0x7fc07fc0u;  // e4m3 NaN x 4 / bf16 NaN x 2
      const uint4 nan16 = make_uint4(nan4, nan4, nan4, nan4);
#pragma unroll
      for (int c = ld_chunk; c < kCacheChunks; c += 16) *reinterpret_cast<uint4*>(dst + c * 16) = nan16;
      return;
    }
    if constexpr (Tr::kFp8) {
      if (!prefix) return;
#pragma unroll
      for (int c = ld_chunk; c < kCacheChunks; c += 16) vk::cp_async_16(dst + c * 16, cache + slot * cache_row_bytes + c * 16, true);
    } else {
      const bool valid = prefix || j < nkeys;
      const unsigned char* src = prefix ? cache + slot * cache_row_bytes
                                        : reinterpret_cast<const unsigned char*>(draft_k + int64_t(valid ? j - npre : 0) * p.k_extend_row_stride);
#pragma unroll
      for (int c = ld_chunk; c < kCacheChunks; c += 16) vk::cp_async_16(dst + c * 16, src + c * 16, valid);
    }
  };
  // fp8 cache: tile `it`'s bf16 tile for the MMAs. Prefix rows: e4m3 -> bf16 (exact: every e4m3 value
  // is a bf16 value; k_scale / v_scale stay on the scores and on P, as with a bf16 cache); draft rows:
  // k_extend's bf16 row (plain 128-bit loads); rows past the CTA's keys: zeros.
  auto dequantize_tile = [&](int it) {
    const int j = it * kBlockN + ld_row;
    const unsigned char* src = smem + Tr::kOffKV + (it % kStages) * kStageBytes + ld_row * Tr::kCacheRowBytes;
    unsigned char* dst = smem + Tr::kOffTile + ld_row * kRowBytes;
    if (j < npre) {
#pragma unroll
      for (int c = ld_chunk; c < kHeadDimQK / 16; c += 16) {  // 16 e4m3 -> 16 bf16 a chunk
        const uint4 v = *reinterpret_cast<const uint4*>(src + c * 16);
        const uint2 a = vk::e4m3x4_to_bf16x4(v.x), b = vk::e4m3x4_to_bf16x4(v.y);
        const uint2 c2 = vk::e4m3x4_to_bf16x4(v.z), d = vk::e4m3x4_to_bf16x4(v.w);
        *reinterpret_cast<uint4*>(dst + c * 32) = make_uint4(a.x, a.y, b.x, b.y);
        *reinterpret_cast<uint4*>(dst + c * 32 + 16) = make_uint4(c2.x, c2.y, d.x, d.y);
      }
    } else if (j < nkeys) {
      const uint4* row = reinterpret_cast<const uint4*>(draft_k + int64_t(j - npre) * p.k_extend_row_stride);
#pragma unroll
      for (int c = ld_chunk; c < kHeadDimQK / 8; c += 16) *reinterpret_cast<uint4*>(dst + c * 16) = vk::ldg(row + c);
    } else {
#pragma unroll
      for (int c = ld_chunk; c < kHeadDimQK / 8; c += 16) *reinterpret_cast<uint4*>(dst + c * 16) = make_uint4(0u, 0u, 0u, 0u);
    }
  };

  // Prologue: kStages - 1 tiles in flight, each issued as soon as its slot is known (the first tile's slots came with the
  // descriptor; each later one waits for its kv_indices load), and the slot of the next one.
#pragma unroll
  for (int u = 0; u < kStages - 1; ++u) {
    if (u < ntiles) issue_tile(u, slot_of(u));
    vk::cp_async_commit();
  }
  int64_t slot_next = slot_of(kStages - 1);

  // Q fragments straight from global memory (A layout of m16n8k16): rows wm*32 + i*16 + {g, g+8},
  // dims wd*144 + 16 s + {2 t4, 2 t4 + 8}. Rows past the request are zero.
  const int wm = warp / Tr::kWarpsD, wd = warp % Tr::kWarpsD;  // a row half's four warps: one a sub-partition (warp % 4)
  uint32_t qf[Tr::kMTilesQK][Tr::kKStepsQK][4];
#pragma unroll
  for (int i = 0; i < Tr::kMTilesQK; ++i) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int lr = wm * (16 * Tr::kMTilesQK) + i * 16 + hh * 8 + g, fr = row0 + lr;
      const bool ok = lr >= row_lo && lr < row_hi;
      const int tok = ok ? fr / H : 0, head = ok ? fr % H : 0;
      const uint32_t* q32 = reinterpret_cast<const uint32_t*>(
          p.q + (w.q_start + tok) * p.q_token_stride + head * p.q_head_stride + wd * (16 * Tr::kKStepsQK) + 2 * t4);
#pragma unroll
      for (int s = 0; s < Tr::kKStepsQK; ++s) {
        qf[i][s][hh] = ok ? vk::ldg(q32 + 8 * s) : 0u;
        qf[i][s][2 + hh] = ok ? vk::ldg(q32 + 8 * s + 4) : 0u;
      }
    }
  }

  // The draft block of the tree mask, packed on the device: bit c of word (token, c / 32) = token may
  // see draft c (custom_mask when given, else causal or full). Only CTAs whose keys reach the drafts.
  uint32_t* bits = reinterpret_cast<uint32_t*>(smem + Tr::kOffBits);
  if (npre < nkeys) {
    const int words = (w.n + 31) / 32;
    for (int word = 0; word < words; ++word) {
      bool vis[Tr::kBlockM / Tr::kWarps];
#pragma unroll
      for (int k = 0; k < Tr::kBlockM / Tr::kWarps; ++k) {  // loads first, then the ballots
        const int64_t tok = tok0 + warp + Tr::kWarps * k;
        const int c = word * 32 + lane;
        bool v = false;
        if (tok < w.n && c < w.n) {
          if (p.custom_mask) {
            const int64_t e = w.mask_start + tok * (int64_t(w.L) + w.n) + w.L + c;
            v = e >= 0 && e < p.mask_len && vk::ldg(p.custom_mask + e) != 0;
          } else {
            v = !p.is_causal || c <= tok;
          }
        }
        vis[k] = v;
      }
#pragma unroll
      for (int k = 0; k < Tr::kBlockM / Tr::kWarps; ++k) {
        const unsigned word_bits = __ballot_sync(0xffffffffu, vis[k]);
        if (lane == 0) bits[(warp + Tr::kWarps * k) * Tr::kDraftWords + word] = word_bits;
      }
    }
  }

  // Softmax thread coordinates: row sm_row, keys 4 sm_c4 .. 4 sm_c4 + 3 of each tile.
  const int sm_row = tid >> 2, sm_c4 = tid & 3;
  const int sm_fold = row0 + sm_row;
  const bool sm_ok = sm_row >= row_lo && sm_row < row_hi;  // this CTA's row (so sm_fold < rows)
  const int sm_tok = sm_ok ? sm_fold / H : 0;
  const uint32_t* sm_bits = bits + (sm_ok ? int(sm_tok - tok0) : 0) * Tr::kDraftWords;
  // Prefix columns of the custom mask are read only with skip_prefix_custom_mask=False.
  const bool prefix_mask = p.custom_mask != nullptr && !p.skip_prefix_custom_mask && sm_ok;
  float m_run = kNegInf, l_run = 0.f;

  float* s_part = reinterpret_cast<float*>(smem + Tr::kOffS);
  __nv_bfloat16* p_tile = reinterpret_cast<__nv_bfloat16*>(smem + Tr::kOffP);
  float* alpha_s = reinterpret_cast<float*>(smem + Tr::kOffAlpha);

  float o_acc[Tr::kMTilesPV][Tr::kN8PV][4];
#pragma unroll
  for (int i = 0; i < Tr::kMTilesPV; ++i)
#pragma unroll
    for (int j = 0; j < Tr::kN8PV; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[i][j][e] = 0.f;

#pragma unroll 1
  for (int it = 0; it < ntiles; ++it) {
    vk::cp_async_wait<kStages - 2>();
    __syncthreads();  // B1: tile `it` is in shared memory; everyone is done with tile it - 1's stage
    {
      const int u = it + kStages - 1;
      if (u < ntiles) issue_tile(u, slot_next);
      vk::cp_async_commit();
      slot_next = slot_of(u + 1);  // its latency hides behind this iteration
    }
    const int key0 = it * kBlockN;  // first key of the tile (CTA-relative)
    unsigned char* stage = smem + (Tr::kFp8 ? Tr::kOffTile : Tr::kOffKV + (it % kStages) * kStageBytes);
    if constexpr (Tr::kFp8) {
      dequantize_tile(it);
      __syncthreads();  // B1': the bf16 tile is complete
    }

    // prefix-column mask bytes: loaded now, used after the MMAs
    unsigned pmask = 0xFu;
    if (prefix_mask && key0 < npre) {
      // this row's mask bytes from the CTA's first key on (addresses from the work in shared memory: no
      // registers held across the loop; the plan guarantees the request's block lies inside custom_mask)
      const int64_t e0 = work_s->mask_start + sm_tok * (int64_t(work_s->L) + work_s->n) + work_s->key_begin;
      const int room = int(clamp64(p.mask_len - e0, 0, npre));
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int j = key0 + 4 * sm_c4 + c;
        if (j < room && vk::ldg(p.custom_mask + e0 + j) == 0) pmask &= ~(1u << c);
      }
    }

    // ---- partial S = Q[32 rows, 144 dims] K[16 keys, 144 dims]^T of this warp, one 8-key half at a
    // time (8 accumulators live instead of 16); a warp whose 32 rows are all past the request reads no K
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      if (outside(wm * (16 * Tr::kMTilesQK), 16 * Tr::kMTilesQK)) break;
      float sacc[Tr::kMTilesQK][4];
#pragma unroll
      for (int i = 0; i < Tr::kMTilesQK; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) sacc[i][e] = 0.f;
      // ldmatrix x4: keys 8j..8j+7, matrices (dims 16s lo, hi, 16(s+1) lo, hi); x2 for an odd last step
      const unsigned char* kaddr = stage + (8 * j + (lane & 7)) * kRowBytes +
                                   (wd * (16 * Tr::kKStepsQK) + 8 * (lane >> 3)) * 2;
#pragma unroll
      for (int s = 0; s < Tr::kKStepsQK; s += 2) {
        uint32_t b4[4];
        if (s + 1 < Tr::kKStepsQK) {
          vk::ldmatrix_x4(b4, kaddr + s * 32);
        } else {
          uint32_t b2[2];
          vk::ldmatrix_x2(b2, kaddr + s * 32);
          b4[0] = b2[0]; b4[1] = b2[1]; b4[2] = b4[3] = 0u;
        }
        const uint32_t b0[2] = {b4[0], b4[1]}, b1[2] = {b4[2], b4[3]};
#pragma unroll
        for (int i = 0; i < Tr::kMTilesQK; ++i) {
          if (outside(wm * (16 * Tr::kMTilesQK) + i * 16, 16)) continue;  // a fragment without a row of this CTA
          vk::mma_bf16_16816(sacc[i], qf[i][s], b0, sacc[i]);
          if (s + 1 < Tr::kKStepsQK) vk::mma_bf16_16816(sacc[i], qf[i][s + 1], b1, sacc[i]);
        }
      }
#pragma unroll
      for (int i = 0; i < Tr::kMTilesQK; ++i) {
        const int r = wm * (16 * Tr::kMTilesQK) + i * 16 + g;
        if (outside(r - g, 16)) continue;  // never read: the softmax reads this CTA's rows only
        *reinterpret_cast<float2*>(s_part + s_index(wd, r, 8 * j + 2 * t4)) = make_float2(sacc[i][0], sacc[i][1]);
        *reinterpret_cast<float2*>(s_part + s_index(wd, r + 8, 8 * j + 2 * t4)) = make_float2(sacc[i][2], sacc[i][3]);
      }
    }
    __syncthreads();  // B2: partial scores complete; the K tile is no longer needed as K

    // Draft values from v_extend when it is its own tensor (SGLang passes v.contiguous()): they replace
    // the first 512 columns of the draft rows of this tile before P V reads them. Plain 128-bit loads
    // and shared stores: the cp.async ring keeps its tiles in flight (a cp.async here would need a
    // wait for every group, the prefetched tiles included).
    if (p.v_extend != nullptr && key0 + kBlockN > npre) {
      const int j = key0 + ld_row;
      if (j >= npre && j < nkeys) {
        const uint4* src = reinterpret_cast<const uint4*>(p.v_extend + (w.q_start + w.draft0 + (j - npre)) * p.v_extend_row_stride);
        unsigned char* dst = stage + ld_row * kRowBytes;
#pragma unroll
        for (int c = ld_chunk; c < kHeadDimV / 8; c += 16) *reinterpret_cast<uint4*>(dst + c * 16) = vk::ldg(src + c);
      }
    }

    // ---- softmax of row sm_row, keys 4 sm_c4 .. + 3
    {
      float x[4] = {0.f, 0.f, 0.f, 0.f};
      if (sm_ok) {  // a row past the request: its fragment's scores may not have been computed; all its keys are masked
#pragma unroll
        for (int d = 0; d < Tr::kWarpsD; ++d) {
          const float4 v = *reinterpret_cast<const float4*>(s_part + s_index(d, sm_row, 4 * sm_c4));
          x[0] += v.x; x[1] += v.y; x[2] += v.z; x[3] += v.w;
        }
      }
      float vs[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int j = key0 + 4 * sm_c4 + c;
        const bool prefix = j < npre;
        bool vis = sm_ok && j < nkeys;
        if (vis) {
          if (prefix) {
            vis = (pmask >> c) & 1u;
          } else {
            const int dc = w.draft0 + (j - npre);
            vis = (sm_bits[dc >> 5] >> (dc & 31)) & 1u;
          }
        }
        float v = x[c] * (prefix ? p.score_scale_prefix : p.sm_scale);
        if (p.logit_cap > 0.f) v = p.logit_cap * tanhf(v * p.inv_logit_cap);
        x[c] = vis ? v * kLog2e : kNegInf;
        vs[c] = prefix ? p.v_scale : 1.f;
      }
      float mx = fmaxf(fmaxf(x[0], x[1]), fmaxf(x[2], x[3]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m_run, mx);
      const float base = m_new == kNegInf ? 0.f : m_new;  // a row with nothing visible yet stays at p = 0
      const float alpha = exp2f(m_run - base);
      float pr[4], rs = 0.f;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        pr[c] = exp2f(x[c] - base);
        rs += pr[c];
      }
      rs += __shfl_xor_sync(0xffffffffu, rs, 1);
      rs += __shfl_xor_sync(0xffffffffu, rs, 2);
      l_run = l_run * alpha + rs;
      m_run = m_new;
      uint2 packed;
      packed.x = vk::pack_bf16x2(pr[0] * vs[0], pr[1] * vs[1]);
      packed.y = vk::pack_bf16x2(pr[2] * vs[2], pr[3] * vs[3]);
      *reinterpret_cast<uint2*>(p_tile + p_index(sm_row, 4 * sm_c4)) = packed;
      if (sm_c4 == 0) alpha_s[sm_row] = alpha;
    }
    __syncthreads();  // B3: P, alpha (and swapped draft values) visible

    // ---- O = alpha O + P V: rows 0..63, columns [64 warp, 64 warp + 64)
    {
      uint32_t vb[Tr::kN8PV][2];
      // ldmatrix x4 trans: matrices (keys 0-7, cols c..c+7), (keys 8-15, c..), (keys 0-7, c+8..), (keys 8-15, c+8..)
      const unsigned char* vaddr = stage + (8 * ((lane >> 3) & 1) + (lane & 7)) * kRowBytes +
                                   (warp * Tr::kColsPV + 8 * (lane >> 4)) * 2;
#pragma unroll
      for (int jj = 0; jj < Tr::kN8PV / 2; ++jj) {
        uint32_t r4[4];
        vk::ldmatrix_x4_trans(r4, vaddr + jj * 32);
        vb[2 * jj][0] = r4[0]; vb[2 * jj][1] = r4[1];
        vb[2 * jj + 1][0] = r4[2]; vb[2 * jj + 1][1] = r4[3];
      }
#pragma unroll
      for (int i = 0; i < Tr::kMTilesPV; ++i) {
        if (outside(16 * i, 16)) continue;  // none of this CTA's rows: its accumulators stay 0 and are never stored
        uint32_t pa[4];
        // ldmatrix x4: matrices (rows 0-7, keys 0-7), (rows 8-15, keys 0-7), (rows 0-7, keys 8-15), (rows 8-15, keys 8-15)
        const int prow = 16 * i + 8 * ((lane >> 3) & 1) + (lane & 7), pcol = 8 * (lane >> 4);
        vk::ldmatrix_x4(pa, p_tile + p_index(prow, pcol));
        const float a0 = alpha_s[16 * i + g], a1 = alpha_s[16 * i + g + 8];
#pragma unroll
        for (int j = 0; j < Tr::kN8PV; ++j) {
          o_acc[i][j][0] *= a0; o_acc[i][j][1] *= a0;
          o_acc[i][j][2] *= a1; o_acc[i][j][3] *= a1;
          vk::mma_bf16_16816(o_acc[i][j], pa, vb[j], o_acc[i][j]);
        }
      }
    }
  }
  vk::cp_async_wait<0>();

  // ---------------------------------------------------------------- epilogue
  float* row_m = reinterpret_cast<float*>(smem + Tr::kOffRowM);
  float* row_l = reinterpret_cast<float*>(smem + Tr::kOffRowL);
  if (sm_c4 == 0) {
    row_m[sm_row] = m_run;
    row_l[sm_row] = l_run;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < Tr::kMTilesPV; ++i) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int r = 16 * i + 8 * hh + g;
      const int64_t fr = row0 + r;
      if (r < row_lo || r >= row_hi) continue;
      const float l = row_l[r], inv = l == 0.f ? 0.f : 1.f / l;  // nothing visible: o = 0 (a NaN stays NaN)
      const int col = warp * Tr::kColsPV + 2 * t4;
      if (w.slot < 0) {
        const int64_t tok = fr / H, head = fr % H;
        __nv_bfloat16* orow = p.o + (w.q_start + tok) * p.o_token_stride + head * p.o_head_stride + col;
#pragma unroll
        for (int j = 0; j < Tr::kN8PV; ++j)
          vk::st_global(reinterpret_cast<uint32_t*>(orow + 8 * j),
                        vk::pack_bf16x2(o_acc[i][j][2 * hh] * inv, o_acc[i][j][2 * hh + 1] * inv));
      } else {
        float* prow = p.partial_o + (int64_t(w.slot) * Tr::kBlockM + r) * kHeadDimV + col;
#pragma unroll
        for (int j = 0; j < Tr::kN8PV; ++j)
          vk::st_global(reinterpret_cast<float2*>(prow + 8 * j),
                        make_float2(o_acc[i][j][2 * hh] * inv, o_acc[i][j][2 * hh + 1] * inv));
      }
    }
  }
  if (tid < Tr::kBlockM) {
    const int r = tid;
    const int64_t fr = row0 + r;
    if (r >= row_lo && r < row_hi) {
      const float l = row_l[r];
      const float lse2 = l == 0.f ? kNegInf : row_m[r] + log2f(l);  // log2 domain; NaN propagates
      if (w.slot >= 0) {
        vk::st_global(p.partial_lse + int64_t(w.slot) * Tr::kBlockM + r, lse2);
      } else if (p.lse != nullptr) {
        const int64_t tok = fr / H, head = fr % H;
        vk::st_global(p.lse + (w.q_start + tok) * p.lse_token_stride + head * p.lse_head_stride,
                      lse2 * kLn2);
      }
    }
  }
}

// ------------------------------------------------------------------ combine
// One warp per (token, head) row of o: every row is written here or by the main kernel. A row of a
// split request gets o = sum_s w_s o_s / sum_s w_s with w_s = 2^(lse_s - max lse); a row of an
// unsplit request was written by the main kernel; a row that no well-formed request owns as planned
// (malformed indptr values, more drafts than max_len_extend, a plan made for other lengths, rows
// past qo_indptr[B]) gets NaN, in o and lse.
constexpr int kCombineWarps = 1;  // one row a 32-thread CTA: T x H CTAs, spread over every SM (4 rows a CTA kept 16 SMs busy at 4K)
constexpr int kCombineSamples = 26;  // qo_indptr samples a round of the row's search (lanes 6-31; lanes 0-5 check the header)

__device__ __forceinline__ void write_nan_row(__nv_bfloat16* orow, float* lse_out, int lane) {
  const float qnan = __int_as_float(0x7fc00000);
  const uint32_t q2 = vk::pack_bf16x2(qnan, qnan);
#pragma unroll
  for (int c = 0; c < 4; ++c) vk::st_global(reinterpret_cast<uint2*>(orow + 4 * (lane + 32 * c)), make_uint2(q2, q2));
  if (lane == 0 && lse_out != nullptr) vk::st_global(lse_out, qnan);
}

__global__ void __launch_bounds__(kCombineWarps * 32) paged_verify_combine_kernel(const PagedVerifyParams p) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int64_t gr = int64_t(blockIdx.x) * kCombineWarps + warp;
  const int H = p.num_heads;
  const int64_t tok = gr / H;
  const int head = int(gr % H);
  if (tok >= p.num_tokens) return;
  __nv_bfloat16* orow = p.o + tok * p.o_token_stride + int64_t(head) * p.o_head_stride;
  float* lse_out = p.lse != nullptr ? p.lse + tok * p.lse_token_stride + int64_t(head) * p.lse_head_stride : nullptr;
  constexpr unsigned kAll = 0xffffffffu;
  // The row's request, found by the whole warp: lanes 0-5 check the plan header while lanes 6-31 read 26 samples of
  // qo_indptr inside [lo, hi) - one round trip a round, 27 times narrower each (one round up to 27 requests, two up to
  // 729); then lanes 0-6 read the request's plan entry and its live index values at once. Three dependent round trips
  // for a batch of up to 27 requests (the serial binary search of one lane took 6 + log2(B) + 7).
  bool header_ok = true;
  if (lane < kPlanHeaderFields) header_ok = plan_field_matches(p, lane);
  int lo = 0, hi = p.batch;  // the last b with qo_indptr[b] <= tok, in [lo, hi) (lo when there is none)
  do {                       // warp-uniform; at least once, so that the header's loads share the first round
    const int j = lane - 6;
    int m = -1;
    bool le = false;
    if (j >= 0 && hi - lo > 1) {
      m = lo + int((int64_t(j) + 1) * (hi - lo) / (kCombineSamples + 1));
      if (m > lo && m < hi) le = load_index(p.qo_indptr, m) <= tok;
      else m = -1;
    }
    const int nlo = __reduce_max_sync(kAll, le ? m : lo);
    const int nhi = __reduce_min_sync(kAll, (m >= 0 && !le) ? m : hi);
    lo = nlo;
    hi = nhi > nlo ? nhi : nlo + 1;  // a non-monotone qo_indptr (every request is then malformed) still ends the search
  } while (hi - lo > 1);
  const bool plan_ok = __all_sync(kAll, header_ok) && p.batch > 0;
  const int b = lo;
  // lanes 0-1: the request's plan (two 16-byte words), 2-3: qo_indptr[b], [b + 1], 4-5: kv_indptr, 6: mask_indptr
  int4 v4 = make_int4(0, 0, 0, 0);
  long long v8 = 0;
  if (plan_ok) {
    if (lane < 2) v4 = vk::ldg(reinterpret_cast<const int4*>(p.plan_requests + b) + lane);
    else if (lane < 4) v8 = load_index(p.qo_indptr, b + (lane - 2));
    else if (lane < 6) v8 = load_index(p.kv_indptr, b + (lane - 4));
    else if (lane == 6 && p.custom_mask != nullptr) v8 = load_index(p.mask_indptr, b);
  }
  RequestPlan rp;
  rp.q_start = __shfl_sync(kAll, v4.x, 0); rp.q_end = __shfl_sync(kAll, v4.y, 0);
  rp.prefix_len = __shfl_sync(kAll, v4.z, 0); rp.status = __shfl_sync(kAll, v4.w, 0);
  rp.first_slot = __shfl_sync(kAll, v4.x, 1); rp.splits = __shfl_sync(kAll, v4.y, 1); rp.m_tiles = __shfl_sync(kAll, v4.z, 1);
  const RequestDims r = request_dims_from(p, __shfl_sync(kAll, v8, 2), __shfl_sync(kAll, v8, 3), __shfl_sync(kAll, v8, 4),
                                          __shfl_sync(kAll, v8, 5), __shfl_sync(kAll, v8, 6));
  // the plan must have been made for the live lengths
  const bool owned = plan_ok && rp.status == kRequestOk && r.status == kRequestOk && rp.q_start == r.q_start &&
                     rp.q_end == r.q_end && rp.prefix_len == r.L && tok >= r.q_start && tok < r.q_end;
  // The lookup read only what the plan kernel and the host wrote before the main kernel; every store and every partial
  // read waits for the main kernel (a no-op unless this launch is programmatic: then it waits for the main grid's end).
  vk::wait_primary_grid();
  vk::chain_end();  // the row's lookup is done: what follows is its partials (or nothing, or NaN)
  if (!owned) { write_nan_row(orow, lse_out, lane); return; }
  const int splits = rp.splits;
  if (splits <= 1) return;  // the main kernel wrote the row
  const int first_slot = rp.first_slot, mtiles_i = rp.m_tiles;
  const int64_t q_start = r.q_start;
  const int64_t fr = (tok - q_start) * H + head;
  // slots of this row's M tile: first + split * mtiles + mt (CTAs and slots are split-major)
  const int64_t mtiles = mtiles_i;
  const int64_t slot0 = int64_t(first_slot) + fr / PagedTraitsBf16::kBlockM;
  const int rr = int(fr % PagedTraitsBf16::kBlockM);

  float mx = kNegInf;
  bool nan = false;  // a NaN in any split (a NaN row read from the cache) makes the row NaN, as unsplit
  for (int s = lane; s < splits; s += 32) {
    const float ls = vk::ldg(p.partial_lse + (slot0 + s * mtiles) * PagedTraitsBf16::kBlockM + rr);
    nan |= ls != ls;
    mx = fmaxf(mx, ls);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  if (__any_sync(0xffffffffu, nan)) { write_nan_row(orow, lse_out, lane); return; }

  float acc[16];
#pragma unroll
  for (int e = 0; e < 16; ++e) acc[e] = 0.f;
  float wsum = 0.f;
  if (mx != kNegInf) {
#pragma unroll 4
    for (int s = 0; s < splits; ++s) {
      const int64_t slot = slot0 + s * mtiles;
      const float wt = exp2f(vk::ldg(p.partial_lse + slot * PagedTraitsBf16::kBlockM + rr) - mx);
      wsum += wt;
      const float4* src = reinterpret_cast<const float4*>(p.partial_o + (slot * PagedTraitsBf16::kBlockM + rr) * kHeadDimV);
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float4 v = vk::ldg(src + lane + 32 * c);
        acc[4 * c] += wt * v.x; acc[4 * c + 1] += wt * v.y; acc[4 * c + 2] += wt * v.z; acc[4 * c + 3] += wt * v.w;
      }
    }
  }
  const float inv = wsum > 0.f ? 1.f / wsum : 0.f;  // no visible key in any split: o = 0, lse = -inf
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    uint2 v;
    v.x = vk::pack_bf16x2(acc[4 * c] * inv, acc[4 * c + 1] * inv);
    v.y = vk::pack_bf16x2(acc[4 * c + 2] * inv, acc[4 * c + 3] * inv);
    vk::st_global(reinterpret_cast<uint2*>(orow + 4 * (lane + 32 * c)), v);
  }
  if (lane == 0 && lse_out != nullptr) vk::st_global(lse_out, wsum > 0.f ? (mx + log2f(wsum)) * kLn2 : kNegInf);
}

}  // namespace paged
