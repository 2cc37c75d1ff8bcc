/* realloc.c - the geometric-realloc allocation strategy and its copying form (see
 * realloc.h), and the one place a buffer grows by reallocation (dod_buffer_grow). */
#include "realloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/aligned.h"
#include "dod_common.h"

#if defined(__SANITIZE_ADDRESS__)
#define NOT_GLIBC_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NOT_GLIBC_MALLOC 1
#endif
#endif

/* Whether realloc grows the block p by remapping its pages rather than copying them:
 * glibc gives a request above its mmap threshold a mapping of its own, marks it in bit 1
 * (IS_MMAPPED) of the size word before the block (glibc malloc/malloc.c, "chunk
 * representations"), and grows it with mremap, which moves page table entries, not
 * bytes. Under AddressSanitizer, whose allocator is not glibc's (reading before the
 * block would be a report), and off glibc: 0, so a moving realloc counts as a copy. */
static int remaps_pages(const char *p)
{
#if defined(__GLIBC__) && !defined(NOT_GLIBC_MALLOC)
	size_t size_word;
	memcpy(&size_word, p - sizeof size_word, sizeof size_word);
	return (size_word & 2) != 0;
#else
	(void)p;
	return 0;
#endif
}

int dod_buffer_grow(char **p, size_t old_bytes, size_t new_bytes, int copy)
{
	char *q, *was = *p;
	uintptr_t at = (uintptr_t)was; /* was is indeterminate once realloc moved it */
	DOD_KEEP(at); /* an integer now, for gcc 12's -Wuse-after-free too */
	int moved = 1, remapped = 0;
	if (copy) {
		if (!(q = malloc(new_bytes)))
			return DOD_ENOMEM;
		if (was)
			memcpy(q, was, old_bytes);
		free(was);
	} else {
		remapped = was && remaps_pages(was);
		if (!(q = realloc(was, new_bytes)))
			return DOD_ENOMEM;
		moved = (uintptr_t)q != at;
	}
	if (old_bytes)
		dod_growth_note(moved, moved && !remapped ? old_bytes : 0);
	*p = q;
	return DOD_OK;
}

void dod_growth_note(int moved, size_t copied_bytes)
{
	dod_growth.grows++;
	dod_growth.moves += moved != 0;
	dod_growth.copied_bytes += copied_bytes;
}

/* The capacity growth to want elements picks (want > cap): doubling from max(cap, 16)
 * until it suffices, never beyond max_elems (then exactly want). */
static size_t geometric_cap(size_t cap, size_t want, size_t max_elems)
{
	size_t new_cap = cap ? cap : 16;
	while (new_cap < want)
		new_cap = new_cap > SIZE_MAX / 2 ? want : new_cap * 2;
	return new_cap > max_elems ? want : new_cap;
}

int dod_grow_geometric(void **p, size_t *cap, size_t want, size_t elem_bytes,
                       size_t max_elems)
{
	if (want <= *cap)
		return DOD_OK;
	size_t new_cap = geometric_cap(*cap, want, max_elems);
	if (elem_bytes && new_cap > SIZE_MAX / elem_bytes)
		return DOD_ENOMEM;
	char *q = *p;
	if (dod_buffer_grow(&q, *cap * elem_bytes, new_cap * elem_bytes, 0))
		return DOD_ENOMEM;
	*p = q;
	*cap = new_cap;
	return DOD_OK;
}

/* The capacity s grows to for want_elems > s->cap: doubled (geometric_cap) or in steps of
 * s->step elements. Returns 0, or DOD_ENOMEM when it or its byte size does not fit in
 * size_t. */
static int next_cap(const struct dod_realloc_store *s, size_t want_elems, size_t *cap)
{
	size_t eb = s->elem_bytes ? s->elem_bytes : 1;
	if (!s->step) {
		*cap = geometric_cap(s->cap, want_elems, SIZE_MAX / eb);
	} else {
		size_t steps = (want_elems - s->cap + s->step - 1) / s->step;
		if (steps > (SIZE_MAX - s->cap) / s->step)
			return DOD_ENOMEM;
		*cap = s->cap + steps * s->step;
	}
	return *cap > SIZE_MAX / eb ? DOD_ENOMEM : DOD_OK;
}

int dod_realloc_init_with(struct dod_realloc_store *s, size_t elem_bytes, size_t reserve_elems,
                          size_t align, int copy, size_t step)
{
	s->base = NULL;
	s->cap = 0;
	s->elem_bytes = elem_bytes;
	s->step = step;
	s->copy = copy;
	return align ? dod_realloc_reserve_aligned(s, reserve_elems, align)
	             : dod_realloc_reserve(s, reserve_elems);
}

void dod_realloc_free(struct dod_realloc_store *s)
{
	free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve(struct dod_realloc_store *s, size_t want_elems)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (next_cap(s, want_elems, &cap) ||
	    dod_buffer_grow(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}

void dod_realloc_free_aligned(struct dod_realloc_store *s)
{
	dod_aligned_free(s->base);
	s->base = NULL;
	s->cap = 0;
}

int dod_realloc_reserve_aligned(struct dod_realloc_store *s, size_t want_elems, size_t align)
{
	size_t cap;
	if (want_elems <= s->cap)
		return DOD_OK;
	if (next_cap(s, want_elems, &cap) ||
	    dod_aligned_realloc(&s->base, s->cap * s->elem_bytes, cap * s->elem_bytes, align,
	                        s->copy))
		return DOD_ENOMEM;
	s->cap = cap;
	return DOD_OK;
}
