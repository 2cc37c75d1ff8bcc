/* unordered_map.cpp - peer: std::unordered_map<uint64_t, T> keyed by a handle value,
 * the handle_map article's "unordered_map" column, behind the C contract.
 *
 *   buckets [ b0 | b1 | ... ]  each -> singly linked nodes { next, key, T } (one
 *                               allocation per node, libstdc++'s layout)
 *
 * Source: Jeff Kiah, "Game Engine Containers - handle_map" (2016). Handles are issued
 * like handle_map's (index | type id 1 << 48, generation 0) from a counter that never
 * repeats until reset, so a handle of a cleared item is detected as missing. The map is
 * reserve()d up front, as the article did. This file and its siblings in peers/ are the
 * only C++ in dodbench; compiled once per size class (-DELEM_BYTES=N) with extern "C"
 * linkage for the ops table. Exceptions never cross into C: bad_alloc -> DOD_ENOMEM.
 * Erase is unordered_map::erase (here extract, for all-or-nothing batches): the node is
 * freed, other handles and pointers stay valid. Lookup errors: a handle with another
 * type id is foreign, one never issued is out of range, an issued one that is gone is
 * stale.
 */
#include <cstdint>
#include <new>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dod_common.h"
}

namespace {

using Elem = DOD_ELEM;
const uint64_t type_bits = uint64_t(1) << 48;

struct Umap {
	std::unordered_map<uint64_t, Elem> map;
	uint64_t next_index = 0;
};

int create(void **out, size_t capacity_elems)
{
	return dod_cxx_create<Umap>(out, capacity_elems,
	                            [](Umap &u, size_t cap) { u.map.reserve(cap); });
}

void destroy(void *c) { delete static_cast<Umap *>(c); }

/* All or nothing: on bad_alloc the items of this call are erased again. */
int insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Umap *u = static_cast<Umap *>(c);
	size_t k = 0;
	try {
		for (; k < n; k++) {
			uint64_t h = type_bits | (u->next_index + k);
			Elem &e = u->map[h];
			SFX(dod_elem_init)(&e, first_key + k);
			if (handles_out)
				handles_out[k] = h;
		}
	} catch (const std::bad_alloc &) {
		while (k--)
			u->map.erase(type_bits | (u->next_index + k));
		return DOD_ENOMEM;
	}
	u->next_index += n;
	return DOD_OK;
}

/* The error a handle that is not in the map gets: foreign (another type id), out of range
 * (never issued) or stale (issued, then erased or cleared). */
int missing_error(const Umap *u, uint64_t h)
{
	if ((h >> 48) != 1)
		return DOD_EFOREIGN;
	return (h & (type_bits - 1)) >= u->next_index ? DOD_ERANGE : DOD_ESTALE;
}

uint64_t iterate_sum(const void *c)
{
	uint64_t sum = 0;
	for (const auto &kv : static_cast<const Umap *>(c)->map)
		sum += kv.second.key;
	return sum;
}

int lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const auto &map = static_cast<const Umap *>(c)->map;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		auto it = map.find(hs[k]);
		if (it == map.end())
			return missing_error(static_cast<const Umap *>(c), hs[k]);
		sum += it->second.key;
	}
	*sum_out = sum;
	return DOD_OK;
}

/* All or nothing: the nodes are extracted (C++17 node handles, no reallocation of the
 * items) and put back if any handle is missing; a handle that was present but already
 * extracted by this call is a repeat (DOD_EFREE). The one allocation is the vector of
 * node handles. */
int erase_n(void *c, const uint64_t *hs, size_t n)
{
	Umap *u = static_cast<Umap *>(c);
	try {
		std::vector<std::unordered_map<uint64_t, Elem>::node_type> taken;
		taken.reserve(n);
		for (size_t k = 0; k < n; k++) {
			auto node = u->map.extract(hs[k]);
			if (node.empty()) {
				bool repeat = false;
				for (size_t j = 0; j < k && !repeat; j++)
					repeat = hs[j] == hs[k];
				int err = repeat ? DOD_EFREE : missing_error(u, hs[k]);
				for (auto &t : taken)
					u->map.insert(std::move(t));
				return err;
			}
			taken.push_back(std::move(node));
		}
		return DOD_OK;
	} catch (const std::bad_alloc &) {
		return DOD_ENOMEM;
	} catch (const std::length_error &) {
		return DOD_ENOMEM;
	}
}

size_t count_valid(const void *c, const uint64_t *hs, size_t n)
{
	const auto &map = static_cast<const Umap *>(c)->map;
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += map.count(hs[k]);
	return valid;
}

int clear(void *c)
{
	static_cast<Umap *>(c)->map.clear();
	return DOD_OK;
}

void dump_keys(const void *c, uint64_t *keys_out)
{
	for (const auto &kv : static_cast<const Umap *>(c)->map)
		*keys_out++ = kv.second.key;
}

size_t size(const void *c) { return static_cast<const Umap *>(c)->map.size(); }

/* libstdc++ node = next pointer + pair<const uint64_t, Elem> (+ no cached hash for
 * integer keys); buckets = one pointer each. Allocator headers are not visible. */
size_t footprint(const void *c)
{
	const auto &map = static_cast<const Umap *>(c)->map;
	return sizeof(Umap) + map.bucket_count() * sizeof(void *) +
	       map.size() * (sizeof(void *) + sizeof(std::pair<const uint64_t, Elem>));
}

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "std::unordered_map as in Kiah, handle_map (2016)",
	.max_elems = SIZE_MAX / sizeof(Elem),
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
