/* vec_dead_entries.c - Thomas Young's cVectorWithDeadEntries ("Vector Hosted Lists",
 * 2015) for the size classes: the variant vec_dead_entries. Layout, encoding,
 * invariants, costs and source: vec_dead_entries.h.
 *
 * erase_n is all or nothing without memory: it sets the sign bit of each entry of its
 * batch after checking it (a live value is >= 0, so a marked one reads as dead and a
 * repeat fails with DOD_EFREE), clears the marks again if the batch fails, and only then
 * pushes the entries on the free list (the article's markAsDead).
 */
#include <stdlib.h>

#include "contract.h"
#include "dod_common.h"
#include "lists/vec_dead_entries.h"

#if !defined(DOD_ALLOC_realloc)
#error "vec_dead_entries.c is one vector grown by realloc: its alloc column must be realloc"
#endif

#define VD struct SFX(vdead)
#define SIGN_BIT (UINT64_C(1) << 63)

static inline DOD_ELEM *entry(const VD *v, size_t i)
{
	return (DOD_ELEM *)dod_realloc_at(&v->entries, i, sizeof(DOD_ELEM));
}
static inline int64_t value(const VD *v, size_t i) { return (int64_t)entry(v, i)->key; }

static int vdead_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > SIZE_MAX / sizeof(DOD_ELEM))
		return DOD_EINVAL;
	VD *v = calloc(1, sizeof *v);
	if (!v)
		return DOD_ENOMEM;
	if (dod_realloc_init(&v->entries, sizeof(DOD_ELEM), capacity_elems) != DOD_OK) {
		dod_realloc_free(&v->entries);
		free(v);
		return DOD_ENOMEM;
	}
	v->first_dead = -1;
	*out = v;
	return DOD_OK;
}

static void vdead_destroy(void *c)
{
	VD *v = c;
	if (v)
		dod_realloc_free(&v->entries);
	free(v);
}

/* addEntry: the latest dead entry if there is one (its code gives the next), else a new
 * one at the end (reserved by the caller). */
static size_t take_entry(VD *v)
{
	if (v->first_dead < 0)
		return v->n++;
	size_t i = (size_t)v->first_dead;
	v->first_dead = vdead_code(value(v, i));
	v->dead_count--;
	return i;
}

/* markAsDead: entry i joins the front of the free list. */
static void kill_entry(VD *v, size_t i)
{
	entry(v, i)->key = (uint64_t)vdead_code(v->first_dead);
	v->first_dead = (int64_t)i;
	v->dead_count++;
}

/* Keys are values, and values are >= 0: first_key .. first_key + n - 1 <= INT64_MAX,
 * else DOD_EINVAL; room for the entries no dead one provides is reserved first. */
static int vdead_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	VD *v = c;
	if (n && (first_key > INT64_MAX || n - 1 > INT64_MAX - first_key))
		return DOD_EINVAL;
	size_t fresh = n > v->dead_count ? n - v->dead_count : 0;
	if (fresh > SIZE_MAX / sizeof(DOD_ELEM) - v->n)
		return DOD_ENOMEM;
	int err = dod_realloc_reserve(&v->entries, v->n + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		size_t i = take_entry(v);
		SFX(dod_elem_init)(entry(v, i), first_key + k);
		if (handles_out)
			handles_out[k] = i;
	}
	return DOD_OK;
}

/* Every entry, live or dead: a dead one (sign bit set) adds 0, without a branch. */
static uint64_t vdead_iterate_sum(const void *c)
{
	const VD *v = c;
	uint64_t sum = 0;
	for (size_t i = 0; i < v->n; i++) {
		uint64_t key = entry(v, i)->key;
		sum += key & ((key >> 63) - 1);
	}
	return sum;
}

/* 0 when ref names a live entry; DOD_ERANGE past the entries, DOD_EFREE for a dead or
 * marked one. */
static int ref_error(const VD *v, uint64_t ref)
{
	if (ref >= v->n)
		return DOD_ERANGE;
	return value(v, (size_t)ref) < 0 ? DOD_EFREE : DOD_OK;
}

static int vdead_lookup_sum(const void *c, const uint64_t *refs, size_t n, uint64_t *sum_out)
{
	const VD *v = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(v, refs[k]);
		if (err)
			return err;
		sum += entry(v, (size_t)refs[k])->key;
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t vdead_count_valid(const void *c, const uint64_t *refs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += ref_error(c, refs[k]) == DOD_OK;
	return valid;
}

static int vdead_erase_n(void *c, const uint64_t *refs, size_t n)
{
	VD *v = c;
	for (size_t k = 0; k < n; k++) {
		int err = ref_error(v, refs[k]);
		if (err) {
			for (size_t j = 0; j < k; j++) /* distinct: each was unmarked when checked */
				entry(v, (size_t)refs[j])->key &= ~SIGN_BIT;
			return err;
		}
		entry(v, (size_t)refs[k])->key |= SIGN_BIT;
	}
	for (size_t k = 0; k < n; k++)
		kill_entry(v, (size_t)refs[k]);
	return DOD_OK;
}

static int vdead_clear(void *c)
{
	VD *v = c;
	v->n = v->dead_count = 0;
	v->first_dead = -1;
	return DOD_OK;
}

static void vdead_dump_keys(const void *c, uint64_t *keys_out)
{
	const VD *v = c;
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++)
		if (value(v, i) >= 0)
			keys_out[k++] = entry(v, i)->key;
}

static size_t vdead_size(const void *c)
{
	return ((const VD *)c)->n - ((const VD *)c)->dead_count;
}
static size_t vdead_footprint(const void *c)
{
	return sizeof(VD) + dod_realloc_committed_bytes(&((const VD *)c)->entries);
}

/* ---- the consolidate extension (list_contract.h) ---- */

static size_t vdead_ref_bound(const void *c) { return ((const VD *)c)->n; }

/* The article's consolidate: live entries slide to the front in index order. */
static int vdead_consolidate(void *c, uint64_t *remap_out)
{
	VD *v = c;
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (value(v, i) < 0) {
			remap_out[i] = DOD_NO_REF;
			continue;
		}
		if (k != i)
			*entry(v, k) = *entry(v, i);
		remap_out[i] = k++;
	}
	v->n = k;
	v->dead_count = 0;
	v->first_dead = -1;
	return DOD_OK;
}

static const struct dod_consolidate_ops vdead_consolidate_ops = {
	.version = DOD_CONSOLIDATE_OPS_VERSION,
	.ref_bound = vdead_ref_bound,
	.consolidate = vdead_consolidate,
};

/* ---- dod_ops.check ---- */

/* The free list from first_dead: dead_count distinct dead entries, ending at -1. */
static int check_free_list(const VD *v, char *why, size_t len)
{
	size_t steps = 0;
	int64_t i = v->first_dead;
	for (; i != -1; i = vdead_code(value(v, (size_t)i))) {
		if (++steps > v->dead_count)
			return dod_check_fail(why, len, "the free list is longer than its %zu dead "
			                      "entries: a cycle", v->dead_count);
		if (i < 0 || (size_t)i >= v->n || value(v, (size_t)i) > -2)
			return dod_check_fail(why, len, "free list entry %zu is %lld, not a dead entry "
			                      "below %zu", steps - 1, (long long)i, v->n);
	}
	if (steps != v->dead_count)
		return dod_check_fail(why, len, "the free list holds %zu entries, dead_count %zu",
		                      steps, v->dead_count);
	return DOD_OK;
}

static int vdead_check(const void *c, char *why, size_t len)
{
	const VD *v = c;
	if (v->n > dod_realloc_capacity(&v->entries))
		return dod_check_fail(why, len, "%zu entries, capacity %zu", v->n,
		                      dod_realloc_capacity(&v->entries));
	size_t dead = 0;
	for (size_t i = 0; i < v->n; i++) {
		int64_t x = value(v, i);
		if (x >= 0)
			continue;
		if (x == -1 || vdead_code(x) >= (int64_t)v->n) /* vdead_code(x) >= -1 for x < -1 */
			return dod_check_fail(why, len, "entry %zu holds %lld: neither a live value nor "
			                      "a dead entry's code", i, (long long)x);
		dead++;
	}
	if (dead != v->dead_count)
		return dod_check_fail(why, len, "%zu dead entries, dead_count %zu", dead,
		                      v->dead_count);
	return check_free_list(v, why, len);
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Thomas Young, \"Vector Hosted Lists\" (PathEngine, 2015): "
	          "cVectorWithDeadEntries, dead entries encode the free list as -3 - next",
	.max_elems = SIZE_MAX / sizeof(DOD_ELEM),
	.create = vdead_create,
	.destroy = vdead_destroy,
	.insert_n = vdead_insert_n,
	.iterate_sum = vdead_iterate_sum,
	.lookup_sum = vdead_lookup_sum,
	.erase_n = vdead_erase_n,
	.count_valid = vdead_count_valid,
	.clear = vdead_clear,
	.dump_keys = vdead_dump_keys,
	.size = vdead_size,
	.footprint_bytes = vdead_footprint,
	.check = vdead_check,
	.consolidate = &vdead_consolidate_ops,
};
