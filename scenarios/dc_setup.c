/* dc_setup.c - the DataComponent scenarios' shared setup (dc_setup.h). */
#include "dc_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char pool_s[] = "Aragorn Boromir Celeborn Denethor Elrond Faramir Gimli";
static const float pool_f[12] = {1.0f, -2.5f, 0.25f, 3.75f, -0.5f, 8.0f,
                                 0.125f, -6.0f, 2.0f, 0.75f, -1.0f, 4.5f};

static const uint32_t key_types[4] = {DOD_DC_FLOAT, DOD_DC_BOOL, DOD_DC_STRING, DOD_DC_FLOATS};

size_t scn_dc_keys(const struct scn_params *p)
{
	size_t k = (size_t)scn_axis_value(p, &scn_dc_keys_axis).u;
	return k ? k : SCN_DC_DEFAULT_KEYS;
}

/* The value of entity e's key i for seed (payloads point into the pools). */
static struct dod_dc_value value_of(size_t e, size_t i, uint32_t seed)
{
	size_t mix = e * 31 + i * 7 + seed * 101;
	struct dod_dc_value v = {.type = key_types[i % 4]};
	if (v.type == DOD_DC_FLOAT)
		v.f = (float)(mix % 4096) * 0.25f;
	else if (v.type == DOD_DC_BOOL)
		v.b = (uint32_t)(mix & 1);
	else if (v.type == DOD_DC_STRING) {
		v.n = (uint32_t)(8 + (i * 7) % 17);
		v.s = pool_s + mix % (sizeof pool_s - 1 - v.n + 1);
	} else {
		v.n = (uint32_t)(3 + i % 2);
		v.a = pool_f + mix % (12 - v.n + 1);
	}
	return v;
}

void scn_dc_sets(struct scn_dc *d, uint32_t seed)
{
	for (size_t e = 0; e < d->n; e++)
		for (size_t i = 0; i < d->keys; i++) {
			struct dod_dc_set *s = &d->sets[e * d->keys + i];
			s->entity = d->ents[e];
			s->key = d->paths[i].hash;
			s->path = &d->paths[i];
			s->value = value_of(e, i, seed);
		}
}

void scn_dc_gets(struct scn_dc *d, const uint64_t *hs)
{
	for (size_t e = 0; e < d->n; e++)
		for (size_t i = 0; i < d->keys; i++)
			d->gets[e * d->keys + i] = (struct dod_dc_get){
				.entity = hs[e], .key = d->paths[i].hash, .type = key_types[i % 4],
				.path = &d->paths[i]};
}

uint64_t scn_dc_expect(const struct scn_dc *d, uint32_t seed)
{
	uint64_t sum = 0;
	for (size_t e = 0; e < d->n; e++)
		for (size_t i = 0; i < d->keys; i++) {
			struct dod_dc_value v = value_of(e, i, seed);
			sum += dod_dc_value_sum(&v);
		}
	return sum;
}

/* The vocabulary of d->keys paths; 0, or -1 when two hashes collide (res says so). */
static int vocabulary(struct scn_dc *d, struct scn_result *res)
{
	for (size_t i = 0; i < d->keys; i++) {
		if (i % 4 == 0)
			snprintf(d->text[i], sizeof d->text[i], "v%u", (unsigned)i);
		else if (i % 4 == 3)
			snprintf(d->text[i], sizeof d->text[i], "g%u.s.k%u", (unsigned)(i / 8), (unsigned)i);
		else
			snprintf(d->text[i], sizeof d->text[i], "g%u.k%u", (unsigned)(i / 8), (unsigned)i);
		if (dod_dc_path_init(&d->paths[i], d->text[i]) != DOD_OK)
			return scn_fail(res, "path %s", d->text[i]), -1;
		for (size_t j = 0; j < i; j++)
			if (d->paths[j].hash == d->paths[i].hash)
				return scn_fail(res, "paths %s and %s share a hash", d->text[j], d->text[i]), -1;
	}
	return 0;
}

int scn_dc_setup(const struct dod_ops *ops, const struct scn_params *p, bool c_too,
                 struct scn_dc *d, struct scn_result *res)
{
	memset(d, 0, sizeof *d);
	d->n = p->n;
	d->keys = scn_dc_keys(p);
	size_t m = d->n * d->keys;
	d->ents = scn_alloc_touched(d->n, sizeof *d->ents);
	d->text = calloc(d->keys, sizeof *d->text);
	d->paths = calloc(d->keys, sizeof *d->paths);
	d->sets = scn_alloc_touched(m, sizeof *d->sets);
	d->gets = scn_alloc_touched(m, sizeof *d->gets);
	if (!d->ents || !d->text || !d->paths || !d->sets || !d->gets) {
		scn_dc_free(ops, d);
		return scn_error(res, "dc setup", DOD_ENOMEM);
	}
	if (d->keys > SCN_DC_MAX_KEYS || vocabulary(d, res)) {
		if (!res->why[0])
			scn_fail(res, "dc_keys %zu: more than %d", d->keys, SCN_DC_MAX_KEYS);
		scn_dc_free(ops, d);
		return SCN_ERROR;
	}
	int err = !c_too ? 0 : ops->create(&d->c, d->n);
	if (!err && c_too)
		err = ops->insert_n(d->c, d->n, 0, d->ents);
	if (!err && c_too) {
		scn_dc_sets(d, 0);
		err = ops->dc->set_n(d->c, d->sets, m);
	}
	if (err) {
		scn_dc_free(ops, d);
		return scn_error(res, "dc build", err);
	}
	return 0;
}

int scn_dc_verify(const struct dod_ops *ops, struct scn_dc *d, uint64_t expect,
                  struct scn_result *res)
{
	uint64_t sum = 0;
	int err = ops->dc->get_sum_n(d->c, d->gets, d->n * d->keys, &sum);
	if (err)
		return scn_error(res, "dc get_sum_n (verification)", err);
	scn_check_sum(res, sum, expect);
	char why[160];
	if (res->verified && ops->check && ops->check(d->c, why, sizeof why))
		scn_fail(res, "invariant check: %s", why);
	return SCN_RAN;
}

void scn_dc_free(const struct dod_ops *ops, struct scn_dc *d)
{
	if (d->c)
		ops->destroy(d->c);
	free(d->ents);
	free(d->text);
	free(d->paths);
	free(d->sets);
	free(d->gets);
	memset(d, 0, sizeof *d);
}

/* ---- the axis dc_keys ---- */

const struct hb_axis scn_dc_keys_axis = {
	.option = "dc-keys", .metavar = "K", .def = "8",
	HB_AXIS_KEY("dc_keys"),
	.help = "values per entity of the DataComponent scenarios (keys of one to three path "
	"parts; types float, bool, string, float array in turn)",
	.kind = HB_AXIS_COUNT, .min = 1, .max = SCN_DC_MAX_KEYS,
	.too_large = "more keys than the scenarios' vocabulary",
	.absent_help = "run without it",
};
HB_AXIS_REGISTER(scn_dc_keys_axis)
