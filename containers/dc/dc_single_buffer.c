/* dc_single_buffer.c - the DataComponent's last step (Niklas Gray, Bitsquid, "Allocation
 * Adventures", the DataComponent: strings and arrays in a value buffer addressed by
 * {uint16 offset, uint16 size}, then one buffer with the header growing up and the values
 * growing down; reallocation also defragments): the variant dc_single_buffer
 * (containers/dc_contract.h is the family's contract).
 *
 * Each entity with values owns one heap buffer of at most DC_SB_MAX bytes, and nothing else:
 *
 *   0        8              8+4k           8+8k       top                 bottom       size
 *   [count kcap bottom size][keys u32 x kcap][vals u32 x kcap][types u8 x kcap]. free ..[payloads]
 *    header, u16 each        k = kcap         bool 0/1, float bits, or    strings and float
 *                                             offset | size << 16         arrays, 4-aligned,
 *                                                                         growing down
 * top = 8 + 9 kcap rounded up to 4. The buffer holds no pointer: a component is copied or
 * moved with one memcpy (copy_n does that; tests/test_dc.c moves one and reads it back:
 * an entity's comps entry starts with its buffer pointer) and could be saved as it is.
 *
 * Invariants (check): the entity table's (dc_entities.h); per buffer count <= kcap,
 * top <= bottom <= size <= DC_SB_MAX, size a multiple of 4; keys non-zero and distinct;
 * types valid and unmarked; each payload 4-aligned in [bottom, size), none overlapping.
 * A replaced payload that does not fit where the old one was is appended below bottom and
 * the old bytes become garbage until the next reallocation, which rebuilds the buffer
 * compacted (keys in their order, payloads packed from the end).
 * Costs: get and set O(values) (linear search over the keys array); a set that needs room
 * reallocates (x2, at most DC_SB_MAX) and compacts: O(buffer); copy O(buffer), one malloc.
 * Limits (DOD_EFULL, nothing changed): a payload of more than 65535 bytes, a component
 * past DC_SB_MAX bytes. A replacement needs room for its payload beside the old one, so
 * a component of more than half the limit may refuse to replace its largest value.
 *
 * set_n is all or nothing: after validation, a pass searches each set's key (remembering
 * the index in the scratch array for the pass that writes) and counts each entity's new
 * keys and payload bytes (exact for a key set once; a key set again in the same call
 * counted as a new payload: an upper bound), marking found keys (bit 7 of the type); a
 * pass then reserves that room, reallocating where needed, which changes no value; only
 * then are values written, which cannot fail. On an error the marks are removed.
 */
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "dc/dc_entities.h"

#define DC_SB_MAX 65532u      /* bytes of a buffer: its offsets are 16-bit */
#define DC_SB_MARK 0x80u      /* in a type byte: a key found by set_n's first pass */
#define DC_SB_MAX_KEYS ((DC_SB_MAX - 8) / 9)

struct hdr {
	uint16_t count, kcap, bottom, size;
};
struct comp {
	unsigned char *buf;           /* NULL: no values */
	uint32_t pend_keys, pend_bytes; /* set_n's count of new keys and payload bytes */
};
struct dcs {
	struct dc_ents ents; /* first: the core operations take the container */
	struct dc_scratch scratch; /* set_n's found indices, copy_n's buffers */
};

static inline struct hdr *hdr_of(unsigned char *b) { return (struct hdr *)(void *)b; }
static inline uint32_t *keys_of(unsigned char *b) { return (uint32_t *)(void *)(b + 8); }
static inline uint32_t *vals_of(unsigned char *b) { return keys_of(b) + hdr_of(b)->kcap; }
static inline uint8_t *types_of(unsigned char *b) { return (uint8_t *)(vals_of(b) + hdr_of(b)->kcap); }
static inline size_t top_of(size_t kcap) { return (8 + 9 * kcap + 3) & ~(size_t)3; }
static inline size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }
static inline struct comp *comp_of(const struct dcs *d, uint64_t h)
{
	return (struct comp *)dc_comp_at(&d->ents, dc_index(h));
}

/* The index of key in buffer b (may be NULL), or -1: the linear search. */
static inline long find(unsigned char *b, uint32_t key)
{
	if (!b)
		return -1;
	const uint32_t *k = keys_of(b);
	for (uint32_t i = 0, n = hdr_of(b)->count; i < n; i++)
		if (k[i] == key)
			return (long)i;
	return -1;
}

/* The payload bytes a value of type t holds (4-aligned), from its 32-bit value. */
static inline size_t slot_bytes(uint8_t t, uint32_t v)
{
	return dc_has_payload(t & ~DC_SB_MARK) ? align4(v >> 16) : 0;
}

/* A new buffer of size bytes and kcap keys holding b's values (b may be NULL), payloads
 * packed from the end: the reallocation that defragments. NULL when malloc fails. */
static unsigned char *rebuild(unsigned char *b, size_t kcap, size_t size)
{
	unsigned char *n = malloc(size);
	if (!n)
		return NULL;
	uint16_t count = b ? hdr_of(b)->count : 0;
	*hdr_of(n) = (struct hdr){count, (uint16_t)kcap, (uint16_t)size, (uint16_t)size};
	if (!count)
		return n;
	memcpy(keys_of(n), keys_of(b), count * 4u);
	memcpy(types_of(n), types_of(b), count);
	for (uint16_t i = 0; i < count; i++) {
		uint32_t v = vals_of(b)[i];
		size_t bytes = slot_bytes(types_of(b)[i], v);
		if (dc_has_payload(types_of(b)[i] & ~DC_SB_MARK)) {
			hdr_of(n)->bottom = (uint16_t)(hdr_of(n)->bottom - bytes);
			memcpy(n + hdr_of(n)->bottom, b + (v & 0xFFFF), v >> 16);
			v = hdr_of(n)->bottom | (v & 0xFFFF0000u);
		}
		vals_of(n)[i] = v;
	}
	return n;
}

/* Room in p's buffer for add_keys more keys and add_bytes of payloads: in place (the key
 * arrays moved up when kcap grows) or by a rebuild. 0, DOD_EFULL or DOD_ENOMEM (the values
 * unchanged either way). */
static int reserve(struct comp *p, size_t add_keys, size_t add_bytes)
{
	struct hdr h = p->buf ? *hdr_of(p->buf) : (struct hdr){0, 0, 0, 0};
	size_t want = h.count + add_keys, kcap = h.kcap, live = 0;
	if (want > DC_SB_MAX_KEYS || add_bytes > DC_SB_MAX)
		return DOD_EFULL;
	if (want > kcap)
		kcap = want > 2 * kcap ? (want < 4 ? 4 : want) : 2 * kcap;
	if (p->buf && top_of(kcap) + add_bytes <= h.bottom) {
		if (kcap != h.kcap) { /* types, then values, to their places for the new kcap */
			memmove(p->buf + 8 + 8 * kcap, types_of(p->buf), h.count);
			memmove(p->buf + 8 + 4 * kcap, vals_of(p->buf), h.count * 4u);
			hdr_of(p->buf)->kcap = (uint16_t)kcap;
		}
		return DOD_OK;
	}
	for (uint16_t i = 0; i < h.count; i++)
		live += slot_bytes(types_of(p->buf)[i], vals_of(p->buf)[i]);
	if (top_of(want) + live + add_bytes > DC_SB_MAX)
		return DOD_EFULL;
	if (top_of(kcap) + live + add_bytes > DC_SB_MAX)
		kcap = want;
	size_t size = top_of(kcap) + live + add_bytes, doubled = 2 * (size_t)h.size;
	doubled = doubled < DC_SB_MAX ? doubled : DC_SB_MAX;
	unsigned char *n = rebuild(p->buf, kcap, size > doubled ? size : doubled);
	if (!n)
		return DOD_ENOMEM;
	free(p->buf);
	p->buf = n;
	return DOD_OK;
}

/* ---- the core operations (the rest are dc_entities.h's) ---- */

static int dcs_create(void **out, size_t capacity_elems)
{
	return dc_create(out, sizeof(struct dcs), sizeof(struct comp), capacity_elems);
}

static void dcs_destroy(void *c)
{
	struct dcs *d = c;
	if (!d)
		return;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE)
			free(((struct comp *)dc_comp_at(&d->ents, i))->buf);
	dc_ents_free(&d->ents);
	free(d->scratch.p);
	free(d);
}

static int dcs_erase_n(void *c, const uint64_t *hs, size_t n)
{
	struct dcs *d = c;
	int err = dc_ents_mark(&d->ents, hs, n);
	for (size_t k = 0; !err && k < n; k++) {
		free(comp_of(d, hs[k])->buf);
		dc_ents_release(&d->ents, dc_index(hs[k]));
	}
	return err;
}

static int dcs_clear(void *c)
{
	struct dcs *d = c;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE) {
			free(((struct comp *)dc_comp_at(&d->ents, i))->buf);
			dc_ents_release(&d->ents, i);
		}
	return DOD_OK;
}

static void dcs_mem(const void *c, struct dod_dc_mem *out)
{
	const struct dcs *d = c;
	memset(out, 0, sizeof *out);
	out->entities = d->ents.live;
	for (size_t i = 0; i < d->ents.n_slots; i++) {
		unsigned char *b = ((const struct comp *)dc_comp_at(&d->ents, i))->buf;
		if (dc_slot_at(&d->ents, i)->next != DC_LIVE || !b)
			continue;
		out->values += hdr_of(b)->count;
		out->data_bytes += hdr_of(b)->size;
		out->blocks++;
	}
}

static size_t dcs_footprint(const void *c)
{
	const struct dcs *d = c;
	struct dod_dc_mem m;
	dcs_mem(c, &m);
	return sizeof *d + dc_ents_bytes(&d->ents) + m.data_bytes + d->scratch.bytes;
}

/* ---- the extension ---- */

/* set_n's first pass (file comment): found[k] = the index of set k's key before the call,
 * or -1; the key is marked; the entity's pending keys and bytes count what it needs. */
static void count_sets(struct dcs *d, const struct dod_dc_set *sets, size_t n, int32_t *found)
{
	for (size_t k = 0; k < n; k++) {
		struct comp *p = comp_of(d, sets[k].entity);
		size_t bytes = align4(dc_payload_bytes(&sets[k].value));
		long i = find(p->buf, sets[k].key);
		found[k] = (int32_t)i;
		if (i < 0) {
			p->pend_keys++;
		} else {
			uint8_t *t = &types_of(p->buf)[i];
			if (!(*t & DC_SB_MARK) && slot_bytes(*t, vals_of(p->buf)[i]) >= bytes)
				bytes = 0; /* written in place */
			*t |= DC_SB_MARK;
		}
		uint64_t sum = (uint64_t)p->pend_bytes + bytes;
		p->pend_bytes = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
	}
}

/* set_n's second pass: every entity's room reserved; on an error the marks go and every
 * pending count is cleared. 0, DOD_EFULL or DOD_ENOMEM. */
static int reserve_sets(struct dcs *d, const struct dod_dc_set *sets, size_t n,
                        const int32_t *found)
{
	int err = DOD_OK;
	for (size_t k = 0; k < n; k++) {
		struct comp *p = comp_of(d, sets[k].entity);
		if (!err && (p->pend_keys || p->pend_bytes))
			err = reserve(p, p->pend_keys, p->pend_bytes);
		p->pend_keys = p->pend_bytes = 0;
	}
	for (size_t k = 0; err && k < n; k++)
		if (found[k] >= 0)
			types_of(comp_of(d, sets[k].entity)->buf)[found[k]] &= (uint8_t)~DC_SB_MARK;
	return err;
}

/* Writes set s into p's buffer (room reserved), at index i (-1: search again). */
static void write_set(struct comp *p, const struct dod_dc_set *s, long i)
{
	unsigned char *b = p->buf;
	struct hdr *h = hdr_of(b);
	const struct dod_dc_value *v = &s->value;
	size_t bytes = dc_payload_bytes(v);
	if (i < 0 && (i = find(b, s->key)) < 0) {
		i = h->count++;
		keys_of(b)[i] = s->key;
		types_of(b)[i] = 0;
	}
	uint32_t *x = &vals_of(b)[i];
	if (dc_has_payload(v->type)) {
		uint32_t at = bytes ? *x & 0xFFFF : h->bottom;
		if (bytes && slot_bytes(types_of(b)[i], *x) < align4(bytes)) {
			h->bottom = (uint16_t)(h->bottom - align4(bytes));
			at = h->bottom;
		}
		if (bytes)
			memcpy(b + at, v->s, bytes);
		*x = at | (uint32_t)bytes << 16;
	} else if (v->type == DOD_DC_BOOL) {
		*x = v->b != 0;
	} else {
		memcpy(x, &v->f, 4);
	}
	types_of(b)[i] = (uint8_t)v->type;
}

static int dcs_set_n(void *c, const struct dod_dc_set *sets, size_t n)
{
	struct dcs *d = c;
	for (size_t k = 0; k < n; k++) {
		int err = dc_set_error(&d->ents, &sets[k]);
		if (err)
			return err;
		if (dc_payload_bytes(&sets[k].value) > 0xFFFF)
			return DOD_EFULL;
	}
	if (dc_scratch_room(&d->scratch, n * sizeof(int32_t)))
		return DOD_ENOMEM;
	int32_t *found = d->scratch.p;
	count_sets(d, sets, n, found);
	int err = reserve_sets(d, sets, n, found);
	for (size_t k = 0; !err && k < n; k++)
		write_set(comp_of(d, sets[k].entity), &sets[k], found[k]);
	return err;
}

static inline int get_one(const void *c, const struct dod_dc_get *g, struct dod_dc_value *out)
{
	const struct dcs *d = c;
	int err = dc_get_error(&d->ents, g);
	if (err)
		return err;
	unsigned char *b = comp_of(d, g->entity)->buf;
	long i = find(b, g->key);
	if (i < 0)
		return DOD_ENOKEY;
	if (types_of(b)[i] != g->type)
		return DOD_ETYPE;
	uint32_t x = vals_of(b)[i];
	out->type = g->type;
	out->n = 0;
	if (g->type == DOD_DC_STRING || g->type == DOD_DC_FLOATS) {
		out->n = g->type == DOD_DC_STRING ? x >> 16 : x >> 18;
		out->s = (const char *)b + (x & 0xFFFF);
	} else if (g->type == DOD_DC_BOOL) {
		out->b = x;
	} else {
		memcpy(&out->f, &x, 4);
	}
	return DOD_OK;
}

DC_GET_LOOPS(dcs_get_sum_n, dcs_get_n, get_one)

/* Each copy is one malloc and one memcpy of the whole buffer (garbage included). */
static int dcs_copy_n(void *c, const uint64_t *src, size_t n, uint64_t first_key,
                      uint64_t *handles_out)
{
	struct dcs *d = c;
	int err = dc_copy_check(&d->ents, src, n);
	if (!err)
		err = dc_scratch_room(&d->scratch, n * sizeof(unsigned char *));
	if (err)
		return err;
	unsigned char **made = d->scratch.p;
	for (size_t k = 0; k < n; k++) {
		unsigned char *b = comp_of(d, src[k])->buf;
		made[k] = b ? malloc(hdr_of(b)->size) : NULL;
		if (b && !made[k]) {
			while (k > 0)
				free(made[--k]);
			return DOD_ENOMEM;
		}
		if (b)
			memcpy(made[k], b, hdr_of(b)->size);
	}
	for (size_t k = 0; k < n; k++) {
		handles_out[k] = dc_ents_take(&d->ents, first_key + k);
		comp_of(d, handles_out[k])->buf = made[k];
	}
	return DOD_OK;
}

static const struct dod_dc_ops dcs_dc_ops = {
	.version = DOD_DC_OPS_VERSION,
	.set_n = dcs_set_n,
	.get_sum_n = dcs_get_sum_n,
	.get_n = dcs_get_n,
	.copy_n = dcs_copy_n,
	.mem = dcs_mem,
};

/* ---- dod_ops.check ---- */

/* Value i's payload [at, at + bytes) of buffer b is in [bottom, size) and overlaps none
 * before it. */
static int check_payload(unsigned char *b, uint16_t i, size_t slot, char *why, size_t len)
{
	struct hdr *h = hdr_of(b);
	uint32_t x = vals_of(b)[i], at = x & 0xFFFF, end = at + align4(x >> 16);
	if (at < h->bottom || end > h->size || at % 4)
		return dod_check_fail(why, len, "slot %zu value %u: payload [%u, %u) outside [%u, %u)",
		                      slot, i, at, end, h->bottom, h->size);
	for (uint16_t j = 0; j < i; j++) {
		uint32_t y = vals_of(b)[j], a2 = y & 0xFFFF, e2 = a2 + align4(y >> 16);
		if (dc_has_payload(types_of(b)[j]) && at < e2 && a2 < end && end > at)
			return dod_check_fail(why, len, "slot %zu: payloads of values %u and %u overlap",
			                      slot, j, i);
	}
	return DOD_OK;
}

static int check_buf(unsigned char *b, size_t slot, char *why, size_t len)
{
	struct hdr *h = hdr_of(b);
	if (h->count > h->kcap || top_of(h->kcap) > h->bottom || h->bottom > h->size ||
	    h->size > DC_SB_MAX || h->size % 4)
		return dod_check_fail(why, len, "slot %zu: header count %u kcap %u bottom %u size %u",
		                      slot, h->count, h->kcap, h->bottom, h->size);
	for (uint16_t i = 0; i < h->count; i++) {
		uint8_t t = types_of(b)[i];
		if (!keys_of(b)[i] || !dc_type_ok(t))
			return dod_check_fail(why, len, "slot %zu value %u: key %#x, type %u", slot, i,
			                      keys_of(b)[i], t);
		for (uint16_t j = 0; j < i; j++)
			if (keys_of(b)[j] == keys_of(b)[i])
				return dod_check_fail(why, len, "slot %zu: key %#x twice", slot, keys_of(b)[i]);
		int err = dc_has_payload(t) ? check_payload(b, i, slot, why, len) : DOD_OK;
		if (err)
			return err;
	}
	return DOD_OK;
}

static int dcs_check(const void *c, char *why, size_t len)
{
	const struct dcs *d = c;
	int err = dc_ents_check(&d->ents, why, len);
	for (size_t i = 0; !err && i < d->ents.n_slots; i++) {
		const struct comp *p = dc_comp_at(&d->ents, i);
		if (dc_slot_at(&d->ents, i)->next != DC_LIVE)
			continue;
		if (p->pend_keys || p->pend_bytes)
			err = dod_check_fail(why, len, "slot %zu: pending counts left", i);
		else if (p->buf)
			err = check_buf(p->buf, i, why, len);
	}
	return err;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent: "
	          "one buffer, header up, values down, {uint16 offset, uint16 size} values",
	.max_elems = DC_MAX_SLOTS,
	.create = dcs_create,
	.destroy = dcs_destroy,
	.insert_n = dc_insert_n,
	.iterate_sum = dc_iterate_sum,
	.lookup_sum = dc_lookup_sum,
	.erase_n = dcs_erase_n,
	.count_valid = dc_count_valid,
	.clear = dcs_clear,
	.dump_keys = dc_dump_keys,
	.size = dc_size,
	.footprint_bytes = dcs_footprint,
	.check = dcs_check,
	.dc = &dcs_dc_ops,
};
