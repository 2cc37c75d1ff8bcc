/* aoa_contract.h - the arrays-of-arrays family's extension (Niklas Gray, Bitsquid,
 * "Allocation Adventures 1: The DataComponent" and "2: Arrays of Arrays", 2015): the
 * article's TagComponent, many entities each with a variable-length list of 32-bit tags
 * (hashed strings), stored without one allocation per list.
 *
 * Entities are the core items. A tags container answers the core operations of
 * containers/contract.h with entity meanings, so every core scenario and the conformance
 * test run on it unchanged:
 * - insert_n creates n entities, entity i with key first_key + i and no tags; its handles
 *   name entities (weak pointers {id, generation}: a destroyed entity's handle is stale);
 * - erase_n destroys entities and every tag they hold (all or nothing, as contract.h);
 * - iterate_sum, dump_keys, lookup_sum, count_valid: over the entities' keys, as for any
 *   container with holes (a destroyed entity leaves a slot that a later one reuses);
 * - clear destroys every entity.
 *
 * The tags extension (dod_ops.tags) adds the per-entity lists, under the core table's
 * rules: batch operations only (the loop lives in the container, no indirect call per tag
 * in a timed region), the table is all or nothing, and an entity reference that is not a
 * live entity's (stale, free, out of range, forged) fails the whole batch with that
 * reference's error (DOD_ESTALE, DOD_EFREE, DOD_ERANGE) and changes nothing. The same
 * entity may appear many times in one batch.
 *
 * An entity's tags are a multiset (a tag may be held twice) in an order that is the
 * design's own: add may put a tag first or last, remove may move another tag into the
 * place it leaves. The model (tests/model.c) compares each entity's tags as a multiset.
 */
#ifndef DOD_AOA_CONTRACT_H
#define DOD_AOA_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

/* What the tags take (dod_tags_ops.memory), in bytes. The article's utilization is
 * 4 x tags / unit_bytes (D3: half of a {tag, next} node is link; D4: a chunk of 8 is 80%
 * tags when full, 30% at 3 tags); what the process pays per tag is held_bytes / tags. */
struct dod_tags_memory {
	size_t tags;       /* tags stored, over every live entity */
	size_t unit_bytes; /* the storage units that hold them, whole: live nodes or chunks
	                    * (links and counts included), the fixed {n; tags[8]} records of
	                    * live entities, the capacity of each live entity's array; not
	                    * free nodes, unused buffer capacity or the per-entity headers of
	                    * designs whose tags live elsewhere. Allocator headers are not
	                    * seen (peers: the library's own capacity) */
	size_t held_bytes; /* everything the container holds from the heap: footprint_bytes */
};

/* The tags extension (dod_ops.tags). Version 1. */
#define DOD_TAGS_OPS_VERSION 1
struct dod_tags_ops {
	int version;      /* DOD_TAGS_OPS_VERSION */
	size_t max_tags;  /* most tags one entity can hold (aoa_fixed8: 8); 0: no limit but
	                   * memory */
	/* For i = 0..n-1 in order: entity ents[i] gets tag tags[i]. An entity already holding
	 * max_tags refuses it: that item changes nothing and is counted in *refused_out (the
	 * article's "full" fixed record; a clean outcome, not an error: the others are added).
	 * refused_out may be NULL. Returns 0, an entity's error (nothing changed), DOD_ENOMEM
	 * or DOD_EFULL (node indices exhausted): then nothing changed either (the tags added
	 * by the call so far are taken back; a buffer grown on the way may keep its capacity).
	 * O(1) amortized per tag (vectors: x2 growth), but aoa_vec_add16's O(tags of the
	 * entity) (+16 growth, claim D7). */
	int (*add_n)(void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
	             size_t *refused_out);
	/* For i = 0..n-1 in order: removes one occurrence of tags[i] from entity ents[i]; a
	 * pair whose entity does not hold the tag (any more) is left alone and not counted.
	 * *removed_out (may be NULL) = tags removed. Returns 0 or an entity's error (nothing
	 * changed). Never allocates. O(tags of the entity) per item. */
	int (*remove_n)(void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
	                size_t *removed_out);
	/* *found_out = how many of the n pairs (ents[i], tags[i]) are present: entity ents[i]
	 * holds tag tags[i] at least once. Returns 0 or an entity's error (*found_out
	 * unspecified). O(tags of the entity) per item. */
	int (*has_n)(const void *c, const uint64_t *ents, const uint32_t *tags, size_t n,
	             size_t *found_out);
	/* The timed walk: the sum (mod 2^64) of every tag of every live entity, visiting the
	 * entities in slot order and each entity's list as the design stores it (following
	 * its chain), as a system that processes entities does; not the node buffer front to
	 * back. O(entity slots + tags). */
	uint64_t (*walk_sum)(const void *c);
	/* Untimed verification: *count_out = the tags entity ent holds; the first
	 * min(count, room) of them, in the design's order, go to tags_out (may be NULL when
	 * room is 0). Returns 0 or the entity's error. */
	int (*tags_of)(const void *c, uint64_t ent, uint32_t *tags_out, size_t room,
	               size_t *count_out);
	/* Untimed: fills *out (struct dod_tags_memory). O(entity slots). */
	void (*memory)(const void *c, struct dod_tags_memory *out);
};

#endif
