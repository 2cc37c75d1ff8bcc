/* model.h - the reference model that tests/test_conformance.c and the fuzzer
 * (tests/fuzz/fuzz_containers.c) compare every registered container with: the live items
 * as (handle, key) pairs in insertion order, and the most recent dead handles.
 *
 * The oracle for handles is one rule that holds for every design in the registry: a
 * handle is valid iff it equals, bit for bit, the handle of a live item, and it then
 * reaches that item. So a stale, forged, foreign or out-of-range handle is rejected
 * unless it happens to equal a live handle, which is what a design that cannot detect
 * staleness documents: plain_array's indices and peer_malloc_ptrs' indices are issued
 * again after clear, handle_map's generations restart at reset and wrap after 2^16
 * erases of a slot, peer_colony's pointers are reused by later inserts. For a container
 * with DOD_CAP_DETECTS_STALE the model adds the promise that makes the rule mean
 * something: a handle that died by erase or clear is not issued again (not equal to any
 * new handle) until MODEL_ABA_EVENTS erases and clears later (handle_map's 16-bit
 * generation is the smallest window in the registry), unless a reset came between.
 *
 * A list container (containers/list_contract.h) is modelled by the same array: it is the
 * sequence (core insert_n appends, erase keeps the order, the list operations insert and
 * erase at positions); its references are handles like any other, except positional ones
 * (a list without DOD_CAP_STABLE_HANDLES: peer_std_vector), which the model renumbers
 * after each operation (model.positional).
 *
 * A tags container (containers/aoa_contract.h) is modelled by the same array: its items
 * are the entities, each with its tags (model_item.tags), compared as a multiset.
 *
 * Errors are returned, never asserted: each function that can find a mismatch returns 0
 * or -1 with a reason in why[0 .. why_len), and the caller fails its own way (cmocka's
 * fail_msg, the fuzzer's abort). The model allocates with malloc; it never runs while the
 * fuzzer's failing allocator is armed. A model is not copied (its index is its own).
 */
#ifndef DOD_TESTS_MODEL_H
#define DOD_TESTS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contract.h"

#define MODEL_DEAD_KEEP 256      /* dead handles remembered (a ring of the latest) */
#define MODEL_ABA_EVENTS 65536u  /* erases + clears after which a dead handle may return */
#define MODEL_FIRST_KEEP 16      /* first handles remembered for good */

enum { MODEL_DIED_ERASE, MODEL_DIED_CLEAR, MODEL_DIED_RESET };

struct model_item {
	uint64_t handle, key;
	uint32_t *tags; /* the tags extension: the entity's tags (a multiset), n_tags of them */
	size_t n_tags, cap_tags;
};

struct model_slot;
struct model_dc;

struct model_dead {
	uint64_t handle;
	uint64_t events_at; /* model.events when it died */
	int how;            /* MODEL_DIED_*; RESET also for any death before a reset */
};

struct model {
	const struct dod_ops *ops;
	bool handles;          /* DOD_CAP_HANDLES */
	bool detects_stale;    /* DOD_CAP_DETECTS_STALE */
	bool lookup_validates; /* lookup_sum rejects bad handles (model_init probes it) */
	bool positional;       /* handles are positions in the sequence: a list container
	                        * (DOD_EXT_LIST) without DOD_CAP_STABLE_HANDLES; every item's
	                        * handle is renumbered after each operation that moves items */
	struct model_item *live; /* n items in insertion order (erase keeps the order); for a
	                          * list container the sequence (list_contract.h) */
	size_t n, cap;
	struct model_dead dead[MODEL_DEAD_KEEP];
	size_t n_dead;           /* deaths ever; the ring holds the last MODEL_DEAD_KEEP */
	uint64_t first[MODEL_FIRST_KEEP]; /* the first handles ever issued, never forgotten:
	                          * probed after every step too, so a handle that comes back
	                          * after a generation wrap-around (or a reset) is seen */
	size_t n_first;
	uint64_t next_key;       /* key of the next inserted item */
	uint64_t events;         /* erased items + clears so far */
	bool sorted;             /* storage order is key order: the caller sets it after a full
	                          * defragment; insert, erase and clear drop it */
	struct model_slot *ix;   /* handle -> key index of the live items (model.c) */
	size_t ix_mask, ix_n;
	struct model_slot *dix;  /* handle -> occurrences in the dead ring (model.c) */
	size_t dix_mask, dix_n;
	uint64_t rng;            /* model_run_exts' choices (seeded by model_init) */
	struct model_dc *dc;     /* the DataComponent's values (DOD_EXT_DC): tests/model_dc.h */
};

/* An empty model of a new container of ops. Probes once (a container of its own) whether
 * lookup_sum validates: it must reject a handle that is the address of memory the model
 * owns, unless it dereferences raw pointers (the contract's one exception, peer_colony),
 * in which case it must return that memory's key. Returns 0, or -1 with why (the probe
 * got something else, or create failed). */
int model_init(struct model *m, const struct dod_ops *ops, char *why, size_t why_len);
void model_free(struct model *m);

/* Index in m->live of the item whose handle is h, or -1. O(n). */
long model_find(const struct model *m, uint64_t h);

/* Records k items just inserted with keys m->next_key.., handles hs (NULL when the
 * container has none). Returns -1 with why when a new handle equals a live one, or, for
 * DOD_CAP_DETECTS_STALE, a handle that died by erase or clear within MODEL_ABA_EVENTS. */
int model_inserted(struct model *m, size_t k, const uint64_t *hs, char *why, size_t why_len);

/* What erase_n(hs, n) must return: DOD_OK (all live, none repeated), DOD_EFREE (all live
 * but one repeated: the contract names the error), or 1 (some handle not live: any
 * error). */
int model_erase_expect(const struct model *m, const uint64_t *hs, size_t n);
/* Applies a successful erase_n (every handle live and distinct). */
void model_erased(struct model *m, const uint64_t *hs, size_t n);
/* Every live item dies (how: MODEL_DIED_CLEAR or MODEL_DIED_RESET). */
void model_cleared(struct model *m, int how);

/* How many of hs are valid (equal a live handle). */
size_t model_count_valid(const struct model *m, const uint64_t *hs, size_t n);
/* Whether lookup_sum(hs, n) must succeed; if so *sum is its sum. */
bool model_lookup_expect(const struct model *m, const uint64_t *hs, size_t n, uint64_t *sum);

/* A recent dead handle (i < model_n_dead(m); 0 is the latest). */
size_t model_n_dead(const struct model *m);
uint64_t model_dead_at(const struct model *m, size_t i);

/* Compares container c with the model: size, iterate_sum, dump_keys (the same keys;
 * insertion order under DOD_CAP_KEEPS_ORDER; ascending after a full defragment),
 * lookup_sum and count_valid of every live handle, and of the recent dead ones and the
 * first ones ever issued (valid exactly when they equal a live handle), for a tags
 * container every entity's tags (tags_of, as a multiset), walk_sum and memory's tags and
 * bytes, then the container's invariant check
 * (dod_ops.check) when it has one. Returns 0 or -1 with the first mismatch in why. */
int model_compare(const struct model *m, const void *c, char *why, size_t why_len);

/* The list extension and consolidate (containers/list_contract.h), for drivers that
 * call them themselves (the fuzzer, test_alloc_fail); model_run_exts uses them too.
 * What insert_at_n(refs, n, where) must return: DOD_OK, DOD_EINVAL (where is neither
 * DOD_LIST_BEFORE nor DOD_LIST_AFTER and every reference is good), or 1 (a reference
 * that is not a live item's when the call starts, or, positional, a position past
 * size + i: some error). */
int model_insert_at_expect(const struct model *m, const uint64_t *refs, size_t n, int where);
/* Applies a successful insert_at_n(refs, n, where, m->next_key, hs): item i (key
 * next_key + i) before or after the item refs[i] names; hs (NULL without handles) are
 * checked as model_inserted's, positional ones against the position each item got.
 * Returns 0 or -1 with why. */
int model_inserted_at(struct model *m, const uint64_t *refs, size_t n, int where,
                      const uint64_t *hs, char *why, size_t why_len);
/* Applies a successful insert_sorted_n(keys, n, hs): each key before the first item of a
 * greater key (linear search from the front). Keys need not be distinct. 0 or -1. */
int model_inserted_sorted(struct model *m, const uint64_t *keys, size_t n, const uint64_t *hs,
                          char *why, size_t why_len);
/* What erase_at_positions_n(positions, n) must return: DOD_OK or DOD_ERANGE. */
int model_erase_at_expect(const struct model *m, const uint64_t *positions, size_t n);
/* Applies a successful erase_at_positions_n; returns the sum of the erased keys. */
uint64_t model_erased_at(struct model *m, const uint64_t *positions, size_t n);
/* Checks the remap of a successful consolidate whose ref_bound was bound when it started:
 * every reference < bound that named no live item maps to DOD_NO_REF, the live ones to
 * distinct references 0 .. n-1, in sequence order for a list container (DOD_EXT_LIST: the
 * hosted lists) or in the order of the old references (vec_dead_entries); then rewrites
 * the model's handles. Returns 0 or -1 with why. */
int model_consolidated(struct model *m, const uint64_t *remap, size_t bound, char *why,
                       size_t why_len);

/* The tags extension (containers/aoa_contract.h), for drivers that call it themselves
 * (the fuzzer, test_alloc_fail); model_run_exts uses them too. ents name entities (live
 * items' handles), tags[i] goes with ents[i].
 * What add_n, remove_n and has_n of ents must return: DOD_OK, or 1 (an entity that is
 * not live: some error, nothing changed). */
int model_tags_expect(const struct model *m, const uint64_t *ents, size_t n);
/* Applies a successful add_n (in order; an entity holding the variant's max_tags refuses);
 * returns the refusals add_n must report. */
size_t model_tags_added(struct model *m, const uint64_t *ents, const uint32_t *tags, size_t n);
/* Applies a successful remove_n (one occurrence each, if held); returns the removals. */
size_t model_tags_removed(struct model *m, const uint64_t *ents, const uint32_t *tags,
                          size_t n);
/* What has_n must find. */
size_t model_tags_found(const struct model *m, const uint64_t *ents, const uint32_t *tags,
                        size_t n);

/* Which extensions a driver may run with every allocation failing (model_run_exts' which):
 * - MODEL_EXTS_NO_ALLOC: their operations return no error, so they must allocate nothing,
 *   and their checks need no memory (the particle kernels);
 * - MODEL_EXTS_MAY_FAIL: they may fail with DOD_ENOMEM, the model allocating nothing
 *   (type ids' create_typed): they must fail cleanly;
 * - MODEL_EXTS_MODEL_ALLOCATES: the model or its scratch allocates (list, consolidate,
 *   tags, dc):
 *   never with a failing allocator armed; the drivers fail their allocations in steps of
 *   their own (the fuzzer's fail-alloc, test_alloc_fail's list operations). */
#define MODEL_EXTS_NO_ALLOC ((unsigned)DOD_EXT_PARTICLES)
#define MODEL_EXTS_MAY_FAIL ((unsigned)DOD_EXT_TYPE_IDS)
#define MODEL_EXTS_MODEL_ALLOCATES \
	((unsigned)(DOD_EXT_LIST | DOD_EXT_CONSOLIDATE | DOD_EXT_TAGS | DOD_EXT_DC))
#define MODEL_EXTS_ALL (~0u)

/* Runs the batch operations of the family extensions in which (DOD_EXT_* bits) that the
 * container offers (dod_exts, containers/contract.h) on c, checked against the model: the
 * particles extension ticks and simulates once, and the live particles' t sum must grow
 * by exactly n x dt and their pos sum by the sum of vel x dt over the model's keys
 * (dod_particle_vel; every value is a multiple of 2^-6, so exact); keys do not change
 * (model_compare checks that after). The type ids extension makes a second container
 * with another type id, whose handle c must reject as foreign (an allocation that fails
 * leaves nothing to check). The list extension: insert_at_n with a bad reference and
 * with a bad where (must fail whole, unchanged), then at random live references;
 * insert_sorted_n of random keys; erase_at_positions_n past the size (DOD_ERANGE,
 * unchanged), then at random positions (the key sum checked); model_compare after each.
 * Consolidate: into a remap of exactly ref_bound entries, checked by model_consolidated.
 * Tags: add_n, has_n and remove_n with a bad entity (must fail, unchanged), then add_n of
 * up to 3 x MODEL_RUN_MAX_BATCH tags (sometimes all to one entity, past a fixed maximum:
 * the refusals counted), has_n and remove_n of random pairs (counts checked); model_compare
 * checks every entity's tags, the walk and the memory statistics after each.
 * The DataComponent: model_dc_run (tests/model_dc.h); model_compare then checks every
 * entity's values too.
 * Choices come from m->rng; batches of at most MODEL_RUN_MAX_BATCH items, so one call
 * adds at most 2 x MODEL_RUN_MAX_BATCH items. Returns 0, or -1 with why. */
#define MODEL_RUN_MAX_BATCH 4
int model_run_exts(struct model *m, void *c, unsigned which, char *why, size_t why_len);

#endif
