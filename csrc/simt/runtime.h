// simt/runtime.h - the interface between code compiled for the host SIMT emulator (kernels, launch
// code, simt/device_host.h) and the emulator runtime library (simt/runtime.cpp, built once into
// libvk_simt*.so and shared by every extension in the process).
//
// Model: every CUDA thread of a block is a fiber; the fibers of a block run cooperatively on one
// OS thread (a "worker"); blocks of a launch are spread over the workers. A fiber runs until it
// reaches something that needs other threads (__syncthreads, a warp collective) or exits; then
// the next runnable fiber of the block runs. The CUDA builtins (threadIdx, ...) are per-OS-thread
// variables the scheduler rewrites at every switch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector_types.h>  // uint3 (the CUDA toolkit's own definition; compiles in host mode)

#if defined(__GNUC__)
#define VK_SIMT_API extern "C" __attribute__((visibility("default")))
#define VK_SIMT_LIKELY(x) __builtin_expect(!!(x), 1)
#define VK_SIMT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#error "the SIMT emulator needs GCC or Clang"
#endif

namespace vk_simt {

// Per-worker counters, summed over the workers into one record per launch.
struct Counters {
  uint64_t ld_ops, ld_bytes;      // global loads through the counted helpers (cp.async: 16 B)
  uint64_t st_ops, st_bytes;      // global stores through the counted helpers
  uint64_t atomics;               // atomic operations (global or shared)
  uint64_t barriers;              // completed block barriers (__syncthreads and friends)
  uint64_t collectives;           // completed warp collectives (shuffle, vote, ldmatrix, mma, ...)
  uint64_t switches;              // fiber switches
  uint64_t mma;                   // completed mma.sync (warp instructions; also among the collectives)
};

// The part of a worker's state that inline code in extensions reads directly.
struct WorkerView {
  Counters c;
  unsigned char* dyn_smem;        // this worker's dynamic shared memory (fixed address)
  int attributing;                // a trace with registered tensors is active
  int programmatic;               // the launch is programmatic (cudaLaunchAttributeProgrammaticStreamSerialization): its
                                  // threads' global accesses before vk::wait_primary_grid() are checked
};

// Kinds of warp collectives (the lanes named by the mask must all arrive at the same kind).
enum CollKind : int {
  kSyncwarp = 1, kShflIdx, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kMatchAny, kMatchAll,
  kReduceAdd, kReduceMin, kReduceMax, kReduceUMin, kReduceUMax, kReduceAnd, kReduceOr, kReduceXor,
  kLdmatrix, kMma
};
// kMma sub-kinds (CollArgs::param)
enum MmaKind : int { kMmaBf16_16816 = 1, kMmaF16_16816 = 2 };

// One lane's contribution to a warp collective and the slot its result comes back in.
struct CollArgs {
  int kind;           // CollKind
  unsigned mask;      // lanes that take part
  int param;          // shuffle: width; ldmatrix: (count | trans << 8); mma: MmaKind; reduce: 0
  int b;              // shuffle: srcLane / delta / laneMask; vote: predicate
  uint64_t v;         // shuffle / match / reduce: the value bits (up to 8 bytes)
  int vbytes;         // size of v in bytes (4 or 8)
  const void* ptr;    // ldmatrix: this lane's row address
  uint32_t frag[10];  // mma: a[4], b[2], c[4] (c as float bits)
  uint32_t out[4];    // result: shuffle/vote/match/reduce in out[0] (out[0..1] for 8 bytes),
                      // ldmatrix r[0..3], mma d[0..3] (float bits)
};

// What the launch template hands the runtime.
struct LaunchDesc {
  const void* kernel;          // the kernel's address (key for cudaFuncSetAttribute)
  const char* src_name;        // the kernel expression as written at the launch site
  const char* file;            // launch site
  int line;
  unsigned grid[3], block[3];
  size_t smem;                 // dynamic shared memory bytes
  void (*entry)(void* ctx);    // runs the kernel body for the current thread
  void* ctx;
  unsigned long long stream;   // the cudaStream_t the launch named (0: the legacy default stream), recorded, not waited on
  int programmatic;            // launched with programmatic stream serialization (cudaLaunchKernelEx): it may start
                               // before the previous kernel on its stream ends, and waits for it in wait_primary_grid()
  unsigned cluster[3];         // thread-block cluster dims (cudaLaunchAttributeClusterDimension); {0, 0, 0}: no cluster
                               // (a cluster of one CTA). The CTAs of a cluster run at once, one worker (OS thread) each.
};

}  // namespace vk_simt

// The CUDA builtins of the running fiber (rewritten by the scheduler at every switch).
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread uint3 blockDim;
extern __thread uint3 gridDim;
// The worker running on this OS thread (null outside kernels).
extern __thread vk_simt::WorkerView* vk_simt_worker;

// ----------------------------------------------------------------------------- runtime entry points
// Block-level barrier; `kind`: 0 plain, 1 count, 2 and, 3 or (value = predicate); returns the
// reduction for kinds 1-3.
VK_SIMT_API int vk_simt_barrier(int kind, int pred, const char* file, int line);
// Warp collective: fills a->out for the calling lane once every lane named by a->mask arrived.
VK_SIMT_API void vk_simt_collective(vk_simt::CollArgs* a, const char* file, int line);
// __activemask(): the lanes of the caller's warp that reach the same call site (released when no
// thread of the block can run any more).
VK_SIMT_API unsigned vk_simt_activemask(const char* file, int line);
// Attribution of a global access to registered tensors (only called while attributing).
VK_SIMT_API void vk_simt_note_access(const void* p, size_t bytes, int is_store);
// cp.async bookkeeping for the calling thread.
VK_SIMT_API void vk_simt_cp_async(void* smem, const void* gmem, int valid);
VK_SIMT_API void vk_simt_cp_async_commit(void);
// The calling thread's load chain ends here (vk::chain_end: its next load is the first bulk one).
VK_SIMT_API void vk_simt_chain_end(void);
// griddepcontrol.wait (vk::wait_primary_grid): the calling thread may now see the previous grid's writes. Records the
// thread's load chain at this point (the part a programmatic launch overlaps with the previous grid).
VK_SIMT_API void vk_simt_grid_dependency_wait(void);
VK_SIMT_API void vk_simt_cp_async_wait(int n);
// Thread-block clusters (sm_90 and later; a launch without clusters is one of 1 x 1 x 1). The launch's cluster dims.
VK_SIMT_API void vk_simt_cluster_dims(unsigned* dims);
// barrier.cluster.arrive / barrier.cluster.wait (__cluster_barrier_arrive / __cluster_barrier_wait): a thread's wait returns once
// every thread of every CTA of its cluster has arrived since the thread's own arrive. Each thread arrives, then waits, in turn.
VK_SIMT_API void vk_simt_cluster_arrive(const char* file, int line);
VK_SIMT_API void vk_simt_cluster_wait(const char* file, int line);
// mapa (__cluster_map_shared_rank): the address of `p` (in the calling CTA's dynamic shared memory) in CTA `rank` of its cluster.
VK_SIMT_API void* vk_simt_cluster_map_shared(const void* p, unsigned rank, const char* file, int line);
// __cluster_query_shared_rank: the rank of the cluster's CTA whose dynamic shared memory holds `p`.
VK_SIMT_API unsigned vk_simt_cluster_query_shared_rank(const void* p, const char* file, int line);
// A device-side failure (trap, assert, bad argument to an intrinsic): ends the launch with an error
// that names the kernel, block and thread; never returns inside a kernel.
VK_SIMT_API void vk_simt_fail(const char* what, const char* file, int line) __attribute__((noreturn));
// assert() inside a kernel (the shadow <assert.h>): fails the launch like vk_simt_fail; outside
// kernels it reports and aborts like the C library.
VK_SIMT_API void vk_simt_assert_fail(const char* expr, const char* file, int line) __attribute__((noreturn));
// Run a launch; returns 0 or a cudaError_t value with a message in err.
VK_SIMT_API int vk_simt_launch(const vk_simt::LaunchDesc* d, char* err, size_t errlen);
// Kernel attributes and the sticky last error of the CUDA runtime API emulation.
VK_SIMT_API int vk_simt_func_set_max_dyn_smem(const void* kernel, int bytes);
VK_SIMT_API int vk_simt_func_get_max_dyn_smem(const void* kernel);
VK_SIMT_API int vk_simt_get_last_error(int clear);
VK_SIMT_API void vk_simt_set_last_error(int code, const char* detail);
VK_SIMT_API const char* vk_simt_last_error_detail(void);
VK_SIMT_API int vk_simt_launch_errors_raise(void);
// Emulated device properties.
struct VkSimtProps {
  char name[96];
  int cc_major, cc_minor;
  int sm_count;
  int smem_per_block;        // default per-block limit (48 KB)
  int smem_optin;            // opt-in per-block limit (cudaFuncAttributeMaxDynamicSharedMemorySize)
  int smem_per_sm;
  int max_threads_per_block;
  int max_threads_per_sm;
  int warps_per_sm;
  int regs_per_sm;
  int regs_per_block;
  int max_blocks_per_sm;
  int l2_bytes;
  long long global_mem;
  int clock_khz;
  int mem_clock_khz;
  int mem_bus_width;
  // emulator knobs
  int workers;               // OS threads blocks run on (ASan builds use 1)
  int stack_kb;              // per-fiber stack
  int launch_errors_raise;   // 1: an invalid launch configuration raises; 0: only sets the last error
  int poison_smem;           // 1: fill dynamic shared memory with 0xFF bytes at every block start
  int math_mode;             // CUDA math functions: 0 correctly rounded, 1/2 their documented worst error
                             // towards +inf / -inf on every call, 3 a seeded draw within it
  unsigned math_seed;        // seed of math_mode 3 (with the block index: the same launch gives the same bits)
};
VK_SIMT_API void vk_simt_get_props(VkSimtProps* p);
// The result a CUDA math function may return, given its correctly rounded value `exact` and its
// documented worst error (`max_ulp` units in the last place, or `max_abs` absolute when > 0): `exact`
// itself (math_mode 0), or moved by the whole error in the direction math_mode asks (see VkSimtProps).
// Zeros, infinities and NaN are returned unchanged.
VK_SIMT_API float vk_simt_math_model(float exact, int max_ulp, float max_abs);
VK_SIMT_API int vk_simt_set_props(const VkSimtProps* p, char* err, size_t errlen);
// Emulated CUDA graphs (stream capture on the calling OS thread; see the end of runtime.cpp):
// while vk_simt_capturing(), simt/launch.h records each launch with vk_simt_capture_launch (its
// arguments copied to the heap, freed by `destroy` with the graph) instead of running it.
VK_SIMT_API int vk_simt_capturing(void);
// Emulated streams (verify_kernel.simt.Stream): the calling OS thread's current stream, which the shadow
// c10::cuda::getCurrentCUDAStream() hands to launch code; launches run synchronously whatever their stream, and their
// records name it (simt.stream_check orders the launches of different streams by the Python-side events).
VK_SIMT_API unsigned long long vk_simt_current_stream(void);
VK_SIMT_API void vk_simt_set_current_stream(unsigned long long s);
VK_SIMT_API int vk_simt_capture_launch(const vk_simt::LaunchDesc* d, void (*destroy)(void*), char* err, size_t errlen);
