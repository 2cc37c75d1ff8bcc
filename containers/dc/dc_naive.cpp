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

#include "dc/dc_cxx_glue.hpp"

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

/* The design (dc/dc_cxx_glue.hpp holds the rest): a tree of std::map per entity. */
struct Naive {
	static constexpr char source[] =
		"Niklas Gray, \"Allocation Adventures\" (Bitsquid, 2015), the DataComponent's "
		"naive start: a tree of std::map<std::string, value>";
	/* set_n's and copy_n's scratch, kept between calls. */
	struct Scratch : dc_cxx_scratch<Object> {
		std::vector<std::pair<Value *, bool>> leaves; /* per set: its node, assigned in place */
		std::vector<Value> fresh;                      /* per set: the value to move in */
		std::vector<std::pair<Object *, Object::iterator>> made; /* nodes this call made */
		size_t bytes() const
		{
			return leaves.capacity() * sizeof leaves[0] + fresh.capacity() * sizeof(Value) +
			       made.capacity() * sizeof made[0];
		}
	};
	DC_CXX_DESIGN_OPS(Object);
};
using Scratch = Naive::Scratch;
using Dcn = dc_cxx<Naive>;

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

Value clone_value(const Value &v)
{
	Value c;
	c.type = v.type;
	c.b = v.b;
	c.f = v.f;
	c.s = v.s;
	c.a = v.a;
	if (v.obj)
		c.obj = Naive::clone(*v.obj);
	return c;
}
std::unique_ptr<Object> Naive::clone(const Object &o)
{
	auto c = std::make_unique<Object>();
	for (const auto &[k, v] : o)
		c->emplace(k, clone_value(v));
	return c;
}

/* libstdc++'s red-black node header (colour, parent, left, right). */
constexpr size_t NODE_HEADER = 32;
constexpr size_t SSO = 15;

/* o's heap bytes, blocks and values added to *m. */
void Naive::mem(const Object &o, dod_dc_mem *m)
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
			mem(*v.obj, m);
		else
			m->values++;
	}
}

/* ---- set_n ---- */

/* The node of set s's path (made where missing, recorded in x), or nullptr when the path
 * runs through a value or ends at an object. Throws bad_alloc (what it made is in x). */
Value *make_path(Dcn *d, const dod_dc_set &s, Scratch &x)
{
	Object *&root = d->root_of(s.entity);
	if (!root) {
		root = new Object;
		x.roots.push_back(dc_index(s.entity)); /* reserved: does not throw */
	}
	Object *o = root;
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
	d->undo_roots();
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

int Naive::set_n(void *c, const dod_dc_set *sets, size_t n)
{
	Dcn *d = Dcn::of(c);
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

/* ---- get_n, get_sum_n (dc_cxx_gets) ---- */

int Naive::get_one(const void *c, const dod_dc_get *gp, dod_dc_value *out)
{
	const Dcn *d = Dcn::of(c);
	const dod_dc_get &g = *gp;
	int err = dc_get_error(&d->ents, &g);
	if (err || !depth_ok(g.path))
		return err ? err : DOD_EINVAL;
	const Value *v = find_value(d->root_of(g.entity), g.path);
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

/* ---- dod_ops.check ---- */

int Naive::check(const Object &o, size_t slot, char *why, size_t len)
{
	if (o.empty())
		return dod_check_fail(why, len, "slot %zu: an empty object", slot);
	for (const auto &[k, v] : o) {
		bool is_obj = v.type == OBJECT;
		if (v.rebuilt || (!is_obj && !dc_type_ok(v.type)) || is_obj != (v.obj != nullptr))
			return dod_check_fail(why, len, "slot %zu: member \"%s\": type %u, obj %d, mark %d",
			                      slot, k.c_str(), v.type, v.obj != nullptr, v.rebuilt);
		if (is_obj)
			if (int err = check(*v.obj, slot, why, len))
				return err;
	}
	return DOD_OK;
}

} // namespace

extern "C" constinit const struct dod_ops DOD_OPS_SYMBOL = dc_cxx_ops<Naive>;
