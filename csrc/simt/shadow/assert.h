/* Shadow of <assert.h> for the host SIMT emulator: assert() inside a kernel fails the launch with a
   message naming the kernel, block and thread (a Python exception) instead of aborting the process,
   as a device-side assert fails the kernel on the GPU. No include guard: <assert.h> is meant to be
   included again after NDEBUG changes. */
#include_next <assert.h>
#if defined(__cplusplus) && defined(VK_SIMT) && !defined(NDEBUG)
#undef assert
extern "C" void vk_simt_assert_fail(const char* expr, const char* file, int line) __attribute__((noreturn));
#define assert(expr) (static_cast<bool>(expr) ? void(0) : vk_simt_assert_fail(#expr, __FILE__, __LINE__))
#endif
