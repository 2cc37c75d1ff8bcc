/* registry.c - every container variant dodbench can run, generated from the variant
 * table containers/variants.tsv by scripts/gen-variants.sh (build/gen/variants.inc): a
 * variant is one line there, never an edit here. */
#include <string.h>

#include "hb.h"
/* The simulator's binary links a subset of the variants (the Makefile's SIM_VARIANTS):
 * its registry declares the ops tables weak, so one not linked is NULL (hb_check_fits
 * refuses to run it) where `built` says the variant has that size class. */
#ifdef HB_PARTIAL_REGISTRY
#define HB_VARIANT_LINKAGE __attribute__((weak))
#endif
#include "variants.inc"

const size_t hb_elem_sizes[HB_N_SIZES] = {HB_SIZE_CLASSES};

const struct hb_container hb_containers[] = {HB_VARIANT_TABLE};
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
