/* particles.c - the particle of Our Machinery's "Bulk data" (Niklas Gray, "Data Structures
 * for game programmers: Bulk Data", sections on layouts and removal) in the article's
 * five layouts, with holes and a free list or densely packed (swap-and-pop), and weak
 * pointers, and its three kernels:
 *   tick()      t += dt            touches 4 of each particle's 40 bytes
 *   simulate()  pos += vel * dt    reads 24 bytes, writes 12
 *   update()    t += dt; pos += vel * dt - w (w = dt unless the colour is black), in
 *               `steps` sub-steps    reads all 40 bytes (ten streams), writes 16
 *
 * A particle is ten floats, 40 bytes: t; pos[3]; vel[3]; col[3] (field order F_*). The
 * variant table's layout column picks the storage (this file adapts with #if):
 *   aos            struct particle p[cap]                      one allocation
 *   soa            float f[10][cap]: one array per scalar       ten allocations
 *   soa_staggered  soa with field f starting f x 448 B into its allocation, so the ten
 *                  streams use ten different cache sets (the article's SoA drawback:
 *                  page-aligned field arrays all map to the same sets)
 *   soa_pagealigned  soa with every field array starting on a page (sysconf's page
 *                  size): the ten streams' element i all fall in one cache set, the
 *                  drawback itself, which update (ten streams, more than an 8-way L1's
 *                  ways) exposes and tick and simulate (one and six) do not
 *   aosoa8         struct { float f[10][8]; }  g[cap / 8]       one allocation, 320 B groups
 *   aosoa16        struct { float f[10][16]; } g[cap / 16]      one allocation, 640 B groups
 *   aos_block_soa  AoS storage; each kernel converts a block of 16K particles into a
 *                  scratch SoA buffer (only the fields it uses), runs the SoA loop, and
 *                  writes the results back (the article's "alternative"); update runs
 *                  all its sub-steps on the converted block, so with steps > 1 the
 *                  conversion is paid once for several passes
 *
 * Removal (the variant table's removal column; this file adapts with #if):
 *   holes    an erased particle leaves a hole (zeroed) on the free list; nothing moves
 *   swappop  the particles stay dense in [0, live) (the article's "densely packed"): erase
 *            moves the last particle into the erased one's place and zeroes the vacated
 *            last place, so the kernels run over [0, live) rounded up to GROUP. In SoA that
 *            move is one float in each of the ten field arrays (ten cache lines touched),
 *            in AoS one 40-byte particle (one or two lines): the article's "erasing from
 *            dense SoA moves every field array". Weak pointers go through the slot table
 *            as in bulk/swappop.c: a live slot's `next` holds its dense index, and `ids`
 *            (uint32_t per dense index) names the slot, so the move updates both. Costs
 *            as holes; pointers are never stable (erase moves a particle).
 *
 * Holes and SIMD (the article's rule): the kernels run over every slot up to the
 * high-water mark rounded up to GROUP slots, holes included, without a branch. A hole
 * holds zeros (t grows by dt in a hole, harmlessly: no FP exception, no denormal, no
 * overflow), and the free-list link is a real field: it lives in the parallel `next`
 * array, never in particle memory, with the generation beside it in `gen`. The free
 * list is bulk/free_list.h's, the one holes.c and swappop.c use, with its header in
 * slot 0 (next[0] == 0: append a slot); slot 0's particle stays zero. Weak pointers are
 * bulk/weak.h's {id, generation}.
 *
 * The contract's key (containers/contract.h) rides in the colour: col = (bits 0..23,
 * bits 24..47, bits 48..63 of the key), each an integer below 2^24 and so exact in a float,
 * so these containers pass the same differential model test and scenarios as every
 * other container, and iterate_sum visits particle memory. Particle k starts as
 * dod_particle_pos0 / dod_particle_vel (dod_common.h) say, t = 0, so kernel results are
 * exact and the scenarios check them with ==.
 *
 * Vectorization (gcc 12, -O3 -march=native; build/rel/vectorization.tsv says, from gcc's
 * report, which kernel loops are vector loops): every kernel loop is a fixed GROUP-slot
 * (16) inner loop over a run (store_run) of a multiple of GROUP slots, a shape gcc
 * vectorizes even under -O2's "very cheap" cost model. soa, aosoa8, aosoa16 and the SoA
 * middle of aos_block_soa compile tick and simulate to packed vaddps / vmulps. aos is
 * what a compiler makes of AoS: at -O3 tick gathers t lane by lane (vinsertps), adds 16
 * lanes at once and scatters them back (vextractps), and simulate pairs x and y in
 * 2-lane vmulps / vaddps with z scalar (at -O2 both stayed scalar). The soa field arrays
 * are `restrict`, so no run-time alias check. tests/python checks that the packed
 * instructions are there, and in aos exactly when the table says so (objdump).
 *
 * Allocation: the strategy the variant table's alloc column names (containers/alloc/
 * store.h: DOD_ALLOC_<alloc> picks it), one store per array (aos and aosoa one for the
 * particles, soa one per field; gen; next), so a particle layout on another strategy is
 * one table line. The stores start every run on a cache line (DOD_STORE_ALIGNED; on a page
 * for soa_pagealigned), and so does the scratch block. update goes block by block (BLOCK
 * slots at most, all its sub-steps each), in every layout alike. New slots are zeroed; the kernels' range, cap, is the slots
 * every store holds rounded down to GROUP, and every store is reserved for a multiple of
 * GROUP. The kernels go run by run (store_run), as every loop over a store: the inner
 * loops are the same plain array loops whatever the strategy, since every strategy's
 * blocks hold whole groups. Costs: insert O(1) (amortized when the strategy grows),
 * erase O(1), lookup O(1), iterate and the kernels O(high-water mark).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/aligned.h"
/* Every run of every store starts on a cache line (alloc/aligned.h), so the kernels'
 * packed loads never straddle two lines, wherever malloc would have put an array; on a
 * page for soa_pagealigned, whose point is where its arrays start. */
#if defined(DOD_LAYOUT_soa_pagealigned)
#define DOD_STORE_ALIGNED dod_page_bytes()
#else
#define DOD_STORE_ALIGNED DOD_LINE_BYTES
#endif
#include "alloc/store.h"
#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"

#if ELEM_BYTES != 40
#error "particles.c is the 40-byte particle: list it with size 40 only"
#endif
#if defined(DOD_REMOVAL_holes)
#define DENSE 0
DOD_STORE_CHECK_STABLE_POINTERS(0); /* an erased particle leaves a hole: none moves */
#elif defined(DOD_REMOVAL_swappop)
#define DENSE 1
DOD_STORE_CHECK_STABLE_POINTERS(1); /* erase moves the last particle into the hole */
#else
#error "particles.c serves the removal strategies holes and swappop"
#endif

enum { F_T, F_PX, F_PY, F_PZ, F_VX, F_VY, F_VZ, F_CR, F_CG, F_CB, N_FIELDS };
#define GROUP 16            /* slots per kernel step; cap is a multiple */
#define BLOCK 16384         /* aos_block_soa: particles per converted block */
#define COL_BITS 24         /* key bits per colour channel: exact in a float's mantissa */
#define COL_MASK ((UINT64_C(1) << COL_BITS) - 1)

#if defined(DOD_LAYOUT_aos) || defined(DOD_LAYOUT_aos_block_soa)
#define L_AOS 1
struct SFX(particle) { float v[N_FIELDS]; };
#define PARTICLE struct SFX(particle)
#define P_EB sizeof(PARTICLE) /* bytes per store element */
#define P_PER 1               /* slots per store element */
#define N_PSTORES 1
#elif defined(DOD_LAYOUT_soa) || defined(DOD_LAYOUT_soa_staggered) || \
        defined(DOD_LAYOUT_soa_pagealigned)
#define L_SOA 1
/* Bytes before field f's first float in its own store: 0 for soa, whose large field
 * arrays come from mmap and so all start at the same offset in a page (the same cache
 * sets: the article's conflict warning); f x 448 (7 lines) for soa_staggered, which puts
 * the ten fields on ten different set indices of a 4 KiB way. (Under --prefault, which
 * turns glibc's mmap off, they come from the heap instead, at the offsets the sizes of
 * the allocations before them give.) */
#if defined(DOD_LAYOUT_soa_staggered)
#define STAGGER 448
#endif
#define P_EB sizeof(float)
#define P_PER 1
#define N_PSTORES N_FIELDS
#elif defined(DOD_LAYOUT_aosoa8) || defined(DOD_LAYOUT_aosoa16)
#define L_AOSOA 1
#if defined(DOD_LAYOUT_aosoa8)
#define W 8
#else
#define W 16
#endif
struct SFX(pgroup) { float f[N_FIELDS][W]; };
#define PGROUP struct SFX(pgroup)
#define P_EB sizeof(PGROUP)
#define P_PER W
#define N_PSTORES 1
#else
#error "particles.c serves the layouts aos, soa, soa_staggered, soa_pagealigned, aosoa8, aosoa16 and aos_block_soa"
#endif
#if defined(DOD_LAYOUT_aos_block_soa)
#define L_BLOCK 1
#endif
#ifndef STAGGER
#define STAGGER 0 /* every layout but soa_staggered */
#endif
/* A fixed-capacity line (the static strategy) holds create's capacity and no more, though
 * its stores hold whole GROUPs. */
#define FIXED ((DOD_VARIANT_CAPS & DOD_CAP_FIXED_CAPACITY) != 0)
/* Store elements before store k's slot 0: soa_staggered's lead (whole GROUPs of floats,
 * so runs stay multiples of GROUP). */
#define LEAD(k) ((size_t)(k) * (STAGGER / sizeof(float))) /* a multiple: a loop over the
                                                         * fields steps it by an add */

struct SFX(particles) {
	dod_store ps[N_PSTORES]; /* aos: PARTICLE per slot; soa: field k, a float per slot
	                          * after LEAD(k); aosoa: PGROUP per W slots */
#if L_BLOCK
	float *scratch;     /* N_FIELDS x BLOCK floats: the SoA copy of one block */
#endif
	dod_store gen;      /* uint32_t per slot: odd = live (bulk/weak.h) */
	dod_store next;     /* uint32_t per slot: the free-list link, a real field; swappop:
	                     * a live slot's dense index */
#if DENSE
	dod_store ids;      /* uint32_t per dense index: its particle's slot */
#endif
	size_t cap;         /* slots every store holds, zeroed unless live; a multiple of GROUP */
	size_t n_slots;     /* slots in use or on the free list, slot 0 included */
	size_t high;        /* slots ever handed out (their generations mean something) */
	size_t live;        /* swappop: the particles are dense indices [0, live) */
	size_t max_slots;   /* FIXED: create's capacity + slot 0 */
};
#define PS struct SFX(particles)

static inline float *fld(const PS *s, int f, size_t i)
{
#if L_AOS
	return &((PARTICLE *)store_at(&s->ps[0], i, P_EB))->v[f];
#elif L_SOA
	return (float *)store_at(&s->ps[f], LEAD(f) + i, P_EB);
#else
	return &((PGROUP *)store_at(&s->ps[0], i / W, P_EB))->f[f][i % W];
#endif
}
static inline uint32_t *gen(const PS *s, size_t i) { return (uint32_t *)store_at(&s->gen, i, 4); }
static inline uint32_t *next_at(const PS *s, size_t i)
{
	return (uint32_t *)store_at(&s->next, i, 4);
}
#if DENSE
static inline uint32_t *id_at(const PS *s, size_t d) { return (uint32_t *)store_at(&s->ids, d, 4); }
#endif

/* Accessors for bulk/free_list.h and bulk/weak.h. */
static uint32_t *gen_of(void *c, uint32_t id) { return gen(c, id); }
static uint32_t free_link(const void *c, uint32_t i) { return *next_at(c, i); }
static void set_free_link(void *c, uint32_t i, uint32_t x) { *next_at(c, i) = x; }

static inline void put(PS *s, size_t i, uint64_t key)
{
	*fld(s, F_T, i) = 0;
	for (int a = 0; a < 3; a++) {
		*fld(s, F_PX + a, i) = dod_particle_pos0(key, a);
		*fld(s, F_VX + a, i) = dod_particle_vel(key, a);
	}
	*fld(s, F_CR, i) = (float)(key & COL_MASK);
	*fld(s, F_CG, i) = (float)(key >> COL_BITS & COL_MASK);
	*fld(s, F_CB, i) = (float)(key >> 2 * COL_BITS);
}

static inline uint64_t key_of(const PS *s, size_t i)
{
	return (uint64_t)*fld(s, F_CR, i) | (uint64_t)*fld(s, F_CG, i) << COL_BITS |
	       (uint64_t)*fld(s, F_CB, i) << 2 * COL_BITS;
}

static inline void zero(PS *s, size_t i)
{
	for (int f = 0; f < N_FIELDS; f++)
		*fld(s, f, i) = 0;
}

/* Where particles live: holes, the slots [1, n_slots) whose generation is live; swappop,
 * the dense indices [0, live), every one a particle. With DENSE a constant, the loops
 * over them are the holes path's own when DENSE is 0. */
static inline size_t first_pos(void) { return DENSE ? 0 : 1; }
static inline size_t end_pos(const PS *s) { return DENSE ? s->live : s->n_slots; }
static inline int holds(const PS *s, size_t i) { return DENSE || (*gen(s, i) & BULK_LIVE); }
/* The particle position of live slot id: the slot itself (holes) or its dense index. */
static inline size_t pos_of(const PS *s, uint32_t id) { return DENSE ? *next_at(s, id) : id; }

#if DENSE
/* Particle `from` copied over particle `to`: one 40-byte particle in AoS, one float in
 * each of the ten field arrays in SoA (the article's point: a dense SoA erase touches
 * every field array). */
static inline void move_particle(PS *s, size_t to, size_t from)
{
#if L_AOS
	*(PARTICLE *)store_at(&s->ps[0], to, P_EB) = *(PARTICLE *)store_at(&s->ps[0], from, P_EB);
#else
	for (int f = 0; f < N_FIELDS; f++)
		*fld(s, f, to) = *fld(s, f, from);
#endif
}

/* Swap-and-pop of the live particle of slot id: the last particle moves into its dense
 * index (and the lookup table follows it), the vacated last index is zeroed (the kernels
 * run over it), the slot goes on the free list. O(1). */
static void erase_dense(PS *s, uint32_t id)
{
	size_t d = *next_at(s, id), last = s->live - 1;
	if (d != last) {
		move_particle(s, d, last);
		uint32_t moved = *id_at(s, last);
		*id_at(s, d) = moved;
		*next_at(s, moved) = (uint32_t)d;
	}
	zero(s, last);
	s->live = last;
	*gen(s, id) = bulk_gen_next(*gen(s, id));
	bulk_free_push(s, id, free_link, set_free_link);
}
#endif

/* Slots every store holds, rounded down to GROUP. */
static size_t slots_held(const PS *s)
{
	size_t cap = store_capacity(&s->gen);
	if (store_capacity(&s->next) < cap)
		cap = store_capacity(&s->next);
#if DENSE
	if (store_capacity(&s->ids) < cap)
		cap = store_capacity(&s->ids);
#endif
	for (int k = 0; k < N_PSTORES; k++) {
		size_t held = (store_capacity(&s->ps[k]) - LEAD(k)) * P_PER;
		cap = held < cap ? held : cap;
	}
	return cap / GROUP * GROUP;
}

/* Every store created (grow = 0) or grown (1) to hold `slots` (a multiple of GROUP), the
 * elements added zeroed; then cap. In the order the arrays were always allocated
 * (particles, gen, next). On error the stores that did grow keep their larger, zeroed
 * capacity, harmlessly, and cap is unchanged. Returns 0, DOD_ENOMEM or DOD_EFULL. */
static int size_stores(PS *s, size_t slots, int grow)
{
	int err = DOD_OK;
	for (int k = 0; k < N_PSTORES && !err; k++)
		err = grow ? store_reserve_zeroed(&s->ps[k], LEAD(k) + slots / P_PER, P_EB)
		           : store_init_zeroed(&s->ps[k], P_EB, LEAD(k) + slots / P_PER);
	if (!err)
		err = grow ? store_reserve_zeroed(&s->gen, slots, 4) : store_init_zeroed(&s->gen, 4, slots);
	if (!err)
		err = grow ? store_reserve_zeroed(&s->next, slots, 4) : store_init_zeroed(&s->next, 4, slots);
#if DENSE
	if (!err)
		err = grow ? store_reserve_zeroed(&s->ids, slots, 4) : store_init_zeroed(&s->ids, 4, slots);
#endif
	if (!err)
		s->cap = slots_held(s);
	return err;
}

/* Room for at least `want` slots (rounded up to GROUP; the store's strategy decides how
 * much more). Returns 0, DOD_ENOMEM or DOD_EFULL (as size_stores). */
static int reserve_slots(PS *s, size_t want)
{
	return want <= s->cap ? DOD_OK : size_stores(s, (want + GROUP - 1) / GROUP * GROUP, 1);
}

static void ps_destroy(void *c)
{
	PS *s = c;
	if (!s)
		return;
	for (int k = 0; k < N_PSTORES; k++)
		store_free(&s->ps[k]);
#if L_BLOCK
	dod_aligned_free((char *)s->scratch);
#endif
	store_free(&s->gen);
	store_free(&s->next);
#if DENSE
	store_free(&s->ids);
#endif
	free(s);
}

static int ps_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS - 1)
		return DOD_EINVAL;
	PS *s = calloc(1, sizeof *s);
	if (!s)
		return DOD_ENOMEM;
	int err = size_stores(s, (capacity_elems + 1 + GROUP - 1) / GROUP * GROUP, 0);
#if L_BLOCK
	char *scratch = NULL;
	if (!err && !(err = dod_aligned_realloc(&scratch, 0, N_FIELDS * BLOCK * sizeof(float),
	                                        DOD_LINE_BYTES, 0)))
		s->scratch = (float *)scratch;
#endif
	if (err) {
		ps_destroy(s);
		return err;
	}
	s->n_slots = s->high = 1; /* slot 0: the free-list header, gen 0, particle zero */
	s->max_slots = capacity_elems + 1;
	*out = s;
	return DOD_OK;
}

static int ps_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	PS *s = c;
	size_t fresh;
	int err = bulk_fresh_slots(s->n_slots, s->live, n, &fresh);
	if (!err && FIXED && fresh > s->max_slots - s->n_slots)
		err = DOD_EFULL;
	if (!err)
		err = reserve_slots(s, s->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_slot_take(s, &s->n_slots, &s->high, free_link, set_free_link, gen_of);
		uint32_t g = bulk_gen_next(*gen(s, i));
		*gen(s, i) = g;
#if DENSE
		size_t d = s->live + k;
		*next_at(s, i) = (uint32_t)d;
		*id_at(s, d) = i;
		put(s, d, first_key + k);
#else
		put(s, i, first_key + k);
#endif
		if (handles_out)
			handles_out[k] = bulk_weak(i, g);
	}
	s->live += n;
	return DOD_OK;
}

static inline int check(const PS *s, uint64_t h)
{
	return bulk_weak_check_at(h, s->n_slots, gen_of, s);
}

static int ps_erase_n(void *c, const uint64_t *hs, size_t n)
{
	PS *s = c;
	int err = bulk_weak_check_batch(hs, n, s->n_slots, gen_of, s);
	if (err)
		return err;
#if DENSE
	for (size_t k = 0; k < n; k++)
		erase_dense(s, bulk_weak_id(hs[k]));
#else
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		*gen(s, i) = bulk_gen_next(*gen(s, i));
		zero(s, i); /* a hole holds safe values */
		bulk_free_push(s, i, free_link, set_free_link);
	}
	s->live -= n;
#endif
	return DOD_OK;
}

static uint64_t ps_iterate_sum(const void *c)
{
	const PS *s = c;
	uint64_t sum = 0;
	for (size_t i = first_pos(); i < end_pos(s); i++)
		if (holds(s, i))
			sum += key_of(s, i);
	return sum;
}

static int ps_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const PS *s = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = bulk_weak_id(hs[k]);
		if (id - 1u >= s->n_slots - 1 || *gen(s, id) != bulk_weak_gen(hs[k]) ||
		    !(bulk_weak_gen(hs[k]) & BULK_LIVE))
			return check(s, hs[k]);
		sum += key_of(s, pos_of(s, id));
	}
	*sum_out = sum;
	return DOD_OK;
}

static size_t ps_count_valid(const void *c, const uint64_t *hs, size_t n)
{
	return bulk_weak_count_valid(hs, n, ((const PS *)c)->n_slots, gen_of, c);
}

/* Every particle goes (zeroed); live generations are bumped so old weak pointers are
 * stale; slots are handed out again in order. */
static int ps_clear(void *c)
{
	PS *s = c;
#if DENSE
	for (size_t d = 0; d < s->live; d++) {
		uint32_t i = *id_at(s, d);
		*gen(s, i) = bulk_gen_next(*gen(s, i));
		zero(s, d);
	}
#else
	for (size_t i = 1; i < s->n_slots; i++) {
		if (*gen(s, i) & BULK_LIVE)
			*gen(s, i) = bulk_gen_next(*gen(s, i));
		zero(s, i);
	}
#endif
	s->n_slots = 1;
	s->live = 0;
	set_free_link(s, 0, 0);
	return DOD_OK;
}

static void ps_dump_keys(const void *c, uint64_t *keys_out)
{
	const PS *s = c;
	for (size_t i = first_pos(); i < end_pos(s); i++)
		if (holds(s, i))
			*keys_out++ = key_of(s, i);
}

static size_t ps_size(const void *c) { return ((const PS *)c)->live; }

/* The container, its scratch block and what `bytes` says of each store: committed bytes
 * (the footprint: what the process holds) or reserved address space. */
static size_t bytes_held(const PS *s, size_t (*bytes)(const dod_store *))
{
	size_t b = sizeof *s + bytes(&s->gen) + bytes(&s->next);
#if DENSE
	b += bytes(&s->ids);
#endif
	for (int k = 0; k < N_PSTORES; k++)
		b += bytes(&s->ps[k]);
#if L_BLOCK
	b += N_FIELDS * BLOCK * sizeof(float);
#endif
	return b;
}
static size_t ps_footprint(const void *c) { return bytes_held(c, store_committed_bytes); }
static size_t ps_reserved(const void *c) { return bytes_held(c, store_reserved_bytes); }

/* Slots the kernels process: the high-water mark (swappop: the live particles) rounded
 * up to GROUP (<= cap). */
static inline size_t kernel_slots(const PS *s) { return (end_pos(s) + GROUP - 1) / GROUP * GROUP; }

/* Slots from slot i (a multiple of GROUP) whose fields [f0, f0 + nf) lie in one run of
 * their stores, at most n - i: a multiple of GROUP, since every strategy's blocks hold
 * whole groups (fixblocks 16K elements, geoblocks 64 << b, the leads whole groups) and
 * n is a multiple. */
static inline size_t kernel_run(const PS *s, int f0, int nf, size_t i, size_t n)
{
	size_t m = n - i;
#if L_SOA
	for (int f = f0; f < f0 + nf; f++) {
		size_t r = store_run(&s->ps[f], LEAD(f) + i);
		m = r < m ? r : m;
	}
#else
	(void)f0, (void)nf;
	size_t r = store_run(&s->ps[0], i / P_PER) * P_PER;
	m = r < m ? r : m;
#endif
	return m;
}

#if L_AOS && !L_BLOCK
/* Plain loops over a run with an unknown trip count, the article's AoS loop. At -O3 gcc
 * vectorizes them all the same, gathering and scattering lane by lane (the opening
 * comment): the compiler's best on AoS, beside its best on the other layouts. */
static inline void tick_run(PS *s, size_t i, size_t m, float dt)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	for (size_t j = 0; j < m; j++)
		p[j].v[F_T] += dt;
}

static inline void simulate_run(PS *s, size_t i, size_t m, float dt)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	for (size_t j = 0; j < m; j++)
		for (int a = 0; a < 3; a++)
			p[j].v[F_PX + a] += p[j].v[F_VX + a] * dt;
}

static inline void update_run(PS *s, size_t i, size_t m, float dt, unsigned steps)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	for (unsigned k = 0; k < steps; k++)
		for (size_t j = 0; j < m; j++) {
			float *v = p[j].v;
			float w = v[F_CR] + v[F_CG] + v[F_CB] > 0 ? dt : 0;
			v[F_T] += dt;
			for (int a = 0; a < 3; a++)
				v[F_PX + a] += v[F_VX + a] * dt - w;
		}
}
#elif L_SOA || L_BLOCK
/* The SoA loops, shared by soa and by aos_block_soa's scratch blocks: n is a multiple
 * of GROUP. */
static void soa_tick(float *restrict t, size_t n, float dt)
{
	for (size_t i = 0; i < n; i += GROUP)
		for (unsigned j = 0; j < GROUP; j++)
			t[i + j] += dt;
}

static void soa_simulate(float *restrict px, float *restrict py, float *restrict pz,
                         const float *restrict vx, const float *restrict vy,
                         const float *restrict vz, size_t n, float dt)
{
	for (size_t i = 0; i < n; i += GROUP)
		for (unsigned j = 0; j < GROUP; j++) {
			px[i + j] += vx[i + j] * dt;
			py[i + j] += vy[i + j] * dt;
			pz[i + j] += vz[i + j] * dt;
		}
}

/* One GROUP of update's SoA loop. Its arrays are restrict parameters, so gcc knows the
 * four it writes alias nothing (restrict locals it ignores, and -O2's cost model does not
 * vectorize behind a run-time alias check). */
static inline void update_group(float *restrict t, float *restrict px, float *restrict py,
                                float *restrict pz, const float *restrict vx,
                                const float *restrict vy, const float *restrict vz,
                                const float *restrict cr, const float *restrict cg,
                                const float *restrict cb, float dt)
{
	for (unsigned j = 0; j < GROUP; j++) {
		float w = cr[j] + cg[j] + cb[j] > 0 ? dt : 0;
		t[j] += dt;
		px[j] += vx[j] * dt - w;
		py[j] += vy[j] * dt - w;
		pz[j] += vz[j] * dt - w;
	}
}

/* update's SoA loop over n slots (a multiple of GROUP), steps sub-steps: f[k] is field
 * k's array. */
static void soa_update(float *const f[N_FIELDS], size_t n, float dt, unsigned steps)
{
	for (unsigned k = 0; k < steps; k++)
		for (size_t i = 0; i < n; i += GROUP)
			update_group(f[F_T] + i, f[F_PX] + i, f[F_PY] + i, f[F_PZ] + i, f[F_VX] + i,
			             f[F_VY] + i, f[F_VZ] + i, f[F_CR] + i, f[F_CG] + i, f[F_CB] + i, dt);
}

#if L_SOA
static inline void tick_run(PS *s, size_t i, size_t m, float dt)
{
	soa_tick(fld(s, F_T, i), m, dt);
}

static inline void update_run(PS *s, size_t i, size_t m, float dt, unsigned steps)
{
	float *f[N_FIELDS];
	for (int k = 0; k < N_FIELDS; k++)
		f[k] = fld(s, k, i);
	soa_update(f, m, dt, steps);
}

static inline void simulate_run(PS *s, size_t i, size_t m, float dt)
{
	soa_simulate(fld(s, F_PX, i), fld(s, F_PY, i), fld(s, F_PZ, i), fld(s, F_VX, i),
	             fld(s, F_VY, i), fld(s, F_VZ, i), m, dt);
}
#else
/* Converts fields [f0, f0 + nf) of the m particles at p to scratch arrays of BLOCK floats
 * each, or back (to_aos). */
static void convert(PARTICLE *p, float *scratch, size_t m, int f0, int nf, int to_aos)
{
	for (int f = 0; f < nf; f++) {
		float *x = scratch + (size_t)f * BLOCK;
		if (to_aos)
			for (size_t i = 0; i < m; i++)
				p[i].v[f0 + f] = x[i];
		else
			for (size_t i = 0; i < m; i++)
				x[i] = p[i].v[f0 + f];
	}
}

static inline void tick_run(PS *s, size_t i, size_t m, float dt)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	for (size_t b = 0; b < m; b += BLOCK) {
		size_t mb = m - b < BLOCK ? m - b : BLOCK;
		convert(p + b, s->scratch, mb, F_T, 1, 0);
		soa_tick(s->scratch, mb, dt);
		convert(p + b, s->scratch, mb, F_T, 1, 1);
	}
}

static inline void simulate_run(PS *s, size_t i, size_t m, float dt)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	float *x = s->scratch;
	for (size_t b = 0; b < m; b += BLOCK) {
		size_t mb = m - b < BLOCK ? m - b : BLOCK;
		convert(p + b, x, mb, F_PX, 6, 0); /* pos then vel: six scratch arrays */
		soa_simulate(x, x + BLOCK, x + 2 * BLOCK, x + 3 * BLOCK, x + 4 * BLOCK,
		             x + 5 * BLOCK, mb, dt);
		convert(p + b, x, mb, F_PX, 3, 1); /* pos back; vel did not change */
	}
}

/* Every sub-step on the converted block: one conversion each way per block for all of
 * them (the article's point: process the SoA copy, then write back). */
static inline void update_run(PS *s, size_t i, size_t m, float dt, unsigned steps)
{
	PARTICLE *p = (PARTICLE *)store_at(&s->ps[0], i, P_EB);
	float *x = s->scratch, *f[N_FIELDS];
	for (int k = 0; k < N_FIELDS; k++)
		f[k] = x + (size_t)k * BLOCK;
	for (size_t b = 0; b < m; b += BLOCK) {
		size_t mb = m - b < BLOCK ? m - b : BLOCK;
		convert(p + b, x, mb, 0, N_FIELDS, 0);
		soa_update(f, mb, dt, steps);
		convert(p + b, x, mb, F_T, 4, 1); /* t and pos back: the fields update writes */
	}
}
#endif
#else /* AoSoA */
static inline void tick_run(PS *s, size_t i, size_t m, float dt)
{
	PGROUP *g = (PGROUP *)store_at(&s->ps[0], i / W, P_EB);
	for (size_t k = 0; k < m / W; k++)
		for (unsigned j = 0; j < W; j++)
			g[k].f[F_T][j] += dt;
}

static inline void simulate_run(PS *s, size_t i, size_t m, float dt)
{
	PGROUP *g = (PGROUP *)store_at(&s->ps[0], i / W, P_EB);
	for (size_t k = 0; k < m / W; k++)
		for (unsigned j = 0; j < W; j++) {
			g[k].f[F_PX][j] += g[k].f[F_VX][j] * dt;
			g[k].f[F_PY][j] += g[k].f[F_VY][j] * dt;
			g[k].f[F_PZ][j] += g[k].f[F_VZ][j] * dt;
		}
}

static inline void update_run(PS *s, size_t i, size_t m, float dt, unsigned steps)
{
	PGROUP *g = (PGROUP *)store_at(&s->ps[0], i / W, P_EB);
	for (unsigned r = 0; r < steps; r++)
		for (size_t k = 0; k < m / W; k++)
			for (unsigned j = 0; j < W; j++) {
				float (*f)[W] = g[k].f;
				float w = f[F_CR][j] + f[F_CG][j] + f[F_CB][j] > 0 ? dt : 0;
				f[F_T][j] += dt;
				f[F_PX][j] += f[F_VX][j] * dt - w;
				f[F_PY][j] += f[F_VY][j] * dt - w;
				f[F_PZ][j] += f[F_VZ][j] * dt - w;
			}
}
#endif

/* A kernel: the layout's loop `run` over each run of the slots [0, kernel_slots) in the
 * stores of fields [f0, f0 + nf) (one run for a contiguous store). Inlined with its run
 * function, so the loop is the layout's own. */
static inline void each_run(PS *s, int f0, int nf, void (*run)(PS *, size_t, size_t, float),
                            float dt)
{
	size_t n = kernel_slots(s);
	for (size_t i = 0, m; i < n; i += m) {
		m = kernel_run(s, f0, nf, i, n);
		run(s, i, m, dt);
	}
}

static void ps_tick(void *c, float dt) { each_run(c, F_T, 1, tick_run, dt); }
static void ps_simulate(void *c, float dt) { each_run(c, F_PX, 6, simulate_run, dt); }

/* update: block by block (at most BLOCK slots of one run, a multiple of GROUP), each block
 * all its sub-steps before the next, so a block stays in cache across them (and
 * aos_block_soa converts it once). */
static void ps_update(void *c, float dt, unsigned steps)
{
	PS *s = c;
	size_t n = kernel_slots(s);
	for (size_t i = 0, m; i < n; i += m) {
		m = kernel_run(s, 0, N_FIELDS, i, n);
		m = m < BLOCK ? m : BLOCK;
		update_run(s, i, m, dt, steps);
	}
}

static void ps_particle_sums(const void *c, double *t_sum, double *pos_sum)
{
	const PS *s = c;
	double t = 0, pos = 0;
	for (size_t i = first_pos(); i < end_pos(s); i++)
		if (holds(s, i)) {
			t += *fld(s, F_T, i);
			pos += (double)*fld(s, F_PX, i) + *fld(s, F_PY, i) + *fld(s, F_PZ, i);
		}
	*t_sum = t;
	*pos_sum = pos;
}

/* Every slot below cap that holds no particle (holes, slot 0, the slots past n_slots;
 * swappop: the dense indices past live) is zeros, except t, which the kernels advance
 * harmlessly. */
static int check_holes_zero(const PS *s, char *why, size_t len)
{
	for (size_t i = 0; i < s->cap; i++) {
		if (DENSE ? i < s->live : i < s->high && (*gen(s, i) & BULK_LIVE))
			continue;
		for (int f = F_PX; f < N_FIELDS; f++)
			if (*fld(s, f, i) != 0)
				return dod_check_fail(why, len, "hole %zu has field %d = %g, not 0", i, f,
				                      (double)*fld(s, f, i));
	}
	return DOD_OK;
}

#if DENSE
/* swappop: ids and the slots agree (slot ids[d] is live and its index is d, for every
 * dense index d < live), so every live weak pointer reaches its particle. */
static int check_dense(const PS *s, char *why, size_t len)
{
	for (size_t d = 0; d < s->live; d++) {
		uint32_t i = *id_at(s, d);
		if (i == 0 || i >= s->n_slots)
			return dod_check_fail(why, len, "ids[%zu] = %u, outside [1, %zu)", d, i, s->n_slots);
		if (!(*gen(s, i) & BULK_LIVE) || *next_at(s, i) != d)
			return dod_check_fail(why, len, "ids[%zu] = %u, but slot %u is %s index %u", d, i, i,
			                      *gen(s, i) & BULK_LIVE ? "live at" : "free, next",
			                      *next_at(s, i));
	}
	return DOD_OK;
}
#endif

/* The invariants of the opening comment, with the first violation's reason in why (see
 * dod_ops.check): counts (n_slots <= high <= cap <= what the stores hold, cap a multiple
 * of GROUP), generations (bulk_check_gens), holes and the slots past n_slots all zeros
 * (the kernels run over them), and the free list holding exactly the free slots below
 * n_slots (bulk_check_free_list); swappop: ids and the slots agree (check_dense) and
 * the dense indices past live are zeros. O(cap). */
static int ps_check(const void *c, char *why, size_t len)
{
	const PS *s = c;
	if (s->n_slots < 1 || s->n_slots > s->high || s->high > s->cap || s->cap % GROUP ||
	    s->cap > slots_held(s) || s->live > s->n_slots - 1)
		return dod_check_fail(why, len, "counts: n_slots %zu, high %zu, cap %zu, live %zu",
		                      s->n_slots, s->high, s->cap, s->live);
	int err = bulk_check_gens(s, gen_of, s->n_slots, s->high, s->live, why, len);
#if DENSE
	if (!err)
		err = check_dense(s, why, len);
#endif
	if (!err)
		err = check_holes_zero(s, why, len);
	if (!err)
		err = bulk_check_free_list(s, free_link, gen_of, s->n_slots, s->n_slots - 1 - s->live,
		                           why, len);
	return err;
}

static const struct dod_particle_ops ps_kernels = {
	.version = DOD_PARTICLE_OPS_VERSION,
	.tick = ps_tick,
	.simulate = ps_simulate,
	.update = ps_update,
	.particle_sums = ps_particle_sums,
};

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, Data Structures for game programmers: Bulk Data (Our Machinery), "
#if DENSE
	          "layouts (AoS, SoA, AoSoA, AoS with block-wise SoA conversion), densely packed "
	          "(swap-and-pop + id lookup table)",
#else
	          "layouts (AoS, SoA, AoSoA, AoS with block-wise SoA conversion)",
#endif
	.max_elems = BULK_MAX_SLOTS - 1,
	.create = ps_create,
	.destroy = ps_destroy,
	.insert_n = ps_insert_n,
	.iterate_sum = ps_iterate_sum,
	.lookup_sum = ps_lookup_sum,
	.erase_n = ps_erase_n,
	.count_valid = ps_count_valid,
	.clear = ps_clear,
	.dump_keys = ps_dump_keys,
	.size = ps_size,
	.footprint_bytes = ps_footprint,
	.reserved_bytes = ps_reserved,
	.check = ps_check,
	.particles = &ps_kernels,
};
