// simt/launch.h - what `kernel<<<grid, block, smem, stream>>>(args...)` becomes under the emulator.
//
// verify_kernel.simt rewrites every launch to
//   ::vk_simt::launch(kernel, "kernel", __FILE__, __LINE__, grid, block, smem, stream)(args...)
// The call operator takes the arguments as the kernel's parameter types (the implicit conversions a
// CUDA launch does), keeps one copy, and every emulated thread calls the kernel with its own copy.
// A launch runs to completion before it returns (every stream is synchronous here; the launch's record names its stream,
// which simt.stream_check uses to find buffers shared by streams without an event between them), unless the calling
// thread captures an emulated CUDA graph (verify_kernel.graphs): then it is recorded (capture()).
// Errors inside the kernel throw std::runtime_error (a Python RuntimeError through the bindings) naming the kernel,
// block and thread; an invalid configuration throws too (or, with
// simt.set_device(launch_errors='return'), only sets the error cudaGetLastError returns).
#pragma once
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include "simt/runtime.h"

namespace vk_simt {

template <class... P>
struct Launch {
  void (*kernel)(P...);
  const char* name;
  const char* file;
  int line;
  dim3 grid, block;
  size_t smem;
  cudaStream_t stream;
  int programmatic = 0;  // cudaLaunchKernelEx with programmatic stream serialization
  dim3 cluster{0, 0, 0};  // cudaLaunchKernelEx with a cluster dimension ({0, 0, 0}: none)

  // The launch's kernel, source location and configuration (entry and ctx are the caller's).
  LaunchDesc describe() const {
    LaunchDesc d;
    d.kernel = reinterpret_cast<const void*>(kernel);
    d.src_name = name;
    d.file = file;
    d.line = line;
    d.grid[0] = grid.x; d.grid[1] = grid.y; d.grid[2] = grid.z;
    d.block[0] = block.x; d.block[1] = block.y; d.block[2] = block.z;
    d.smem = smem;
    d.stream = reinterpret_cast<unsigned long long>(stream);
    d.programmatic = programmatic;
    d.cluster[0] = cluster.x; d.cluster[1] = cluster.y; d.cluster[2] = cluster.z;
    return d;
  }

  void operator()(P... args) const {
    using Args = std::tuple<P...>;
    if (VK_SIMT_UNLIKELY(vk_simt_capturing())) return capture(args...);
    Args held(args...);
    struct Ctx { void (*kernel)(P...); Args* args; } ctx{kernel, &held};
    LaunchDesc d = describe();
    d.entry = [](void* c) {
      Ctx* x = static_cast<Ctx*>(c);
      std::apply(x->kernel, *x->args);  // by-value parameters: each thread gets its own copy
    };
    d.ctx = &ctx;
    char err[4096];
    const int rc = vk_simt_launch(&d, err, sizeof err);
    if (rc == 0) return;
    if (rc != 719 && !vk_simt_launch_errors_raise()) return;  // configuration error, error-code mode
    (void)vk_simt_get_last_error(1);  // reported by the exception: not left for cudaGetLastError too
    throw std::runtime_error(std::string("vk_simt: ") + err);
  }

  // Stream capture (an emulated CUDA graph): the launch is recorded, not run; the arguments are
  // copied to the heap as the kernel's parameter types (pointers and scalars frozen) and live with
  // the graph; every replay runs the kernel on them.
  void capture(P... args) const {
    using Args = std::tuple<P...>;
    struct Held { void (*kernel)(P...); Args args; };
    Held* h = new Held{kernel, Args(args...)};
    LaunchDesc d = describe();
    d.entry = [](void* c) {
      Held* x = static_cast<Held*>(c);
      std::apply(x->kernel, x->args);  // by-value parameters: each thread gets its own copy
    };
    d.ctx = h;
    char err[512];
    if (vk_simt_capture_launch(&d, [](void* c) { delete static_cast<Held*>(c); }, err, sizeof err) == 0) return;
    delete h;
    throw std::runtime_error(std::string("vk_simt: ") + err);
  }
};

template <class... P>
inline Launch<P...> launch(void (*kernel)(P...), const char* name, const char* file, int line,
                           dim3 grid, dim3 block, size_t smem = 0, cudaStream_t stream = nullptr) {
  return Launch<P...>{kernel, name, file, line, grid, block, smem, stream};
}

// cudaLaunchKernelEx(&config, kernel, args...) under the emulator (the shadow <cuda_runtime.h> turns the call into this,
// naming the kernel): the same launch as `kernel<<<config>>>(args...)`, marked programmatic when the config carries
// cudaLaunchAttributeProgrammaticStreamSerialization, and run in thread-block clusters when it carries
// cudaLaunchAttributeClusterDimension (the runtime checks the dims against the grid and the device). The emulator still
// runs a programmatic launch after the previous launch has ended (kinder than a GPU, where it may start earlier); what it
// checks instead: no global store before the kernel's
// vk::wait_primary_grid(), and, under a trace, the bytes each registered tensor gave to loads before it
// (LaunchRecord.loaded_before_wait), so that a test can show a kernel reads nothing the previous grid writes before waiting.
template <class... P, class... A>
inline cudaError_t launch_ex(const char* name, const char* file, int line, const cudaLaunchConfig_t* cfg, void (*kernel)(P...),
                             A&&... args) {
  if (cfg == nullptr) return vk_simt::api_error(cudaErrorInvalidValue, "cudaLaunchKernelEx: config is null");
  Launch<P...> l{kernel, name, file, line, cfg->gridDim, cfg->blockDim, cfg->dynamicSmemBytes, cfg->stream};
  for (unsigned i = 0; i < cfg->numAttrs; ++i) {
    const cudaLaunchAttribute& a = cfg->attrs[i];
    if (a.id == cudaLaunchAttributeProgrammaticStreamSerialization) l.programmatic = a.val.programmaticStreamSerializationAllowed != 0;
    else if (a.id == cudaLaunchAttributeClusterDimension) l.cluster = dim3(a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
    else return vk_simt::api_error(cudaErrorInvalidValue, "cudaLaunchKernelEx: launch attribute not emulated");
  }
  l(std::forward<A>(args)...);
  return cudaError_t(vk_simt_get_last_error(0));
}

}  // namespace vk_simt
