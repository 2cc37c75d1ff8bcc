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
 */
#include <cstdint>
#include <new>
#include <stdexcept>
#include <unordered_map>

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
	try {
		Umap *u = new Umap;
		try {
			u->map.reserve(capacity_elems);
		} catch (...) {
			delete u;
			throw;
		}
		*out = u;
		return DOD_OK;
	} catch (const std::bad_alloc &) {
		return DOD_ENOMEM;
	} catch (const std::length_error &) {
		return DOD_ENOMEM;
	}
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
			return DOD_ESTALE;
		sum += it->second.key;
	}
	*sum_out = sum;
	return DOD_OK;
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

extern "C" const struct dod_ops SFX(peer_unordered_map_ops) = {
	.version = DOD_OPS_VERSION,
	.name = "peer_unordered_map",
	.family = "peer",
	.alloc = "node_per_item",
	.layout = "node",
	.source = "std::unordered_map as in Kiah, handle_map (2016)",
	.caps = DOD_CAP_HANDLES | DOD_CAP_STABLE_HANDLES | DOD_CAP_STABLE_POINTERS |
	        DOD_CAP_DETECTS_STALE,
	.elem_bytes = ELEM_BYTES,
	.max_elems = SIZE_MAX / sizeof(Elem),
	.create = create,
	.destroy = destroy,
	.insert_n = insert_n,
	.iterate_sum = iterate_sum,
	.lookup_sum = lookup_sum,
	.count_valid = count_valid,
	.clear = clear,
	.reset = nullptr,
	.shuffle = nullptr,
	.defragment = nullptr,
	.dump_keys = dump_keys,
	.size = size,
	.footprint_bytes = footprint,
};
