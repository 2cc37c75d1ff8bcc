/* vlist_hosted.h - a doubly linked list hosted in one growable buffer: the layout of
 * vlist_hosted and vlist_hosted_compacting (containers/lists/vlist_hosted.c, the
 * dod_ops of the `list` family; containers/list_contract.h).
 *
 * Source: Thomas Young (PathEngine), "Vector Hosted Lists" (2015), "Hosting a doubly
 * linked list" and "Free list": any fixed-size node structure can live in one vector,
 * which replaces the heap; indices replace pointers (still valid after the vector moves,
 * easy to save), and unused nodes form a singly linked free list through `next`.
 * vlist_hosted_compacting adds the relinking counterpart of the article's
 * cVectorWithDeadEntries::consolidate (list_contract.h's consolidate extension).
 *
 *   nodes [ n0 | n1 | n2 | n3 | n4 | ... n(n_nodes-1) | capacity - n_nodes unused ]
 *   node  { DOD_ELEM value; uint32_t prev, next; }     12 B at 4-byte values, 16 B at 8, 24 B at 16
 *
 *   head -> n2 <-> n0 <-> n4 <-> ... <- tail   the sequence: next from head (NIL ends it),
 *                                              prev from tail; prev of head is NIL
 *   free_head -> n3 -> n1 -> NIL               free nodes: prev = VLIST_FREE (the mark),
 *                                              next = the next free node (LIFO)
 *
 * A reference (the contract's handle) is the node index: it stays valid across every
 * other insertion and erasure and across growth of the buffer (the buffer moves, the
 * index does not), until its item is erased; a freed index is issued again, so a
 * reference to an erased item is not detected once its node is reused. An index >=
 * n_nodes is DOD_ERANGE, a free node DOD_EFREE. clear hands every node back (n_nodes = 0:
 * every old reference is DOD_ERANGE until the nodes are issued again).
 *
 * Invariants (vlist's check, after every step of the conformance test and the fuzzer):
 *   - n_nodes <= capacity, n_nodes <= VLIST_MAX_NODES, live + n_free == n_nodes;
 *   - the walk from head visits exactly `live` distinct nodes (no cycle), each below
 *     n_nodes and not free, each node's prev is the node before it (NIL for the head),
 *     and it ends at tail;
 *   - the free list from free_head holds exactly n_free nodes, each below n_nodes and
 *     marked free, no cycle; so every node below n_nodes is on exactly one of the two;
 *   - no node carries VLIST_MARK (erase_n's temporary mark of the nodes of its batch).
 *
 * Costs: insert (append, before/after a reference) O(1) amortized, erase O(1) (an unlink,
 * plus O(n) to validate the batch first), lookup O(1), iterate O(live) in sequence order,
 * which jumps around the buffer once the list has churned (the cost the list scenarios
 * time); insert_sorted_n and erase_at_positions_n walk from the head: O(size) per item;
 * clear O(1); consolidate O(n_nodes). Growth x2 by realloc (alloc/realloc.h, counted in
 * dod_growth). Memory: n_nodes x (value + 8 B of links) plus the unused capacity.
 *
 * This header is per size class: define ELEM_BYTES before including it.
 */
#ifndef DOD_VLIST_HOSTED_H
#define DOD_VLIST_HOSTED_H
#include <stdint.h>

/* Link values: indices are 31-bit so that bit 31 can mark a node of erase_n's batch
 * (a repeat in the batch finds its node marked: DOD_EFREE, with no memory allocated). */
#define VLIST_NIL UINT32_C(0x7FFFFFFF)  /* no node: ends the sequence and the free list */
#define VLIST_FREE UINT32_C(0x7FFFFFFE) /* prev of a free node */
#define VLIST_MARK UINT32_C(0x80000000) /* in prev: a node of the batch being erased */
#define VLIST_MAX_NODES ((size_t)VLIST_FREE) /* indices 0 .. VLIST_FREE - 1 */
#endif

#ifndef ELEM_BYTES
#error "define ELEM_BYTES before including vlist_hosted.h"
#endif
#include "alloc/realloc.h"
#include "dod_common.h"

struct SFX(vlist_node) {
	DOD_ELEM value;
	uint32_t prev, next; /* free node: prev = VLIST_FREE, next = the next free node */
};

struct SFX(vlist) {
	struct dod_realloc_store nodes; /* struct SFX(vlist_node) each */
	size_t n_nodes;                 /* nodes handed out: live or free */
	size_t live, n_free;
	uint32_t head, tail, free_head; /* VLIST_NIL when empty */
};
