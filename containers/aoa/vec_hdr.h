/* vec_hdr.h - the per-entity header of the arrays-of-arrays designs that keep an entity's
 * tags in one array of its own whose capacity grows (aoa_vec_of_vecs, aoa_vec_add16,
 * aoa_buddy): included before aoa/aoa_core.h, which stores one AOA_HDR per entity slot;
 * aoa/vec_hooks.h, after it, holds the hooks over it. No tag limit (AOA_MAX_TAGS 0). */
#ifndef DOD_AOA_VEC_HDR_H
#define DOD_AOA_VEC_HDR_H

#include <stdint.h>

#define AOA_MAX_TAGS 0
typedef struct {
	uint32_t *a; /* cap tags' room; NULL when cap is 0 */
	uint32_t n, cap;
} AOA_HDR;

#endif
