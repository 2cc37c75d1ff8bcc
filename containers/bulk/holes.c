/* holes.c - bulk data as an array with holes and a free list (Our Machinery, "Data
 * Structures for game programmers: Bulk Data", "leave a hole" and "weak pointers"), for
 * the removal strategies `holes`, `holes_bitmask` and `holes_runs` and every allocation
 * strategy of containers/alloc/ (the variant table picks both; this file adapts with #if).
 *
 *   items  [ hdr | item | free | item | item | free | ... ]   slot 0 is the header
 *             |            |                    ^
 *             '-- next ----'--- next -----------'--> ... --> 0 (empty: append a slot)
 *   gen    [  0  |   3   |  4   |  1   |  7   |  2   | ... ]  odd = live, even = free
 *          (in each slot beside its item; holes_bitmask: a parallel array)
 *   mask   [ 0b...011010 ]  (holes_bitmask only: one bit per slot, 64 slots a word)
 *
 * The free list is the article's circular list (bulk/free_list.h, shared with swappop.c
 * and particles.c): its header lives in slot 0 (items[0].next), allocation pops
 * items[0].next, and 0 means "no hole: append a slot".
 * The link of a free slot is stored in the first 4 bytes of its own (unused) item memory;
 * the generation lives outside that union because a hole needs it too. holes and
 * holes_runs keep it where the article does, beside the item in the same slot
 * (struct slot { item-or-next; generation; }), so a weak-pointer lookup reads one place;
 * holes_bitmask keeps generations in a parallel gens array, as hub keeps its metadata
 * apart, so its full-group loop streams items only. The slot index is the item's stable
 * id: items never move, and with a non-moving allocation strategy (static, fixblocks,
 * geoblocks, vm) neither do pointers.
 *
 * holes_runs (the article's "store the length of each run of holes in the free slots"; cf.
 * plf::colony's jump-counting skipfield) keeps a skip array instead of scanning holes:
 *   skip   [  -  |   0   |  2   |  0   |  0   |  ... ]   0 = live; a run of L holes has
 *                                                          L in its first and last slot
 * and its free list is a doubly linked circular list of runs (next, prev in the first 8
 * bytes of the run's first slot; header in slot 0): allocation takes the first slot of
 * the first run (the run shrinks from its start), erase merges the new hole with the runs
 * ending just before and starting just after it, all O(1).
 *
 * Iteration visits every slot up to the high-water mark and skips holes:
 *   holes          sum += key & -(gen & 1): branch-free, reads every slot
 *   holes_runs     live slot: add; hole: jump over its whole run (skip[i] slots)
 *   holes_bitmask  per 64-slot group: a full group is a plain loop, any other visits
 *                  the set bits of its occupancy word by count-trailing-zeros, reading
 *                  only live items (the design of boost's proposed `hub`; not in the
 *                  article)
 *
 * Invariants: 1 <= n_slots <= high <= capacity; live = slots with odd generation; the
 * free list holds exactly the n_slots - 1 - live free slots below n_slots; mask bit i set
 * iff slot i is live; slots in [n_slots, high) keep the generation they had, so handles
 * from before a clear stay stale when the slot is handed out again.
 * Costs: insert O(1) (amortized when the strategy grows), erase O(1), lookup O(1),
 * iterate O(high) (holes) or O(high / 64 + live) (bitmask), clear O(high).
 */
#if defined(DOD_LAYOUT_aos_pow2)
/* Layout aos_pow2 (bulk_holes_vm_pow2): the slot { generation; item } padded to a power of
 * two and the store aligned to the cache line, so a weak-pointer lookup touches one line.
 *
 *   line   [ g . item(16) pad(8) | g . item(16) pad(8) ]   16 B items: 32 B slots
 *   line   [ g . item(64) ....                         ]   64 B items: 128 B slots
 *            ^ generation first: with the key beside it, in the slot's first 16 bytes
 *
 * With the article's { item; generation } a 16 B item makes a 24 B slot and one slot in
 * four straddles two lines (items at line offsets 48 and 56); a 64 B item puts the
 * generation in the next line always. Padding to 16, 32, 128, 512 B (8, 16, 64, 256 B
 * items) costs 0, 8, 56, 248 B a slot over the article's 16, 24, 72, 264. Only `holes`
 * takes this layout (holes_runs keeps two links in the item, holes_bitmask its
 * generations apart).
 * Measured (issue 16's target: random lookup, n = 1M, 16 B items, no holes, against
 * plain_array's raw index; this 2-core AMD EPYC VM, 32 MB L3, 4 KiB pages, no THP):
 *   callgrind (build/dodbench-sim, one rep, deterministic), per lookup:
 *     design              instr  D1 read misses  LL misses (32 MB LL)  (8 MB LL)
 *     plain_array           8       1.124           0                   0.767
 *     bulk_holes_vm        18       1.374           0                   1.081
 *     bulk_holes_vm_pow2   17       1.125           0.349               0.994
 *     bulk_holes_vm_line   24       1.124           0                   0.879
 *   (0.124 of each D1 figure is the handle array itself): the one-line layouts remove
 *   the straddle's 0.25 misses a lookup exactly.
 *   time / plain_array's, median [95% bootstrap CI], interleaved, prefaulted:
 *     21 reps, load ~2:     bulk_holes_vm 1.654 [1.614, 1.755]   pow2 2.272 [2.217, 2.468]
 *                           line 2.531 [2.479, 2.693]
 *     11 reps, load ~4-5:   bulk_holes_vm 1.504 [1.397, 2.025]   pow2 1.743 [1.675, 2.367]
 *                           line 2.325 [2.184, 3.157]
 *   Neither one-line layout is faster here: at 32 B a slot pow2's 32 MB is the whole L3
 *   (LL misses above), and line's index arithmetic (a multiply for i / 3) makes the
 *   lookup 24 instructions, so fewer independent lookups fit in the out-of-order window
 *   and overlap their misses. The target (<= 1.15x) is missed by all three.
 *   bytes a slot (memory scenario, n = 2^20, committed / slots): 16 B items 24.06,
 *   32.06, 21.38 (article, pow2, line); 8 B items 16.06, 16.06, 12.81. */
#define BULK_POW2 1
#define BULK_LINE 0
#define DOD_STORE_ALIGNED 64
#elif defined(DOD_LAYOUT_aos_line)
/* Layout aos_line (bulk_holes_vm_line): as many slots as fit whole in one 64 B line, their
 * items first and their generations after them, the store aligned to the line; slot i is
 * in line i / K at place i % K (K constant: a multiply, no division):
 *
 *   line   [ item0 | item1 | item2 | g0 g1 g2 | pad 4 ]    16 B items: K = 3, 21.3 B a slot
 *   line   [ item0 ... item4 (8 B each) | g0 .. g4 | 4 ]    8 B items:  K = 5, 12.8 B a slot
 *
 * A lookup reads one line, like aos_pow2, at fewer bytes a slot than the article's
 * { item; generation } (24 B at 16 B items, 16 B at 8 B): only items of at most 16 B fit
 * more than one to a line, so the variant has the sizes 8 and 16. */
#define BULK_POW2 0
#define BULK_LINE 1
#define DOD_STORE_ALIGNED 64
#else
#define BULK_POW2 0
#define BULK_LINE 0
#endif

#include <stdlib.h>
#include <string.h>

#include "alloc/store.h"
#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"
#include "stale_hook.h"

#if defined(DOD_REMOVAL_holes_bitmask)
#define BULK_BITMASK 1
#define BULK_RUNS 0
#elif defined(DOD_REMOVAL_holes_runs)
#define BULK_BITMASK 0
#define BULK_RUNS 1
#elif defined(DOD_REMOVAL_holes)
#define BULK_BITMASK 0
#define BULK_RUNS 0
#else
#error "holes.c serves the removal strategies holes, holes_bitmask and holes_runs"
#endif
DOD_STORE_CHECK_STABLE_POINTERS(0); /* an erased item leaves a hole: none moves */

#define EB sizeof(DOD_ELEM)
#define MASK_BITS 64 /* holes_bitmask: slots per occupancy word (a uint64_t) */
/* Where the generation lives: beside the item (the article) unless holes_bitmask. */
#define BULK_GEN_INLINE (!BULK_BITMASK)

#if BULK_POW2
#if BULK_BITMASK || BULK_RUNS
#error "layout aos_pow2 serves the removal strategy holes only"
#endif
#if ELEM_BYTES + 8 <= 16
#define BULK_SLOT_BYTES 16
#elif ELEM_BYTES + 8 <= 32
#define BULK_SLOT_BYTES 32
#elif ELEM_BYTES + 8 <= 64
#define BULK_SLOT_BYTES 64
#elif ELEM_BYTES + 8 <= 128
#define BULK_SLOT_BYTES 128
#elif ELEM_BYTES + 8 <= 256
#define BULK_SLOT_BYTES 256
#else
#define BULK_SLOT_BYTES 512
#endif
struct SFX(bulk_slot) {
	uint32_t gen;     /* first: in the key's line whatever the item's size */
	uint32_t unused;
	DOD_ELEM item;    /* a free slot's first 4 bytes: next free */
#if BULK_SLOT_BYTES > ELEM_BYTES + 8
	unsigned char pad[BULK_SLOT_BYTES - ELEM_BYTES - 8];
#endif
};
_Static_assert(sizeof(struct SFX(bulk_slot)) == BULK_SLOT_BYTES, "a power-of-two slot");
#elif BULK_LINE
#if BULK_BITMASK || BULK_RUNS
#error "layout aos_line serves the removal strategy holes only"
#endif
#define BULK_PER_LINE (64 / (ELEM_BYTES + 4))
#if BULK_PER_LINE < 2
#error "layout aos_line needs items of at most 16 bytes"
#endif
struct SFX(bulk_line) {
	DOD_ELEM item[BULK_PER_LINE]; /* a free slot's first 4 bytes: next free */
	uint32_t gen[BULK_PER_LINE];
#if BULK_PER_LINE * (ELEM_BYTES + 4) < 64
	unsigned char pad[64 - BULK_PER_LINE * (ELEM_BYTES + 4)];
#endif
};
_Static_assert(sizeof(struct SFX(bulk_line)) == 64, "one cache line");
#define LINE struct SFX(bulk_line)
#elif BULK_GEN_INLINE
struct SFX(bulk_slot) {
	DOD_ELEM item;  /* a free slot's first 4 bytes: next free (holes_runs: then prev) */
	uint32_t gen;   /* outside the union: a hole has one too */
};
#endif
#if BULK_LINE
#define SB sizeof(LINE) /* a store element is a line of BULK_PER_LINE slots */
#elif BULK_GEN_INLINE
#define SLOT struct SFX(bulk_slot)
#define SB sizeof(SLOT)
#else
#define SB EB
#endif

struct SFX(bulk_holes) {
	dod_store items; /* SB bytes per slot: the item (and its generation if inline); a
	                  * free slot's first 4 bytes: next free */
#if !BULK_GEN_INLINE
	dod_store gens;  /* uint32_t per slot */
#endif
#if BULK_BITMASK
	dod_store mask;  /* uint64_t per MASK_BITS slots */
#endif
#if BULK_RUNS
	dod_store skip;  /* uint32_t per slot: 0 live, else the length of its run (at ends) */
#endif
	size_t n_slots;  /* slots in use or on the free list, slot 0 included */
	size_t high;     /* slots ever handed out (their generations are meaningful) */
	size_t live;
};
#define BH struct SFX(bulk_holes)

#if BULK_LINE
static inline LINE *line_of(const BH *b, size_t i)
{
	return (LINE *)store_at(&b->items, i / BULK_PER_LINE, SB);
}
static inline DOD_ELEM *item(const BH *b, size_t i) { return &line_of(b, i)->item[i % BULK_PER_LINE]; }
static inline uint32_t *gen(const BH *b, size_t i) { return &line_of(b, i)->gen[i % BULK_PER_LINE]; }
/* Store elements (lines) that hold slots [0, slots). */
static inline size_t store_elems(size_t slots) { return (slots + BULK_PER_LINE - 1) / BULK_PER_LINE; }
#define SLOTS_PER_ELEM BULK_PER_LINE
#elif BULK_GEN_INLINE
static inline DOD_ELEM *item(const BH *b, size_t i) { return &((SLOT *)store_at(&b->items, i, SB))->item; }
#else
static inline DOD_ELEM *item(const BH *b, size_t i) { return (DOD_ELEM *)store_at(&b->items, i, SB); }
#endif
#if !BULK_LINE
static inline size_t store_elems(size_t slots) { return slots; }
#define SLOTS_PER_ELEM 1
#endif
#if BULK_LINE
#elif BULK_GEN_INLINE
static inline uint32_t *gen(const BH *b, size_t i) { return &((SLOT *)store_at(&b->items, i, SB))->gen; }
#else
static inline uint32_t *gen(const BH *b, size_t i) { return (uint32_t *)store_at(&b->gens, i, 4); }
#endif
#if BULK_BITMASK
static inline uint64_t *mask_word(const BH *b, size_t i)
{
	return (uint64_t *)store_at(&b->mask, i / MASK_BITS, sizeof(uint64_t));
}
static inline uint64_t mask_bit(size_t i) { return (uint64_t)1 << (i % MASK_BITS); }
#endif
static inline uint32_t next_of(const BH *b, size_t i)
{
	uint32_t next;
	memcpy(&next, item(b, i), sizeof next);
	return next;
}
static inline void set_next(BH *b, size_t i, uint32_t next) { memcpy(item(b, i), &next, sizeof next); }
/* Accessors for bulk/free_list.h and bulk/weak.h. */
static uint32_t *gen_of(void *c, uint32_t id) { return gen(c, id); }
#if !BULK_RUNS
static uint32_t free_link(const void *c, uint32_t x) { return next_of(c, x); }
static void set_free_link(void *c, uint32_t x, uint32_t next) { set_next(c, x, next); }
#endif
#if BULK_RUNS
static inline uint32_t *skip(const BH *b, size_t i) { return (uint32_t *)store_at(&b->skip, i, 4); }
static inline uint32_t prev_of(const BH *b, size_t i)
{
	uint32_t prev;
	memcpy(&prev, (char *)item(b, i) + 4, sizeof prev);
	return prev;
}
static inline void set_prev(BH *b, size_t i, uint32_t prev)
{
	memcpy((char *)item(b, i) + 4, &prev, sizeof prev);
}
/* Puts run node `to` where node `from` is in the circular list of runs. */
static inline void replace_node(BH *b, uint32_t from, uint32_t to)
{
	uint32_t n = next_of(b, from), p = prev_of(b, from);
	set_next(b, to, n);
	set_prev(b, to, p);
	set_prev(b, n, to);
	set_next(b, p, to);
}
static inline void unlink_node(BH *b, uint32_t x)
{
	uint32_t n = next_of(b, x), p = prev_of(b, x);
	set_next(b, p, n);
	set_prev(b, n, p);
}
static inline void push_node(BH *b, uint32_t x)
{
	uint32_t n = next_of(b, 0);
	set_next(b, x, n);
	set_prev(b, x, 0);
	set_prev(b, n, x);
	set_next(b, 0, x);
}
/* Marks [s, s + len) as one run of holes. */
static inline void set_run(BH *b, size_t s, uint32_t len)
{
	*skip(b, s) = len;
	*skip(b, s + len - 1) = len;
}
#endif

static void bh_destroy(void *c)
{
	BH *b = c;
	if (!b)
		return;
	store_free(&b->items);
#if !BULK_GEN_INLINE
	store_free(&b->gens);
#endif
#if BULK_BITMASK
	store_free(&b->mask);
#endif
#if BULK_RUNS
	store_free(&b->skip);
#endif
	free(b);
}

/* Room for slots [0, slots): all stores grow together, all or nothing (a store that did
 * grow keeps its larger capacity, which is harmless). */
static int reserve_slots(BH *b, size_t slots)
{
	int err = store_reserve(&b->items, store_elems(slots));
#if !BULK_GEN_INLINE
	if (!err)
		err = store_reserve(&b->gens, slots);
#endif
#if BULK_BITMASK
	if (!err)
		err = store_reserve(&b->mask, slots / MASK_BITS + 1);
#endif
#if BULK_RUNS
	if (!err)
		err = store_reserve(&b->skip, slots);
#endif
	return err;
}

static int bh_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS)
		return DOD_EINVAL;
	BH *b = calloc(1, sizeof *b);
	if (!b)
		return DOD_ENOMEM;
	int err = store_init(&b->items, SB, store_elems(capacity_elems + 1));
#if !BULK_GEN_INLINE
	if (!err && (err = store_init(&b->gens, 4, capacity_elems + 1)) != 0)
		store_free(&b->items);
#endif
#if BULK_BITMASK
	if (!err && (err = store_init(&b->mask, sizeof(uint64_t),
	                              (capacity_elems + 1) / MASK_BITS + 1)) != 0) {
		store_free(&b->items);
		store_free(&b->gens);
	}
#endif
#if BULK_RUNS
	if (!err && (err = store_init(&b->skip, 4, capacity_elems + 1)) != 0)
		store_free(&b->items);
#endif
	if (err) {
		free(b);
		return err;
	}
	b->n_slots = b->high = 1;
	set_next(b, 0, 0);
#if BULK_RUNS
	set_prev(b, 0, 0);
	*skip(b, 0) = 0;
#endif
	*gen(b, 0) = 0;
#if BULK_BITMASK
	*mask_word(b, 0) = 0;
#endif
	*out = b;
	return DOD_OK;
}

/* Hands out one slot: a hole from the free list (holes_runs: the first slot of the first
 * run), else the next slot (bulk_slot_append). Capacity must have been reserved. */
static inline uint32_t take_slot(BH *b)
{
#if BULK_RUNS
	uint32_t i = next_of(b, 0);
	if (i) { /* the first slot of the first run; the rest of the run stays a run */
		uint32_t len = *skip(b, i);
		if (len == 1) {
			unlink_node(b, i);
		} else {
			replace_node(b, i, i + 1);
			set_run(b, i + 1, len - 1);
		}
		*skip(b, i) = 0;
		return i;
	}
#else
	uint32_t i = bulk_free_pop(b, free_link, set_free_link);
	if (i)
		return i;
#endif
	size_t had = b->high;
	i = bulk_slot_append(&b->n_slots, &b->high, gen_of, b);
#if BULK_BITMASK
	/* The first slot of a group never handed out: its occupancy word starts empty. */
	if (i >= had && i % MASK_BITS == 0)
		*mask_word(b, i) = 0;
#endif
#if BULK_RUNS
	*skip(b, i) = 0;
#endif
	(void)had;
	return i;
}

static int bh_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	BH *b = c;
	size_t fresh;
	int err = bulk_fresh_slots(b->n_slots, b->live, n, &fresh);
	if (!err)
		err = reserve_slots(b, b->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = take_slot(b);
		uint32_t g = bulk_gen_next(*gen(b, i));
		*gen(b, i) = g;
		SFX(dod_elem_init)(item(b, i), first_key + k);
#if BULK_BITMASK
		*mask_word(b, i) |= mask_bit(i);
#endif
		if (handles_out)
			handles_out[k] = bulk_weak(i, g);
	}
	b->live += n;
	return DOD_OK;
}

static inline int check(const BH *b, uint64_t h)
{
	return bulk_weak_check_at(h, b->n_slots, gen_of, b);
}

/* All or nothing without an extra allocation: bulk_weak_check_batch validates every weak
 * pointer first (a repeat fails as DOD_EFREE), then all are erased. */
static int bh_erase_n(void *c, const uint64_t *hs, size_t n)
{
	BH *b = c;
	int err = bulk_weak_check_batch(hs, n, b->n_slots, gen_of, b);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		*gen(b, i) = bulk_gen_next(*gen(b, i));
#if BULK_RUNS
		/* Merge with the run ending at i - 1 and the run starting at i + 1. */
		uint32_t left = i > 1 ? *skip(b, i - 1) : 0;
		uint32_t right = i + 1 < b->n_slots ? *skip(b, i + 1) : 0;
		if (left && right) {
			unlink_node(b, i + 1);
			set_run(b, i - left, left + 1 + right);
		} else if (left) {
			set_run(b, i - left, left + 1);
		} else if (right) {
			replace_node(b, i + 1, i);
			set_run(b, i, right + 1);
		} else {
			push_node(b, i);
			set_run(b, i, 1);
		}
#else
		bulk_free_push(b, i, free_link, set_free_link);
#endif
#if BULK_BITMASK
		*mask_word(b, i) &= ~mask_bit(i);
#endif
	}
	b->live -= n;
	return DOD_OK;
}

#if BULK_LINE
/* aos_line's iteration: whole lines run by run, each slot masked by its generation (slot
 * 0's is 0); the slots of the last line at or past n_slots may never have been handed
 * out, so that line is read slot by slot. */
static uint64_t line_sum(const BH *b)
{
	uint64_t sum = 0;
	size_t full = b->n_slots / BULK_PER_LINE;
	for (size_t l = 0; l < full;) {
		size_t run = store_run(&b->items, l);
		run = run < full - l ? run : full - l;
		const LINE *ln = (const LINE *)store_at(&b->items, l, SB);
		for (size_t k = 0; k < run; k++)
			for (unsigned j = 0; j < BULK_PER_LINE; j++)
				sum += ln[k].item[j].key & -(uint64_t)(ln[k].gen[j] & BULK_LIVE);
		l += run;
	}
	for (size_t i = full * BULK_PER_LINE; i < b->n_slots; i++)
		sum += item(b, i)->key & -(uint64_t)(*gen(b, i) & BULK_LIVE);
	return sum;
}
#endif

static uint64_t bh_iterate_sum(const void *c)
{
	const BH *b = c;
	uint64_t sum = 0;
#if BULK_BITMASK
	/* Every strategy's blocks hold whole 64-slot groups, so a group is contiguous. A full
	 * group is a plain loop of fixed trip count 64, which gcc -O2 vectorizes (measured:
	 * 0.52 -> 0.15 of colony's time at no holes, n = 100k); any other group visits its set
	 * bits by count-trailing-zeros, reading only live items. A masked loop over all 64
	 * slots lost at half-full groups: it does not vectorize at -O2 (~5 scalar instructions
	 * per slot). */
	for (size_t g = 0; g * MASK_BITS < b->n_slots; g++) {
		const DOD_ELEM *base = item(b, g * MASK_BITS);
		uint64_t m = *mask_word(b, g * MASK_BITS);
		if (m == ~(uint64_t)0) {
			for (unsigned j = 0; j < MASK_BITS; j++)
				sum += base[j].key;
		} else {
			for (; m; m &= m - 1)
				sum += base[__builtin_ctzll(m)].key;
		}
	}
#elif BULK_RUNS
	/* A run of holes is jumped in one step; runs may cross block boundaries, so every slot
	 * is addressed through the store. Two loops, picked by the share of holes:
	 * - few holes: "if hole, jump the run, else add". The branch is predicted "item" and
	 *   the next address does not wait for a load, so items stream.
	 * - many holes (more than a quarter of the slots): plf::colony's jump-counting
	 *   increment, with no branch on "hole or item": from an item, step one and add that
	 *   slot's skip value (0 for an item, the run's length at a run's first slot; runs
	 *   are maximal, so the jump lands on an item or the end). Each step waits for the
	 *   skip load, but nothing mispredicts.
	 * Measured (n = 1M, 8 and 16 B, colony's time / ours): the branchy loop alone was
	 * 1.7-2.0x at no holes but 0.41-0.46x at 50% random holes (a mispredict per short
	 * run); the jump loop alone 0.72-0.84x at 50% random but 0.72-0.77x at no holes. */
	size_t n_slots = b->n_slots;
	if ((n_slots - 1 - b->live) * 4 <= n_slots) {
		for (size_t i = 1; i < n_slots;) {
			uint32_t hole = *skip(b, i);
			if (hole) {
				i += hole;
				continue;
			}
			sum += item(b, i)->key;
			i++;
		}
	} else {
		for (size_t i = n_slots > 1 ? 1 + *skip(b, 1) : 1; i < n_slots;) {
			sum += item(b, i)->key;
			if (++i >= n_slots)
				break;
			i += *skip(b, i);
		}
	}
#elif BULK_LINE
	sum = line_sum(b);
#else
	for (size_t i = 1; i < b->n_slots;) {
		size_t run = store_run(&b->items, i);
		run = run < b->n_slots - i ? run : b->n_slots - i;
		const SLOT *s = (const SLOT *)store_at(&b->items, i, SB);
		for (size_t k = 0; k < run; k++)
			sum += s[k].item.key & -(uint64_t)(s[k].gen & BULK_LIVE);
		i += run;
	}
#endif
	return sum;
}

/* A branch per check, predicted taken: the item's address comes straight from the id, so
 * independent lookups overlap their cache misses. (A branch-free variant that reads slot 0
 * for an out-of-range id and ORs mismatches together was measured slower: 1.8x against
 * this loop's 1.4x of plain_array's time at n = 1M, 16 B, random order.) */
static int bh_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const BH *b = c;
	size_t n_slots = b->n_slots;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = bulk_weak_id(hs[k]);
		if (id - 1u >= n_slots - 1 || *gen(b, id) != bulk_weak_gen(hs[k]) ||
		    !(bulk_weak_gen(hs[k]) & BULK_LIVE))
			return check(b, hs[k]);
		sum += item(b, id)->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

/* dod_ops.item_addr: the slot's item, where the store holds it now. */
static const void *bh_item_addr(const void *c, uint64_t h)
{
	return check(c, h) == DOD_OK ? (const void *)item(c, bulk_weak_id(h)) : NULL;
}

static size_t bh_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	return bulk_weak_count_valid(hs, n, ((const BH *)c)->n_slots, gen_of, c);
}

/* Every item goes; live slots' generations are bumped, so old weak pointers are stale;
 * the slots are handed out again in order. */
static int bh_clear(void *c)
{
	BH *b = c;
	for (size_t i = 1; i < b->n_slots; i++)
		if (*gen(b, i) & BULK_LIVE)
			*gen(b, i) = bulk_gen_next(*gen(b, i));
#if BULK_BITMASK
	for (size_t g = 0; g * MASK_BITS < b->high; g++)
		*mask_word(b, g * MASK_BITS) = 0;
#endif
	b->n_slots = 1;
	b->live = 0;
	set_next(b, 0, 0);
#if BULK_RUNS
	set_prev(b, 0, 0);
#endif
	return DOD_OK;
}

static void bh_dump_keys(const void *c, uint64_t *keys_out)
{
	const BH *b = c;
	for (size_t i = 1; i < b->n_slots; i++)
		if (*gen(b, i) & BULK_LIVE)
			*keys_out++ = item(b, i)->key;
}

static size_t bh_size(const void *c) { return ((const BH *)c)->live; }

/* The container and what `bytes` says of each of its stores: committed bytes (the
 * footprint: what the process holds; a vm reservation beyond it costs nothing) or
 * reserved address space. */
static size_t bytes_held(const BH *b, size_t (*bytes)(const dod_store *))
{
	return sizeof *b + bytes(&b->items)
#if !BULK_GEN_INLINE
	       + bytes(&b->gens)
#endif
#if BULK_BITMASK
	       + bytes(&b->mask)
#endif
#if BULK_RUNS
	       + bytes(&b->skip)
#endif
	        ;
}
static size_t bh_footprint(const void *c) { return bytes_held(c, store_committed_bytes); }
static size_t bh_reserved(const void *c) { return bytes_held(c, store_reserved_bytes); }

/* The counts, and every store holding the slots ever handed out. */
static int check_counts(const BH *b, char *why, size_t len)
{
	size_t cap = store_capacity(&b->items) * SLOTS_PER_ELEM;
	if (b->n_slots < 1 || b->n_slots > b->high || b->high > cap || b->live > b->n_slots - 1)
		return dod_check_fail(why, len, "counts: n_slots %zu, high %zu, capacity %zu, live %zu",
		                      b->n_slots, b->high, cap, b->live);
#if !BULK_GEN_INLINE
	if (store_capacity(&b->gens) < b->high)
		return dod_check_fail(why, len, "gens hold %zu of %zu slots",
		                      store_capacity(&b->gens), b->high);
#endif
#if BULK_BITMASK
	if (store_capacity(&b->mask) < (b->high + MASK_BITS - 1) / MASK_BITS)
		return dod_check_fail(why, len, "mask holds %zu words for %zu slots",
		                      store_capacity(&b->mask), b->high);
#endif
#if BULK_RUNS
	if (store_capacity(&b->skip) < b->high)
		return dod_check_fail(why, len, "skip holds %zu of %zu slots",
		                      store_capacity(&b->skip), b->high);
#endif
	return DOD_OK;
}

#if BULK_BITMASK
/* The mask equals liveness, over every word in use (slots past high: 0). */
static int check_mask(const BH *b, char *why, size_t len)
{
	for (size_t i = 0; i < (b->high + MASK_BITS - 1) / MASK_BITS * MASK_BITS; i++) {
		int bit = (*mask_word(b, i) & mask_bit(i)) != 0;
		int is_live = i < b->high && (*gen(b, i) & BULK_LIVE);
		if (bit != is_live)
			return dod_check_fail(why, len, "mask bit %zu is %d, slot is %s", i, bit,
			                      is_live ? "live" : "free");
	}
	return DOD_OK;
}
#endif

#if BULK_RUNS
/* The skip array: 0 on slot 0 and on live slots, a maximal run's length at both its ends.
 * Writes the number of runs to *runs. */
static int check_skip(const BH *b, size_t *runs, char *why, size_t len)
{
	*runs = 0;
	if (*skip(b, 0) != 0)
		return dod_check_fail(why, len, "skip[0] is %u", *skip(b, 0));
	for (size_t i = 1; i < b->n_slots;) {
		if (*gen(b, i) & BULK_LIVE) {
			if (*skip(b, i) != 0)
				return dod_check_fail(why, len, "live slot %zu has skip %u", i, *skip(b, i));
			i++;
			continue;
		}
		size_t e = i;
		while (e + 1 < b->n_slots && !(*gen(b, e + 1) & BULK_LIVE))
			e++;
		uint32_t want = (uint32_t)(e - i + 1);
		if (*skip(b, i) != want || *skip(b, e) != want)
			return dod_check_fail(why, len, "run of holes [%zu, %zu]: skip %u at its start and "
			                      "%u at its end, not %u", i, e, *skip(b, i), *skip(b, e), want);
		(*runs)++;
		i = e + 1;
	}
	return DOD_OK;
}

/* The circular list of runs: only run starts, each once (a node is a run start, and the
 * walk is bounded by the number of runs), back links matching. */
static int check_run_list(const BH *b, size_t runs, char *why, size_t len)
{
	size_t nodes = 0;
	uint32_t prev = 0;
	for (uint32_t x = next_of(b, 0); x != 0; prev = x, x = next_of(b, x)) {
		if (x >= b->n_slots || (*gen(b, x) & BULK_LIVE) || (x > 1 && !(*gen(b, x - 1) & BULK_LIVE)))
			return dod_check_fail(why, len, "run list reaches slot %u, not the start of a run", x);
		if (prev_of(b, x) != prev)
			return dod_check_fail(why, len, "run list: slot %u's prev is %u, not %u", x,
			                      prev_of(b, x), prev);
		if (++nodes > runs)
			return dod_check_fail(why, len, "run list longer than the %zu runs (a cycle)", runs);
	}
	if (nodes != runs)
		return dod_check_fail(why, len, "run list holds %zu of %zu runs", nodes, runs);
	if (prev_of(b, 0) != prev)
		return dod_check_fail(why, len, "run list: header's prev is %u, not %u", prev_of(b, 0),
		                      prev);
	return DOD_OK;
}
#endif

/* The invariants of the opening comment, with the first violation's reason in why (see
 * dod_ops.check): counts and capacities, generations (bulk_check_gens: slot 0 and the
 * slots past n_slots never live, no erase_n mark left, every live slot's weak pointer
 * valid), the bitmask equal to liveness, and the free list: holes, holes_bitmask a singly
 * linked list of exactly the free slots below n_slots (bulk_check_free_list: in bounds,
 * acyclic, each once, ending at 0); holes_runs the skip array (0 on live slots, a maximal
 * run's length at both its ends) and a circular doubly linked list of exactly the runs'
 * first slots. O(high). */
static int bh_check(const void *c, char *why, size_t len)
{
	const BH *b = c;
	int err = check_counts(b, why, len);
	if (!err)
		err = bulk_check_gens(b, gen_of, b->n_slots, b->high, b->live, why, len);
#if BULK_BITMASK
	if (!err)
		err = check_mask(b, why, len);
#endif
#if BULK_RUNS
	size_t runs = 0;
	if (!err)
		err = check_skip(b, &runs, why, len);
	if (!err)
		err = check_run_list(b, runs, why, len);
#else
	if (!err)
		err = bulk_check_free_list(b, free_link, gen_of, b->n_slots, b->n_slots - 1 - b->live,
		                           why, len);
#endif
	return err;
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free slot of weak
 * pointer h (a hole, or a slot past n_slots that keeps its generation). Insert and erase
 * each add 1 to the 31-bit generation (bulk_gen_next), so k cycles add 2k mod 2^31. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	BH *b = c;
	uint32_t i = bulk_weak_id(h);
	if (i == 0 || i >= b->high || (*gen(b, i) & BULK_LIVE))
		return DOD_EINVAL;
	*gen(b, i) = (uint32_t)((*gen(b, i) + 2 * k) & BULK_GEN_MASK);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, Data Structures for game programmers: Bulk Data (Our Machinery)"
#if BULK_BITMASK
	          " + occupancy bitmask (boost hub's design)"
#endif
#if BULK_RUNS
	          ", runs of holes skipped in one step"
#endif
	,
	.max_elems = BULK_MAX_SLOTS - 1,
	.create = bh_create,
	.destroy = bh_destroy,
	.insert_n = bh_insert_n,
	.iterate_sum = bh_iterate_sum,
	.lookup_sum = bh_lookup_sum,
	.erase_n = bh_erase_n,
	.count_valid = bh_count_valid,
	.clear = bh_clear,
	.dump_keys = bh_dump_keys,
	.size = bh_size,
	.footprint_bytes = bh_footprint,
	.reserved_bytes = bh_reserved,
	.check = bh_check,
	.item_addr = bh_item_addr,
};
