// Shadow of <ATen/cuda/Exceptions.h> for the host SIMT emulator.
#pragma once
#include <c10/cuda/CUDAException.h>
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
