/* alloc_hook.c - the wrappers behind alloc_hook.h (-Wl,--wrap=malloc,calloc,realloc,
 * aligned_alloc,posix_memalign): refuse when armed, else forward to the real allocator
 * (ASan's). Single-threaded, as libFuzzer runs the target. */
#include "alloc_hook.h"

#include <errno.h>
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **out, size_t align, size_t n);

static long fail_at, calls;
static int refused;

void dod_fuzz_alloc_arm(long k)
{
	fail_at = k;
	calls = 0;
	refused = 0;
}

long dod_fuzz_alloc_calls(void) { return calls; }
int dod_fuzz_alloc_refused(void) { return refused; }

static int refuse(void)
{
	if (fail_at <= 0)
		return 0;
	if (++calls < fail_at)
		return 0;
	refused = 1;
	return 1;
}

void *__wrap_malloc(size_t n) { return refuse() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { return refuse() ? NULL : __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { return refuse() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t align, size_t n)
{
	return refuse() ? NULL : __real_aligned_alloc(align, n);
}
int __wrap_posix_memalign(void **out, size_t align, size_t n)
{
	return refuse() ? ENOMEM : __real_posix_memalign(out, align, n);
}
