/* grow.c - the one place a buffer grows by reallocation, and the growth count (see
 * grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void dod_growth_note_move(int counted_moved, size_t copied_bytes)
{
	dod_growth.moves += counted_moved == 0;
	dod_growth.copied_bytes += copied_bytes;
}
