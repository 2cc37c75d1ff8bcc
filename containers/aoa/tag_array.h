/* tag_array.h - an entity's tags kept in one array of its own (t[0 .. n)): remove, has
 * and list, for the arrays-of-arrays designs that keep them so (fixed8.c's {n; tags[8]},
 * vec_hooks.h's {a, n, cap}). Below aoa/aoa_core.h and the hooks: it needs neither. */
#ifndef DOD_AOA_TAG_ARRAY_H
#define DOD_AOA_TAG_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Removes one occurrence of tag from t[0 .. *n), the last tag moving into its place:
 * returns 1, or 0 when t holds none. O(*n). */
static inline int aoa_array_remove(uint32_t *t, uint32_t *n, uint32_t tag)
{
	for (uint32_t j = 0; j < *n; j++)
		if (t[j] == tag) {
			t[j] = t[--*n];
			return 1;
		}
	return 0;
}

static inline bool aoa_array_has(const uint32_t *t, uint32_t n, uint32_t tag)
{
	for (uint32_t j = 0; j < n; j++)
		if (t[j] == tag)
			return true;
	return false;
}

/* The first min(n, room) of t[0 .. n) to out; returns n. */
static inline size_t aoa_array_list(const uint32_t *t, uint32_t n, uint32_t *out, size_t room)
{
	for (uint32_t j = 0; j < n && j < room; j++)
		out[j] = t[j];
	return n;
}

#endif
