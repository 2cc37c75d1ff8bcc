/* node_pool.h - the one buffer of nodes that aoa_linked_nodes and aoa_chunked* keep their
 * tag lists in (Niklas Gray, "Allocation Adventures 2: Arrays of Arrays": "store the
 * nodes in a single array, index 0 reserved as nil"), with its free list.
 *
 *   nodes [ nil | n1 | n2 | free | n4 | ... | n_nodes - 1 | unused capacity ... ]
 *   a node's last 4 bytes are its `next`: a chain's link (0 = nil ends it, so a memset 0
 *   empties every list and `if (next)` tests for more), or, in a free node, the next free
 *   node | AOA_POOL_FREE (0 ends the free list; the bit marks the node free)
 *
 * Node 0 is never handed out and never written: its bytes stay 0. Nodes are taken from
 * the free list first (LIFO), then past n_nodes; the buffer grows x2 by realloc
 * (dod_grow_geometric, counted in dod_growth), which moves it: node addresses are valid
 * until the next take. Indices are 31-bit (bit 31 is the free mark): past AOA_POOL_MAX
 * nodes a take fails with DOD_EFULL. An add_n batch can be taken back exactly
 * (pool_untake in reverse order): a node taken past batch_fresh was fresh and goes back
 * past n_nodes, one from the free list goes back on it, so the list is as it was.
 * Functions take the node size (a compile-time constant of the design) and inline.
 */
#ifndef DOD_AOA_NODE_POOL_H
#define DOD_AOA_NODE_POOL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/realloc.h"
#include "dod_common.h"

#define AOA_POOL_FREE UINT32_C(0x80000000)
#define AOA_POOL_MAX ((size_t)0x7FFFFFFF) /* node indices 1 .. AOA_POOL_MAX - 1 */

struct aoa_pool {
	char *base;
	size_t cap;         /* nodes allocated */
	size_t n_nodes;     /* handed out, live or free, node 0 included: >= 1 */
	size_t n_free;      /* on the free list */
	uint32_t free_head; /* 0: empty */
	size_t batch_fresh; /* n_nodes when the current add_n batch began */
};

static inline char *pool_at(const struct aoa_pool *p, uint32_t i, size_t nb)
{
	return p->base + (size_t)i * nb;
}
static inline uint32_t *pool_next(const struct aoa_pool *p, uint32_t i, size_t nb)
{
	return (uint32_t *)(pool_at(p, i, nb) + nb - sizeof(uint32_t));
}

/* An empty pool with room for cap nodes besides nil. 0 or DOD_ENOMEM (p freed). */
static inline int pool_init(struct aoa_pool *p, size_t cap, size_t nb)
{
	*p = (struct aoa_pool){.n_nodes = 1};
	if (dod_grow_geometric((void **)&p->base, &p->cap, cap + 1, nb, AOA_POOL_MAX)) {
		free(p->base);
		return DOD_ENOMEM;
	}
	memset(p->base, 0, nb);
	return DOD_OK;
}

/* A node (its bytes unspecified), or 0 with *err = DOD_EFULL or DOD_ENOMEM (nothing
 * changed). Invalidates node addresses when the buffer grows. */
static inline uint32_t pool_take(struct aoa_pool *p, size_t nb, int *err)
{
	uint32_t i = p->free_head;
	if (i) {
		p->free_head = *pool_next(p, i, nb) & ~AOA_POOL_FREE;
		p->n_free--;
		return i;
	}
	if (p->n_nodes >= AOA_POOL_MAX) {
		*err = DOD_EFULL;
		return 0;
	}
	if (p->n_nodes == p->cap &&
	    (*err = dod_grow_geometric((void **)&p->base, &p->cap, p->n_nodes + 1, nb,
	                               AOA_POOL_MAX)) != DOD_OK)
		return 0;
	return (uint32_t)p->n_nodes++;
}

/* Node i onto the free list. O(1). */
static inline void pool_give(struct aoa_pool *p, uint32_t i, size_t nb)
{
	*pool_next(p, i, nb) = p->free_head | AOA_POOL_FREE;
	p->free_head = i;
	p->n_free++;
}

/* Takes back the latest pool_take of this batch (see the opening comment). */
static inline void pool_untake(struct aoa_pool *p, uint32_t i, size_t nb)
{
	if (i >= p->batch_fresh)
		p->n_nodes--; /* i == n_nodes - 1: fresh nodes come back last taken first */
	else
		pool_give(p, i, nb);
}

/* Every node but nil handed back at once; the buffer is kept. */
static inline void pool_clear(struct aoa_pool *p)
{
	p->n_nodes = 1;
	p->n_free = 0;
	p->free_head = 0;
}

/* Invariant check: counts, nil all zeros, the free list (n_free distinct free-marked
 * nodes below n_nodes, no cycle). Returns 0 or dod_check_fail's DOD_EINVAL. */
static inline int pool_check(const struct aoa_pool *p, size_t nb, char *why, size_t len)
{
	if (p->n_nodes < 1 || p->n_nodes > p->cap || p->n_free >= p->n_nodes)
		return dod_check_fail(why, len, "pool counts: %zu nodes, %zu free, capacity %zu",
		                      p->n_nodes, p->n_free, p->cap);
	for (size_t b = 0; b < nb; b++)
		if (p->base[b])
			return dod_check_fail(why, len, "node 0 (nil) was written");
	size_t seen = 0;
	for (uint32_t x = p->free_head; x; x = *pool_next(p, x, nb) & ~AOA_POOL_FREE) {
		if (x >= p->n_nodes || !(*pool_next(p, x, nb) & AOA_POOL_FREE))
			return dod_check_fail(why, len, "free list reaches node %u, %s", x,
			                      x >= p->n_nodes ? "past n_nodes" : "not marked free");
		if (++seen > p->n_free)
			return dod_check_fail(why, len, "free list longer than its %zu nodes: a cycle",
			                      p->n_free);
	}
	if (seen != p->n_free)
		return dod_check_fail(why, len, "free list holds %zu nodes, n_free %zu", seen, p->n_free);
	return DOD_OK;
}

#endif
