// Declarations the bindings of simt_asan.cu are generated from.
#pragma once
#include <torch/extension.h>
at::Tensor asan_oob(at::Tensor x, int64_t mode);
