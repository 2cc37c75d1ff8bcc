/* alloc_count.c - counts allocator calls, so a timed region can report how many
 * malloc/free calls it made (allocs, frees columns). Linked into build/dodbench only:
 * it interposes malloc and friends in the executable and forwards to glibc's
 * __libc_* entry points, so it stays out of the sanitizer builds (which interpose
 * malloc themselves). C++ operator new/delete reach malloc/free and are counted too.
 * The harness is single-threaded; plain counters suffice. */
#include <stddef.h>

#include "hb.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long long n_allocs, n_frees;

void hb_alloc_counts(unsigned long long *allocs, unsigned long long *frees)
{
	*allocs = n_allocs;
	*frees = n_frees;
}

void *malloc(size_t n) { n_allocs++; return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { n_allocs++; return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { n_allocs++; return __libc_realloc(p, n); }
void free(void *p)
{
	if (p)
		n_frees++;
	__libc_free(p);
}
void *aligned_alloc(size_t align, size_t n) { n_allocs++; return __libc_memalign(align, n); }
void *memalign(size_t align, size_t n) { n_allocs++; return __libc_memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n)
{
	if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0)
		return 22; /* EINVAL */
	n_allocs++;
	void *p = __libc_memalign(align, n);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}
