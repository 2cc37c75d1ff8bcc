/* dod_common.h - error codes, payload types and the size-class naming scheme shared by
 * every dodbench container.
 *
 * Element sizes are compile-time (docs/ARCHITECTURE.md, "The container contract"): each container
 * .c file is compiled once per size class with -DELEM_BYTES=N (the Makefile's SIZES; 40 is
 * the 40-byte particle of the layout containers, particles.c). SFX(name) appends the size
 * class, so handle_map.c built with -DELEM_BYTES=16 defines
 * hmap_insert_16, struct hmap_16, dod_elem_16 and so on. A translation unit includes a
 * per-size header (handle_map.h, ...) for exactly one ELEM_BYTES.
 *
 * Payload: the first 8 bytes are the key (uint64_t), the rest is padding that every move
 * copies, so a 64-byte element really moves 64 bytes.
 */
#ifndef DOD_COMMON_H
#define DOD_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Error codes. Every container operation returns 0 or one of these, and leaves the
 * container unchanged when it returns an error. */
enum {
	DOD_OK = 0,
	DOD_ENOMEM = -1,   /* allocation failed or size does not fit in size_t */
	DOD_EINVAL = -2,   /* bad argument (NULL where an object is needed, n out of range) */
	DOD_ERANGE = -3,   /* handle index outside the container's slots */
	DOD_ESTALE = -4,   /* handle's generation no longer matches: the item was erased */
	DOD_EFREE = -5,    /* handle points at a free slot, or carries the free bit */
	DOD_EFOREIGN = -6, /* handle was issued by a container with another type id */
	DOD_EFULL = -7,    /* the 32-bit index space is exhausted */
	DOD_ENOTSUP = -8   /* the container does not offer this operation */
};

/* Growth of container buffers by reallocation, counted process-wide where it happens
 * (dod_buffer_grow, alloc/grow.h: the realloc, constgrow and *_copy stores, every
 * dod_grow_geometric array, the aligned stores' buffers), so the harness can say whether a
 * timed region's growth moved and copied its elements (the grows, grow_moves and
 * grow_copied_bytes columns: it reads them at hb_begin and hb_end). Blocks that are added
 * (fixblocks, geoblocks) and pages that are committed (vm) are no reallocation. */
struct dod_growth_counts {
	uint64_t grows;        /* buffers grown by reallocation */
	uint64_t moves;        /* of those, the ones after which the buffer starts elsewhere */
	uint64_t copied_bytes; /* bytes those copied; a realloc that remapped pages (glibc's
	                        * mremap of a block it got from mmap) copies none */
};
extern struct dod_growth_counts dod_growth;

/* Returns a static, human-readable name for a DOD_* code ("stale handle", ...). */
const char *dod_strerror(int err);

/* For the invariant checks (dod_ops.check): writes the printf-style reason to why[0 ..
 * why_len) (nothing when why is NULL or why_len is 0; truncated to fit, NUL-terminated)
 * and returns DOD_EINVAL, so a check can `return dod_check_fail(why, len, "...", ...)`. */
int dod_check_fail(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Compiler barrier: the value is assumed read and modified, so the computation that
 * produced it cannot be deleted or hoisted out of a timed region (jemalloc/benchmark's
 * DoNotOptimize idiom). */
#define DOD_KEEP(v) __asm__ volatile("" : "+r"(v) : : "memory")
/* Barrier for memory: every store before it is assumed observed. */
#define DOD_CLOBBER() __asm__ volatile("" : : : "memory")

/* splitmix64 (Steele, Lea, Flood 2014): the one seeded RNG of dodbench. *state advances
 * by one step; the same seed gives the same sequence on every machine. */
static inline uint64_t dod_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform integer in [0, bound) for bound >= 1, by Lemire's multiply-shift (the bias is
 * below 2^-32 for the bounds used here, which is irrelevant for shuffling workloads). */
static inline uint64_t dod_rng_below(uint64_t *state, uint64_t bound)
{
	__extension__ typedef unsigned __int128 u128;
	return (uint64_t)(((u128)dod_rng_next(state) * bound) >> 64);
}

/* Seeded Fisher-Yates shuffle of n elements of elem_bytes each at base (with
 * dod_shuffle_prefix, the shuffles of dodbench's setup code; containers shuffle their own
 * parallel arrays). Advances *rng. */
void dod_shuffle(void *base, size_t n, size_t elem_bytes, uint64_t *rng);
/* Seeded partial Fisher-Yates from the front: afterwards base's first k of its n elements
 * (elem_bytes each; k <= n) are a uniform sample without replacement, in random order,
 * and the other n - k hold the rest. Draws k numbers: dod_rng_below(rng, n - j) for
 * j = 0 .. k - 1. Advances *rng. */
void dod_shuffle_prefix(void *base, size_t n, size_t k, size_t elem_bytes, uint64_t *rng);

/* The particle of the layout containers (containers/particles.c) holding key k, and the
 * reference the tick and simulate scenarios verify against: t = 0, pos and vel small
 * integers. With dt = DOD_PARTICLE_DT (2^-6 s) every value t += dt and pos += vel * dt
 * produce is a multiple of 2^-6 far below 2^17, so float arithmetic is exact whether the
 * compiler vectorizes, fuses into FMA or neither, and results compare with ==. */
#define DOD_PARTICLE_DT 0.015625f
static inline float dod_particle_pos0(uint64_t k, int axis)
{
	return (float)((int)((k >> (5 * axis)) % 17) - 8); /* -8 .. 8 */
}
static inline float dod_particle_vel(uint64_t k, int axis)
{
	return (float)((int)((k >> (5 * axis + 2)) % 7) - 3); /* -3 .. 3 */
}
/* What one sub-step of the update kernel (dod_particle_ops.update) adds to pos[axis] of the
 * particle with key k: vel * dt - w, w = dt unless the colour is black (key 0). Exact in
 * float, like simulate's vel * dt. */
static inline double dod_particle_update_dpos(uint64_t k, int axis, float dt)
{
	return (double)(dod_particle_vel(k, axis) * dt) - (k ? (double)dt : 0.0);
}

#define DOD_CAT_(a, b) a##_##b
#define DOD_CAT(a, b) DOD_CAT_(a, b)

#ifdef ELEM_BYTES
/* Which classes exist is the Makefile's SIZES (checked against the variant table by
 * scripts/gen-variants.sh); a payload needs its 8-byte key and 8-byte alignment, except
 * class 4: a 32-bit int (the list articles' payload) whose key is the item number's low
 * 32 bits, for containers that hold fewer than 2^32 items (the hosted lists: 2^31). */
#if ELEM_BYTES != 4 && (ELEM_BYTES < 8 || ELEM_BYTES % 8 != 0)
#error "ELEM_BYTES must be 4 or a multiple of 8, at least 8 (the key): a size class of SIZES"
#endif
#define SFX(name) DOD_CAT(name, ELEM_BYTES)

/* The payload of size class ELEM_BYTES: an 8-byte key then padding (class 4: a 4-byte
 * key, nothing else). */
#if ELEM_BYTES == 4
typedef struct { uint32_t key; } SFX(dod_elem);
#elif ELEM_BYTES == 8
typedef struct { uint64_t key; } SFX(dod_elem);
#else
typedef struct { uint64_t key; unsigned char pad[ELEM_BYTES - 8]; } SFX(dod_elem);
#endif
#define DOD_ELEM SFX(dod_elem)

/* Fills *e for item number i: key = i, padding bytes = low byte of i, so copies of the
 * padding are real work and a scrambled copy is visible. */
static inline void SFX(dod_elem_init)(DOD_ELEM *e, uint64_t i)
{
#if ELEM_BYTES == 4
	e->key = (uint32_t)i; /* class 4's containers hold fewer than 2^32 items */
#else
	e->key = i;
#endif
#if ELEM_BYTES > 8
	for (size_t b = 0; b < sizeof e->pad; b++)
		e->pad[b] = (unsigned char)i;
#endif
}
#endif /* ELEM_BYTES */

#endif
