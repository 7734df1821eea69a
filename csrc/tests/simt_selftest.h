// Declarations the bindings of simt_selftest.cu are generated from (load_inline `functions`).
#pragma once
#include <vector>
#include <torch/extension.h>
at::Tensor st_block_reduce(at::Tensor x, int64_t threads);
at::Tensor st_shfl(at::Tensor vals, at::Tensor b, int64_t mode, int64_t width, int64_t mask);
at::Tensor st_warp_ops(at::Tensor pred, at::Tensor vals, int64_t mask);
at::Tensor st_ids(at::Tensor like, std::vector<int64_t> grid, std::vector<int64_t> block);
std::vector<int64_t> st_smem_optin(at::Tensor out, int64_t bytes, int64_t optin);
std::vector<int64_t> st_device_attrs();
std::vector<at::Tensor> st_atomics(at::Tensor x);
at::Tensor st_convert(at::Tensor in, int64_t mode);
at::Tensor st_ldmatrix(at::Tensor src, at::Tensor perm, int64_t count, bool trans);
at::Tensor st_mma(at::Tensor A, at::Tensor B, at::Tensor C, bool via_ldmatrix);
at::Tensor st_mma_rate(at::Tensor like, int64_t blocks, int64_t threads, int64_t iters);
std::vector<at::Tensor> st_cp_async(at::Tensor src, at::Tensor valid);
at::Tensor st_traffic(at::Tensor x, at::Tensor y, int64_t threads);
std::vector<at::Tensor> st_intrinsics(at::Tensor v, at::Tensor f);
at::Tensor st_error(at::Tensor like, int64_t kind);
at::Tensor st_launch_threads(at::Tensor like, int64_t threads);
at::Tensor st_attn_rowwise(at::Tensor q, at::Tensor kv, double scale);
at::Tensor st_gemm_tc(at::Tensor A, at::Tensor B, bool b_kmajor);
std::vector<at::Tensor> st_host_api(at::Tensor x);
std::vector<at::Tensor> st_cluster_sum(at::Tensor x, int64_t cluster);
at::Tensor st_smem_rate(at::Tensor like, int64_t clusters, int64_t cluster, int64_t kbytes, int64_t iters, int64_t source);
