/* registry.c - every container variant dodbench can run. Adding a container: compile its
 * .c once per size class (Makefile: CONTAINER_SRCS) and add one HB_CONTAINER line here. */
#include <string.h>

#include "hb.h"

const size_t hb_elem_sizes[HB_N_SIZES] = {8, 16, 64, 256};

#define HB_DECLARE(ops)                                                                  \
	extern const struct dod_ops ops##_8, ops##_16, ops##_64, ops##_256;
#define HB_CONTAINER(name, ops) {name, {&ops##_8, &ops##_16, &ops##_64, &ops##_256}}

HB_DECLARE(handle_map_ops)
HB_DECLARE(plain_array_ops)
HB_DECLARE(peer_malloc_ptrs_ops)
HB_DECLARE(peer_unordered_map_ops)

const struct hb_container hb_containers[] = {
	HB_CONTAINER("handle_map", handle_map_ops),
	HB_CONTAINER("plain_array", plain_array_ops),
	HB_CONTAINER("peer_malloc_ptrs", peer_malloc_ptrs_ops),
	HB_CONTAINER("peer_unordered_map", peer_unordered_map_ops),
};
const size_t hb_n_containers = sizeof hb_containers / sizeof hb_containers[0];

const struct dod_ops *hb_find_ops(const char *name, size_t elem_bytes)
{
	for (size_t c = 0; c < hb_n_containers; c++) {
		if (strcmp(hb_containers[c].name, name) != 0)
			continue;
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (hb_elem_sizes[s] == elem_bytes)
				return hb_containers[c].ops[s];
	}
	return NULL;
}
