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
};

struct model_slot;

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
	struct model_item *live; /* n items in insertion order (erase keeps the order) */
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
 * first ones ever issued (valid exactly when they equal a live handle), then the container's invariant check
 * (dod_ops.check) when it has one. Returns 0 or -1 with the first mismatch in why. */
int model_compare(const struct model *m, const void *c, char *why, size_t why_len);

/* Runs the batch operations of every family extension the container offers (dod_exts,
 * containers/contract.h) once on c, checked against the model: the particles extension
 * ticks and simulates once, and the live particles' t sum must grow by exactly n x dt and
 * their pos sum by the sum of vel x dt over the model's keys (dod_particle_vel; every
 * value is a multiple of 2^-6, so exact). Keys do not change (model_compare checks that
 * after); the type ids extension makes a second container with another type id, whose
 * handle c must reject as foreign (an allocation that fails leaves nothing to check).
 * Returns 0, or -1 with why. */
int model_run_exts(const struct model *m, void *c, char *why, size_t why_len);
/* The same for the extensions whose operations return no error, so must not allocate
 * (every one but type ids): for drivers that run it with every allocation failing. */
int model_run_exts_no_errors(const struct model *m, void *c, char *why, size_t why_len);

#endif
