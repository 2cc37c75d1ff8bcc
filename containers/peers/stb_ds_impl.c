/* stb_ds_impl.c - stb_ds (Sean Barrett, public domain; Debian libstb-dev 0.67) compiled
 * exactly once, with an allocator that turns a failed realloc into DOD_ENOMEM, and the
 * glue of stb_ds_glue.h (reserve, hold/settle, clear, byte counts) for peers/stb_arr.c.
 * The glue reads stb_ds's private hash index (stbds_hash_index, visible only in the
 * implementation section) and calls its builder stbds_make_hash_index, so it lives here.
 *
 * Out of memory. STBDS_REALLOC is glue_realloc: when realloc returns NULL it longjmps
 * to guarded(), the one function that arms it (every glue function makes its stb_ds
 * calls through it), which returns DOD_ENOMEM. That is clean because of where stb_ds
 * 0.67 allocates, call site by call site:
 *   stbds_arrgrowf           realloc first; the array is written only after it succeeds
 *                            (a failed realloc leaves the old block as it was)
 *   stbds_make_hash_index    realloc first; the old index (ot) is only read, and it is
 *                            the caller who frees it and installs the new one, after
 *   stbds_hmput_key          may grow the index (above, before touching anything) and
 *                            later the array, after it has counted the new entry: never
 *                            reached here, the container reserves both first
 *   stbds_hmdel_key          rebuilds or shrinks the index after the entry is gone:
 *                            never reached here, the container holds the thresholds
 *   stbds_hmput_default      an arrgrowf of a new array
 * A failure with no glue function running means the container broke that discipline:
 * abort(), not the NULL dereference stb_ds would do.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include "dod_common.h"
#include "peers/stb_ds_glue.h"

static _Thread_local jmp_buf *oom_target;
static unsigned long fail_countdown;

static void *glue_realloc(void *p, size_t size)
{
	void *q = NULL;
	if (fail_countdown == 0 || --fail_countdown != 0)
		q = realloc(p, size);
	if (!q) {
		if (oom_target)
			longjmp(*oom_target, 1);
		abort();
	}
	return q;
}

void dod_stbds_fail_nth_alloc(unsigned long n) { fail_countdown = n; }

#define STBDS_REALLOC(context, ptr, size) ((void)(context), glue_realloc((ptr), (size)))
#define STBDS_FREE(context, ptr) ((void)(context), free(ptr))
#define STB_DS_IMPLEMENTATION
#include <stb/stb_ds.h>

typedef struct dod_stbds_kv kv_t;

/* The stb_ds array under a map: element 0 is hmget's default entry, m points past it. */
static stbds_array_header *map_header(const kv_t *m) { return stbds_header((kv_t *)m - 1); }
static stbds_hash_index *map_index(const kv_t *m)
{
	return (stbds_hash_index *)map_header(m)->hash_table;
}

/* Bytes of one hash index allocation of `slots` slots (stbds_make_hash_index's request). */
static size_t index_bytes(size_t slots)
{
	return (slots >> STBDS_BUCKET_SHIFT) * sizeof(stbds_hash_bucket) +
	       sizeof(stbds_hash_index) + STBDS_CACHE_LINE_SIZE - 1;
}

/* The one place that catches stb_ds's allocation failures: runs fn(arg) with oom_target
 * armed and returns DOD_OK, or DOD_ENOMEM when an allocation inside failed (fn stopped
 * at that allocation; see the call sites above for why nothing is half done). Nothing
 * local is modified between setjmp and longjmp. Nests: the previous target comes back. */
static int guarded(void (*fn)(void *), void *arg)
{
	jmp_buf env, *prev = oom_target;
	if (setjmp(env)) {
		oom_target = prev;
		return DOD_ENOMEM;
	}
	oom_target = &env;
	fn(arg);
	oom_target = prev;
	return DOD_OK;
}

struct grow_args {
	void *a;
	size_t elem_bytes, cap;
};
static void grow(void *arg)
{
	struct grow_args *g = arg;
	g->a = stbds_arrgrowf(g->a, g->elem_bytes, 0, g->cap);
}

/* Replaces m's hash index with one of `slots` slots holding the same entries; the old
 * one is freed only once the new one exists. May longjmp (out of memory), map intact. */
static void rebuild_index(kv_t *m, size_t slots)
{
	stbds_hash_index *old = map_index(m);
	stbds_hash_index *t = stbds_make_hash_index(slots, old);
	map_header(m)->hash_table = t;
	STBDS_FREE(NULL, old);
}

struct rebuild_args {
	kv_t *m;
	size_t slots;
};
static void rebuild(void *arg)
{
	struct rebuild_args *r = arg;
	rebuild_index(r->m, r->slots);
}

/* stbds_hmdel_key's shrink rule: under its threshold (1/4 full), and above one bucket. */
static int wants_shrink(const stbds_hash_index *t)
{
	return t->used_count < t->used_count_shrink_threshold &&
	       t->slot_count > STBDS_BUCKET_LENGTH;
}

/* stbds_hmdel_key's checks after a deletion: shrink, else rebuild in place when the
 * tombstones pass their limit. Each new index computes its own thresholds, so the
 * halving repeats until it holds (hmdel would halve once per later deletion). */
static void settle(void *arg)
{
	kv_t *m = arg;
	stbds_hash_index *t = map_index(m);
	if (!wants_shrink(t) && t->tombstone_count > t->tombstone_count_threshold)
		rebuild_index(m, t->slot_count);
	for (t = map_index(m); wants_shrink(t); t = map_index(m))
		rebuild_index(m, t->slot_count >> 1);
}

static void new_map(void *arg)
{
	*(kv_t **)arg = stbds_hmput_default(NULL, sizeof(kv_t));
}

void *dod_stbds_arr_reserve(void *a, size_t elem_bytes, size_t cap, int *err)
{
	*err = DOD_OK;
	if (cap <= stbds_arrcap(a))
		return a;
	/* stb_ds may double the old capacity: keep even that byte count inside size_t. */
	if (cap > (SIZE_MAX - sizeof(stbds_array_header)) / elem_bytes / 2) {
		*err = DOD_ENOMEM;
		return a;
	}
	struct grow_args g = {a, elem_bytes, cap};
	*err = guarded(grow, &g);
	return *err ? a : g.a;
}

int dod_stbds_hm_reserve(kv_t **m, size_t n_entries)
{
	/* The index doubles while the n-th hmput would find it 3/4 full (stbds_hmput_key's
	 * growth rule, used_count >= slot_count - slot_count / 4). */
	stbds_hash_index *t = map_index(*m);
	size_t slots = t ? t->slot_count : STBDS_BUCKET_LENGTH;
	if (n_entries > SIZE_MAX / 4 / sizeof(stbds_hash_bucket))
		return DOD_ENOMEM;
	while (n_entries > 0 && n_entries - 1 >= slots - (slots >> 2))
		slots *= 2;
	int err;
	kv_t *raw = dod_stbds_arr_reserve(*m - 1, sizeof(kv_t), n_entries + 1, &err);
	if (err)
		return err;
	*m = raw + 1;
	if (t && slots == t->slot_count)
		return DOD_OK;
	struct rebuild_args r = {*m, slots};
	return guarded(rebuild, &r);
}

int dod_stbds_hm_create(kv_t **out)
{
	kv_t *m = NULL;
	int err = guarded(new_map, &m);
	if (err)
		return err;
	if ((err = dod_stbds_hm_reserve(&m, 0)) != DOD_OK) {
		stbds_hmfree(m);
		return err;
	}
	*out = m;
	return DOD_OK;
}

void dod_stbds_hm_hold(kv_t *m, struct dod_stbds_hold *h)
{
	stbds_hash_index *t = map_index(m);
	h->shrink_below = t->used_count_shrink_threshold;
	h->rebuild_above = t->tombstone_count_threshold;
	t->used_count_shrink_threshold = 0;
	t->tombstone_count_threshold = SIZE_MAX;
}

int dod_stbds_hm_settle(kv_t **m, const struct dod_stbds_hold *h)
{
	stbds_hash_index *t = map_index(*m);
	if (h) {
		t->used_count_shrink_threshold = h->shrink_below;
		t->tombstone_count_threshold = h->rebuild_above;
	}
	return guarded(settle, *m);
}

void dod_stbds_hm_clear(kv_t *m)
{
	stbds_array_header *hd = map_header(m);
	stbds_hash_index *t = hd->hash_table;
	hd->length = 1; /* the default entry stays */
	if (!t)
		return;
	for (size_t i = 0; i < t->slot_count >> STBDS_BUCKET_SHIFT; i++)
		for (size_t j = 0; j < STBDS_BUCKET_LENGTH; j++) {
			t->storage[i].hash[j] = STBDS_HASH_EMPTY;
			t->storage[i].index[j] = STBDS_INDEX_EMPTY;
		}
	t->used_count = t->tombstone_count = 0;
}

size_t dod_stbds_hm_bytes(const kv_t *m)
{
	const stbds_hash_index *t = map_index(m);
	return sizeof(stbds_array_header) + map_header(m)->capacity * sizeof(kv_t) +
	       (t ? index_bytes(t->slot_count) : 0);
}

size_t dod_stbds_hm_slots(const kv_t *m)
{
	const stbds_hash_index *t = map_index(m);
	return t ? t->slot_count : 0;
}
