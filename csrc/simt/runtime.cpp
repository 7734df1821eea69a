// simt/runtime.cpp - the host SIMT emulator's runtime library (libvk_simt*.so).
//
// One copy per process, shared by every extension built with verify_kernel.simt.load_inline.
// Built by verify_kernel.simt with g++ (-DVK_SIMT_ASAN and -fsanitize=address for the ASan
// variant). Python talks to it through the `vk_simt_*` C functions at the end of this file.
//
// Pieces:
//   * fibers: a hand-rolled x86-64 context switch (callee-saved registers + stack pointer; no
//     system call), ucontext elsewhere; guarded mmap'd stacks, one per CUDA thread of a block;
//   * the block scheduler: a FIFO of runnable fibers; a fiber runs until it waits at a barrier or a
//     warp collective, or exits; waiting fibers are resumed by the thread that completes the wait;
//     when no fiber can run and some have not exited, the block is deadlocked and the launch fails
//     with a description of who waits where;
//   * workers: blocks of a launch are spread over `workers` OS threads (the calling thread is one);
//     each worker has its own fibers, dynamic shared memory and counters;
//   * the CUDA runtime API state the shadow headers need (last error, kernel attributes, device
//     properties) and the trace (per-launch records, per-tensor attribution).
#include "simt/runtime.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <limits>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <signal.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#define VK_SIMT_UCONTEXT 1
#endif

#if defined(VK_SIMT_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// ------------------------------------------------------------------------------------------ builtins
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread uint3 blockDim;
__thread uint3 gridDim;
__thread vk_simt::WorkerView* vk_simt_worker;

namespace vk_simt {
namespace {

constexpr size_t kDynSmemCap = 1u << 20;  // every worker's dynamic shared memory region (1 MiB)
constexpr int kMaxTensors = 32;            // registered tensors in one trace
constexpr int kCudaErrorInvalidValue = 1, kCudaErrorInvalidConfiguration = 9,
              kCudaErrorLaunchFailure = 719, kCudaErrorInvalidDeviceFunction = 98, kCudaErrorInvalidClusterSize = 912;
constexpr unsigned kMaxClusterSize = 8;    // CTAs of a cluster: the portable limit (a non-portable size is not emulated)

// ------------------------------------------------------------------------------------------- fibers
#if !defined(VK_SIMT_UCONTEXT)
extern "C" void vk_simt_ctx_switch(void** save_sp, void* load_sp);
extern "C" void vk_simt_ctx_trampoline();
// Save the callee-saved registers on the current stack, store the stack pointer in *save_sp, load
// load_sp and pop the registers saved there: a function call that returns on another stack.
asm(R"(
  .text
  .globl vk_simt_ctx_switch
  .hidden vk_simt_ctx_switch
  .type vk_simt_ctx_switch,@function
  .p2align 4
vk_simt_ctx_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size vk_simt_ctx_switch, .-vk_simt_ctx_switch

  .globl vk_simt_ctx_trampoline
  .hidden vk_simt_ctx_trampoline
  .type vk_simt_ctx_trampoline,@function
  .p2align 4
vk_simt_ctx_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %r12, %rdi
  callq *%r13
  ud2
  .cfi_endproc
  .size vk_simt_ctx_trampoline, .-vk_simt_ctx_trampoline
)");

struct Ctx { void* sp = nullptr; };
inline void ctx_init(Ctx* c, char* lo, size_t size, void (*fn)(void*), void* arg) {
  uintptr_t top = (reinterpret_cast<uintptr_t>(lo) + size) & ~uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top - 72);  // 6 registers + return address; rsp%16==0 after ret
  sp[0] = nullptr;                                    // r15
  sp[1] = nullptr;                                    // r14
  sp[2] = reinterpret_cast<void*>(fn);                // r13: the function
  sp[3] = arg;                                        // r12: its argument
  sp[4] = nullptr;                                    // rbx
  sp[5] = nullptr;                                    // rbp
  sp[6] = reinterpret_cast<void*>(&vk_simt_ctx_trampoline);
  c->sp = sp;
}
inline void ctx_switch(Ctx* from, Ctx* to) { vk_simt_ctx_switch(&from->sp, to->sp); }
#else
struct Ctx { ucontext_t uc; };
void uc_entry(unsigned hi, unsigned lo, unsigned fhi, unsigned flo) {
  auto fn = reinterpret_cast<void (*)(void*)>((uintptr_t(fhi) << 32) | flo);
  fn(reinterpret_cast<void*>((uintptr_t(hi) << 32) | lo));
}
inline void ctx_init(Ctx* c, char* lo, size_t size, void (*fn)(void*), void* arg) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = lo;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = nullptr;
  uintptr_t a = reinterpret_cast<uintptr_t>(arg), f = reinterpret_cast<uintptr_t>(fn);
  makecontext(&c->uc, reinterpret_cast<void (*)()>(uc_entry), 4, unsigned(a >> 32), unsigned(a),
              unsigned(f >> 32), unsigned(f));
}
inline void ctx_switch(Ctx* from, Ctx* to) { swapcontext(&from->uc, &to->uc); }
#endif

// ------------------------------------------------------------------------------------ device state
VkSimtProps g_props;
std::mutex g_mutex;                                   // props, attributes, names, trace
std::unordered_map<const void*, int> g_max_dyn_smem;  // cudaFuncAttributeMaxDynamicSharedMemorySize
std::unordered_map<const void*, std::string> g_names;
thread_local int t_last_error = 0;
thread_local int t_detail_code = 0;  // the error code t_last_detail describes
thread_local std::string t_last_detail;
thread_local std::string t_error_string;

void set_default_props(VkSimtProps* p) {
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", "NVIDIA RTX PRO 6000 Blackwell (emulated sm_120)");
  p->cc_major = 12; p->cc_minor = 0;
  p->sm_count = 188;
  p->smem_per_block = 48 * 1024;
  p->smem_optin = 101376;
  p->smem_per_sm = 100 * 1024;
  p->max_threads_per_block = 1024;
  p->max_threads_per_sm = 1536;
  p->warps_per_sm = 48;
  p->regs_per_sm = 65536;
  p->regs_per_block = 65536;
  p->max_blocks_per_sm = 32;
  p->l2_bytes = 128 << 20;
  p->global_mem = 96LL << 30;
  p->clock_khz = 2617000;
  p->mem_clock_khz = 14001000;
  p->mem_bus_width = 512;
  unsigned hc = std::thread::hardware_concurrency();
  p->workers = hc ? int(hc < 8 ? hc : 8) : 1;
#if defined(VK_SIMT_ASAN)
  p->workers = 1;  // static __shared__ variables are plain globals in the ASan build
  p->stack_kb = 1024;
#else
  p->stack_kb = 256;
#endif
  p->launch_errors_raise = 1;
  p->poison_smem = 1;
  p->math_mode = 0;
  p->math_seed = 0;
}
struct PropsInit { PropsInit() { set_default_props(&g_props); } } g_props_init;

// -------------------------------------------------------------------------------------------- trace
struct TraceTensor {
  std::string name;
  uintptr_t lo, hi;
  int elsize;
  int32_t* rd;
  int32_t* wr;
};
struct Record;
struct TraceState {
  std::atomic<int> active{0};
  std::vector<TraceTensor> tensors;
  std::vector<Record>* records = nullptr;
  std::atomic<int> sectors{0};   // the sector log is on (vk_simt_sector_log_begin)
} g_trace;
// The sector log (an L2 model's input): per launch and block, the 32-byte global sectors the block touched, each once (its
// first load, its first store), in the order the block first touched them. Gathered from the workers at the end of each launch.
struct SectorTouch { long long launch; int block; int tensor; int store; unsigned long long sector; };
std::vector<SectorTouch> g_sector_log;
std::atomic<long long> g_launches{0};
// math_mode 3: a splitmix64 stream per worker, reseeded at every block from (seed, block index), so a
// launch does not depend on which worker ran which block, and the same launch gives the same bits.
thread_local uint64_t t_math_state = 0;
// Static __shared__ variables of the kernels this OS thread ran (function-local `static thread_local`, registered once each
// per OS thread by the source rewrite, simt.register_static_shared): poisoned (0xFF bytes) at every block start, as a GPU
// block starts with whatever the SM's shared memory held, not with zeros or the previous block's values.
struct SharedRegion { void* p; size_t n; };
thread_local std::vector<SharedRegion> t_shared_regions;
inline uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace
}  // namespace vk_simt

// The per-launch record Python reads (keep in sync with verify_kernel/simt.py: _Record).
struct VkSimtRecord {
  char kernel[256];
  char src[128];
  char site[192];
  long long index;
  unsigned grid[3], block[3];
  long long smem, blocks, threads;
  unsigned long long ld_ops, ld_bytes, st_ops, st_bytes, atomics, barriers, collectives, switches, mma;
  long long wall_ns;
  int workers, ntensors;
  unsigned long long t_ld[32], t_st[32];
  unsigned long long stream;  // the launch's cudaStream_t (emulated: a simt.Stream id; 0 the default stream)
  // dependent-load chain before each CTA's first cp.async (or vk::chain_end): over the CTAs that reach one
  long long chain_max, chain_min, chain_sum, chain_ctas;
  // programmatic dependent launch: whether the launch was one, the deepest chain a CTA had reached at its
  // griddepcontrol.wait (vk::wait_primary_grid; 0: no CTA waited), and the bytes each registered tensor gave to
  // loads issued before the issuing thread's wait (a trace only)
  int programmatic, waited_ctas;
  long long chain_wait_max;
  unsigned long long t_pre[32];
};
struct VkSimtTraceTensor {
  const char* name;
  unsigned long long ptr, nbytes;
  int elsize;
  int32_t* rd;
  int32_t* wr;
};

namespace vk_simt {
namespace {
struct Record : VkSimtRecord {};
Record g_last_record;
bool g_have_last = false;

// ----------------------------------------------------------------------------------------- workers
enum State : int { kRunnable = 0, kWaitBarrier, kWaitColl, kWaitActivemask, kWaitCluster, kExited };

struct AsyncCopy { void* dst; const void* src; int valid; long long group; };

struct Fiber {
  Ctx ctx;
  char* stack_lo = nullptr;
  size_t stack_size = 0;
  uint3 tid;
  int linear = 0, warp = 0, lane = 0;
  int state = kRunnable;
  CollArgs* coll = nullptr;      // the collective this fiber waits in
  const char* file = nullptr;    // where it waits
  int line = 0;
  int bar_result = 0;
  std::vector<AsyncCopy> cp;     // cp.async not yet completed
  long long cp_next_group = 0;   // the id the next commit gives
  // The load chain (issue 30): global loads this thread issued (counted at its switches), and its chain =
  // chain_base + loads since chain_at; joined (max) at barriers and warp collectives; frozen at its first
  // cp.async or vk::chain_end (chain_done).
  unsigned long long loads = 0, ld_mark = 0, chain_at = 0;
  long long chain_base = 0;
  int chain_done = 0;
  long long chain_total = 0;     // the chain it ended with (chain_done)
  int dep_waited = 0;            // passed vk::wait_primary_grid (griddepcontrol.wait)
  long long cl_phase = -1;       // the cluster barrier it arrived at and has not waited for yet (-1: none)
  int cl_arrives = 0, cl_waits = 0;  // cluster barriers it arrived at / waited for (race mode: an access before arrive k
                                     // is ordered before every access after another thread's wait k)
};

struct Group {  // an open warp collective (one per creating lane)
  unsigned mask, arrived;
  int kind, param;
  const char* file;
  int line;
};

struct Worker;
struct Block {
  const LaunchDesc* d = nullptr;
  const char* kname = "";
  int n = 0, nwarps = 0;
  uint3 bidx{0, 0, 0};
  std::vector<int> queue;  // ring of runnable fibers
  int q_head = 0, q_count = 0;
  int exited = 0;
  std::vector<unsigned> warp_gone;     // lanes exited or not existing, per warp
  std::vector<unsigned> warp_missing;  // lanes that do not exist (partial last warp)
  std::vector<unsigned> warp_open;     // creator lanes of open groups, per warp
  std::vector<Group> groups;           // indexed by warp*32 + creator lane
  int bar_arrived = 0, bar_kind = 0, bar_acc = 0, bar_line = 0;
  const char* bar_file = nullptr;
  bool failed = false;
  std::string error;
  int cl_arrived = 0;          // threads that arrived at the cluster barrier (reset once all did)
  int cl_waiting = 0;          // threads waiting at it (kWaitCluster): the scheduler looks for them only when there are some
  long long cl_gen = 0;        // completed cluster barriers of a CTA launched without a cluster
  const char* cl_file = nullptr;
  int cl_line = 0;
  bool peer_failed = false;    // failed because another CTA of its cluster did (that one reports)
};

// Thread-block clusters: the CTAs of one cluster run at once, rank r on the launch's worker r (one OS thread each), and
// meet here: the cluster barrier (every thread of every CTA arrives, then each waits), the ranks' dynamic shared memory
// (mapa), and the gang's rendezvous after each cluster (a CTA's shared memory stays its own until every rank is done).
struct ClusterState {
  std::mutex m;
  std::condition_variable cv;
  int size = 1;
  std::vector<Worker*> ranks;           // the worker running each rank
  std::vector<long long> arrived_gen;   // per rank: the barrier its CTA last completed its arrival at (-1: none)
  std::vector<char> ended;              // per rank: its CTA of the running cluster ended
  long long gen = 0;                    // completed cluster barriers of the running cluster
  int arrived = 0;                      // CTAs whose every thread arrived at barrier `gen`
  int stuck_rank = -1;                  // a CTA that ended without arriving at barrier `gen`: it can never complete
  bool failed = false;                  // a CTA of the running cluster failed
  int gathered = 0;                     // the gang's rendezvous
  long long round = 0;
  bool stop = false;                    // `failed` as the last rendezvous found it (a rank may fail before the others wake)
};

void install_guard_handler();

struct Worker {
  WorkerView view;  // first: vk_simt_worker points here
  int index = 0;
  Ctx sched;
  const void* sched_stack_lo = nullptr;
  size_t sched_stack_size = 0;
  std::vector<Fiber> fibers;
  char* stack_region = nullptr;
  size_t stack_region_bytes = 0, stack_bytes = 0;
  int stack_capacity = 0;
  Fiber* cur = nullptr;
  Block blk;
  long long blocks_run = 0;  // in the current launch
  unsigned long long t_ld[kMaxTensors], t_st[kMaxTensors];
  long long cta_chain = 0;                                      // this block's deepest chain (0: none reached)
  long long chain_max = 0, chain_min = 0, chain_sum = 0, chain_ctas = 0;  // this launch, its blocks on this worker
  long long cta_chain_wait = -1, chain_wait_max = 0;                   // chain at griddepcontrol.wait: this block's, the launch's
  int waited_ctas = 0;
  unsigned long long t_pre[kMaxTensors];                                // loads before the wait, per registered tensor
  int cur_block = 0;                                                    // the linear index of the block it runs
  std::vector<SectorTouch> sectors;                                     // the sector log, this launch's blocks on this worker
  std::unordered_set<unsigned long long> sectors_seen;                  // this block's: sector * 2 + store
  ClusterState* cluster = nullptr;                                      // a cluster launch's (null: no cluster); its rank is `index`
  Worker() {
    memset(&view, 0, sizeof view);
    void* p = mmap(nullptr, kDynSmemCap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { perror("vk_simt: mmap dynamic shared memory"); abort(); }
    view.dyn_smem = static_cast<unsigned char*>(p);
#if defined(VK_SIMT_ASAN)
    __asan_poison_memory_region(view.dyn_smem, kDynSmemCap);
#endif
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* lo; size_t sz;
      pthread_attr_getstack(&attr, &lo, &sz);
      sched_stack_lo = lo; sched_stack_size = sz;
      pthread_attr_destroy(&attr);
    }
    memset(t_ld, 0, sizeof t_ld); memset(t_st, 0, sizeof t_st); memset(t_pre, 0, sizeof t_pre);
    install_guard_handler();
  }
  ~Worker() {
    if (stack_region) munmap(stack_region, stack_region_bytes);
    munmap(view.dyn_smem, kDynSmemCap);
  }
  void ensure_fibers(int n, size_t stack) {
    if (n <= stack_capacity && stack == stack_bytes) return;
    if (stack_region) munmap(stack_region, stack_region_bytes);
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t slot = stack + page;  // guard page below each stack
    int cap = n < 32 ? 32 : n;
    stack_region_bytes = slot * size_t(cap);
    void* p = mmap(nullptr, stack_region_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { perror("vk_simt: mmap fiber stacks"); abort(); }
    stack_region = static_cast<char*>(p);
    fibers.clear();
    fibers.resize(size_t(cap));
    for (int i = 0; i < cap; ++i) {
      char* s = stack_region + size_t(i) * slot;
      mprotect(s, page, PROT_NONE);
      fibers[size_t(i)].stack_lo = s + page;
      fibers[size_t(i)].stack_size = stack;
    }
    stack_capacity = cap;
    stack_bytes = stack;
  }
};

thread_local std::unique_ptr<Worker> t_worker;

// ------------------------------------------------------------------------ fiber stack overflows
// Each fiber stack has a PROT_NONE guard page below it, and extensions are built with
// -fstack-clash-protection (large frames touch every page), so an overflow faults in a guard page.
// This SIGSEGV/SIGBUS handler (on an alternate signal stack: the fiber's own stack is exhausted)
// says which kernel, block and thread overflowed and how to give them more stack, then hands the
// signal to whoever handled it before (Python's faulthandler, the default action: the process
// ends). Not installed in the ASan build (ASan reports stack overflows itself).
struct sigaction g_old_segv, g_old_bus;
void guard_handler(int sig, siginfo_t* si, void* uc) {
  Worker* w = reinterpret_cast<Worker*>(vk_simt_worker);
  const uintptr_t a = reinterpret_cast<uintptr_t>(si->si_addr);
  if (w && w->stack_region && w->cur) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(w->stack_region);
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), slot = w->stack_bytes + page;
    if (a >= lo && a < lo + w->stack_region_bytes && (a - lo) % slot < page) {
      char msg[768];
      const Block& B = w->blk;
      const int n = snprintf(msg, sizeof msg,
                             "vk_simt: stack overflow in kernel '%s' block (%u,%u,%u) thread (%u,%u,%u): the "
                             "fiber stack of %zu KB is too small (verify_kernel.simt.set_device(stack_kb=...))\n",
                             B.kname, B.bidx.x, B.bidx.y, B.bidx.z, w->cur->tid.x, w->cur->tid.y, w->cur->tid.z,
                             w->stack_bytes / 1024);
      if (n > 0) { ssize_t r = write(2, msg, size_t(n) < sizeof msg ? size_t(n) : sizeof msg); (void)r; }
    }
  }
  struct sigaction* old = sig == SIGSEGV ? &g_old_segv : &g_old_bus;
  if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
    old->sa_sigaction(sig, si, uc);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler) {
    old->sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // returning re-executes the faulting access: the default action ends the process
  }
}
void install_guard_handler() {
#if !defined(VK_SIMT_ASAN)
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);
  });
  stack_t cur;  // an alternate signal stack for this OS thread, unless it has one
  if (sigaltstack(nullptr, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    stack_t ss;
    ss.ss_size = 64 * 1024;
    ss.ss_sp = malloc(ss.ss_size);  // kept for the thread's lifetime
    ss.ss_flags = 0;
    if (ss.ss_sp) sigaltstack(&ss, nullptr);
  }
#endif
}
Worker* this_worker() {
  if (!t_worker) t_worker.reset(new Worker());
  return t_worker.get();
}
inline Worker* cur_worker() { return reinterpret_cast<Worker*>(vk_simt_worker); }
#include "simt/racecheck.h"  // race mode (simt.load_inline(..., racecheck=True)): defined in racecheck.inc

// ----------------------------------------------------------------------------- switching (+ ASan)
#if defined(VK_SIMT_ASAN)
inline void switch_ctx(Ctx* from, Ctx* to, const void* to_lo, size_t to_size, bool from_done) {
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(from_done ? nullptr : &fake, to_lo, to_size);
  ctx_switch(from, to);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
}
#else
inline void switch_ctx(Ctx* from, Ctx* to, const void*, size_t, bool) { ctx_switch(from, to); }
#endif

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}
std::string where(const char* file, int line) {
  if (!file) return "";
  const char* base = strrchr(file, '/');
  return fmt(" at %s:%d", base ? base + 1 : file, line);
}
std::string lanes_str(unsigned m) {
  std::string s;
  int shown = 0;
  for (int l = 0; l < 32; ++l)
    if (m >> l & 1) {
      if (shown == 8) { s += ",..."; break; }
      s += (shown ? "," : "") + std::to_string(l);
      ++shown;
    }
  return "{" + s + "}";
}
const char* coll_name(int kind) {
  switch (kind) {
    case kSyncwarp: return "__syncwarp";
    case kShflIdx: return "__shfl_sync";
    case kShflUp: return "__shfl_up_sync";
    case kShflDown: return "__shfl_down_sync";
    case kShflXor: return "__shfl_xor_sync";
    case kBallot: return "__ballot_sync";
    case kAny: return "__any_sync";
    case kAll: return "__all_sync";
    case kMatchAny: return "__match_any_sync";
    case kMatchAll: return "__match_all_sync";
    case kReduceAdd: return "__reduce_add_sync";
    case kReduceMin: case kReduceUMin: return "__reduce_min_sync";
    case kReduceMax: case kReduceUMax: return "__reduce_max_sync";
    case kReduceAnd: return "__reduce_and_sync";
    case kReduceOr: return "__reduce_or_sync";
    case kReduceXor: return "__reduce_xor_sync";
    case kLdmatrix: return "ldmatrix";
    case kMma: return "mma.sync";
  }
  return "warp collective";
}
std::string thread_str(const uint3& t) { return fmt("(%u,%u,%u)", t.x, t.y, t.z); }

inline void make_runnable(Block& B, Fiber& f);

// __activemask(): the lanes waiting at one __activemask call site are released together once no
// thread of the block can run any more - every other lane has exited or waits somewhere else - so
// the mask holds exactly the lanes that reached that site (the converged lanes), as on the GPU.
bool release_activemask(Worker* w) {
  Block& B = w->blk;
  bool any = false;
  for (int i = 0; i < B.n; ++i) {
    Fiber& f = w->fibers[size_t(i)];
    if (f.state != kWaitActivemask) continue;
    unsigned m = 0;
    Fiber* lanes = &w->fibers[size_t(f.warp) * 32];
    for (int l = 0; l < 32 && f.warp * 32 + l < B.n; ++l) {
      const Fiber& o = lanes[l];
      if (o.state == kWaitActivemask && o.line == f.line && (o.file == f.file || strcmp(o.file, f.file) == 0))
        m |= 1u << l;
    }
    for (int l = 0; l < 32; ++l)
      if (m >> l & 1) { lanes[l].bar_result = int(m); make_runnable(B, lanes[l]); }
    any = true;
  }
  return any;
}

// The cluster barriers completed so far in the CTA's cluster (a CTA launched without a cluster: its own).
long long cluster_gen(Worker* w) {
  ClusterState* cs = w->cluster;
  if (!cs) return w->blk.cl_gen;
  std::lock_guard<std::mutex> g(cs->m);
  return cs->gen;
}
// No thread of the block can run and some wait at the cluster barrier. Those whose barrier completed run again. If the
// others wait for the open one and every thread of the block has arrived at it (else the rest wait elsewhere: a deadlock
// the scheduler reports), this OS thread waits for the cluster's other CTAs to arrive, then releases them; a CTA of the
// cluster that failed, or ended without arriving, fails the wait.
void release_cluster_waiters(Worker* w) {
  Block& B = w->blk;
  if (B.cl_waiting == 0) return;
  const long long gen = cluster_gen(w);
  bool ready = false, pending = false;  // waiters whose barrier completed / is barrier `gen`, still open
  for (int i = 0; i < B.n; ++i) {
    Fiber& f = w->fibers[size_t(i)];
    if (f.state != kWaitCluster) continue;
    if (f.cl_phase < gen) { make_runnable(B, f); B.cl_waiting--; ready = true; }
    else pending = true;
  }
  if (ready || !pending || B.cl_arrived != 0) return;  // B.cl_arrived: others of the block wait elsewhere (a deadlock)
  ClusterState* cs = w->cluster;
  if (!cs) return;
  {
    std::unique_lock<std::mutex> lk(cs->m);
    cs->cv.wait(lk, [&] { return cs->gen > gen || cs->failed || cs->stuck_rank >= 0; });
    if (cs->gen <= gen) {
      B.failed = true;
      B.peer_failed = cs->failed;
      B.error = fmt("kernel '%s' block %s: its threads wait at the cluster barrier%s, which can never complete: ", B.kname,
                    thread_str(B.bidx).c_str(), where(B.cl_file, B.cl_line).c_str()) +
                (cs->failed ? std::string("another CTA of the cluster failed")
                            : fmt("the cluster's CTA of rank %d exited without arriving at it (every thread of every CTA of "
                                  "the cluster must reach each cluster barrier)", cs->stuck_rank));
      return;
    }
  }
  for (int i = 0; i < B.n; ++i)
    if (w->fibers[size_t(i)].state == kWaitCluster) { make_runnable(B, w->fibers[size_t(i)]); B.cl_waiting--; }
}

// Pick the next runnable fiber of the block and switch to it, or back to the scheduler when none
// is left. `done`: the current fiber never runs again.
void block_and_switch(Worker* w, bool done) {
  Block& B = w->blk;
  Fiber* from = w->cur;
  Fiber* to = nullptr;
  if (!B.failed && B.q_count == 0) release_activemask(w);
  if (!B.failed && B.q_count == 0) release_cluster_waiters(w);
  if (!B.failed && B.q_count > 0) {
    int i = B.queue[size_t(B.q_head)];
    B.q_head = (B.q_head + 1) % B.n;
    --B.q_count;
    to = &w->fibers[size_t(i)];
  }
  w->view.c.switches++;
  from->loads += w->view.c.ld_ops - from->ld_mark;
  if (to) {
    to->ld_mark = w->view.c.ld_ops;
    w->cur = to;
    threadIdx = to->tid;
    if (to == from) return;  // its own wait was released (a lone waiter): it runs on, no switch
    switch_ctx(&from->ctx, &to->ctx, to->stack_lo, to->stack_size, done);
  } else {
    w->cur = nullptr;
    switch_ctx(&from->ctx, &w->sched, w->sched_stack_lo, w->sched_stack_size, done);
  }
  // resumed: the scheduler wrote threadIdx and cur before switching here
}
inline void make_runnable(Block& B, Fiber& f) {
  f.state = kRunnable;
  B.queue[size_t((B.q_head + B.q_count) % B.n)] = f.linear;
  ++B.q_count;
}

// ---- the load chain (issue 30). A thread's global loads before its first cp.async are counted as one
// dependent chain in program order (an upper bound of the dependency depth: independent loads a thread
// issues back to back count one each); a barrier or a warp collective joins the chains of the threads
// taking part (the deepest wins: what a thread reads after it may depend on any of them).
inline unsigned long long loads_now(Worker* w, const Fiber& f) {
  return f.loads + (&f == w->cur ? w->view.c.ld_ops - f.ld_mark : 0);
}
inline long long chain_of(Worker* w, const Fiber& f) { return f.chain_base + (long long)(loads_now(w, f) - f.chain_at); }
void chain_join(Worker* w, int first, int count, unsigned mask) {
  long long m = 0;
  for (int i = 0; i < count; ++i)
    if (mask >> (i & 31) & 1) { const Fiber& f = w->fibers[size_t(first + i)]; if (!f.chain_done) m = std::max(m, chain_of(w, f)); }
  for (int i = 0; i < count; ++i)
    if (mask >> (i & 31) & 1) {
      Fiber& f = w->fibers[size_t(first + i)];
      if (!f.chain_done) { f.chain_base = m; f.chain_at = loads_now(w, f); }
    }
}
// The thread's chain ends: `extra` counts the round trip that ends it (the cp.async, or the bulk load after a marker).
void chain_end(Worker* w, Fiber& f, long long extra) {
  if (f.chain_done) return;
  f.chain_done = 1;
  f.chain_total = chain_of(w, f) + extra;
  w->cta_chain = std::max(w->cta_chain, f.chain_total);
}

[[noreturn]] void fail_here(Worker* w, const std::string& what) {
  Block& B = w->blk;
  if (!B.failed) {
    B.failed = true;
    B.error = fmt("kernel '%s' block %s thread %s: ", B.kname, thread_str(B.bidx).c_str(),
                  w->cur ? thread_str(w->cur->tid).c_str() : "?") + what;
  }
  w->cur->state = kExited;
  block_and_switch(w, false);  // the scheduler sees B.failed and never resumes this fiber
  __builtin_unreachable();
}

void complete_copies(Fiber& f, long long upto_group, bool all) {
  size_t keep = 0;
  for (size_t i = 0; i < f.cp.size(); ++i) {
    AsyncCopy& c = f.cp[i];
    if (all || (c.group >= 0 && c.group <= upto_group)) {
      if (c.valid) memcpy(c.dst, c.src, 16);
      else memset(c.dst, 0, 16);
      rc_cp_land(cur_worker(), f.linear, f.warp, c.dst);
    } else {
      f.cp[keep++] = c;
    }
  }
  f.cp.resize(keep);
}

void fiber_main(void* arg);

// ------------------------------------------------------------------------------ warp collectives
uint32_t lo32(uint64_t v) { return uint32_t(v); }

// mma.sync's fp32 accumulation, as the emulator computes it. VK_SIMT_MMA (read at every mma, so a process can switch):
//   "exact" (default; unset or empty): the 16 products (exact in double) summed in double with C, rounded once to fp32;
//   "trunc:B:E:T:F": the accumulation measured on V100/T4/A100 (Fasi, Higham, Mikaitis, Pranesh, PeerJ CS 7:e330, 2021):
//     the products of k = 16 taken B at a time (B = 4, 8, 16); C (then the running sum) and the block's products aligned
//     to the largest exponent among them and cut to 24 + E bits below it, T = "rz" toward zero or "rd" toward minus
//     infinity; the cut terms summed exactly; the sum normalized to fp32 by F = "rz" (toward zero) or "rn" (to nearest even).
//   "esum:B:E:T:F": the same, but aligned to the largest of C's exponent and the products' exponent SUMS (e_a + e_b, the
//     product before its normalization: a product of significands in [2, 4) sits one binade above it). "esum:16:2:rz:rz"
//     reproduced every one of 67,584 m16n8k16 outputs of an H200 bitwise (bf16 and fp16 inputs; chapter 80, 2026-12-04).
// The same names and arithmetic as verify_kernel.cli.mma_model, which check step (a) matches against the card.
struct MmaAccumulation { bool exact = true; int block = 16, extra = 0; bool term_floor = false, final_rn = false, exp_sums = false; };

MmaAccumulation mma_accumulation() {
  MmaAccumulation a;
  const char* e = getenv("VK_SIMT_MMA");
  if (!e || !*e || !strcmp(e, "exact")) return a;
  char kind[6] = {0}, term[3] = {0}, fin[3] = {0};
  int B = 0, E = -1;
  if (sscanf(e, "%5[a-z]:%d:%d:%2[a-z]:%2[a-z]", kind, &B, &E, term, fin) != 5 || (strcmp(kind, "trunc") && strcmp(kind, "esum")) ||
      (B != 4 && B != 8 && B != 16) || E < 0 || E > 8 || (strcmp(term, "rz") && strcmp(term, "rd")) || (strcmp(fin, "rz") && strcmp(fin, "rn"))) {
    fprintf(stderr, "simt: VK_SIMT_MMA=%s is not 'exact', 'trunc:B:E:T:F' or 'esum:B:E:T:F' (B 4/8/16, E 0-8, T rz/rd, F rz/rn)\n", e);
    abort();
  }
  a.exact = false; a.block = B; a.extra = E; a.term_floor = !strcmp(term, "rd"); a.final_rn = !strcmp(fin, "rn");
  a.exp_sums = !strcmp(kind, "esum");
  return a;
}

// S * 2^q rounded to fp32 (normal range; the probes and kernels stay there) toward zero or to nearest even.
float round_scaled_to_f32(__int128 S, int q, bool rn) {
  if (S == 0) return 0.0f;
  const bool neg = S < 0;
  unsigned __int128 m = neg ? -(unsigned __int128)S : (unsigned __int128)S;
  int bits = 0;
  for (unsigned __int128 t = m; t; t >>= 1) ++bits;
  if (bits > 24) {
    const int shift = bits - 24;
    unsigned __int128 kept = m >> shift, rest = m & ((((unsigned __int128)1) << shift) - 1), half = ((unsigned __int128)1) << (shift - 1);
    if (rn && (rest > half || (rest == half && (kept & 1)))) kept += 1;
    m = kept; q += shift;
  }
  const double v = std::ldexp(double((unsigned long long)m), q);
  return float(neg ? -v : v);
}

int exponent_of(double v) { int ex; std::frexp(v, &ex); return ex - 1; }   // floor(log2 |v|), v != 0

float mma_truncating_sum(const double (&fa)[16], const double (&fb)[16], double c, const MmaAccumulation& a) {
  double prod[16];
  for (int k = 0; k < 16; ++k) prod[k] = fa[k] * fb[k];   // exact: bf16/fp16 significands multiply within double's 53 bits
  // NaN and infinities propagate as IEEE addition has them (NaN in, or inf - inf: NaN; else the infinity): the alignment
  // below is for finite terms (found by running CUDA-graph padding rows, whose NaN inputs came out as -2^35 without this)
  double nonfinite = c;
  bool any = !std::isfinite(c);
  for (int k = 0; k < 16; ++k) { nonfinite += prod[k]; any |= !std::isfinite(prod[k]); }
  if (any) return float(nonfinite);
  double acc = c;
  for (int s0 = 0; s0 < 16; s0 += a.block) {
    double terms[17]; int n = 0;
    terms[n++] = acc;
    for (int k = s0; k < s0 + a.block; ++k) terms[n++] = prod[k];
    int emax = INT32_MIN;
    if (a.exp_sums) {   // C's exponent and each nonzero product's e_a + e_b
      if (acc != 0) emax = exponent_of(acc);
      for (int k = s0; k < s0 + a.block; ++k)
        if (prod[k] != 0) emax = std::max(emax, exponent_of(fa[k]) + exponent_of(fb[k]));
    } else {
      for (int t = 0; t < n; ++t)
        if (terms[t] != 0) emax = std::max(emax, exponent_of(terms[t]));
    }
    if (emax == INT32_MIN) { acc = 0; continue; }
    const int q = emax - 23 - a.extra;
    __int128 S = 0;
    for (int t = 0; t < n; ++t) {
      const double scaled = std::ldexp(terms[t], -q);          // exact: a power-of-two scaling within double's range
      S += (__int128)(long long)(a.term_floor ? std::floor(scaled) : std::trunc(scaled));
    }
    acc = round_scaled_to_f32(S, q, a.final_rn);
  }
  return float(acc);
}

void compute_group(Worker* w, int warp, const Group& g) {
  Block& B = w->blk;
  Fiber* lanes = &w->fibers[size_t(warp) * 32];
  auto A = [&](int l) -> CollArgs& { return *lanes[l].coll; };
  const unsigned m = g.mask;
  switch (g.kind) {
    case kSyncwarp: break;
    case kShflIdx: case kShflUp: case kShflDown: case kShflXor: {
      const int width = g.param;
      const unsigned segmask = unsigned(32 - width) & 31u;
      const unsigned clamp = g.kind == kShflUp ? 0u : 31u;
      for (int l = 0; l < 32; ++l) {
        if (!(m >> l & 1)) continue;
        const unsigned lane = unsigned(l), bval = unsigned(A(l).b) & 31u;
        const int maxLane = int((lane & segmask) | (clamp & ~segmask));
        const int minLane = int(lane & segmask);
        int j = 0; bool pval = false;
        switch (g.kind) {
          case kShflUp: j = int(lane) - int(bval); pval = j >= maxLane; break;
          case kShflDown: j = int(lane) + int(bval); pval = j <= maxLane; break;
          case kShflXor: j = int(lane ^ bval); pval = j <= maxLane; break;
          default: j = minLane | int(bval & ~segmask); pval = j <= maxLane; break;
        }
        if (!pval) j = l;
        uint64_t v;
        if (m >> j & 1) v = A(j).v;
        else v = ~0ull;  // the source lane does not take part: undefined on the GPU, poison here
        A(l).out[0] = lo32(v);
        A(l).out[1] = uint32_t(v >> 32);
      }
      break;
    }
    case kBallot: case kAny: case kAll: {
      unsigned bal = 0;
      for (int l = 0; l < 32; ++l)
        if ((m >> l & 1) && A(l).b) bal |= 1u << l;
      unsigned r = g.kind == kBallot ? bal : g.kind == kAny ? unsigned(bal != 0) : unsigned(bal == m);
      for (int l = 0; l < 32; ++l)
        if (m >> l & 1) A(l).out[0] = r;
      break;
    }
    case kMatchAny: case kMatchAll: {
      bool all_eq = true;
      int first = __builtin_ctz(m);
      for (int l = 0; l < 32; ++l)
        if ((m >> l & 1) && A(l).v != A(first).v) all_eq = false;
      for (int l = 0; l < 32; ++l) {
        if (!(m >> l & 1)) continue;
        if (g.kind == kMatchAll) {
          A(l).out[0] = all_eq ? m : 0u;
          A(l).out[1] = all_eq ? 1u : 0u;
        } else {
          unsigned same = 0;
          for (int k = 0; k < 32; ++k)
            if ((m >> k & 1) && A(k).v == A(l).v) same |= 1u << k;
          A(l).out[0] = same;
        }
      }
      break;
    }
    case kReduceAdd: case kReduceMin: case kReduceMax: case kReduceUMin: case kReduceUMax:
    case kReduceAnd: case kReduceOr: case kReduceXor: {
      int first = __builtin_ctz(m);
      uint32_t acc = lo32(A(first).v);
      for (int l = first + 1; l < 32; ++l) {
        if (!(m >> l & 1)) continue;
        uint32_t x = lo32(A(l).v);
        switch (g.kind) {
          case kReduceAdd: acc += x; break;
          case kReduceMin: acc = int32_t(x) < int32_t(acc) ? x : acc; break;
          case kReduceMax: acc = int32_t(x) > int32_t(acc) ? x : acc; break;
          case kReduceUMin: acc = x < acc ? x : acc; break;
          case kReduceUMax: acc = x > acc ? x : acc; break;
          case kReduceAnd: acc &= x; break;
          case kReduceOr: acc |= x; break;
          default: acc ^= x; break;
        }
      }
      for (int l = 0; l < 32; ++l)
        if (m >> l & 1) A(l).out[0] = acc;
      break;
    }
    case kLdmatrix: {
      // PTX ISA "ldmatrix": lanes 8i..8i+7 give the row addresses of matrix i (16 bytes each, 8 x
      // b16). Without .trans lane l receives (row l/4, cols 2(l%4), 2(l%4)+1) of matrix i in r[i];
      // with .trans it receives (rows 2(l%4), 2(l%4)+1, col l/4): the transpose.
      const int count = g.param & 0xff;
      const bool trans = (g.param >> 8) & 1;
      for (int i = 0; i < count; ++i)
        for (int r = 0; r < 8; ++r) {
          uintptr_t a = reinterpret_cast<uintptr_t>(A(8 * i + r).ptr);
          if (a % 16) {
            fail_here(w, fmt("ldmatrix%s: lane %d gives row address %p, which is not 16-byte aligned",
                             where(g.file, g.line).c_str(), 8 * i + r, A(8 * i + r).ptr));
          }
        }
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < count; ++i) {
          uint16_t lo, hi;
          if (!trans) {
            const uint16_t* row = static_cast<const uint16_t*>(A(8 * i + l / 4).ptr);
            lo = row[2 * (l % 4)];
            hi = row[2 * (l % 4) + 1];
          } else {
            lo = static_cast<const uint16_t*>(A(8 * i + 2 * (l % 4)).ptr)[l / 4];
            hi = static_cast<const uint16_t*>(A(8 * i + 2 * (l % 4) + 1).ptr)[l / 4];
          }
          A(l).out[i] = uint32_t(lo) | (uint32_t(hi) << 16);
        }
      break;
    }
    case kMma: {
      // PTX ISA "Matrix Fragments for mma.m16n8k16" (.bf16/.f16 inputs, .f32 accumulators),
      // g = lane/4, t = lane%4:
      //   a[0]: A[g][2t..2t+1]  a[1]: A[g+8][2t..2t+1]  a[2]: A[g][2t+8..]  a[3]: A[g+8][2t+8..]
      //   b[0]: B[2t..2t+1][g]  b[1]: B[2t+8..2t+9][g]
      //   c[0..1]: C[g][2t..2t+1]  c[2..3]: C[g+8][2t..2t+1]   (D like C)
      // Products of 16-bit floats are exact in double; the 16 products and C are summed in double
      // and rounded once to fp32 (the hardware's internal accumulation may differ in the last
      // bits: bitwise agreement with a GPU holds when the sums are exact).
      double Am[16][16], Bm[16][8], Cm[16][8];
      auto h2d = [&](uint16_t h) -> double {
        if (g.param == kMmaBf16_16816) {
          uint32_t u = uint32_t(h) << 16; float f; memcpy(&f, &u, 4); return f;
        }
        // IEEE half -> double
        const int s = h >> 15, e = (h >> 10) & 31, mant = h & 1023;
        double v;
        if (e == 0) v = std::ldexp(double(mant), -24);
        else if (e == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
        else v = std::ldexp(double(mant | 1024), e - 25);
        return s ? -v : v;
      };
      for (int l = 0; l < 32; ++l) {
        const int gg = l / 4, t = l % 4;
        const uint32_t* f = A(l).frag;
        auto put = [&](double (&M)[16][16], int r, int c, uint32_t v) {
          M[r][c] = h2d(uint16_t(v)); M[r][c + 1] = h2d(uint16_t(v >> 16));
        };
        put(Am, gg, 2 * t, f[0]);
        put(Am, gg + 8, 2 * t, f[1]);
        put(Am, gg, 2 * t + 8, f[2]);
        put(Am, gg + 8, 2 * t + 8, f[3]);
        Bm[2 * t][gg] = h2d(uint16_t(f[4]));     Bm[2 * t + 1][gg] = h2d(uint16_t(f[4] >> 16));
        Bm[2 * t + 8][gg] = h2d(uint16_t(f[5])); Bm[2 * t + 9][gg] = h2d(uint16_t(f[5] >> 16));
        float c[4];
        memcpy(c, f + 6, 16);
        Cm[gg][2 * t] = c[0]; Cm[gg][2 * t + 1] = c[1];
        Cm[gg + 8][2 * t] = c[2]; Cm[gg + 8][2 * t + 1] = c[3];
      }
      float D[16][8];
      const MmaAccumulation acc = mma_accumulation();
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 8; ++j) {
          if (acc.exact) {
            double s = 0;
            for (int k = 0; k < 16; ++k) s += Am[i][k] * Bm[k][j];
            D[i][j] = float(s + Cm[i][j]);
          } else {
            double fa[16], fb[16];
            for (int k = 0; k < 16; ++k) { fa[k] = Am[i][k]; fb[k] = Bm[k][j]; }
            D[i][j] = mma_truncating_sum(fa, fb, Cm[i][j], acc);
          }
        }
      for (int l = 0; l < 32; ++l) {
        const int gg = l / 4, t = l % 4;
        float d[4] = {D[gg][2 * t], D[gg][2 * t + 1], D[gg + 8][2 * t], D[gg + 8][2 * t + 1]};
        memcpy(A(l).out, d, 16);
      }
      break;
    }
    default: break;
  }
  (void)B;
}

// ----------------------------------------------------------------------------------- the scheduler
void describe_deadlock(Worker* w) {
  Block& B = w->blk;
  std::string s = "deadlock: no thread of the block can proceed (threads that diverged on a "
                  "barrier or a warp collective). ";
  if (B.bar_arrived)
    s += fmt("%d of %d threads wait at __syncthreads%s; ", B.bar_arrived, B.n - B.exited,
             where(B.bar_file, B.bar_line).c_str());
  if (B.cl_arrived)
    s += fmt("%d of %d threads arrived at the cluster barrier%s; ", B.cl_arrived, B.n - B.exited,
             where(B.cl_file, B.cl_line).c_str());
  int shown = 0;
  for (int wp = 0; wp < B.nwarps && shown < 4; ++wp) {
    unsigned open = B.warp_open[size_t(wp)];
    while (open && shown < 4) {
      int c = __builtin_ctz(open);
      open &= open - 1;
      const Group& g = B.groups[size_t(wp) * 32 + size_t(c)];
      unsigned missing = g.mask & ~g.arrived;
      s += fmt("warp %d: lanes %s wait in %s(mask=0x%08x)%s for lanes %s", wp,
               lanes_str(g.arrived).c_str(), coll_name(g.kind), g.mask, where(g.file, g.line).c_str(),
               lanes_str(missing).c_str());
      int l = __builtin_ctz(missing);
      const Fiber& f = w->fibers[size_t(wp) * 32 + size_t(l)];
      if (f.state == kWaitBarrier) s += fmt(" (lane %d waits at __syncthreads%s)", l, where(f.file, f.line).c_str());
      else if (f.state == kWaitColl) s += fmt(" (lane %d waits in %s(mask=0x%08x)%s)", l, coll_name(f.coll->kind), f.coll->mask, where(f.file, f.line).c_str());
      s += "; ";
      ++shown;
    }
  }
  B.failed = true;
  const Fiber* any = nullptr;
  for (int i = 0; i < B.n; ++i)
    if (w->fibers[size_t(i)].state != kExited) { any = &w->fibers[size_t(i)]; break; }
  B.error = fmt("kernel '%s' block %s thread %s: ", B.kname, thread_str(B.bidx).c_str(),
                any ? thread_str(any->tid).c_str() : "?") + s;
}

bool run_block(Worker* w, const LaunchDesc* d, const char* kname, unsigned bl) {
  const unsigned gx = d->grid[0], gy = d->grid[1];
  const uint3 bidx{bl % gx, (bl / gx) % gy, bl / (gx * gy)};
  const int bx = int(d->block[0]), by = int(d->block[1]), bz = int(d->block[2]);
  const int n = bx * by * bz;
  Block& B = w->blk;
  B.d = d; B.kname = kname; B.n = n; B.nwarps = (n + 31) / 32; B.bidx = bidx;
  B.queue.assign(size_t(n), 0);
  B.q_head = 0; B.q_count = 0; B.exited = 0;
  B.warp_gone.assign(size_t(B.nwarps), 0u);
  B.warp_missing.assign(size_t(B.nwarps), 0u);
  B.warp_open.assign(size_t(B.nwarps), 0u);
  B.groups.resize(size_t(B.nwarps) * 32);
  B.bar_arrived = 0; B.bar_file = nullptr; B.bar_line = 0;
  B.failed = false; B.error.clear();
  B.cl_arrived = 0; B.cl_waiting = 0; B.cl_gen = 0; B.cl_file = nullptr; B.cl_line = 0; B.peer_failed = false;
  if (n % 32) {
    unsigned missing = ~0u << (n % 32);
    B.warp_gone.back() = missing;
    B.warp_missing.back() = missing;
  }
  blockIdx = bidx;
  w->cur_block = int(bl);
  if (!w->sectors_seen.empty()) w->sectors_seen.clear();  // (a clear walks every bucket: not at each block once the log is off)
  blockDim = uint3{unsigned(bx), unsigned(by), unsigned(bz)};
  gridDim = uint3{d->grid[0], d->grid[1], d->grid[2]};
  const size_t stack = size_t(g_props.stack_kb) * 1024;
  w->ensure_fibers(B.nwarps * 32, stack);
#if defined(VK_SIMT_ASAN)
  __asan_unpoison_memory_region(w->view.dyn_smem, d->smem);
#endif
  if (d->smem && g_props.poison_smem) memset(w->view.dyn_smem, 0xFF, d->smem);
  if (g_props.poison_smem)
    for (const SharedRegion& r : t_shared_regions) memset(r.p, 0xFF, r.n);
  t_math_state = (uint64_t(g_props.math_seed) << 32) ^ bl;
  for (int i = 0; i < n; ++i) {
    Fiber& f = w->fibers[size_t(i)];
    f.tid = uint3{unsigned(i % bx), unsigned((i / bx) % by), unsigned(i / (bx * by))};
    f.linear = i; f.warp = i / 32; f.lane = i % 32;
    f.state = kRunnable; f.coll = nullptr; f.file = nullptr; f.line = 0;
    f.cp.clear(); f.cp_next_group = 0;
    f.loads = 0; f.ld_mark = 0; f.chain_at = 0; f.chain_base = 0; f.chain_done = 0; f.chain_total = 0; f.dep_waited = 0;
    f.cl_phase = -1; f.cl_arrives = 0; f.cl_waits = 0;
#if defined(VK_SIMT_ASAN) && !defined(VK_SIMT_UCONTEXT)
    // The frames a fiber left when it last switched away for good (exit, failure) never returned,
    // so their redzones are still poisoned: clear [its last stack pointer, top of stack).
    if (f.ctx.sp) {
      char* sp = static_cast<char*>(f.ctx.sp);
      if (sp >= f.stack_lo && sp < f.stack_lo + f.stack_size)
        __asan_unpoison_memory_region(sp, size_t(f.stack_lo + f.stack_size - sp));
    }
#endif
    ctx_init(&f.ctx, f.stack_lo, f.stack_size, fiber_main, &f);
    B.queue[size_t(i)] = i;
  }
  B.q_count = n;
  rc_block_begin(w, bl);
  // run until every fiber exited, one failed, or none can proceed
  Fiber* first = &w->fibers[size_t(B.queue[0])];
  B.q_head = 1 % n; B.q_count = n - 1;
  w->cur = first;
  threadIdx = first->tid;
  w->view.c.switches++;
  w->cta_chain = 0;
  w->cta_chain_wait = -1;
  first->ld_mark = w->view.c.ld_ops;
  switch_ctx(&w->sched, &first->ctx, first->stack_lo, first->stack_size, false);
  if (!B.failed && B.exited < n) describe_deadlock(w);
  if (w->cta_chain > 0) {
    w->chain_min = w->chain_ctas ? std::min(w->chain_min, w->cta_chain) : w->cta_chain;
    w->chain_max = std::max(w->chain_max, w->cta_chain);
    w->chain_sum += w->cta_chain; w->chain_ctas++;
  }
  if (w->cta_chain_wait >= 0) { w->chain_wait_max = std::max(w->chain_wait_max, w->cta_chain_wait); w->waited_ctas++; }
#if defined(VK_SIMT_ASAN)
  __asan_poison_memory_region(w->view.dyn_smem, kDynSmemCap);
#endif
  return !B.failed;
}

void fiber_main(void* arg) {
#if defined(VK_SIMT_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
  Fiber* f = static_cast<Fiber*>(arg);
  Worker* w = cur_worker();
  std::string exc;  // leave the catch block before failing: never switch fibers inside one
  bool threw = false;
  try {
    w->blk.d->entry(w->blk.d->ctx);
  } catch (const std::exception& e) {
    threw = true; exc = e.what();
  } catch (...) {
    threw = true; exc = "(not a std::exception)";
  }
  if (threw) fail_here(w, "C++ exception in the kernel: " + exc);
  Block& B = w->blk;
  complete_copies(*f, 0, true);  // in-flight cp.async land even if the thread never waited
  f->state = kExited;
  B.exited++;
  B.warp_gone[size_t(f->warp)] |= 1u << f->lane;
  if (B.bar_arrived > 0)
    fail_here(w, fmt("exited while %d threads of the block wait at __syncthreads%s (every thread "
                     "must reach each __syncthreads; exiting early is undefined behaviour in CUDA)",
                     B.bar_arrived, where(B.bar_file, B.bar_line).c_str()));
  if (B.cl_arrived > 0)
    fail_here(w, fmt("exited while %d threads of the block have arrived at the cluster barrier%s (every thread must "
                     "arrive at each cluster barrier)", B.cl_arrived, where(B.cl_file, B.cl_line).c_str()));
  unsigned open = B.warp_open[size_t(f->warp)];
  while (open) {
    int c = __builtin_ctz(open);
    open &= open - 1;
    const Group& g = B.groups[size_t(f->warp) * 32 + size_t(c)];
    if (g.mask >> f->lane & 1)
      fail_here(w, fmt("lane %d exited while lanes %s wait for it in %s(mask=0x%08x)%s", f->lane,
                       lanes_str(g.arrived).c_str(), coll_name(g.kind), g.mask,
                       where(g.file, g.line).c_str()));
  }
  block_and_switch(w, true);
  __builtin_unreachable();
}

// --------------------------------------------------------------------------- AddressSanitizer hook
#if defined(VK_SIMT_ASAN)
// Called by ASan after it printed a report (with halt_on_error=0 the program continues): name the
// kernel, block and thread, and fail the launch so the report surfaces as a Python exception.
void asan_report(const char* report) {
  Worker* w = cur_worker();
  if (!w || !w->cur) return;
  Block& B = w->blk;
  const char* p = strstr(report, "AddressSanitizer:");
  const std::string first = p ? std::string(p, strcspn(p, "\n")) : std::string("AddressSanitizer error");
  const std::string who = fmt("kernel '%s' block %s thread %s", B.kname, thread_str(B.bidx).c_str(),
                              thread_str(w->cur->tid).c_str());
  fprintf(stderr, "vk_simt: the AddressSanitizer report above comes from %s\n", who.c_str());
  if (!B.failed) {
    B.failed = true;
    B.error = who + ": " + first + " (the report is on stderr)";
  }
}
struct AsanHook { AsanHook() { __asan_set_error_report_callback(asan_report); } } g_asan_hook;
#endif

// ------------------------------------------------------------------------------------------ launch
struct Job {
  const LaunchDesc* d;
  const char* kname;
  unsigned total;
  std::atomic<unsigned> next{0};
  std::atomic<int> failed{0};
  std::mutex m;
  std::string error;
  std::vector<Worker*> used;
  ClusterState* cluster = nullptr;  // a cluster launch: its gang of workers, one a rank, runs the clusters one after another
  unsigned clusters = 0;
};

struct Pool {
  std::mutex m;
  std::condition_variable cv, done_cv;
  std::vector<std::thread> threads;
  Job* job = nullptr;
  long long gen = 0;
  int wanted = 0, started = 0, finished = 0;
  bool stop = false;
};
// Never destroyed: at process exit the worker threads simply end with the process.
Pool& g_pool = *new Pool;
std::mutex g_launch_mutex;

// The gang's rendezvous: every rank waits for the others. The last to arrive clears the running cluster's state (peers'
// shared memory is reused only after it). Returns false once a CTA failed: the gang stops, all ranks at the same cluster.
bool gang_sync(ClusterState& cs) {
  std::unique_lock<std::mutex> lk(cs.m);
  const long long round = cs.round;
  if (++cs.gathered == cs.size) {
    cs.gathered = 0;
    cs.round++;
    cs.gen = 0; cs.arrived = 0; cs.stuck_rank = -1;
    std::fill(cs.arrived_gen.begin(), cs.arrived_gen.end(), -1LL);
    std::fill(cs.ended.begin(), cs.ended.end(), char(0));
    cs.stop = cs.failed;
    cs.cv.notify_all();
  } else {
    cs.cv.wait(lk, [&] { return cs.round != round; });
  }
  return !cs.stop;
}

// Worker w is rank w->index of every cluster: it runs that CTA of each cluster in turn, its peers at the same time.
void work_clusters(Job* job, Worker* w) {
  ClusterState& cs = *job->cluster;
  const int rank = w->index;
  const LaunchDesc* d = job->d;
  const unsigned cx = d->cluster[0], cy = d->cluster[1];
  const unsigned ncx = d->grid[0] / cx, ncy = d->grid[1] / cy;
  const unsigned rx = unsigned(rank) % cx, ry = (unsigned(rank) / cx) % cy, rz = unsigned(rank) / (cx * cy);
  w->cluster = &cs;
  {
    std::lock_guard<std::mutex> g(cs.m);
    cs.ranks[size_t(rank)] = w;
  }
  bool go = gang_sync(cs);  // every rank known before any CTA maps a peer's shared memory
  for (unsigned c = 0; go && c < job->clusters; ++c) {
    const unsigned ccx = c % ncx, ccy = (c / ncx) % ncy, ccz = c / (ncx * ncy);
    const unsigned bx = ccx * cx + rx, by = ccy * cy + ry, bz = ccz * d->cluster[2] + rz;
    w->blocks_run++;
    const bool ok = run_block(w, d, job->kname, bx + d->grid[0] * (by + d->grid[1] * bz));
    rc_block_end(w);  // race mode: its peers' accesses to its shared memory must be ordered before its end
    {
      std::lock_guard<std::mutex> g(cs.m);
      cs.ended[size_t(rank)] = 1;
      if (!ok) cs.failed = true;
      if (cs.arrived_gen[size_t(rank)] != cs.gen) cs.stuck_rank = rank;  // it can no longer arrive at barrier `gen`
      cs.cv.notify_all();
    }
    if (!ok && !w->blk.peer_failed) {
      std::lock_guard<std::mutex> g(job->m);
      if (!job->failed.exchange(1)) job->error = w->blk.error;
    }
    go = gang_sync(cs);
  }
  w->cluster = nullptr;
}

void work(Job* job, Worker* w) {
  vk_simt_worker = &w->view;
  memset(&w->view.c, 0, sizeof w->view.c);
  memset(w->t_ld, 0, sizeof w->t_ld);
  memset(w->t_st, 0, sizeof w->t_st);
  w->view.attributing = g_trace.active.load() && !g_trace.tensors.empty();
  w->view.programmatic = job->d->programmatic;
  memset(w->t_pre, 0, sizeof w->t_pre);
  w->sectors.clear();
  w->blocks_run = 0;
  w->chain_max = w->chain_min = w->chain_sum = w->chain_ctas = 0;
  w->chain_wait_max = 0; w->waited_ctas = 0;
  if (job->cluster) work_clusters(job, w);
  else
    for (;;) {
      if (job->failed.load(std::memory_order_relaxed)) break;
      unsigned b = job->next.fetch_add(1);
      if (b >= job->total) break;
      w->blocks_run++;
      if (!run_block(w, job->d, job->kname, b)) {
        std::lock_guard<std::mutex> g(job->m);
        if (!job->failed.exchange(1)) job->error = w->blk.error;
      }
    }
  rc_worker_end(w);
  vk_simt_worker = nullptr;
}

void pool_thread(int index) {
  Worker* w = this_worker();
  w->index = index;
  long long seen = 0;
  for (;;) {
    Job* job;
    {
      std::unique_lock<std::mutex> g(g_pool.m);
      g_pool.cv.wait(g, [&] { return g_pool.stop || (g_pool.gen != seen && index <= g_pool.wanted); });
      if (g_pool.stop) return;
      seen = g_pool.gen;
      job = g_pool.job;
      g_pool.started++;
    }
    work(job, w);
    {
      std::lock_guard<std::mutex> g(job->m);
      job->used.push_back(w);
    }
    {
      std::lock_guard<std::mutex> g(g_pool.m);
      g_pool.finished++;
    }
    g_pool.done_cv.notify_all();
  }
}

std::string kernel_name(const LaunchDesc* d) {
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_names.find(d->kernel);
  if (it != g_names.end()) return it->second;
  std::string name = d->src_name ? d->src_name : "?";
  Dl_info info;
  if (dladdr(d->kernel, &info) && info.dli_sname && info.dli_saddr == d->kernel) {
    int status = 0;
    char* dm = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    if (status == 0 && dm) {
      std::string s = dm;
      free(dm);
      // "void ns::k<256>(Params)" -> "ns::k<256>"
      if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (size_t i = s.size(); i-- > 0;) {
          if (s[i] == ')') ++depth;
          else if (s[i] == '(' && --depth == 0) { s.resize(i); break; }
        }
      }
      if (s.rfind("void ", 0) == 0) s = s.substr(5);
      name = s;
    } else if (dm) {
      free(dm);
    }
  }
  g_names[d->kernel] = name;
  return name;
}

}  // namespace
}  // namespace vk_simt

using namespace vk_simt;

// ----------------------------------------------------------------------------- device entry points
VK_SIMT_API int vk_simt_barrier(int kind, int pred, const char* file, int line) {
  Worker* w = cur_worker();
  if (!w) { fprintf(stderr, "vk_simt: __syncthreads called outside a kernel\n"); abort(); }
  Block& B = w->blk;
  Fiber* f = w->cur;
  if (B.exited > 0) {
    int who = -1;
    for (int i = 0; i < B.n && who < 0; ++i)
      if (w->fibers[size_t(i)].state == kExited) who = i;
    fail_here(w, fmt("__syncthreads%s after %d threads of the block exited (e.g. thread %s): every "
                     "thread must reach each __syncthreads (exiting early is undefined behaviour "
                     "in CUDA)", where(file, line).c_str(), B.exited,
                     thread_str(w->fibers[size_t(who)].tid).c_str()));
  }
  if (B.bar_arrived == 0) {
    B.bar_file = file; B.bar_line = line; B.bar_kind = kind;
    B.bar_acc = kind == 2 ? 1 : 0;
  } else if (B.bar_line != line || (B.bar_file != file && strcmp(B.bar_file, file) != 0) ||
             B.bar_kind != kind) {
    fail_here(w, fmt("threads of the block wait at different barriers: this thread at "
                     "__syncthreads%s, %d others at __syncthreads%s (divergent __syncthreads)",
                     where(file, line).c_str(), B.bar_arrived, where(B.bar_file, B.bar_line).c_str()));
  }
  if (kind == 1) B.bar_acc += pred != 0;
  else if (kind == 2) B.bar_acc &= pred != 0;
  else if (kind == 3) B.bar_acc |= pred != 0;
  B.bar_arrived++;
  if (B.bar_arrived == B.n) {
    const int r = B.bar_acc;
    B.bar_arrived = 0;
    w->view.c.barriers++;
    chain_join(w, 0, B.n, 0xffffffffu);
    rc_barrier(w);
    for (int i = 0; i < B.n; ++i) {
      Fiber& o = w->fibers[size_t(i)];
      if (o.state == kWaitBarrier) { o.bar_result = r; make_runnable(B, o); }
    }
    return r;
  }
  f->state = kWaitBarrier; f->file = file; f->line = line;
  block_and_switch(w, false);
  return f->bar_result;
}

VK_SIMT_API void vk_simt_collective(CollArgs* a, const char* file, int line) {
  Worker* w = cur_worker();
  if (!w) { fprintf(stderr, "vk_simt: warp collective called outside a kernel\n"); abort(); }
  Block& B = w->blk;
  Fiber* f = w->cur;
  const unsigned m = a->mask;
  const int wp = f->warp, lane = f->lane;
  if (!(m >> lane & 1))
    fail_here(w, fmt("%s(mask=0x%08x)%s called by lane %d, which is not in the mask", coll_name(a->kind),
                     m, where(file, line).c_str(), lane));
  if ((a->kind == kLdmatrix || a->kind == kMma) && m != 0xffffffffu)
    fail_here(w, fmt("%s%s needs all 32 lanes of the warp (.sync.aligned)", coll_name(a->kind), where(file, line).c_str()));
  if (a->kind >= kShflIdx && a->kind <= kShflXor) {
    const int width = a->param;
    if (width < 1 || width > 32 || (width & (width - 1)))
      fail_here(w, fmt("%s%s: width must be a power of 2 in [1, 32], got %d", coll_name(a->kind),
                       where(file, line).c_str(), width));
  }
  // join the open group with this mask, or open one
  Group* g = nullptr;
  unsigned open = B.warp_open[size_t(wp)];
  while (open) {
    int c = __builtin_ctz(open);
    open &= open - 1;
    Group& cand = B.groups[size_t(wp) * 32 + size_t(c)];
    if (cand.mask == m) { g = &cand; break; }
  }
  if (g) {
    if (g->kind != a->kind || g->param != a->param)
      fail_here(w, fmt("lanes named by mask 0x%08x reached different warp collectives: this lane "
                       "%s%s, lanes %s %s%s", m, coll_name(a->kind), where(file, line).c_str(),
                       lanes_str(g->arrived).c_str(), coll_name(g->kind), where(g->file, g->line).c_str()));
  } else {
    unsigned gone = m & B.warp_gone[size_t(wp)];
    if (gone) {
      unsigned missing = gone & B.warp_missing[size_t(wp)];
      if (missing)
        fail_here(w, fmt("%s(mask=0x%08x)%s names lanes %s, which do not exist (the block has %d "
                         "threads)", coll_name(a->kind), m, where(file, line).c_str(),
                         lanes_str(missing).c_str(), B.n));
      fail_here(w, fmt("%s(mask=0x%08x)%s names lanes %s, which have exited", coll_name(a->kind), m,
                       where(file, line).c_str(), lanes_str(gone).c_str()));
    }
    g = &B.groups[size_t(wp) * 32 + size_t(lane)];
    g->mask = m; g->arrived = 0; g->kind = a->kind; g->param = a->param; g->file = file; g->line = line;
    B.warp_open[size_t(wp)] |= 1u << lane;
  }
  g->arrived |= 1u << lane;
  f->coll = a; f->file = file; f->line = line;
  if (g->arrived == m) {
    const Group done = *g;
    B.warp_open[size_t(wp)] &= ~(1u << int(g - &B.groups[size_t(wp) * 32]));  // close it
    compute_group(w, wp, done);
    chain_join(w, wp * 32, std::min(32, B.n - wp * 32), m);
    rc_collective(w, wp, done.kind, done.param, m, __builtin_return_address(0));
    w->view.c.collectives++;
    w->view.c.mma += done.kind == kMma;
    for (int l = 0; l < 32; ++l) {
      if (!(m >> l & 1) || l == lane) continue;
      Fiber& o = w->fibers[size_t(wp) * 32 + size_t(l)];
      make_runnable(B, o);
    }
    f->coll = nullptr;
    return;
  }
  f->state = kWaitColl;
  block_and_switch(w, false);
  f->coll = nullptr;
}

VK_SIMT_API unsigned vk_simt_activemask(const char* file, int line) {
  Worker* w = cur_worker();
  if (!w) return 0;
  Fiber* f = w->cur;
  f->state = kWaitActivemask; f->file = file; f->line = line;
  block_and_switch(w, false);
  return unsigned(f->bar_result);
}

VK_SIMT_API void vk_simt_note_access(const void* p, size_t bytes, int is_store) {
  Worker* w = cur_worker();
  if (!w) return;
  // A programmatic launch may run before the previous grid on its stream has ended (CUDA programming guide, programmatic
  // dependent launch): until its wait, a store may land before (and be overwritten by) the previous grid's.
  const bool pre_wait = w->view.programmatic && w->cur && !w->cur->dep_waited;
  if (pre_wait && is_store)
    fail_here(w, fmt("global store of %zu bytes at %p before vk::wait_primary_grid (griddepcontrol.wait) in a programmatic "
                     "launch: it can race with the previous grid on the stream", bytes, p));
  if (!w->view.attributing || !g_trace.active.load(std::memory_order_relaxed)) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p), e = a + bytes;
  const size_t nt = g_trace.tensors.size();
  int owner = -1;  // the first registered tensor the access overlaps (the sector log's attribution)
  for (size_t i = 0; i < nt; ++i) {
    const TraceTensor& t = g_trace.tensors[i];
    const uintptr_t lo = a > t.lo ? a : t.lo, hi = e < t.hi ? e : t.hi;
    if (lo >= hi) continue;
    if (owner < 0) owner = int(i);
    (is_store ? w->t_st : w->t_ld)[i] += hi - lo;
    if (pre_wait) w->t_pre[i] += hi - lo;
    int32_t* counts = is_store ? t.wr : t.rd;
    if (!counts) continue;
    const size_t first = (lo - t.lo) / size_t(t.elsize), last = (hi - 1 - t.lo) / size_t(t.elsize);
    for (size_t k = first; k <= last; ++k) __atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
  }
  if (g_trace.sectors.load(std::memory_order_relaxed) && bytes)
    for (unsigned long long s = a >> 5; s <= (e - 1) >> 5; ++s)  // 32-byte sectors (simt.SECTOR_BYTES)
      if (w->sectors_seen.insert(s * 2 + unsigned(is_store != 0)).second)
        w->sectors.push_back(SectorTouch{0, w->cur_block, owner, is_store != 0, s});
}

VK_SIMT_API void vk_simt_cp_async(void* smem, const void* gmem, int valid) {
  Worker* w = cur_worker();
  if (!w) { fprintf(stderr, "vk_simt: cp.async called outside a kernel\n"); abort(); }
  if ((reinterpret_cast<uintptr_t>(smem) | (valid ? reinterpret_cast<uintptr_t>(gmem) : 0)) % 16)
    fail_here(w, fmt("cp_async_16: addresses must be 16-byte aligned (shared %p, global %p)", smem, gmem));
  rc_cp_issue(w, smem, gmem, valid, __builtin_return_address(0));
  chain_end(w, *w->cur, valid ? 0 : 1);  // a valid copy's 16-byte load was counted already
  w->cur->cp.push_back(AsyncCopy{smem, gmem, valid, -1});
}
VK_SIMT_API void vk_simt_chain_end(void) {
  Worker* w = cur_worker();
  if (w && w->cur) chain_end(w, *w->cur, 1);
}
VK_SIMT_API void vk_simt_grid_dependency_wait(void) {
  Worker* w = cur_worker();
  if (!w || !w->cur) return;
  Fiber& f = *w->cur;
  if (f.dep_waited) return;
  // the chain so far; a chain that ended before the wait lies before it whole
  w->cta_chain_wait = std::max(w->cta_chain_wait, f.chain_done ? f.chain_total : chain_of(w, f));
  f.dep_waited = 1;
}
VK_SIMT_API void vk_simt_cp_async_commit(void) {
  Worker* w = cur_worker();
  if (!w) return;
  Fiber* f = w->cur;
  const long long id = f->cp_next_group++;
  for (AsyncCopy& c : f->cp)
    if (c.group < 0) c.group = id;
}
VK_SIMT_API void vk_simt_cp_async_wait(int n) {
  Worker* w = cur_worker();
  if (!w) return;
  Fiber* f = w->cur;
  complete_copies(*f, f->cp_next_group - 1 - n, false);
}

// ---- thread-block clusters
VK_SIMT_API void vk_simt_cluster_dims(unsigned* dims) {
  Worker* w = cur_worker();
  const unsigned* c = (w && w->blk.d) ? w->blk.d->cluster : nullptr;
  const bool on = c && (c[0] | c[1] | c[2]);
  for (int i = 0; i < 3; ++i) dims[i] = on ? c[i] : 1u;
}
namespace vk_simt { namespace {
Worker* cluster_caller(const char* what) {
  Worker* w = cur_worker();
  if (!w || !w->cur) { fprintf(stderr, "vk_simt: %s called outside a kernel\n", what); abort(); }
  return w;
}
}}  // namespace vk_simt::{anonymous}
VK_SIMT_API void vk_simt_cluster_arrive(const char* file, int line) {
  Worker* w = cluster_caller("__cluster_barrier_arrive");
  Block& B = w->blk;
  Fiber* f = w->cur;
  if (f->cl_phase >= 0)
    fail_here(w, fmt("__cluster_barrier_arrive%s: the thread arrived before and has not waited since "
                     "(__cluster_barrier_wait)", where(file, line).c_str()));
  if (B.exited > 0)
    fail_here(w, fmt("cluster barrier%s after %d threads of the block exited: every thread of every CTA of the cluster "
                     "must arrive at each cluster barrier", where(file, line).c_str(), B.exited));
  if (B.cl_arrived == 0) { B.cl_file = file; B.cl_line = line; }
  f->cl_phase = cluster_gen(w);
  f->cl_arrives++;
  if (++B.cl_arrived < B.n) return;
  B.cl_arrived = 0;  // the whole CTA arrived: its arrival counts for the cluster
  chain_join(w, 0, B.n, 0xffffffffu);
  ClusterState* cs = w->cluster;
  if (!cs) { B.cl_gen++; return; }
  std::lock_guard<std::mutex> g(cs->m);
  cs->arrived_gen[size_t(w->index)] = cs->gen;
  if (++cs->arrived == cs->size) {
    cs->arrived = 0;
    cs->gen++;
    cs->cv.notify_all();
  }
}
VK_SIMT_API void vk_simt_cluster_wait(const char* file, int line) {
  Worker* w = cluster_caller("__cluster_barrier_wait");
  Fiber* f = w->cur;
  if (f->cl_phase < 0)
    fail_here(w, fmt("__cluster_barrier_wait%s without a __cluster_barrier_arrive before it", where(file, line).c_str()));
  while (cluster_gen(w) <= f->cl_phase) {
    f->state = kWaitCluster; f->file = file; f->line = line;
    w->blk.cl_waiting++;
    block_and_switch(w, false);  // resumed once the cluster's CTAs all arrived (release_cluster_waiters)
  }
  f->cl_phase = -1;
  f->cl_waits++;
}
VK_SIMT_API void* vk_simt_cluster_map_shared(const void* p, unsigned rank, const char* file, int line) {
  Worker* w = cluster_caller("__cluster_map_shared_rank");
  const Block& B = w->blk;
  ClusterState* cs = w->cluster;
  const int size = cs ? cs->size : 1;
  if (rank >= unsigned(size))
    fail_here(w, fmt("__cluster_map_shared_rank%s: rank %u, but the cluster has %d CTAs", where(file, line).c_str(), rank, size));
  const unsigned char* q = static_cast<const unsigned char*>(p);
  if (q < w->view.dyn_smem || q >= w->view.dyn_smem + B.d->smem)
    fail_here(w, fmt("__cluster_map_shared_rank%s: %p is not in the CTA's dynamic shared memory (%zu bytes at %p; the "
                     "emulator maps dynamic shared memory only)", where(file, line).c_str(), p, B.d->smem,
                     static_cast<void*>(w->view.dyn_smem)));
  if (!cs) return const_cast<unsigned char*>(q);
  Worker* peer;
  bool ended;
  {
    std::lock_guard<std::mutex> g(cs->m);  // (never fail holding it: a failing fiber never returns)
    ended = cs->ended[rank] != 0;
    peer = cs->ranks[rank];
  }
  if (ended)
    fail_here(w, fmt("__cluster_map_shared_rank%s: the cluster's CTA of rank %u has exited: its shared memory is gone "
                     "(a cluster barrier before a CTA exits keeps it for the others)", where(file, line).c_str(), rank));
  return peer->view.dyn_smem + (q - w->view.dyn_smem);
}
VK_SIMT_API unsigned vk_simt_cluster_query_shared_rank(const void* p, const char* file, int line) {
  Worker* w = cluster_caller("__cluster_query_shared_rank");
  const unsigned char* q = static_cast<const unsigned char*>(p);
  const size_t n = w->blk.d->smem;
  ClusterState* cs = w->cluster;
  if (!cs) {
    if (q >= w->view.dyn_smem && q < w->view.dyn_smem + n) return 0;
  } else {
    for (int r = 0; r < cs->size; ++r)
      if (q >= cs->ranks[size_t(r)]->view.dyn_smem && q < cs->ranks[size_t(r)]->view.dyn_smem + n) return unsigned(r);
  }
  fail_here(w, fmt("__cluster_query_shared_rank%s: %p is in no CTA's dynamic shared memory of the cluster", where(file, line).c_str(), p));
}

VK_SIMT_API void vk_simt_fail(const char* what, const char* file, int line) {
  Worker* w = cur_worker();
  if (!w || !w->cur) {
    fprintf(stderr, "vk_simt: %s%s\n", what, where(file, line).c_str());
    abort();
  }
  fail_here(w, std::string(what) + where(file, line));
}

VK_SIMT_API void vk_simt_assert_fail(const char* expr, const char* file, int line) {
  Worker* w = cur_worker();
  if (!w || !w->cur) {
    fprintf(stderr, "%s:%d: Assertion `%s' failed.\n", file, line, expr);
    abort();
  }
  fail_here(w, fmt("assertion `%s' failed%s", expr, where(file, line).c_str()));
}

thread_local unsigned long long t_current_stream = 0;
VK_SIMT_API unsigned long long vk_simt_current_stream(void) { return t_current_stream; }
VK_SIMT_API void vk_simt_set_current_stream(unsigned long long s) { t_current_stream = s; }

VK_SIMT_API int vk_simt_shared_region(void* p, unsigned long n) {
  t_shared_regions.push_back(SharedRegion{p, size_t(n)});
  if (g_props.poison_smem) memset(p, 0xFF, n);  // the first block that declares it (later blocks: run_block)
  return 1;
}
VK_SIMT_API int vk_simt_shared_regions(void) { return int(t_shared_regions.size()); }

// -fsanitize=alignment (simt.FIDELITY_FLAGS) without libubsan: GCC's instrumentation calls these on a load, store or reference
// binding through a pointer not aligned to its type (a float4 cast of a shared pointer 4 bytes off). A GPU faults there (a
// sticky misaligned-address error); here the launch fails naming the kernel, block, thread, source line and address.
struct UbsanLoc { const char* file; unsigned line, column; };
struct UbsanType { unsigned short kind, info; char name[1]; };
struct UbsanMismatch { UbsanLoc loc; const UbsanType* type; unsigned char log_align, check_kind; };
static void ubsan_mismatch(const UbsanMismatch* d, uintptr_t ptr) {
  static const char* kinds[] = {"load of", "store to", "reference binding to", "member access within", "member call on",
                                "constructor call on", "downcast of", "downcast of", "upcast of", "cast to virtual base of",
                                "_Nonnull binding to", "dynamic operation on"};
  const uintptr_t align = uintptr_t(1) << d->log_align;
  const char* kind = d->check_kind < sizeof kinds / sizeof *kinds ? kinds[d->check_kind] : "access to";
  const char* ty = d->type ? d->type->name : "?";
  std::string msg;
  if (!ptr) msg = fmt("%s null pointer of type %s", kind, ty);
  else if (ptr & (align - 1)) msg = fmt("misaligned address 0x%llx: %s type %s, which needs %zu-byte alignment (a GPU faults: misaligned address)",
                                          (unsigned long long)ptr, kind, ty, size_t(align));
  else msg = fmt("%s address 0x%llx with insufficient space for type %s", kind, (unsigned long long)ptr, ty);
  Worker* w = cur_worker();
  if (!w || !w->cur) throw std::runtime_error("vk_simt: " + msg + where(d->loc.file, int(d->loc.line)));  // host code of an extension
  fail_here(w, msg + where(d->loc.file, int(d->loc.line)));
}
VK_SIMT_API void __ubsan_handle_type_mismatch_v1(const UbsanMismatch* d, uintptr_t ptr) { ubsan_mismatch(d, ptr); }
VK_SIMT_API void __ubsan_handle_type_mismatch_v1_abort(const UbsanMismatch* d, uintptr_t ptr) { ubsan_mismatch(d, ptr); }

VK_SIMT_API int vk_simt_func_set_max_dyn_smem(const void* kernel, int bytes) {
  std::lock_guard<std::mutex> g(g_mutex);
  if (bytes < 0 || bytes > g_props.smem_optin) {
    vk_simt_set_last_error(kCudaErrorInvalidValue, fmt("cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, %d): the "
                        "emulated device (%s) allows at most %d bytes per block", bytes,
                        g_props.name, g_props.smem_optin).c_str());
    return kCudaErrorInvalidValue;
  }
  g_max_dyn_smem[kernel] = bytes;
  return 0;
}
VK_SIMT_API int vk_simt_func_get_max_dyn_smem(const void* kernel) {
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_max_dyn_smem.find(kernel);
  return it == g_max_dyn_smem.end() ? g_props.smem_per_block : it->second;
}
VK_SIMT_API int vk_simt_get_last_error(int clear) {
  int e = t_last_error;
  if (clear) t_last_error = 0;
  return e;
}
VK_SIMT_API void vk_simt_set_last_error(int code, const char* detail) {
  t_last_error = code;
  t_detail_code = code;
  t_last_detail = detail ? detail : "";
}
VK_SIMT_API const char* vk_simt_error_string(int code, int name_only) {
  struct E { int code; const char* name; const char* text; };
  static const E table[] = {
      {0, "cudaSuccess", "no error"},
      {1, "cudaErrorInvalidValue", "invalid argument"},
      {2, "cudaErrorMemoryAllocation", "out of memory"},
      {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
      {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
      {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
      {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
      {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
      {710, "cudaErrorAssert", "device-side assert triggered"},
      {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
  };
  const E* e = nullptr;
  for (const E& x : table)
    if (x.code == code) e = &x;
  if (name_only) return e ? e->name : "cudaErrorUnknown";
  t_error_string = e ? e->text : fmt("CUDA error %d", code);
  if (code != 0 && code == t_detail_code && !t_last_detail.empty()) t_error_string += " (" + t_last_detail + ")";
  return t_error_string.c_str();
}
VK_SIMT_API const char* vk_simt_last_error_detail(void) { return t_last_detail.c_str(); }
VK_SIMT_API int vk_simt_launch_errors_raise(void) { return g_props.launch_errors_raise; }

VK_SIMT_API float vk_simt_math_model(float exact, int max_ulp, float max_abs) {
  const int mode = g_props.math_mode;
  if (mode == 0 || !std::isfinite(exact) || exact == 0.0f || (max_ulp <= 0 && !(max_abs > 0.0f))) return exact;
  double u = 1.0;  // the fraction of the documented error applied, in [-1, 1]
  if (mode == 2) u = -1.0;
  else if (mode == 3) u = double(int64_t(splitmix64(t_math_state) >> 11) - (int64_t(1) << 52)) / double(int64_t(1) << 52);
  if (max_abs > 0.0f) return float(double(exact) + u * double(max_abs));
  const int steps = int(std::lround(u * max_ulp));
  float r = exact;
  for (int k = 0; k < (steps < 0 ? -steps : steps); ++k) r = std::nextafter(r, steps < 0 ? -HUGE_VALF : HUGE_VALF);
  return r;
}

VK_SIMT_API void vk_simt_get_props(VkSimtProps* p) {
  std::lock_guard<std::mutex> g(g_mutex);
  *p = g_props;
}
VK_SIMT_API int vk_simt_set_props(const VkSimtProps* p, char* err, size_t errlen) {
  std::string e;
  if (p->sm_count < 1) e = "sm_count must be >= 1";
  else if (p->smem_optin < p->smem_per_block) e = "smem_optin must be >= smem_per_block";
  else if (size_t(p->smem_optin) > kDynSmemCap) e = fmt("smem_optin must be <= %zu", kDynSmemCap);
  else if (p->max_threads_per_block < 1 || p->max_threads_per_block > 1024) e = "max_threads_per_block must be in [1, 1024]";
  else if (p->workers < 1 || p->workers > 256) e = "workers must be in [1, 256]";
  else if (p->stack_kb < 16 || p->stack_kb > 65536) e = "stack_kb must be in [16, 65536]";
  else if (p->math_mode < 0 || p->math_mode > 3) e = "math_mode must be 0 (exact), 1 (max_up), 2 (max_down) or 3 (max_random)";
#if defined(VK_SIMT_ASAN)
  else if (p->workers != 1) e = "the AddressSanitizer build runs blocks on one worker (workers=1)";
#endif
  if (!e.empty()) { snprintf(err, errlen, "%s", e.c_str()); return 1; }
  std::lock_guard<std::mutex> g(g_mutex);
  g_props = *p;
  g_props.name[sizeof g_props.name - 1] = 0;
  return 0;
}

VK_SIMT_API int vk_simt_launch(const LaunchDesc* d, char* err, size_t errlen) {
  std::lock_guard<std::mutex> launch_lock(g_launch_mutex);
  if (vk_simt_worker) {
    snprintf(err, errlen, "kernel launch from inside a kernel (dynamic parallelism) is not emulated");
    return kCudaErrorLaunchFailure;
  }
  VkSimtProps P;
  vk_simt_get_props(&P);
  const std::string name = kernel_name(d);
  const unsigned* g = d->grid;
  const unsigned* b = d->block;
  const unsigned long long threads = 1ull * b[0] * b[1] * b[2];
  const unsigned long long blocks = 1ull * g[0] * g[1] * g[2];
  const unsigned* cd = d->cluster;
  const bool clustered = cd[0] || cd[1] || cd[2];
  const unsigned long long cluster_size = clustered ? 1ull * cd[0] * cd[1] * cd[2] : 1;
  std::string bad;
  int code = 0;
  if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2]) {
    bad = "grid and block dimensions must be >= 1"; code = kCudaErrorInvalidConfiguration;
  } else if (b[0] > 1024 || b[1] > 1024 || b[2] > 64 || threads > unsigned(P.max_threads_per_block)) {
    bad = fmt("block (%u,%u,%u) has %llu threads; the device allows at most %d threads per block "
              "(x, y <= 1024, z <= 64)", b[0], b[1], b[2], threads, P.max_threads_per_block);
    code = kCudaErrorInvalidConfiguration;
  } else if (g[0] > 2147483647u || g[1] > 65535 || g[2] > 65535) {
    bad = fmt("grid (%u,%u,%u) exceeds (2^31-1, 65535, 65535)", g[0], g[1], g[2]);
    code = kCudaErrorInvalidConfiguration;
  } else if (clustered && (!cd[0] || !cd[1] || !cd[2])) {
    bad = fmt("cluster dims (%u,%u,%u) must all be >= 1", cd[0], cd[1], cd[2]); code = kCudaErrorInvalidClusterSize;
  } else if (clustered && P.cc_major < 9) {
    bad = fmt("thread-block clusters need compute capability 9.0 or later; %s is %d.%d", P.name, P.cc_major, P.cc_minor);
    code = kCudaErrorInvalidConfiguration;
  } else if (clustered && (g[0] % cd[0] || g[1] % cd[1] || g[2] % cd[2])) {
    bad = fmt("grid (%u,%u,%u) is not a multiple of the cluster dims (%u,%u,%u)", g[0], g[1], g[2], cd[0], cd[1], cd[2]);
    code = kCudaErrorInvalidClusterSize;
  } else if (clustered && cluster_size > kMaxClusterSize) {
    bad = fmt("a cluster of %llu CTAs (%u,%u,%u): at most %u (the portable size; a non-portable size is not emulated)",
              cluster_size, cd[0], cd[1], cd[2], kMaxClusterSize);
    code = kCudaErrorInvalidClusterSize;
#if defined(VK_SIMT_ASAN)
  } else if (cluster_size > 1) {
    bad = "the AddressSanitizer build runs one worker (its static __shared__ variables are globals): a cluster of more "
          "than one CTA cannot run there";
    code = kCudaErrorInvalidConfiguration;
#endif
  } else {
    int limit = vk_simt_func_get_max_dyn_smem(d->kernel);
    if (limit > P.smem_optin) limit = P.smem_optin;  // an opt-in made for another emulated device
    if (d->smem > size_t(limit)) {
      bad = fmt("%zu bytes of dynamic shared memory requested; the kernel may use %d bytes (default "
                "%d without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize); "
                "at most %d on %s)", d->smem, limit, P.smem_per_block, P.smem_optin, P.name);
      code = kCudaErrorInvalidValue;
    }
  }
  if (code) {
    std::string msg = fmt("launch of kernel '%s'%s with grid (%u,%u,%u) block (%u,%u,%u) smem %zu: ",
                          name.c_str(), where(d->file, d->line).c_str(), g[0], g[1], g[2], b[0], b[1],
                          b[2], d->smem) + bad;
    vk_simt_set_last_error(code, msg.c_str());
    snprintf(err, errlen, "%s", msg.c_str());
    return code;
  }
  // run the blocks
  rc_launch_begin(d, name.c_str());
  Job job;
  job.d = d;
  job.kname = name.c_str();
  job.total = unsigned(blocks);
  int nw = P.workers;
  if ((unsigned long long)nw > blocks) nw = int(blocks);
  ClusterState cluster;
  if (cluster_size > 1) {  // one worker a rank, whatever P.workers says: a cluster's CTAs run at once
    cluster.size = int(cluster_size);
    cluster.ranks.assign(size_t(cluster_size), nullptr);
    cluster.arrived_gen.assign(size_t(cluster_size), -1LL);
    cluster.ended.assign(size_t(cluster_size), char(0));
    job.cluster = &cluster;
    job.clusters = unsigned(blocks / cluster_size);
    nw = int(cluster_size);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Worker* self = this_worker();
  if (nw > 1) {
    std::unique_lock<std::mutex> lk(g_pool.m);
    while (int(g_pool.threads.size()) < nw - 1) {
      int index = int(g_pool.threads.size()) + 1;
      g_pool.threads.emplace_back(pool_thread, index);
    }
    g_pool.job = &job;
    g_pool.wanted = nw - 1;
    g_pool.started = 0;
    g_pool.finished = 0;
    g_pool.gen++;
    lk.unlock();
    g_pool.cv.notify_all();
  }
  work(&job, self);
  {
    std::lock_guard<std::mutex> lk(job.m);
    job.used.push_back(self);
  }
  if (nw > 1) {
    std::unique_lock<std::mutex> lk(g_pool.m);
    g_pool.done_cv.wait(lk, [&] { return g_pool.finished == nw - 1; });
    g_pool.job = nullptr;
  }
  const std::string race = rc_launch_end(job.used);
  const long long wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - t0).count();
  // the record
  Record r;
  memset(static_cast<VkSimtRecord*>(&r), 0, sizeof(VkSimtRecord));
  snprintf(r.kernel, sizeof r.kernel, "%s", name.c_str());
  snprintf(r.src, sizeof r.src, "%s", d->src_name ? d->src_name : "");
  snprintf(r.site, sizeof r.site, "%s:%d", d->file ? d->file : "?", d->line);
  r.index = g_launches.fetch_add(1);
  for (int i = 0; i < 3; ++i) { r.grid[i] = g[i]; r.block[i] = b[i]; }
  r.smem = (long long)d->smem;
  r.stream = d->stream;
  r.programmatic = d->programmatic;
  r.blocks = (long long)blocks;
  r.threads = (long long)(blocks * threads);
  r.wall_ns = wall;
  r.workers = 0;  // workers that ran at least one block
  for (Worker* w : job.used) {
    r.workers += w->blocks_run > 0;
    const Counters& c = w->view.c;
    r.ld_ops += c.ld_ops; r.ld_bytes += c.ld_bytes; r.st_ops += c.st_ops; r.st_bytes += c.st_bytes;
    r.atomics += c.atomics; r.barriers += c.barriers; r.collectives += c.collectives;
    r.switches += c.switches; r.mma += c.mma;
    for (int i = 0; i < kMaxTensors; ++i) { r.t_ld[i] += w->t_ld[i]; r.t_st[i] += w->t_st[i]; r.t_pre[i] += w->t_pre[i]; }
    r.chain_wait_max = std::max(r.chain_wait_max, w->chain_wait_max); r.waited_ctas += w->waited_ctas;
    if (w->chain_ctas) {
      r.chain_min = r.chain_ctas ? std::min(r.chain_min, w->chain_min) : w->chain_min;
      r.chain_max = std::max(r.chain_max, w->chain_max);
      r.chain_sum += w->chain_sum; r.chain_ctas += w->chain_ctas;
    }
  }
  {
    std::lock_guard<std::mutex> lk(g_mutex);
    r.ntensors = int(g_trace.tensors.size());
    if (g_trace.sectors.load())
      for (Worker* w : job.used)
        for (SectorTouch t : w->sectors) { t.launch = r.index; g_sector_log.push_back(t); }
    g_last_record = r;
    g_have_last = true;
    if (g_trace.active.load() && g_trace.records) g_trace.records->push_back(r);
  }
  if (job.failed.load()) {
    std::string msg = job.error;
    vk_simt_set_last_error(kCudaErrorLaunchFailure, msg.c_str());
    snprintf(err, errlen, "%s", msg.c_str());
    return kCudaErrorLaunchFailure;
  }
  if (!race.empty()) {  // race mode found hazards: the launch completed, and fails with the report
    vk_simt_set_last_error(kCudaErrorLaunchFailure, race.c_str());
    snprintf(err, errlen, "%s", race.c_str());
    return kCudaErrorLaunchFailure;
  }
  return 0;
}

// ----------------------------------------------------------------------------- Python (ctypes) API
#include "simt/racecheck.inc"  // the race checker and the -fsanitize=thread entry points it defines

static std::vector<Record> g_records_store;

VK_SIMT_API int vk_simt_abi_version(void) { return 1; }
VK_SIMT_API int vk_simt_is_asan(void) {
#if defined(VK_SIMT_ASAN)
  return 1;
#else
  return 0;
#endif
}
VK_SIMT_API int vk_simt_record_size(void) { return int(sizeof(VkSimtRecord)); }
VK_SIMT_API int vk_simt_props_size(void) { return int(sizeof(VkSimtProps)); }

VK_SIMT_API int vk_simt_trace_begin(int n, const VkSimtTraceTensor* t, char* err, size_t errlen) {
  std::lock_guard<std::mutex> g(g_mutex);
  if (g_trace.active.load()) { snprintf(err, errlen, "a trace is already active (traces do not nest)"); return 1; }
  if (n > kMaxTensors) { snprintf(err, errlen, "at most %d tensors can be registered", kMaxTensors); return 1; }
  g_trace.tensors.clear();
  for (int i = 0; i < n; ++i)
    g_trace.tensors.push_back(TraceTensor{t[i].name, uintptr_t(t[i].ptr), uintptr_t(t[i].ptr + t[i].nbytes),
                                          t[i].elsize, t[i].rd, t[i].wr});
  g_records_store.clear();
  g_trace.records = &g_records_store;
  g_trace.active.store(1);
  return 0;
}
VK_SIMT_API void vk_simt_trace_end(void) {
  std::lock_guard<std::mutex> g(g_mutex);
  g_trace.active.store(0);
  g_trace.sectors.store(0);
  g_trace.tensors.clear();
}
// The sector log of the active trace: on from here (cleared) until the trace ends; read with vk_simt_sector_log_read.
VK_SIMT_API int vk_simt_sector_log_begin(void) {
  std::lock_guard<std::mutex> g(g_mutex);
  if (!g_trace.active.load()) return 1;
  g_sector_log.clear();
  g_trace.sectors.store(1);
  return 0;
}
VK_SIMT_API long long vk_simt_sector_log_size(void) {
  std::lock_guard<std::mutex> g(g_mutex);
  return (long long)g_sector_log.size();
}
// Copies the log into `out` as n rows of 5 int64 (launch index, block, tensor (-1: none registered), store, sector = address / 32).
VK_SIMT_API long long vk_simt_sector_log_read(long long* out, long long n) {
  std::lock_guard<std::mutex> g(g_mutex);
  const long long m = std::min(n, (long long)g_sector_log.size());
  for (long long i = 0; i < m; ++i) {
    const SectorTouch& t = g_sector_log[size_t(i)];
    long long* o = out + 5 * i;
    o[0] = t.launch; o[1] = t.block; o[2] = t.tensor; o[3] = t.store; o[4] = (long long)t.sector;
  }
  return m;
}
VK_SIMT_API int vk_simt_trace_count(void) {
  std::lock_guard<std::mutex> g(g_mutex);
  return int(g_records_store.size());
}
VK_SIMT_API int vk_simt_trace_record(int i, VkSimtRecord* out) {
  std::lock_guard<std::mutex> g(g_mutex);
  if (i < 0 || size_t(i) >= g_records_store.size()) return 1;
  *out = g_records_store[size_t(i)];
  return 0;
}
VK_SIMT_API int vk_simt_last_record(VkSimtRecord* out) {
  std::lock_guard<std::mutex> g(g_mutex);
  if (!g_have_last) return 1;
  *out = g_last_record;
  return 0;
}
VK_SIMT_API long long vk_simt_launch_total(void) { return g_launches.load(); }

// Cost of one fiber switch: two fibers hand control to each other `iters` times.
namespace {
struct PingPong { Ctx main, a, b; long long left; };
PingPong* g_pp;
char* g_pp_stack;
void pp_a(void*) { for (;;) { if (--g_pp->left <= 0) ctx_switch(&g_pp->a, &g_pp->main); ctx_switch(&g_pp->a, &g_pp->b); } }
void pp_b(void*) { for (;;) ctx_switch(&g_pp->b, &g_pp->a); }
}  // namespace
VK_SIMT_API double vk_simt_bench_switch(long long iters) {
#if defined(VK_SIMT_ASAN)
  return -1.0;  // unannotated switches confuse AddressSanitizer
#endif
  PingPong pp;
  pp.left = iters;
  g_pp = &pp;
  const size_t sz = 64 * 1024;
  g_pp_stack = static_cast<char*>(malloc(2 * sz));
  ctx_init(&pp.a, g_pp_stack, sz, pp_a, nullptr);
  ctx_init(&pp.b, g_pp_stack + sz, sz, pp_b, nullptr);
  auto t0 = std::chrono::steady_clock::now();
  ctx_switch(&pp.main, &pp.a);
  double ns = double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  free(g_pp_stack);
  return ns / double(2 * iters);  // a->b and b->a per iteration
}

// ----------------------------------------------------------------------------- emulated CUDA graphs
// Stream capture, as a GPU graph does it: while the calling OS thread captures, simt/launch.h hands
// each launch here instead of running it (vk_simt_capture_launch) with its arguments copied to the
// heap (pointers and scalars frozen at capture); vk_simt_graph_launch runs node i later through
// vk_simt_launch, on whatever the buffers hold then. verify_kernel.graphs orders these launches with
// the torch operations it records around them.
namespace {
struct GraphNode {
  LaunchDesc d;             // the launch as captured (d.ctx: the frozen arguments)
  void (*destroy)(void*);   // frees d.ctx (the extension's code: extensions are never unloaded)
};
struct Graph { std::vector<GraphNode> nodes; };
thread_local Graph* t_capture = nullptr;
}  // namespace

struct VkSimtGraphNode {
  char kernel[256];
  char src[128];
  char site[192];
  unsigned grid[3], block[3];
  long long smem;
};

VK_SIMT_API int vk_simt_capture_begin(void) {
  if (t_capture || vk_simt_worker) return 1;
  t_capture = new Graph();
  return 0;
}
VK_SIMT_API int vk_simt_capturing(void) { return t_capture != nullptr; }
VK_SIMT_API long long vk_simt_capture_count(void) { return t_capture ? (long long)t_capture->nodes.size() : -1; }
VK_SIMT_API int vk_simt_capture_launch(const LaunchDesc* d, void (*destroy)(void*), char* err, size_t errlen) {
  if (!t_capture) {
    snprintf(err, errlen, "vk_simt_capture_launch outside a capture");
    return kCudaErrorLaunchFailure;
  }
  t_capture->nodes.push_back(GraphNode{*d, destroy});
  return 0;
}
VK_SIMT_API void* vk_simt_capture_end(void) {
  Graph* g = t_capture;
  t_capture = nullptr;
  return g;
}
VK_SIMT_API long long vk_simt_graph_size(void* g) { return g ? (long long)static_cast<Graph*>(g)->nodes.size() : -1; }
VK_SIMT_API int vk_simt_graph_node(void* g, long long i, VkSimtGraphNode* out) {
  Graph* gr = static_cast<Graph*>(g);
  if (!gr || i < 0 || size_t(i) >= gr->nodes.size()) return 1;
  const LaunchDesc& d = gr->nodes[size_t(i)].d;
  memset(out, 0, sizeof *out);
  snprintf(out->kernel, sizeof out->kernel, "%s", kernel_name(&d).c_str());
  snprintf(out->src, sizeof out->src, "%s", d.src_name ? d.src_name : "");
  snprintf(out->site, sizeof out->site, "%s:%d", d.file ? d.file : "?", d.line);
  for (int k = 0; k < 3; ++k) { out->grid[k] = d.grid[k]; out->block[k] = d.block[k]; }
  out->smem = (long long)d.smem;
  return 0;
}
VK_SIMT_API int vk_simt_graph_launch(void* g, long long i, char* err, size_t errlen) {
  Graph* gr = static_cast<Graph*>(g);
  if (!gr || i < 0 || size_t(i) >= gr->nodes.size()) {
    snprintf(err, errlen, "graph node %lld does not exist", i);
    return kCudaErrorInvalidValue;
  }
  if (t_capture) {
    snprintf(err, errlen, "replaying a graph while this thread captures another is not emulated");
    return kCudaErrorInvalidValue;
  }
  return vk_simt_launch(&gr->nodes[size_t(i)].d, err, errlen);
}
VK_SIMT_API void vk_simt_graph_destroy(void* g) {
  Graph* gr = static_cast<Graph*>(g);
  if (!gr) return;
  for (GraphNode& n : gr->nodes)
    if (n.destroy) n.destroy(n.d.ctx);
  delete gr;
}
VK_SIMT_API int vk_simt_graph_node_size(void) { return int(sizeof(VkSimtGraphNode)); }
