/* list_model.h - the list scenarios' shared setup (list_model.c;
 * containers/list_contract.h). */
#ifndef SCN_LIST_MODEL_H
#define SCN_LIST_MODEL_H

#include "scenario.h"

/* ---- the list scenarios' shared setup ---- */

/* Rank and select over n slots, each present or not (a Fenwick tree): O(log n) each. */
struct scn_ranks {
	size_t n;
	uint64_t *t; /* t[1..n] */
};
/* n slots, all present (or none). Returns 0 or DOD_ENOMEM. */
int scn_ranks_init(struct scn_ranks *r, size_t n, bool present);
/* Adds delta (+1: present again, -1: absent) to slot i < n. */
void scn_ranks_add(struct scn_ranks *r, size_t i, int64_t delta);
/* Present slots before slot i (i <= n). */
size_t scn_ranks_before(const struct scn_ranks *r, size_t i);
/* The slot of the k-th present slot (0-based; k < the present count). */
size_t scn_ranks_select(const struct scn_ranks *r, size_t k);
void scn_ranks_free(struct scn_ranks *r);

/* A list container and the model of its sequence the scenarios verify it with. Keys are
 * issued in order (0 .. n-1 by the fill, then first_key = n_keys by each insertion), so
 * a key names one item for the whole run. The model is a doubly linked list of every key
 * issued, in sequence order, in which an erased key stays where it was (marked dead): the
 * live items' order is the model's order with the dead skipped, and the model's order is
 * a total order of every item that ever lived, so the position a positional reference
 * (peer_std_vector: no DOD_CAP_STABLE_HANDLES) needs at any moment is the count of live
 * items before it (scn_ranks over the model's order). */
struct scn_list {
	void *c;
	bool positional;       /* references are sequence positions */
	size_t cap;            /* keys the model has room for */
	size_t n_keys, n_live; /* keys issued (0 .. n_keys-1), items live */
	uint64_t live_key_sum; /* sum of the live keys mod 2^64 */
	uint64_t *ref;         /* per key: its reference as issued (stable references) */
	uint64_t *next, *prev; /* the model; index cap is the head and tail sentinel */
	unsigned char *alive;  /* per key: 1 while its item is live */
	uint64_t *slot;        /* positional: per key, its place in the model's order */
	struct scn_ranks ranks; /* positional: the live keys' slots */
};

/* The NULL-or-reason of the list scenarios on the core operations: a container of the list
 * family (the list or the consolidate extension), with handles (references) and dump_keys
 * (the sequence check); else why not. So list_build and list_iterate, which call core
 * operations only, skip the other families rather than time them all again. */
const char *scn_needs_list_family(const struct dod_ops *ops);
/* An empty model with room for cap keys and no container (l->c NULL): references are
 * positional where ops lacks DOD_CAP_STABLE_HANDLES. Returns 0 or DOD_ENOMEM (l freed). */
int scn_list_model(const struct dod_ops *ops, size_t cap, struct scn_list *l);
/* The model after n appends (keys n_keys .. n_keys + n - 1, live): l->ref of those keys
 * must hold their references already (insert_n may write them there). */
void scn_list_appended(struct scn_list *l, size_t n);
/* Untimed: the model (room for p->n + extra keys; allocated first, as churn.c's arrays),
 * then the container filled with keys 0..p->n-1 appended (scn_fill_holes: with
 * p->hole_ratio, its holes, erased in one erase_n call). Returns 0 or SCN_ERROR (res->why
 * filled; l freed). */
int scn_list_fill(const struct dod_ops *ops, const struct scn_params *p, size_t extra,
                  struct scn_list *l, struct scn_result *res);
/* Untimed: the churn of list_iterate and consolidate, which scatters the nodes: the fill
 * with round(hole_ratio * n) items erased (the hole pattern picks them), then, for a
 * container with the list extension, as many new items inserted at random held
 * references, each before or after at random (scn_list_insert), so the size is n again.
 * Returns 0 or SCN_ERROR (l freed). */
int scn_list_churn(const struct dod_ops *ops, const struct scn_params *p, struct scn_list *l,
                   struct scn_result *res);

/* m insertions at random held references: the live items when planned, each target
 * chosen uniformly, and each item before or after it by a coin. The items that go before
 * are inserted by the first insert_at_n call (keys first_key ..), those after by the
 * second; refs holds the references each call needs (computed for positional references
 * in call order) and refs_out the new items' references. */
struct scn_list_inserts {
	size_t m, n_before;
	uint64_t first_key;
	uint64_t *refs, *refs_out; /* m each: [0, n_before) the first call's */
};
/* Plans m insertions (untimed; seed): the model then describes the sequence after them.
 * Returns 0 or SCN_ERROR (res->why; nothing to free). */
int scn_list_plan_inserts(struct scn_list *l, size_t m, uint64_t seed,
                          struct scn_list_inserts *plan, struct scn_result *res);
/* The planned insertions: the two insert_at_n calls (the caller times them or not).
 * Returns 0 or the error of the call that failed. */
int scn_list_insert(const struct dod_ops *ops, struct scn_list *l,
                    const struct scn_list_inserts *plan);
/* After scn_list_insert returned 0: keeps the new items' references. Frees the plan. */
void scn_list_inserted(struct scn_list *l, struct scn_list_inserts *plan);
void scn_list_inserts_free(struct scn_list_inserts *plan);

/* Plans the erasure of m random live items, one at a time in a random order (untimed;
 * seed): refs_out (room for m) gets the reference each erase_n call takes (for positional
 * references, the item's position when its turn comes); the model then describes the
 * sequence after them. Returns 0 or DOD_ENOMEM. */
int scn_list_plan_erase(struct scn_list *l, size_t m, uint64_t seed, uint64_t *refs_out);
/* The references of the live items in sequence order (stable: as issued; positional:
 * 0 .. n_live-1), and their keys to keys_out (may be NULL); room for n_live each. */
void scn_list_live_refs(const struct scn_list *l, uint64_t *refs_out, uint64_t *keys_out);
/* Untimed verification: size is n_live, dump_keys equals the model's sequence, every live
 * item's reference (scn_list_live_refs) reaches it (lookup_sum gives the live key sum) and
 * the container's own check (where it has one) passes. res->checksum gets the sum of key
 * x (position + 1) mod 2^64, which only that order gives; res->verified (res->why says
 * what failed). Returns res->verified. */
bool scn_list_check(const struct dod_ops *ops, const struct scn_list *l,
                    struct scn_result *res);
/* After consolidate wrote remap (bound entries: ref_bound when it was called): checks
 * that it moved the live items to references 0 .. n_live-1 in sequence order (a hosted
 * list relinks in sequence order; vec_dead_entries keeps the order of its old references,
 * which is its sequence) and mapped every other reference below bound to DOD_NO_REF, and
 * updates l->ref. Returns true, or false with scn_fail's reason. */
bool scn_list_remapped(struct scn_list *l, const uint64_t *remap, size_t bound,
                       struct scn_result *res);
/* Destroys l's container (if any) and frees the model. */
void scn_list_free(const struct dod_ops *ops, struct scn_list *l);

#endif
