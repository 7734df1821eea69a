#pragma once
#include <torch/extension.h>
// Negative controls of race mode (which: 0-13, see simt_racecheck.cu); x: float32, >= 512 elements.
torch::Tensor rc_control(int64_t which, int64_t fixed, torch::Tensor x);
