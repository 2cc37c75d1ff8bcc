/* dc_hashed_map.cpp - the map D8 compares the linear search with (Niklas Gray, Bitsquid,
 * "Allocation Adventures", the DataComponent: linear search over a few hashed keys "beats
 * a map"): the variant dc_hashed_map (containers/dc_contract.h is the family's contract).
 * Per entity, a std::map<uint32_t, value> keyed by the 32-bit hash of the flattened path,
 * the key dc_flat.c searches linearly (the request's `key`, dod_dc_hash of dc_contract.h,
 * hashed untimed by the caller for both), so the two differ only in how a key is found.
 *
 *   entity table (dc/dc_entities.h): slot -> Tree *t (nullptr: no values)
 *   Tree = std::map<uint32_t, Val>          one node per value (red-black tree)
 *   Val  = {type u8, value 8 B}             dc_flat.c's value: bool (0/1) or float inline,
 *                                           a string or float array a pointer to its own
 *                                           heap block {n u32, pad, bytes or floats}
 *
 * As in dc_flat.c the path is not walked (only `key` is used; a path through a value
 * is not seen) and a value's type may change on a set.
 *
 * set_n is all or nothing: it validates every set, then makes every node the batch needs
 * (placeholders of type 0, recorded so a bad_alloc erases them again) and every payload
 * block into the scratch, and only then writes the values (which cannot fail; an old
 * block is freed then). Exceptions never cross into C (cxx_glue.hpp: bad_alloc is
 * DOD_ENOMEM). copy_n builds every copy before it takes a slot.
 * Invariants (check): the entity table's; every tree non-empty, its keys non-zero, its
 * values of a valid type (no placeholder left), a payload value's block present.
 * Costs: get and set O(log values) key compares, a pointer chase per level; set
 * allocates a node per new key and a block per string or array (the old one freed);
 * copy_n allocates a tree, a node per value and a block per payload value.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "dc/dc_cxx_glue.hpp"

namespace {

/* A payload block: dc_flat.c's struct blob, the bytes or floats after the header. */
struct Blob {
	uint32_t n, pad;
};
static_assert(sizeof(Blob) == 8, "the payload starts 8-byte aligned");
char *data(Blob *b) { return reinterpret_cast<char *>(b + 1); }

struct Val {
	uint8_t type = 0; /* dod_dc_type, or 0: a node set_n just made */
	union {
		uint32_t b;
		float f;
		Blob *blob;
	};
	Val() : blob(nullptr) {}
};

/* One entity's values; frees its blocks when destroyed. */
struct Tree {
	std::map<uint32_t, Val> m;
	Tree() = default;
	Tree(const Tree &) = delete;
	Tree &operator=(const Tree &) = delete;
	~Tree()
	{
		for (auto &kv : m)
			if (dc_has_payload(kv.second.type))
				std::free(kv.second.blob);
	}
};
using Node = std::map<uint32_t, Val>::iterator;

/* The design (dc/dc_cxx_glue.hpp holds the rest): a std::map keyed by hash per entity. */
struct Hashed {
	static constexpr char source[] =
		"Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent: "
		"the map its linear search is compared with, std::map keyed by the hashed key";
	/* set_n's and copy_n's scratch, kept between calls. */
	struct Scratch : dc_cxx_scratch<Tree> {
		std::vector<Val *> leaves;                 /* per set: its node */
		std::vector<Blob *> blobs;                 /* per payload set: its new block */
		std::vector<std::pair<Tree *, Node>> made; /* nodes this call made */
		size_t bytes() const
		{
			return leaves.capacity() * sizeof(Val *) + blobs.capacity() * sizeof(Blob *) +
			       made.capacity() * sizeof made[0];
		}
	};
	DC_CXX_DESIGN_OPS(Tree);
};
using Scratch = Hashed::Scratch;
using Dcm = dc_cxx<Hashed>;

/* A block holding v's payload (n and type of v, data copied from v->s). Throws bad_alloc. */
Blob *blob_of(const dod_dc_value &v)
{
	size_t bytes = dc_payload_bytes(&v);
	Blob *b = static_cast<Blob *>(std::malloc(sizeof(Blob) + (bytes ? bytes : 1)));
	if (!b)
		throw std::bad_alloc();
	b->n = v.n;
	b->pad = 0;
	if (bytes)
		std::memcpy(data(b), v.s, bytes);
	return b;
}

/* A copy of t: its own nodes and blocks. Throws bad_alloc (nothing leaked). */
std::unique_ptr<Tree> Hashed::clone(const Tree &t)
{
	auto c = std::make_unique<Tree>();
	for (const auto &[k, v] : t.m) {
		Val &n = c->m[k]; /* type 0 until its block exists: ~Tree frees no stray pointer */
		if (dc_has_payload(v.type)) {
			dod_dc_value p{};
			p.type = v.type;
			p.n = v.blob->n;
			p.s = data(v.blob);
			n.blob = blob_of(p);
		} else if (v.type == DOD_DC_BOOL) {
			n.b = v.b;
		} else {
			n.f = v.f;
		}
		n.type = v.type;
	}
	return c;
}

/* libstdc++'s red-black node header (colour, parent, left, right). */
constexpr size_t NODE_HEADER = 32;

/* t's heap bytes, blocks and values added to *m: the tree, its nodes, its blocks. */
void Hashed::mem(const Tree &t, dod_dc_mem *m)
{
	m->data_bytes += sizeof(Tree);
	m->blocks++;
	for (const auto &[k, v] : t.m) {
		m->values++;
		m->data_bytes += NODE_HEADER + sizeof(std::pair<const uint32_t, Val>);
		m->blocks++;
		if (dc_has_payload(v.type)) {
			dod_dc_value p{};
			p.type = v.type;
			p.n = v.blob->n;
			m->data_bytes += sizeof(Blob) + dc_payload_bytes(&p);
			m->blocks++;
		}
	}
}

/* ---- set_n ---- */

/* What a failed set_n made is removed again: its nodes, its trees, its blocks. */
void undo(Dcm *d, Scratch &x) noexcept
{
	for (Blob *b : x.blobs)
		std::free(b);
	x.blobs.clear();
	while (!x.made.empty()) {
		x.made.back().first->m.erase(x.made.back().second);
		x.made.pop_back();
	}
	d->undo_roots();
}

/* The node of set s (made where missing, recorded in x) and its block, if any. Throws
 * bad_alloc (what it made is in x). */
void prepare(Dcm *d, const dod_dc_set &s, Scratch &x)
{
	Tree *&t = d->root_of(s.entity);
	if (!t) {
		t = new Tree;
		x.roots.push_back(dc_index(s.entity)); /* reserved: does not throw */
	}
	auto [it, made] = t->m.try_emplace(s.key);
	if (made)
		x.made.emplace_back(t, it); /* reserved */
	x.leaves.push_back(&it->second);   /* reserved */
	if (dc_has_payload(s.value.type))
		x.blobs.push_back(blob_of(s.value)); /* reserved */
}

/* Writes the prepared values in order (nothing allocates). */
void apply(const dod_dc_set *sets, size_t n, Scratch &x) noexcept
{
	Blob *const *b = x.blobs.data();
	for (size_t k = 0; k < n; k++) {
		Val *leaf = x.leaves[k];
		const dod_dc_value &v = sets[k].value;
		if (dc_has_payload(leaf->type))
			std::free(leaf->blob);
		leaf->type = (uint8_t)v.type;
		if (dc_has_payload(v.type))
			leaf->blob = *b++;
		else if (v.type == DOD_DC_BOOL)
			leaf->b = v.b != 0;
		else
			leaf->f = v.f;
	}
	x.blobs.clear();
}

int Hashed::set_n(void *c, const dod_dc_set *sets, size_t n)
{
	Dcm *d = Dcm::of(c);
	size_t blobs = 0;
	for (size_t k = 0; k < n; k++) {
		if (int err = dc_set_error(&d->ents, &sets[k]))
			return err;
		blobs += dc_has_payload(sets[k].value.type);
	}
	Scratch &x = *d->x;
	x.leaves.clear();
	x.blobs.clear();
	x.made.clear();
	x.roots.clear();
	return dod_cxx_nothrow([&]() -> int {
		x.leaves.reserve(n);
		x.blobs.reserve(blobs);
		x.made.reserve(n);
		x.roots.reserve(n);
		try {
			for (size_t k = 0; k < n; k++)
				prepare(d, sets[k], x);
		} catch (...) {
			undo(d, x);
			throw;
		}
		apply(sets, n, x);
		return DOD_OK;
	});
}

/* ---- get_n, get_sum_n (dc_cxx_gets) ---- */

/* The value of get g, or its error: one std::map::find of the hashed key. */
int Hashed::get_one(const void *c, const dod_dc_get *gp, dod_dc_value *out)
{
	const Dcm *d = Dcm::of(c);
	const dod_dc_get &g = *gp;
	if (int err = dc_get_error(&d->ents, &g))
		return err;
	const Tree *t = d->root_of(g.entity);
	if (!t)
		return DOD_ENOKEY;
	auto it = t->m.find(g.key);
	if (it == t->m.end())
		return DOD_ENOKEY;
	const Val &v = it->second;
	if (v.type != g.type)
		return DOD_ETYPE;
	out->type = g.type;
	out->n = dc_has_payload(g.type) ? v.blob->n : 0;
	if (dc_has_payload(g.type))
		out->s = data(v.blob);
	else if (g.type == DOD_DC_BOOL)
		out->b = v.b;
	else
		out->f = v.f;
	return DOD_OK;
}

/* ---- dod_ops.check ---- */

/* One entity's tree: non-empty, keys non-zero, types valid, payload blocks present. */
int Hashed::check(const Tree &t, size_t slot, char *why, size_t len)
{
	if (t.m.empty())
		return dod_check_fail(why, len, "slot %zu: an empty tree", slot);
	for (const auto &[k, v] : t.m)
		if (!k || !dc_type_ok(v.type) || (dc_has_payload(v.type) && !v.blob))
			return dod_check_fail(why, len, "slot %zu: key %#x, type %u", slot, k,
			                      (unsigned)v.type);
	return DOD_OK;
}

} // namespace

extern "C" constinit const struct dod_ops DOD_OPS_SYMBOL = dc_cxx_ops<Hashed>;
