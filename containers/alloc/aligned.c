/* aligned.c - aligned memory (see aligned.h). */
#include "aligned.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/grow.h"
#include "dod_common.h"

/* The offset of base in its allocation, kept in the size_t before it: realloc returns at
 * least 16-byte aligned memory, so the offset is at least 16 and there is room. */
static size_t offset_of(const char *base)
{
	size_t off;
	memcpy(&off, base - sizeof off, sizeof off);
	return off;
}

int dod_aligned_realloc(char **base, size_t old_bytes, size_t new_bytes, size_t align,
                        int copy)
{
	if (new_bytes > SIZE_MAX - align)
		return DOD_ENOMEM;
	size_t old_off = *base ? offset_of(*base) : 0;
	char *q = *base ? *base - old_off : NULL;
	uint64_t moves = dod_growth.moves;
	if (dod_buffer_grow(&q, *base ? old_off + old_bytes : 0, new_bytes + align, copy))
		return DOD_ENOMEM;
	size_t off = align - (uintptr_t)q % align; /* 16 .. align */
	if (*base && off != old_off) {
		memmove(q + off, q + old_off, old_bytes);
		dod_growth_note_move(dod_growth.moves != moves, old_bytes); /* in place, yet moved */
	}
	memcpy(q + off - sizeof off, &off, sizeof off);
	*base = q + off;
	return DOD_OK;
}

size_t dod_page_bytes(void)
{
	static size_t page;
	if (!page) {
		long p = sysconf(_SC_PAGESIZE);
		page = p > 0 ? (size_t)p : 4096; /* sysconf never fails on Linux */
	}
	return page;
}

void dod_aligned_free(char *base)
{
	if (base)
		free(base - offset_of(base));
}

void *dod_aligned_alloc(size_t bytes, size_t align)
{
	if (bytes > SIZE_MAX - align)
		return NULL;
	return aligned_alloc(align, (bytes + align - 1) / align * align);
}
