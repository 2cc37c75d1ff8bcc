/* alloc_hook.h - the fuzzer's failing allocator (tests/fuzz/alloc_hook.c and
 * alloc_hook_new.cpp). The fuzz binary is linked with -Wl,--wrap=malloc,... so every
 * call to malloc, calloc, realloc, aligned_alloc and posix_memalign in its own objects
 * (containers, stb_ds, the C++ peers through operator new, which alloc_hook_new.cpp
 * routes to malloc) goes through the hook first; AddressSanitizer's allocator stays
 * underneath, so the build keeps ASan. Allocations made inside shared libraries (glibc,
 * libstdc++) are not seen; the vm strategy's mmap/mprotect are not allocations here. */
#ifndef DOD_FUZZ_ALLOC_HOOK_H
#define DOD_FUZZ_ALLOC_HOOK_H

#ifdef __cplusplus
extern "C" {
#endif

/* k > 0: the k-th allocation from now fails, and every one after it until the next
 * call (a failure that persists, like real exhaustion); k = 0: allocation works. */
void dod_fuzz_alloc_arm(long k);
/* Allocations attempted since the last arm (those refused included). */
long dod_fuzz_alloc_calls(void);
/* Whether the hook refused an allocation since the last arm. */
int dod_fuzz_alloc_refused(void);

#ifdef __cplusplus
}
#endif
#endif
