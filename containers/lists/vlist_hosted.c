/* vlist_hosted.c - Thomas Young's doubly linked list hosted in one growable buffer
 * ("Vector Hosted Lists", 2015): the variant vlist_hosted, and with
 * VLIST_CONSOLIDATE_OPS defined first, vlist_hosted_compacting
 * (vlist_hosted_compacting.c). Layout, invariants, costs and source: vlist_hosted.h.
 *
 * Every batch is all or nothing without allocating to find out: references are
 * validated before anything changes (erase_n marks its nodes to find a repeat, and
 * unmarks them if the batch fails), and room for every new node is reserved before the
 * first is linked, so a failed growth leaves the list as it was.
 */
#include <stdlib.h>

#include "contract.h"
#include "dod_common.h"
#include "lists/vlist_hosted.h"

#if !defined(DOD_ALLOC_realloc)
#error "vlist_hosted.c lives in one buffer grown by realloc: its alloc column must be realloc"
#endif

#define VL struct SFX(vlist)
#define NODE struct SFX(vlist_node)

static inline NODE *node(const VL *l, size_t i)
{
	return (NODE *)dod_realloc_at(&l->nodes, i, sizeof(NODE));
}

static int vlist_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > VLIST_MAX_NODES)
		return DOD_EINVAL;
	VL *l = calloc(1, sizeof *l);
	if (!l)
		return DOD_ENOMEM;
	if (dod_realloc_init(&l->nodes, sizeof(NODE), capacity_elems) != DOD_OK) {
		dod_realloc_free(&l->nodes);
		free(l);
		return DOD_ENOMEM;
	}
	l->head = l->tail = l->free_head = VLIST_NIL;
	*out = l;
	return DOD_OK;
}

static void vlist_destroy(void *c)
{
	VL *l = c;
	if (l)
		dod_realloc_free(&l->nodes);
	free(l);
}

/* Room for k more live nodes, so a batch never grows halfway: the free nodes first, then
 * fresh ones past n_nodes. Returns 0, DOD_EFULL (past VLIST_MAX_NODES) or DOD_ENOMEM,
 * the list unchanged. Invalidates node pointers when the buffer moves. */
static int reserve_nodes(VL *l, size_t k)
{
	size_t fresh = k > l->n_free ? k - l->n_free : 0;
	if (fresh > VLIST_MAX_NODES - l->n_nodes)
		return DOD_EFULL;
	return dod_realloc_reserve(&l->nodes, l->n_nodes + fresh);
}

/* A node for key (reserved: reserve_nodes), not linked yet: the latest free one, else a
 * fresh one. */
static uint32_t take_node(VL *l, uint64_t key)
{
	uint32_t i;
	if (l->free_head != VLIST_NIL) {
		i = l->free_head;
		l->free_head = node(l, i)->next;
		l->n_free--;
	} else {
		i = (uint32_t)l->n_nodes++;
	}
	SFX(dod_elem_init)(&node(l, i)->value, key);
	l->live++;
	return i;
}

/* Links node i into the sequence just before node at (VLIST_NIL: at the end). */
static void link_before(VL *l, uint32_t i, uint32_t at)
{
	NODE *n = node(l, i);
	uint32_t prev = at == VLIST_NIL ? l->tail : node(l, at)->prev;
	n->prev = prev;
	n->next = at;
	if (prev == VLIST_NIL)
		l->head = i;
	else
		node(l, prev)->next = i;
	if (at == VLIST_NIL)
		l->tail = i;
	else
		node(l, at)->prev = i;
}

/* Unlinks live node i and pushes it on the free list; returns its key. */
static uint64_t release(VL *l, uint32_t i)
{
	NODE *n = node(l, i);
	if (n->prev == VLIST_NIL)
		l->head = n->next;
	else
		node(l, n->prev)->next = n->next;
	if (n->next == VLIST_NIL)
		l->tail = n->prev;
	else
		node(l, n->next)->prev = n->prev;
	n->prev = VLIST_FREE;
	n->next = l->free_head;
	l->free_head = i;
	l->n_free++;
	l->live--;
	return n->value.key;
}

/* 0 when ref names a live node, else its error: DOD_ERANGE past the nodes handed out,
 * DOD_EFREE for a free node or one erase_n has marked (a repeat in its batch). */
static int ref_error(const VL *l, uint64_t ref)
{
	if (ref >= l->n_nodes)
		return DOD_ERANGE;
	uint32_t prev = node(l, (size_t)ref)->prev;
	return prev == VLIST_FREE || (prev & VLIST_MARK) ? DOD_EFREE : DOD_OK;
}

static int vlist_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	VL *l = c;
	int err = reserve_nodes(l, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = take_node(l, first_key + k);
		link_before(l, i, VLIST_NIL);
		if (handles_out)
			handles_out[k] = i;
	}
	return DOD_OK;
}

/* The sum of the keys in sequence order: the walk the list scenarios time. */
static uint64_t vlist_iterate_sum(const void *c)
{
	const VL *l = c;
	uint64_t sum = 0;
	for (uint32_t i = l->head; i != VLIST_NIL; i = node(l, i)->next)
		sum += node(l, i)->value.key;
	return sum;
}

static int vlist_lookup_sum(const void *c, const uint64_t *refs, size_t n, uint64_t *sum_out)
{
	const VL *l = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(l, refs[k]);
		if (err)
			return err;
		sum += node(l, (size_t)refs[k])->value.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t vlist_count_valid(const void *c, const uint64_t *refs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += ref_error(c, refs[k]) == DOD_OK;
	return valid;
}

static void unmark(VL *l, const uint64_t *refs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		node(l, (size_t)refs[k])->prev &= ~VLIST_MARK;
}

/* All or nothing: every reference is checked and its node marked before any is unlinked,
 * so a repeat finds its node marked (DOD_EFREE) and a bad batch is unmarked again. */
static int vlist_erase_n(void *c, const uint64_t *refs, size_t n)
{
	VL *l = c;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(l, refs[k]);
		if (err) {
			unmark(l, refs, k); /* refs[0 .. k) are distinct: each was unmarked */
			return err;
		}
		node(l, (size_t)refs[k])->prev |= VLIST_MARK;
	}
	unmark(l, refs, n);
	for (size_t k = 0; k < n; k++)
		release(l, (uint32_t)refs[k]);
	return DOD_OK;
}

/* Hands every node back at once: references become DOD_ERANGE, the buffer is kept. */
static int vlist_clear(void *c)
{
	VL *l = c;
	l->n_nodes = l->live = l->n_free = 0;
	l->head = l->tail = l->free_head = VLIST_NIL;
	return DOD_OK;
}

static void vlist_dump_keys(const void *c, uint64_t *keys_out)
{
	const VL *l = c;
	size_t k = 0;
	for (uint32_t i = l->head; i != VLIST_NIL; i = node(l, i)->next)
		keys_out[k++] = node(l, i)->value.key;
}

static size_t vlist_size(const void *c) { return ((const VL *)c)->live; }
static size_t vlist_footprint(const void *c)
{
	return sizeof(VL) + dod_realloc_committed_bytes(&((const VL *)c)->nodes);
}

/* ---- the list extension (list_contract.h) ---- */

static int vlist_insert_at_n(void *c, const uint64_t *refs, size_t n, int where,
                             uint64_t first_key, uint64_t *refs_out)
{
	VL *l = c;
	if (where != DOD_LIST_BEFORE && where != DOD_LIST_AFTER)
		return DOD_EINVAL;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(l, refs[k]);
		if (err)
			return err;
	}
	int err = reserve_nodes(l, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t at = (uint32_t)refs[k], i = take_node(l, first_key + k);
		link_before(l, i, where == DOD_LIST_BEFORE ? at : node(l, at)->next);
		if (refs_out)
			refs_out[k] = i;
	}
	return DOD_OK;
}

/* Stroustrup's insertion: a linear search from the head for the first greater key. */
static int vlist_insert_sorted_n(void *c, const uint64_t *keys, size_t n, uint64_t *refs_out)
{
	VL *l = c;
#if ELEM_BYTES == 4
	for (size_t k = 0; k < n; k++)
		if (keys[k] > UINT32_MAX)
			return DOD_EINVAL; /* the 4 B int holds 32 bits: it would compare truncated */
#endif
	int err = reserve_nodes(l, n);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t at = l->head;
		while (at != VLIST_NIL && node(l, at)->value.key <= keys[k])
			at = node(l, at)->next;
		uint32_t i = take_node(l, keys[k]);
		link_before(l, i, at);
		if (refs_out)
			refs_out[k] = i;
	}
	return DOD_OK;
}

/* Stroustrup's removal: walk positions[k] nodes from the head, unlink the one there. */
static int vlist_erase_at_positions_n(void *c, const uint64_t *positions, size_t n,
                                      uint64_t *key_sum_out)
{
	VL *l = c;
	size_t size = l->live;
	for (size_t k = 0; k < n; k++)
		if (k >= size || positions[k] >= size - k)
			return DOD_ERANGE;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t at = l->head;
		for (uint64_t p = positions[k]; p > 0; p--)
			at = node(l, at)->next;
		sum += release(l, at);
	}
	if (key_sum_out)
		*key_sum_out = sum;
	return DOD_OK;
}

static const struct dod_list_ops vlist_list_ops = {
	.version = DOD_LIST_OPS_VERSION,
	.insert_at_n = vlist_insert_at_n,
	.insert_sorted_n = vlist_insert_sorted_n,
	.erase_at_positions_n = vlist_erase_at_positions_n,
};

/* ---- dod_ops.check ---- */

/* The sequence: live distinct nodes from head to tail, prev and next agreeing. */
static int check_sequence(const VL *l, char *why, size_t len)
{
	size_t steps = 0;
	uint32_t before = VLIST_NIL;
	for (uint32_t i = l->head; i != VLIST_NIL; before = i, i = node(l, i)->next) {
		if (++steps > l->live)
			return dod_check_fail(why, len, "the sequence from head is longer than the %zu "
			                      "live nodes: a cycle", l->live);
		if (i >= l->n_nodes)
			return dod_check_fail(why, len, "sequence node %zu links to %u, past the %zu "
			                      "nodes", steps - 1, i, l->n_nodes);
		const NODE *n = node(l, i);
		if (n->prev & VLIST_MARK)
			return dod_check_fail(why, len, "node %u is left marked", i);
		if (n->prev != before)
			return dod_check_fail(why, len, "node %u: prev %u, but the node before it is %u",
			                      i, n->prev, before);
	}
	if (steps != l->live)
		return dod_check_fail(why, len, "the sequence holds %zu nodes, live %zu", steps,
		                      l->live);
	if (before != l->tail)
		return dod_check_fail(why, len, "the sequence ends at %u, tail %u", before, l->tail);
	return DOD_OK;
}

/* The free list: n_free distinct free nodes from free_head. */
static int check_free_list(const VL *l, char *why, size_t len)
{
	size_t steps = 0;
	for (uint32_t i = l->free_head; i != VLIST_NIL; i = node(l, i)->next) {
		if (++steps > l->n_free)
			return dod_check_fail(why, len, "the free list is longer than its %zu nodes: a "
			                      "cycle", l->n_free);
		if (i >= l->n_nodes || node(l, i)->prev != VLIST_FREE)
			return dod_check_fail(why, len, "free list entry %zu is node %u, %s", steps - 1,
			                      i, i >= l->n_nodes ? "past the nodes" : "not marked free");
	}
	if (steps != l->n_free)
		return dod_check_fail(why, len, "the free list holds %zu nodes, n_free %zu", steps,
		                      l->n_free);
	return DOD_OK;
}

static int vlist_check(const void *c, char *why, size_t len)
{
	const VL *l = c;
	if (l->n_nodes > dod_realloc_capacity(&l->nodes) || l->n_nodes > VLIST_MAX_NODES)
		return dod_check_fail(why, len, "%zu nodes, capacity %zu", l->n_nodes,
		                      dod_realloc_capacity(&l->nodes));
	if (l->live + l->n_free != l->n_nodes)
		return dod_check_fail(why, len, "live %zu + free %zu != %zu nodes", l->live,
		                      l->n_free, l->n_nodes);
	if ((l->head == VLIST_NIL) != (l->live == 0) || (l->tail == VLIST_NIL) != (l->live == 0))
		return dod_check_fail(why, len, "head %u, tail %u with %zu live", l->head, l->tail,
		                      l->live);
	int err = check_sequence(l, why, len);
	return err ? err : check_free_list(l, why, len);
}

#ifndef VLIST_CONSOLIDATE_OPS
#define VLIST_CONSOLIDATE_OPS NULL
#endif

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Thomas Young, \"Vector Hosted Lists\" (PathEngine, 2015): a doubly linked "
	          "list hosted in a vector, free list through next",
	.max_elems = VLIST_MAX_NODES,
	.create = vlist_create,
	.destroy = vlist_destroy,
	.insert_n = vlist_insert_n,
	.iterate_sum = vlist_iterate_sum,
	.lookup_sum = vlist_lookup_sum,
	.erase_n = vlist_erase_n,
	.count_valid = vlist_count_valid,
	.clear = vlist_clear,
	.dump_keys = vlist_dump_keys,
	.size = vlist_size,
	.footprint_bytes = vlist_footprint,
	.check = vlist_check,
	.list = &vlist_list_ops,
	.consolidate = VLIST_CONSOLIDATE_OPS,
};
