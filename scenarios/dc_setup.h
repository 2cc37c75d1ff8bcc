/* dc_setup.h - what the DataComponent scenarios (dc_set, dc_get, dc_copy, dc_memory;
 * containers/dc_contract.h) share: their key vocabulary, their values, the untimed build
 * and the independent expected sums. Compiled once (scenarios/dc_setup.c).
 *
 * Keys: --dc-keys K (the axis dc_keys, defined in dc_setup.c, listed by each dc scenario)
 * paths per entity, key i of the form "v<i>" (i mod 4 = 0), "g<i/8>.k<i>" (1, 2) or
 * "g<i/8>.s.k<i>" (3): prefix-free, one to three parts; their hashes are checked distinct. Key i's type cycles float, bool,
 * string (8 to 24 bytes: the short names JSON data holds, some past std::string's 15-byte
 * SSO), float array (3 or 4 floats: a position, a quaternion). Values depend on the
 * entity, the key and a seed, so a replacement changes every value but no type or size.
 * Requests and values are made untimed: hashing and splitting paths cost nothing in the
 * regions (dc_contract.h says why that is the honest comparison).
 */
#ifndef SCN_DC_SETUP_H
#define SCN_DC_SETUP_H

#include "scenario.h"

/* --dc-keys (CSV column axis_dc_keys): keys per entity; every DataComponent scenario
 * lists it in its axes. */
extern const struct hb_axis scn_dc_keys_axis;

#define SCN_DC_DEFAULT_KEYS 8
#define SCN_DC_MAX_KEYS 64

struct scn_dc {
	void *c;
	size_t n, keys;           /* entities, keys per entity */
	uint64_t *ents;           /* the n entity handles */
	char (*text)[32];         /* the keys' paths */
	struct dod_dc_path *paths;
	struct dod_dc_set *sets;  /* n x keys, entity-major */
	struct dod_dc_get *gets;  /* n x keys, entity-major (entity order: scn_dc_gets) */
};

/* Keys per entity of p (its dc_keys; 0 or none, as in a call that does not set it: the
 * default). */
size_t scn_dc_keys(const struct scn_params *p);
/* Untimed: the vocabulary, the arrays, and (c_too) a container of n entities whose values
 * are those of seed 0 (one set_n). Returns 0 or SCN_ERROR (res->why; d freed). */
int scn_dc_setup(const struct dod_ops *ops, const struct scn_params *p, bool c_too,
                 struct scn_dc *d, struct scn_result *res);
/* d->sets for entity handles d->ents and values of seed. */
void scn_dc_sets(struct scn_dc *d, uint32_t seed);
/* d->gets of every value of the entities hs (n of them; entity order as given), of their
 * types. */
void scn_dc_gets(struct scn_dc *d, const uint64_t *hs);
/* The sum of dod_dc_value_sum over the n x keys values of seed: what a get of all of them
 * must give, computed from the generator, not from a container. */
uint64_t scn_dc_expect(const struct scn_dc *d, uint32_t seed);
/* Verification after a region: get_sum_n of d->gets must be expect (res->checksum gets
 * the sum). Returns SCN_RAN, or SCN_ERROR when get_sum_n fails. */
int scn_dc_verify(const struct dod_ops *ops, struct scn_dc *d, uint64_t expect,
                  struct scn_result *res);
/* Destroys d's container (if any) and frees its arrays. */
void scn_dc_free(const struct dod_ops *ops, struct scn_dc *d);

#endif
