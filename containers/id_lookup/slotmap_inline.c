/* slotmap_inline.c - weak pointers built for random lookup: the generation in the item's
 * cache line, a branch-free validity check over the batch, and a software prefetch of
 * the line of the handle SLI_AHEAD places ahead. Not from an article: the design the
 * measurements of slotmap_versioned and bulk_holes_vm_pow2 / _line (containers/bulk/slots_pow2.h)
 * point to.
 *
 *   line (64 B, the store aligned to 64):
 *     16 B items  [ item0 | item1 | item2 | g0 g1 g2 | pad 4 ]        K = 3 slots
 *      8 B items  [ item0 .. item4 (8 B each) | g0 .. g4 | pad 4 ]     K = 5 slots
 *   slot id = line << SLI_PB | place (place < K; 2^SLI_PB * ELEM_BYTES = 64)
 *   item at byte id * ELEM_BYTES of the store; generation (uint32) at byte
 *   K * ELEM_BYTES + 4 * place of the same line; the pad word stays 0.
 *   handle  = generation << 32 | slot id
 *
 * The id carries the line and the place as bit fields, so a lookup finds both with a shift
 * and a mask (bulk_holes_vm_line numbers slots densely and pays a multiply for i / K).
 *
 * Generations as slotmap_versioned: odd = live, even = free; insert makes the slot's
 * generation odd (| 1), erase adds one (wrapping 2^32 - 1 to 0). A never-used slot has
 * generation 0. A handle is valid iff its slot was handed out and the slot's generation
 * equals the handle's, which is odd. Free slots form a LIFO list through the first 4
 * bytes of their item memory (slot ids, SLI_NONE the end); insert pops it, then appends
 * (slot number s = n_slots goes to line s / K, place s % K; new lines are zeroed).
 *
 * lookup_sum, per block of SLI_BLOCK handles: a format check that reads no slot (line
 * below n_lines, place below K, generation odd; vectorized), then per handle the key added
 * and the generation mismatch OR-ed into one flag (no branch), with a prefetch of the line
 * of the handle SLI_AHEAD places on. Only when the check or the flag fails does a second
 * walk find the first invalid handle and return its error (sum_out untouched: unspecified
 * by the contract).
 *
 * Invariants (checked by sli_check): n_slots <= K * lines allocated; live = slots below
 * n_slots with odd generation; slots at or past n_slots and every pad word are 0; the
 * free list holds exactly the n_slots - live even-generation slots below n_slots, each
 * once, and ends at SLI_NONE; every live slot's handle is accepted.
 * Costs: insert O(1) amortized (x2 realloc of the lines), erase O(1), lookup O(1) (one
 * line), iterate O(n_slots), clear O(n_slots) (every live slot erased, as
 * slotmap_versioned). Bytes a slot: 64 / K = 21.3 (16 B items), 12.8 (8 B items).
 * Sizes 8 and 16 only: a 64 B item leaves no room for its generation in its line.
 *
 * Measured: docs/ARCHITECTURE.md, "The ID-lookup family".
 */
#define DOD_STORE_ALIGNED 64
#include <stdlib.h>
#include <string.h>

#include "alloc/store.h"
#include "contract.h"
#include "dod_common.h"
#include "stale_hook.h"

DOD_STORE_CHECK_STABLE_POINTERS(0); /* an erased item leaves a free slot: none moves */

#define SLI_LINE 64
#if ELEM_BYTES == 16
#define SLI_K 3
#define SLI_PB 2
#elif ELEM_BYTES == 8
#define SLI_K 5
#define SLI_PB 3
#else
#error "slotmap_inline: items of 8 or 16 bytes only (variants.tsv sizes 8,16)"
#endif
#define SLI_GEN0 (SLI_K * ELEM_BYTES) /* the line's byte of place 0's generation */
#define SLI_PAD (SLI_GEN0 + 4 * SLI_K)  /* the line's last 4 bytes: 60 at both sizes */
#define SLI_PLACE_MASK ((1u << SLI_PB) - 1)
#define SLI_NONE UINT32_MAX /* the free list's end: its place is >= K, never a slot */
#define SLI_MAX_LINES ((size_t)(UINT32_MAX >> SLI_PB)) /* ids below SLI_NONE */
#ifndef SLI_AHEAD
#define SLI_AHEAD 32 /* prefetch distance in handles */
#endif
#define SLI_BLOCK 256 /* handles format-checked at a time (2 KiB: stays in L1) */

struct SFX(sli) {
	dod_store lines;    /* SLI_LINE bytes per element: one cache line of K slots */
	size_t n_slots;     /* slots handed out: slot number s is line s / K, place s % K */
	size_t n_lines;     /* lines holding a handed-out slot: ceil(n_slots / K) */
	size_t live;
	uint32_t free_head; /* id of the first free slot, SLI_NONE when none */
};
#define SLI struct SFX(sli)

static inline char *line_at(const SLI *m, size_t line)
{
	return store_at(&m->lines, line, SLI_LINE);
}
static inline uint32_t *gen_at(const SLI *m, uint32_t id)
{
	return (uint32_t *)(line_at(m, id >> SLI_PB) + SLI_GEN0 + 4 * (id & SLI_PLACE_MASK));
}
static inline DOD_ELEM *item_at(const SLI *m, uint32_t id)
{
	return (DOD_ELEM *)(line_at(m, id >> SLI_PB) + (id & SLI_PLACE_MASK) * ELEM_BYTES);
}
static inline uint32_t *next_at(const SLI *m, uint32_t id) { return (uint32_t *)item_at(m, id); }
static inline uint32_t id_of(size_t s) { return (uint32_t)((s / SLI_K) << SLI_PB | s % SLI_K); }
/* The slot number of id, or SIZE_MAX when its place is not a slot. */
static inline size_t number_of(uint32_t id)
{
	uint32_t place = id & SLI_PLACE_MASK;
	return place < SLI_K ? (size_t)(id >> SLI_PB) * SLI_K + place : SIZE_MAX;
}
static inline uint64_t sli_make(uint32_t id, uint32_t gen) { return (uint64_t)gen << 32 | id; }

static void sli_destroy(void *c)
{
	SLI *m = c;
	if (!m)
		return;
	store_free(&m->lines);
	free(m);
}

static int sli_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SLI_MAX_LINES * SLI_K)
		return DOD_EINVAL;
	SLI *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	int err = store_init_zeroed(&m->lines, SLI_LINE, (capacity_elems + SLI_K - 1) / SLI_K);
	if (err) {
		free(m);
		return err;
	}
	m->free_head = SLI_NONE;
	*out = m;
	return DOD_OK;
}

static int sli_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	SLI *m = c;
	size_t holes = m->n_slots - m->live;
	size_t fresh = n > holes ? n - holes : 0;
	if (fresh > SLI_MAX_LINES * SLI_K - m->n_slots)
		return DOD_EFULL;
	size_t want = (m->n_slots + fresh + SLI_K - 1) / SLI_K;
	int err = store_reserve_zeroed(&m->lines, want, SLI_LINE);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = m->free_head;
		if (id != SLI_NONE) {
			m->free_head = *next_at(m, id);
		} else {
			id = id_of(m->n_slots++);
			m->n_lines = (m->n_slots + SLI_K - 1) / SLI_K;
		}
		uint32_t *g = gen_at(m, id);
		*g |= 1;
		SFX(dod_elem_init)(item_at(m, id), first_key + k);
		if (handles_out)
			handles_out[k] = sli_make(id, *g);
	}
	m->live += n;
	return DOD_OK;
}

/* The error of handle h: DOD_ERANGE (a place that is no slot, or a slot not handed out),
 * DOD_EFREE (an even generation: never issued, a free slot's, or erase_n's mark),
 * DOD_ESTALE (the slot's generation moved on), or DOD_OK. */
static int sli_check_handle(const SLI *m, uint64_t h)
{
	uint32_t id = (uint32_t)h, gen = (uint32_t)(h >> 32);
	if (number_of(id) >= m->n_slots)
		return DOD_ERANGE;
	if (!(gen & 1))
		return DOD_EFREE;
	return *gen_at(m, id) == gen ? DOD_OK : DOD_ESTALE;
}

/* The error of the first invalid handle of hs[0 .. n): the slow path of lookup_sum. */
static int first_error(const SLI *m, const uint64_t *hs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int err = sli_check_handle(m, hs[k]);
		if (err)
			return err;
	}
	return DOD_EINVAL; /* unreachable while the fast check agrees with sli_check_handle */
}

/* Format check of hs[0 .. n), no memory read: 0 when every handle's line is below
 * n_lines, its place below K and its generation odd (what the fast path's reads need),
 * else non-zero. A loop of independent lanes: the compiler vectorizes it. */
static inline uint64_t sli_format(const uint64_t *hs, size_t n, uint64_t n_lines)
{
	uint64_t bad = 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t id = hs[k] & UINT32_MAX;
		bad |= (uint64_t)((id >> SLI_PB) >= n_lines) |
		       (uint64_t)((id & SLI_PLACE_MASK) >= SLI_K) | (~hs[k] >> 32 & 1);
	}
	return bad;
}

/* The item of a well-formed handle is at byte id * ELEM_BYTES (2^SLI_PB items of
 * ELEM_BYTES make the 64 B line); its generation at the line's byte K * ELEM_BYTES +
 * 4 * place. Adds the key to *sum, returns the generation mismatch (0 when valid). */
static inline uint64_t sli_one(const char *base, uint64_t h, uint64_t *sum)
{
	size_t id = (size_t)(h & UINT32_MAX);
	const char *line = base + (id >> SLI_PB) * SLI_LINE;
	uint64_t key;
	uint32_t g;
	memcpy(&key, base + id * ELEM_BYTES, sizeof key);
	memcpy(&g, line + SLI_GEN0 + 4 * (id & SLI_PLACE_MASK), sizeof g);
	*sum += key;
	return g ^ (uint32_t)(h >> 32);
}

/* The line a handle names, for the prefetch only: any address (no fault, no read). */
static inline void sli_prefetch(const char *base, uint64_t h)
{
	uintptr_t a = (uintptr_t)base + (uintptr_t)((uint32_t)h >> SLI_PB) * SLI_LINE;
	__builtin_prefetch((const void *)a, 0, 3);
}

/* Blocks of SLI_BLOCK handles: the format check of the block (vectorized), then its
 * lookups, each prefetching the line of the handle SLI_AHEAD places on. */
static int sli_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const SLI *m = c;
	if (m->n_lines == 0)
		return n ? DOD_ERANGE : (*sum_out = 0, DOD_OK);
	const char *base = line_at(m, 0);
	size_t pf_end = n > SLI_AHEAD ? n - SLI_AHEAD : 0;
	uint64_t sum = 0, bad = 0;
	for (size_t b = 0; b < n; b += SLI_BLOCK) {
		size_t e = n - b > SLI_BLOCK ? b + SLI_BLOCK : n, k = b;
		if (sli_format(hs + b, e - b, m->n_lines))
			return first_error(m, hs, e);
		for (size_t stop = e < pf_end ? e : pf_end; k < stop; k++) {
			sli_prefetch(base, hs[k + SLI_AHEAD]);
			bad |= sli_one(base, hs[k], &sum);
		}
		for (; k < e; k++)
			bad |= sli_one(base, hs[k], &sum);
	}
	if (bad)
		return first_error(m, hs, n);
	*sum_out = sum;
	return DOD_OK;
}

static size_t sli_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += sli_check_handle(c, hs[k]) == DOD_OK;
	return valid;
}

/* Erase of a live slot: generation + 1 (even), pushed on the free list. */
static void free_slot(SLI *m, uint32_t id)
{
	*next_at(m, id) = m->free_head;
	m->free_head = id;
	++*gen_at(m, id);
	m->live--;
}

/* All or nothing without an extra allocation, as slotmap_versioned: pass 1 checks each
 * handle and marks its slot by clearing the generation's low bit (a repeat then fails);
 * the marks are undone from the handles; pass 2 erases. */
static int sli_erase_n(void *c, const uint64_t *hs, size_t n)
{
	SLI *m = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = sli_check_handle(m, hs[k])) != DOD_OK)
			break;
		*gen_at(m, (uint32_t)hs[k]) &= ~UINT32_C(1);
	}
	for (size_t j = 0; j < k; j++)
		*gen_at(m, (uint32_t)hs[j]) = (uint32_t)(hs[j] >> 32);
	if (err) {
		int own = sli_check_handle(m, hs[k]);
		return own ? own : DOD_EFREE;
	}
	for (k = 0; k < n; k++)
		free_slot(m, (uint32_t)hs[k]);
	return DOD_OK;
}

/* Every slot handed out, live or not: key & -(generation & 1), branch-free. */
static uint64_t sli_iterate_sum(const void *c)
{
	const SLI *m = c;
	uint64_t sum = 0;
	size_t full = m->n_slots / SLI_K, rest = m->n_slots % SLI_K;
	for (size_t l = 0; l < full + (rest != 0); l++) {
		const char *p = line_at(m, l);
		size_t places = l < full ? SLI_K : rest;
		for (size_t q = 0; q < places; q++) {
			uint64_t key;
			uint32_t g;
			memcpy(&key, p + q * ELEM_BYTES, sizeof key);
			memcpy(&g, p + SLI_GEN0 + 4 * q, sizeof g);
			sum += key & -(uint64_t)(g & 1);
		}
	}
	return sum;
}

/* Every live slot erased in slot order (old handles stale), as slotmap_versioned. */
static int sli_clear(void *c)
{
	SLI *m = c;
	for (size_t s = 0; s < m->n_slots; s++)
		if (*gen_at(m, id_of(s)) & 1)
			free_slot(m, id_of(s));
	return DOD_OK;
}

static void sli_dump_keys(const void *c, uint64_t *keys_out)
{
	const SLI *m = c;
	for (size_t s = 0; s < m->n_slots; s++)
		if (*gen_at(m, id_of(s)) & 1)
			*keys_out++ = item_at(m, id_of(s))->key;
}

static size_t sli_size(const void *c) { return ((const SLI *)c)->live; }
static size_t sli_footprint(const void *c)
{
	return sizeof(SLI) + store_committed_bytes(&((const SLI *)c)->lines);
}

/* Counts, the pads and the slots past n_slots of the lines in use (all 0: the fast path
 * reads them), and the live slots: as many as live, each handle accepted. Lines past
 * n_lines are zeroed when the store grows. */
static int check_slots(const SLI *m, char *why, size_t len)
{
	size_t cap = store_capacity(&m->lines);
	if (m->n_slots > cap * SLI_K || m->live > m->n_slots ||
	    m->n_lines != (m->n_slots + SLI_K - 1) / SLI_K)
		return dod_check_fail(why, len, "counts: n_slots %zu, n_lines %zu, lines %zu, live %zu",
		                      m->n_slots, m->n_lines, cap, m->live);
	size_t occupied = 0;
	for (size_t l = 0; l < m->n_lines; l++) {
		uint32_t pad;
		memcpy(&pad, line_at(m, l) + SLI_PAD, sizeof pad);
		if (pad != 0)
			return dod_check_fail(why, len, "line %zu: pad word %u, not 0", l, pad);
	}
	for (size_t s = 0; s < m->n_lines * SLI_K; s++) {
		uint32_t g = *gen_at(m, id_of(s));
		if (s >= m->n_slots && g != 0)
			return dod_check_fail(why, len, "slot %zu past n_slots has generation %u", s, g);
		if (!(g & 1))
			continue;
		occupied++;
		if (sli_check_handle(m, sli_make(id_of(s), g)) != DOD_OK)
			return dod_check_fail(why, len, "the handle of live slot %zu is rejected", s);
	}
	if (occupied != m->live)
		return dod_check_fail(why, len, "%zu live slots, live count %zu", occupied, m->live);
	return DOD_OK;
}

/* The invariants of the opening comment (see dod_ops.check); the free list: slots below
 * n_slots, free ones only, no cycle (bounded by the free count), every free slot on it.
 * O(lines). */
static int sli_check(const void *c, char *why, size_t len)
{
	const SLI *m = c;
	int err = check_slots(m, why, len);
	if (err)
		return err;
	size_t n_free = m->n_slots - m->live, on_list = 0;
	uint32_t x = m->free_head;
	for (; x != SLI_NONE; x = *next_at(m, x)) {
		if (number_of(x) >= m->n_slots)
			return dod_check_fail(why, len, "free list reaches id %u, no slot handed out", x);
		if (*gen_at(m, x) & 1)
			return dod_check_fail(why, len, "free list reaches live slot id %u", x);
		if (++on_list > n_free)
			return dod_check_fail(why, len, "free list longer than the %zu free slots (a cycle)",
			                      n_free);
	}
	if (on_list != n_free)
		return dod_check_fail(why, len, "free list holds %zu of %zu free slots", on_list, n_free);
	return DOD_OK;
}

/* Test hook (stale_hook.h): k more (insert, erase) cycles of the free slot of handle h:
 * insert makes the generation odd (+1), erase adds one, so k cycles add 2k mod 2^32. */
int DOD_SKIP_REUSES(void *c, uint64_t h, uint64_t k)
{
	SLI *m = c;
	uint32_t id = (uint32_t)h;
	if (number_of(id) >= m->n_slots || (*gen_at(m, id) & 1))
		return DOD_EINVAL;
	*gen_at(m, id) += (uint32_t)(2 * k);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "weak pointers for lookup: generation in the item's line, prefetch",
	.max_elems = SLI_MAX_LINES * SLI_K,
	.create = sli_create,
	.destroy = sli_destroy,
	.insert_n = sli_insert_n,
	.iterate_sum = sli_iterate_sum,
	.lookup_sum = sli_lookup_sum,
	.erase_n = sli_erase_n,
	.count_valid = sli_count_valid,
	.clear = sli_clear,
	.dump_keys = sli_dump_keys,
	.size = sli_size,
	.footprint_bytes = sli_footprint,
	.check = sli_check,
};
