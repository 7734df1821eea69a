// flash: host launch code (no torch). Included by exactly one TU (flash_api.cu); the static gates
// compile this header alone, which instantiates every kernel the entry points below dispatch to.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include "flash/flash_kernel.cuh"

namespace flash {
// The tile shapes per element type: the largest q tile (M rows of heads x drafts) whose fp32
// accumulators (M x 512) fit the registers of 8 warps (128 a thread at M = 64) and whose q tile +
// v tile + scores fit sm_120's 99 KB per block. bf16: 64 rows (72 KB q tile) x 16 keys (16 KB v
// tile), 4 dot products per reduce-scatter (more would spill at sm_90a: 255 registers);
// fp32: 32 rows (72 KB) x 8 keys (16 KB), 32 dot products per reduce-scatter.
using Bf16SplitTraits = FlashVerifyTraits<__nv_bfloat16, 64, 16, 8, 4>;
using F32SplitTraits = FlashVerifyTraits<float, 32, 8, 8, 32>;
constexpr int kNaiveWarps = 8;
constexpr int kCombineThreads = kHeadDimV / 4;
constexpr int64_t kMinKeysPerSplit = 256;  // default policy: a split's q-tile load and partial write stay small vs its KV
constexpr int kMaxSplits = 4096;           // the combine stages num_splits LSEs in shared memory (16 KB)

template <typename Traits>
static cudaError_t launch_flash(const VerifyParams& p, cudaStream_t stream) {
  using T = typename Traits::Element;
  const int num_rows = p.num_tokens * p.num_heads;
  // M tiles of one split are adjacent in launch order: they run together and share its KV rows in L2
  const dim3 grid(unsigned((num_rows + Traits::kBlockM - 1) / Traits::kBlockM), unsigned(p.num_splits));
  constexpr int smem = Traits::kSmemBytes;
  cudaError_t err = cudaFuncSetAttribute(flash_verify_split_kernel<Traits>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (err != cudaSuccess) return err;
  flash_verify_split_kernel<Traits><<<grid, Traits::kThreads, smem, stream>>>(p);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  flash_verify_combine_kernel<T, kCombineThreads><<<num_rows, kCombineThreads, p.num_splits * sizeof(float), stream>>>(p);
  return cudaGetLastError();
}

template <typename T>
static cudaError_t launch_naive(const VerifyParams& p, size_t smem, cudaStream_t stream) {
  cudaError_t err = cudaFuncSetAttribute(verify_naive_kernel<T, kNaiveWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (err != cudaSuccess) return err;
  verify_naive_kernel<T, kNaiveWarps><<<p.num_tokens * p.num_heads, kNaiveWarps * 32, smem, stream>>>(p);
  return cudaGetLastError();
}
}  // namespace flash

// ------------------------------------------------------------------ entry points

// Dynamic shared memory of the naive kernel for `num_keys` keys: q row + scratch + score row + pad.
// The pad: nvcc compiles pass 3's loop over the score row with 16-byte loads (LDS.128) that can read
// past the row's last key; compute-sanitizer's memcheck reported them out of bounds on an H200
// (2026-12-04, sm_90a). kScorePad floats after the row keep every such load inside the allocation.
constexpr int64_t kScorePad = 4;
size_t verify_naive_smem_bytes(int64_t num_keys) {
  return size_t(flash::kHeadDimQK + 32 + num_keys + kScorePad) * sizeof(float);
}

// The most keys (L + n) the naive kernel takes on the current device: its score row must fit the
// device's opt-in shared memory per block.
cudaError_t verify_naive_max_keys(int64_t* max_keys) {
  int dev = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err != cudaSuccess) return err;
  *max_keys = int64_t(optin) / int64_t(sizeof(float)) - (flash::kHeadDimQK + 32 + kScorePad);
  return cudaSuccess;
}

// Naive kernel: fills o and lse (p.o_partial / p.lse_partial unused). The caller checked
// p.num_keys <= verify_naive_max_keys().
cudaError_t verify_naive(const VerifyParams& p, bool is_bf16, cudaStream_t stream) {
  if (p.num_tokens == 0 || p.num_heads == 0) return cudaSuccess;
  const size_t smem = verify_naive_smem_bytes(p.num_keys);
  return is_bf16 ? flash::launch_naive<__nv_bfloat16>(p, smem, stream) : flash::launch_naive<float>(p, smem, stream);
}

// Query rows per split-kernel CTA (the M tile): a KV row is loaded once per split and M tile.
int verify_flash_block_m(bool is_bf16) {
  return is_bf16 ? flash::Bf16SplitTraits::kBlockM : flash::F32SplitTraits::kBlockM;
}

// The default number of splits for `num_keys` keys and `num_rows` = n * H query rows on the
// current device: enough CTAs (splits x M tiles) for one per SM (a CTA holds 70-73 KB of shared
// memory and 8 warps of ~150+ registers), but no split shorter than kMinKeysPerSplit keys.
cudaError_t verify_flash_default_num_splits(int64_t num_keys, int64_t num_rows, bool is_bf16, int* num_splits) {
  int dev = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return err;
  const int64_t block_m = verify_flash_block_m(is_bf16);
  const int64_t m_blocks = num_rows > 0 ? (num_rows + block_m - 1) / block_m : 1;
  const int64_t want = (int64_t(sms) + m_blocks - 1) / m_blocks;
  const int64_t cap = (num_keys + flash::kMinKeysPerSplit - 1) / flash::kMinKeysPerSplit;
  int64_t s = want < cap ? want : cap;
  if (s < 1) s = 1;
  if (s > flash::kMaxSplits) s = flash::kMaxSplits;
  *num_splits = int(s);
  return cudaSuccess;
}

// Split kernel then combine: p.num_splits in [1, kMaxSplits], p.keys_per_split =
// ceil(num_keys / num_splits) (0 when num_keys == 0), workspace p.o_partial / p.lse_partial of
// num_splits x n*H rows.
cudaError_t verify_flash(const VerifyParams& p, bool is_bf16, cudaStream_t stream) {
  if (p.num_tokens == 0 || p.num_heads == 0) return cudaSuccess;
  if (p.num_splits < 1 || p.num_splits > flash::kMaxSplits) return cudaErrorInvalidValue;
  return is_bf16 ? flash::launch_flash<flash::Bf16SplitTraits>(p, stream) : flash::launch_flash<flash::F32SplitTraits>(p, stream);
}
