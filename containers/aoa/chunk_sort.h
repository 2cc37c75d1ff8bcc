/* chunk_sort.h - aoa_chunked8_sorted's incremental sort of its chunk buffer: chunked.c
 * compiled with the layout word chunk8_sorted (CK_SORTED) includes it. Source: Niklas Gray,
 * "Allocation Adventures 2: Arrays of Arrays" (Bitsquid, 2015): a chain's chunks scatter
 * over the buffer, so a walk misses on every chunk; the article suggests sorting the
 * chunks so that each entity's are contiguous, incrementally ("e.g. a two-way bubble
 * sort"), a bounded amount of work at a time; it does not build it (claim D5).
 *
 * The target order: by (entity slot, position in the chain): the chains of slots 1, 2, ...
 * one after the other from chunk 1 on, each head first, and no free chunk among them.
 *
 *   chunk   { n, tags[8], back, next }   44 B (aoa_chunked8's 40 + back: 10% more)
 *           back: the chain's previous chunk, or CK_HEAD | entity slot for a head, so a
 *           chunk can move in O(1): what points at it is found from it
 *   hdr     [ nil | head 1 | head 2 | 0 (no tags) | head 4 | ... ]
 *   chunks  [ nil | 1.0 1.1 1.2 2.0 | 4.0 ... (slot.position) | 9.1 6.0 ... | capacity ]
 *                  \___ 1 .. placed ___/  \_ placed + 1 .. n_nodes - 1: every chunk
 *                   in target order while     the pass has yet to reach is here (I1)
 *                   the pass is clean
 *
 * No free chunks: a chunk that empties (remove) or goes with its entity (erase) is filled
 * at once by the buffer's last chunk, moved (O(1) through back), so the live chunks are
 * always 1 .. n_nodes - 1, node_pool.h's free list stays empty and nodes are taken only
 * at the end: "free chunks sort to the end" holds by construction.
 *
 * Why not the bubble sort: a random buffer of N chunks (an interleaved build) has about
 * N^2 / 4 inversions and a bubble swap removes one, so a bounded number of swaps per
 * access would never sort 10^6 chunks; and its comparison needs a chunk's position in its
 * chain, which a chunk does not hold. The chains say directly which chunk comes next in
 * the target order, so a placement pass needs no comparison and sorts any order in one
 * pass: cursor {entered, at, placed}: the pass has entered slots 1 .. entered, `at` is the
 * next chunk of slot entered's chain to place (0: that chain is done). A step enters the
 * next slot (at = its head) or places `at` at placed + 1 (a swap of two chunks when it is
 * not there already, both relinked) and moves `at` along its chain. A pass takes
 * (n_slots - 1) + live chunks steps, each O(1). When it has entered the last slot and
 * placed its chain, it starts again from slot 1 if `dirty`, else the buffer is sorted
 * and a step is one test until the next change.
 *
 * Changes during a pass set `dirty` when they may break the placed prefix: a new head
 * chunk for a slot the pass has entered (it is taken at the buffer's end), or a freed
 * chunk among the placed ones (the chunk at `placed` fills its place, placed shrinks by
 * one, the last chunk fills the hole at placed + 1). A change past the cursor needs
 * nothing: the pass will reach it. The pass goes on either way (what it has not reached
 * it still sorts) and starts again when it ends.
 *
 * Invariants (sort_check, after chunked.c's store_check; O(slots + chunks)): no free
 * chunk (n_free 0, live_nodes = n_nodes - 1); every chunk's back names its predecessor
 * (chunked.c's check_chain); entered < n_slots; `at` is 0 or on slot entered's chain;
 * I1: every chunk the pass has yet to reach (slot entered's chain from `at`, the chains
 * of the slots after it) lies past placed, and placed < n_nodes; not dirty: chunks 1 ..
 * placed are the chunks the pass reached, in pass order. So a pass that ends clean leaves
 * every chunk at its place in the target order (tests/test_aoa.c checks that from the
 * chunks' indices, aoa/sort_hook.h).
 *
 * Work bound: a step is at most one swap (two 44 B chunks copied, up to four links and a
 * header rewritten). A successful insert_n, erase_n, add_n or remove_n runs at most
 * SORT_STEPS_PER_ITEM steps per item after its batch (never inside it: add_n's undo takes
 * its chunks back from the buffer's end); 2, because an add takes at most one chunk, which
 * costs the pass at most one placement and one slot entry, so its work keeps pace with a
 * build; the chunks taken behind the cursor wait for the next pass, though, so a build
 * does not end sorted. A walk runs at most one pass' worth after its sum, (n_slots - 1)
 * + live chunks steps, one per slot and chunk it visited, so two walks after the last
 * change always leave the buffer sorted (the rest of the current pass, then a clean
 * one): tags_walk's setup walks twice before the timed walk. Sorted, a walk's steps cost
 * one test; the walk itself is aoa_chunked8's.
 * walk_sum is const in the contract: the sort changes no tag, no list's order and no
 * statistic, so the walk casts the qualifier away (the container was calloc'd, never
 * defined const: the write is defined).
 */
#ifndef DOD_AOA_CHUNK_SORT_H
#define DOD_AOA_CHUNK_SORT_H

#include "aoa/sort_hook.h"

#define CK_HEAD UINT32_C(0x80000000) /* back of a head: entity slots are below 2^31 */
#define SORT_STEPS_PER_ITEM 2

/* x's predecessor (a chunk or the entity's header) and successor point at x. */
static void ck_relink(struct aoa *a, uint32_t x)
{
	const struct ck_chunk *c = ck(a, x);
	if (c->back & CK_HEAD)
		a->hdr[c->back & ~CK_HEAD].head = x;
	else
		ck(a, c->back)->next = x;
	if (c->next)
		ck(a, c->next)->back = x;
}

/* The chunk at from moves to the unreferenced place to. */
static void ck_move(struct aoa *a, uint32_t from, uint32_t to)
{
	*ck(a, to) = *ck(a, from);
	ck_relink(a, to);
}

static inline uint32_t ck_swapped(uint32_t v, uint32_t x, uint32_t y)
{
	return v == x ? y : v == y ? x : v;
}

/* Chunks x and y (both live, x != y) trade places; links between them are renamed first,
 * so neighbours in one chain are swapped right. */
static void ck_swap(struct aoa *a, uint32_t x, uint32_t y)
{
	struct ck_chunk t = *ck(a, x);
	*ck(a, x) = *ck(a, y);
	*ck(a, y) = t;
	for (int k = 0; k < 2; k++) {
		struct ck_chunk *c = ck(a, k ? y : x);
		c->next = ck_swapped(c->next, x, y); /* 0 stays 0: x, y >= 1 */
		if (!(c->back & CK_HEAD))
			c->back = ck_swapped(c->back, x, y);
	}
	ck_relink(a, x);
	ck_relink(a, y);
}

static bool sort_done(const struct aoa *a)
{
	const struct ck_sort *st = &a->s.sort;
	return st->entered + 1 >= a->n_slots && !st->at && !st->dirty;
}

/* At most budget steps of the pass; returns the steps run. Not inlined: its loops are not
 * the walk's (scripts/vec-table.sh reads walk_sum's). */
__attribute__((noinline)) static size_t sort_steps(struct aoa *a, size_t budget)
{
	struct ck_sort *st = &a->s.sort;
	size_t done = 0;
	while (done < budget) {
		if (st->at) {
			uint32_t p = st->placed + 1;
			if (st->at != p) {
				ck_swap(a, st->at, p);
				st->swaps++;
			}
			st->at = ck(a, p)->next;
			st->placed = p;
		} else if (st->entered + 1 < a->n_slots) {
			st->at = a->hdr[++st->entered].head;
		} else if (st->dirty) { /* the pass ended: again, from slot 1 (no step) */
			st->entered = st->placed = 0;
			st->dirty = false;
			continue;
		} else {
			break; /* sorted */
		}
		done++;
	}
	st->steps += done;
	return done;
}

/* AOA_TIDY's hooks (aoa/aoa_core.h). */
static void store_tidy(struct aoa *a, size_t items)
{
	if (!sort_done(a))
		sort_steps(a, items <= SIZE_MAX / SORT_STEPS_PER_ITEM ? SORT_STEPS_PER_ITEM * items
		                                                      : SIZE_MAX);
}
static void tidy_reset(struct aoa *a)
{
	struct ck_sort *st = &a->s.sort;
	st->entered = st->at = st->placed = 0;
	st->dirty = false;
}

/* After a walk: at most one pass' worth, a step per slot and chunk visited. */
static void sort_after_walk(const struct aoa *a)
{
	if (!sort_done(a))
		sort_steps((struct aoa *)a, a->n_slots - 1 + a->s.live_nodes);
}

/* Entity i has a new head chunk, taken at the buffer's end: out of place when the pass
 * has entered slot i (its place is in the prefix, or before `at`); else the pass will
 * reach it. */
static void sort_note_push(struct aoa *a, uint32_t i)
{
	if (i <= a->s.sort.entered)
		a->s.sort.dirty = true;
}

/* Chunk h left its chain (unreferenced now, its next still read): the buffer's last chunk
 * fills its place, keeping I1 (see the opening comment). */
static void sort_free(struct aoa *a, uint32_t h)
{
	struct ck_sort *st = &a->s.sort;
	if (st->at == h)
		st->at = ck(a, h)->next;
	if (h <= st->placed) {
		st->dirty = true;
		if (h != st->placed)
			ck_move(a, st->placed, h);
		h = st->placed--;
	}
	uint32_t last = (uint32_t)a->s.pool.n_nodes - 1;
	if (h != last) {
		ck_move(a, last, h);
		if (st->at == last)
			st->at = h;
	}
	a->s.pool.n_nodes--;
}

/* I1 and, when clean, the placed prefix in pass order (see the opening comment). */
static int sort_check(const struct aoa *a, char *why, size_t len)
{
	const struct ck_sort *st = &a->s.sort;
	const struct aoa_pool *p = &a->s.pool;
	if (p->n_free || p->free_head)
		return dod_check_fail(why, len, "%zu free chunks: a freed chunk must be filled",
		                      p->n_free);
	if (st->entered >= a->n_slots || st->placed >= p->n_nodes)
		return dod_check_fail(why, len, "sort cursor: slot %u of %zu, %u placed of %zu "
		                      "chunks", st->entered, a->n_slots, st->placed, p->n_nodes - 1);
	size_t pos = 0; /* the reached chunks' count, in pass order */
	bool reached = true, on_chain = !st->at;
	for (uint32_t i = 1; i < a->n_slots; i++)
		for (uint32_t x = a->hdr[i].head; x; x = ck(a, x)->next) {
			if (i > st->entered || x == st->at)
				reached = false;
			if (x == st->at && i == st->entered)
				on_chain = true;
			if (reached && !st->dirty && x != ++pos)
				return dod_check_fail(why, len, "clean pass: chunk %u of slot %u is "
				                      "reached number %zu", x, i, pos);
			if (!reached && x <= st->placed)
				return dod_check_fail(why, len, "chunk %u of slot %u, not reached yet, "
				                      "lies among the %u placed", x, i, st->placed);
		}
	if (!on_chain)
		return dod_check_fail(why, len, "sort cursor: chunk %u is not on slot %u's chain",
		                      st->at, st->entered);
	if (!st->dirty && pos != st->placed)
		return dod_check_fail(why, len, "clean pass: %zu chunks reached, %u placed", pos,
		                      st->placed);
	return DOD_OK;
}

/* ---- test-only hooks (aoa/sort_hook.h) ---- */

void AOA_SORT_PROBE(const void *c, struct aoa_sort_probe *out)
{
	const struct aoa *a = c;
	out->steps = a->s.sort.steps;
	out->swaps = a->s.sort.swaps;
	out->sorted = sort_done(a);
	out->chunks = a->s.live_nodes;
}

int AOA_SORT_CHAIN(const void *c, uint64_t ent, uint32_t *chunks_out, size_t room,
                   size_t *count_out)
{
	const struct aoa *a = c;
	int err = aoa_ref_error(a, ent);
	if (err)
		return err;
	size_t k = 0;
	for (uint32_t x = a->hdr[bulk_weak_id(ent)].head; x; x = ck(a, x)->next, k++)
		if (k < room)
			chunks_out[k] = x;
	*count_out = k;
	return DOD_OK;
}

size_t AOA_SORT_RUN(void *c, size_t steps) { return sort_steps(c, steps); }

#endif
