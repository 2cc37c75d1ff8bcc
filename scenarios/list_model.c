/* list_model.c - the list scenarios' shared setup (list_model.h): the rank tree, the
 * model of the sequence, the fill, the planned insertions and erasures, the churn and the
 * checks against the model. */
#include <stdlib.h>
#include <string.h>

#include "fill_holes.h"
#include "list_model.h"

int scn_ranks_init(struct scn_ranks *r, size_t n, bool present)
{
	r->n = n;
	if (!(r->t = scn_alloc_touched(n + 1, sizeof *r->t)))
		return DOD_ENOMEM;
	for (size_t i = 1; present && i <= n; i++) {
		r->t[i] += 1;
		size_t up = i + (i & -i); /* linear build: each node adds itself to its parent */
		if (up <= n)
			r->t[up] += r->t[i];
	}
	return DOD_OK;
}

void scn_ranks_add(struct scn_ranks *r, size_t i, int64_t delta)
{
	for (size_t j = i + 1; j <= r->n; j += j & -j)
		r->t[j] += (uint64_t)delta;
}

size_t scn_ranks_before(const struct scn_ranks *r, size_t i)
{
	uint64_t s = 0;
	for (size_t j = i; j > 0; j -= j & -j)
		s += r->t[j];
	return (size_t)s;
}

size_t scn_ranks_select(const struct scn_ranks *r, size_t k)
{
	size_t pos = 0, step = 1;
	while (step <= r->n / 2)
		step <<= 1;
	for (; step; step >>= 1)
		if (pos + step <= r->n && r->t[pos + step] <= k) {
			pos += step;
			k -= (size_t)r->t[pos];
		}
	return pos; /* the largest prefix holding <= k present slots: the slot after it */
}

void scn_ranks_free(struct scn_ranks *r)
{
	free(r->t);
	r->t = NULL;
}

const char *scn_needs_list_family(const struct dod_ops *ops)
{
	if (!(dod_exts(ops) & (DOD_EXT_LIST | DOD_EXT_CONSOLIDATE)))
		return "not a list container: no list or consolidate extension";
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->dump_keys ? NULL : "no dump_keys: the sequence cannot be checked";
}

void scn_list_free(const struct dod_ops *ops, struct scn_list *l)
{
	if (l->c)
		ops->destroy(l->c);
	free(l->ref);
	free(l->next);
	free(l->prev);
	free(l->alive);
	free(l->slot);
	scn_ranks_free(&l->ranks);
	memset(l, 0, sizeof *l);
}

int scn_list_model(const struct dod_ops *ops, size_t cap, struct scn_list *l)
{
	*l = (struct scn_list){.cap = cap, .positional = !(ops->caps & DOD_CAP_STABLE_HANDLES)};
	l->ref = scn_alloc_touched(cap, sizeof *l->ref);
	l->next = scn_alloc_touched(cap + 1, sizeof *l->next);
	l->prev = scn_alloc_touched(cap + 1, sizeof *l->prev);
	l->alive = scn_alloc_touched(cap, 1);
	bool ok = l->ref && l->next && l->prev && l->alive;
	if (ok && l->positional)
		ok = (l->slot = scn_alloc_touched(cap, sizeof *l->slot)) &&
		     scn_ranks_init(&l->ranks, cap, false) == DOD_OK;
	if (!ok) {
		scn_list_free(ops, l);
		return DOD_ENOMEM;
	}
	l->next[cap] = l->prev[cap] = cap; /* empty: the sentinel alone */
	return DOD_OK;
}

/* Links key k into the model next to key at (cap: the sentinel), before or after it. */
static void model_link(struct scn_list *l, size_t k, size_t at, int where)
{
	size_t before = where == DOD_LIST_BEFORE ? l->prev[at] : at;
	size_t after = l->next[before];
	l->prev[k] = before, l->next[k] = after;
	l->next[before] = k, l->prev[after] = k;
}

void scn_list_appended(struct scn_list *l, size_t n)
{
	for (size_t k = l->n_keys; k < l->n_keys + n; k++) {
		model_link(l, k, l->cap, DOD_LIST_BEFORE); /* before the sentinel: at the end */
		l->alive[k] = 1;
		l->live_key_sum += k;
	}
	l->n_keys += n;
	l->n_live += n;
}

int scn_list_fill(const struct dod_ops *ops, const struct scn_params *p, size_t extra,
                  struct scn_list *l, struct scn_result *res)
{
	struct scn_filled f;
	if (scn_list_model(ops, p->n + extra, l))
		return scn_error(res, "list model", DOD_ENOMEM);
	if (scn_fill_holes(ops, p, &f, res)) {
		scn_list_free(ops, l);
		return SCN_ERROR;
	}
	l->c = f.c;
	f.c = NULL;
	for (size_t k = 0; k < p->n; k++)
		l->ref[k] = f.handles ? f.handles[k] : k;
	scn_list_appended(l, p->n);
	memset(l->alive, 0, p->n); /* then the survivors of the holes live again */
	for (size_t i = 0; i < f.n_live; i++)
		l->alive[scn_live_key(&f, i)] = 1;
	l->n_live = f.n_live;
	l->live_key_sum = f.live_key_sum;
	scn_filled_free(ops, &f);
	return 0;
}

/* Positional references: numbers the model's order (l->slot) and marks the live keys'
 * slots present (l->ranks), so scn_ranks_before(slot[k]) is k's position. */
static void model_number(struct scn_list *l)
{
	size_t s = 0;
	memset(l->ranks.t, 0, (l->cap + 1) * sizeof *l->ranks.t);
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k], s++) {
		l->slot[k] = s;
		if (l->alive[k])
			scn_ranks_add(&l->ranks, s, 1);
	}
}

/* The live keys in sequence order into keys (room for n_live). */
static void model_live_keys(const struct scn_list *l, uint64_t *keys)
{
	size_t p = 0;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k])
			keys[p++] = k;
}

void scn_list_live_refs(const struct scn_list *l, uint64_t *refs_out, uint64_t *keys_out)
{
	size_t p = 0;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k]) {
			refs_out[p] = l->positional ? p : l->ref[k];
			if (keys_out)
				keys_out[p] = k;
			p++;
		}
}

void scn_list_inserts_free(struct scn_list_inserts *plan)
{
	free(plan->refs);
	free(plan->refs_out);
	plan->refs = plan->refs_out = NULL;
}

/* Each planned item's reference: its target's (stable), or the target's position when
 * the item's turn comes in call order (positional: the items before it counted). */
static void plan_refs(struct scn_list *l, struct scn_list_inserts *plan, const uint64_t *target)
{
	if (l->positional)
		model_number(l); /* the new keys are linked, not yet alive */
	for (size_t i = 0; i < plan->m; i++) {
		size_t t = (size_t)target[i];
		plan->refs[i] = l->positional ? scn_ranks_before(&l->ranks, l->slot[t]) : l->ref[t];
		if (l->positional)
			scn_ranks_add(&l->ranks, l->slot[plan->first_key + i], 1);
	}
}

int scn_list_plan_inserts(struct scn_list *l, size_t m, uint64_t seed,
                          struct scn_list_inserts *plan, struct scn_result *res)
{
	*plan = (struct scn_list_inserts){.m = m, .first_key = l->n_keys};
	if (m > l->cap - l->n_keys || !l->n_live)
		return scn_error(res, "list insertions: no room in the model or no item", DOD_EINVAL);
	uint64_t *held = scn_alloc_touched(l->n_live, sizeof *held);
	plan->refs = scn_alloc_touched(m, sizeof *plan->refs);
	plan->refs_out = scn_alloc_touched(m, sizeof *plan->refs_out);
	if (!held || !plan->refs || !plan->refs_out) {
		free(held);
		scn_list_inserts_free(plan);
		return scn_error(res, "list insertions", DOD_ENOMEM);
	}
	model_live_keys(l, held);
	uint64_t rng = seed ^ 0x115e27a7ull;
	for (size_t i = 0; i < m; i++)
		plan->n_before += dod_rng_next(&rng) & 1; /* a coin each: before or after */
	/* plan->refs holds the targets until plan_refs turns them into references */
	for (size_t i = 0; i < m; i++) {
		plan->refs[i] = held[dod_rng_below(&rng, l->n_live)];
		model_link(l, plan->first_key + i, (size_t)plan->refs[i],
		           i < plan->n_before ? DOD_LIST_BEFORE : DOD_LIST_AFTER);
	}
	memcpy(plan->refs_out, plan->refs, m * sizeof *plan->refs);
	plan_refs(l, plan, plan->refs_out);
	for (size_t i = 0; i < m; i++) {
		l->alive[plan->first_key + i] = 1;
		l->live_key_sum += plan->first_key + i;
	}
	l->n_keys += m;
	l->n_live += m;
	free(held);
	return 0;
}

int scn_list_insert(const struct dod_ops *ops, struct scn_list *l,
                    const struct scn_list_inserts *plan)
{
	size_t b = plan->n_before;
	int err = b ? ops->list->insert_at_n(l->c, plan->refs, b, DOD_LIST_BEFORE, plan->first_key,
	                                     plan->refs_out)
	            : 0;
	if (!err && plan->m > b)
		err = ops->list->insert_at_n(l->c, plan->refs + b, plan->m - b, DOD_LIST_AFTER,
		                             plan->first_key + b, plan->refs_out + b);
	return err;
}

void scn_list_inserted(struct scn_list *l, struct scn_list_inserts *plan)
{
	for (size_t i = 0; i < plan->m; i++)
		l->ref[plan->first_key + i] = plan->refs_out[i];
	scn_list_inserts_free(plan);
}

int scn_list_plan_erase(struct scn_list *l, size_t m, uint64_t seed, uint64_t *refs_out)
{
	uint64_t *keys = scn_alloc_touched(l->n_live, sizeof *keys);
	if (!keys)
		return DOD_ENOMEM;
	model_live_keys(l, keys);
	m = m > l->n_live ? l->n_live : m;
	uint64_t rng = seed ^ 0xe7a5e11ull;
	if (l->positional)
		model_number(l);
	dod_shuffle_prefix(keys, l->n_live, m, sizeof *keys, &rng); /* m victims, random order */
	for (size_t j = 0; j < m; j++) {
		size_t v = (size_t)keys[j];
		refs_out[j] = l->positional ? scn_ranks_before(&l->ranks, l->slot[v]) : l->ref[v];
		if (l->positional)
			scn_ranks_add(&l->ranks, l->slot[v], -1);
		l->alive[v] = 0;
		l->live_key_sum -= v;
	}
	l->n_live -= m;
	free(keys);
	return DOD_OK;
}

int scn_list_churn(const struct dod_ops *ops, const struct scn_params *p, struct scn_list *l,
                   struct scn_result *res)
{
	if (scn_list_fill(ops, p, p->n, l, res))
		return SCN_ERROR;
	size_t m = p->n - l->n_live;
	if (!m || !(dod_exts(ops) & DOD_EXT_LIST))
		return 0;
	struct scn_list_inserts plan;
	if (scn_list_plan_inserts(l, m, p->seed, &plan, res)) {
		scn_list_free(ops, l);
		return SCN_ERROR;
	}
	int err = scn_list_insert(ops, l, &plan);
	if (err) {
		scn_list_inserts_free(&plan);
		scn_list_free(ops, l);
		return scn_error(res, "churn (insert_at_n)", err);
	}
	scn_list_inserted(l, &plan);
	return 0;
}

/* The sequence part of scn_list_check: dump_keys against the model. */
static bool check_sequence(const struct dod_ops *ops, const struct scn_list *l, uint64_t *got,
                           uint64_t *want, struct scn_result *res)
{
	size_t size = ops->size(l->c), bad = 0, first = 0;
	if (size != l->n_live)
		return scn_fail(res, "size %zu, expected %zu", size, l->n_live), false;
	ops->dump_keys(l->c, got);
	model_live_keys(l, want);
	uint64_t checksum = 0;
	for (size_t p = 0; p < size; p++) {
		checksum += got[p] * (p + 1);
		if (got[p] != want[p] && !bad++)
			first = p;
	}
	res->checksum = checksum;
	if (bad)
		return scn_fail(res, "sequence: %zu of %zu positions wrong, the first %zu (key %llu, "
		                "expected %llu)", bad, size, first, (unsigned long long)got[first],
		                (unsigned long long)want[first]), false;
	return true;
}

bool scn_list_check(const struct dod_ops *ops, const struct scn_list *l,
                    struct scn_result *res)
{
	uint64_t *got = scn_alloc_touched(l->n_live, sizeof *got);
	uint64_t *want = scn_alloc_touched(l->n_live, sizeof *want);
	bool ok = got && want && check_sequence(ops, l, got, want, res);
	if (!got || !want)
		scn_fail(res, "sequence check: out of memory");
	uint64_t sum = 0;
	int err = 0;
	if (ok) {
		scn_list_live_refs(l, got, NULL);
		err = ops->lookup_sum(l->c, got, l->n_live, &sum);
		ok = !err && sum == l->live_key_sum;
		if (!ok)
			scn_fail(res, "the live items' references: %s, key sum %llu, expected %llu",
			         dod_strerror(err), (unsigned long long)sum,
			         (unsigned long long)l->live_key_sum);
	}
	char why[120];
	if (ok && ops->check && ops->check(l->c, why, sizeof why)) {
		ok = false;
		scn_fail(res, "the container's check: %s", why);
	}
	free(got);
	free(want);
	res->verified = ok;
	return ok;
}

bool scn_list_remapped(struct scn_list *l, const uint64_t *remap, size_t bound,
                       struct scn_result *res)
{
	size_t p = 0, wrong = 0, mapped = 0;
	for (size_t i = 0; i < bound; i++)
		mapped += remap[i] != DOD_NO_REF;
	for (size_t k = l->next[l->cap]; k != l->cap; k = l->next[k])
		if (l->alive[k]) {
			uint64_t old = l->positional ? p : l->ref[k];
			wrong += old >= bound || remap[old] != p;
			l->ref[k] = p++;
		}
	if (wrong || mapped != l->n_live)
		return scn_fail(res, "consolidate's remap: %zu live items not moved to their sequence "
		                "position, %zu references mapped for %zu items", wrong, mapped,
		                l->n_live), false;
	return true;
}
