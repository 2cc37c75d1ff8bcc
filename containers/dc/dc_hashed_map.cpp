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

#include "peers/cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dc/dc_entities.h"
}

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

struct Comp {
	Tree *t;
};
/* set_n's and copy_n's scratch, kept between calls. */
struct Scratch {
	std::vector<Val *> leaves;                       /* per set: its node */
	std::vector<Blob *> blobs;                       /* per payload set: its new block */
	std::vector<std::pair<Tree *, Node>> made;       /* nodes this call made */
	std::vector<size_t> roots;                       /* slots whose tree this call made */
	std::vector<std::unique_ptr<Tree>> copies;
};
struct Dcm {
	struct dc_ents ents; /* first: the core operations take the container */
	Scratch *x;
};

Dcm *of(void *c) { return static_cast<Dcm *>(c); }
const Dcm *of(const void *c) { return static_cast<const Dcm *>(c); }
Comp *comp_of(const Dcm *d, uint64_t h) { return static_cast<Comp *>(dc_comp_at(&d->ents, dc_index(h))); }
Tree *tree_at(const Dcm *d, size_t slot) { return static_cast<Comp *>(dc_comp_at(&d->ents, slot))->t; }
bool live(const Dcm *d, size_t slot) { return dc_slot_at(&d->ents, slot)->next == DC_LIVE; }

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
std::unique_ptr<Tree> clone(const Tree &t)
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

int create(void **out, size_t capacity_elems)
{
	return dod_cxx_nothrow([&]() -> int {
		auto d = std::make_unique<Dcm>();
		auto x = std::make_unique<Scratch>();
		int err = dc_ents_init(&d->ents, sizeof(Comp), capacity_elems);
		if (err) {
			dc_ents_free(&d->ents);
			return err;
		}
		d->x = x.release();
		*out = d.release();
		return DOD_OK;
	});
}

void destroy(void *c)
{
	Dcm *d = of(c);
	if (!d)
		return;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (live(d, i))
			delete tree_at(d, i);
	dc_ents_free(&d->ents);
	delete d->x;
	delete d;
}

int erase_n(void *c, const uint64_t *hs, size_t n)
{
	Dcm *d = of(c);
	int err = dc_ents_mark(&d->ents, hs, n);
	for (size_t k = 0; !err && k < n; k++) {
		delete comp_of(d, hs[k])->t;
		comp_of(d, hs[k])->t = nullptr;
		dc_ents_release(&d->ents, dc_index(hs[k]));
	}
	return err;
}

/* Every entity erased (old handles stay detectable: their generations move on). */
int clear(void *c)
{
	Dcm *d = of(c);
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (live(d, i)) {
			delete tree_at(d, i);
			static_cast<Comp *>(dc_comp_at(&d->ents, i))->t = nullptr;
			dc_ents_release(&d->ents, i);
		}
	return DOD_OK;
}

/* libstdc++'s red-black node header (colour, parent, left, right). */
constexpr size_t NODE_HEADER = 32;

/* The components' heap bytes and blocks (dod_dc_mem): a tree, its nodes, its blocks. */
void mem(const void *c, dod_dc_mem *out)
{
	const Dcm *d = of(c);
	*out = dod_dc_mem{};
	out->entities = d->ents.live;
	for (size_t i = 0; i < d->ents.n_slots; i++) {
		const Tree *t = tree_at(d, i);
		if (!live(d, i) || !t)
			continue;
		out->data_bytes += sizeof(Tree);
		out->blocks++;
		for (const auto &[k, v] : t->m) {
			out->values++;
			out->data_bytes += NODE_HEADER + sizeof(std::pair<const uint32_t, Val>);
			out->blocks++;
			if (dc_has_payload(v.type)) {
				dod_dc_value p{};
				p.type = v.type;
				p.n = v.blob->n;
				out->data_bytes += sizeof(Blob) + dc_payload_bytes(&p);
				out->blocks++;
			}
		}
	}
}

size_t footprint(const void *c)
{
	const Dcm *d = of(c);
	dod_dc_mem m;
	mem(c, &m);
	const Scratch &x = *d->x;
	return sizeof *d + sizeof x + dc_ents_bytes(&d->ents) + m.data_bytes +
	       x.leaves.capacity() * sizeof(Val *) + x.blobs.capacity() * sizeof(Blob *) +
	       x.made.capacity() * sizeof x.made[0] + x.roots.capacity() * sizeof(size_t) +
	       x.copies.capacity() * sizeof x.copies[0];
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
	for (size_t slot : x.roots) {
		Comp *p = static_cast<Comp *>(dc_comp_at(&d->ents, slot));
		delete p->t;
		p->t = nullptr;
	}
}

/* The node of set s (made where missing, recorded in x) and its block, if any. Throws
 * bad_alloc (what it made is in x). */
void prepare(Dcm *d, const dod_dc_set &s, Scratch &x)
{
	Comp *p = comp_of(d, s.entity);
	if (!p->t) {
		p->t = new Tree;
		x.roots.push_back(dc_index(s.entity)); /* reserved: does not throw */
	}
	auto [it, made] = p->t->m.try_emplace(s.key);
	if (made)
		x.made.emplace_back(p->t, it); /* reserved */
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

int set_n(void *c, const dod_dc_set *sets, size_t n)
{
	Dcm *d = of(c);
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

/* ---- get_n, get_sum_n, copy_n ---- */

/* The value of get g, or its error: one std::map::find of the hashed key. */
inline int get_one(const void *c, const dod_dc_get *gp, dod_dc_value *out)
{
	const Dcm *d = of(c);
	const dod_dc_get &g = *gp;
	if (int err = dc_get_error(&d->ents, &g))
		return err;
	const Tree *t = comp_of(d, g.entity)->t;
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

DC_GET_LOOPS(get_sum_n, get_n, get_one)

/* Every tree is copied before a slot is taken. */
int copy_n(void *c, const uint64_t *src, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Dcm *d = of(c);
	if (int err = dc_copy_check(&d->ents, src, n))
		return err;
	Scratch &x = *d->x;
	x.copies.clear();
	int err = dod_cxx_nothrow([&]() -> int {
		x.copies.reserve(n);
		for (size_t k = 0; k < n; k++) {
			const Tree *t = comp_of(d, src[k])->t;
			x.copies.push_back(t ? clone(*t) : nullptr);
		}
		for (size_t k = 0; k < n; k++) {
			handles_out[k] = dc_ents_take(&d->ents, first_key + k);
			comp_of(d, handles_out[k])->t = x.copies[k].release();
		}
		return DOD_OK;
	});
	x.copies.clear(); /* after a bad_alloc: the copies made so far are freed */
	return err;
}

const struct dod_dc_ops dc_ops = {
	.version = DOD_DC_OPS_VERSION,
	.set_n = set_n,
	.get_sum_n = get_sum_n,
	.get_n = get_n,
	.copy_n = copy_n,
	.mem = mem,
};

/* ---- dod_ops.check ---- */

int check(const void *c, char *why, size_t len)
{
	const Dcm *d = of(c);
	int err = dc_ents_check(&d->ents, why, len);
	for (size_t i = 0; !err && i < d->ents.n_slots; i++) {
		const Tree *t = tree_at(d, i);
		if (!live(d, i) || !t)
			continue;
		if (t->m.empty())
			return dod_check_fail(why, len, "slot %zu: an empty tree", i);
		for (const auto &[k, v] : t->m)
			if (!k || !dc_type_ok(v.type) || (dc_has_payload(v.type) && !v.blob))
				return dod_check_fail(why, len, "slot %zu: key %#x, type %u", i, k,
				                      (unsigned)v.type);
	}
	return err;
}

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent: "
	          "the map its linear search is compared with, std::map keyed by the hashed key",
	.max_elems = DC_MAX_SLOTS,
	.create = create,
	.destroy = destroy,
	.insert_n = dc_insert_n,
	.iterate_sum = dc_iterate_sum,
	.lookup_sum = dc_lookup_sum,
	.erase_n = erase_n,
	.count_valid = dc_count_valid,
	.clear = clear,
	.dump_keys = dc_dump_keys,
	.size = dc_size,
	.footprint_bytes = footprint,
	.check = check,
	.dc = &dc_ops,
};
