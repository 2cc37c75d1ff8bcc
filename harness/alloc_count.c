/* alloc_count.c - the harness's allocator layer: counts allocator calls, so a timed region
 * can report how many malloc/free calls it made (allocs, frees columns), and places heap
 * blocks where the axis place says (hb_place_set, hb.h). Linked into build/dodbench only:
 * it interposes malloc and friends in the executable and forwards to glibc's __libc_*
 * entry points, so it stays out of the sanitizer builds (which interpose malloc
 * themselves). C++ operator new/delete reach malloc/free and are counted (and placed)
 * too. The harness is single-threaded; plain counters suffice.
 *
 * A placed block:  [ glibc's block: slack ... | user block ... ]
 *                  ^ base (__libc_malloc)      ^ user = the line after base + offset
 * The table maps each placed user pointer to its base and size (open addressing, linear
 * probing, backward-shift deletion), so free and realloc find the base again; a pointer
 * not in it is glibc's own. Under HB_PLACE_MALLOC with no placed block live, free pays one
 * test of the table's count. */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* ---- placement ---- */

#define LINE 64
#define RANDOM_SPAN 4096 /* the random offsets: multiples of 16 below this */

static enum hb_place mode = HB_PLACE_MALLOC;
static uint64_t rng;
static unsigned long long n_placed;

struct entry {
	uintptr_t user;  /* 0: empty */
	char *base;
	size_t size;     /* the user's bytes */
	size_t off;      /* user - the first line boundary at or after base */
};
static struct entry *table;
static size_t table_cap, table_n; /* cap a power of two, n < cap / 2 */

static size_t slot_of(uintptr_t user)
{
	return (size_t)((user >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (table_cap - 1);
}

static struct entry *find(uintptr_t user)
{
	if (!table_n)
		return NULL;
	for (size_t i = slot_of(user);; i = (i + 1) & (table_cap - 1)) {
		if (table[i].user == user)
			return &table[i];
		if (!table[i].user)
			return NULL;
	}
}

static void put(struct entry e)
{
	size_t i = slot_of(e.user);
	while (table[i].user)
		i = (i + 1) & (table_cap - 1);
	table[i] = e;
	table_n++;
}

/* Room for one more entry: the table doubled (rehashed) at half full. Returns 0 or -1. */
static int reserve_entry(void)
{
	if ((table_n + 1) * 2 <= table_cap)
		return 0;
	size_t old_cap = table_cap, cap = table_cap ? table_cap * 2 : 1024;
	struct entry *old = table, *t = __libc_calloc(cap, sizeof *t);
	if (!t)
		return -1;
	table = t;
	table_cap = cap;
	table_n = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].user)
			put(old[i]);
	__libc_free(old);
	return 0;
}

/* Removes e (backward-shift deletion: no tombstones). */
static void erase(struct entry *e)
{
	size_t i = (size_t)(e - table);
	table[i].user = 0;
	table_n--;
	for (size_t j = (i + 1) & (table_cap - 1); table[j].user; j = (j + 1) & (table_cap - 1)) {
		size_t home = slot_of(table[j].user);
		/* j's entry may move into the hole at i unless its home lies in (i, j] */
		if (((j - home) & (table_cap - 1)) >= ((j - i) & (table_cap - 1))) {
			table[i] = table[j];
			table[j].user = 0;
			i = j;
		}
	}
}

/* The offset past the line of the next block under the current mode. */
static size_t next_offset(void)
{
	switch (mode) {
	case HB_PLACE_LINE16: return 16;
	case HB_PLACE_LINE32: return 32;
	case HB_PLACE_LINE48: return 48;
	case HB_PLACE_RANDOM:
		return (size_t)(dod_rng_next(&rng) % (RANDOM_SPAN / 16)) * 16;
	default: return 0;
	}
}

/* The user pointer of a block at base placed at offset off past a line. */
static char *user_of(char *base, size_t off)
{
	return (char *)(((uintptr_t)base + LINE - 1) / LINE * LINE) + off;
}

/* Copies glibc's size word before base to before user (containers/alloc/realloc.c reads
 * its IS_MMAPPED bit to tell a remapping realloc from a copying one): base is 16-byte
 * aligned, so a user pointer past it is at least 16 bytes past it, and the word lies in
 * the slack. Call it once the block's bytes are in place (the word may lie where they
 * were before a realloc moved them). */
static void copy_size_word(char *base, char *user)
{
	if (user != base)
		memcpy(user - sizeof(size_t), base - sizeof(size_t), sizeof(size_t));
}

/* A new placed block of n bytes (NULL: out of memory, or a size that does not fit). */
static void *placed_malloc(size_t n)
{
	size_t off = next_offset();
	if (n > SIZE_MAX - LINE - off || reserve_entry())
		return NULL;
	char *base = __libc_malloc(n + LINE + off);
	if (!base)
		return NULL;
	char *user = user_of(base, off);
	copy_size_word(base, user);
	put((struct entry){(uintptr_t)user, base, n, off});
	n_placed++;
	return user;
}

/* realloc of the placed block e to n bytes, at the same offset past a line. */
static void *placed_realloc(struct entry *e, size_t n)
{
	size_t off = e->off, delta = (size_t)((char *)e->user - e->base);
	size_t keep = e->size < n ? e->size : n;
	if (n > SIZE_MAX - LINE - off)
		return NULL;
	char *base = __libc_realloc(e->base, n + LINE + off);
	if (!base)
		return NULL;
	/* realloc kept the bytes at base + delta; the line boundary may fall elsewhere in the
	 * new allocation: move them to it. */
	char *user = user_of(base, off);
	if (user != base + delta)
		memmove(user, base + delta, keep);
	copy_size_word(base, user);
	erase(e);
	put((struct entry){(uintptr_t)user, base, n, off});
	return user;
}

int hb_place_set(enum hb_place m, uint64_t seed)
{
	if (m != HB_PLACE_MALLOC && reserve_entry())
		return -1;
	mode = m;
	rng = seed;
	return 0;
}

unsigned long long hb_placed_blocks(void)
{
	return n_placed;
}

/* The bytes glibc accounts for the chunk holding the block p (its size word, flag bits
 * cleared): what mallinfo2 counts for it, in uordblks or hblkhd. */
static size_t chunk_bytes(const void *p)
{
	size_t word;
	memcpy(&word, (const char *)p - sizeof word, sizeof word);
	return word & ~(size_t)7;
}

void hb_heap_bytes(long long *in_use, long long *obtained)
{
	struct mallinfo2 mi = mallinfo2();
	size_t own = table ? chunk_bytes(table) : 0;
	*in_use = (long long)(mi.uordblks + mi.hblkhd - own);
	*obtained = (long long)(mi.arena + mi.hblkhd);
}

/* ---- the interposed entry points ---- */

/* Whether a new block of n bytes is placed: under a mode other than malloc, an array's
 * worth (HB_PLACE_MIN_BYTES), not a list node or a small record, whose padding to a line
 * would change how densely they pack rather than where an array starts. */
static bool placing(size_t n)
{
	return mode != HB_PLACE_MALLOC && n >= HB_PLACE_MIN_BYTES;
}

void *malloc(size_t n)
{
	n_allocs++;
	return placing(n) ? placed_malloc(n) : __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	n_allocs++;
	if (m && n > SIZE_MAX / m)
		return NULL;
	if (!placing(n * m))
		return __libc_calloc(n, m);
	void *p = placed_malloc(n * m);
	return p ? memset(p, 0, n * m) : NULL;
}

void *realloc(void *p, size_t n)
{
	n_allocs++;
	struct entry *e = p ? find((uintptr_t)p) : NULL;
	if (e)
		return placed_realloc(e, n);
	if (!p && placing(n))
		return placed_malloc(n);
	return __libc_realloc(p, n); /* a block glibc placed stays glibc's */
}

void free(void *p)
{
	if (!p)
		return;
	n_frees++;
	struct entry *e = find((uintptr_t)p);
	if (e) {
		char *base = e->base;
		erase(e);
		__libc_free(base);
	} else {
		__libc_free(p);
	}
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
