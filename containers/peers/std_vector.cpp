/* std_vector.cpp - peer: std::vector<T> used as a sequence (the C++ standard library's
 * contiguous array), the vector of Stroustrup's GoingNative 2012 experiment, behind the
 * C contract of a list container.
 *
 *   [ T0 | T1 | T2 | ... | T(size-1) | unused capacity ]   reference = position
 *
 * Source: Bjarne Stroustrup, "C++11 Style", GoingNative 2012: insert n random integers at
 * the position a linear search finds in a sorted sequence, then remove them at random
 * positions found by linear traversal; the vector beats the list at every n he tried,
 * because the shift is a memmove over contiguous memory and the list's walk a pointer
 * chase. A reference is the item's position in the sequence (no DOD_CAP_STABLE_HANDLES):
 * an insertion or erasure at position p shifts every reference >= p, as list_contract.h
 * says. A position >= size is DOD_ERANGE; positions are not stale or free, so only a
 * repeat in one erase_n batch is DOD_EFREE.
 *
 * insert_at_n inserts at positions (vector::insert: the tail shifts up); erase_n erases
 * the positions as they are when the call starts (one compaction pass from the first of
 * them, the erase-remove idiom; vector::erase when it is one); insert_sorted_n finds its
 * position with a linear search (std::find_if, not a binary search: the experiment's
 * search, the same for every container); erase_at_positions_n walks to the position with
 * a counted loop, as Stroustrup's code did. For a vector that walk is O(1) arithmetic
 * (std::next on a random-access iterator; an optimizer turns the plain loop into it), so
 * the loop keeps a compiler barrier per step (DOD_KEEP): the walk stays linear, as in the
 * experiment, for fairness with the lists. Growth is std::vector's (a new buffer, a copy,
 * the old one freed), reserved geometrically before a batch changes anything, so
 * bad_alloc or length_error becomes DOD_ENOMEM at the C boundary (dod_cxx_nothrow) with
 * the vector unchanged; exceptions never cross into C. No invariant check: the library
 * keeps its own (check stays null).
 * Costs: append O(1) amortized; insert or erase at position p O(size - p) moves; iterate
 * O(size), contiguous; insert_sorted_n and erase_at_positions_n O(size) per item.
 * Compiled once per size class (-DELEM_BYTES=N) with extern "C" linkage for the table.
 */
#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dod_common.h"
}

namespace {

using Elem = DOD_ELEM;
using Vec = std::vector<Elem>;
const size_t MAX_ELEMS = SIZE_MAX / sizeof(Elem);

Vec *of(void *c) { return static_cast<Vec *>(c); }
const Vec *of(const void *c) { return static_cast<const Vec *>(c); }

Elem make(uint64_t key)
{
	Elem e;
	SFX(dod_elem_init)(&e, key);
	return e;
}

/* Capacity for n more items, doubling as push_back would (reserving exactly size + n on
 * every batch would copy the whole vector on every call). Throws bad_alloc or
 * length_error, v unchanged; after it, n insertions cannot throw. */
void reserve_more(Vec &v, size_t n)
{
	if (n > v.max_size() - v.size())
		throw std::length_error("std_vector: too many items");
	if (v.size() + n > v.capacity())
		v.reserve(std::max(v.size() + n, std::min(v.max_size(), 2 * v.capacity())));
}

int create(void **out, size_t capacity_elems)
{
	if (capacity_elems > MAX_ELEMS)
		return DOD_EINVAL;
	return dod_cxx_create<Vec>(out, capacity_elems, [](Vec &v, size_t cap) { v.reserve(cap); });
}

void destroy(void *c) { delete of(c); }

/* Appends n items (contract: insert_n appends); item k's reference is size + k. */
int insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	return dod_cxx_nothrow([&] {
		Vec &v = *of(c);
		reserve_more(v, n);
		for (size_t k = 0; k < n; k++) {
			if (handles_out)
				handles_out[k] = v.size();
			v.push_back(make(first_key + k));
		}
		return DOD_OK;
	});
}

uint64_t iterate_sum(const void *c)
{
	uint64_t sum = 0;
	for (const Elem &e : *of(c))
		sum += e.key;
	return sum;
}

int lookup_sum(const void *c, const uint64_t *pos, size_t n, uint64_t *sum_out)
{
	const Vec &v = *of(c);
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (pos[k] >= v.size())
			return DOD_ERANGE;
		sum += v[pos[k]].key;
	}
	*sum_out = sum;
	return DOD_OK;
}

size_t count_valid(const void *c, const uint64_t *pos, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += pos[k] < of(c)->size();
	return valid;
}

/* Erases the marked positions from `first` on, keeping the order: one pass. */
void compact(Vec &v, const std::vector<uint64_t> &marks, size_t first)
{
	size_t w = first;
	for (size_t r = first; r < v.size(); r++)
		if (!(marks[r / 64] >> (r % 64) & 1))
			v[w++] = v[r];
	v.erase(v.begin() + (ptrdiff_t)w, v.end());
}

/* Positions as they are when the call starts, all or nothing: every position is checked
 * (>= size: DOD_ERANGE; a repeat: DOD_EFREE, found with a bitmap of size bits, the one
 * allocation) before anything moves. */
int erase_n(void *c, const uint64_t *pos, size_t n)
{
	Vec &v = *of(c);
	if (n == 0)
		return DOD_OK;
	if (n == 1) { /* the per-item call: no bitmap */
		if (pos[0] >= v.size())
			return DOD_ERANGE;
		v.erase(v.begin() + (ptrdiff_t)pos[0]);
		return DOD_OK;
	}
	return dod_cxx_nothrow([&] {
		std::vector<uint64_t> marks((v.size() + 63) / 64);
		size_t first = v.size();
		for (size_t k = 0; k < n; k++) {
			if (pos[k] >= v.size())
				return int(DOD_ERANGE);
			uint64_t bit = uint64_t(1) << (pos[k] % 64);
			if (marks[pos[k] / 64] & bit)
				return int(DOD_EFREE);
			marks[pos[k] / 64] |= bit;
			first = std::min(first, size_t(pos[k]));
		}
		compact(v, marks, first);
		return int(DOD_OK);
	});
}

int clear(void *c)
{
	of(c)->clear();
	return DOD_OK;
}

void dump_keys(const void *c, uint64_t *keys_out)
{
	for (const Elem &e : *of(c))
		*keys_out++ = e.key;
}

size_t size(const void *c) { return of(c)->size(); }

/* The vector object and its capacity (allocator headers are not visible). */
size_t footprint(const void *c) { return sizeof(Vec) + of(c)->capacity() * sizeof(Elem); }

/* ---- the list extension ---- */

/* Item i goes before (at) or after (at + 1) position refs[i], read after the insertions
 * before it: refs[i] <= size + i before (size + i appends), < size + i after. */
int insert_at_n(void *c, const uint64_t *refs, size_t n, int where, uint64_t first_key,
                uint64_t *refs_out)
{
	Vec &v = *of(c);
	if (where != DOD_LIST_BEFORE && where != DOD_LIST_AFTER)
		return DOD_EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t items = v.size() + i; /* when item i goes in */
		if (where == DOD_LIST_BEFORE ? refs[i] > items : refs[i] >= items)
			return DOD_ERANGE;
	}
	return dod_cxx_nothrow([&] {
		reserve_more(v, n);
		for (size_t i = 0; i < n; i++) {
			uint64_t at = refs[i] + (uint64_t)where;
			v.insert(v.begin() + (ptrdiff_t)at, make(first_key + i));
			if (refs_out)
				refs_out[i] = at;
		}
		return DOD_OK;
	});
}

/* Stroustrup's insertion: a linear search from the front for the first greater key,
 * then vector::insert shifts the tail. */
int insert_sorted_n(void *c, const uint64_t *keys, size_t n, uint64_t *refs_out)
{
	return dod_cxx_nothrow([&] {
		Vec &v = *of(c);
		reserve_more(v, n);
		for (size_t i = 0; i < n; i++) {
			uint64_t k = keys[i];
			auto at = std::find_if(v.begin(), v.end(), [k](const Elem &e) { return e.key > k; });
			if (refs_out)
				refs_out[i] = uint64_t(at - v.begin());
			v.insert(at, make(k));
		}
		return DOD_OK;
	});
}

/* Stroustrup's removal: a counted walk of positions[i] steps from the front (kept linear
 * by the barrier: see the opening comment), then vector::erase shifts the tail. */
int erase_at_positions_n(void *c, const uint64_t *positions, size_t n, uint64_t *key_sum_out)
{
	Vec &v = *of(c);
	size_t live = v.size();
	for (size_t i = 0; i < n; i++)
		if (i >= live || positions[i] >= live - i)
			return DOD_ERANGE;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		Elem *at = v.data();
		for (uint64_t p = positions[i]; p; p--) {
			at++;
			DOD_KEEP(at);
		}
		sum += at->key;
		v.erase(v.begin() + (at - v.data()));
	}
	if (key_sum_out)
		*key_sum_out = sum;
	return DOD_OK;
}

const struct dod_list_ops list_ops = {
	.version = DOD_LIST_OPS_VERSION,
	.insert_at_n = insert_at_n,
	.insert_sorted_n = insert_sorted_n,
	.erase_at_positions_n = erase_at_positions_n,
};

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "std::vector as in Stroustrup, GoingNative 2012 (C++ standard library)",
	.max_elems = MAX_ELEMS,
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
	.list = &list_ops,
};
