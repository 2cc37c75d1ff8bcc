/* dc_naive.cpp - the DataComponent's starting point (Niklas Gray, Bitsquid, "Allocation
 * Adventures", the DataComponent: "the naive approach", a tree of std::map<std::string,
 * value> with std::string and std::vector values, many allocations): the variant
 * dc_naive (containers/dc_contract.h is the family's contract).
 *
 *   entity table (dc/dc_entities.h): slot -> Object *root (nullptr: no values)
 *   Object = std::map<std::string, Value>           one node per member, one heap string
 *   Value  = {type, bool, float, std::string,        per key past 15 bytes (SSO), one
 *             std::vector<float>, unique_ptr<Object>} block per string / array / object
 *   "stats.health" -> root["stats"].obj["health"]
 *
 * Keys are walked by the path's parts (dod_dc_path, split untimed like everyone else's
 * hash): std::map's transparent comparator (std::less<>) finds a part by string_view,
 * so a get allocates nothing and costs what the design costs: one string compare per map
 * level visited, log(members) levels per part. The `key` of a request is checked (0 is
 * DOD_EINVAL) and otherwise unused. A path through a value, or to an object, is
 * DOD_EINVAL (set) or DOD_ETYPE (get), which the hashed designs cannot see (dc_contract.h).
 *
 * set_n is all or nothing: every node the batch needs is created first (placeholders,
 * recorded so a bad_alloc or a path conflict erases them again), a value that changes
 * type is built beside its node, a value of the same type gets its capacity reserved (so
 * a replacement reuses the string's and vector's storage, as naive code assigning in
 * place does); then the values are moved or assigned, which cannot throw. Exceptions
 * never cross into C (cxx_glue.hpp: bad_alloc is DOD_ENOMEM).
 * Invariants (check): the entity table's; in every tree, each value has a valid type, an
 * object is non-empty and has its map, no other value has one, no set_n mark is left.
 * Costs: get and set O(depth x log members x key length); set allocates a node per new
 * member and a block per string past 15 bytes, array and object; copy_n deep-copies the
 * tree (an allocation per node and block).
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "peers/cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dc/dc_entities.h"
}

namespace {

constexpr uint32_t OBJECT = 100; /* Value::type of an object (not a dod_dc_type) */

struct Value;
using Object = std::map<std::string, Value, std::less<>>;
struct Value {
	uint32_t type = 0;    /* dod_dc_type, OBJECT, or 0: a node set_n just made */
	bool rebuilt = false; /* set_n: a new Value replaces this one in this call */
	bool b = false;
	float f = 0;
	std::string s;
	std::vector<float> a;
	std::unique_ptr<Object> obj;
};

struct Comp {
	Object *root;
};
/* set_n's and copy_n's scratch, kept between calls. */
struct Scratch {
	std::vector<std::pair<Value *, bool>> leaves; /* per set: its node, assigned in place */
	std::vector<Value> fresh;                      /* per set: the value to move in */
	std::vector<std::pair<Object *, Object::iterator>> made; /* nodes this call made */
	std::vector<size_t> roots;                     /* slots whose root this call made */
	std::vector<std::unique_ptr<Object>> copies;
};
struct Dcn {
	struct dc_ents ents; /* first: the core operations take the container */
	Scratch *x;
};

Dcn *of(void *c) { return static_cast<Dcn *>(c); }
const Dcn *of(const void *c) { return static_cast<const Dcn *>(c); }
Comp *comp_of(const Dcn *d, uint64_t h) { return static_cast<Comp *>(dc_comp_at(&d->ents, dc_index(h))); }
std::string_view part(const dod_dc_path *p, uint32_t i) { return {p->part[i], p->part_len[i]}; }
bool depth_ok(const dod_dc_path *p) { return p->depth >= 1 && p->depth <= DOD_DC_MAX_DEPTH; }

/* The value at path p under root, or nullptr (no such member, or a value on the way). */
const Value *find_value(const Object *o, const dod_dc_path *p)
{
	for (uint32_t i = 0; o; i++) {
		auto it = o->find(part(p, i));
		if (it == o->end())
			return nullptr;
		if (i + 1 == p->depth)
			return &it->second;
		o = it->second.type == OBJECT ? it->second.obj.get() : nullptr;
	}
	return nullptr;
}

std::unique_ptr<Object> clone(const Object &o);
Value clone(const Value &v)
{
	Value c;
	c.type = v.type;
	c.b = v.b;
	c.f = v.f;
	c.s = v.s;
	c.a = v.a;
	if (v.obj)
		c.obj = clone(*v.obj);
	return c;
}
std::unique_ptr<Object> clone(const Object &o)
{
	auto c = std::make_unique<Object>();
	for (const auto &[k, v] : o)
		c->emplace(k, clone(v));
	return c;
}

int create(void **out, size_t capacity_elems)
{
	return dod_cxx_nothrow([&]() -> int {
		auto d = std::make_unique<Dcn>();
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
	Dcn *d = of(c);
	if (!d)
		return;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE)
			delete static_cast<Comp *>(dc_comp_at(&d->ents, i))->root;
	dc_ents_free(&d->ents);
	delete d->x;
	delete d;
}

int erase_n(void *c, const uint64_t *hs, size_t n)
{
	Dcn *d = of(c);
	int err = dc_ents_mark(&d->ents, hs, n);
	for (size_t k = 0; !err && k < n; k++) {
		delete comp_of(d, hs[k])->root;
		dc_ents_release(&d->ents, dc_index(hs[k]));
	}
	return err;
}

int clear(void *c)
{
	Dcn *d = of(c);
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE) {
			delete static_cast<Comp *>(dc_comp_at(&d->ents, i))->root;
			dc_ents_release(&d->ents, i);
		}
	return DOD_OK;
}

/* libstdc++'s red-black node header (colour, parent, left, right). */
constexpr size_t NODE_HEADER = 32;
constexpr size_t SSO = 15;

/* o's heap bytes and blocks, its values added to *values. */
void tree_mem(const Object &o, dod_dc_mem *m)
{
	m->data_bytes += sizeof(Object);
	m->blocks++;
	for (const auto &[k, v] : o) {
		m->data_bytes += NODE_HEADER + sizeof(Object::value_type);
		m->blocks++;
		if (k.capacity() > SSO)
			m->data_bytes += k.capacity() + 1, m->blocks++;
		if (v.s.capacity() > SSO)
			m->data_bytes += v.s.capacity() + 1, m->blocks++;
		if (v.a.capacity())
			m->data_bytes += v.a.capacity() * sizeof(float), m->blocks++;
		if (v.obj)
			tree_mem(*v.obj, m);
		else
			m->values++;
	}
}

void mem(const void *c, dod_dc_mem *out)
{
	const Dcn *d = of(c);
	*out = dod_dc_mem{};
	out->entities = d->ents.live;
	for (size_t i = 0; i < d->ents.n_slots; i++) {
		const Object *root = static_cast<const Comp *>(dc_comp_at(&d->ents, i))->root;
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE && root)
			tree_mem(*root, out);
	}
}

size_t footprint(const void *c)
{
	const Dcn *d = of(c);
	dod_dc_mem m;
	mem(c, &m);
	const Scratch &x = *d->x;
	return sizeof *d + sizeof x + dc_ents_bytes(&d->ents) + m.data_bytes +
	       x.leaves.capacity() * sizeof x.leaves[0] + x.fresh.capacity() * sizeof(Value) +
	       x.made.capacity() * sizeof x.made[0] + x.roots.capacity() * sizeof(size_t) +
	       x.copies.capacity() * sizeof x.copies[0];
}

/* ---- set_n ---- */

/* The node of set s's path (made where missing, recorded in x), or nullptr when the path
 * runs through a value or ends at an object. Throws bad_alloc (what it made is in x). */
Value *make_path(Dcn *d, const dod_dc_set &s, Scratch &x)
{
	Comp *p = comp_of(d, s.entity);
	if (!p->root) {
		p->root = new Object;
		x.roots.push_back(dc_index(s.entity)); /* reserved: does not throw */
	}
	Object *o = p->root;
	for (uint32_t i = 0;; i++) {
		bool last = i + 1 == s.path->depth;
		auto it = o->find(part(s.path, i));
		if (it == o->end()) {
			it = o->emplace(std::string(part(s.path, i)), Value{}).first;
			x.made.emplace_back(o, it);
			if (!last) {
				it->second.obj = std::make_unique<Object>();
				it->second.type = OBJECT;
			}
		} else if (last ? it->second.type == OBJECT : it->second.type != OBJECT) {
			return nullptr;
		}
		if (last)
			return &it->second;
		o = it->second.obj.get();
	}
}

/* What a failed set_n made is removed again, its marks cleared. */
void undo(Dcn *d, Scratch &x) noexcept
{
	for (auto &l : x.leaves)
		l.first->rebuilt = false;
	while (!x.made.empty()) {
		x.made.back().first->erase(x.made.back().second);
		x.made.pop_back();
	}
	for (size_t slot : x.roots) {
		Comp *p = static_cast<Comp *>(dc_comp_at(&d->ents, slot));
		delete p->root;
		p->root = nullptr;
	}
}

/* The node and the value of set s: assigned in place (same type, storage reserved) or
 * built beside it. Throws bad_alloc. */
void prepare(Value *leaf, const dod_dc_set &s, Scratch &x)
{
	const dod_dc_value &v = s.value;
	bool in_place = !leaf->rebuilt && leaf->type == v.type;
	x.leaves.emplace_back(leaf, in_place);
	x.fresh.emplace_back();
	if (in_place) {
		if (v.type == DOD_DC_STRING)
			leaf->s.reserve(v.n);
		else if (v.type == DOD_DC_FLOATS)
			leaf->a.reserve(v.n);
		return;
	}
	leaf->rebuilt = true;
	Value &n = x.fresh.back();
	n.type = v.type;
	if (v.type == DOD_DC_STRING)
		n.s.assign(v.s, v.n);
	else if (v.type == DOD_DC_FLOATS)
		n.a.assign(v.a, v.a + v.n);
	n.b = v.type == DOD_DC_BOOL && v.b;
	n.f = v.type == DOD_DC_FLOAT ? v.f : 0;
}

/* Writes the prepared values in order (nothing allocates: storage was reserved). */
void apply(const dod_dc_set *sets, size_t n, Scratch &x) noexcept
{
	for (size_t k = 0; k < n; k++) {
		Value *leaf = x.leaves[k].first;
		const dod_dc_value &v = sets[k].value;
		if (!x.leaves[k].second) {
			*leaf = std::move(x.fresh[k]);
		} else if (v.type == DOD_DC_STRING) {
			leaf->s.assign(v.s, v.n);
		} else if (v.type == DOD_DC_FLOATS) {
			leaf->a.assign(v.a, v.a + v.n);
		} else {
			leaf->b = v.type == DOD_DC_BOOL && v.b;
			leaf->f = v.type == DOD_DC_FLOAT ? v.f : 0;
		}
	}
}

int set_n(void *c, const dod_dc_set *sets, size_t n)
{
	Dcn *d = of(c);
	for (size_t k = 0; k < n; k++) {
		int err = dc_set_error(&d->ents, &sets[k]);
		if (err || !depth_ok(sets[k].path))
			return err ? err : DOD_EINVAL;
	}
	Scratch &x = *d->x;
	x.leaves.clear();
	x.fresh.clear();
	x.made.clear();
	x.roots.clear();
	return dod_cxx_nothrow([&]() -> int {
		x.leaves.reserve(n);
		x.fresh.reserve(n);
		x.made.reserve(n * DOD_DC_MAX_DEPTH);
		x.roots.reserve(n);
		try {
			for (size_t k = 0; k < n; k++) {
				Value *leaf = make_path(d, sets[k], x);
				if (!leaf) {
					undo(d, x);
					return DOD_EINVAL;
				}
				prepare(leaf, sets[k], x);
			}
		} catch (...) {
			undo(d, x);
			throw;
		}
		apply(sets, n, x);
		x.fresh.clear(); /* the moved-from values; keeps the capacity */
		return DOD_OK;
	});
}

/* ---- get_n, get_sum_n, copy_n ---- */

int get_one(const void *c, const dod_dc_get *gp, dod_dc_value *out)
{
	const Dcn *d = of(c);
	const dod_dc_get &g = *gp;
	int err = dc_get_error(&d->ents, &g);
	if (err || !depth_ok(g.path))
		return err ? err : DOD_EINVAL;
	const Value *v = find_value(comp_of(d, g.entity)->root, g.path);
	if (!v)
		return DOD_ENOKEY;
	if (v->type != g.type)
		return DOD_ETYPE;
	out->type = g.type;
	out->n = 0;
	if (g.type == DOD_DC_STRING) {
		out->n = (uint32_t)v->s.size();
		out->s = v->s.data();
	} else if (g.type == DOD_DC_FLOATS) {
		out->n = (uint32_t)v->a.size();
		out->a = v->a.data();
	} else if (g.type == DOD_DC_BOOL) {
		out->b = v->b;
	} else {
		out->f = v->f;
	}
	return DOD_OK;
}

DC_GET_LOOPS(get_sum_n, get_n, get_one)

/* Every tree is deep-copied before a slot is taken. */
int copy_n(void *c, const uint64_t *src, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	Dcn *d = of(c);
	if (int err = dc_copy_check(&d->ents, src, n))
		return err;
	Scratch &x = *d->x;
	x.copies.clear();
	return dod_cxx_nothrow([&]() -> int {
		x.copies.reserve(n);
		for (size_t k = 0; k < n; k++) {
			const Object *root = comp_of(d, src[k])->root;
			x.copies.push_back(root ? clone(*root) : nullptr);
		}
		for (size_t k = 0; k < n; k++) {
			handles_out[k] = dc_ents_take(&d->ents, first_key + k);
			comp_of(d, handles_out[k])->root = x.copies[k].release();
		}
		x.copies.clear();
		return DOD_OK;
	});
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

int check_tree(const Object &o, size_t slot, char *why, size_t len)
{
	if (o.empty())
		return dod_check_fail(why, len, "slot %zu: an empty object", slot);
	for (const auto &[k, v] : o) {
		bool is_obj = v.type == OBJECT;
		if (v.rebuilt || (!is_obj && !dc_type_ok(v.type)) || is_obj != (v.obj != nullptr))
			return dod_check_fail(why, len, "slot %zu: member \"%s\": type %u, obj %d, mark %d",
			                      slot, k.c_str(), v.type, v.obj != nullptr, v.rebuilt);
		if (is_obj)
			if (int err = check_tree(*v.obj, slot, why, len))
				return err;
	}
	return DOD_OK;
}

int check(const void *c, char *why, size_t len)
{
	const Dcn *d = of(c);
	int err = dc_ents_check(&d->ents, why, len);
	for (size_t i = 0; !err && i < d->ents.n_slots; i++) {
		const Object *root = static_cast<const Comp *>(dc_comp_at(&d->ents, i))->root;
		if (dc_slot_at(&d->ents, i)->next == DC_LIVE && root)
			err = check_tree(*root, i, why, len);
	}
	return err;
}

} // namespace

extern "C" const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent's "
	          "naive start: a tree of std::map<std::string, value>",
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
