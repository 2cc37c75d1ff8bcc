/* packed_array.h - the layout of packed_array (Bitsquid's "ID lookup table"), for its
 * source containers/id_lookup/packed_array.c (whose opening comment gives the design,
 * invariants, costs and source) and for tests that corrupt it on purpose. Per size class:
 * define ELEM_BYTES first; names get the size suffix (struct pa_8, ...).
 */
#ifndef ELEM_BYTES
#error "define ELEM_BYTES before including packed_array.h"
#endif
#include <stdint.h>

#include "dod_common.h"

#ifndef DOD_PACKED_ARRAY_ID_H
#define DOD_PACKED_ARRAY_ID_H
/* The id, as a uint64_t (the handle): bits 0..31 the slot (index entry), bits 32..63
 * the generation. The post's 32-bit id kept the index in its low 16 bits and added
 * 0x10000 per reuse; here the index takes the contract's 32 bits and the generation the
 * other 32, added as 1 << 32 per reuse (so it wraps after 2^32 reuses of a slot). */
#define PA_GEN_ADD ((uint64_t)1 << 32) /* the post's NEW_OBJECT_ID_ADD */
#define PA_END UINT32_C(0xFFFFFFFF)  /* index of a free entry; end of the free queue */
#define PA_MARK UINT32_C(0xFFFFFFFE) /* `next` of a live entry inside erase_n's pass 1 */
#define PA_MAX_ELEMS UINT32_C(0xFFFFFFFE) /* slots 0 .. PA_MAX_ELEMS - 1: never a mark */

static inline uint32_t pa_id_slot(uint64_t id) { return (uint32_t)id; }
static inline uint32_t pa_id_gen(uint64_t id) { return (uint32_t)(id >> 32); }

/* One index entry: the post's struct Index {ID id; unsigned short index, next;}. */
struct pa_index {
	uint64_t id;    /* the id of the slot's item (live) or of its last item (free) */
	uint32_t index; /* live: the item's place in objs; free: PA_END */
	uint32_t next;  /* free: the next entry of the free queue (PA_END: the back);
	                 * live: PA_END (PA_MARK while erase_n checks a batch) */
};
#endif

/* The post's struct Object: the id first, then the payload. */
struct SFX(pa_obj) {
	uint64_t id;
	DOD_ELEM item;
};

struct SFX(pa) {
	struct SFX(pa_obj) *objs; /* n live, packed; cap allocated */
	struct pa_index *ix;      /* n_slots entries in use; slot_cap allocated */
	size_t n, cap, n_slots, slot_cap;
	uint32_t deq, enq;        /* the free queue: dequeue here, enqueue there (PA_END:
	                           * empty, both) */
};
