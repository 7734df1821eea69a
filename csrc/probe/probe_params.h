// probe: the smallest kernel family. It proves the build paths (torch load_inline for sm_120a /
// sm_90a, the SIMT emulator on the CPU, the static gates) and shows the layout every family
// follows: params struct (this file), device code (probe_kernel.cuh), launch code
// (probe_launch.cuh, no torch), torch host API (probe_api.cu).
#pragma once
#include <cstdint>

struct ProbeParams {
  const float* __restrict__ x;  // [n]
  float* __restrict__ y;        // [n]   y = a * x + rowsum, where rowsum = sum(x) (block-reduced)
  float* __restrict__ total;    // [1]   sum(x), accumulated with atomicAdd (zeroed by the caller)
  float a;
  int64_t n;
};
