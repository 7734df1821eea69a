// Declarations the bindings of simt_planted.cu are generated from (load_inline `functions`).
#pragma once
#include <torch/extension.h>
at::Tensor pl_static_shared(at::Tensor x, int64_t blocks);
at::Tensor pl_local(at::Tensor x, int64_t n);
at::Tensor pl_workspace(at::Tensor x, at::Tensor ws);
at::Tensor pl_misaligned_shared(at::Tensor x, int64_t offset, int64_t vec);
