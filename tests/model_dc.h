/* model_dc.h - the reference model of the DataComponent family (containers/dc_contract.h):
 * a map entity -> key -> value beside tests/model.h's items, for the conformance test, the
 * fuzzer and test_alloc_fail (through model_run_exts and the calls below).
 *
 * Entities are the model's items; their values are kept by the item's key, which the
 * drivers issue in order (insert_n and copy_n take first_key = next_key), so a key names
 * one entity for a whole run. Keys are the paths of a fixed vocabulary (prefix-free,
 * distinct hashes, checked when the model is made); strings and float arrays point into
 * static pools, so making a batch allocates nothing. Functions that can find a mismatch
 * return 0 or -1 with a reason in why (as model.h's).
 */
#ifndef DOD_TESTS_MODEL_DC_H
#define DOD_TESTS_MODEL_DC_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct model_dc;

/* The values model of a container of the DC family (NULL if malloc fails: abort). */
struct model_dc *model_dc_new(void);
void model_dc_free(struct model_dc *d);

/* Up to max (>= 1) random sets on m's live items, from *rng: keys of the vocabulary,
 * every type, strings of 0..40 bytes, arrays of 0..9 floats. With bad != 0 the last set
 * is made bad: 1 an entity handle no live item has, 2 key 0, 3 a type out of range.
 * Returns how many (0 when m has no live item). */
size_t model_dc_sets(const struct model *m, uint64_t *rng, struct dod_dc_set *out, size_t max,
                     int bad);
/* What set_n(sets, n) must return: DOD_OK, DOD_EINVAL (every handle live, a key or type
 * bad) or 1 (a handle not live: its error). */
int model_dc_set_expect(const struct model *m, const struct dod_dc_set *sets, size_t n);
/* Applies a successful set_n. */
void model_dc_applied(struct model *m, const struct dod_dc_set *sets, size_t n);
/* Applies a successful copy_n(src, n, m->next_key, hs): the n new items (model_inserted)
 * with copies of their sources' values. Returns 0 or -1 with why. */
int model_dc_copied(struct model *m, const uint64_t *src, size_t n, const uint64_t *hs,
                    char *why, size_t why_len);
/* Every live entity's values against the container: get_n typed, get_sum_n, the value
 * count of dod_dc_ops.mem. Returns 0 or -1 with why. */
int model_dc_compare(const struct model *m, const void *c, char *why, size_t why_len);
/* model_run_exts' part: a bad set batch and a bad copy (must fail whole), a missing key
 * and a wrong type (DOD_ENOKEY, DOD_ETYPE), a good set batch and a copy, compared after
 * each. Returns 0 or -1 with why. */
int model_dc_run(struct model *m, void *c, char *why, size_t why_len);

#endif
