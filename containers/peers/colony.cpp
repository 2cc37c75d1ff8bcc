/* colony.cpp - peer: plf::colony<T> (Matt Bentley; Debian's libplf-colony-dev), the
 * best-known real library for bulk data with holes, behind the C contract.
 *
 *   groups  [ e e _ e e _ _ e ] -> [ e e e e _ e ... ] -> ...   blocks grow geometrically
 *   skipfield per group: jump-counting runs of erased slots, so iteration skips a run of
 *   holes in one step; erased slots are reused by later inserts; elements never move
 *
 * Handles are element pointers, as colony is meant to be used ("erase through stored
 * pointers"): stable until the element is erased. Colony cannot tell a stale pointer in
 * O(1), so lookup_sum dereferences the pointers as a colony user does, without
 * validation (the contract's exception for raw-pointer handles); erase_n and count_valid
 * validate each pointer with colony::get_iterator, which walks the groups (O(groups),
 * about log2(n) + n / 8192) and is also how a pointer becomes the iterator erase needs,
 * plus a check that it points at a slot's start (find, below).
 * A pointer to a slot that a later insert reused looks valid again (no detects_stale). A
 * repeated pointer in one erase_n batch is found by sorting a copy of the batch.
 * Compiled once per size class (-DELEM_BYTES=N); exceptions never cross into C.
 */
#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include <plf_colony.h>

#include "cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dod_common.h"
}

namespace {

using Elem = DOD_ELEM;
using Colony = plf::colony<Elem>;

Elem *as_ptr(uint64_t h) { return reinterpret_cast<Elem *>(static_cast<uintptr_t>(h)); }

/* Reserves cap elements one group per reserve() call. A single reserve() that needs
 * several groups is not safe against allocation failure in Debian's plf::colony: when a
 * group allocation after the first throws, its handler calls deallocate_group on a group
 * that was never allocated and crashes (found by tests/test_alloc_fail.c). One group per
 * call never enters that loop, and a failure leaves the groups reserved so far. */
void reserve_by_groups(Colony &c, size_t cap)
{
	size_t step = c.block_capacity_limits().max;
	while (c.capacity() < cap)
		c.reserve(cap - c.capacity() > step ? c.capacity() + step : cap);
}

int create(void **out, size_t capacity_elems)
{
	return dod_cxx_create<Colony>(out, capacity_elems, reserve_by_groups);
}

void destroy(void *c) { delete static_cast<Colony *>(c); }

/* All or nothing: on bad_alloc the items of this call are erased again. */
int insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Colony *col = static_cast<Colony *>(c);
	std::vector<Colony::iterator> added;
	size_t k = 0;
	try {
		if (!handles_out)
			added.reserve(n);
		for (; k < n; k++) {
			Elem e;
			SFX(dod_elem_init)(&e, first_key + k);
			Colony::iterator it = col->insert(e);
			if (handles_out)
				handles_out[k] = reinterpret_cast<uintptr_t>(&*it);
			else
				added.push_back(it);
		}
	} catch (const std::bad_alloc &) {
		for (size_t j = 0; j < k; j++)
			col->erase(handles_out ? col->get_iterator(as_ptr(handles_out[j])) : added[j]);
		return DOD_ENOMEM;
	}
	return DOD_OK;
}

uint64_t iterate_sum(const void *c)
{
	uint64_t sum = 0;
	for (const Elem &e : *static_cast<const Colony *>(c))
		sum += e.key;
	return sum;
}

/* The group of a colony iterator, which colony_iterator keeps private. An explicit
 * instantiation may name a private member (C++20 [temp.spec.general]/6): the one below
 * hands a pointer to colony_iterator::group_pointer to group_member(), once. */
struct group_tag {};
auto group_member(group_tag);
template <auto Member> struct expose_group {
	friend auto group_member(group_tag) { return Member; }
};
template struct expose_group<&Colony::iterator::group_pointer>;

/* The iterator of the live element h points at, or end(). colony::get_iterator alone
 * trusts h to be a slot's start: it divides h's offset in its group by the slot size
 * (pointer subtraction), so an address inside a live slot read the skipfield at a wrong,
 * misaligned place and could come back valid, and erasing through it wrote colony's
 * free-list links into the neighbouring element (found by tests/fuzz: a forged handle a
 * few bytes past a live one). So the groups are walked here as get_iterator walks them
 * (last to first), and h goes to get_iterator only when it is a slot's start in one:
 * inside [elements, last_endpoint) at a multiple of the slot size. Same cost, O(groups). */
Colony::iterator find(Colony *col, uint64_t h)
{
	for (auto g = col->end().*group_member(group_tag{}); g; g = g->previous_group) {
		uintptr_t first = reinterpret_cast<uintptr_t>(g->elements);
		uintptr_t past = reinterpret_cast<uintptr_t>(g->last_endpoint);
		if (h >= first && h < past)
			return (h - first) % sizeof *g->elements == 0 ? col->get_iterator(as_ptr(h))
			                                              : col->end();
	}
	return col->end();
}

/* DOD_EFOREIGN for a pointer outside the colony's memory, to an erased slot or not to a
 * slot's start: colony cannot tell these apart. */
inline int check(const Colony *col, uint64_t h)
{
	Colony *c = const_cast<Colony *>(col); /* find only reads; get_iterator's non-const form */
	return find(c, h) == c->end() ? DOD_EFOREIGN : DOD_OK;
}

/* No validation: see the file comment. */
int lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	(void)c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += as_ptr(hs[k])->key;
	*sum_out = sum;
	return DOD_OK;
}

/* All or nothing: every pointer becomes an iterator (get_iterator: validation and the
 * lookup erase needs, once), a repeat is found by sorting, then all are erased. */
int erase_n(void *c, const uint64_t *hs, size_t n)
{
	Colony *col = static_cast<Colony *>(c);
	if (n == 1) {
		Colony::iterator it = find(col, hs[0]);
		if (it == col->end())
			return DOD_EFOREIGN;
		col->erase(it);
		return DOD_OK;
	}
	try {
		std::vector<Colony::iterator> its(n);
		for (size_t k = 0; k < n; k++)
			if ((its[k] = find(col, hs[k])) == col->end())
				return DOD_EFOREIGN;
		std::vector<uint64_t> sorted(hs, hs + n);
		std::sort(sorted.begin(), sorted.end());
		if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
			return DOD_EFREE;
		for (Colony::iterator &it : its)
			col->erase(it);
	} catch (const std::bad_alloc &) {
		return DOD_ENOMEM;
	}
	return DOD_OK;
}

size_t count_valid(const void *c, const uint64_t *hs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += check(static_cast<const Colony *>(c), hs[k]) == DOD_OK;
	return valid;
}

int clear(void *c)
{
	static_cast<Colony *>(c)->clear();
	return DOD_OK;
}

void dump_keys(const void *c, uint64_t *keys_out)
{
	for (const Elem &e : *static_cast<const Colony *>(c))
		*keys_out++ = e.key;
}

size_t size(const void *c) { return static_cast<const Colony *>(c)->size(); }
size_t footprint(const void *c) { return static_cast<const Colony *>(c)->memory(); }

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "plf::colony (Matt Bentley), Debian libplf-colony-dev",
	.max_elems = SIZE_MAX / sizeof(Elem) / 2,
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
	/* no check: the library keeps its own invariants */
};
