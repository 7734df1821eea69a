// paged: host launch code (no torch). Included by exactly one TU (paged_api.cu); the static gates
// compile this header alone, which instantiates every kernel the entry points launch.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include "paged/paged_kernel.cuh"

namespace paged {
using Traits = PagedTraitsBf16;  // the sizes the grid and the workspace use (the same for both caches)
constexpr int kCtasPerSm = 1;  // 96,000 B of shared memory and ~250 registers x 256 threads: one CTA an SM
constexpr int kDefaultMinTilesPerSplit = 8;  // 128 keys: below this a split's Q load and partial write dominate

// CTAs of the main kernel's fixed grid: every (request, M tile) can take one CTA more than its share
// of target_ctas (see paged_verify_plan_kernel), so target + batch * ceil(max_len_extend * H / 64) always suffices.
inline int64_t grid_ctas(int64_t target_ctas, int64_t batch, int64_t num_heads, int64_t max_len_extend) {
  const int64_t mtiles = (max_len_extend * num_heads + Traits::kBlockM - 1) / Traits::kBlockM;
  return target_ctas + batch * mtiles;
}
// 64-row partial slots the workspace holds: split requests use fewer than 2 * target_ctas.
inline int64_t partial_slots(int64_t target_ctas) { return 2 * target_ctas; }
inline int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

// The workspace: the plan (header, one RequestPlan a request, one CtaWork and its first tile's slots a CTA of the grid),
// the adjacency bits, then the split partials. Byte offsets, all 256-byte aligned.
struct WorkspaceLayout {
  int64_t header, requests, ctas, first_tile_slots, runs, partial_lse, partial_o, bytes;
};
inline WorkspaceLayout workspace_layout(int64_t batch, int64_t grid, int64_t target_ctas, int64_t kv_indices_len) {
  WorkspaceLayout w;
  const int64_t slots = partial_slots(target_ctas);
  w.header = 0;
  w.requests = align_up(int64_t(sizeof(PlanHeader)), 256);
  w.ctas = align_up(w.requests + batch * int64_t(sizeof(RequestPlan)), 256);
  w.first_tile_slots = align_up(w.ctas + grid * int64_t(sizeof(CtaWork)), 256);
  w.runs = align_up(w.first_tile_slots + grid * kFirstTileKeys * int64_t(sizeof(long long)), 256);
  w.partial_lse = align_up(w.runs + (kv_indices_len + 31) / 32 * 4, 256);
  w.partial_o = align_up(w.partial_lse + slots * Traits::kBlockM * int64_t(sizeof(float)), 256);
  w.bytes = w.partial_o + slots * Traits::kBlockM * kHeadDimV * int64_t(sizeof(float));
  return w;
}
// Points the plan, runs and partial pointers of `p` into `workspace` (laid out for p.batch, p.grid_ctas,
// p.target_ctas, p.kv_indices_len).
inline void bind_workspace(PagedVerifyParams& p, void* workspace) {
  const WorkspaceLayout ws = workspace_layout(p.batch, p.grid_ctas, p.target_ctas, p.kv_indices_len);
  unsigned char* base = static_cast<unsigned char*>(workspace);
  p.plan_header = reinterpret_cast<PlanHeader*>(base + ws.header);
  p.plan_requests = reinterpret_cast<RequestPlan*>(base + ws.requests);
  p.plan_ctas = reinterpret_cast<CtaWork*>(base + ws.ctas);
  p.first_tile_slots = reinterpret_cast<long long*>(base + ws.first_tile_slots);
  p.runs = reinterpret_cast<unsigned*>(base + ws.runs);
  p.partial_lse = reinterpret_cast<float*>(base + ws.partial_lse);
  p.partial_o = reinterpret_cast<float*>(base + ws.partial_o);
  p.partial_slots = int(partial_slots(p.target_ctas));
}
}  // namespace paged

namespace paged {
template <typename Tr>
cudaError_t launch_main(const PagedVerifyParams& p, cudaStream_t stream) {
  cudaError_t err = cudaFuncSetAttribute(paged_verify_kernel<Tr>, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (err != cudaSuccess) return err;
  paged_verify_kernel<Tr><<<unsigned(p.grid_ctas), Tr::kThreads, Tr::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}
}  // namespace paged

// ------------------------------------------------------------------ entry points

// The SM count of the current device (the split schedule aims at SMs x CTAs per SM).
cudaError_t paged_verify_device_sms(int* sms) {
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
  return err;
}

// Bytes of workspace for `batch` requests, a grid of `grid` CTAs, a schedule aiming at `target_ctas` and
// kv_indices of `kv_indices_len` elements.
int64_t paged_verify_workspace_bytes(int64_t batch, int64_t grid, int64_t target_ctas, int64_t kv_indices_len) {
  return paged::workspace_layout(batch, grid, target_ctas, kv_indices_len).bytes;
}

// The plan of a batch (one CTA, plus the runs kernel): reads qo_indptr, kv_indptr, mask_indptr, the live entries
// of kv_indices and the sizes of `p`, writes the plan and the adjacency bits into the workspace `p` points at. Every
// later paged_verify(p, stream, planned=true) with the same index arrays and sizes reuses it (the combine kernel checks
// the sizes and the lengths it was made for). Both grids are fixed by sizes the host knows without reading the device
// (the batch; the schedule's target CTAs), never by len(kv_indices): the work follows the live entries.
cudaError_t paged_verify_plan(const PagedVerifyParams& p, cudaStream_t stream) {
  paged::paged_verify_plan_kernel<<<1, paged::kPlanThreads, 0, stream>>>(p);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || p.batch == 0 || p.kv_indices_len == 0) return err;
  if (p.runs != nullptr) {
    const int runs_ctas = p.runs_ctas > 0 ? p.runs_ctas : p.target_ctas;
    if (runs_ctas <= 0) return cudaErrorInvalidConfiguration;
    paged::paged_verify_runs_kernel<<<unsigned(runs_ctas), paged::kRunsThreads, 0, stream>>>(p);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  // each CTA's first tile (first_tile_slots) and run check (its work descriptor's run_first, from the adjacency bits)
  const int64_t check_blocks = (p.grid_ctas + paged::kRunCheckThreads / 32 - 1) / (paged::kRunCheckThreads / 32);
  paged::paged_verify_run_check_kernel<<<unsigned(check_blocks), paged::kRunCheckThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

// Runs the plan kernel (unless `planned`), the main kernel and the combine kernel. The caller filled `p`
// (pointers, strides, sizes, scores, schedule, grid_ctas) and bound it to a workspace of
// paged_verify_workspace_bytes(p.batch, p.grid_ctas, p.target_ctas) bytes (paged::bind_workspace).
cudaError_t paged_verify(const PagedVerifyParams& p, cudaStream_t stream, bool planned) {
  using paged::Traits;
  if (p.num_tokens <= 0 || p.num_heads <= 0) return cudaSuccess;
  const int64_t rows = int64_t(p.num_tokens) * p.num_heads;
  const int64_t combine_blocks = (rows + paged::kCombineWarps - 1) / paged::kCombineWarps;
  if (p.grid_ctas <= 0 || combine_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  cudaError_t err = cudaSuccess;
  if (!planned && (err = paged_verify_plan(p, stream)) != cudaSuccess) return err;
  if (p.batch > 0) {
    err = p.cache_fp8 ? paged::launch_main<paged::PagedTraitsE4m3>(p, stream) : paged::launch_main<paged::PagedTraitsBf16>(p, stream);
    if (err != cudaSuccess) return err;
  }
  if (!p.overlap_combine) {
    paged::paged_verify_combine_kernel<<<unsigned(combine_blocks), paged::kCombineWarps * 32, 0, stream>>>(p);
    return cudaGetLastError();
  }
  // programmatic dependent launch: the combine may start once every main CTA has passed its launch_dependents(); it
  // waits for the main grid (wait_primary_grid) before its first store or partial read
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(combine_blocks));
  cfg.blockDim = dim3(paged::kCombineWarps * 32);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  err = cudaLaunchKernelEx(&cfg, paged::paged_verify_combine_kernel, p);
  return err != cudaSuccess ? err : cudaGetLastError();
}
