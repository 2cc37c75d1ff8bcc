/* list_contract.h - the list family's extensions (Thomas Young, PathEngine, "Vector Hosted
 * Lists", 2015; the Stroustrup experiment, GoingNative 2012).
 *
 * A list container answers the core operations of containers/contract.h with list
 * meanings, and adds the position-based operations below as family extensions, under the
 * same rules as the core table: batch operations only (the loop, and any linear search,
 * lives in the container), an extension table is all or nothing (NULL = the container is
 * outside the family and a scenario that needs it is skipped with the extension's reason),
 * the container's `check` covers the list's invariants, and a bad reference fails the whole
 * batch with its error and changes nothing.
 *
 * References. A list container's handles (uint64_t) are references to its items:
 * - with DOD_CAP_STABLE_HANDLES (vlist_hosted, peer_std_list, ...), a reference (a node
 *   index, a node address) stays valid across every other insertion and erasure and across
 *   growth of the buffer, until its item is erased (or consolidate remaps it); an index may
 *   be issued again after its item died (hosted lists do not detect stale references);
 * - without it (peer_std_vector), a reference is the item's position in the sequence
 *   (0 = first): an insertion or erasure at position p shifts every reference >= p.
 *
 * The core operations for a list container:
 * - insert_n appends at the end of the sequence (item i gets key first_key + i);
 * - iterate_sum and dump_keys walk the *sequence* order, which is storage order for none
 *   of the hosted designs once they have churned: that is what the list scenarios time;
 *   DOD_CAP_KEEPS_ORDER then says the sequence is the order of insertion and of the list
 *   operations below (the conformance model is a plain array of keys in sequence order);
 * - lookup_sum / count_valid / erase_n take references; erase_n unlinks the items (its
 *   all-or-nothing rule and DOD_EFREE for a repeat hold as in contract.h).
 */
#ifndef DOD_LIST_CONTRACT_H
#define DOD_LIST_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

/* consolidate's remap entry of a reference that held no live item. */
#define DOD_NO_REF UINT64_MAX

/* The list extension (dod_ops.list): insertion at references and the Stroustrup
 * experiment's searches. Version 1. */
#define DOD_LIST_OPS_VERSION 1
enum dod_list_where { DOD_LIST_BEFORE = 0, DOD_LIST_AFTER = 1 };
struct dod_list_ops {
	int version; /* DOD_LIST_OPS_VERSION */
	/* Inserts n items one after another; item i (key first_key + i) goes immediately
	 * before (DOD_LIST_BEFORE) or after (DOD_LIST_AFTER) the item refs[i] names when it is
	 * inserted. With stable references every refs[i] must name an item live when the call
	 * starts; positional references (no DOD_CAP_STABLE_HANDLES) are read after the
	 * insertions before them: refs[i] <= size + i (before; size + i appends) or
	 * refs[i] < size + i (after). refs_out (may be NULL) gets each new item's reference
	 * as it was issued (a position may shift with later insertions). Returns 0, the error
	 * of the first bad reference (DOD_ERANGE, DOD_EFREE, ...), DOD_EINVAL (where not one
	 * of the two), DOD_ENOMEM or DOD_EFULL; on any error nothing changed. O(n) for linked
	 * designs; a vector shifts the tail: O(n x size). */
	int (*insert_at_n)(void *c, const uint64_t *refs, size_t n, int where,
	                   uint64_t first_key, uint64_t *refs_out);
	/* The first half of Stroustrup's experiment: for i = 0..n-1, walks the sequence from
	 * the front to the first item whose key is greater than keys[i] (linear search) and
	 * inserts keys[i] before it (at the end if there is none), so a sequence sorted
	 * ascending stays sorted. refs_out as insert_at_n. Returns 0, DOD_ENOMEM, DOD_EFULL
	 * or DOD_EINVAL (a key wider than the payload's: size class 4 holds 32-bit keys), nothing
	 * changed. O(size) per item. */
	int (*insert_sorted_n)(void *c, const uint64_t *keys, size_t n, uint64_t *refs_out);
	/* The second half: for i = 0..n-1, walks positions[i] items from the front (linear
	 * search, as Stroustrup's removal) and erases the item there. Every positions[i] must
	 * be < size - i (size when the call starts), else DOD_ERANGE and nothing changed.
	 * *key_sum_out (may be NULL) gets the sum (mod 2^64) of the erased keys. Returns 0 or
	 * DOD_ERANGE. O(position) per item. */
	int (*erase_at_positions_n)(void *c, const uint64_t *positions, size_t n,
	                            uint64_t *key_sum_out);
};

/* The consolidate extension (dod_ops.consolidate; Young's cVectorWithDeadEntries::
 * consolidate, and the hosted list relinked in sequence order): compaction that tells
 * the holders of references how to fix them. Version 1. */
#define DOD_CONSOLIDATE_OPS_VERSION 1
struct dod_consolidate_ops {
	int version; /* DOD_CONSOLIDATE_OPS_VERSION */
	/* Every reference the container may hold is < ref_bound(c) (slots, live or dead). */
	size_t (*ref_bound)(const void *c);
	/* Moves the live items to references 0 .. size-1 (vec_dead_entries: in the order of
	 * their old references; a hosted list: in sequence order, so a walk then reads the
	 * buffer front to back) and releases nothing the container still needs to grow.
	 * remap_out (room for ref_bound(c) as it was when the call starts) gets, for each
	 * old reference r, the new reference of the item r named, or DOD_NO_REF where r named
	 * no live item. Returns 0 (it needs no memory: remap_out is its scratch). O(slots). */
	int (*consolidate)(void *c, uint64_t *remap_out);
};

#endif
