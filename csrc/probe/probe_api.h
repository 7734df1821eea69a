// Declarations the torch bindings are generated from (load_inline `functions`).
#pragma once
#include <vector>
#include <torch/extension.h>
std::vector<at::Tensor> probe_axpy_sum(at::Tensor x, double a);
