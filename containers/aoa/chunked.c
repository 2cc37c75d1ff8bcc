/* chunked.c - aoa_chunked8 and aoa_chunked14: every entity's tags as a chain of chunks
 * {n, tags[K], next}, all chunks in one buffer (Niklas Gray, "Allocation Adventures 2:
 * Arrays of Arrays", Bitsquid 2015: "instead of one tag per node, store several";
 * containers/aoa_contract.h). K comes from the variant's layout column: chunk8 (K = 8,
 * the article's: 40 B a chunk) or chunk14 (K = 14: 64 B, a chunk fills a cache line).
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
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aoa/node_pool.h"

#if defined(DOD_LAYOUT_chunk8)
#define K 8
#elif defined(DOD_LAYOUT_chunk14)
#define K 14
#else
#error "chunked.c: the variant's layout column must be chunk8 or chunk14"
#endif

#define AOA_MAX_TAGS 0
typedef struct {
	uint32_t head; /* first chunk, 0 = no tags */
} AOA_HDR;
struct aoa_store {
	struct aoa_pool pool;
	size_t live_nodes, tags; /* chunks in chains, tags in them */
};

#include "aoa/aoa_core.h"

struct ck_chunk {
	uint32_t n;
	uint32_t tags[K];
	uint32_t next; /* last: node_pool.h's free link */
};
#define NB sizeof(struct ck_chunk)

static inline struct ck_chunk *ck(const struct aoa *a, uint32_t x)
{
	return (struct ck_chunk *)pool_at(&a->s.pool, x, NB);
}

#include "aoa/chain_hooks.h"

static void hdr_release(struct aoa *a, uint32_t i)
{
	for (uint32_t x = a->hdr[i].head, next; x; x = next) {
		next = ck(a, x)->next;
		a->s.tags -= ck(a, x)->n;
		pool_give(&a->s.pool, x, NB);
		a->s.live_nodes--;
	}
	a->hdr[i].head = 0;
}

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	uint32_t h = a->hdr[i].head;
	if (!h || ck(a, h)->n == K) {
		int err = DOD_OK;
		uint32_t x = pool_take(&a->s.pool, NB, &err);
		if (!x)
			return err;
		ck(a, x)->n = 0;
		ck(a, x)->next = h;
		a->hdr[i].head = h = x;
		a->s.live_nodes++;
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
	if (--ck(a, h)->n == 0) { /* the add made this chunk: it goes back */
		a->hdr[i].head = ck(a, h)->next;
		pool_untake(&a->s.pool, h, NB);
		a->s.live_nodes--;
	}
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
			if (hc->n == 0) {
				a->hdr[i].head = hc->next;
				pool_give(&a->s.pool, h, NB);
				a->s.live_nodes--;
			}
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
	for (uint32_t x = a->hdr[i].head; x; x = ck(a, x)->next) {
		const struct ck_chunk *c = ck(a, x);
		if (x >= a->s.pool.n_nodes || (c->next & AOA_POOL_FREE))
			return dod_check_fail(why, len, "entity slot %u's chain reaches chunk %u, %s", i,
			                      x, x >= a->s.pool.n_nodes ? "past n_nodes" : "a free one");
		if (c->n < 1 || c->n > K || (x != a->hdr[i].head && c->n != K))
			return dod_check_fail(why, len, "entity slot %u: chunk %u holds %u tags (%s)", i,
			                      x, c->n, x == a->hdr[i].head ? "head" : "not the head");
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
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "chunks {n, tags[K], next} in one array, index 0 nil",
	AOA_CORE_OPS,
};
