// paged: host launch code (no torch). Included by exactly one TU (paged_api.cu); the static gates
// compile this header alone, which instantiates every kernel the entry points launch.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include "paged/paged_kernel.cuh"

namespace paged {
using Traits = PagedTraits;
constexpr int kCtasPerSm = 1;  // 96,000 B of shared memory and ~230 registers x 256 threads: one CTA an SM
constexpr int kDefaultMinTilesPerSplit = 8;  // 128 keys: below this a split's Q load and partial write dominate

// CTAs of the main kernel's fixed grid: every (request, M tile) can take one CTA more than its share
// of target_ctas (see plan_work), so target + batch * ceil(max_len_extend * H / 64) always suffices.
inline int64_t grid_ctas(int64_t target_ctas, int64_t batch, int64_t num_heads, int64_t max_len_extend) {
  const int64_t mtiles = (max_len_extend * num_heads + Traits::kBlockM - 1) / Traits::kBlockM;
  return target_ctas + batch * mtiles;
}
// 64-row partial slots the workspace holds: split requests use fewer than 2 * target_ctas.
inline int64_t partial_slots(int64_t target_ctas) { return 2 * target_ctas; }
inline int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

struct WorkspaceLayout {
  int64_t plan, partial_lse, partial_o, bytes;  // byte offsets and total size
};
inline WorkspaceLayout workspace_layout(int64_t batch, int64_t target_ctas) {
  WorkspaceLayout w;
  const int64_t slots = partial_slots(target_ctas);
  w.plan = 0;
  w.partial_lse = align_up(batch * 2 * int64_t(sizeof(int)), 256);
  w.partial_o = align_up(w.partial_lse + slots * Traits::kBlockM * int64_t(sizeof(float)), 256);
  w.bytes = w.partial_o + slots * Traits::kBlockM * kHeadDimV * int64_t(sizeof(float));
  return w;
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

// Bytes of workspace paged_verify needs for `batch` requests when aiming at `target_ctas` CTAs.
int64_t paged_verify_workspace_bytes(int64_t batch, int64_t target_ctas) {
  return paged::workspace_layout(batch, target_ctas).bytes;
}

// Runs the main kernel and the combine kernel. The caller filled `p` (pointers, strides, sizes,
// scores, schedule) and pointed plan / partial_lse / partial_o into a workspace of
// paged_verify_workspace_bytes(p.batch, p.target_ctas) bytes.
cudaError_t paged_verify(const PagedVerifyParams& p, cudaStream_t stream) {
  using paged::Traits;
  if (p.batch <= 0 || p.num_tokens <= 0 || p.num_heads <= 0) return cudaSuccess;
  const int64_t ctas = paged::grid_ctas(p.target_ctas, p.batch, p.num_heads, p.max_len_extend);
  const int64_t rows = int64_t(p.num_tokens) * p.num_heads;
  const int64_t combine_blocks = (rows + paged::kCombineWarps - 1) / paged::kCombineWarps;
  if (ctas > 0x7fffffff || combine_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  cudaError_t err = cudaFuncSetAttribute(paged::paged_verify_kernel<Traits>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         Traits::kSmemBytes);
  if (err != cudaSuccess) return err;
  paged::paged_verify_kernel<Traits><<<unsigned(ctas), Traits::kThreads, Traits::kSmemBytes, stream>>>(p);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  paged::paged_verify_combine_kernel<<<unsigned(combine_blocks), paged::kCombineWarps * 32, 0, stream>>>(p);
  return cudaGetLastError();
}
