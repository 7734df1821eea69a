// simt/racecheck.h - the race checker's hooks into the scheduler (included by runtime.cpp inside
// namespace vk_simt::{anonymous}, after Worker; defined in simt/racecheck.inc at the end of runtime.cpp).
//
// Race mode: an extension built by simt.load_inline(..., racecheck=True) is compiled with GCC's
// -fsanitize=thread instrumentation but not linked against libtsan: every load and store the compiler
// emits calls __tsan_readN / __tsan_writeN, which racecheck.inc defines. While a launch of a kernel from
// such a module runs, those calls feed a happens-before checker of shared memory (per byte, per block)
// and of global memory between the blocks of the launch; the hooks below tell it about barriers,
// warp collectives, ldmatrix reads and cp.async. Launches of other modules never reach it.
#pragma once

struct Worker;
// Was `kernel`'s module built for race mode?
bool rc_module_is_race(const void* kernel);
// Is the running launch under the race checker?
bool rc_launch_active();
// A launch begins / ends (under the launch mutex). rc_launch_end returns the hazard report ("" if none).
void rc_launch_begin(const LaunchDesc* d, const char* kname);
std::string rc_launch_end(const std::vector<Worker*>& used);
// Worker w starts block `bl` (its fibers initialised) / finishes its share of the launch.
void rc_block_begin(Worker* w, unsigned bl);
// A CTA of a cluster launch ended (every thread exited, or it failed): its peers' accesses to its shared memory must have been
// ordered before (by a cluster barrier), and none may follow.
void rc_block_end(Worker* w);
void rc_worker_end(Worker* w);
// A __syncthreads completed.
void rc_barrier(Worker* w);
// Warp collective `kind` of warp `wp` completed with lanes `mask`; `pc`: the completing call's return address.
void rc_collective(Worker* w, int wp, int kind, int param, unsigned mask, const void* pc);
// cp.async issued by the current fiber (16 shared bytes at dst, 16 global bytes at src when valid).
void rc_cp_issue(Worker* w, void* dst, const void* src, int valid, const void* pc);
// A cp.async of fiber f landed (its wait_group covered it, or the thread exited).
void rc_cp_land(Worker* w, int linear, int warp, void* dst);
