/* holes.c - bulk data as an array with holes and a free list (Our Machinery, "Data
 * Structures for game programmers: Bulk Data", "leave a hole" and "weak pointers"): the
 * removal strategy `holes` over bulk/holes_core.h, at every allocation strategy of
 * containers/alloc/ and three slot layouts (the variant table's layout word):
 *
 *   aos        bulk/slots_inline.h  { item; generation } a slot, as the article has it
 *   aos_pow2   bulk/slots_pow2.h    { generation; item } padded to a power of two
 *   aos_line   bulk/slots_line.h    K slots a cache line, items then generations
 *
 * The free list is the article's circular list (bulk/free_list.h, holes_core.h's
 * bh_list_*): its header lives in slot 0 (items[0].next), allocation pops items[0].next,
 * erase pushes, and 0 means "no hole: append a slot"; a hole's link is the first 4 bytes
 * of its own (unused) item memory. Iteration visits every slot up to n_slots and skips
 * holes branch-free: sum += key & -(gen & 1).
 *
 * Invariants: holes_core.h's, and the free list holds exactly the n_slots - 1 - live free
 * slots below n_slots. Costs: insert, erase, lookup O(1); iterate O(n_slots); clear
 * O(n_slots).
 */
/* The one choice left to the preprocessor: the slot layout, by the variant's layout
 * word (as alloc/store.h picks the store by its alloc word). */
#if defined(DOD_LAYOUT_aos_pow2)
#include "bulk/slots_pow2.h"
#elif defined(DOD_LAYOUT_aos_line)
#include "bulk/slots_line.h"
#else
#include "bulk/slots_inline.h"
#endif

#include "bulk/holes_core.h"

#ifndef DOD_REMOVAL_holes
#error "holes.c serves the removal strategy holes (holes_bitmask.c, holes_runs.c: the others)"
#endif

static const struct bh_store_spec stores[] = {BH_LAYOUT_STORES};
static const struct bh_design design = {
	.stores = stores,
	.n_stores = sizeof stores / sizeof stores[0],
	.reset = bh_list_reset,
	.take_hole = bh_list_take,
	.freed = bh_list_put,
	.check = bh_list_check,
};
BH_DESIGN_FUNCTIONS(design)

static uint64_t bh_iterate_sum(const void *c)
{
	const BH *b = c;
	return bh_masked_sum(b->st, b->n_slots);
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = BH_SOURCE,
	BH_CORE_OPS,
	.iterate_sum = bh_iterate_sum,
};
