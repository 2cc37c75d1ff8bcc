/* linked_nodes.c - aoa_linked_nodes: every entity's tags as a singly linked list of
 * {tag, next} nodes, all nodes in one buffer (Niklas Gray, "Allocation Adventures 2:
 * Arrays of Arrays", Bitsquid 2015: "a linked list of tags stored in a single array",
 * index 0 reserved as nil; containers/aoa_contract.h).
 *
 *   hdr   [ nil | head | head | ... ]        4 B an entity, parallel to the entity slots
 *                  |                         (aoa/aoa_core.h)
 *                  v
 *   nodes [ nil | {t, next} | {t, 0} | free | {t, next} | ... ]   8 B a node, one buffer
 *                  ^-----------------------------------'          (aoa/node_pool.h)
 *
 * A new tag is pushed at the front of its entity's chain (O(1)); remove unlinks the first
 * node holding the tag (O(chain)); has and the walk follow the chain. Invariants: every
 * chain of a live entity ends in 0 within n_nodes, holds no free-marked node, and the
 * chains hold live_nodes nodes in all, with live_nodes + n_free = n_nodes - 1 (every node
 * but nil on exactly one of them); a free slot's head is 0. Memory: half of every node is
 * link (D3), plus the pool's unused capacity. The walk jumps to wherever each next points:
 * after the interleaved adds of a game, a cache miss a tag (D3's "random next pointers").
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aoa/node_pool.h"

#define AOA_MAX_TAGS 0
typedef struct {
	uint32_t head; /* first node, 0 = no tags */
} AOA_HDR;
struct aoa_store {
	struct aoa_pool pool;
	size_t live_nodes; /* = tags stored */
	size_t tags;       /* unused: the chunked designs' (chain_hooks.h) */
};

#include "aoa/aoa_core.h"

struct ln_node {
	uint32_t tag, next; /* next last: node_pool.h's free link */
};
#define NB sizeof(struct ln_node)

static inline struct ln_node *nd(const struct aoa *a, uint32_t x)
{
	return (struct ln_node *)pool_at(&a->s.pool, x, NB);
}

#include "aoa/chain_hooks.h"

static void hdr_release(struct aoa *a, uint32_t i)
{
	for (uint32_t x = a->hdr[i].head, next; x; x = next) {
		next = nd(a, x)->next;
		pool_give(&a->s.pool, x, NB);
		a->s.live_nodes--;
	}
	a->hdr[i].head = 0;
}

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	int err = DOD_OK;
	uint32_t x = pool_take(&a->s.pool, NB, &err);
	if (!x)
		return err;
	*nd(a, x) = (struct ln_node){tag, a->hdr[i].head};
	a->hdr[i].head = x;
	a->s.live_nodes++;
	return 1;
}

static void tag_undo(struct aoa *a, uint32_t i)
{
	uint32_t x = a->hdr[i].head;
	a->hdr[i].head = nd(a, x)->next;
	pool_untake(&a->s.pool, x, NB);
	a->s.live_nodes--;
}

static int tag_remove(struct aoa *a, uint32_t i, uint32_t tag)
{
	uint32_t *link = &a->hdr[i].head;
	for (uint32_t x = *link; x; link = &nd(a, x)->next, x = *link)
		if (nd(a, x)->tag == tag) {
			*link = nd(a, x)->next;
			pool_give(&a->s.pool, x, NB);
			a->s.live_nodes--;
			return 1;
		}
	return 0;
}

static bool tag_has(const struct aoa *a, uint32_t i, uint32_t tag)
{
	for (uint32_t x = a->hdr[i].head; x; x = nd(a, x)->next)
		if (nd(a, x)->tag == tag)
			return true;
	return false;
}

static size_t tags_list(const struct aoa *a, uint32_t i, uint32_t *out, size_t room)
{
	size_t k = 0;
	for (uint32_t x = a->hdr[i].head; x; x = nd(a, x)->next, k++)
		if (k < room)
			out[k] = nd(a, x)->tag;
	return k;
}

static uint64_t walk(const struct aoa *a)
{
	const struct ln_node *nodes = (const struct ln_node *)a->s.pool.base;
	uint64_t sum = 0;
	for (size_t i = 1; i < a->n_slots; i++)
		for (uint32_t x = a->hdr[i].head; x; x = nodes[x].next)
			sum += nodes[x].tag;
	return sum;
}

static void store_memory(const struct aoa *a, struct dod_tags_memory *m)
{
	m->tags = a->s.live_nodes;
	m->unit_bytes = a->s.live_nodes * NB;
}

static int store_check(const struct aoa *a, char *why, size_t len)
{
	const struct aoa_pool *p = &a->s.pool;
	int err = pool_check(p, NB, why, len);
	if (err)
		return err;
	size_t seen = 0;
	for (uint32_t i = 1; i < a->n_slots; i++)
		for (uint32_t x = a->hdr[i].head; x; x = nd(a, x)->next) {
			if (x >= p->n_nodes || (nd(a, x)->next & AOA_POOL_FREE))
				return dod_check_fail(why, len, "entity slot %u's chain reaches node %u, %s", i,
				                      x, x >= p->n_nodes ? "past n_nodes" : "a free one");
			if (++seen > a->s.live_nodes)
				return dod_check_fail(why, len, "the chains hold more than %zu nodes (a cycle "
				                      "or a shared node)", a->s.live_nodes);
		}
	if (seen != a->s.live_nodes || seen + p->n_free != p->n_nodes - 1)
		return dod_check_fail(why, len, "%zu nodes in chains, live_nodes %zu, %zu free, %zu "
		                      "nodes", seen, a->s.live_nodes, p->n_free, p->n_nodes);
	return DOD_OK;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          "a linked list of {tag, next} nodes in one array, index 0 nil",
	AOA_CORE_OPS,
};
