/* dod_common.c - the size-independent parts of dod_common.h. */
#include "dod_common.h"

#include <stdarg.h>
#include <stdio.h>

#include "contract.h"

struct dod_growth_counts dod_growth;

const char *dod_strerror(int err)
{
	switch (err) {
	case DOD_OK: return "ok";
	case DOD_ENOMEM: return "out of memory";
	case DOD_EINVAL: return "invalid argument";
	case DOD_ERANGE: return "handle index out of range";
	case DOD_ESTALE: return "stale handle (item was erased)";
	case DOD_EFREE: return "handle refers to a free slot";
	case DOD_EFOREIGN: return "handle from another container (type id differs)";
	case DOD_EFULL: return "container full (index space exhausted)";
	case DOD_ENOTSUP: return "operation not supported by this container";
	case DOD_ENOKEY: return "no value at that key";
	case DOD_ETYPE: return "the value has another type";
	default: return "unknown error";
	}
}

int dod_check_fail(char *why, size_t why_len, const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return DOD_EINVAL;
}

const char *const dod_cap_names[DOD_N_CAPS] = {
	"handles", "stable_handles", "stable_pointers", "detects_stale", "keeps_order", "holes",
	"fixed_capacity",
};

static const void *particles_table(const struct dod_ops *ops) { return ops->particles; }
/* Why a particles table is not usable, or NULL. */
static const char *particles_incomplete(const void *table)
{
	const struct dod_particle_ops *p = table;
	if (p->version != DOD_PARTICLE_OPS_VERSION)
		return "version is not DOD_PARTICLE_OPS_VERSION";
	return p->tick && p->simulate && p->update && p->particle_sums ? NULL : "a kernel is NULL";
}

static const void *type_ids_table(const struct dod_ops *ops) { return ops->type_ids; }
/* Why a type ids table is not usable, or NULL. */
static const char *type_ids_incomplete(const void *table)
{
	const struct dod_type_id_ops *t = table;
	if (t->version != DOD_TYPE_ID_OPS_VERSION)
		return "version is not DOD_TYPE_ID_OPS_VERSION";
	if (t->max_type_id <= DOD_DEFAULT_TYPE_ID)
		return "max_type_id leaves no type id but the default";
	return t->create_typed ? NULL : "create_typed is NULL";
}

static const void *list_table(const struct dod_ops *ops) { return ops->list; }
/* Why a list table is not usable, or NULL. */
static const char *list_incomplete(const void *table)
{
	const struct dod_list_ops *l = table;
	if (l->version != DOD_LIST_OPS_VERSION)
		return "version is not DOD_LIST_OPS_VERSION";
	return l->insert_at_n && l->insert_sorted_n && l->erase_at_positions_n
	               ? NULL
	               : "an operation is NULL";
}

static const void *consolidate_table(const struct dod_ops *ops) { return ops->consolidate; }
/* Why a consolidate table is not usable, or NULL. */
static const char *consolidate_incomplete(const void *table)
{
	const struct dod_consolidate_ops *k = table;
	if (k->version != DOD_CONSOLIDATE_OPS_VERSION)
		return "version is not DOD_CONSOLIDATE_OPS_VERSION";
	return k->ref_bound && k->consolidate ? NULL : "an operation is NULL";
}

static const void *tags_table(const struct dod_ops *ops) { return ops->tags; }
/* Why a tags table is not usable, or NULL. */
static const char *tags_incomplete(const void *table)
{
	const struct dod_tags_ops *t = table;
	if (t->version != DOD_TAGS_OPS_VERSION)
		return "version is not DOD_TAGS_OPS_VERSION";
	return t->add_n && t->remove_n && t->has_n && t->walk_sum && t->tags_of && t->memory
	               ? NULL
	               : "an operation is NULL";
}

static const void *dc_table(const struct dod_ops *ops) { return ops->dc; }
/* Why a DataComponent table is not usable, or NULL. */
static const char *dc_incomplete(const void *table)
{
	const struct dod_dc_ops *d = table;
	if (d->version != DOD_DC_OPS_VERSION)
		return "version is not DOD_DC_OPS_VERSION";
	return d->set_n && d->get_sum_n && d->get_n && d->copy_n && d->mem ? NULL
	                                                                  : "an operation is NULL";
}

const struct dod_ext_desc dod_ext_descs[DOD_N_EXTS] = {
	{"particles", "no particles extension: not a particle container",
	 particles_table, particles_incomplete},
	{"type_ids", "no type ids extension: handles do not name their container",
	 type_ids_table, type_ids_incomplete},
	{"list", "no list extension: not a list container", list_table, list_incomplete},
	{"consolidate", "no consolidate extension: the container does not compact with a remap",
	 consolidate_table, consolidate_incomplete},
	{"tags", "no tags extension: not an arrays-of-arrays container", tags_table,
	 tags_incomplete},
	[DOD_EXT_DC_BIT] = {"dc", "no dc extension: not a DataComponent container", dc_table,
	                    dc_incomplete},
};

unsigned dod_exts(const struct dod_ops *ops)
{
	unsigned bits = 0;
	for (unsigned b = 0; b < DOD_N_EXTS; b++) {
		const void *t = dod_ext_descs[b].table ? dod_ext_descs[b].table(ops) : NULL;
		if (t && !dod_ext_descs[b].incomplete(t))
			bits |= 1u << b;
	}
	return bits;
}

int dod_exts_check(const struct dod_ops *ops, char *why, size_t why_len)
{
	for (unsigned b = 0; b < DOD_N_EXTS; b++) {
		const void *t = dod_ext_descs[b].table ? dod_ext_descs[b].table(ops) : NULL;
		const char *bad = t ? dod_ext_descs[b].incomplete(t) : NULL;
		if (bad)
			return dod_check_fail(why, why_len, "%s extension: %s", dod_ext_descs[b].name, bad);
	}
	return DOD_OK;
}

static void swap_bytes(unsigned char *x, unsigned char *y, size_t elem_bytes)
{
	for (size_t b = 0; b < elem_bytes; b++) {
		unsigned char t = x[b];
		x[b] = y[b];
		y[b] = t;
	}
}

void dod_shuffle(void *base, size_t n, size_t elem_bytes, uint64_t *rng)
{
	unsigned char *a = base;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)dod_rng_below(rng, i);
		swap_bytes(a + (i - 1) * elem_bytes, a + j * elem_bytes, elem_bytes);
	}
}

void dod_shuffle_prefix(void *base, size_t n, size_t k, size_t elem_bytes, uint64_t *rng)
{
	unsigned char *a = base;
	for (size_t j = 0; j < k && j < n; j++) {
		size_t t = j + (size_t)dod_rng_below(rng, n - j);
		swap_bytes(a + j * elem_bytes, a + t * elem_bytes, elem_bytes);
	}
}
