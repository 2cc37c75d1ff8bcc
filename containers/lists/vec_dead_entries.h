/* vec_dead_entries.h - Thomas Young's vector with dead entries, generalized to the size
 * classes: the layout of vec_dead_entries (containers/lists/vec_dead_entries.c, family
 * `list`, with the consolidate extension of containers/list_contract.h).
 *
 * Source: Thomas Young (PathEngine), "Vector Hosted Lists" (2015),
 * cVectorWithDeadEntries: int32 values >= -1 where a dead entry's value encodes the next
 * dead entry by f(x) = -3 - x (its own inverse; a next of -1 ends the list, stored as
 * -2), so the free list costs no byte beside the values; first dead and the dead count
 * kept; addEntry reuses the first dead entry, markAsDead pushes one, iteration skips dead
 * entries, consolidate compacts and returns the old -> new remaps (-1 for dead).
 * Here the value is the size class's payload (DOD_ELEM) whose key is read as int64: live
 * values 0 .. INT64_MAX (insert_n of a larger key: DOD_EINVAL), dead entries < -1.
 *
 *   index      0    1    2    3    4    5
 *   entries [  7 | -6 | 12 | -2 |  9 | -4 | ... entry n-1 | capacity - n unused ]
 *   first_dead = 5: entry 5 holds -4 = f(1) -> entry 1 holds -6 = f(3) -> entry 3
 *   holds -2 = f(-1): the end. dead_count = 3; iteration visits 7, 12, 9.
 *
 * A reference (the contract's handle) is the entry's index: stable across other inserts
 * and erases and growth, issued again once its entry died and is reused (LIFO: the
 * latest dead entry first), so a stale reference is not detected after reuse. An index
 * >= n is DOD_ERANGE, a dead entry DOD_EFREE. Iteration is in index order, which is not
 * insertion order once entries are reused (no keeps_order).
 *
 * Invariants (vdead's check):
 *   - n <= capacity; every entry below n is live (value >= 0) or dead (value <= -2, its
 *     decoded next is -1 or an index below n);
 *   - the free list from first_dead (-1: empty) holds exactly dead_count distinct dead
 *     entries, no cycle, and the entries below n hold exactly dead_count dead values;
 *   - no entry holds a value in [INT64_MIN, -1] that is not a dead entry's code: erase_n
 *     marks the entries of its batch by setting the sign bit and never leaves one set.
 *
 * Costs: insert O(1) amortized (reuse, or push with growth x2 by realloc: alloc/realloc.h,
 * counted in dod_growth), erase O(1) per entry (O(n) batch validation first), lookup
 * O(1), iterate O(n) entries, live and dead (branch-free: a dead entry adds 0), clear
 * O(1), consolidate O(n). Memory: n x ELEM_BYTES, no byte for the free list.
 *
 * This header is per size class: define ELEM_BYTES before including it.
 */
#ifndef DOD_VEC_DEAD_ENTRIES_H
#define DOD_VEC_DEAD_ENTRIES_H
#include <stdint.h>

/* The article's encoding: a dead entry's value is vdead_code(next dead index), and
 * vdead_code(value) gives the index back: f(f(x)) == x. vdead_code(-1) == -2: the end. */
static inline int64_t vdead_code(int64_t x) { return -3 - x; }
#endif

#ifndef ELEM_BYTES
#error "define ELEM_BYTES before including vec_dead_entries.h"
#endif
#include "alloc/realloc.h"
#include "dod_common.h"

struct SFX(vdead) {
	struct dod_realloc_store entries; /* DOD_ELEM each; the key read as int64 */
	size_t n;                         /* entries in use: live or dead */
	size_t dead_count;
	int64_t first_dead;               /* index of the latest dead entry, -1: none */
};
