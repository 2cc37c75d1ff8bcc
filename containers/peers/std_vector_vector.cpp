/* std_vector_vector.cpp - peer: std::vector<std::vector<uint32_t>>, the article's baseline
 * for arrays of arrays (Niklas Gray, "Allocation Adventures 2: Arrays of Arrays",
 * Bitsquid 2015: "vector<vector<unsigned>> ... one allocation per entity"), behind the C
 * contract of the tags family (containers/aoa_contract.h).
 *
 *   slots [ hdr | {key, gen, link} | ... ]     the entity table (weak pointers, bulk/weak.h;
 *                                              a free list through link, 0 ends it)
 *   tags  [ vector | vector | ... ]            one std::vector<uint32_t> (24 B) a slot,
 *                     |                        parallel to the slots
 *                     v
 *           heap: [ t0 t1 t2 . ]               its elements, grown by operator new x2
 *
 * Entities as in aoa_core.h (the same handles and errors: DOD_ERANGE past the slots,
 * DOD_EFREE for a free slot, DOD_ESTALE for a destroyed entity; generations kept across
 * clear). A tag is push_back'ed; remove moves the last tag into the removed one's place
 * and pop_back's; a destroyed entity's vector is emptied and its memory released
 * (shrink_to_fit on a swap with an empty one). add_n is all or nothing: a push_back that
 * throws bad_alloc or length_error is caught at the C boundary (dod_cxx_nothrow) after
 * the tags added so far are popped again. No invariant check (check stays null, as for
 * the other C++ peers): the library keeps its own. Costs: add O(1) amortized (libstdc++
 * doubles from 1: a new block, a copy, the old one deleted), remove and has O(tags of the
 * entity), the walk follows one pointer an entity. Compiled once per size class
 * (-DELEM_BYTES=N: 8 only, the key) with extern "C" linkage for the table.
 */
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "cxx_glue.hpp"

extern "C" {
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"
}

namespace {

struct Slot {
	uint64_t key;
	uint32_t gen, link;
};

struct Vv {
	std::vector<Slot> slots{Slot{0, 0, 0}}; /* slot 0: the free-list header */
	std::vector<std::vector<uint32_t>> tags = std::vector<std::vector<uint32_t>>(1);
	size_t n_slots = 1, high = 1, live = 0;
};

Vv *of(void *c) { return static_cast<Vv *>(c); }
const Vv *of(const void *c) { return static_cast<const Vv *>(c); }

int ref_error(const Vv &v, uint64_t h)
{
	uint32_t id = bulk_weak_id(h);
	return bulk_weak_check(h, v.n_slots, id && id < v.n_slots ? v.slots[id].gen : 0);
}

int create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS - 1)
		return DOD_EINVAL;
	return dod_cxx_create<Vv>(out, capacity_elems, [](Vv &v, size_t cap) {
		v.slots.reserve(cap + 1);
		v.tags.reserve(cap + 1);
	});
}

void destroy(void *c) { delete of(c); }

/* Room for n more entities first (may throw: nothing changed), then no throw. */
int insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Vv &v = *of(c);
	size_t holes = v.n_slots - 1 - v.live, fresh = n > holes ? n - holes : 0;
	if (fresh > BULK_MAX_SLOTS - (v.n_slots - 1))
		return DOD_EFULL;
	int err = dod_cxx_nothrow([&] {
		size_t want = v.n_slots + fresh; /* each grown alone: a throw keeps both usable */
		if (v.slots.size() < want)
			v.slots.resize(want);
		if (v.tags.size() < want)
			v.tags.resize(want);
		return int(DOD_OK);
	});
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = v.slots[0].link;
		if (i) {
			v.slots[0].link = v.slots[i].link;
		} else {
			i = uint32_t(v.n_slots++);
			if (i >= v.high) {
				v.slots[i].gen = 0;
				v.high = i + 1;
			}
		}
		v.slots[i].gen = bulk_gen_next(v.slots[i].gen);
		v.slots[i].key = first_key + k;
		if (handles_out)
			handles_out[k] = bulk_weak(i, v.slots[i].gen);
	}
	v.live += n;
	return DOD_OK;
}

/* All or nothing: every handle checked, a repeat found by a mark bit (DOD_EFREE). */
int erase_n(void *c, const uint64_t *hs, size_t n)
{
	Vv &v = *of(c);
	size_t k = 0;
	int err = DOD_OK;
	for (; k < n && !(err = ref_error(v, hs[k])); k++)
		v.slots[bulk_weak_id(hs[k])].gen |= BULK_MARK;
	for (size_t j = 0; j < k; j++)
		v.slots[bulk_weak_id(hs[j])].gen &= BULK_GEN_MASK;
	if (err)
		return k < n && ref_error(v, hs[k]) == DOD_OK ? int(DOD_EFREE) : ref_error(v, hs[k]);
	for (k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		std::vector<uint32_t>().swap(v.tags[i]);
		v.slots[i].gen = bulk_gen_next(v.slots[i].gen);
		v.slots[i].link = v.slots[0].link;
		v.slots[0].link = i;
	}
	v.live -= n;
	return DOD_OK;
}

uint64_t iterate_sum(const void *c)
{
	const Vv &v = *of(c);
	uint64_t sum = 0;
	for (size_t i = 1; i < v.n_slots; i++)
		sum += v.slots[i].key & (0 - uint64_t(v.slots[i].gen & BULK_LIVE));
	return sum;
}

int lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const Vv &v = *of(c);
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (int err = ref_error(v, hs[k]))
			return err;
		sum += v.slots[bulk_weak_id(hs[k])].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

size_t count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += ref_error(*of(c), hs[k]) == DOD_OK;
	return valid;
}

int clear(void *c)
{
	Vv &v = *of(c);
	for (size_t i = 1; i < v.n_slots; i++) {
		std::vector<uint32_t>().swap(v.tags[i]);
		if (v.slots[i].gen & BULK_LIVE)
			v.slots[i].gen = bulk_gen_next(v.slots[i].gen);
	}
	v.n_slots = 1;
	v.live = 0;
	v.slots[0].link = 0;
	return DOD_OK;
}

void dump_keys(const void *c, uint64_t *keys_out)
{
	const Vv &v = *of(c);
	for (size_t i = 1; i < v.n_slots; i++)
		if (v.slots[i].gen & BULK_LIVE)
			*keys_out++ = v.slots[i].key;
}

size_t size(const void *c) { return of(c)->live; }

size_t tag_bytes(const Vv &v)
{
	size_t bytes = 0;
	for (size_t i = 1; i < v.n_slots; i++)
		bytes += v.tags[i].capacity() * sizeof(uint32_t);
	return bytes;
}

/* The object, both tables' capacity and every vector's elements (allocator headers are
 * not visible). */
size_t footprint(const void *c)
{
	const Vv &v = *of(c);
	return sizeof v + v.slots.capacity() * sizeof(Slot) +
	       v.tags.capacity() * sizeof(std::vector<uint32_t>) + tag_bytes(v);
}

/* ---- the tags extension ---- */

int check_ents(const Vv &v, const uint64_t *ents, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (int err = ref_error(v, ents[k]))
			return err;
	return DOD_OK;
}

int add_n(void *c, const uint64_t *ents, const uint32_t *tags, size_t n, size_t *refused_out)
{
	Vv &v = *of(c);
	if (int err = check_ents(v, ents, n))
		return err;
	size_t k = 0;
	int err = dod_cxx_nothrow([&] {
		for (; k < n; k++)
			v.tags[bulk_weak_id(ents[k])].push_back(tags[k]);
		return int(DOD_OK);
	});
	if (err) /* push_back's strong guarantee: item k was not added */
		while (k--)
			v.tags[bulk_weak_id(ents[k])].pop_back();
	else if (refused_out)
		*refused_out = 0;
	return err;
}

int remove_n(void *c, const uint64_t *ents, const uint32_t *tags, size_t n, size_t *removed_out)
{
	Vv &v = *of(c);
	if (int err = check_ents(v, ents, n))
		return err;
	size_t removed = 0;
	for (size_t k = 0; k < n; k++) {
		std::vector<uint32_t> &t = v.tags[bulk_weak_id(ents[k])];
		for (size_t j = 0; j < t.size(); j++)
			if (t[j] == tags[k]) {
				t[j] = t.back();
				t.pop_back();
				removed++;
				break;
			}
	}
	if (removed_out)
		*removed_out = removed;
	return DOD_OK;
}

int has_n(const void *c, const uint64_t *ents, const uint32_t *tags, size_t n, size_t *found_out)
{
	const Vv &v = *of(c);
	if (int err = check_ents(v, ents, n))
		return err;
	size_t found = 0;
	for (size_t k = 0; k < n; k++)
		for (uint32_t t : v.tags[bulk_weak_id(ents[k])])
			if (t == tags[k]) {
				found++;
				break;
			}
	*found_out = found;
	return DOD_OK;
}

uint64_t walk_sum(const void *c)
{
	const Vv &v = *of(c);
	uint64_t sum = 0;
	for (size_t i = 1; i < v.n_slots; i++)
		for (uint32_t t : v.tags[i])
			sum += t;
	return sum;
}

int tags_of(const void *c, uint64_t ent, uint32_t *tags_out, size_t room, size_t *count_out)
{
	const Vv &v = *of(c);
	if (int err = ref_error(v, ent))
		return err;
	const std::vector<uint32_t> &t = v.tags[bulk_weak_id(ent)];
	for (size_t j = 0; j < t.size() && j < room; j++)
		tags_out[j] = t[j];
	*count_out = t.size();
	return DOD_OK;
}

void memory(const void *c, struct dod_tags_memory *out)
{
	const Vv &v = *of(c);
	out->tags = 0;
	for (size_t i = 1; i < v.n_slots; i++)
		out->tags += v.tags[i].size();
	out->unit_bytes = tag_bytes(v);
	out->held_bytes = footprint(c);
}

const struct dod_tags_ops tags_ops = {
	.version = DOD_TAGS_OPS_VERSION,
	.max_tags = 0,
	.add_n = add_n,
	.remove_n = remove_n,
	.has_n = has_n,
	.walk_sum = walk_sum,
	.tags_of = tags_of,
	.memory = memory,
};

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "std::vector<std::vector<uint32_t>> (C++ standard library), the baseline of "
	          "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015)",
	.max_elems = BULK_MAX_SLOTS - 1,
	.create = create,
	.destroy = destroy,
	.insert_n = insert_n,
	.iterate_sum = iterate_sum,
	.lookup_sum = lookup_sum,
	.erase_n = erase_n,
	.count_valid = count_valid,
	.clear = clear,
	.dump_keys = dump_keys,
	.size = size,
	.footprint_bytes = footprint,
	.tags = &tags_ops,
};
