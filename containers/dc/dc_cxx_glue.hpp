/* dc_cxx_glue.hpp - what the C++ DataComponent designs (dc_naive.cpp, dc_hashed_map.cpp;
 * containers/dc_contract.h is the family's contract) share: the container around the
 * entity table (dc/dc_entities.h), the core operations that free an entity's values, the
 * memory account, copy_n, the check's walk and both ops tables. A design writes only how
 * one entity's values are held, set, read, copied, counted and checked.
 *
 *   entity table (dc/dc_entities.h): slot -> D::Root * (nullptr: no values)
 *   dc_cxx<D> = { struct dc_ents ents; D::Scratch *x }     x: kept between calls
 *
 * A design is a struct D with
 *   static constexpr char source[]  the ops table's source
 *   struct Scratch                  set_n's and copy_n's scratch: a dc_cxx_scratch<Root>
 *                                   and size_t bytes() const, its own vectors' heap bytes
 *   DC_CXX_DESIGN_OPS(R);           Root = R, one entity's values (`delete` frees every
 *                                   one of them), and the functions the macro declares,
 *                                   which the design defines
 * and ends with
 *     extern "C" constinit const struct dod_ops DOD_OPS_SYMBOL = dc_cxx_ops<D>;
 * Exceptions never cross into C (peers/cxx_glue.hpp: bad_alloc is DOD_ENOMEM). Compiled as
 * part of a variant (the Makefile's -include of the variant header gives DOD_DESCRIPTOR).
 */
#ifndef DOD_DC_CXX_GLUE_HPP
#define DOD_DC_CXX_GLUE_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "peers/cxx_glue.hpp"

extern "C" {
#include "contract.h"
#include "dc/dc_entities.h"
}

/* D::Root, and the functions a design D declares in its struct and defines:
 *   clone    a copy of one entity's values; throws bad_alloc (nothing leaked)
 *   mem      adds one entity's heap bytes, blocks and values to *m (dod_dc_mem)
 *   check    one entity's invariants (slot: for the reason), as dod_ops.check
 *   set_n    dod_dc_ops.set_n
 *   get_one  one get of get_n / get_sum_n (DC_GET_LOOPS' get_one) */
#define DC_CXX_DESIGN_OPS(R)                                                              \
	using Root = R;                                                                      \
	static std::unique_ptr<Root> clone(const Root &r);                                   \
	static void mem(const Root &r, dod_dc_mem *m);                                       \
	static int check(const Root &r, size_t slot, char *why, size_t len);                 \
	static int set_n(void *c, const dod_dc_set *sets, size_t n);                         \
	static int get_one(const void *c, const dod_dc_get *g, dod_dc_value *out)

/* The part of a design's scratch (kept between calls) the glue uses. */
template <class Root>
struct dc_cxx_scratch {
	std::vector<size_t> roots;                 /* slots whose root this set_n made */
	std::vector<std::unique_ptr<Root>> copies; /* copy_n's copies */
	size_t shared_bytes() const
	{
		return roots.capacity() * sizeof(size_t) + copies.capacity() * sizeof copies[0];
	}
};

/* The container of design D: the entity table first (the core operations of
 * dc_entities.h take the container), each component one D::Root pointer. */
template <class D>
struct dc_cxx {
	using Root = typename D::Root;
	struct dc_ents ents;
	typename D::Scratch *x;

	static dc_cxx *of(void *c) { return static_cast<dc_cxx *>(c); }
	static const dc_cxx *of(const void *c) { return static_cast<const dc_cxx *>(c); }
	/* The root of slot i / of a live handle h (nullptr: no values). */
	Root *&root(size_t i) const { return *static_cast<Root **>(dc_comp_at(&ents, i)); }
	Root *&root_of(uint64_t h) const { return root(dc_index(h)); }
	bool live(size_t i) const { return dc_slot_at(&ents, i)->next == DC_LIVE; }
	/* The end of a failed set_n's undo: the roots it made (x->roots) deleted again. */
	void undo_roots() noexcept
	{
		for (size_t i : x->roots) {
			delete root(i);
			root(i) = nullptr;
		}
	}
};

/* dod_ops.create: an empty table with capacity_elems slots and an empty scratch.
 * Returns 0, DOD_EINVAL (capacity_elems > DC_MAX_SLOTS) or DOD_ENOMEM. */
template <class D>
int dc_cxx_create(void **out, size_t capacity_elems)
{
	return dod_cxx_nothrow([&]() -> int {
		auto d = std::make_unique<dc_cxx<D>>();
		auto x = std::make_unique<typename D::Scratch>();
		int err = dc_ents_init(&d->ents, sizeof(typename D::Root *), capacity_elems);
		if (err) {
			dc_ents_free(&d->ents);
			return err;
		}
		d->x = x.release();
		*out = d.release();
		return DOD_OK;
	});
}

template <class D>
void dc_cxx_destroy(void *c)
{
	dc_cxx<D> *d = dc_cxx<D>::of(c);
	if (!d)
		return;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (d->live(i))
			delete d->root(i);
	dc_ents_free(&d->ents);
	delete d->x;
	delete d;
}

/* dod_ops.erase_n: all or nothing (dc_ents_mark), then each entity's values freed. */
template <class D>
int dc_cxx_erase_n(void *c, const uint64_t *hs, size_t n)
{
	dc_cxx<D> *d = dc_cxx<D>::of(c);
	int err = dc_ents_mark(&d->ents, hs, n);
	for (size_t k = 0; !err && k < n; k++) {
		delete d->root_of(hs[k]);
		d->root_of(hs[k]) = nullptr;
		dc_ents_release(&d->ents, dc_index(hs[k]));
	}
	return err;
}

/* Every entity erased (old handles stay detectable: their generations move on). */
template <class D>
int dc_cxx_clear(void *c)
{
	dc_cxx<D> *d = dc_cxx<D>::of(c);
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (d->live(i)) {
			delete d->root(i);
			d->root(i) = nullptr;
			dc_ents_release(&d->ents, i);
		}
	return DOD_OK;
}

/* dod_dc_ops.mem: the live entities, and D::mem of every root. */
template <class D>
void dc_cxx_mem(const void *c, dod_dc_mem *out)
{
	const dc_cxx<D> *d = dc_cxx<D>::of(c);
	*out = dod_dc_mem{};
	out->entities = d->ents.live;
	for (size_t i = 0; i < d->ents.n_slots; i++)
		if (d->live(i) && d->root(i))
			D::mem(*d->root(i), out);
}

/* dod_ops.footprint_bytes: the container, its table, its values, its scratch. */
template <class D>
size_t dc_cxx_footprint(const void *c)
{
	const dc_cxx<D> *d = dc_cxx<D>::of(c);
	dod_dc_mem m;
	dc_cxx_mem<D>(c, &m);
	return sizeof *d + sizeof *d->x + dc_ents_bytes(&d->ents) + m.data_bytes + d->x->bytes() +
	       d->x->shared_bytes();
}

/* dod_dc_ops.copy_n: every root is copied (D::clone) before a slot is taken, so a
 * bad_alloc (DOD_ENOMEM) leaves the container as it was and frees the copies made. */
template <class D>
int dc_cxx_copy_n(void *c, const uint64_t *src, size_t n, uint64_t first_key,
                  uint64_t *handles_out)
{
	dc_cxx<D> *d = dc_cxx<D>::of(c);
	if (int err = dc_copy_check(&d->ents, src, n))
		return err;
	auto &copies = d->x->copies;
	copies.clear();
	int err = dod_cxx_nothrow([&]() -> int {
		copies.reserve(n);
		for (size_t k = 0; k < n; k++) {
			const typename D::Root *r = d->root_of(src[k]);
			copies.push_back(r ? D::clone(*r) : nullptr);
		}
		for (size_t k = 0; k < n; k++) {
			handles_out[k] = dc_ents_take(&d->ents, first_key + k);
			d->root_of(handles_out[k]) = copies[k].release();
		}
		return DOD_OK;
	});
	copies.clear(); /* after a bad_alloc: the copies made so far are freed */
	return err;
}

/* dod_ops.check: the entity table's invariants, then D::check of every root. */
template <class D>
int dc_cxx_check(const void *c, char *why, size_t len)
{
	const dc_cxx<D> *d = dc_cxx<D>::of(c);
	int err = dc_ents_check(&d->ents, why, len);
	for (size_t i = 0; !err && i < d->ents.n_slots; i++)
		if (d->live(i) && d->root(i))
			err = D::check(*d->root(i), i, why, len);
	return err;
}

/* get_sum_n and get_n of D: DC_GET_LOOPS over D::get_one. */
template <class D>
struct dc_cxx_gets {
	static int get_one(const void *c, const dod_dc_get *g, dod_dc_value *out)
	{
		return D::get_one(c, g, out);
	}
	DC_GET_LOOPS(get_sum_n, get_n, get_one)
};

template <class D>
inline constexpr struct dod_dc_ops dc_cxx_dc_ops = {
	.version = DOD_DC_OPS_VERSION,
	.set_n = D::set_n,
	.get_sum_n = dc_cxx_gets<D>::get_sum_n,
	.get_n = dc_cxx_gets<D>::get_n,
	.copy_n = dc_cxx_copy_n<D>,
	.mem = dc_cxx_mem<D>,
};

/* The ops table of design D (the variant being compiled); the members it does not name
 * are null (peers/cxx_glue.hpp). */
template <class D>
inline constexpr struct dod_ops dc_cxx_ops = {
	DOD_DESCRIPTOR,
	.source = D::source,
	.max_elems = DC_MAX_SLOTS,
	.create = dc_cxx_create<D>,
	.destroy = dc_cxx_destroy<D>,
	.insert_n = dc_insert_n,
	.iterate_sum = dc_iterate_sum,
	.lookup_sum = dc_lookup_sum,
	.erase_n = dc_cxx_erase_n<D>,
	.count_valid = dc_count_valid,
	.clear = dc_cxx_clear<D>,
	.dump_keys = dc_dump_keys,
	.size = dc_size,
	.footprint_bytes = dc_cxx_footprint<D>,
	.check = dc_cxx_check<D>,
	.dc = &dc_cxx_dc_ops<D>,
};

#endif
