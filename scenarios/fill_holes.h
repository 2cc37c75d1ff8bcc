/* fill_holes.h - the hole setup every scenario with holes shares (fill_holes.c): a
 * container filled with keys 0..n-1, round(hole_ratio x n) of them erased by the
 * pattern p asks, and its survivors. */
#ifndef SCN_FILL_HOLES_H
#define SCN_FILL_HOLES_H

#include "scenario.h"

/* A container filled with keys 0..n-1 and then given holes (scn_fill_holes). */
struct scn_filled {
	void *c;
	uint64_t *handles;    /* the n handles by insertion index (NULL: no handles) */
	uint64_t *live;       /* the survivors' handles in insertion order (NULL: no handles;
	                       * their positions where handles are positional) */
	uint64_t *live_keys;  /* their keys (= insertion indices); NULL without holes: k */
	size_t n, n_live;     /* inserted, surviving */
	uint64_t live_key_sum; /* sum of the survivors' keys mod 2^64 */
};
/* Untimed setup shared by every scenario with holes, so every container gets the same
 * holes: inserts p->n items (keys = insertion indices 0..n-1), then erases
 * round(hole_ratio * n) of them (at most n - 1) chosen by p->hole_pattern with a seed
 * derived from p->seed, in one ops->erase_n call. res->hole_ratio gets the real fraction.
 * Returns 0 or SCN_ERROR (res->why filled; nothing left to free). */
/* scn_fill_holes without holes whatever p asks (the hand-written loops read a dense
 * array): the same returns. */
int scn_fill_dense(const struct dod_ops *ops, const struct scn_params *p,
                   struct scn_filled *f, struct scn_result *res);
int scn_fill_holes(const struct dod_ops *ops, const struct scn_params *p,
                   struct scn_filled *f, struct scn_result *res);
/* scn_fill_holes, then f->live in the order --order asks: insertion order (seq) or a
 * shuffle seeded by p->seed (random); after a shuffle f->live_keys no longer follows
 * f->live (f->live_key_sum still holds). The same returns. The lookup pair's setup
 * (lookup.c, lookup_ptr.c): both visit the same survivors in the same order. */
int scn_fill_ordered(const struct dod_ops *ops, const struct scn_params *p,
                     struct scn_filled *f, struct scn_result *res);
/* The key of the k-th survivor (f->live[k]). */
static inline uint64_t scn_live_key(const struct scn_filled *f, size_t k)
{
	return f->live_keys ? f->live_keys[k] : k;
}
/* Destroys f's container and frees its arrays. */
void scn_filled_free(const struct dod_ops *ops, struct scn_filled *f);
/* How many of n items the hole setup erases at ratio: round(ratio * n), at most n - 1
 * (one survivor), 0 for ratio <= 0 or n == 0. A ratio > 0 can round to 0 holes. */
size_t scn_hole_count(size_t n, double ratio);
/* Marks in erased[0..n) (1 = erased) the insertion indices pattern erases at ratio, and
 * writes them to order_out (may be NULL; room for n) in the order they are erased.
 * Returns how many: scn_hole_count(n, ratio) (0 for pattern none). Deterministic for a
 * seed. */
size_t scn_hole_indices(size_t n, double ratio, enum scn_hole_pattern pattern, uint64_t seed,
                        unsigned char *erased, size_t *order_out);

#endif
