/* chunked.c - aoa_chunked8, aoa_chunked14 and aoa_chunked8_sorted: every entity's tags as
 * a chain of chunks {n, tags[K], next}, all chunks in one buffer (Niklas Gray, "Allocation
 * Adventures 2: Arrays of Arrays", Bitsquid 2015: "instead of one tag per node, store
 * several"; containers/aoa_contract.h). K comes from the variant's layout column: chunk8
 * (K = 8, the article's: 40 B a chunk) or chunk14 (K = 14: 64 B, a chunk fills a cache
 * line); chunk8_sorted is chunk8 plus the article's suggested fix for the scattered
 * chains, an incremental sort of the buffer (below, and aoa/chunk_sort.h).
 *
 *   hdr    [ nil | head | head | ... ]       4 B an entity, parallel to the entity slots
 *                   |                        (aoa/aoa_core.h)
 *                   v
 *   chunks [ nil | {3, t0 t1 t2 . . ., next} | {K, t0 .. tK-1, 0} | free | ... ]
 *                  the head chunk: the only    every other chunk of a chain is full
 *                  one that may be part full   (aoa/node_pool.h: one buffer, index 0 nil)
 *
 * A new tag goes into the head chunk, or into a new chunk pushed at the front when the
 * head is full (O(1)); remove finds the tag (O(chain)) and moves the head chunk's last
 * tag into its place, freeing the head chunk when it empties; so every chunk but the
 * head is full and a chain of t tags has ceil(t / K) chunks. Invariants (store_check):
 * every chunk of a live entity's chain has 1 <= n <= K, all but the head n = K, none is
 * free-marked, chains end in 0 within n_nodes; the chains hold live_nodes chunks and
 * `tags` tags, live_nodes + n_free = n_nodes - 1; a free slot's head is 0. Memory:
 * 4K / (8 + 4K) of a full chunk is tags (K = 8: 80%, D4), 4t / (8 + 4K) of an entity's
 * one chunk at t tags (30% at 3, K = 8). The walk reads a chunk's tags contiguously and
 * follows one next a chunk: one miss per K tags where linked_nodes takes one a tag.
 *
 * aoa_chunked8_sorted (CK_SORTED; D5): a chunk also holds `back`, its predecessor (the
 * previous chunk, or CK_HEAD | entity slot for a head): {n, tags[8], back, next}, 44 B, 4 B
 * (10%) more than chunk8's 40, so any chunk can be moved in O(1). A freed chunk is filled
 * at once by the buffer's last one (no free list: live chunks are 1 .. n_nodes - 1), and a
 * placement pass sorts the buffer into (entity slot, position in chain) order a bounded
 * number of steps per access: at most 2 per item of a successful insert_n, erase_n, add_n
 * or remove_n, and at most one pass' worth per walk (one step per slot and chunk walked),
 * so two walks after the last change leave every chain contiguous and in slot order. The
 * walk is chunk8's; its invariants add the pass's (aoa/chunk_sort.h's opening comment).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aoa/node_pool.h"

#if defined(DOD_LAYOUT_chunk8)
#define K 8
#elif defined(DOD_LAYOUT_chunk14)
#define K 14
#elif defined(DOD_LAYOUT_chunk8_sorted)
#define K 8
#define CK_SORTED 1
#else
#error "chunked.c: the variant's layout column must be chunk8, chunk14 or chunk8_sorted"
#endif
#ifndef CK_SORTED
#define CK_SORTED 0
#endif

#define AOA_MAX_TAGS 0
typedef struct {
	uint32_t head; /* first chunk, 0 = no tags */
} AOA_HDR;
#if CK_SORTED
#define AOA_TIDY 1
struct ck_sort {              /* the placement pass (aoa/chunk_sort.h) */
	uint32_t entered, at;     /* slots entered; the next chunk to place (0: none) */
	uint32_t placed;          /* chunks 1 .. placed placed */
	bool dirty;               /* a change since the pass began may have unsorted them */
	uint64_t steps, swaps;    /* since create, for tests (aoa/sort_hook.h) */
};
#endif
struct aoa_store {
	struct aoa_pool pool;
	size_t live_nodes, tags; /* chunks in chains, tags in them */
#if CK_SORTED
	struct ck_sort sort;
#endif
};

#include "aoa/aoa_core.h"

struct ck_chunk {
	uint32_t n;
	uint32_t tags[K];
#if CK_SORTED
	uint32_t back; /* the previous chunk of the chain, or CK_HEAD | the entity's slot */
#endif
	uint32_t next; /* last: node_pool.h's free link */
};
#define NB sizeof(struct ck_chunk)

static inline struct ck_chunk *ck(const struct aoa *a, uint32_t x)
{
	return (struct ck_chunk *)pool_at(&a->s.pool, x, NB);
}

#include "aoa/chain_hooks.h"
#if CK_SORTED
#include "aoa/chunk_sort.h"
#endif

/* Chunk x (just taken) becomes entity i's head, in front of its chain. */
static void ck_push_head(struct aoa *a, uint32_t i, uint32_t x)
{
	uint32_t h = a->hdr[i].head;
	ck(a, x)->n = 0;
	ck(a, x)->next = h;
	a->hdr[i].head = x;
	a->s.live_nodes++;
#if CK_SORTED
	ck(a, x)->back = CK_HEAD | i;
	if (h)
		ck(a, h)->back = x;
	sort_note_push(a, i);
#endif
}

/* Entity i's head chunk leaves its chain with its tags and goes back to the pool: taken
 * back (undo: the latest take of the batch) or freed. */
static void ck_pop_head(struct aoa *a, uint32_t i, bool undo)
{
	uint32_t h = a->hdr[i].head, next = ck(a, h)->next;
	a->s.tags -= ck(a, h)->n;
	a->hdr[i].head = next;
	a->s.live_nodes--;
#if CK_SORTED
	if (next)
		ck(a, next)->back = CK_HEAD | i;
	if (!undo) {
		sort_free(a, h);
		return;
	}
#endif
	if (undo)
		pool_untake(&a->s.pool, h, NB);
	else
		pool_give(&a->s.pool, h, NB);
}

static void hdr_release(struct aoa *a, uint32_t i)
{
	while (a->hdr[i].head)
		ck_pop_head(a, i, false);
}

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	uint32_t h = a->hdr[i].head;
	if (!h || ck(a, h)->n == K) {
		int err = DOD_OK;
		uint32_t x = pool_take(&a->s.pool, NB, &err);
		if (!x)
			return err;
		ck_push_head(a, i, x);
		h = x;
	}
	struct ck_chunk *c = ck(a, h);
	c->tags[c->n++] = tag;
	a->s.tags++;
	return 1;
}

static void tag_undo(struct aoa *a, uint32_t i)
{
	uint32_t h = a->hdr[i].head;
	a->s.tags--;
	if (--ck(a, h)->n == 0) /* the add made this chunk: it goes back */
		ck_pop_head(a, i, true);
}

static int tag_remove(struct aoa *a, uint32_t i, uint32_t tag)
{
	uint32_t h = a->hdr[i].head;
	for (uint32_t x = h; x; x = ck(a, x)->next) {
		struct ck_chunk *c = ck(a, x);
		for (uint32_t j = 0; j < c->n; j++) {
			if (c->tags[j] != tag)
				continue;
			struct ck_chunk *hc = ck(a, h);
			c->tags[j] = hc->tags[--hc->n];
			a->s.tags--;
			if (hc->n == 0)
				ck_pop_head(a, i, false);
			return 1;
		}
	}
	return 0;
}

static bool tag_has(const struct aoa *a, uint32_t i, uint32_t tag)
{
	for (uint32_t x = a->hdr[i].head; x; x = ck(a, x)->next) {
		const struct ck_chunk *c = ck(a, x);
		for (uint32_t j = 0; j < c->n; j++)
			if (c->tags[j] == tag)
				return true;
	}
	return false;
}

static size_t tags_list(const struct aoa *a, uint32_t i, uint32_t *out, size_t room)
{
	size_t k = 0;
	for (uint32_t x = a->hdr[i].head; x; x = ck(a, x)->next)
		for (uint32_t j = 0; j < ck(a, x)->n; j++, k++)
			if (k < room)
				out[k] = ck(a, x)->tags[j];
	return k;
}

static uint64_t walk(const struct aoa *a)
{
	const struct ck_chunk *chunks = (const struct ck_chunk *)a->s.pool.base;
	uint64_t sum = 0;
	for (size_t i = 1; i < a->n_slots; i++)
		for (uint32_t x = a->hdr[i].head; x; x = chunks[x].next) {
			const struct ck_chunk *c = &chunks[x];
			for (uint32_t j = 0; j < c->n; j++)
				sum += c->tags[j];
		}
#if CK_SORTED
	sort_after_walk(a);
#endif
	return sum;
}

static void store_memory(const struct aoa *a, struct dod_tags_memory *m)
{
	m->tags = a->s.tags;
	m->unit_bytes = a->s.live_nodes * NB;
}

/* One live entity's chain: chunks below n_nodes, not free, the head 1..K full, the
 * others K; adds its chunks and tags to *chunks, *tags. */
static int check_chain(const struct aoa *a, uint32_t i, size_t *chunks, size_t *tags,
                       char *why, size_t len)
{
#if CK_SORTED
	uint32_t prev = 0;
#endif
	for (uint32_t x = a->hdr[i].head; x; x = ck(a, x)->next) {
		const struct ck_chunk *c = ck(a, x);
		if (x >= a->s.pool.n_nodes || (c->next & AOA_POOL_FREE))
			return dod_check_fail(why, len, "entity slot %u's chain reaches chunk %u, %s", i,
			                      x, x >= a->s.pool.n_nodes ? "past n_nodes" : "a free one");
		if (c->n < 1 || c->n > K || (x != a->hdr[i].head && c->n != K))
			return dod_check_fail(why, len, "entity slot %u: chunk %u holds %u tags (%s)", i,
			                      x, c->n, x == a->hdr[i].head ? "head" : "not the head");
#if CK_SORTED
		if (c->back != (x == a->hdr[i].head ? (CK_HEAD | i) : prev))
			return dod_check_fail(why, len, "entity slot %u: chunk %u's back link is %#x, "
			                      "not its predecessor", i, x, c->back);
		prev = x;
#endif
		if (++*chunks > a->s.live_nodes)
			return dod_check_fail(why, len, "the chains hold more than %zu chunks (a cycle "
			                      "or a shared chunk)", a->s.live_nodes);
		*tags += c->n;
	}
	return DOD_OK;
}

static int store_check(const struct aoa *a, char *why, size_t len)
{
	const struct aoa_pool *p = &a->s.pool;
	int err = pool_check(p, NB, why, len);
	size_t chunks = 0, tags = 0;
	for (uint32_t i = 1; !err && i < a->n_slots; i++)
		err = check_chain(a, i, &chunks, &tags, why, len);
	if (err)
		return err;
	if (chunks != a->s.live_nodes || tags != a->s.tags ||
	    chunks + p->n_free != p->n_nodes - 1)
		return dod_check_fail(why, len, "%zu chunks and %zu tags in chains, counts %zu and "
		                      "%zu, %zu free of %zu nodes", chunks, tags, a->s.live_nodes,
		                      a->s.tags, p->n_free, p->n_nodes);
#if CK_SORTED
	return sort_check(a, why, len);
#else
	return DOD_OK;
#endif
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
#if CK_SORTED
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "chunks {n, tags[8], back, next} in one array, index 0 nil, sorted "
	          "incrementally by (entity, position in chain) (the article's suggestion)",
#else
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "chunks {n, tags[K], next} in one array, index 0 nil",
#endif
	AOA_CORE_OPS,
};
