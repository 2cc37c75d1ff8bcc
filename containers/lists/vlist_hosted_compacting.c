/* vlist_hosted_compacting.c - vlist_hosted (vlist_hosted.c, compiled again here) plus
 * the consolidate extension (containers/list_contract.h): the hosted list relinked in
 * sequence order into the prefix 0 .. size-1 of its buffer, so a walk reads the buffer
 * front to back again, with the exact old -> new remap its reference holders need
 * (Thomas Young, "Vector Hosted Lists", 2015: cVectorWithDeadEntries::consolidate and its
 * remaps, applied to the hosted list). Everything else is vlist_hosted's own code; the
 * variant's line in containers/variants.tsv names this file.
 *
 * consolidate moves the nodes in place, one permutation cycle at a time with one node in
 * hand; remap_out is its only scratch: during the call an entry holds the node's
 * destination plus two flags (REMAP_FREE: a free node, parked past the live ones;
 * REMAP_DONE: moved). Afterwards n_nodes == size and the free list is empty (the nodes
 * past size are unused capacity again: a reference to one is DOD_ERANGE). O(n_nodes),
 * no allocation.
 */
#include "contract.h"

static const struct dod_consolidate_ops vlist_consolidate_ops;
#define VLIST_CONSOLIDATE_OPS (&vlist_consolidate_ops)
#include "vlist_hosted.c"

#define REMAP_FREE (UINT64_C(1) << 62)
#define REMAP_DONE (UINT64_C(1) << 63)
#define REMAP_TO(e) ((size_t)((e) & (REMAP_FREE - 1)))

static size_t vlist_ref_bound(const void *c) { return ((const VL *)c)->n_nodes; }

/* Each node's destination: a live node its position in the sequence, a free one the next
 * place after the live ones (index order), flagged. */
static void plan_moves(const VL *l, uint64_t *remap)
{
	uint64_t k = 0;
	for (uint32_t i = l->head; i != VLIST_NIL; i = node(l, i)->next)
		remap[i] = k++;
	for (size_t i = 0; i < l->n_nodes; i++)
		if (node(l, i)->prev == VLIST_FREE)
			remap[i] = REMAP_FREE | k++;
}

/* Moves every node i to REMAP_TO(remap[i]) (a permutation of 0 .. n_nodes-1), following
 * each cycle once with one node in hand. */
static void move_nodes(VL *l, uint64_t *remap)
{
	for (size_t start = 0; start < l->n_nodes; start++) {
		if (remap[start] & REMAP_DONE)
			continue;
		NODE carry = *node(l, start);
		size_t j = start;
		do {
			size_t to = REMAP_TO(remap[j]);
			NODE displaced = *node(l, to);
			*node(l, to) = carry;
			carry = displaced;
			remap[j] |= REMAP_DONE;
			j = to;
		} while (j != start);
	}
}

static int vlist_consolidate(void *c, uint64_t *remap_out)
{
	VL *l = c;
	size_t was = l->n_nodes, live = l->live;
	plan_moves(l, remap_out);
	move_nodes(l, remap_out);
	for (size_t k = 0; k < live; k++) {
		node(l, k)->prev = k ? (uint32_t)(k - 1) : VLIST_NIL;
		node(l, k)->next = k + 1 < live ? (uint32_t)(k + 1) : VLIST_NIL;
	}
	l->head = live ? 0 : VLIST_NIL;
	l->tail = live ? (uint32_t)(live - 1) : VLIST_NIL;
	l->n_nodes = live;
	l->n_free = 0;
	l->free_head = VLIST_NIL;
	for (size_t i = 0; i < was; i++)
		remap_out[i] = remap_out[i] & REMAP_FREE ? DOD_NO_REF : REMAP_TO(remap_out[i]);
	return DOD_OK;
}

static const struct dod_consolidate_ops vlist_consolidate_ops = {
	.version = DOD_CONSOLIDATE_OPS_VERSION,
	.ref_bound = vlist_ref_bound,
	.consolidate = vlist_consolidate,
};
