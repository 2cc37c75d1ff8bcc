/* std_list.cpp - peer: std::list<T> (the C++ standard library's doubly linked list, one
 * allocation per node), the list of Stroustrup's GoingNative 2012 experiment and the
 * standard list Young's vector-hosted list is measured against, behind the C contract.
 *
 *   list   end <-> [prev|next|T,ref] <-> [prev|next|T,ref] <-> ...   (libstdc++ nodes, one
 *          operator new each; the sentinel lives in the std::list object)
 *   slots  [ {it} | {end, next free} | {it} | ... ]   reference = index into slots
 *
 * Source: Bjarne Stroustrup, "C++11 Style", GoingNative 2012 (vector vs list); Thomas
 * Young, "Vector hosted lists" (2015). A reference is an index into a table of
 * iterators, so it is validated in O(1) (an index past the table is DOD_ERANGE, a free
 * slot, whose iterator is the list's end(), DOD_EFREE); a raw iterator could not be.
 * Each item stores its slot index, so an erase found by walking (erase_at_positions_n)
 * frees its slot. Erased slots go on a LIFO free list (Slot::aux) and are issued again
 * (no detects_stale); clear issues them from 0 again. References and item addresses stay
 * valid across every other insertion and erasure (std::list never moves a node).
 *
 * Items are inserted as a std::list user does, one list.emplace each. Every insertion is
 * all or nothing: the slot table is reserved first, and when a node's allocation throws
 * the items of the batch are erased again and the free list restored (the free slots a
 * batch takes keep their links until it succeeds). bad_alloc or length_error becomes
 * DOD_ENOMEM at the C boundary (dod_cxx_nothrow) with the list unchanged; exceptions
 * never cross into C. The check covers what is ours: slots and items agree, the free
 * list, the counts (std::list keeps its own links).
 * Costs: append, insert at a reference, erase at a reference O(1) + one operator new or
 * delete; iterate O(live), one pointer chase per node; insert_sorted_n and
 * erase_at_positions_n O(position) per item (the experiment's linear walks).
 * Compiled once per size class (-DELEM_BYTES=N) with extern "C" linkage for the table.
 */
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <list>
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
struct Item {
	Elem e;
	size_t ref; /* the slot that names this item */
};
using List = std::list<Item>;
struct Slot {
	List::iterator it; /* the item, or the list's end() when the slot is free */
	size_t aux;        /* free: the next free slot (NO_SLOT: none); live: SEEN in erase_n */
};
const size_t NO_SLOT = SIZE_MAX;
const size_t SEEN = 1;
/* libstdc++'s node: two links and the value. */
const size_t NODE_BYTES = 2 * sizeof(void *) + sizeof(Item);
const size_t MAX_ELEMS = SIZE_MAX / (NODE_BYTES + sizeof(Slot));

struct Slist {
	List list;
	std::vector<Slot> slots;
	size_t free_head = NO_SLOT, n_free = 0;
};

Slist *of(void *c) { return static_cast<Slist *>(c); }
const Slist *of(const void *c) { return static_cast<const Slist *>(c); }

/* The error of reference r: out of the table, or a free slot. */
int ref_error(const Slist *s, uint64_t r)
{
	if (r >= s->slots.size())
		return DOD_ERANGE;
	return s->slots[r].it == s->list.end() ? DOD_EFREE : DOD_OK;
}

/* Room in the slot table for n more items (free slots first), grown geometrically as
 * push_back would. Throws bad_alloc or length_error, the table unchanged. */
void reserve_slots(Slist *s, size_t n)
{
	if (n <= s->n_free)
		return;
	size_t want = s->slots.size() + (n - s->n_free);
	if (n - s->n_free > MAX_ELEMS - s->slots.size())
		throw std::length_error("std_list: too many items");
	if (want > s->slots.capacity())
		s->slots.reserve(std::max(want, 2 * s->slots.capacity()));
}

/* What an insertion batch changed so far, so a throw can undo it: the free list and the
 * table as the call found them. A free slot taken keeps its aux (the next free slot)
 * until the batch succeeds, so the slots taken are the first ones of the old free list. */
struct Batch {
	size_t head, n_free, n_slots;
};

/* Inserts an item of key before `at` and gives it a slot (room reserved: only the
 * node's allocation can throw, before anything changes); *ref_out (may be NULL) = its
 * reference. */
void insert_one(Slist *s, List::iterator at, uint64_t key, uint64_t *ref_out)
{
	List::iterator it = s->list.emplace(at);
	SFX(dod_elem_init)(&it->e, key);
	size_t r = s->free_head;
	if (r != NO_SLOT) {
		s->free_head = s->slots[r].aux;
		s->n_free--;
		s->slots[r].it = it;
	} else {
		r = s->slots.size();
		s->slots.push_back(Slot{it, 0});
	}
	it->ref = r;
	if (ref_out)
		*ref_out = r;
}

/* The batch succeeded: the free slots it took drop their old links. */
void batch_done(Slist *s, const Batch &b) noexcept
{
	for (size_t r = b.head, k = b.n_free - s->n_free; k; k--) {
		size_t next = s->slots[r].aux;
		s->slots[r].aux = 0;
		r = next;
	}
}

/* The batch threw: its items are erased and the table is as it was. */
void batch_undo(Slist *s, const Batch &b) noexcept
{
	for (size_t r = b.head, k = b.n_free - s->n_free; k; k--) {
		s->list.erase(s->slots[r].it);
		s->slots[r].it = s->list.end();
		r = s->slots[r].aux;
	}
	while (s->slots.size() > b.n_slots) {
		s->list.erase(s->slots.back().it);
		s->slots.pop_back();
	}
	s->free_head = b.head;
	s->n_free = b.n_free;
}

/* Every insertion: n items inserted one by one as a std::list user does (list.emplace),
 * item i with key key(i) before at(i); on bad_alloc the items of the batch are erased
 * again (all or nothing). The table is reserved first. Returns 0 or DOD_ENOMEM. */
template <class Key, class At>
int insert_batch(Slist *s, size_t n, uint64_t *refs_out, Key key, At at)
{
	return dod_cxx_nothrow([&] {
		reserve_slots(s, n);
		Batch b{s->free_head, s->n_free, s->slots.size()};
		try {
			for (size_t i = 0; i < n; i++)
				insert_one(s, at(i), key(i), refs_out ? &refs_out[i] : nullptr);
		} catch (...) {
			batch_undo(s, b);
			throw;
		}
		batch_done(s, b);
		return DOD_OK;
	});
}

/* Erases the item it, whose slot goes on the free list; returns its key. */
uint64_t erase_item(Slist *s, List::iterator it) noexcept
{
	uint64_t key = it->e.key;
	size_t r = it->ref;
	s->list.erase(it);
	s->slots[r] = Slot{s->list.end(), s->free_head};
	s->free_head = r;
	s->n_free++;
	return key;
}

int create(void **out, size_t capacity_elems)
{
	if (capacity_elems > MAX_ELEMS)
		return DOD_EINVAL;
	return dod_cxx_create<Slist>(out, capacity_elems,
	                             [](Slist &s, size_t cap) { s.slots.reserve(cap); });
}

void destroy(void *c) { delete of(c); }

/* Appends n items (contract: insert_n appends). */
int insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Slist *s = of(c);
	return insert_batch(s, n, handles_out, [&](size_t i) { return first_key + i; },
	                    [&](size_t) { return s->list.end(); });
}

uint64_t iterate_sum(const void *c)
{
	uint64_t sum = 0;
	for (const Item &x : of(c)->list)
		sum += x.e.key;
	return sum;
}

int lookup_sum(const void *c, const uint64_t *refs, size_t n, uint64_t *sum_out)
{
	const Slist *s = of(c);
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (int err = ref_error(s, refs[k]))
			return err;
		sum += s->slots[refs[k]].it->e.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

size_t count_valid(const void *c, const uint64_t *refs, size_t n)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += ref_error(of(c), refs[k]) == DOD_OK;
	return valid;
}

/* All or nothing without an allocation: pass 1 validates each reference and marks its
 * slot (SEEN), so a repeat fails as DOD_EFREE; the marks are removed before pass 2
 * erases, or before the error is returned. */
int erase_n(void *c, const uint64_t *refs, size_t n)
{
	Slist *s = of(c);
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		if ((err = ref_error(s, refs[k])) != DOD_OK)
			break;
		if (s->slots[refs[k]].aux == SEEN) {
			err = DOD_EFREE;
			break;
		}
		s->slots[refs[k]].aux = SEEN;
	}
	for (size_t j = 0; j < k; j++)
		s->slots[refs[j]].aux = 0;
	if (err)
		return err;
	for (k = 0; k < n; k++)
		erase_item(s, s->slots[refs[k]].it);
	return DOD_OK;
}

/* Every node freed; references are issued from 0 again. */
int clear(void *c)
{
	Slist *s = of(c);
	s->list.clear();
	s->slots.clear();
	s->free_head = NO_SLOT;
	s->n_free = 0;
	return DOD_OK;
}

void dump_keys(const void *c, uint64_t *keys_out)
{
	for (const Item &x : of(c)->list)
		*keys_out++ = x.e.key;
}

size_t size(const void *c) { return of(c)->list.size(); }

/* The Slist, the slot table's capacity, one libstdc++ node per item (allocator headers
 * are not visible). */
size_t footprint(const void *c)
{
	const Slist *s = of(c);
	return sizeof *s + s->slots.capacity() * sizeof(Slot) + s->list.size() * NODE_BYTES;
}

/* ---- the list extension ---- */

/* Inserts item i before or after the item refs[i] names; every reference must be live
 * when the call starts (checked before anything is allocated). */
int insert_at_n(void *c, const uint64_t *refs, size_t n, int where, uint64_t first_key,
                uint64_t *refs_out)
{
	Slist *s = of(c);
	if (where != DOD_LIST_BEFORE && where != DOD_LIST_AFTER)
		return DOD_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (int err = ref_error(s, refs[i]))
			return err;
	return insert_batch(s, n, refs_out, [&](size_t i) { return first_key + i; },
	                    [&](size_t i) {
		                    List::iterator at = s->slots[refs[i]].it;
		                    return where == DOD_LIST_BEFORE ? at : std::next(at);
	                    });
}

/* Stroustrup's insertion: a linear search from the front for the first greater key. */
int insert_sorted_n(void *c, const uint64_t *keys, size_t n, uint64_t *refs_out)
{
	Slist *s = of(c);
	return insert_batch(s, n, refs_out, [&](size_t i) { return keys[i]; }, [&](size_t i) {
		uint64_t k = keys[i];
		return std::find_if(s->list.begin(), s->list.end(),
		                    [k](const Item &x) { return x.e.key > k; });
	});
}

/* Stroustrup's removal: a linear walk (std::next on a bidirectional iterator) of
 * positions[i] nodes from the front. */
int erase_at_positions_n(void *c, const uint64_t *positions, size_t n, uint64_t *key_sum_out)
{
	Slist *s = of(c);
	size_t live = s->list.size();
	for (size_t i = 0; i < n; i++)
		if (i >= live || positions[i] >= live - i)
			return DOD_ERANGE;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += erase_item(s, std::next(s->list.begin(), (ptrdiff_t)positions[i]));
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

/* ---- dod_ops.check ---- */

/* Each item's slot holds it; the live slots are as many as the items, so they are
 * exactly the items; no erase_n mark is left. */
int check_items(const Slist *s, char *why, size_t len)
{
	size_t i = 0;
	for (auto it = s->list.begin(); it != s->list.end(); ++it, i++)
		if (it->ref >= s->slots.size() || s->slots[it->ref].it != it ||
		    s->slots[it->ref].aux != 0)
			return dod_check_fail(why, len, "item %zu's slot %zu does not hold it (or is "
			                      "marked)", i, it->ref);
	if (s->list.size() + s->n_free != s->slots.size())
		return dod_check_fail(why, len, "%zu items + %zu free slots != %zu slots",
		                      s->list.size(), s->n_free, s->slots.size());
	return DOD_OK;
}

/* The free list visits n_free free slots and ends. */
int check_free_list(const Slist *s, char *why, size_t len)
{
	size_t r = s->free_head, steps = 0;
	for (; r != NO_SLOT && steps <= s->n_free; steps++) {
		if (r >= s->slots.size() || s->slots[r].it != s->list.end())
			return dod_check_fail(why, len, "free list entry %zu is slot %zu, not free",
			                      steps, r);
		r = s->slots[r].aux;
	}
	if (r != NO_SLOT || steps != s->n_free)
		return dod_check_fail(why, len, "free list: %zu steps, %zu free slots%s", steps,
		                      s->n_free, r != NO_SLOT ? ", no end" : "");
	return DOD_OK;
}

int check(const void *c, char *why, size_t len)
{
	int err = check_items(of(c), why, len);
	return err ? err : check_free_list(of(c), why, len);
}

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "std::list as in Stroustrup, GoingNative 2012 (C++ standard library)",
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
	.check = check,
	.list = &list_ops,
};
