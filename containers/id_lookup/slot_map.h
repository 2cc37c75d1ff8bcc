/* slot_map.h - the layout of slot_map (SG14 P0661's slot_map), for its source
 * containers/id_lookup/slot_map.c (whose opening comment gives the design, invariants,
 * costs and source) and for tests that corrupt it on purpose. Per size class: define
 * ELEM_BYTES first; names get the size suffix (struct sm_8, ...).
 */
#ifndef ELEM_BYTES
#error "define ELEM_BYTES before including slot_map.h"
#endif
#include <stdint.h>

#include "dod_common.h"

#ifndef DOD_SLOT_MAP_KEY_H
#define DOD_SLOT_MAP_KEY_H
/* A key and a slot share one layout, as P0661's slots are keys: bits 0..31 the index
 * (key: the slot; live slot: the value's place; free slot: SM_FREE | the next free
 * slot), bits 32..63 the generation (32 bits, P0661's default std::pair<unsigned,
 * unsigned>). */
#define SM_FREE UINT32_C(0x80000000) /* in a slot's index: free, or marked by erase_n */
#define SM_MAX_ELEMS UINT32_C(0x7FFFFFFE) /* slots 0 .. SM_MAX_ELEMS - 1: bit 31 clear */

static inline uint64_t sm_key(uint32_t index, uint32_t gen)
{
	return (uint64_t)gen << 32 | index;
}
static inline uint32_t sm_index(uint64_t k) { return (uint32_t)k; }
static inline uint32_t sm_gen(uint64_t k) { return (uint32_t)(k >> 32); }
#endif

struct SFX(sm) {
	uint64_t *slots;   /* n_slots keys in use; slot_cap allocated */
	DOD_ELEM *values;  /* n values, packed: iteration order; cap allocated */
	uint32_t *reverse; /* n: value place -> its slot (P0661's reverse_map); cap allocated */
	size_t n, cap, n_slots, slot_cap;
	uint32_t next_free; /* the LIFO free list's head; n_slots when it is empty (P0661's
	                     * next_available_slot_index_: "append a slot") */
};
