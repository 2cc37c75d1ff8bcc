/* particles.c - the particle of Our Machinery's "Bulk data" (Niklas Gray, "Data Structures
 * for game programmers: Bulk Data", section on layouts) in the article's five layouts,
 * with holes, a free list and weak pointers, and its two kernels:
 *   tick()      t += dt            touches 4 of each particle's 40 bytes
 *   simulate()  pos += vel * dt    reads 24 bytes, writes 12
 *
 * A particle is ten floats, 40 bytes: t; pos[3]; vel[3]; col[3] (field order F_*). The
 * variant table's layout column picks the storage (this file adapts with #if):
 *   aos            struct particle p[cap]                      one allocation
 *   soa            float f[10][cap]: one array per scalar       ten allocations
 *   soa_staggered  soa with field f starting f x 448 B into its allocation, so the ten
 *                  streams use ten different cache sets (the article's SoA drawback:
 *                  page-aligned field arrays all map to the same sets)
 *   aosoa8         struct { float f[10][8]; }  g[cap / 8]       one allocation, 320 B groups
 *   aosoa16        struct { float f[10][16]; } g[cap / 16]      one allocation, 640 B groups
 *   aos_block_soa  AoS storage; each kernel converts a block of 16K particles into a
 *                  scratch SoA buffer (only the fields it uses), runs the SoA loop, and
 *                  writes the results back (the article's "alternative")
 *
 * Holes and SIMD (the article's rule): the kernels run over every slot up to the
 * high-water mark rounded up to GROUP slots, holes included, without a branch. A hole
 * holds zeros (t grows by dt in a hole, harmlessly: no FP exception, no denormal, no
 * overflow), and the free-list link is a real field: it lives in the parallel `next`
 * array, never in particle memory, with the generation beside it in `gen`. The free
 * list is holes.c's circular list with its header in slot 0 (next[0] == 0: append a
 * slot); slot 0's particle stays zero. Weak pointers are bulk/weak.h's {id, generation}.
 *
 * The contract's key (containers/contract.h) rides in the colour: col = (key & 0xFFFFFF,
 * key >> 24 & 0xFFFFFF, key >> 48), each an integer below 2^24 and so exact in a float,
 * so these containers pass the same differential model test and scenarios as every
 * other container, and iterate_sum visits particle memory. Particle k starts as
 * dod_particle_pos0 / dod_particle_vel (dod_common.h) say, t = 0, so kernel results are
 * exact and the scenarios check them with ==.
 *
 * Vectorization (gcc 12, -O2 -march=native, checked with objdump -d on this file's
 * objects): -O2's "very cheap" cost model vectorizes only loops whose trip count is a
 * known multiple of the vector width, so every kernel loop is a fixed GROUP-slot (16)
 * inner loop; capacity is a multiple of GROUP. On this project's AVX2/AVX-512 build
 * machine, soa, aosoa16 and the SoA middle of aos_block_soa compile tick to two 8-wide
 * vaddps (ymm) per 16 slots and simulate to 3 vmulps + 3 vaddps per 8 slots; aosoa8 to
 * one vaddps per group. aos stays scalar (vaddss at a 40-byte stride; simulate pairs x
 * and y in one 2-lane vmulps/vaddps, z scalar), as the article's AoS. The soa field
 * arrays are `restrict`, so no run-time alias check. tests/python checks that the
 * packed instructions are there (objdump).
 *
 * Allocation: geometric realloc (x2) of every array, new slots zeroed; capacity grows in
 * multiples of GROUP. Costs: insert O(1) amortized, erase O(1), lookup O(1), iterate and
 * the kernels O(high-water mark).
 */
#include <stdlib.h>
#include <string.h>

#include "bulk/free_list.h"
#include "bulk/weak.h"
#include "contract.h"
#include "dod_common.h"

#if ELEM_BYTES != 40
#error "particles.c is the 40-byte particle: list it with size 40 only"
#endif

enum { F_T, F_PX, F_PY, F_PZ, F_VX, F_VY, F_VZ, F_CR, F_CG, F_CB, N_FIELDS };
#define GROUP 16            /* slots per kernel step; capacity is a multiple */
#define BLOCK 16384         /* aos_block_soa: particles per converted block */

#if defined(DOD_LAYOUT_aos) || defined(DOD_LAYOUT_aos_block_soa)
#define L_AOS 1
struct SFX(particle) { float v[N_FIELDS]; };
#define PARTICLE struct SFX(particle)
#elif defined(DOD_LAYOUT_soa) || defined(DOD_LAYOUT_soa_staggered)
#define L_SOA 1
/* Bytes before field f's first float in its own allocation: 0 for soa, whose large field
 * arrays come from mmap and so all start at the same offset in a page (the same cache
 * sets: the article's conflict warning); f x 448 (7 lines) for soa_staggered, which puts
 * the ten fields on ten different set indices of a 4 KiB way. */
#if defined(DOD_LAYOUT_soa_staggered)
#define STAGGER 448
#else
#define STAGGER 0
#endif
#elif defined(DOD_LAYOUT_aosoa8) || defined(DOD_LAYOUT_aosoa16)
#define L_AOSOA 1
#if defined(DOD_LAYOUT_aosoa8)
#define W 8
#else
#define W 16
#endif
struct SFX(pgroup) { float f[N_FIELDS][W]; };
#define PGROUP struct SFX(pgroup)
#else
#error "particles.c serves the layouts aos, soa, aosoa8, aosoa16 and aos_block_soa"
#endif
#if defined(DOD_LAYOUT_aos_block_soa)
#define L_BLOCK 1
#endif

struct SFX(particles) {
#if L_AOS
	PARTICLE *p;
#elif L_SOA
	float *f[N_FIELDS];  /* field f: raw[f] + f x STAGGER bytes */
	void *raw[N_FIELDS]; /* what realloc and free see */
#else
	PGROUP *g;
#endif
#if L_BLOCK
	float *scratch;     /* 6 x BLOCK floats: the SoA copy of one block */
#endif
	uint32_t *gen;      /* per slot: odd = live (bulk/weak.h) */
	uint32_t *next;     /* per slot: the free-list link, a real field */
	size_t cap;         /* slots allocated, a multiple of GROUP */
	size_t n_slots;     /* slots in use or on the free list, slot 0 included */
	size_t high;        /* slots ever handed out (their generations mean something) */
	size_t live;
};
#define PS struct SFX(particles)

static inline float *fld(const PS *s, int f, size_t i)
{
#if L_AOS
	return &s->p[i].v[f];
#elif L_SOA
	return &s->f[f][i];
#else
	return &s->g[i / W].f[f][i % W];
#endif
}

static inline void put(PS *s, size_t i, uint64_t key)
{
	*fld(s, F_T, i) = 0;
	for (int a = 0; a < 3; a++) {
		*fld(s, F_PX + a, i) = dod_particle_pos0(key, a);
		*fld(s, F_VX + a, i) = dod_particle_vel(key, a);
	}
	*fld(s, F_CR, i) = (float)(key & 0xFFFFFF);
	*fld(s, F_CG, i) = (float)(key >> 24 & 0xFFFFFF);
	*fld(s, F_CB, i) = (float)(key >> 48);
}

static inline uint64_t key_of(const PS *s, size_t i)
{
	return (uint64_t)*fld(s, F_CR, i) | (uint64_t)*fld(s, F_CG, i) << 24 |
	       (uint64_t)*fld(s, F_CB, i) << 48;
}

static inline void zero(PS *s, size_t i)
{
	for (int f = 0; f < N_FIELDS; f++)
		*fld(s, f, i) = 0;
}

/* realloc *p from old to new elements of `size` bytes, zeroing the new ones. */
static int grow_array(void **p, size_t old, size_t new, size_t size)
{
	if (new > SIZE_MAX / size)
		return DOD_ENOMEM;
	void *q = realloc(*p, new * size);
	if (!q)
		return DOD_ENOMEM;
	memset((char *)q + old * size, 0, (new - old) * size);
	*p = q;
	return DOD_OK;
}

/* Capacity for at least `want` slots (x2, multiples of GROUP). On DOD_ENOMEM the arrays
 * that did grow keep their larger size, harmlessly; cap is unchanged. */
static int reserve_slots(PS *s, size_t want)
{
	if (want <= s->cap)
		return DOD_OK;
	size_t cap = s->cap ? s->cap : GROUP;
	while (cap < want) {
		if (cap > SIZE_MAX / 2)
			return DOD_ENOMEM;
		cap *= 2;
	}
	int err = DOD_OK;
#if L_AOS
	err = grow_array((void **)&s->p, s->cap, cap, sizeof *s->p);
#elif L_SOA
	for (int f = 0; f < N_FIELDS && !err; f++) {
		size_t lead = (size_t)f * STAGGER / sizeof(float);
		err = grow_array(&s->raw[f], lead + s->cap, lead + cap, sizeof(float));
		if (!err)
			s->f[f] = (float *)s->raw[f] + lead;
	}
#else
	err = grow_array((void **)&s->g, s->cap / W, cap / W, sizeof *s->g);
#endif
	if (!err)
		err = grow_array((void **)&s->gen, s->cap, cap, sizeof *s->gen);
	if (!err)
		err = grow_array((void **)&s->next, s->cap, cap, sizeof *s->next);
	if (!err)
		s->cap = cap;
	return err;
}

static void ps_destroy(void *c)
{
	PS *s = c;
	if (!s)
		return;
#if L_AOS
	free(s->p);
#elif L_SOA
	for (int f = 0; f < N_FIELDS; f++)
		free(s->raw[f]);
#else
	free(s->g);
#endif
#if L_BLOCK
	free(s->scratch);
#endif
	free(s->gen);
	free(s->next);
	free(s);
}

static int ps_create(void **out, size_t capacity_elems)
{
	if (capacity_elems > BULK_MAX_SLOTS - 1)
		return DOD_EINVAL;
	PS *s = calloc(1, sizeof *s);
	if (!s)
		return DOD_ENOMEM;
	int err = reserve_slots(s, capacity_elems + 1);
#if L_BLOCK
	if (!err && !(s->scratch = malloc(6 * BLOCK * sizeof(float))))
		err = DOD_ENOMEM;
#endif
	if (err) {
		ps_destroy(s);
		return err;
	}
	s->n_slots = s->high = 1; /* slot 0: the free-list header, gen 0, particle zero */
	*out = s;
	return DOD_OK;
}

static int ps_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	PS *s = c;
	size_t holes = s->n_slots - 1 - s->live;
	size_t fresh = n > holes ? n - holes : 0;
	if (fresh > BULK_MAX_SLOTS - (s->n_slots - 1))
		return DOD_EFULL;
	int err = reserve_slots(s, s->n_slots + fresh);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = s->next[0];
		if (i) {
			s->next[0] = s->next[i];
		} else {
			i = (uint32_t)s->n_slots++;
			if (i >= s->high) {
				s->gen[i] = 0;
				s->high = i + 1;
			}
		}
		s->gen[i] = bulk_gen_next(s->gen[i]);
		put(s, i, first_key + k);
		if (handles_out)
			handles_out[k] = bulk_weak(i, s->gen[i]);
	}
	s->live += n;
	return DOD_OK;
}

static uint32_t *gen_of(void *c, uint32_t id) { return &((PS *)c)->gen[id]; }
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
	for (size_t k = 0; k < n; k++) {
		uint32_t i = bulk_weak_id(hs[k]);
		s->gen[i] = bulk_gen_next(s->gen[i]);
		zero(s, i); /* a hole holds safe values */
		s->next[i] = s->next[0];
		s->next[0] = i;
	}
	s->live -= n;
	return DOD_OK;
}

static uint64_t ps_iterate_sum(const void *c)
{
	const PS *s = c;
	uint64_t sum = 0;
	for (size_t i = 1; i < s->n_slots; i++)
		if (s->gen[i] & 1)
			sum += key_of(s, i);
	return sum;
}

static int ps_lookup_sum(const void *c, const uint64_t *hs, size_t n, uint64_t *sum_out)
{
	const PS *s = c;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = bulk_weak_id(hs[k]);
		if (id - 1u >= s->n_slots - 1 || s->gen[id] != bulk_weak_gen(hs[k]) ||
		    !(bulk_weak_gen(hs[k]) & 1))
			return check(s, hs[k]);
		sum += key_of(s, id);
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
	for (size_t i = 1; i < s->n_slots; i++) {
		if (s->gen[i] & 1)
			s->gen[i] = bulk_gen_next(s->gen[i]);
		zero(s, i);
	}
	s->n_slots = 1;
	s->live = 0;
	s->next[0] = 0;
	return DOD_OK;
}

static void ps_dump_keys(const void *c, uint64_t *keys_out)
{
	const PS *s = c;
	for (size_t i = 1; i < s->n_slots; i++)
		if (s->gen[i] & 1)
			*keys_out++ = key_of(s, i);
}

static size_t ps_size(const void *c) { return ((const PS *)c)->live; }

static size_t ps_footprint(const void *c)
{
	const PS *s = c;
	size_t b = sizeof *s + s->cap * (N_FIELDS * sizeof(float) + 2 * sizeof(uint32_t));
#if L_BLOCK
	b += 6 * BLOCK * sizeof(float);
#endif
#if L_SOA
	b += N_FIELDS * (N_FIELDS - 1) / 2 * STAGGER; /* the staggered fields' lead bytes */
#endif
	return b;
}

/* Slots the kernels process: the high-water mark rounded up to GROUP (<= cap). */
static inline size_t kernel_slots(const PS *s) { return (s->n_slots + GROUP - 1) / GROUP * GROUP; }

#if L_AOS && !L_BLOCK
/* Plain loops over the slots: with fixed 16-slot inner loops gcc "vectorizes" AoS by
 * gathering t with vinsertps and scattering it with vextractps, which is not the
 * article's AoS; an unknown trip count keeps it the scalar loop it describes. */
static void ps_tick(void *c, float dt)
{
	PS *s = c;
	PARTICLE *p = s->p;
	size_t n = kernel_slots(s);
	for (size_t i = 0; i < n; i++)
		p[i].v[F_T] += dt;
}

static void ps_simulate(void *c, float dt)
{
	PS *s = c;
	PARTICLE *p = s->p;
	size_t n = kernel_slots(s);
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < 3; a++)
			p[i].v[F_PX + a] += p[i].v[F_VX + a] * dt;
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

#if L_SOA
static void ps_tick(void *c, float dt)
{
	PS *s = c;
	soa_tick(s->f[F_T], kernel_slots(s), dt);
}

static void ps_simulate(void *c, float dt)
{
	PS *s = c;
	soa_simulate(s->f[F_PX], s->f[F_PY], s->f[F_PZ], s->f[F_VX], s->f[F_VY], s->f[F_VZ],
	             kernel_slots(s), dt);
}
#else
/* Converts fields [f0, f0 + nf) of particles [b, b + m) to scratch arrays of BLOCK
 * floats each, or back (to_aos). */
static void convert(PS *s, size_t b, size_t m, int f0, int nf, int to_aos)
{
	for (int f = 0; f < nf; f++) {
		float *x = s->scratch + (size_t)f * BLOCK;
		PARTICLE *p = s->p + b;
		if (to_aos)
			for (size_t i = 0; i < m; i++)
				p[i].v[f0 + f] = x[i];
		else
			for (size_t i = 0; i < m; i++)
				x[i] = p[i].v[f0 + f];
	}
}

static void ps_tick(void *c, float dt)
{
	PS *s = c;
	size_t n = kernel_slots(s);
	for (size_t b = 0; b < n; b += BLOCK) {
		size_t m = n - b < BLOCK ? n - b : BLOCK;
		convert(s, b, m, F_T, 1, 0);
		soa_tick(s->scratch, m, dt);
		convert(s, b, m, F_T, 1, 1);
	}
}

static void ps_simulate(void *c, float dt)
{
	PS *s = c;
	size_t n = kernel_slots(s);
	float *x = s->scratch;
	for (size_t b = 0; b < n; b += BLOCK) {
		size_t m = n - b < BLOCK ? n - b : BLOCK;
		convert(s, b, m, F_PX, 6, 0); /* pos then vel: six scratch arrays */
		soa_simulate(x, x + BLOCK, x + 2 * BLOCK, x + 3 * BLOCK, x + 4 * BLOCK,
		             x + 5 * BLOCK, m, dt);
		convert(s, b, m, F_PX, 3, 1); /* pos back; vel did not change */
	}
}
#endif
#else /* AoSoA */
static void ps_tick(void *c, float dt)
{
	PS *s = c;
	PGROUP *g = s->g;
	size_t groups = kernel_slots(s) / W;
	for (size_t k = 0; k < groups; k++)
		for (unsigned j = 0; j < W; j++)
			g[k].f[F_T][j] += dt;
}

static void ps_simulate(void *c, float dt)
{
	PS *s = c;
	PGROUP *g = s->g;
	size_t groups = kernel_slots(s) / W;
	for (size_t k = 0; k < groups; k++)
		for (unsigned j = 0; j < W; j++) {
			g[k].f[F_PX][j] += g[k].f[F_VX][j] * dt;
			g[k].f[F_PY][j] += g[k].f[F_VY][j] * dt;
			g[k].f[F_PZ][j] += g[k].f[F_VZ][j] * dt;
		}
}
#endif

static void ps_particle_sums(const void *c, double *t_sum, double *pos_sum)
{
	const PS *s = c;
	double t = 0, pos = 0;
	for (size_t i = 1; i < s->n_slots; i++)
		if (s->gen[i] & 1) {
			t += *fld(s, F_T, i);
			pos += (double)*fld(s, F_PX, i) + *fld(s, F_PY, i) + *fld(s, F_PZ, i);
		}
	*t_sum = t;
	*pos_sum = pos;
}

/* The invariants of the opening comment, with the first violation's reason in why (see
 * dod_ops.check): counts (n_slots <= high <= cap, cap a multiple of GROUP), generations
 * (slot 0 and the slots past n_slots never live, no erase_n mark left, as many live slots
 * as the live count), every live slot's weak pointer valid, holes and slot 0 all zeros
 * (the kernels run over them), and the free list (next[]) holding exactly the free slots
 * below n_slots (in bounds, acyclic, each once, ending at 0). O(cap). */
/* The free list's links, for bulk_check_free_list. */
static uint32_t free_link(const void *c, uint32_t x) { return ((const PS *)c)->next[x]; }

static int ps_check(const void *c, char *why, size_t len)
{
	const PS *s = c;
	if (s->n_slots < 1 || s->n_slots > s->high || s->high > s->cap || s->cap % GROUP ||
	    s->live > s->n_slots - 1)
		return dod_check_fail(why, len, "counts: n_slots %zu, high %zu, cap %zu, live %zu",
		                      s->n_slots, s->high, s->cap, s->live);
	if (s->gen[0] != 0)
		return dod_check_fail(why, len, "slot 0 (the header) has generation %u", s->gen[0]);
	size_t live = 0;
	for (size_t i = 0; i < s->cap; i++) {
		uint32_t g = s->gen[i];
		if (g & BULK_MARK)
			return dod_check_fail(why, len, "slot %zu keeps erase_n's mark", i);
		if ((g & 1) && i >= s->n_slots)
			return dod_check_fail(why, len, "slot %zu past n_slots %zu is live", i, s->n_slots);
		if (g & 1) {
			live++;
			if (check(s, bulk_weak((uint32_t)i, g)) != DOD_OK)
				return dod_check_fail(why, len, "live slot %zu's weak pointer is rejected", i);
			continue;
		}
		/* A hole is zeros, except t, which the kernels advance harmlessly. */
		for (int f = F_PX; f < N_FIELDS; f++)
			if (*fld(s, f, i) != 0)
				return dod_check_fail(why, len, "hole %zu has field %d = %g, not 0", i, f,
				                      (double)*fld(s, f, i));
	}
	if (live != s->live)
		return dod_check_fail(why, len, "%zu live slots, live count %zu", live, s->live);
	return bulk_check_free_list(s, free_link, gen_of, s->n_slots, s->n_slots - 1 - s->live, why,
	                            len);
}

static const struct dod_particle_ops ps_kernels = {
	.version = DOD_PARTICLE_OPS_VERSION,
	.tick = ps_tick,
	.simulate = ps_simulate,
	.particle_sums = ps_particle_sums,
};

const struct dod_ops DOD_OPS_SYMBOL = {
	DOD_DESCRIPTOR,
	.source = "Niklas Gray, Data Structures for game programmers: Bulk Data (Our Machinery), "
	          "layouts (AoS, SoA, AoSoA, AoS with block-wise SoA conversion)",
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
	.check = ps_check,
	.particles = &ps_kernels,
};
