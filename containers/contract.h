/* contract.h - the one interface every container variant offers the scenarios.
 *
 * Each variant (container x size class) exports one const struct dod_ops: the descriptor
 * and the core operations every container family shares, then optional pointers to
 * family extensions (struct dod_particle_ops, ...: see "Family extensions" below). The
 * harness registry (harness/registry.c) lists them; scenarios call them. Like
 * sqlite3_io_methods, each table starts with a version and an operation a container does
 * not offer is NULL: a scenario that needs it is skipped with a reason, never faked.
 *
 * Honesty rule (docs/ARCHITECTURE.md): every operation here is a *batch* operation. The loop over
 * elements lives inside the container, where element access inlines; the scenario calls a
 * function pointer once per batch, never once per element.
 *
 * Handles are opaque uint64_t values. For handle_map they are the article's 64-bit Id_T;
 * for peers they are whatever the peer uses as a key (an index, a map key).
 */
#ifndef DOD_CONTRACT_H
#define DOD_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "dod_common.h"
#include "list_contract.h"
#include "aoa_contract.h"
#include "dc_contract.h"

/* Version 2 added erase_n and the removal axis; descriptors are filled from the variant
 * table (containers/variants.tsv) through DOD_DESCRIPTOR, see below. Version 3 added the
 * particle kernels. Version 4 added the invariant check (check): optional, NULL for the
 * C++ peers. Version 5 split the table into the core every family shares and family
 * extensions: the particle kernels moved to the first one (dod_ops.particles). Version 6
 * added the type ids extension (dod_ops.type_ids). Version 7 added the two families of
 * Allocation Adventures: the tags extension (dod_ops.tags, aoa_contract.h) and the
 * DataComponent extension (dod_ops.dc, dc_contract.h). Version 8 added item_addr (where an
 * item is stored now: the pointer_hold scenario's measured moves). */
#define DOD_OPS_VERSION 8

/* Capability flags (dod_ops.caps). */
enum {
	DOD_CAP_HANDLES = 1u << 0,       /* insert returns handles that lookup accepts */
	DOD_CAP_STABLE_HANDLES = 1u << 1, /* handles survive other inserts and erases */
	DOD_CAP_STABLE_POINTERS = 1u << 2, /* item addresses survive other inserts/erases */
	DOD_CAP_DETECTS_STALE = 1u << 3, /* a handle to an erased item is rejected */
	DOD_CAP_KEEPS_ORDER = 1u << 4,   /* iteration follows insertion order */
	DOD_CAP_HOLES = 1u << 5,         /* storage may contain holes that iteration skips */
	DOD_CAP_FIXED_CAPACITY = 1u << 6 /* never grows past create's capacity: DOD_EFULL */
};
#define DOD_N_CAPS 7
/* Names of the DOD_CAP_* bits, lowest bit first: the words the variant table and the CSV's
 * caps column use ("handles|stable_handles|..."). Defined in dod_common.c. */
extern const char *const dod_cap_names[DOD_N_CAPS];

/* One container variant at one size class. The first eight fields are the descriptor:
 * they come from the variant's line in containers/variants.tsv (DOD_DESCRIPTOR fills
 * them), so the table is the one place that says what a variant is. */
struct dod_ops {
	int version;            /* DOD_OPS_VERSION */
	const char *name;       /* registry name, e.g. "handle_map", "bulk_holes_vm" */
	const char *family;     /* "handle_map", "baseline", "peer", "bulk", ... */
	const char *removal;    /* removal strategy: "swappop", "tombstone", "holes", "none" */
	const char *alloc;      /* allocation strategy, e.g. "geometric_realloc", "malloc_each" */
	const char *layout;     /* "aos", "soa", "aosoa", "node" */
	unsigned caps;          /* DOD_CAP_* */
	size_t elem_bytes;      /* payload size class (the Makefile's SIZES; 40: the particle) */
	/* ---- written by the container file ---- */
	const char *source;     /* article and section, or the peer library */
	size_t max_elems;       /* largest element count the container can index */

	/* Creates an empty container with room for capacity_elems items reserved up front.
	 * Returns 0, DOD_ENOMEM, or DOD_EINVAL if capacity_elems > max_elems. */
	int (*create)(void **out, size_t capacity_elems);
	void (*destroy)(void *c);

	/* Inserts n items; item i (0-based within the call) gets key first_key + i (padding
	 * filled by dod_elem_init). Writes the n handles to handles_out (may be NULL when the
	 * container has no handles). Returns 0, DOD_ENOMEM or DOD_EFULL. */
	int (*insert_n)(void *c, size_t n, uint64_t first_key, uint64_t *handles_out);

	/* Sum (mod 2^64) of the key of every live item, visited in storage order. */
	uint64_t (*iterate_sum)(const void *c);

	/* Visits the items of n handles in the given order and writes the sum (mod 2^64) of
	 * their keys to *sum_out. Returns 0, or the error of the first handle that is not
	 * valid (DOD_ERANGE, DOD_ESTALE, ...) with *sum_out unspecified. The one exception is
	 * a container whose handles are raw pointers that its library cannot validate in O(1)
	 * (peer_colony): it dereferences them as its users do and says so in its header; its
	 * count_valid and erase_n still validate. */
	int (*lookup_sum)(const void *c, const uint64_t *handles, size_t n, uint64_t *sum_out);

	/* Erases the items of n handles, all or nothing: a stale, free, foreign, out-of-range
	 * or repeated handle fails the whole call with that handle's error (a repeat gives
	 * DOD_EFREE) and leaves the container unchanged. Handles of other items stay valid
	 * (when the container has DOD_CAP_STABLE_HANDLES). Returns 0 or that error. NULL when
	 * the container cannot erase single items: hole scenarios skip it. */
	int (*erase_n)(void *c, const uint64_t *handles, size_t n);

	/* Number of the n handles that are currently valid. Untimed verification helper. */
	size_t (*count_valid)(const void *c, const uint64_t *handles, size_t n);

	/* Removes every item. What happens to old handles is the container's contract
	 * (handle_map: stale and detected). Returns 0 or an error. */
	int (*clear)(void *c);
	/* Removes every item and drops handle bookkeeping (handle_map::reset). NULL if the
	 * container has no such distinction. */
	int (*reset)(void *c);

	/* Scenario setup for defragment: permutes the storage order with a seeded RNG while
	 * keeping every handle pointing at its item. NULL if storage order is not
	 * permutable. Returns 0 or an error. */
	int (*shuffle)(void *c, uint64_t seed);
	/* Sorts storage by key ascending, moving at most max_swaps items (0 = no limit);
	 * *swaps_out = items moved in this call. Returns 0 or an error. */
	int (*defragment)(void *c, size_t max_swaps, size_t *swaps_out);
	/* Writes the keys in storage order to keys_out (room for size() keys). Untimed
	 * verification helper; NULL if unavailable. */
	void (*dump_keys)(const void *c, uint64_t *keys_out);

	/* The container's items as one contiguous array of keys (8-byte elements, no holes),
	 * or NULL: lets the calibration scenario (iterate_inline) run a hand-written loop over
	 * the very memory iterate_sum reads. Untimed helper; NULL for every other layout. */
	const uint64_t *(*key_array)(const void *c);

	size_t (*size)(const void *c);          /* live items */
	size_t (*footprint_bytes)(const void *c); /* bytes the container holds from the heap:
	                                           * committed memory (what the process pays) */
	/* Address space reserved, committed or not (vm reservations); NULL: the same as
	 * footprint_bytes. Untimed helper for the memory scenario. */
	size_t (*reserved_bytes)(const void *c);

	/* Invariant check for tests (tests/test_conformance.c after every step, the fuzzer
	 * tests/fuzz/ after every operation): walks the whole structure and checks what the
	 * container file's opening comment lists as its invariants: the free list well formed
	 * (within bounds, no cycle, every free slot on it exactly once), the counts consistent
	 * (live + free == slots), generations consistent with liveness, every live item's
	 * handle resolving to it (handle_map: dense, sparse and meta agree). Returns 0 when
	 * all hold; otherwise non-zero, with a NUL-terminated reason written to why[0 ..
	 * why_len) (why may be NULL when why_len is 0; truncated to fit). Never changes the
	 * container, never prints. O(slots). NULL: the container has no check (only peers
	 * may: the library wrappers peer_unordered_map, peer_colony, peer_std_vector and
	 * peer_std_vector_vector, whose libraries keep their own invariants);
	 * test_conformance fails on any other and names them. */
	int (*check)(const void *c, char *why, size_t why_len);

	/* Untimed helper: the address at which the item a valid handle names is stored now
	 * (its first 8 bytes are its key), or NULL when the handle is not valid. Lets a
	 * scenario hold a pointer to an item across other operations and see whether the item
	 * moved (pointer_hold), without trusting the container's own account. O(1); never
	 * changes the container. NULL: the container does not expose item addresses (every
	 * family but the Bulk data one). */
	const void *(*item_addr)(const void *c, uint64_t handle);

	/* ---- family extensions: NULL for a container outside the family ---- */
	const struct dod_particle_ops *particles; /* DOD_EXT_PARTICLES */
	const struct dod_type_id_ops *type_ids;   /* DOD_EXT_TYPE_IDS */
	const struct dod_list_ops *list;          /* DOD_EXT_LIST (list_contract.h) */
	const struct dod_consolidate_ops *consolidate; /* DOD_EXT_CONSOLIDATE (list_contract.h) */
	const struct dod_tags_ops *tags;          /* DOD_EXT_TAGS (aoa_contract.h) */
	const struct dod_dc_ops *dc;              /* DOD_EXT_DC (dc_contract.h) */
};

/* ---- Family extensions ----
 * The core table (struct dod_ops) holds what every container family shares. A family
 * whose scenarios need more (the particle layouts' kernels; later the vector-hosted
 * lists' (containers/list_contract.h) and the arrays of arrays' operations) gets a small table of its own that its
 * containers point at from the core table and every other container leaves NULL. An
 * extension table starts with its own version and is all or nothing: every operation in
 * it is set. A scenario declares the extensions it needs (scn_scenario.needs_ext in
 * scenarios/scenario.h) and is skipped, with the extension's `missing` text as the
 * reason, on a container that lacks one. Tests run each extension's operations through
 * one helper (model_run_exts, tests/model.h). Adding a family: docs/ARCHITECTURE.md. */
#define DOD_EXT_DC_BIT 5 /* DOD_EXT_DC's bit: its index in dod_ext_descs */
enum {
	DOD_EXT_PARTICLES = 1u << 0, /* dod_ops.particles: the particle kernels */
	DOD_EXT_TYPE_IDS = 1u << 1,  /* dod_ops.type_ids: containers made with a type id */
	DOD_EXT_LIST = 1u << 2,      /* dod_ops.list: insertion at references, linear searches */
	DOD_EXT_CONSOLIDATE = 1u << 3, /* dod_ops.consolidate: compaction with a remap */
	DOD_EXT_TAGS = 1u << 4,        /* dod_ops.tags: per-entity tag lists (arrays of arrays) */
	DOD_EXT_DC = 1u << DOD_EXT_DC_BIT /* dod_ops.dc: the DataComponent's values */
};
#define DOD_N_EXTS 6

/* One extension, indexed by its bit number (an unused bit: every field NULL). Defined in
 * dod_common.c. */
struct dod_ext_desc {
	const char *name;    /* the word `dodbench list containers` prints: "particles" */
	const char *missing; /* skip reason of a scenario that needs it: "no particles extension" */
	const void *(*table)(const struct dod_ops *ops); /* ops' table, complete or not */
	const char *(*incomplete)(const void *table);    /* NULL if usable (version, every op) */
};
extern const struct dod_ext_desc dod_ext_descs[DOD_N_EXTS];

/* The DOD_EXT_* bits of the extensions ops offers: pointer set and table complete. The one
 * accessor the scenarios, the harness and the tests use; O(DOD_N_EXTS). */
unsigned dod_exts(const struct dod_ops *ops);
/* 0 when every extension table ops points at is complete; else DOD_EINVAL with the
 * reason ("particles extension: ...") in why[0 .. why_len) (as dod_check_fail). For the
 * conformance test: an incomplete table is otherwise only skipped. */
int dod_exts_check(const struct dod_ops *ops, char *why, size_t why_len);

/* The particles extension (Our Machinery, "Bulk data", layouts): containers whose items
 * are the article's 40-byte particle (t; pos[3]; vel[3]; col[3], floats; see
 * dod_particle_* in dod_common.h). The tick, simulate, update and update8 scenarios run
 * the kernels, one call per pass over every particle. Version 1: the kernels of contract
 * version 3. Version 2 added update, the kernel that touches all ten streams. */
#define DOD_PARTICLE_OPS_VERSION 2
struct dod_particle_ops {
	int version; /* DOD_PARTICLE_OPS_VERSION */
	/* One pass of the article's tick(): t += dt (seconds) for every particle. May process
	 * holes too (they hold safe values: zeros, no FP exceptions, no denormals). */
	void (*tick)(void *c, float dt);
	/* One pass of simulate(): pos += vel * dt for every particle (holes too, as tick). */
	void (*simulate)(void *c, float dt);
	/* steps sub-steps (>= 1) of update for every particle (holes too, as tick): t += dt;
	 * pos += vel * dt - w, w = dt when col[0] + col[1] + col[2] > 0, else 0 (a hole's
	 * zeros stay zeros). Reads all ten floats of a particle, writes four: the kernel
	 * whose ten streams can conflict in the cache sets. A layout may run the sub-steps
	 * block by block (each block of particles all its steps, then the next), so a block
	 * converted to SoA (aos_block_soa) is converted once for all of them. */
	void (*update)(void *c, float dt, unsigned steps);
	/* Untimed verification: *t_sum = the sum of t and *pos_sum = the sum of pos[0] +
	 * pos[1] + pos[2] over the live particles, in double. */
	void (*particle_sums)(const void *c, double *t_sum, double *pos_sum);
};

/* The type ids extension (Jeff Kiah, "Game Engine Containers - handle_map": the handle's
 * typeId): containers whose handles carry the type id of the map that issued them, so a
 * handle of a map with another type id is rejected as DOD_EFOREIGN. ops->create makes
 * maps of type id DOD_DEFAULT_TYPE_ID. The validate scenario's foreign handles come from
 * a second map made by create_typed. Version 1: create_typed. */
#define DOD_TYPE_ID_OPS_VERSION 1
#define DOD_DEFAULT_TYPE_ID 1
struct dod_type_id_ops {
	int version; /* DOD_TYPE_ID_OPS_VERSION */
	/* As create, for a container whose handles carry type_id (0 .. max_type_id).
	 * Returns 0, DOD_ENOMEM, or DOD_EINVAL (type_id or capacity_elems out of range). */
	int (*create_typed)(void **out, size_t capacity_elems, unsigned type_id);
	unsigned max_type_id;
};

/* The descriptor fields of the variant being compiled. The Makefile compiles a
 * container source once per (variant, size class) with -DELEM_BYTES=N and
 * `-include build/gen/variants/NAME.h`, a header generated from the variant's line in
 * containers/variants.tsv, which defines DOD_VARIANT_NAME, DOD_VARIANT_FAMILY, ..._REMOVAL,
 * ..._ALLOC, ..._LAYOUT (strings), DOD_VARIANT_CAPS, DOD_VARIANT_OPS (the ops symbol,
 * dod_ops_NAME) and DOD_ALLOC_<alloc> = 1 (so one source can select its allocation
 * strategy with #if). A container file ends with
 *     const struct dod_ops DOD_OPS_SYMBOL = { DOD_DESCRIPTOR, .source = ..., ... };
 * A source compiled for several variants keeps its other functions static. */
#ifdef DOD_VARIANT_NAME
#define DOD_OPS_SYMBOL DOD_CAT(DOD_VARIANT_OPS, ELEM_BYTES)
#define DOD_DESCRIPTOR                                                                   \
	.version = DOD_OPS_VERSION, .name = DOD_VARIANT_NAME, .family = DOD_VARIANT_FAMILY,  \
	.removal = DOD_VARIANT_REMOVAL, .alloc = DOD_VARIANT_ALLOC,                           \
	.layout = DOD_VARIANT_LAYOUT, .caps = DOD_VARIANT_CAPS, .elem_bytes = ELEM_BYTES
#endif

#endif
