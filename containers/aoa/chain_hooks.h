/* chain_hooks.h - the aoa_core.h hooks that aoa_linked_nodes and aoa_chunked* share: both
 * keep every entity's tags as a chain of nodes in one node buffer (aoa/node_pool.h),
 * the entity's header {head} naming its first node (0: no tags). Included by the two
 * design files after aoa/aoa_core.h, with NB (the node's size) defined and their
 * struct aoa_store being { struct aoa_pool pool; size_t live_nodes, tags; }. */
#ifndef DOD_AOA_CHAIN_HOOKS_H
#define DOD_AOA_CHAIN_HOOKS_H

static int store_create(struct aoa *a, size_t capacity_entities)
{
	a->s.live_nodes = a->s.tags = 0;
	return pool_init(&a->s.pool, capacity_entities, NB);
}
static void store_destroy(struct aoa *a) { free(a->s.pool.base); }
static void hdr_init(struct aoa *a, uint32_t i) { a->hdr[i].head = 0; }
static bool hdr_empty(const struct aoa *a, uint32_t i) { return a->hdr[i].head == 0; }
/* Every node handed back at once (pool_clear), every header of [1, n_slots) empty. */
static void store_clear(struct aoa *a)
{
	pool_clear(&a->s.pool);
	for (size_t i = 1; i < a->n_slots; i++)
		a->hdr[i].head = 0;
	a->s.live_nodes = a->s.tags = 0;
}
static void batch_begin(struct aoa *a) { a->s.pool.batch_fresh = a->s.pool.n_nodes; }
static size_t store_bytes(const struct aoa *a) { return a->s.pool.cap * NB; }

#endif
