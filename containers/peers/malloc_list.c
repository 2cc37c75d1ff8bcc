/* malloc_list.c - peer: a plain C doubly linked list with one malloc per node, the
 * "individually malloc'd objects" list that Young's vector-hosted list replaces.
 *
 *   head <-> [prev|next|ref|T] <-> [prev|next|ref|T] <-> ... <-> head   (circular; each
 *            node its own malloc block, wherever the allocator puts it)
 *   slots [ n0 | free | n2 | ... ]   reference = index into slots; a slot holds its node's
 *                                    address, or (next free slot << 1) | 1 when free
 *
 * Source: Thomas Young, "Vector hosted lists" (2015), the list it compares with, and the
 * list of Stroustrup's GoingNative 2012 experiment, written in C. The list is a circular
 * list around a sentinel (head) inside the container. A reference is an index into a
 * table of node pointers (as peer_malloc_ptrs' handles), so it is validated in O(1): an
 * index past the table is DOD_ERANGE, a free slot DOD_EFREE; a raw node address could not
 * be. Erased slots go on a LIFO free list threaded through the free slots and are issued
 * again (no detects_stale); clear issues them from 0 again. References and node addresses
 * stay valid across every other insertion and erasure (nodes never move).
 *
 * Every insertion is all or nothing: the table is grown and every node of the batch is
 * malloc'd (into a private chain) before anything is linked, so a failed malloc frees the
 * chain and leaves the list as it was. Node addresses are aligned to at least 8 bytes, so
 * bit 0 marks a free slot and, in a live slot, bit 1 is erase_n's "seen in this batch"
 * mark.
 *
 * Invariants (check): the links are consistent (next->prev == node all the way round),
 * the walk meets live nodes; every node's ref names a slot holding that node; the
 * non-free slots are exactly the live nodes; the free list visits n_free free slots and
 * ends; live + n_free == slots used <= capacity.
 * Costs: append, insert at a reference, erase at a reference O(1) + one malloc or free;
 * iterate O(live), one pointer chase per node; insert_sorted_n and erase_at_positions_n
 * O(position) per item (the linear walks of the experiment). Compiled once per size
 * class (-DELEM_BYTES=N).
 */
#include <stdlib.h>

#include "alloc/realloc.h"
#include "contract.h"
#include "dod_common.h"

struct link {
	struct link *prev, *next;
};
struct node {
	struct link l;  /* first: a struct link * to a node is the node's address */
	size_t ref;     /* the slot that names this node */
	DOD_ELEM e;
};
struct SFX(mlist) {
	struct link head;  /* sentinel: head.next = first, head.prev = last */
	uintptr_t *slots;  /* node address, or (next free << 1) | FREE_BIT */
	size_t n_slots, cap; /* slots issued (live + free), slots allocated */
	size_t free_head;  /* first free slot, NO_SLOT if none */
	size_t n_free, live;
};
#define MLIST struct SFX(mlist)
#define FREE_BIT ((uintptr_t)1)
#define SEEN_TAG ((uintptr_t)2)
#define NO_SLOT (SIZE_MAX >> 1)
#define MAX_ELEMS (SIZE_MAX / sizeof(struct node))

static struct node *as_node(struct link *l) { return (struct node *)l; }
static struct node *node_at(const MLIST *m, uint64_t r) { return (struct node *)m->slots[r]; }

/* The error of reference r: out of the table, or a free slot. */
static int ref_error(const MLIST *m, uint64_t r)
{
	if (r >= m->n_slots)
		return DOD_ERANGE;
	return m->slots[r] & FREE_BIT ? DOD_EFREE : DOD_OK;
}

static void link_before(struct link *at, struct link *x)
{
	x->prev = at->prev;
	x->next = at;
	at->prev->next = x;
	at->prev = x;
}

static void unlink_node(struct link *x)
{
	x->prev->next = x->next;
	x->next->prev = x->prev;
}

/* Gives node x a slot: the latest freed one, else a new one (room reserved before). */
static void take_slot(MLIST *m, struct node *x)
{
	size_t r = m->free_head;
	if (r != NO_SLOT) {
		m->free_head = (size_t)(m->slots[r] >> 1);
		m->n_free--;
	} else {
		r = m->n_slots++;
	}
	m->slots[r] = (uintptr_t)x;
	x->ref = r;
	m->live++;
}

/* Unlinks and frees live node x, whose slot goes on the free list; returns its key. */
static uint64_t erase_node(MLIST *m, struct node *x)
{
	uint64_t key = x->e.key;
	unlink_node(&x->l);
	m->slots[x->ref] = ((uintptr_t)m->free_head << 1) | FREE_BIT;
	m->free_head = x->ref;
	m->n_free++;
	m->live--;
	free(x);
	return key;
}

/* Room in the table for n more live items (free slots first). 0 or DOD_ENOMEM. */
static int reserve_slots(MLIST *m, size_t n)
{
	if (n <= m->n_free)
		return DOD_OK;
	size_t more = n - m->n_free;
	if (more > MAX_ELEMS - m->n_slots)
		return DOD_ENOMEM;
	return dod_grow_geometric((void **)&m->slots, &m->cap, m->n_slots + more,
	                          sizeof *m->slots, MAX_ELEMS);
}

static void free_chain(struct link *chain)
{
	while (chain) {
		struct link *next = chain->next;
		free(chain);
		chain = next;
	}
}

/* The first half of every insertion: table room for n items, then n nodes malloc'd into
 * a private chain through l.next, node i holding key keys[i] (keys non-NULL) or
 * first_key + i. *chain_out = its first node. 0 or DOD_ENOMEM (nothing allocated kept
 * but the table's growth, which holds no item). */
static int prepare_nodes(MLIST *m, size_t n, const uint64_t *keys, uint64_t first_key,
                         struct link **chain_out)
{
	int err = reserve_slots(m, n);
	if (err)
		return err;
	struct link *first = NULL, **tail = &first;
	for (size_t i = 0; i < n; i++) {
		struct node *x = malloc(sizeof *x);
		if (!x) {
			free_chain(first);
			return DOD_ENOMEM;
		}
		SFX(dod_elem_init)(&x->e, keys ? keys[i] : first_key + i);
		x->l.next = NULL;
		*tail = &x->l;
		tail = &x->l.next;
	}
	*chain_out = first;
	return DOD_OK;
}

/* Pops the chain's first node and gives it a slot; *ref_out (may be NULL) = its slot. */
static struct link *pop_chain(MLIST *m, struct link **chain, uint64_t *ref_out)
{
	struct link *x = *chain;
	*chain = x->next;
	take_slot(m, as_node(x));
	if (ref_out)
		*ref_out = as_node(x)->ref;
	return x;
}

static int mlist_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > MAX_ELEMS)
		return DOD_EINVAL;
	MLIST *m = calloc(1, sizeof *m);
	if (!m)
		return DOD_ENOMEM;
	if (capacity_elems && !(m->slots = malloc(capacity_elems * sizeof *m->slots))) {
		free(m);
		return DOD_ENOMEM;
	}
	m->cap = capacity_elems;
	m->head.prev = m->head.next = &m->head;
	m->free_head = NO_SLOT;
	*out = m;
	return DOD_OK;
}

/* Every node freed; references are issued from 0 again. */
static int mlist_clear(void *c)
{
	MLIST *m = c;
	struct link *x = m->head.next;
	while (x != &m->head) {
		struct link *next = x->next;
		free(x);
		x = next;
	}
	m->head.prev = m->head.next = &m->head;
	m->n_slots = m->n_free = m->live = 0;
	m->free_head = NO_SLOT;
	return DOD_OK;
}

static void mlist_destroy(void *c)
{
	if (!c)
		return;
	mlist_clear(c);
	free(((MLIST *)c)->slots);
	free(c);
}

/* Appends n items (contract: insert_n appends). */
static int mlist_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	MLIST *m = c;
	struct link *chain;
	int err = prepare_nodes(m, n, NULL, first_key, &chain);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		link_before(&m->head, pop_chain(m, &chain, handles_out ? &handles_out[i] : NULL));
	return DOD_OK;
}

static uint64_t mlist_iterate_sum(const void *c)
{
	const MLIST *m = c;
	uint64_t sum = 0;
	for (const struct link *x = m->head.next; x != &m->head; x = x->next)
		sum += ((const struct node *)x)->e.key;
	return sum;
}

static int mlist_lookup_sum(const void *c, const uint64_t *refs, size_t n, uint64_t *sum_out)
{
	const MLIST *m = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(m, refs[k]);
		if (err)
			return err;
		sum += node_at(m, refs[k])->e.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t mlist_count_valid(const void *c, const uint64_t *refs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += ref_error(c, refs[k]) == DOD_OK;
	return valid;
}

/* All or nothing without an extra allocation: pass 1 validates each reference and marks
 * its slot (SEEN_TAG), so a repeat fails as DOD_EFREE; the marks are removed before
 * pass 2 unlinks and frees, or before the error is returned. */
static int mlist_erase_n(void *c, const uint64_t *refs, size_t n)
{
	MLIST *m = c;
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = ref_error(m, refs[k])) != DOD_OK)
			break;
		if (m->slots[refs[k]] & SEEN_TAG) {
			err = DOD_EFREE;
			break;
		}
		m->slots[refs[k]] |= SEEN_TAG;
	}
	for (size_t j = 0; j < k; j++)
		m->slots[refs[j]] &= ~SEEN_TAG;
	if (err)
		return err;
	for (k = 0; k < n; k++)
		erase_node(m, node_at(m, refs[k]));
	return DOD_OK;
}

static void mlist_dump_keys(const void *c, uint64_t *keys_out)
{
	const MLIST *m = c;
	for (const struct link *x = m->head.next; x != &m->head; x = x->next)
		*keys_out++ = ((const struct node *)x)->e.key;
}

static size_t mlist_size(const void *c) { return ((const MLIST *)c)->live; }
/* Bytes as requested from malloc (the allocator's per-block headers are not visible):
 * the container, the slot table, one node (two links, the slot index, T) per item. */
static size_t mlist_footprint(const void *c)
{
	const MLIST *m = c;
	return sizeof *m + m->cap * sizeof *m->slots + m->live * sizeof(struct node);
}

/* ---- the list extension ---- */

/* Inserts item i before or after the item refs[i] names; every reference must be live
 * when the call starts (checked before anything is allocated). */
static int mlist_insert_at_n(void *c, const uint64_t *refs, size_t n, int where,
                             uint64_t first_key, uint64_t *refs_out)
{
	MLIST *m = c;
	if (where != DOD_LIST_BEFORE && where != DOD_LIST_AFTER)
		return DOD_EINVAL;
	for (size_t i = 0; i < n; i++) {
		int err = ref_error(m, refs[i]);
		if (err)
			return err;
	}
	struct link *chain;
	int err = prepare_nodes(m, n, NULL, first_key, &chain);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct link *at = &node_at(m, refs[i])->l;
		link_before(where == DOD_LIST_BEFORE ? at : at->next,
		            pop_chain(m, &chain, refs_out ? &refs_out[i] : NULL));
	}
	return DOD_OK;
}

/* Stroustrup's insertion: a linear walk from the front to the first greater key. */
static int mlist_insert_sorted_n(void *c, const uint64_t *keys, size_t n, uint64_t *refs_out)
{
	MLIST *m = c;
	struct link *chain;
	int err = prepare_nodes(m, n, keys, 0, &chain);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct link *at = m->head.next;
		while (at != &m->head && as_node(at)->e.key <= keys[i])
			at = at->next;
		link_before(at, pop_chain(m, &chain, refs_out ? &refs_out[i] : NULL));
	}
	return DOD_OK;
}

/* Stroustrup's removal: a linear walk of positions[i] nodes from the front. */
static int mlist_erase_at_positions_n(void *c, const uint64_t *positions, size_t n,
                                      uint64_t *key_sum_out)
{
	MLIST *m = c;
	for (size_t i = 0; i < n; i++)
		if (i >= m->live || positions[i] >= m->live - i)
			return DOD_ERANGE;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		struct link *at = m->head.next;
		for (uint64_t p = positions[i]; p; p--)
			at = at->next;
		sum += erase_node(m, as_node(at));
	}
	if (key_sum_out)
		*key_sum_out = sum;
	return DOD_OK;
}

static const struct dod_list_ops mlist_list_ops = {
	.version = DOD_LIST_OPS_VERSION,
	.insert_at_n = mlist_insert_at_n,
	.insert_sorted_n = mlist_insert_sorted_n,
	.erase_at_positions_n = mlist_erase_at_positions_n,
};

/* ---- dod_ops.check ---- */

/* The walk: next->prev == node at every step, at most live nodes, each naming a slot
 * that holds it (after check_slots: no slot keeps a mark). */
static int check_links(const MLIST *m, char *why, size_t len)
{
	size_t seen = 0;
	for (const struct link *x = m->head.next; x != &m->head; x = x->next) {
		if (x->next->prev != x)
			return dod_check_fail(why, len, "node %zu's next does not point back", seen);
		if (++seen > m->live)
			return dod_check_fail(why, len, "the walk meets more than %zu live nodes",
			                      m->live);
		const struct node *nd = (const struct node *)x;
		if (nd->ref >= m->n_slots || m->slots[nd->ref] != (uintptr_t)nd)
			return dod_check_fail(why, len, "node %zu's slot %zu does not hold it", seen - 1,
			                      nd->ref);
	}
	if (m->head.next->prev != &m->head)
		return dod_check_fail(why, len, "the first node's prev is not the head");
	if (seen != m->live)
		return dod_check_fail(why, len, "the walk meets %zu nodes, live count %zu", seen,
		                      m->live);
	return DOD_OK;
}

/* The slots: no erase_n mark left, n_free free ones, all on a free list that ends. */
static int check_slots(const MLIST *m, char *why, size_t len)
{
	if (m->n_slots > m->cap || m->live + m->n_free != m->n_slots)
		return dod_check_fail(why, len, "slots %zu, capacity %zu, live %zu, free %zu",
		                      m->n_slots, m->cap, m->live, m->n_free);
	size_t n_free = 0;
	for (size_t r = 0; r < m->n_slots; r++) {
		if ((m->slots[r] & (FREE_BIT | SEEN_TAG)) == SEEN_TAG)
			return dod_check_fail(why, len, "slot %zu keeps erase_n's mark", r);
		n_free += m->slots[r] & FREE_BIT;
	}
	if (n_free != m->n_free)
		return dod_check_fail(why, len, "%zu free slots, free count %zu", n_free, m->n_free);
	size_t r = m->free_head, steps = 0;
	for (; r != NO_SLOT && steps <= m->n_free; steps++) {
		if (r >= m->n_slots || !(m->slots[r] & FREE_BIT))
			return dod_check_fail(why, len, "free list entry %zu is slot %zu, not free",
			                      steps, r);
		r = (size_t)(m->slots[r] >> 1);
	}
	if (r != NO_SLOT || steps != m->n_free)
		return dod_check_fail(why, len, "free list: %zu steps, %zu free slots%s", steps,
		                      m->n_free, r != NO_SLOT ? ", no end" : "");
	return DOD_OK;
}

/* The links and counts, and the table agrees with the list: each live node's slot holds
 * it (check_links) and the non-free slots number live, so they are exactly the nodes. */
static int mlist_check(const void *c, char *why, size_t len)
{
	const MLIST *m = c;
	int err = check_slots(m, why, len);
	return err ? err : check_links(m, why, len);
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "C doubly linked list, one malloc per node (Young, Vector hosted lists, "
	          "2015; Stroustrup, GoingNative 2012)",
	.max_elems = MAX_ELEMS,
	.create = mlist_create,
	.destroy = mlist_destroy,
	.insert_n = mlist_insert_n,
	.iterate_sum = mlist_iterate_sum,
	.lookup_sum = mlist_lookup_sum,
	.erase_n = mlist_erase_n,
	.count_valid = mlist_count_valid,
	.clear = mlist_clear,
	.dump_keys = mlist_dump_keys,
	.size = mlist_size,
	.footprint_bytes = mlist_footprint,
	.check = mlist_check,
	.list = &mlist_list_ops,
};
