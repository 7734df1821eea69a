// Declarations the torch bindings are generated from (load_inline `functions`). See flash_api.cu.
#pragma once
#include <vector>
#include <torch/extension.h>
std::vector<at::Tensor> verify_naive_fwd(at::Tensor q, at::Tensor kv, at::Tensor custom_mask, double sm_scale);
std::vector<at::Tensor> verify_flash_fwd(at::Tensor q, at::Tensor kv, at::Tensor custom_mask, double sm_scale,
                                         int64_t num_splits);
int64_t naive_max_keys();
int64_t flash_num_splits(int64_t num_keys, int64_t num_rows, bool is_bf16);
int64_t flash_block_m(bool is_bf16);
