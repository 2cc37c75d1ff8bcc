/* dc_flat.c - the DataComponent's middle steps (Niklas Gray, Bitsquid, "Allocation
 * Adventures", the DataComponent: hash the keys, flatten the paths, search linearly, then
 * SoA, then co-allocate): one source for three variants, the layout column choosing
 * (containers/variants.tsv; the family's contract: containers/dc_contract.h).
 *
 * dc_hashed_flat (layout aos): one array of entries per entity, searched linearly.
 *   comp {entries, count, cap}  ->  [ {key u32, type u8, value 8 B} x cap ]   16 B each
 * dc_soa (layout soa): keys, types and values in three arrays of one capacity.
 *   comp {keys, vals, types, count, cap} -> [key u32 x cap] [value 8 B x cap] [type u8 x cap]
 * dc_coalloc (layout coalloc): the same three arrays in one allocation.
 *   comp {buf, count, cap} -> buf [ value 8 B x cap | key u32 x cap | type u8 x cap ]
 *
 *   value: bool (0/1) or float inline; a string or float array is a pointer to its own
 *   heap block {n u32, pad, bytes or floats}  (the last step, dc_single_buffer.c, puts
 *   them in the component's buffer)
 *
 * Entities live in the shared table (dc_entities.h); an entity without values holds no
 * memory. Invariants (check): the table's; per live component count <= cap, keys non-zero
 * and distinct, types valid, a payload value's block present, no pending count left.
 * Costs: get and set O(values of the entity) (the linear search, which D8 says beats a
 * map for small counts and D9 says SoA keys speed up); a set of a string or an array
 * allocates its block (the old one is freed); arrays grow x2 (at least 4); copy_n
 * allocates one array (three for soa) plus one block per payload value.
 * set_n is all or nothing: it validates every set, then reserves each entity's arrays
 * for as many new keys as it has sets (an upper bound: no search), then allocates every
 * block into the container's scratch array, and only then changes values (which can no
 * longer fail). copy_n builds every copy before it takes a slot.
 */
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "dc/dc_entities.h"

#if !defined(DOD_LAYOUT_aos) && !defined(DOD_LAYOUT_soa) && !defined(DOD_LAYOUT_coalloc)
#error "dc_flat.c: the layout column must be aos, soa or coalloc"
#endif

struct blob {
	uint32_t n, pad; /* string bytes or floats */
	char d[];        /* the bytes, or the floats (8-byte aligned) */
};
union val {
	uint32_t b;
	float f;
	struct blob *blob;
};

#if DOD_LAYOUT_aos
struct entry {
	uint32_t key;
	uint8_t type, pad[3];
	union val v;
};
struct comp {
	struct entry *e;
	uint32_t count, cap, pending, pad;
};
static inline uint32_t key_of(const struct comp *p, size_t i) { return p->e[i].key; }
static inline uint8_t *type_p(const struct comp *p, size_t i) { return &p->e[i].type; }
static inline union val *val_p(const struct comp *p, size_t i) { return &p->e[i].v; }
static inline void set_key(struct comp *p, size_t i, uint32_t k) { p->e[i].key = k; }
#elif DOD_LAYOUT_soa
struct comp {
	uint32_t *keys;
	union val *vals;
	uint8_t *types;
	uint32_t count, cap, pending, pad;
};
static inline uint32_t key_of(const struct comp *p, size_t i) { return p->keys[i]; }
static inline uint8_t *type_p(const struct comp *p, size_t i) { return &p->types[i]; }
static inline union val *val_p(const struct comp *p, size_t i) { return &p->vals[i]; }
static inline void set_key(struct comp *p, size_t i, uint32_t k) { p->keys[i] = k; }
#else
struct comp {
	char *buf; /* vals[cap], keys[cap], types[cap] */
	uint32_t count, cap, pending, pad;
};
static inline uint32_t *keys_of(const struct comp *p)
{
	return (uint32_t *)(void *)(p->buf + (size_t)p->cap * sizeof(union val));
}
static inline uint32_t key_of(const struct comp *p, size_t i) { return keys_of(p)[i]; }
static inline uint8_t *type_p(const struct comp *p, size_t i)
{
	return (uint8_t *)(p->buf + (size_t)p->cap * (sizeof(union val) + 4)) + i;
}
static inline union val *val_p(const struct comp *p, size_t i)
{
	return (union val *)(void *)p->buf + i;
}
static inline void set_key(struct comp *p, size_t i, uint32_t k) { keys_of(p)[i] = k; }
#endif

/* Heap blocks of a component's arrays. */
#if DOD_LAYOUT_soa
#define ARRAY_BLOCKS 3
#else
#define ARRAY_BLOCKS 1
#endif

/* Bytes of one value of each array, and of the arrays of cap values. */
#define ROW_BYTES (sizeof(union val) + 4 + 1)
static inline size_t arrays_bytes(size_t cap)
{
#if DOD_LAYOUT_aos
	return cap * sizeof(struct entry);
#else
	return cap * ROW_BYTES;
#endif
}

struct dcf {
	struct dc_ents ents; /* first: the core operations take the container */
	struct dc_scratch scratch; /* set_n's blocks, copy_n's components */
};

static inline struct comp *comp_of(const struct dcf *d, uint64_t h)
{
	return (struct comp *)dc_comp_at(&d->ents, dc_index(h));
}

/* The index of key in p, or -1: the linear search. */
static inline long find(const struct comp *p, uint32_t key)
{
	for (uint32_t i = 0; i < p->count; i++)
		if (key_of(p, i) == key)
			return (long)i;
	return -1;
}

/* ---- the arrays ---- */

/* Capacity cap >= p->cap for the count values of p: 0 or DOD_ENOMEM, p unchanged. Every
 * growth goes through the counted path (alloc/realloc.h: dod_buffer_grow, or
 * dod_growth_note for coalloc's move into one new block), so dod_growth sees it. */
static int arrays_resize(struct comp *p, uint32_t cap)
{
#if DOD_LAYOUT_aos
	if (dod_buffer_grow((char **)&p->e, p->cap * sizeof *p->e, cap * sizeof *p->e, 0))
		return DOD_ENOMEM;
#elif DOD_LAYOUT_soa
	/* a grown array with the old cap changes nothing: each is kept as it grows */
	if (dod_buffer_grow((char **)&p->keys, p->cap * sizeof *p->keys, cap * sizeof *p->keys, 0) ||
	    dod_buffer_grow((char **)&p->vals, p->cap * sizeof *p->vals, cap * sizeof *p->vals, 0) ||
	    dod_buffer_grow((char **)&p->types, p->cap, cap, 0))
		return DOD_ENOMEM;
#else
	struct comp q = {.buf = malloc(arrays_bytes(cap)), .count = p->count, .cap = cap};
	if (!q.buf)
		return DOD_ENOMEM;
	if (p->count) {
		memcpy(val_p(&q, 0), val_p(p, 0), p->count * sizeof(union val));
		memcpy(keys_of(&q), keys_of(p), p->count * sizeof(uint32_t));
		memcpy(type_p(&q, 0), type_p(p, 0), p->count);
	}
	if (p->buf)
		dod_growth_note(1, p->count * ROW_BYTES);
	free(p->buf);
	p->buf = q.buf;
#endif
	p->cap = cap;
	return DOD_OK;
}

/* Every block and array of p freed (p then empty). */
static void comp_free(struct comp *p)
{
	for (uint32_t i = 0; i < p->count; i++)
		if (dc_has_payload(*type_p(p, i)))
			free(val_p(p, i)->blob);
#if DOD_LAYOUT_soa
	free(p->keys);
	free(p->vals);
	free(p->types);
#elif DOD_LAYOUT_aos
	free(p->e);
#else
	free(p->buf);
#endif
	memset(p, 0, sizeof *p);
}

/* A block holding v's payload, or NULL. */
static struct blob *blob_of(const struct dod_dc_value *v)
{
	size_t bytes = dc_payload_bytes(v);
	struct blob *b = malloc(sizeof(struct blob) + (bytes ? bytes : 1));
	if (b) {
		b->n = v->n;
		if (bytes)
			memcpy(b->d, v->s, bytes);
	}
	return b;
}

/* *q = a copy of p (its own arrays, cap = count, and blocks): 0 or DOD_ENOMEM (nothing
 * left allocated). */
static int comp_copy(struct comp *q, const struct comp *p)
{
	memset(q, 0, sizeof *q);
	if (!p->count)
		return DOD_OK;
	if (arrays_resize(q, p->count))
		goto fail;
	for (uint32_t i = 0; i < p->count; i++, q->count++) {
		uint8_t t = *type_p(p, i);
		*val_p(q, i) = *val_p(p, i);
		if (dc_has_payload(t)) {
			const struct blob *b = val_p(p, i)->blob;
			struct dod_dc_value v = {.type = t, .n = b->n, .s = b->d};
			if (!(val_p(q, i)->blob = blob_of(&v)))
				goto fail;
		}
		set_key(q, i, key_of(p, i));
		*type_p(q, i) = t;
	}
	return DOD_OK;
fail:
	comp_free(q);
	return DOD_ENOMEM;
}

/* ---- the core operations (the rest are dc_entities.h's) ---- */

static int dcf_create(void **out, size_t capacity_elems)
{
	return dc_create(out, sizeof(struct dcf), sizeof(struct comp), capacity_elems);
}

static void dcf_destroy(void *c)
{
	struct dcf *d = c;
	if (!d)
		return;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE)
			comp_free(dc_comp_at(&d->ents, i));
	dc_ents_free(&d->ents);
	free(d->scratch.p);
	free(d);
}

static int dcf_erase_n(void *c, const uint64_t *hs, size_t n)
{
	struct dcf *d = c;
	int err = dc_ents_mark(&d->ents, hs, n);
	for (size_t k = 0; !err && k < n; k++) {
		comp_free(comp_of(d, hs[k]));
		dc_ents_release(&d->ents, dc_index(hs[k]));
	}
	return err;
}

/* Every entity erased (old handles stay detectable: their generations move on). */
static int dcf_clear(void *c)
{
	struct dcf *d = c;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE) {
			comp_free(dc_comp_at(&d->ents, i));
			dc_ents_release(&d->ents, i);
		}
	return DOD_OK;
}

/* The components' heap bytes and blocks (dod_dc_mem). */
static void dcf_mem(const void *c, struct dod_dc_mem *out)
{
	const struct dcf *d = c;
	memset(out, 0, sizeof *out);
	out->entities = d->ents.live;
	for (size_t i = 0; i < d->ents.n_slots; i++) {
		const struct comp *p = dc_comp_at(&d->ents, i);
		if (dc_slot_at(&d->ents, i)->next != DC_LIVE || !p->cap)
			continue;
		out->values += p->count;
		out->data_bytes += arrays_bytes(p->cap);
		out->blocks += ARRAY_BLOCKS;
		for (uint32_t j = 0; j < p->count; j++)
			if (dc_has_payload(*type_p(p, j))) {
				struct dod_dc_value v = {.type = *type_p(p, j), .n = val_p(p, j)->blob->n};
				out->data_bytes += sizeof(struct blob) + dc_payload_bytes(&v);
				out->blocks++;
			}
	}
}

static size_t dcf_footprint(const void *c)
{
	const struct dcf *d = c;
	struct dod_dc_mem m;
	dcf_mem(c, &m);
	return sizeof *d + dc_ents_bytes(&d->ents) + m.data_bytes + d->scratch.bytes;
}

/* ---- the extension ---- */

/* set_n's reservation: each entity's arrays get room for as many new keys as it has sets
 * (pending counts them). 0 or DOD_ENOMEM (pending cleared, only capacities changed). */
static int reserve_sets(struct dcf *d, const struct dod_dc_set *sets, size_t n)
{
	int err = DOD_OK;
	for (size_t k = 0; k < n; k++)
		comp_of(d, sets[k].entity)->pending++;
	for (size_t k = 0; k < n; k++) {
		struct comp *p = comp_of(d, sets[k].entity);
		if (!p->pending)
			continue;
		uint64_t want = (uint64_t)p->count + p->pending;
		p->pending = 0;
		if (err || want <= p->cap)
			continue;
		uint64_t cap = p->cap < 2 ? 4 : 2 * (uint64_t)p->cap;
		if (want > UINT32_MAX)
			err = DOD_ENOMEM;
		else
			err = arrays_resize(p, (uint32_t)(cap > want ? cap : want));
	}
	return err;
}

/* set_n's blocks, one per payload set (blobs of them) into the scratch array, in order.
 * 0 or DOD_ENOMEM (none left allocated). */
static int make_blobs(struct dcf *d, const struct dod_dc_set *sets, size_t n, size_t blobs)
{
	if (dc_scratch_room(&d->scratch, blobs * sizeof(struct blob *)))
		return DOD_ENOMEM;
	struct blob **b = d->scratch.p;
	size_t made = 0;
	for (size_t k = 0; k < n; k++)
		if (dc_has_payload(sets[k].value.type) && !(b[made++] = blob_of(&sets[k].value))) {
			for (size_t j = 0; j + 1 < made; j++)
				free(b[j]);
			return DOD_ENOMEM;
		}
	return DOD_OK;
}

static int dcf_set_n(void *c, const struct dod_dc_set *sets, size_t n)
{
	struct dcf *d = c;
	size_t blobs = 0;
	for (size_t k = 0; k < n; k++) {
		int err = dc_set_error(&d->ents, &sets[k]);
		if (err)
			return err;
		blobs += dc_has_payload(sets[k].value.type);
	}
	int err = reserve_sets(d, sets, n);
	if (!err)
		err = make_blobs(d, sets, n, blobs);
	if (err)
		return err;
	struct blob **b = d->scratch.p;
	for (size_t k = 0; k < n; k++) {
		struct comp *p = comp_of(d, sets[k].entity);
		const struct dod_dc_value *v = &sets[k].value;
		long i = find(p, sets[k].key);
		if (i < 0) {
			i = p->count++;
			set_key(p, (size_t)i, sets[k].key);
		} else if (dc_has_payload(*type_p(p, (size_t)i))) {
			free(val_p(p, (size_t)i)->blob);
		}
		*type_p(p, (size_t)i) = (uint8_t)v->type;
		union val *x = val_p(p, (size_t)i);
		if (dc_has_payload(v->type))
			x->blob = *b++;
		else if (v->type == DOD_DC_BOOL)
			x->b = v->b != 0;
		else
			x->f = v->f;
	}
	return DOD_OK;
}

/* The value of get g, or its error. */
static inline int get_one(const void *c, const struct dod_dc_get *g, struct dod_dc_value *out)
{
	const struct dcf *d = c;
	int err = dc_get_error(&d->ents, g);
	if (err)
		return err;
	const struct comp *p = comp_of(d, g->entity);
	long i = find(p, g->key);
	if (i < 0)
		return DOD_ENOKEY;
	if (*type_p(p, (size_t)i) != g->type)
		return DOD_ETYPE;
	const union val *x = val_p(p, (size_t)i);
	out->type = g->type;
	out->n = dc_has_payload(g->type) ? x->blob->n : 0;
	if (dc_has_payload(g->type))
		out->s = x->blob->d;
	else if (g->type == DOD_DC_BOOL)
		out->b = x->b;
	else
		out->f = x->f;
	return DOD_OK;
}

DC_GET_LOOPS(dcf_get_sum_n, dcf_get_n, get_one)

static int dcf_copy_n(void *c, const uint64_t *src, size_t n, uint64_t first_key,
                      uint64_t *handles_out)
{
	struct dcf *d = c;
	int err = dc_copy_check(&d->ents, src, n);
	if (!err)
		err = dc_scratch_room(&d->scratch, n * sizeof(struct comp));
	if (err)
		return err;
	struct comp *made = d->scratch.p;
	for (size_t k = 0; k < n; k++)
		if (comp_copy(&made[k], comp_of(d, src[k]))) {
			while (k > 0)
				comp_free(&made[--k]);
			return DOD_ENOMEM;
		}
	for (size_t k = 0; k < n; k++) {
		handles_out[k] = dc_ents_take(&d->ents, first_key + k);
		*comp_of(d, handles_out[k]) = made[k];
	}
	return DOD_OK;
}

static const struct dod_dc_ops dcf_dc_ops = {
	.version = DOD_DC_OPS_VERSION,
	.set_n = dcf_set_n,
	.get_sum_n = dcf_get_sum_n,
	.get_n = dcf_get_n,
	.copy_n = dcf_copy_n,
	.mem = dcf_mem,
};

/* ---- dod_ops.check ---- */

static int check_comp(const struct comp *p, size_t slot, char *why, size_t len)
{
	if (p->count > p->cap || p->pending)
		return dod_check_fail(why, len, "slot %zu: %u values, cap %u, pending %u", slot,
		                      p->count, p->cap, p->pending);
	for (uint32_t i = 0; i < p->count; i++) {
		uint8_t t = *type_p(p, i);
		if (!key_of(p, i) || !dc_type_ok(t) || (dc_has_payload(t) && !val_p(p, i)->blob))
			return dod_check_fail(why, len, "slot %zu value %u: key %#x, type %u", slot, i,
			                      key_of(p, i), t);
		for (uint32_t j = 0; j < i; j++)
			if (key_of(p, j) == key_of(p, i))
				return dod_check_fail(why, len, "slot %zu: key %#x twice", slot, key_of(p, i));
	}
	return DOD_OK;
}

static int dcf_check(const void *c, char *why, size_t len)
{
	const struct dcf *d = c;
	int err = dc_ents_check(&d->ents, why, len);
	for (size_t i = 0; !err && i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE)
			err = check_comp(dc_comp_at(&d->ents, i), i, why, len);
	return err;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent: "
	          "hashed flattened keys, linear search (aos), SoA (soa), co-allocated (coalloc)",
	.max_elems = DC_MAX_SLOTS,
	.create = dcf_create,
	.destroy = dcf_destroy,
	.insert_n = dc_insert_n,
	.iterate_sum = dc_iterate_sum,
	.lookup_sum = dc_lookup_sum,
	.erase_n = dcf_erase_n,
	.count_valid = dc_count_valid,
	.clear = dcf_clear,
	.dump_keys = dc_dump_keys,
	.size = dc_size,
	.footprint_bytes = dcf_footprint,
	.check = dcf_check,
	.dc = &dcf_dc_ops,
};
