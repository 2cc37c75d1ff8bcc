/* free_list.h - the slots and the free list of Our Machinery's "Bulk data" ("leave a hole":
 * a free list through the holes, its header in slot 0), written once for every bulk/
 * container that keeps one: holes_core.h (holes, holes_bitmask), swappop.c (its lookup table)
 * and particles.c.
 *
 *   slot   [ hdr | item | free | item | free | ... | (handed out before a clear) | ... ]
 *            0     1 ...                     n_slots                       high    capacity
 *   link   hdr --> 4 --> 2 --> 0               0 ends the list: no hole, append a slot
 *
 * Slots [1, n_slots) are live (odd generation, bulk/weak.h) or on the free list; slots
 * [n_slots, high) were handed out before a clear and keep their generations, so weak
 * pointers from before it stay stale when they are handed out again; slots past high
 * were never handed out. The list is LIFO (erase pushes at the front, insert pops it), as
 * in the article. A container says where a slot's link lives (in the hole's own item
 * memory: holes_core.h; in the slot's index field: swappop.c; in a parallel array:
 * particles.c) with two accessors, and where its generation lives with gen_of (as
 * bulk/weak.h); all are static functions of the container, so the calls inline.
 * holes_runs keeps a list of runs instead (holes_runs.c) and uses only the slot counting here.
 */
#ifndef DOD_BULK_FREE_LIST_H
#define DOD_BULK_FREE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "bulk/weak.h"
#include "dod_common.h"

typedef uint32_t (*bulk_link_fn)(const void *c, uint32_t slot);           /* next free */
typedef void (*bulk_set_link_fn)(void *c, uint32_t slot, uint32_t next);
typedef uint32_t *(*bulk_gen_fn)(void *c, uint32_t slot);                 /* as weak.h */

/* insert_n's first step, before anything changes: *fresh = how many of n new items need
 * slots past n_slots once the n_slots - 1 - live holes are reused. Returns DOD_OK, or
 * DOD_EFULL when the slots would pass BULK_MAX_SLOTS (ids are 32 bits). */
static inline int bulk_fresh_slots(size_t n_slots, size_t live, size_t n, size_t *fresh)
{
	size_t holes = n_slots - 1 - live;
	*fresh = n > holes ? n - holes : 0;
	return *fresh > BULK_MAX_SLOTS - (n_slots - 1) ? DOD_EFULL : DOD_OK;
}

/* The first hole, taken off the free list, or 0 when the list is empty. O(1). */
static inline uint32_t bulk_free_pop(void *c, bulk_link_fn link, bulk_set_link_fn set_link)
{
	uint32_t i = link(c, 0);
	if (i)
		set_link(c, 0, link(c, i));
	return i;
}

/* Puts free slot i at the front of the free list. O(1). */
static inline void bulk_free_push(void *c, uint32_t i, bulk_link_fn link,
                                  bulk_set_link_fn set_link)
{
	set_link(c, i, link(c, 0));
	set_link(c, 0, i);
}

/* Appends slot *n_slots and returns it: its generation restarts at 0 if it was never
 * handed out (>= *high), else it keeps the one it had (stale handles stay stale). The
 * caller has reserved capacity for it. O(1). */
static inline uint32_t bulk_slot_append(size_t *n_slots, size_t *high, bulk_gen_fn gen_of,
                                        void *c)
{
	uint32_t i = (uint32_t)(*n_slots)++;
	if (i >= *high) {
		*gen_of(c, i) = 0;
		*high = i + 1;
	}
	return i;
}

/* One slot for a new item: the first hole, else an appended slot (bulk_slot_append). */
static inline uint32_t bulk_slot_take(void *c, size_t *n_slots, size_t *high,
                                      bulk_link_fn link, bulk_set_link_fn set_link,
                                      bulk_gen_fn gen_of)
{
	uint32_t i = bulk_free_pop(c, link, set_link);
	return i ? i : bulk_slot_append(n_slots, high, gen_of, c);
}

/* Invariant check (dod_ops.check) of the generations of slots [0, high): slot 0 (the
 * header) has generation 0, none keeps erase_n's mark, none at or past n_slots is live,
 * every live slot's weak pointer is accepted, and exactly `live` slots are live. Returns
 * DOD_OK, or dod_check_fail's DOD_EINVAL with the reason in why. O(high). */
static inline int bulk_check_gens(const void *c, bulk_gen_fn gen_of, size_t n_slots,
                                  size_t high, size_t live, char *why, size_t len)
{
	void *ctx = (void *)c; /* gen_of only reads here (as bulk_weak_check_at) */
	if (*gen_of(ctx, 0) != 0)
		return dod_check_fail(why, len, "slot 0 (the header) has generation %u",
		                      *gen_of(ctx, 0));
	size_t seen = 0;
	for (size_t i = 1; i < high; i++) {
		uint32_t g = *gen_of(ctx, (uint32_t)i);
		if (g & BULK_MARK)
			return dod_check_fail(why, len, "slot %zu keeps erase_n's mark", i);
		if (!(g & BULK_LIVE))
			continue;
		if (i >= n_slots)
			return dod_check_fail(why, len, "slot %zu past n_slots %zu is live", i, n_slots);
		seen++;
		if (bulk_weak_check_at(bulk_weak((uint32_t)i, g), n_slots, gen_of, c) != DOD_OK)
			return dod_check_fail(why, len, "live slot %zu's weak pointer is rejected", i);
	}
	if (seen != live)
		return dod_check_fail(why, len, "%zu live slots, live count %zu", seen, live);
	return DOD_OK;
}

/* Invariant check (dod_ops.check) of the free list: every slot on it below n_slots and
 * free (even generation), no cycle, exactly n_free slots on it. Returns DOD_OK, or
 * dod_check_fail's DOD_EINVAL with the reason in why. O(n_free). */
static inline int bulk_check_free_list(const void *c, bulk_link_fn link, bulk_gen_fn gen_of,
                                       size_t n_slots, size_t n_free, char *why, size_t len)
{
	size_t on_list = 0;
	for (uint32_t x = link(c, 0); x != 0; x = link(c, x)) {
		if (x >= n_slots)
			return dod_check_fail(why, len, "free list reaches slot %u, past n_slots %zu", x,
			                      n_slots);
		if (*gen_of((void *)c, x) & BULK_LIVE)
			return dod_check_fail(why, len, "free list reaches live slot %u", x);
		if (++on_list > n_free)
			return dod_check_fail(why, len, "free list longer than the %zu free slots (a cycle)",
			                      n_free);
	}
	if (on_list != n_free)
		return dod_check_fail(why, len, "free list holds %zu of %zu free slots", on_list, n_free);
	return DOD_OK;
}

#endif
