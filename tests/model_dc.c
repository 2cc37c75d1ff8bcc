/* model_dc.c - the DataComponent model of tests/model_dc.h: per entity key, an array of
 * its values (key, type, scalar or a pointer into the static pools), searched linearly. */
#include "model_dc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prefix-free paths (no path is a dotted prefix of another), distinct hashes. */
static const char *const vocab[] = {
	"name", "title", "stats.health", "stats.armor", "stats.speed.max", "stats.speed.min",
	"pos.x", "pos.y", "pos.z", "flags.visible", "flags.solid", "inv.gold",
	"inv.items.count", "tags",
};
#define N_VOCAB (sizeof vocab / sizeof vocab[0])
static const char pool_s[] = "the quick brown fox jumps over the lazy dog, 0123456789";
static const float pool_f[9] = {0.5f, -1.25f, 3.0f, 1e6f, -0.0f, 7.75f, 2.5e-3f, 42.0f, -9.5f};
#define MAX_STRING 40
#define MAX_ENTITY_KEY ((uint64_t)1 << 24)

struct val {
	uint32_t key;
	struct dod_dc_value v; /* payloads point into the pools */
};
struct ent {
	struct val *v;
	size_t n, cap;
};
struct model_dc {
	struct ent *ents; /* by entity key */
	size_t n_ents;
	struct dod_dc_path paths[N_VOCAB];
};

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && len)
		vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

struct model_dc *model_dc_new(void)
{
	struct model_dc *d = calloc(1, sizeof *d);
	if (!d)
		abort();
	for (size_t i = 0; i < N_VOCAB; i++) {
		if (dod_dc_path_init(&d->paths[i], vocab[i]) != DOD_OK)
			abort();
		for (size_t j = 0; j < i; j++)
			if (d->paths[j].hash == d->paths[i].hash)
				abort(); /* the vocabulary must have distinct hashes */
	}
	return d;
}

void model_dc_free(struct model_dc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_ents; i++)
		free(d->ents[i].v);
	free(d->ents);
	free(d);
}

/* The values of the entity of key (made empty on first use). */
static struct ent *ent_of(struct model_dc *d, uint64_t key)
{
	if (key >= MAX_ENTITY_KEY)
		abort(); /* the drivers issue keys in order from 0 */
	if (key >= d->n_ents) {
		size_t n = d->n_ents ? d->n_ents : 64;
		while (n <= key)
			n *= 2;
		struct ent *e = realloc(d->ents, n * sizeof *e);
		if (!e)
			abort();
		memset(e + d->n_ents, 0, (n - d->n_ents) * sizeof *e);
		d->ents = e;
		d->n_ents = n;
	}
	return &d->ents[key];
}

static const struct ent *ent_at(const struct model_dc *d, uint64_t key)
{
	static const struct ent none;
	return key < d->n_ents ? &d->ents[key] : &none;
}

static uint64_t key_of(const struct model *m, uint64_t h)
{
	return m->live[model_find(m, h)].key;
}

static const struct dod_dc_path *path_of(const struct model_dc *d, uint32_t key)
{
	for (size_t i = 0; i < N_VOCAB; i++)
		if (d->paths[i].hash == key)
			return &d->paths[i];
	return NULL;
}

static void put(struct ent *e, uint32_t key, const struct dod_dc_value *v)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].key == key) {
			e->v[i].v = *v;
			return;
		}
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4;
		if (!(e->v = realloc(e->v, e->cap * sizeof *e->v)))
			abort();
	}
	e->v[e->n].key = key;
	e->v[e->n++].v = *v;
}

/* A random value of type t (payloads from the pools). */
static struct dod_dc_value random_value(uint64_t *rng, uint32_t t)
{
	struct dod_dc_value v = {.type = t};
	if (t == DOD_DC_BOOL)
		v.b = (uint32_t)dod_rng_below(rng, 2);
	else if (t == DOD_DC_FLOAT)
		v.f = (float)dod_rng_below(rng, 1000) / 8;
	else if (t == DOD_DC_STRING) {
		v.n = (uint32_t)dod_rng_below(rng, MAX_STRING + 1);
		v.s = pool_s + dod_rng_below(rng, sizeof pool_s - 1 - v.n + 1);
	} else {
		v.n = (uint32_t)dod_rng_below(rng, 10);
		v.a = pool_f;
	}
	return v;
}

size_t model_dc_sets(const struct model *m, uint64_t *rng, struct dod_dc_set *out, size_t max,
                     int bad)
{
	if (!m->n)
		return 0;
	size_t k = 1 + (size_t)dod_rng_below(rng, max);
	for (size_t i = 0; i < k; i++) {
		const struct dod_dc_path *p = &m->dc->paths[dod_rng_below(rng, N_VOCAB)];
		out[i] = (struct dod_dc_set){.entity = m->live[dod_rng_below(rng, m->n)].handle,
		                             .key = p->hash, .path = p};
		out[i].value = random_value(rng, 1 + (uint32_t)dod_rng_below(rng, DOD_DC_N_TYPES - 1));
	}
	struct dod_dc_set *last = &out[k - 1];
	if (bad == 1) {
		uint64_t h = model_n_dead(m) ? model_dead_at(m, 0) : 0;
		last->entity = model_count_valid(m, &h, 1) ? UINT64_MAX >> 1 : h;
	} else if (bad == 2) {
		last->key = 0;
	} else if (bad == 3) {
		last->value.type = dod_rng_below(rng, 2) ? 0 : DOD_DC_N_TYPES;
	}
	return k;
}

int model_dc_set_expect(const struct model *m, const struct dod_dc_set *sets, size_t n)
{
	int want = DOD_OK;
	for (size_t i = 0; i < n; i++) {
		if (!model_count_valid(m, &sets[i].entity, 1))
			return 1;
		uint32_t t = sets[i].value.type;
		if (!sets[i].key || !sets[i].path || t < DOD_DC_BOOL || t >= DOD_DC_N_TYPES)
			want = DOD_EINVAL;
	}
	return want;
}

void model_dc_applied(struct model *m, const struct dod_dc_set *sets, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct dod_dc_value v = sets[i].value;
		if (v.type == DOD_DC_BOOL)
			v.b = v.b != 0;
		put(ent_of(m->dc, key_of(m, sets[i].entity)), sets[i].key, &v);
	}
}

int model_dc_copied(struct model *m, const uint64_t *src, size_t n, const uint64_t *hs,
                    char *why, size_t len)
{
	uint64_t first = m->next_key, *keys = malloc((n ? n : 1) * sizeof *keys);
	if (!keys)
		abort();
	for (size_t i = 0; i < n; i++)
		keys[i] = key_of(m, src[i]);
	int rc = model_inserted(m, n, hs, why, len);
	for (size_t i = 0; !rc && i < n; i++) {
		struct ent *to = ent_of(m->dc, first + i);
		const struct ent *from = ent_at(m->dc, keys[i]);
		for (size_t j = 0; j < from->n; j++)
			put(to, from->v[j].key, &from->v[j].v);
	}
	free(keys);
	return rc;
}

static bool same_value(const struct dod_dc_value *a, const struct dod_dc_value *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == DOD_DC_BOOL)
		return a->b == b->b;
	if (a->type == DOD_DC_FLOAT)
		return memcmp(&a->f, &b->f, sizeof a->f) == 0;
	size_t bytes = a->type == DOD_DC_STRING ? a->n : (size_t)a->n * 4;
	return a->n == b->n && (!bytes || memcmp(a->s, b->s, bytes) == 0);
}

/* The gets of every live entity's values (room for the total), their count. */
static size_t all_gets(const struct model *m, struct dod_dc_get *gets, const struct val **want)
{
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct ent *e = ent_at(m->dc, m->live[i].key);
		for (size_t j = 0; j < e->n; j++, k++) {
			gets[k] = (struct dod_dc_get){.entity = m->live[i].handle, .key = e->v[j].key,
			                              .type = e->v[j].v.type,
			                              .path = path_of(m->dc, e->v[j].key)};
			want[k] = &e->v[j];
		}
	}
	return k;
}

static int compare_gets(const struct model *m, const void *c, size_t total, char *why,
                        size_t len)
{
	const struct dod_dc_ops *dc = m->ops->dc;
	struct dod_dc_get *gets = malloc((total + 1) * sizeof *gets);
	struct dod_dc_value *got = malloc((total + 1) * sizeof *got);
	const struct val **want = malloc((total + 1) * sizeof *want);
	if (!gets || !got || !want)
		abort();
	all_gets(m, gets, want);
	uint64_t sum = 0, sum_got = 0;
	int err = dc->get_n(c, gets, total, got), rc = 0;
	if (err)
		rc = fail(why, len, "dc get_n of the %zu values the model holds: %s", total,
		          dod_strerror(err));
	for (size_t k = 0; !rc && k < total; k++) {
		sum += dod_dc_value_sum(&want[k]->v);
		if (!same_value(&got[k], &want[k]->v))
			rc = fail(why, len, "dc value %#x of entity %#llx: type %u n %u, model type %u n %u",
			          gets[k].key, (unsigned long long)gets[k].entity, got[k].type, got[k].n,
			          want[k]->v.type, want[k]->v.n);
	}
	if (!rc && ((err = dc->get_sum_n(c, gets, total, &sum_got)) != DOD_OK || sum_got != sum))
		rc = fail(why, len, "dc get_sum_n of %zu values: %s, sum %llu, model %llu", total,
		          dod_strerror(err), (unsigned long long)sum_got, (unsigned long long)sum);
	free(gets);
	free(got);
	free(want);
	return rc;
}

int model_dc_compare(const struct model *m, const void *c, char *why, size_t len)
{
	size_t total = 0;
	for (size_t i = 0; i < m->n; i++)
		total += ent_at(m->dc, m->live[i].key)->n;
	struct dod_dc_mem mem;
	m->ops->dc->mem(c, &mem);
	if (mem.entities != m->n || mem.values != total)
		return fail(why, len, "dc mem: %zu entities, %zu values; model %zu, %zu", mem.entities,
		            mem.values, m->n, total);
	return compare_gets(m, c, total, why, len);
}

/* A get of a key the entity lacks (DOD_ENOKEY) and of a value as another type
 * (DOD_ETYPE). */
static int run_bad_gets(struct model *m, const void *c, char *why, size_t len)
{
	const struct model_item *it = &m->live[dod_rng_below(&m->rng, m->n)];
	const struct ent *e = ent_at(m->dc, it->key);
	const struct dod_dc_path *p = &m->dc->paths[dod_rng_below(&m->rng, N_VOCAB)];
	struct dod_dc_get g = {.entity = it->handle, .key = p->hash, .type = DOD_DC_BOOL, .path = p};
	uint64_t sum;
	bool has = false;
	for (size_t j = 0; j < e->n; j++)
		if (e->v[j].key == p->hash) {
			has = true;
			g.type = e->v[j].v.type % (DOD_DC_N_TYPES - 1) + 1; /* another type */
		}
	int err = m->ops->dc->get_sum_n(c, &g, 1, &sum), want = has ? DOD_ETYPE : DOD_ENOKEY;
	if (err != want)
		return fail(why, len, "dc get of %s %s: %s, not %s", has ? "a value as another type"
		            : "a missing key", p->part[0], dod_strerror(err), dod_strerror(want));
	return 0;
}

/* copy_n of a batch with a bad handle (must fail whole), then of live entities. */
static int run_copy(struct model *m, void *c, char *why, size_t len)
{
	uint64_t src[MODEL_RUN_MAX_BATCH], hs[MODEL_RUN_MAX_BATCH];
	size_t k = 1 + (size_t)dod_rng_below(&m->rng, MODEL_RUN_MAX_BATCH);
	for (size_t i = 0; i < k; i++)
		src[i] = m->live[dod_rng_below(&m->rng, m->n)].handle;
	uint64_t good = src[k - 1];
	src[k - 1] = UINT64_MAX >> 1;
	if (m->ops->dc->copy_n(c, src, k, m->next_key, hs) == DOD_OK)
		return fail(why, len, "dc copy_n accepted a bad handle");
	if (model_compare(m, c, why, len))
		return -1;
	src[k - 1] = good;
	int err = m->ops->dc->copy_n(c, src, k, m->next_key, hs);
	if (err)
		return fail(why, len, "dc copy_n of %zu live entities: %s", k, dod_strerror(err));
	return model_dc_copied(m, src, k, hs, why, len);
}

int model_dc_run(struct model *m, void *c, char *why, size_t len)
{
	struct dod_dc_set sets[MODEL_RUN_MAX_BATCH];
	const struct dod_dc_ops *dc = m->ops->dc;
	if (!m->n)
		return 0;
	size_t k = model_dc_sets(m, &m->rng, sets, MODEL_RUN_MAX_BATCH,
	                         1 + (int)dod_rng_below(&m->rng, 3));
	int want = model_dc_set_expect(m, sets, k), err = dc->set_n(c, sets, k);
	if (err == DOD_OK || (want == DOD_EINVAL && err != DOD_EINVAL))
		return fail(why, len, "dc set_n of a bad batch: %s", dod_strerror(err));
	if (model_compare(m, c, why, len))
		return -1;
	k = model_dc_sets(m, &m->rng, sets, MODEL_RUN_MAX_BATCH, 0);
	if ((err = dc->set_n(c, sets, k)) != DOD_OK)
		return fail(why, len, "dc set_n of %zu good sets: %s", k, dod_strerror(err));
	model_dc_applied(m, sets, k);
	if (model_compare(m, c, why, len) || run_bad_gets(m, c, why, len))
		return -1;
	return run_copy(m, c, why, len);
}
