/* weak.h - the weak pointer of Our Machinery's "Bulk data": { uint32_t id; uint32_t
 * generation; } as one uint64_t handle (id in the low half), shared by every bulk/
 * container.
 *
 * Generations: a slot's generation is odd while it holds an item and even while it is
 * free; allocating and erasing each add one. A weak pointer is valid iff its generation
 * equals the slot's, which implies odd. Bit 31 of a stored generation is erase_n's
 * "seen in this batch" mark (never set between calls), so generations count modulo 2^31:
 * a slot reused 2^30 times lets a weak pointer that old match again (the ABA limit).
 */
#ifndef DOD_BULK_WEAK_H
#define DOD_BULK_WEAK_H

#include <stddef.h>
#include <stdint.h>

#include "dod_common.h"

#define BULK_LIVE UINT32_C(1)          /* a generation's bit 0: set (odd) while live */
#define BULK_GEN_MASK UINT32_C(0x7FFFFFFF) /* the generation counter: bits 0..30 */
#define BULK_MARK UINT32_C(0x80000000)     /* bit 31: erase_n's "seen in this batch" */
#define BULK_MAX_SLOTS UINT32_C(0x7FFFFFFE) /* ids 1 .. max; id 0 is the free-list header */

/* A weak pointer as a handle: bits 0..31 the id (the slot), bits 32..63 the generation. */
#define BULK_WEAK_GEN_SHIFT 32

static inline uint64_t bulk_weak(uint32_t id, uint32_t gen)
{
	return (uint64_t)gen << BULK_WEAK_GEN_SHIFT | id;
}
static inline uint32_t bulk_weak_id(uint64_t h) { return (uint32_t)h; }
static inline uint32_t bulk_weak_gen(uint64_t h) { return (uint32_t)(h >> BULK_WEAK_GEN_SHIFT); }

/* The error of weak pointer h against a container with n_slots slots (ids 1..n_slots-1)
 * whose slot has generation slot_gen (read only when the id is in range): DOD_ERANGE
 * (id 0 or past the slots: never issued here), DOD_EFREE (an even or marked generation:
 * no live item ever has it, so the pointer is forged or points at a free slot),
 * DOD_ESTALE (the item was erased), or DOD_OK. */
static inline int bulk_weak_check(uint64_t h, size_t n_slots, uint32_t slot_gen)
{
	uint32_t id = bulk_weak_id(h), gen = bulk_weak_gen(h);
	if (id == 0 || id >= n_slots)
		return DOD_ERANGE;
	if (!(gen & BULK_LIVE) || (gen & BULK_MARK))
		return DOD_EFREE;
	return slot_gen == gen ? DOD_OK : DOD_ESTALE;
}

/* The error of weak pointer h (as bulk_weak_check) in a container of n_slots slots whose
 * slot generations gen_of(ctx, id) gives, read only for an id in range. gen_of only reads
 * here (the const is cast away for the signature bulk_weak_check_batch shares); it is a
 * static function of the caller, so the call inlines. */
static inline int bulk_weak_check_at(uint64_t h, size_t n_slots,
                                     uint32_t *(*gen_of)(void *ctx, uint32_t id),
                                     const void *ctx)
{
	uint32_t id = bulk_weak_id(h);
	return bulk_weak_check(h, n_slots, id && id < n_slots ? *gen_of((void *)ctx, id) : 0);
}

/* How many of the n weak pointers are valid (the contract's count_valid). */
static inline size_t bulk_weak_count_valid(const uint64_t *hs, size_t n, size_t n_slots,
                                           uint32_t *(*gen_of)(void *ctx, uint32_t id),
                                           const void *ctx)
{
	size_t valid = 0;
	for (size_t k = 0; k < n; k++)
		valid += bulk_weak_check_at(hs[k], n_slots, gen_of, ctx) == DOD_OK;
	return valid;
}

/* Pass 1 of every bulk container's all-or-nothing erase_n: checks the n weak pointers
 * against their slots' generations (gen_of(ctx, id): the stored generation of slot id,
 * 1 <= id < n_slots), marking each slot on the way so a repeated pointer fails, then
 * removes the marks. Returns DOD_OK (every pointer valid, none repeated; the caller may
 * erase them all) or the first failing pointer's own error, DOD_EFREE for a repeat.
 * Leaves every generation as it found it. gen_of is a static function of the caller, so
 * the call inlines. */
static inline int bulk_weak_check_batch(const uint64_t *hs, size_t n, size_t n_slots,
                                        uint32_t *(*gen_of)(void *ctx, uint32_t id),
                                        void *ctx)
{
	size_t k;
	int err = DOD_OK;
	for (k = 0; k < n; k++) {
		uint32_t id = bulk_weak_id(hs[k]);
		uint32_t *g = id && id < n_slots ? gen_of(ctx, id) : NULL;
		if ((err = bulk_weak_check(hs[k], n_slots, g ? *g : 0)) != DOD_OK)
			break;
		*g |= BULK_MARK;
	}
	for (size_t j = 0; j < k; j++)
		*gen_of(ctx, bulk_weak_id(hs[j])) &= BULK_GEN_MASK;
	if (err == DOD_OK)
		return DOD_OK;
	/* Its own error, not one our marks caused: valid once unmarked means a repeat. */
	int own = bulk_weak_check_at(hs[k], n_slots, gen_of, ctx);
	return own ? own : DOD_EFREE;
}

/* The generation after next: allocating or erasing a slot. */
static inline uint32_t bulk_gen_next(uint32_t gen) { return (gen + 1) & BULK_GEN_MASK; }

#endif
