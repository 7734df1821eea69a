// simt/qualifiers.h - CUDA's execution- and memory-space qualifiers for host compilation.
//
// __global__/__device__/__host__ vanish (kernels are ordinary functions). __shared__ variables are
// per block: function-local statics, one copy per OS thread (blocks of a launch run on several OS
// threads at once, one block at a time per OS thread). The AddressSanitizer build runs blocks on
// one OS thread and makes them plain statics, which ASan instruments with redzones.
// `extern __shared__ T name[];` (dynamic shared memory) and `static __shared__` are rewritten by
// verify_kernel.simt before compilation.
#pragma once
// The toolkit's own cuda_runtime_api.h (which vector_functions.h includes by a quoted path, so the
// include path cannot shadow it) must not be seen: the shadow <cuda_runtime_api.h> replaces it.
#if !defined(__CUDA_RUNTIME_API_H__)
#define __CUDA_RUNTIME_API_H__
#endif
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __managed__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#if defined(VK_SIMT_ASAN)
#define __shared__ static
#else
#define __shared__ static thread_local
#endif
#define __constant__
#define __managed__
#define __launch_bounds__(...)
// libstdc++'s <memory> spells __attribute__((__noinline__)): parse it before the macro exists.
#include <memory>
#undef __noinline__
#define __noinline__ __attribute__((noinline))
#if !defined(__grid_constant__)
#define __grid_constant__
#endif
