// tests/simt_racecheck.cu - negative controls of the emulator's race mode (nbs/01c_racecheck.ipynb).
//
// Each kernel plants one synchronisation bug behind `fixed == 0` and is correct with `fixed == 1`; the
// result is the same either way on the emulator (its threads run in one fixed order), which is the
// point: only the race checker tells them apart. Plain CUDA: the same source builds with nvcc.
#include <torch/extension.h>
#include <cuda_runtime.h>
#include "tests/simt_racecheck.h"
#include "vk/device.cuh"

namespace {

constexpr int kThreads = 128;

// 0: missing barrier between a shared-memory write and another thread's read (RAW / WAR).
__global__ void rc_missing_barrier(const float* x, float* out, int fixed) {
  __shared__ float s[kThreads];
  const int t = threadIdx.x;
  s[t] = x[t];
  if (fixed) __syncthreads();
  out[t] = s[(t + 1) % kThreads];
}

// 1: a buffer reused by the next iteration before every thread read it (WAR).
__global__ void rc_reused_buffer(const float* x, float* out, int iters, int fixed) {
  __shared__ float buf[kThreads];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < iters; ++i) {
    buf[t] = x[i * kThreads + t];
    __syncthreads();
    acc += buf[kThreads - 1 - t];
    if (fixed) __syncthreads();  // every read of this iteration done before the next one writes
  }
  out[t] = acc;
}

// 2: cp.async destination read before wait_group (mode 2: read too early; mode 3: the issuing thread
// waited, but another thread reads without a barrier after the wait).
__global__ void rc_cp_async(const float4* x, float4* out, int mode, int fixed) {
  float4* s = vk::dynamic_smem<float4>();
  const int t = threadIdx.x;
  vk::cp_async_16(s + t, x + t);
  vk::cp_async_commit();
  if (mode == 2 && !fixed) {
    out[t] = s[t];  // own destination, before the wait
    vk::cp_async_wait<0>();
    return;
  }
  vk::cp_async_wait<0>();
  if (fixed) __syncthreads();
  out[t] = s[(t + 1) % kThreads];
}

// 3: lanes of a warp exchange values through shared memory without __syncwarp (mode 3) / with it.
__global__ void rc_warp_exchange(const int* x, int* out, int fixed) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  s[t] = x[t];
  if (fixed) __syncwarp();
  out[t] = s[t ^ 1];  // the neighbour lane, same warp
}

// 4: two CTAs write one global slot (mode 4) / each its own.
__global__ void rc_two_ctas(int* out, int fixed) {
  if (threadIdx.x == 0) out[fixed ? blockIdx.x : 0] = int(blockIdx.x) + 1;
}

// 5: atomics are not races: shared and global atomicAdd from every thread, no barrier between them;
// the fixed/unfixed flag chooses a plain read of the shared counter with (1) or without (0) a barrier.
__global__ void rc_atomics(int* out, int fixed) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  atomicAdd(out + gridDim.x, 1);
  if (fixed) __syncthreads();
  if (threadIdx.x == kThreads - 1) out[blockIdx.x] = count;
}

// 6: synccheck - __syncwarp naming a lane that exited (fixed: the mask of the lanes still running).
__global__ void rc_syncwarp_exited(int* out, int fixed) {
  const int lane = threadIdx.x % 32;
  if (lane >= 16) return;
  __syncwarp(fixed ? 0x0000ffffu : 0xffffffffu);
  out[threadIdx.x] = lane;
}

// 7: synccheck - a shuffle whose mask names lanes that never arrive (they wait at another shuffle).
__global__ void rc_shfl_absent(int* out, int fixed) {
  const int lane = threadIdx.x % 32;
  int v = lane;
  if (fixed || lane < 16) v = __shfl_xor_sync(0xffffffffu, v, 1);
  else v = __shfl_xor_sync(0xffff0000u, v, 2);
  out[threadIdx.x] = v;
}

// 9-12: thread-block clusters (sm_90+): 8 CTAs of 32 threads in clusters of 4, each CTA's 32 floats in dynamic shared
// memory read by its cluster's next CTA (distributed shared memory), every access that needs one behind a cluster barrier
// when `fixed`. 13: a cluster barrier orders the threads of one CTA too (a launch without clusters: a cluster of one).
constexpr int kClusterThreads = 32, kClusterCtas = 8, kClusterSize = 4;

// This thread's slot t of its CTA's floats s (input and output element i), and the cluster's next CTA's floats (peer).
struct ClusterSlots {
  float* s;
  const float* peer;
  int t, i;
  __device__ ClusterSlots() : s(vk::dynamic_smem<float>()), peer(nullptr), t(threadIdx.x), i(blockIdx.x * kClusterThreads + threadIdx.x) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    peer = static_cast<const float*>(__cluster_map_shared_rank(s, (__clusterRelativeBlockRank() + 1) % __clusterSizeInBlocks()));
#endif
  }
};
__device__ __forceinline__ void cluster_sync() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
#endif
}

// 9: a CTA rewrites its shared memory while the peer may still be reading the first value (WAR across CTAs).
__global__ void rc_cluster_rewrite(const float* x, float* out, int fixed) {
  const ClusterSlots c;
  c.s[c.t] = x[c.i];
  cluster_sync();
  const float first = c.peer[c.t];
  if (fixed) cluster_sync();  // every peer read the first value before any CTA writes the second
  c.s[c.t] = 2.0f * x[c.i];
  cluster_sync();
  out[c.i] = first + c.peer[c.t];
  cluster_sync();  // each CTA's shared memory kept until its peer read it
}

// 10: a CTA exits with no cluster barrier after its peer's read of its shared memory.
__global__ void rc_cluster_exit(const float* x, float* out, int fixed) {
  const ClusterSlots c;
  c.s[c.t] = x[c.i];
  cluster_sync();
  out[c.i] = c.peer[c.t];
  if (fixed) cluster_sync();
}

// 11: split arrive / wait - a write after the thread's arrive is not ordered before the peers' reads after their wait.
__global__ void rc_cluster_split(const float* x, float* out, int fixed) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  const ClusterSlots c;
  cluster_sync();  // every CTA of the cluster started
  if (fixed) c.s[c.t] = x[c.i];
  __cluster_barrier_arrive();
  if (!fixed) c.s[c.t] = x[c.i];  // between its arrive and its wait: the barrier orders nothing after the arrive
  __cluster_barrier_wait();
  out[c.i] = c.peer[c.t];
  cluster_sync();
#endif
}

// 12: a read of the peer's shared memory before any cluster barrier (the peer may not have started, nor written it).
__global__ void rc_cluster_early(const float* x, float* out, int fixed) {
  const ClusterSlots c;
  c.s[c.t] = x[c.i];
  if (fixed) cluster_sync();
  out[c.i] = c.peer[c.t];
  cluster_sync();
}

// 13: thread t reads thread t + 1's write, ordered by a cluster barrier (fixed) or by nothing.
__global__ void rc_cluster_one(const float* x, float* out, int fixed) {
  const ClusterSlots c;
  c.s[c.t] = x[c.i];
  if (fixed) cluster_sync();
  out[c.i] = c.s[(c.t + 1) % kClusterThreads];
}

}  // namespace

torch::Tensor rc_control(int64_t which, int64_t fixed, torch::Tensor x) {
  TORCH_CHECK(x.is_contiguous() && x.numel() >= 4 * kThreads, "x: at least 512 contiguous elements");
  auto out = torch::zeros({8 * kThreads}, x.options().dtype(torch::kInt32));
  const int f = int(fixed);
  switch (which) {
    case 0: {
      auto o = torch::zeros({kThreads}, x.options().dtype(torch::kFloat32));
      rc_missing_barrier<<<1, kThreads>>>(x.data_ptr<float>(), o.data_ptr<float>(), f);
      return o;
    }
    case 1: {
      auto o = torch::zeros({kThreads}, x.options().dtype(torch::kFloat32));
      rc_reused_buffer<<<1, kThreads>>>(x.data_ptr<float>(), o.data_ptr<float>(), 4, f);
      return o;
    }
    case 2: case 3: {
      auto o = torch::zeros({kThreads, 4}, x.options().dtype(torch::kFloat32));
      auto src = torch::arange(4 * kThreads, x.options().dtype(torch::kFloat32));
      rc_cp_async<<<1, kThreads, kThreads * 16>>>(reinterpret_cast<const float4*>(src.data_ptr<float>()),
                                                 reinterpret_cast<float4*>(o.data_ptr<float>()), int(which), f);
      return o;
    }
    case 4: {
      auto xi = torch::arange(kThreads, x.options().dtype(torch::kInt32));
      rc_warp_exchange<<<1, kThreads>>>(xi.data_ptr<int>(), out.data_ptr<int>(), f);
      return out;
    }
    case 5: rc_two_ctas<<<4, 32>>>(out.data_ptr<int>(), f); return out;
    case 6: rc_atomics<<<3, kThreads>>>(out.data_ptr<int>(), f); return out;
    case 7: rc_syncwarp_exited<<<1, 64>>>(out.data_ptr<int>(), f); return out;
    case 8: rc_shfl_absent<<<1, 32>>>(out.data_ptr<int>(), f); return out;
    case 9: case 10: case 11: case 12: case 13: {
      auto o = torch::zeros({kClusterCtas * kClusterThreads}, x.options().dtype(torch::kFloat32));
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(kClusterCtas); cfg.blockDim = dim3(kClusterThreads); cfg.dynamicSmemBytes = kClusterThreads * sizeof(float);
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = kClusterSize; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
      cfg.attrs = attr; cfg.numAttrs = which == 13 ? 0 : 1;
      const float* xp = x.data_ptr<float>();
      float* op = o.data_ptr<float>();
      const cudaError_t err = which == 9 ? cudaLaunchKernelEx(&cfg, rc_cluster_rewrite, xp, op, f)
                            : which == 10 ? cudaLaunchKernelEx(&cfg, rc_cluster_exit, xp, op, f)
                            : which == 11 ? cudaLaunchKernelEx(&cfg, rc_cluster_split, xp, op, f)
                            : which == 12 ? cudaLaunchKernelEx(&cfg, rc_cluster_early, xp, op, f)
                                          : cudaLaunchKernelEx(&cfg, rc_cluster_one, xp, op, f);
      TORCH_CHECK(err == cudaSuccess, "rc_control: ", cudaGetErrorString(err));
      return o;
    }
  }
  TORCH_CHECK(false, "rc_control: which must be in [0, 13]");
  return out;
}
