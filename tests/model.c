/* model.c - the reference model of tests/model.h. The live items are an array in
 * insertion order plus an open-addressing index (handle -> key, linear probing, deletion
 * by backward shift) so that the oracle's "equals a live handle" costs O(1) per handle
 * even when the fuzzer asks it for every dead handle after every step. */
#include "model.h"
#include "model_dc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...)
{
	if (why && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- the index: handle -> key; slots with used == 0 are empty ---- */
struct model_slot {
	uint64_t handle, key;
	int used;
};
struct model_index {
	struct model_slot *s;
	size_t mask, n; /* capacity - 1 (a power of two), entries */
};

/* The index fields of a model, as one struct for the functions below. */
#define IX(m) (&(struct model_index){(m)->ix, (m)->ix_mask, (m)->ix_n})
static void ix_store(struct model *m, const struct model_index *ix)
{
	m->ix = ix->s;
	m->ix_mask = ix->mask;
	m->ix_n = ix->n;
}
/* The same for the dead ring's index, which makes "did this handle die recently" O(1):
 * the fuzzer's churn op asks it 65536 times in a row. */
#define DIX(m) (&(struct model_index){(m)->dix, (m)->dix_mask, (m)->dix_n})
static void dix_store(struct model *m, const struct model_index *ix)
{
	m->dix = ix->s;
	m->dix_mask = ix->mask;
	m->dix_n = ix->n;
}

/* murmur3's 64-bit finalizer: a bijection that mixes every bit. */
static uint64_t hash(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static const struct model_slot *ix_find(const struct model_index *ix, uint64_t h)
{
	for (size_t i = hash(h) & ix->mask;; i = (i + 1) & ix->mask) {
		if (!ix->s[i].used)
			return NULL;
		if (ix->s[i].handle == h)
			return &ix->s[i];
	}
}

static void ix_put(struct model_index *ix, uint64_t h, uint64_t key);

static void ix_grow(struct model_index *ix)
{
	struct model_index old = *ix;
	size_t cap = old.s ? (old.mask + 1) * 2 : 64;
	ix->s = calloc(cap, sizeof *ix->s);
	if (!ix->s)
		abort(); /* the model itself out of memory: nothing to test */
	ix->mask = cap - 1;
	ix->n = 0;
	if (old.s)
		for (size_t i = 0; i <= old.mask; i++)
			if (old.s[i].used)
				ix_put(ix, old.s[i].handle, old.s[i].key);
	free(old.s);
}

static void ix_put(struct model_index *ix, uint64_t h, uint64_t key)
{
	if (!ix->s || (ix->n + 1) * 2 > ix->mask + 1)
		ix_grow(ix);
	size_t i = hash(h) & ix->mask;
	while (ix->s[i].used)
		i = (i + 1) & ix->mask;
	ix->s[i] = (struct model_slot){h, key, 1};
	ix->n++;
}

static void ix_del(struct model_index *ix, uint64_t h)
{
	size_t i = hash(h) & ix->mask;
	while (ix->s[i].handle != h || !ix->s[i].used)
		i = (i + 1) & ix->mask;
	/* Backward shift: pull later entries of the probe run into the gap. */
	for (size_t j = (i + 1) & ix->mask; ix->s[j].used; j = (j + 1) & ix->mask) {
		size_t home = hash(ix->s[j].handle) & ix->mask;
		if (((j - home) & ix->mask) >= ((j - i) & ix->mask)) {
			ix->s[i] = ix->s[j];
			i = j;
		}
	}
	ix->s[i].used = 0;
	ix->n--;
}

static void ix_clear(struct model_index *ix)
{
	if (ix->s)
		memset(ix->s, 0, (ix->mask + 1) * sizeof *ix->s);
	ix->n = 0;
}

/* ---- the model ---- */

/* Memory the model owns, whose address serves as a handle in model_init's probe. */
static union {
	uint64_t key;
	unsigned char bytes[256];
} probe_item = {.key = UINT64_C(0x5A17ED0BADC0FFEE)};

int model_init(struct model *m, const struct dod_ops *ops, char *why, size_t len)
{
	memset(m, 0, sizeof *m);
	m->ops = ops;
	m->handles = ops->caps & DOD_CAP_HANDLES;
	m->detects_stale = ops->caps & DOD_CAP_DETECTS_STALE;
	m->positional = m->handles && (dod_exts(ops) & DOD_EXT_LIST) &&
	                !(ops->caps & DOD_CAP_STABLE_HANDLES);
	m->rng = UINT64_C(0x11571157) ^ ops->elem_bytes;
	m->dc = dod_exts(ops) & DOD_EXT_DC ? model_dc_new() : NULL;
	struct model_index ix = {0}, dix = {0};
	ix_grow(&ix);
	ix_store(m, &ix);
	ix_grow(&dix);
	dix_store(m, &dix);
	m->lookup_validates = true;
	if (!m->handles)
		return 0;
	/* The probe's answer per ops table, so a fuzzer run creates no extra container per
	 * input. */
	static const struct dod_ops *probed[256];
	static bool validates[256];
	for (size_t i = 0; i < 256 && probed[i]; i++)
		if (probed[i] == ops) {
			m->lookup_validates = validates[i];
			return 0;
		}
	void *c;
	uint64_t h, sum = 0;
	if (ops->create(&c, 1) != DOD_OK || ops->insert_n(c, 1, 1, &h) != DOD_OK)
		return fail(why, len, "%s: the lookup probe could not create and fill a container",
		            ops->name);
	uint64_t forged = (uint64_t)(uintptr_t)&probe_item;
	int err = ops->lookup_sum(c, &forged, 1, &sum);
	ops->destroy(c);
	if (err == DOD_OK && sum != probe_item.key)
		return fail(why, len, "%s: lookup_sum accepted a handle to memory it does not own "
		            "and returned %llu", ops->name, (unsigned long long)sum);
	m->lookup_validates = err != DOD_OK;
	for (size_t i = 0; i < 256; i++)
		if (!probed[i]) {
			probed[i] = ops;
			validates[i] = m->lookup_validates;
			break;
		}
	return 0;
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->live[i].tags);
	free(m->ix);
	m->ix = NULL;
	free(m->dix);
	m->dix = NULL;
	free(m->live);
	m->live = NULL;
	m->n = m->cap = 0;
	model_dc_free(m->dc);
	m->dc = NULL;
}

long model_find(const struct model *m, uint64_t h)
{
	if (!ix_find(IX(m), h))
		return -1;
	for (size_t i = m->n; i-- > 0;) /* from the end: recent items go first */
		if (m->live[i].handle == h)
			return (long)i;
	return -1;
}

static void push_dead(struct model *m, uint64_t h, int how)
{
	struct model_index ix = *DIX(m);
	struct model_dead *d = &m->dead[m->n_dead % MODEL_DEAD_KEEP];
	struct model_slot *x;
	if (m->n_dead >= MODEL_DEAD_KEEP) { /* the oldest leaves the ring */
		x = (struct model_slot *)ix_find(&ix, d->handle);
		if (x->key > 1)
			x->key--;
		else
			ix_del(&ix, d->handle);
	}
	*d = (struct model_dead){h, m->events, how};
	m->n_dead++;
	if ((x = (struct model_slot *)ix_find(&ix, h)) != NULL)
		x->key++;
	else
		ix_put(&ix, h, 1);
	dix_store(m, &ix);
}

/* Room in m->live for k more items. */
static void reserve_live(struct model *m, size_t k)
{
	if (m->n + k <= m->cap)
		return;
	size_t cap = m->cap ? m->cap : 64;
	while (cap < m->n + k)
		cap *= 2;
	struct model_item *p = realloc(m->live, cap * sizeof *p);
	if (!p)
		abort();
	m->live = p;
	m->cap = cap;
}

/* Records new handle h of key: it must not equal a live handle, nor (detects_stale) one
 * that died by erase or clear within MODEL_ABA_EVENTS. Returns 0 or -1 with why. */
static int take_handle(struct model *m, uint64_t h, uint64_t key, char *why, size_t len)
{
	struct model_index ixv = *IX(m), *ix = &ixv;
	if (ix_find(ix, h))
		return fail(why, len, "insert issued handle %#llx (key %llu), which is live (key "
		            "%llu)", (unsigned long long)h, (unsigned long long)key,
		            (unsigned long long)ix_find(ix, h)->key);
	bool died = m->detects_stale && ix_find(DIX(m), h);
	for (size_t d = 0; died && d < model_n_dead(m); d++) {
		const struct model_dead *x = &m->dead[(m->n_dead - 1 - d) % MODEL_DEAD_KEEP];
		if (x->handle == h && x->how != MODEL_DIED_RESET &&
		    m->events - x->events_at < MODEL_ABA_EVENTS)
			return fail(why, len, "insert issued handle %#llx again %llu erases/clears after "
			            "it died by %s: a stale handle would be accepted",
			            (unsigned long long)h, (unsigned long long)(m->events - x->events_at),
			            x->how == MODEL_DIED_ERASE ? "erase" : "clear");
	}
	ix_put(ix, h, key);
	ix_store(m, ix);
	if (m->n_first < MODEL_FIRST_KEEP)
		m->first[m->n_first++] = h;
	return 0;
}

/* Positional references: every item's handle is its position, renumbered (and the index
 * rebuilt) after each operation that moves items. O(n). */
static void renumber(struct model *m)
{
	if (!m->positional)
		return;
	struct model_index ix = *IX(m);
	ix_clear(&ix);
	for (size_t i = 0; i < m->n; i++) {
		m->live[i].handle = i;
		ix_put(&ix, i, m->live[i].key);
	}
	ix_store(m, &ix);
}

/* renumber when the items before position first kept theirs (an erase whose smallest
 * position was first): only the later ones leave the index and come back at their new
 * positions. O(n - first), so the fuzzer's churn (erase the last, append) stays O(1). */
static void renumber_from(struct model *m, size_t first)
{
	if (!m->positional)
		return;
	struct model_index ix = *IX(m);
	for (size_t i = first; i < m->n; i++)
		ix_del(&ix, m->live[i].handle);
	for (size_t i = first; i < m->n; i++) {
		m->live[i].handle = i;
		ix_put(&ix, i, m->live[i].key);
	}
	ix_store(m, &ix);
}

/* Puts the item (key, handle *h; h NULL without handles) at position p of the sequence
 * (room reserved). A positional handle must be p; another must be new (take_handle). */
static int insert_item(struct model *m, size_t p, const uint64_t *h, uint64_t key, char *why,
                       size_t len)
{
	if (h && m->positional && *h != p)
		return fail(why, len, "insert issued reference %llu for position %zu (positional "
		            "references)", (unsigned long long)*h, p);
	if (h && !m->positional && take_handle(m, *h, key, why, len))
		return -1;
	memmove(&m->live[p + 1], &m->live[p], (m->n - p) * sizeof *m->live);
	m->live[p] = (struct model_item){.handle = h ? *h : 0, .key = key};
	m->n++;
	m->sorted = false; /* the contract promises key order right after defragment only */
	return 0;
}

int model_inserted(struct model *m, size_t k, const uint64_t *hs, char *why, size_t len)
{
	reserve_live(m, k);
	for (size_t i = 0; i < k; i++)
		if (insert_item(m, m->n, hs ? &hs[i] : NULL, m->next_key + i, why, len))
			return -1;
	m->next_key += k;
	if (m->positional) { /* appended: their positions enter the index, no other moves */
		struct model_index ix = *IX(m);
		for (size_t p = m->n - k; p < m->n; p++)
			ix_put(&ix, p, m->live[p].key);
		ix_store(m, &ix);
	}
	return 0;
}

int model_erase_expect(const struct model *m, const uint64_t *hs, size_t n)
{
	const struct model_index *ix = IX(m);
	int result = DOD_OK;
	for (size_t i = 0; i < n; i++) {
		if (!ix_find(ix, hs[i]))
			return 1;
		for (size_t j = 0; j < i && result == DOD_OK; j++)
			if (hs[j] == hs[i])
				result = DOD_EFREE;
	}
	return result;
}

void model_erased(struct model *m, const uint64_t *hs, size_t n)
{
	struct model_index ixv = *IX(m), *ix = &ixv;
	size_t first = m->n; /* the smallest position erased */
	for (size_t i = 0; i < n; i++) {
		long at = model_find(m, hs[i]);
		first = (size_t)at < first ? (size_t)at : first;
		free(m->live[at].tags);
		memmove(&m->live[at], &m->live[at + 1], (m->n - (size_t)at - 1) * sizeof *m->live);
		m->n--;
		ix_del(ix, hs[i]);
		ix_store(m, ix);
		m->events++;
		push_dead(m, hs[i], MODEL_DIED_ERASE);
	}
	if (n)
		m->sorted = false;
	renumber_from(m, first);
}

void model_cleared(struct model *m, int how)
{
	if (how == MODEL_DIED_RESET)
		for (size_t d = 0; d < MODEL_DEAD_KEEP; d++)
			m->dead[d].how = MODEL_DIED_RESET;
	for (size_t i = 0; i < m->n; i++) {
		push_dead(m, m->live[i].handle, how);
		free(m->live[i].tags);
	}
	m->events++;
	m->n = 0;
	m->sorted = false;
	struct model_index ix = *IX(m);
	ix_clear(&ix);
	ix_store(m, &ix);
}

/* ---- the list extension and consolidate (containers/list_contract.h) ---- */

/* Whether refs[i] may be given to insert_at_n after i insertions of its batch: a live
 * reference when the call starts, or a position <= size + i (before) / < size + i
 * (after). */
static bool insert_ref_ok(const struct model *m, uint64_t ref, size_t i, int where)
{
	if (!m->positional)
		return ix_find(IX(m), ref) != NULL;
	return where == DOD_LIST_AFTER ? ref < m->n + i : ref <= m->n + i;
}

int model_insert_at_expect(const struct model *m, const uint64_t *refs, size_t n, int where)
{
	for (size_t i = 0; i < n; i++)
		if (!insert_ref_ok(m, refs[i], i, where == DOD_LIST_AFTER ? where : DOD_LIST_BEFORE))
			return 1;
	return where == DOD_LIST_BEFORE || where == DOD_LIST_AFTER ? DOD_OK : DOD_EINVAL;
}

int model_inserted_at(struct model *m, const uint64_t *refs, size_t n, int where,
                      const uint64_t *hs, char *why, size_t len)
{
	reserve_live(m, n);
	for (size_t i = 0; i < n; i++) {
		size_t p = m->positional ? (size_t)refs[i] : (size_t)model_find(m, refs[i]);
		if (insert_item(m, p + (where == DOD_LIST_AFTER), hs ? &hs[i] : NULL,
		                m->next_key + i, why, len))
			return -1;
	}
	m->next_key += n;
	renumber(m);
	return 0;
}

int model_inserted_sorted(struct model *m, const uint64_t *keys, size_t n, const uint64_t *hs,
                          char *why, size_t len)
{
	reserve_live(m, n);
	for (size_t i = 0; i < n; i++) {
		size_t p = 0;
		while (p < m->n && m->live[p].key <= keys[i])
			p++;
		if (insert_item(m, p, hs ? &hs[i] : NULL, keys[i], why, len))
			return -1;
	}
	renumber(m);
	return 0;
}

int model_erase_at_expect(const struct model *m, const uint64_t *positions, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (i >= m->n || positions[i] >= m->n - i)
			return DOD_ERANGE;
	return DOD_OK;
}

uint64_t model_erased_at(struct model *m, const uint64_t *positions, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = (size_t)positions[i];
		struct model_item it = m->live[p];
		sum += it.key;
		free(it.tags);
		memmove(&m->live[p], &m->live[p + 1], (m->n - p - 1) * sizeof *m->live);
		m->n--;
		if (m->handles) {
			struct model_index ix = *IX(m);
			ix_del(&ix, it.handle);
			ix_store(m, &ix);
			push_dead(m, it.handle, MODEL_DIED_ERASE);
		}
		m->events++;
		m->sorted = false;
	}
	renumber(m);
	return sum;
}

/* The remap's promise (list_contract.h): every reference < bound that named no live item
 * maps to DOD_NO_REF, the live ones to distinct references 0 .. n-1, in the order of their
 * old references (in_sequence false) or of the sequence (true). */
static int check_remap(const struct model *m, const uint64_t *remap, size_t bound,
                       bool in_sequence, char *why, size_t len)
{
	size_t mapped = 0;
	for (size_t r = 0; r < bound; r++) {
		bool live = ix_find(IX(m), r) != NULL;
		if (!live && remap[r] != DOD_NO_REF)
			return fail(why, len, "consolidate: reference %zu named no live item, remapped to "
			            "%llu, not DOD_NO_REF", r, (unsigned long long)remap[r]);
		if (live && !in_sequence && remap[r] != mapped)
			return fail(why, len, "consolidate: the %zu-th live reference (%zu) remapped to "
			            "%llu: not in the order of the old references", mapped, r,
			            (unsigned long long)remap[r]);
		mapped += live;
	}
	if (mapped != m->n)
		return fail(why, len, "consolidate: %zu live references below ref_bound %zu, %zu live "
		            "items", mapped, bound, m->n);
	for (size_t i = 0; in_sequence && i < m->n; i++)
		if (remap[m->live[i].handle] != i)
			return fail(why, len, "consolidate: item %zu of the sequence (reference %llu) "
			            "remapped to %llu, not %zu", i, (unsigned long long)m->live[i].handle,
			            (unsigned long long)remap[m->live[i].handle], i);
	return 0;
}

int model_consolidated(struct model *m, const uint64_t *remap, size_t bound, char *why,
                       size_t len)
{
	bool in_sequence = dod_exts(m->ops) & DOD_EXT_LIST;
	if (check_remap(m, remap, bound, in_sequence, why, len))
		return -1;
	struct model_index ix = *IX(m);
	ix_clear(&ix);
	for (size_t i = 0; i < m->n; i++) {
		m->live[i].handle = remap[m->live[i].handle];
		ix_put(&ix, m->live[i].handle, m->live[i].key);
	}
	ix_store(m, &ix);
	return 0;
}

size_t model_count_valid(const struct model *m, const uint64_t *hs, size_t n)
{
	const struct model_index *ix = IX(m);
	size_t valid = 0;
	for (size_t i = 0; i < n; i++)
		valid += ix_find(ix, hs[i]) != NULL;
	return valid;
}

bool model_lookup_expect(const struct model *m, const uint64_t *hs, size_t n, uint64_t *sum)
{
	const struct model_index *ix = IX(m);
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		const struct model_slot *x = ix_find(ix, hs[i]);
		if (!x)
			return false;
		s += x->key;
	}
	*sum = s;
	return true;
}

size_t model_n_dead(const struct model *m)
{
	return m->n_dead < MODEL_DEAD_KEEP ? m->n_dead : MODEL_DEAD_KEEP;
}

uint64_t model_dead_at(const struct model *m, size_t i)
{
	return m->dead[(m->n_dead - 1 - i) % MODEL_DEAD_KEEP].handle;
}

/* model_compare's dump_keys part: order (keeps_order, sorted after a defragment) and the
 * same multiset of keys. keys and want: room for m->n each. Returns 0 or -1 with why. */
static int compare_dump(const struct model *m, const void *c, uint64_t *keys, uint64_t *want,
                        char *why, size_t len)
{
	const struct dod_ops *ops = m->ops;
	ops->dump_keys(c, keys);
	for (size_t i = 0; i < m->n; i++)
		want[i] = m->live[i].key;
	if ((ops->caps & DOD_CAP_KEEPS_ORDER) && memcmp(keys, want, m->n * sizeof *keys))
		return fail(why, len, "dump_keys is not in insertion order (keeps_order)");
	for (size_t i = 1; m->sorted && i < m->n; i++)
		if (keys[i - 1] > keys[i])
			return fail(why, len, "after a full defragment, keys[%zu] = %llu > keys[%zu] = "
			            "%llu", i - 1, (unsigned long long)keys[i - 1], i,
			            (unsigned long long)keys[i]);
	/* The same multiset of keys (insert_sorted_n may repeat one): a sum of a 64-bit mix of
	 * each, which differs for any other multiset of equal size but with probability
	 * ~2^-64. */
	uint64_t fp_dump = 0, fp_model = 0;
	for (size_t i = 0; i < m->n; i++) {
		fp_dump += hash(keys[i] + UINT64_C(0x9E3779B97F4A7C15)) | 1;
		fp_model += hash(want[i] + UINT64_C(0x9E3779B97F4A7C15)) | 1;
	}
	if (fp_dump != fp_model)
		return fail(why, len, "dump_keys holds other keys than the model");
	return 0;
}

/* model_compare's dead and first handles: valid exactly when equal to a live one (the
 * oracle). Returns 0 or -1 with why. */
static int compare_old_handles(const struct model *m, const void *c, char *why, size_t len)
{
	const struct dod_ops *ops = m->ops;
	size_t nd = model_n_dead(m);
	for (size_t d = 0; d < nd + m->n_first; d++) {
		uint64_t h = d < nd ? model_dead_at(m, d) : m->first[d - nd], got = 0;
		bool alive = model_lookup_expect(m, &h, 1, &got);
		if (ops->count_valid(c, &h, 1) != alive)
			return fail(why, len, "old handle %#llx: count_valid says %s, model %s",
			            (unsigned long long)h, alive ? "invalid" : "valid",
			            alive ? "valid (equals a live handle)" : "invalid");
		if (!m->lookup_validates && !alive)
			continue; /* a raw-pointer lookup must not be given it */
		uint64_t s = ~got;
		int err = ops->lookup_sum(c, &h, 1, &s);
		if ((err == DOD_OK) != alive || (alive && s != got))
			return fail(why, len, "old handle %#llx: lookup_sum %s (sum %llu), model %s",
			            (unsigned long long)h, dod_strerror(err), (unsigned long long)s,
			            alive ? "valid" : "invalid");
	}
	return 0;
}

/* model_compare's live handles (in handles, room for m->n): lookup_sum gives sum and
 * count_valid counts them all; then the old handles. Returns 0 or -1 with why. */
static int compare_handles(const struct model *m, const void *c, uint64_t *handles,
                           uint64_t sum, char *why, size_t len)
{
	const struct dod_ops *ops = m->ops;
	for (size_t i = 0; i < m->n; i++)
		handles[i] = m->live[i].handle;
	uint64_t by_handle = ~sum;
	int err = ops->lookup_sum(c, handles, m->n, &by_handle);
	if (err != DOD_OK || by_handle != sum)
		return fail(why, len, "lookup_sum of the %zu live handles: %s, sum %llu, model %llu",
		            m->n, dod_strerror(err), (unsigned long long)by_handle,
		            (unsigned long long)sum);
	if (ops->count_valid(c, handles, m->n) != m->n)
		return fail(why, len, "count_valid of the %zu live handles: %zu", m->n,
		            ops->count_valid(c, handles, m->n));
	return compare_old_handles(m, c, why, len);
}

static int compare_tags(const struct model *m, const void *c, char *why, size_t len);

int model_compare(const struct model *m, const void *c, char *why, size_t len)
{
	const struct dod_ops *ops = m->ops;
	uint64_t sum = 0;
	for (size_t i = 0; i < m->n; i++)
		sum += m->live[i].key;
	if (ops->size(c) != m->n)
		return fail(why, len, "size %zu, model %zu", ops->size(c), m->n);
	if (ops->iterate_sum(c) != sum)
		return fail(why, len, "iterate_sum %llu, model %llu",
		            (unsigned long long)ops->iterate_sum(c), (unsigned long long)sum);
	uint64_t *buf = malloc((m->n + 1) * 2 * sizeof *buf);
	if (!buf)
		abort();
	int rc = ops->dump_keys ? compare_dump(m, c, buf, buf + m->n + 1, why, len) : 0;
	if (!rc && m->handles)
		rc = compare_handles(m, c, buf, sum, why, len);
	free(buf);
	if (!rc && (dod_exts(ops) & DOD_EXT_TAGS))
		rc = compare_tags(m, c, why, len);
	if (!rc && m->dc)
		rc = model_dc_compare(m, c, why, len);
	if (!rc && ops->check) {
		char reason[256] = "";
		if (ops->check(c, reason, sizeof reason) != 0)
			rc = fail(why, len, "invariant check: %s", reason[0] ? reason : "(no reason given)");
	}
	return rc;
}

/* The particles extension's update, two sub-steps from sums t0 and pos0: t + 2 dt and
 * pos + 2 (vel dt - w) per live particle (dod_particle_update_dpos). */
static int run_update(const struct model *m, const struct dod_particle_ops *pk, void *c,
                      double t0, double pos0, char *why, size_t len)
{
	const float dt = DOD_PARTICLE_DT;
	double dpos = 0, t1, pos1;
	for (size_t i = 0; i < m->n; i++)
		for (int a = 0; a < 3; a++)
			dpos += 2 * dod_particle_update_dpos(m->live[i].key, a, dt);
	pk->update(c, dt, 2);
	pk->particle_sums(c, &t1, &pos1);
	if (t1 != t0 + 2.0 * (double)m->n * dt || pos1 != pos0 + dpos)
		return fail(why, len, "update (2 steps) over %zu live particles: t sum %.17g -> %.17g, "
		            "pos sum %.17g -> %.17g (want + %.17g)", m->n, t0, t1, pos0, pos1, dpos);
	return 0;
}

/* The particles extension: one tick, one simulate and an update of two sub-steps, each
 * checked by its sums. */
static int run_particles(const struct model *m, const struct dod_particle_ops *pk, void *c,
                         char *why, size_t len)
{
	const float dt = DOD_PARTICLE_DT;
	double t0, pos0, t1, pos1, t2, pos2, dpos = 0;
	for (size_t i = 0; i < m->n; i++)
		for (int a = 0; a < 3; a++)
			dpos += dod_particle_vel(m->live[i].key, a) * dt;
	pk->particle_sums(c, &t0, &pos0);
	pk->tick(c, dt);
	pk->particle_sums(c, &t1, &pos1);
	if (t1 != t0 + (double)m->n * dt || pos1 != pos0)
		return fail(why, len, "tick over %zu live particles: t sum %.17g -> %.17g, pos sum "
		            "%.17g -> %.17g (want t + %.17g, pos unchanged)", m->n, t0, t1, pos0, pos1,
		            (double)m->n * dt);
	pk->simulate(c, dt);
	pk->particle_sums(c, &t2, &pos2);
	if (t2 != t1 || pos2 != pos1 + dpos)
		return fail(why, len, "simulate over %zu live particles: pos sum %.17g -> %.17g "
		            "(want + %.17g), t sum %.17g -> %.17g", m->n, pos1, pos2, dpos, t1, t2);
	return run_update(m, pk, c, t2, pos2, why, len);
}

/* The type ids extension: a handle of a second container made with another type id is
 * foreign to c (count_valid 0, lookup_sum DOD_EFOREIGN), and valid in its own. An
 * allocation that fails (test_alloc_fail) leaves nothing to check. */
static int run_type_ids(const struct model *m, const struct dod_type_id_ops *t, void *c,
                        char *why, size_t len)
{
	void *other;
	uint64_t h, sum;
	if (t->create_typed(&other, 1, DOD_DEFAULT_TYPE_ID + 1) != DOD_OK)
		return 0;
	int rc = 0;
	if (m->ops->insert_n(other, 1, 0, &h) == DOD_OK) {
		size_t own = m->ops->count_valid(other, &h, 1), in_c = m->ops->count_valid(c, &h, 1);
		int err = m->ops->lookup_sum(c, &h, 1, &sum);
		if (own != 1 || in_c != 0 || err != DOD_EFOREIGN)
			rc = fail(why, len, "type ids: a handle of a map of type id %d is valid in it %zu "
			          "times, in this one %zu times, lookup_sum gives %d (want 1, 0, "
			          "DOD_EFOREIGN)", DOD_DEFAULT_TYPE_ID + 1, own, in_c, err);
	}
	m->ops->destroy(other);
	return rc;
}

/* ---- the list and consolidate extensions, driven from the model's own RNG ---- */
#define RUN_MAX MODEL_RUN_MAX_BATCH

static uint64_t below(struct model *m, uint64_t bound) { return dod_rng_below(&m->rng, bound); }

/* A reference no live item has: a recent dead one (DOD_EFREE where not reissued) or one
 * out of range. */
static uint64_t bad_ref(struct model *m)
{
	size_t nd = model_n_dead(m);
	uint64_t r = nd && below(m, 2) ? model_dead_at(m, (size_t)below(m, nd)) : UINT64_MAX >> 1;
	return m->positional ? m->n + RUN_MAX + 1 + below(m, 3) : r;
}

/* insert_at_n: a batch with a bad reference (and one with a bad where) must fail whole
 * and change nothing, then a good batch at random references. */
static int run_insert_at(struct model *m, const struct dod_list_ops *l, void *c, char *why,
                         size_t len)
{
	uint64_t refs[RUN_MAX], hs[RUN_MAX];
	size_t k = 1 + (size_t)below(m, RUN_MAX);
	int where = m->positional && m->n == 0 ? DOD_LIST_BEFORE : (int)below(m, 2);
	bool any = m->positional || m->n > 0; /* a good reference exists */
	for (size_t i = 0; i < k; i++)
		refs[i] = !any ? 0 : m->positional ? below(m, m->n + i + (where == DOD_LIST_BEFORE))
		                                   : m->live[below(m, m->n)].handle;
	if (any && model_insert_at_expect(m, refs, k, DOD_LIST_AFTER + 1) == DOD_EINVAL) {
		int err = l->insert_at_n(c, refs, k, DOD_LIST_AFTER + 1, m->next_key, hs);
		if (err != DOD_EINVAL)
			return fail(why, len, "insert_at_n with where %d: %s, not DOD_EINVAL",
			            DOD_LIST_AFTER + 1, dod_strerror(err));
	}
	uint64_t good = refs[k - 1];
	refs[k - 1] = bad_ref(m);
	if (model_insert_at_expect(m, refs, k, where) != DOD_OK &&
	    l->insert_at_n(c, refs, k, where, m->next_key, hs) == DOD_OK)
		return fail(why, len, "insert_at_n accepted reference %#llx, which names no live item",
		            (unsigned long long)refs[k - 1]);
	if (model_compare(m, c, why, len))
		return -1;
	refs[k - 1] = good;
	if (!any || model_insert_at_expect(m, refs, k, where) != DOD_OK)
		return 0;
	int err = l->insert_at_n(c, refs, k, where, m->next_key, hs);
	if (err != DOD_OK)
		return fail(why, len, "insert_at_n of %zu at live references: %s", k,
		            dod_strerror(err));
	return model_inserted_at(m, refs, k, where, hs, why, len);
}

/* insert_sorted_n of keys among the ones the model holds. */
static int run_insert_sorted(struct model *m, const struct dod_list_ops *l, void *c,
                             char *why, size_t len)
{
	uint64_t keys[RUN_MAX], hs[RUN_MAX];
	size_t k = 1 + (size_t)below(m, RUN_MAX);
	for (size_t i = 0; i < k; i++)
		keys[i] = below(m, m->next_key + 1);
	int err = l->insert_sorted_n(c, keys, k, hs);
	if (err != DOD_OK)
		return fail(why, len, "insert_sorted_n of %zu keys: %s", k, dod_strerror(err));
	return model_inserted_sorted(m, keys, k, hs, why, len);
}

/* erase_at_positions_n: a position past the size, and {0, size - 1} (the second is past
 * the size once the first is erased), fail with DOD_ERANGE and change nothing; then a
 * good batch, whose key sum must match. */
static int run_erase_at(struct model *m, const struct dod_list_ops *l, void *c, char *why,
                        size_t len)
{
	uint64_t pos[RUN_MAX] = {m->n + below(m, 3)}, sum = 0;
	int err = l->erase_at_positions_n(c, pos, 1, &sum);
	if (err != DOD_ERANGE)
		return fail(why, len, "erase_at_positions_n at position %llu of %zu: %s, not "
		            "DOD_ERANGE", (unsigned long long)pos[0], m->n, dod_strerror(err));
	pos[0] = 0;
	pos[1] = m->n ? m->n - 1 : 0;
	if ((err = l->erase_at_positions_n(c, pos, 2, &sum)) != DOD_ERANGE)
		return fail(why, len, "erase_at_positions_n at {0, %zu} of %zu: %s, not DOD_ERANGE",
		            m->n ? m->n - 1 : 0, m->n, dod_strerror(err));
	if (model_compare(m, c, why, len))
		return -1;
	size_t k = (size_t)below(m, RUN_MAX + 1);
	k = k < m->n ? k : m->n;
	for (size_t i = 0; i < k; i++)
		pos[i] = below(m, m->n - i);
	if ((err = l->erase_at_positions_n(c, pos, k, &sum)) != DOD_OK)
		return fail(why, len, "erase_at_positions_n of %zu valid positions: %s", k,
		            dod_strerror(err));
	uint64_t want = model_erased_at(m, pos, k);
	if (sum != want)
		return fail(why, len, "erase_at_positions_n: key sum %llu, model %llu",
		            (unsigned long long)sum, (unsigned long long)want);
	return 0;
}

static int run_list(struct model *m, const struct dod_list_ops *l, void *c, char *why,
                    size_t len)
{
	if (run_insert_at(m, l, c, why, len) || model_compare(m, c, why, len) ||
	    run_insert_sorted(m, l, c, why, len) || model_compare(m, c, why, len))
		return -1;
	return run_erase_at(m, l, c, why, len);
}

/* consolidate into a remap buffer of exactly ref_bound entries (ASan sees a write past
 * it), poisoned first; the remap must be exact (model_consolidated). */
static int run_consolidate(struct model *m, const struct dod_consolidate_ops *k, void *c,
                           char *why, size_t len)
{
	size_t bound = k->ref_bound(c);
	uint64_t *remap = malloc((bound ? bound : 1) * sizeof *remap);
	if (!remap)
		abort();
	memset(remap, 0xA5, bound * sizeof *remap);
	int err = k->consolidate(c, remap), rc = 0;
	if (err != DOD_OK)
		rc = fail(why, len, "consolidate: %s", dod_strerror(err));
	else
		rc = model_consolidated(m, remap, bound, why, len);
	free(remap);
	return rc;
}

/* ---- the tags extension (containers/aoa_contract.h): each item is an entity with its
 * tags, a multiset ---- */

static struct model_item *entity(const struct model *m, uint64_t h)
{
	long at = model_find(m, h);
	return at < 0 ? NULL : &m->live[at];
}

int model_tags_expect(const struct model *m, const uint64_t *ents, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ix_find(IX(m), ents[i]))
			return 1;
	return DOD_OK;
}

size_t model_tags_added(struct model *m, const uint64_t *ents, const uint32_t *tags, size_t n)
{
	size_t refused = 0, max = m->ops->tags->max_tags;
	for (size_t i = 0; i < n; i++) {
		struct model_item *e = entity(m, ents[i]);
		if (max && e->n_tags == max) {
			refused++;
			continue;
		}
		if (e->n_tags == e->cap_tags) {
			e->cap_tags = e->cap_tags ? 2 * e->cap_tags : 4;
			e->tags = realloc(e->tags, e->cap_tags * sizeof *e->tags);
			if (!e->tags)
				abort();
		}
		e->tags[e->n_tags++] = tags[i];
	}
	return refused;
}

size_t model_tags_removed(struct model *m, const uint64_t *ents, const uint32_t *tags,
                          size_t n)
{
	size_t removed = 0;
	for (size_t i = 0; i < n; i++) {
		struct model_item *e = entity(m, ents[i]);
		for (size_t j = 0; j < e->n_tags; j++)
			if (e->tags[j] == tags[i]) {
				e->tags[j] = e->tags[--e->n_tags];
				removed++;
				break;
			}
	}
	return removed;
}

size_t model_tags_found(const struct model *m, const uint64_t *ents, const uint32_t *tags,
                        size_t n)
{
	size_t found = 0;
	for (size_t i = 0; i < n; i++) {
		const struct model_item *e = entity(m, ents[i]);
		for (size_t j = 0; j < e->n_tags; j++)
			if (e->tags[j] == tags[i]) {
				found++;
				break;
			}
	}
	return found;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Entity e's tags by tags_of (buf: room for n_tags + 1) against the model, as multisets. */
static int compare_entity_tags(const struct model *m, const void *c,
                               const struct model_item *e, uint32_t *buf, char *why,
                               size_t len)
{
	size_t count = SIZE_MAX;
	int err = m->ops->tags->tags_of(c, e->handle, buf, e->n_tags + 1, &count);
	if (err || count != e->n_tags)
		return fail(why, len, "tags_of entity %#llx: %s, %zu tags, model %zu",
		            (unsigned long long)e->handle, dod_strerror(err), count, e->n_tags);
	uint32_t *want = buf + e->n_tags + 1;
	if (!count)
		return 0;
	memcpy(want, e->tags, count * sizeof *want);
	qsort(buf, count, sizeof *buf, cmp_u32);
	qsort(want, count, sizeof *want, cmp_u32);
	if (memcmp(buf, want, count * sizeof *buf))
		return fail(why, len, "entity %#llx holds other tags than the model's %zu",
		            (unsigned long long)e->handle, count);
	return 0;
}

/* A few recent dead entities that are not live: tags_of and has_n must refuse them. */
static int compare_dead_entities(const struct model *m, const void *c, char *why, size_t len)
{
	size_t nd = model_n_dead(m);
	for (size_t d = 0; d < nd && d < 4; d++) {
		uint64_t h = model_dead_at(m, d);
		uint32_t tag = 1;
		size_t count, found;
		if (ix_find(IX(m), h))
			continue;
		if (m->ops->tags->tags_of(c, h, NULL, 0, &count) == DOD_OK ||
		    m->ops->tags->has_n(c, &h, &tag, 1, &found) == DOD_OK)
			return fail(why, len, "dead entity %#llx accepted by tags_of or has_n",
			            (unsigned long long)h);
	}
	return 0;
}

/* model_compare's tags part: every entity's tags, the walk, the memory statistics. */
static int compare_tags(const struct model *m, const void *c, char *why, size_t len)
{
	const struct dod_tags_ops *t = m->ops->tags;
	size_t total = 0, most = 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < m->n; i++) {
		total += m->live[i].n_tags;
		most = m->live[i].n_tags > most ? m->live[i].n_tags : most;
		for (size_t j = 0; j < m->live[i].n_tags; j++)
			sum += m->live[i].tags[j];
	}
	if (t->walk_sum(c) != sum)
		return fail(why, len, "walk_sum %llu, model %llu", (unsigned long long)t->walk_sum(c),
		            (unsigned long long)sum);
	struct dod_tags_memory mem;
	t->memory(c, &mem);
	if (mem.tags != total || mem.unit_bytes < 4 * total || mem.held_bytes < mem.unit_bytes ||
	    mem.held_bytes != m->ops->footprint_bytes(c))
		return fail(why, len, "memory: %zu tags (model %zu), unit %zu B, held %zu B, "
		            "footprint %zu B", mem.tags, total, mem.unit_bytes, mem.held_bytes,
		            m->ops->footprint_bytes(c));
	uint32_t *buf = malloc((2 * most + 2) * sizeof *buf);
	if (!buf)
		abort();
	int rc = 0;
	for (size_t i = 0; !rc && i < m->n; i++)
		rc = compare_entity_tags(m, c, &m->live[i], buf, why, len);
	free(buf);
	return rc ? rc : compare_dead_entities(m, c, why, len);
}

/* Fills ents and tags with k random pairs of live entities (all one entity when one is
 * true) and tags 1..6 (repeats and misses come often). */
static void random_pairs(struct model *m, uint64_t *ents, uint32_t *tags, size_t k, bool one)
{
	uint64_t e = m->live[below(m, m->n)].handle;
	for (size_t i = 0; i < k; i++) {
		ents[i] = one ? e : m->live[below(m, m->n)].handle;
		tags[i] = 1 + (uint32_t)below(m, 6);
	}
}

/* A batch with a bad entity: add_n, remove_n and has_n must refuse it, unchanged. */
static int run_tags_bad(struct model *m, const struct dod_tags_ops *t, void *c, char *why,
                        size_t len)
{
	uint64_t ents[2] = {m->n ? m->live[0].handle : 0, bad_ref(m)};
	uint32_t tags[2] = {1, 2};
	size_t out;
	if (model_tags_expect(m, ents, 2) == DOD_OK)
		return 0; /* the "bad" one names a live entity */
	if (t->add_n(c, ents, tags, 2, &out) == DOD_OK || t->remove_n(c, ents, tags, 2, &out) ==
	    DOD_OK || t->has_n(c, ents, tags, 2, &out) == DOD_OK)
		return fail(why, len, "a tags batch with entity %#llx (not live) was accepted",
		            (unsigned long long)ents[1]);
	return model_compare(m, c, why, len);
}

static int run_tags(struct model *m, const struct dod_tags_ops *t, void *c, char *why,
                    size_t len)
{
	enum { MAX = 3 * RUN_MAX };
	uint64_t ents[MAX];
	uint32_t tags[MAX];
	size_t k = 1 + (size_t)below(m, MAX), got = SIZE_MAX, want;
	if (run_tags_bad(m, t, c, why, len))
		return -1;
	if (m->n == 0)
		return 0;
	random_pairs(m, ents, tags, k, below(m, 3) == 0);
	int err = t->add_n(c, ents, tags, k, &got);
	want = err ? 0 : model_tags_added(m, ents, tags, k);
	if (err || got != want)
		return fail(why, len, "add_n of %zu tags: %s, %zu refused, model %zu", k,
		            dod_strerror(err), got, want);
	if (model_compare(m, c, why, len))
		return -1;
	random_pairs(m, ents, tags, k, false);
	err = t->has_n(c, ents, tags, k, &got);
	want = model_tags_found(m, ents, tags, k);
	if (err || got != want)
		return fail(why, len, "has_n of %zu pairs: %s, %zu found, model %zu", k,
		            dod_strerror(err), got, want);
	random_pairs(m, ents, tags, k, below(m, 2) == 0);
	err = t->remove_n(c, ents, tags, k, &got);
	want = err ? 0 : model_tags_removed(m, ents, tags, k);
	if (err || got != want)
		return fail(why, len, "remove_n of %zu pairs: %s, %zu removed, model %zu", k,
		            dod_strerror(err), got, want);
	return 0;
}

int model_run_exts(struct model *m, void *c, unsigned which, char *why, size_t len)
{
	unsigned exts = dod_exts(m->ops) & which;
	if ((exts & DOD_EXT_PARTICLES) && run_particles(m, m->ops->particles, c, why, len))
		return -1;
	if ((exts & DOD_EXT_TYPE_IDS) && run_type_ids(m, m->ops->type_ids, c, why, len))
		return -1;
	if ((exts & DOD_EXT_LIST) && run_list(m, m->ops->list, c, why, len))
		return -1;
	if ((exts & DOD_EXT_CONSOLIDATE) && run_consolidate(m, m->ops->consolidate, c, why, len))
		return -1;
	if ((exts & DOD_EXT_TAGS) && run_tags(m, m->ops->tags, c, why, len))
	if ((exts & DOD_EXT_DC) && model_dc_run(m, c, why, len))
		return -1;
	return 0;
}
