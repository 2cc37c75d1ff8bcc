/* dc_contract.h - the DataComponent family's extension (Niklas Gray, Bitsquid, "Allocation
 * Adventures" 1 and 2, 2015: the DataComponent; ../shared/SEEDS.md section D, claims
 * D8-D11).
 *
 * A DataComponent gives each entity a small JSON-like document: bools, floats, strings,
 * float arrays, and objects, which exist through the dotted paths of their members
 * ("stats.health"). The article's steps, one container each (containers/dc/): a tree of
 * std::map<std::string, value> (dc_naive), hashed flattened keys in one array of {key,
 * type, value} entries searched linearly (dc_hashed_flat), the same as three arrays
 * (dc_soa), the three arrays in one allocation (dc_coalloc), and one buffer holding keys,
 * types and 32-bit values growing up and the strings and arrays growing down
 * (dc_single_buffer, {uint16 offset, uint16 size} values).
 *
 * The core operations for a DataComponent container: an item is an entity (a component);
 * insert_n creates n entities with keys first_key + i and no values; handles name
 * entities; erase_n destroys them (all or nothing, as in contract.h); iterate_sum,
 * dump_keys, count_valid and lookup_sum read the entities' keys. So every core scenario
 * and the conformance test run on them unchanged.
 *
 * Keys. A value's key is its flattened path ("stats.health"), hashed untimed by the caller
 * with dod_dc_hash (FNV-1a, 32 bits, 0 reserved: a hash of 0 becomes 1). The hashed designs
 * see only that hash; dc_naive walks its tree by the path's parts (struct dod_dc_path, split
 * untimed by dod_dc_path_init, so no design pays for hashing or splitting inside a timed
 * region: the comparison is between a tree walk with string compares and a hash search).
 * Requests carry both: `key` (must equal path->hash) and `path`. The paths a caller uses
 * with one container must have distinct hashes and be prefix-free (no path is a dotted
 * prefix of another): the hashed designs cannot see a collision or a path through a value,
 * which dc_naive refuses with DOD_EINVAL (a limit of flattening the article accepts).
 *
 * Errors, all or nothing (nothing changed): a bad entity handle (the core codes:
 * DOD_ERANGE, DOD_ESTALE, DOD_EFREE), DOD_EINVAL (key 0, no path, a type that is not a
 * dod_dc_type, a string or array with no data), DOD_ENOKEY (get: the entity has no value
 * at the key), DOD_ETYPE (get: the value has another type), DOD_EFULL (a value or a
 * component past a design's packing limit: dc_single_buffer's 16-bit sizes and 64 KiB
 * buffer), DOD_ENOMEM. Memory a call reserved before it failed may stay reserved; no
 * value changes.
 */
#ifndef DOD_DC_CONTRACT_H
#define DOD_DC_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "dod_common.h"

/* The family's errors, beside dod_common.h's (dod_strerror names them). */
#define DOD_ENOKEY (-9)  /* get: no value at that key */
#define DOD_ETYPE (-10)  /* get: the value has another type */

enum dod_dc_type { DOD_DC_BOOL = 1, DOD_DC_FLOAT = 2, DOD_DC_STRING = 3, DOD_DC_FLOATS = 4 };
#define DOD_DC_N_TYPES 5 /* types are 1 .. DOD_DC_N_TYPES - 1 */

/* A value, as set_n takes it and get_n returns it. n: a string's bytes (any bytes, no
 * terminator), a float array's elements; 0 for bool and float. get_n's s and a point into
 * the container, valid until the container next changes. */
struct dod_dc_value {
	uint32_t type; /* enum dod_dc_type */
	uint32_t n;
	union {
		uint32_t b; /* bool: 0 or 1 (set_n stores any non-zero as 1) */
		float f;
		const char *s;
		const float *a;
	};
};

/* A path split into its parts (dc_naive's key) and its hash (everyone else's). */
#define DOD_DC_MAX_DEPTH 4
struct dod_dc_path {
	uint32_t hash;  /* dod_dc_hash of the whole dotted path */
	uint32_t depth; /* parts, 1 .. DOD_DC_MAX_DEPTH */
	const char *part[DOD_DC_MAX_DEPTH]; /* part i: part[i][0 .. part_len[i]), non-empty */
	uint32_t part_len[DOD_DC_MAX_DEPTH];
};

/* One value to set: entity's value at key becomes value (replaced when present, its type
 * too). */
struct dod_dc_set {
	uint64_t entity;                /* a handle of insert_n or copy_n */
	uint32_t key;                   /* path->hash */
	const struct dod_dc_path *path;
	struct dod_dc_value value;      /* strings and arrays are copied */
};

/* One value to read, of the type the caller expects. */
struct dod_dc_get {
	uint64_t entity;
	uint32_t key;                   /* path->hash */
	uint32_t type;                  /* enum dod_dc_type */
	const struct dod_dc_path *path;
};

/* Memory statistics (untimed). */
struct dod_dc_mem {
	size_t entities;   /* live entities */
	size_t values;     /* values they hold */
	size_t data_bytes; /* heap bytes the components hold (buffers at capacity, string and
	                    * array blocks, map nodes; allocator headers not counted) */
	size_t blocks;     /* heap blocks the components hold */
};

/* The extension (dod_ops.dc). Version 1. Every operation is a batch. */
#define DOD_DC_OPS_VERSION 1
struct dod_dc_ops {
	int version; /* DOD_DC_OPS_VERSION */
	/* Applies sets[0 .. n) in order (a later set of the same key wins). Returns 0 or an
	 * error of the file comment: bad handle, DOD_EINVAL, DOD_EFULL, DOD_ENOMEM; nothing
	 * changed. O(n x values per entity) for the flat designs, O(n x depth x log) for the
	 * tree. */
	int (*set_n)(void *c, const struct dod_dc_set *sets, size_t n);
	/* Finds each value and adds dod_dc_value_sum of it to *sum_out (mod 2^64): the timed
	 * read. Returns 0, or the error of the first bad request (bad handle, DOD_EINVAL,
	 * DOD_ENOKEY, DOD_ETYPE) with *sum_out unspecified. Changes nothing. */
	int (*get_sum_n)(const void *c, const struct dod_dc_get *gets, size_t n,
	                 uint64_t *sum_out);
	/* The same, writing each value to out[i] (typed read, for verification). */
	int (*get_n)(const void *c, const struct dod_dc_get *gets, size_t n,
	             struct dod_dc_value *out);
	/* Creates n entities, entity i with key first_key + i and a copy of the values of
	 * src[i] (repeats allowed), handles to handles_out (room for n). dc_single_buffer
	 * copies a component with one memcpy. Returns 0, a bad handle's error, DOD_EFULL or
	 * DOD_ENOMEM; nothing changed. */
	int (*copy_n)(void *c, const uint64_t *src, size_t n, uint64_t first_key,
	              uint64_t *handles_out);
	void (*mem)(const void *c, struct dod_dc_mem *out);
};

/* FNV-1a (32 bits) of bytes[0 .. len), 0 mapped to 1: a value's key. */
static inline uint32_t dod_dc_hash(const char *bytes, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)bytes[i]) * 16777619u;
	return h ? h : 1;
}

/* Splits the dotted path text (NUL-terminated; p keeps pointers into it) and hashes it.
 * Returns 0, or DOD_EINVAL: an empty part, or more than DOD_DC_MAX_DEPTH parts. */
static inline int dod_dc_path_init(struct dod_dc_path *p, const char *text)
{
	size_t at = 0, start = 0;
	p->depth = 0;
	for (;; at++) {
		if (text[at] != '.' && text[at] != '\0')
			continue;
		if (at == start || p->depth == DOD_DC_MAX_DEPTH)
			return DOD_EINVAL;
		p->part[p->depth] = text + start;
		p->part_len[p->depth++] = (uint32_t)(at - start);
		if (text[at] == '\0')
			break;
		start = at + 1;
	}
	p->hash = dod_dc_hash(text, at);
	return 0;
}

/* The checksum of one value read: every byte of a string and every float of an array is
 * read. Types differ in their mix, so a value read as another type does not sum alike. */
static inline uint64_t dod_dc_value_sum(const struct dod_dc_value *v)
{
	uint64_t s = (uint64_t)v->type << 56;
	if (v->type == DOD_DC_BOOL)
		return s + v->b;
	uint32_t u;
	if (v->type == DOD_DC_FLOAT) {
		__builtin_memcpy(&u, &v->f, sizeof u);
		return s + u;
	}
	s += (uint64_t)v->n << 32;
	if (v->type == DOD_DC_STRING) {
		for (uint32_t i = 0; i < v->n; i++)
			s += (unsigned char)v->s[i];
	} else {
		for (uint32_t i = 0; i < v->n; i++) {
			__builtin_memcpy(&u, &v->a[i], sizeof u);
			s += u;
		}
	}
	return s;
}

#endif
