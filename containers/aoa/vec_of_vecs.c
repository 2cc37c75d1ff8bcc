/* vec_of_vecs.c - aoa_vec_of_vecs and aoa_vec_add16: one malloc'd growable array of tags
 * per entity, the article's starting point (Niklas Gray, "Allocation Adventures 2: Arrays
 * of Arrays", Bitsquid 2015: vector<vector<unsigned>>, "one allocation per entity that has
 * tags"), in C. The variant's alloc column picks the growth:
 * - malloc_each (aoa_vec_of_vecs): realloc, x2 growth from 1 (as libstdc++'s vector), so
 *   peer_std_vector_vector differs from it only by std::vector's new-copy-delete growth
 *   and 24-byte header;
 * - malloc_add16 (aoa_vec_add16): +16 tags a growth (16, 32, 48, ...), each a new block,
 *   a memcpy of the whole list and the old block freed (dod_buffer_grow with copy 1), as
 *   the article's vector grows: claim D7, "growing by a constant (+16) makes appends
 *   O(n)". Not realloc: glibc's realloc grows a block in place when the chunk after it is
 *   free (and by mremap past its mmap threshold), which would hide the copy the claim is
 *   about (the Bulk data lesson: bulk_holes_constgrow against bulk_holes_constgrow_copy,
 *   rule A13). A list of L tags costs L / 16 allocations and 16 (1 + 2 + ... + L/16 - 1)
 *   ~ L^2 / 32 tags copied: O(L) per append amortized where x2's realloc is O(1) (at most
 *   ~L tags copied in all, whether or not realloc moves). No design should pick it.
 *
 *   hdr   [ nil | {a, n, cap} | {a, n, cap} | ... ]   16 B a header, parallel to the
 *                  |                                  entity slots (aoa/aoa_core.h)
 *                  v
 *         heap:  [ t0 t1 t2 . ]   one block an entity (cap x 4 B), wherever malloc put it
 *
 * Invariants: those of aoa/vec_hooks.h, the hooks it shares with aoa_buddy (n <= cap, a
 * == NULL iff cap == 0, a free slot's header {NULL, 0, 0}); aoa_vec_add16: cap a multiple
 * of 16. Costs: add O(1) amortized (x2; add16: O(n) amortized, above), a grow when n
 * reaches cap (x2: 1, 2, 4, ...: D1's one allocation per list, and more as it grows; a
 * failed grow leaves the array as it was); remove and has O(n) (the last tag moves into
 * the removed one's place; the array is kept, as std::vector keeps its capacity); the walk
 * loads one pointer an entity and jumps to its block. Memory: the blocks' capacity plus
 * malloc's own header per block (not seen here: unit_bytes counts capacity only); add16
 * holds up to 15 tags' room a list unused (60 B), where x2 holds up to half.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct aoa_store {
	size_t tags;        /* stored, over every entity */
	size_t array_bytes; /* the capacity of every array, in bytes */
};

#include "aoa/vec_hdr.h" /* the header {a, n, cap} */

#include "aoa/aoa_core.h"

#include "aoa/vec_hooks.h" /* the hooks vec_of_vecs and buddy_lists share */

#define VEC_MAX_CAP (UINT32_C(1) << 31) /* tags an entity can hold */

#if defined(DOD_ALLOC_malloc_each)
#define VEC_STEP 0 /* x2 */
#define VEC_COPY 0 /* realloc */
#define VEC_SOURCE "vector<vector<unsigned>>, one malloc'd array per entity, x2 growth"
#elif defined(DOD_ALLOC_malloc_add16)
#define VEC_STEP 16 /* +16 tags */
#define VEC_COPY 1  /* malloc, memcpy, free: the copy realloc could skip */
#define VEC_SOURCE "vector<vector<unsigned>>, one array per entity grown by +16 tags, " \
                   "each growth a copy (claim D7)"
#else
#error "vec_of_vecs.c: the variant's alloc column must be malloc_each or malloc_add16"
#endif

static int store_create(struct aoa *a, size_t capacity_entities)
{
	(void)capacity_entities;
	a->s = (struct aoa_store){0, 0};
	return DOD_OK;
}
static void hdr_release(struct aoa *a, uint32_t i)
{
	AOA_HDR *h = &a->hdr[i];
	a->s.tags -= h->n;
	a->s.array_bytes -= (size_t)h->cap * sizeof(uint32_t);
	free(h->a);
	hdr_init(a, i);
}
static void store_clear(struct aoa *a)
{
	for (uint32_t i = 1; i < a->n_slots; i++)
		hdr_release(a, i);
}
static void store_destroy(struct aoa *a) { store_clear(a); }

static int tag_add(struct aoa *a, uint32_t i, uint32_t tag)
{
	AOA_HDR *h = &a->hdr[i];
	if (h->n == h->cap) {
		if (h->cap == VEC_MAX_CAP)
			return DOD_EFULL;
		uint32_t cap = VEC_STEP ? h->cap + VEC_STEP : h->cap ? 2 * h->cap : 1;
		if (dod_buffer_grow((char **)&h->a, (size_t)h->cap * sizeof(uint32_t),
		                    (size_t)cap * sizeof(uint32_t), VEC_COPY))
			return DOD_ENOMEM;
		a->s.array_bytes += (size_t)(cap - h->cap) * sizeof(uint32_t);
		h->cap = cap;
	}
	h->a[h->n++] = tag;
	a->s.tags++;
	return 1;
}

static size_t store_bytes(const struct aoa *a) { return a->s.array_bytes; }

static int store_check(const struct aoa *a, char *why, size_t len)
{
	int err = vec_check_headers(a, why, len);
#if VEC_STEP
	for (uint32_t i = 1; !err && i < a->n_slots; i++)
		if (a->hdr[i].cap % VEC_STEP)
			err = dod_check_fail(why, len, "entity slot %u: cap %u, not a multiple of %u", i,
			                     a->hdr[i].cap, VEC_STEP);
#endif
	return err;
}

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, \"Allocation Adventures 2: Arrays of Arrays\" (Bitsquid, 2015): "
	          VEC_SOURCE,
	AOA_CORE_OPS,
};
