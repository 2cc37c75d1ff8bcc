/* store.h - element storage behind one interface, one allocation strategy per variant
 * (Our Machinery, "Bulk data", allocation strategies). A container source includes this
 * header; the variant table's alloc column picks the strategy (the generated variant
 * header defines DOD_ALLOC_<alloc>), so one removal strategy serves every allocation
 * strategy without a line of its own code changing.
 *
 *   strategy   storage                                  moves on growth  full
 *   static     one malloc of the capacity given at create   never        DOD_EFULL
 *   realloc    one buffer, capacity x2 by realloc           yes          DOD_ENOMEM
 *   fixblocks  blocks of DOD_FIXBLOCK_ELEMS elements         never        DOD_ENOMEM
 *   geoblocks  blocks of 64, 128, 256, ... elements          never        DOD_ENOMEM
 *   vm         mmap(PROT_NONE) reservation, mprotect commit  never        DOD_EFULL
 *   constgrow  one buffer, capacity +128 by realloc          yes          DOD_ENOMEM
 *              (the article's counter-example, built to measure its claim)
 *   realloc_copy, constgrow_copy  realloc and constgrow grown as std::vector grows: a
 *              new buffer, a memcpy, the old one freed (glibc's realloc remaps a large
 *              block with mremap instead, copying nothing), so the copy the article's
 *              growth claims are about always happens       yes          DOD_ENOMEM
 *
 * Interface (X = the strategy; every function takes the element size in bytes, which the
 * caller passes as a compile-time constant so addressing folds to shifts and adds):
 *   int   store_init(s, elem_bytes, reserve_elems)  0, DOD_ENOMEM, DOD_EFULL
 *   void  store_free(s)
 *   int   store_reserve(s, want_elems)  capacity >= want: 0, DOD_ENOMEM or DOD_EFULL;
 *                                       on error s is unchanged
 *   char *store_at(s, i, elem_bytes)    address of element i < capacity       O(1)
 *   size_t store_run(s, i)              elements contiguous from i (to the end of its
 *                                       block, or of the capacity): loops go run by run
 *   size_t store_capacity(s), store_reserved_bytes(s), store_committed_bytes(s)
 *   DOD_STORE_MOVES                     1 when growth moves elements (pointers die)
 * A source that defines DOD_STORE_ALIGNED (bytes, a power of two from 16 to a page) before
 * including this header gets every run starting on such a boundary (alloc/aligned.h:
 * packed SIMD loads that never straddle two cache lines, cache sets that do not depend
 * on where malloc put the array): init, reserve and free map to each strategy's _aligned
 * functions; the strategy is otherwise the same (realloc and constgrow still grow by
 * realloc, their _copy forms by copying, plus a memmove when it lands at another offset; up to DOD_STORE_ALIGNED bytes
 * of slack per buffer or block, not counted in the committed bytes).
 * And, written once here over those for every strategy:
 *   void  store_zero(s, from, to, elem_bytes)       elements [from, to) zeroed, run by run
 *   int   store_init_zeroed(s, elem_bytes, reserve), store_reserve_zeroed(s, want, elem_bytes)
 *                                       as init and reserve, with every element they
 *                                       add zeroed (a container whose free slots must
 *                                       hold zeros: particles.c)
 *
 * Pointer stability is declared once, here: a variant on a store has the stable_pointers
 * capability (containers/variants.tsv) exactly when its store does not move elements on
 * growth (DOD_STORE_MOVES 0) and its removal strategy does not move items on erase. Each
 * source that includes this header states the latter once with
 * DOD_STORE_CHECK_STABLE_POINTERS(erase_moves), and a table line that disagrees stops the
 * build; tests/test_bulk_alloc.c checks each strategy's MOVES by growing it.
 */
#ifndef DOD_ALLOC_STORE_H
#define DOD_ALLOC_STORE_H

#include <string.h>

#include "dod_common.h"

#if defined(DOD_ALLOC_static)
#include "alloc/static.h"
#define DOD_STORE_X static
#elif defined(DOD_ALLOC_realloc)
#include "alloc/realloc.h"
#define DOD_STORE_X realloc
#elif defined(DOD_ALLOC_fixblocks)
#include "alloc/fixblocks.h"
#define DOD_STORE_X fixblocks
#elif defined(DOD_ALLOC_geoblocks)
#include "alloc/geoblocks.h"
#define DOD_STORE_X geoblocks
#elif defined(DOD_ALLOC_vm)
#include "alloc/vm.h"
#define DOD_STORE_X vm
#elif defined(DOD_ALLOC_constgrow)
#include "alloc/constgrow.h"
#define DOD_STORE_X constgrow
#elif defined(DOD_ALLOC_realloc_copy)
#include "alloc/realloc.h"
#define DOD_STORE_X realloc_copy
#elif defined(DOD_ALLOC_constgrow_copy)
#include "alloc/constgrow.h"
#define DOD_STORE_X constgrow_copy
#else
#error "store.h: the variant's alloc must be static, realloc, fixblocks, geoblocks, vm, constgrow, realloc_copy or constgrow_copy"
#endif

#define DOD_STORE_CAT_(a, b, c) a##_##b##_##c
#define DOD_STORE_CAT(a, b, c) DOD_STORE_CAT_(a, b, c)
#define DOD_STORE_FN(fn) DOD_STORE_CAT(dod, DOD_STORE_X, fn)

typedef struct DOD_STORE_FN(store) dod_store;
#if defined(DOD_STORE_ALIGNED)
#define store_init(s, eb, n) DOD_STORE_FN(init_aligned)(s, eb, n, DOD_STORE_ALIGNED)
#define store_free DOD_STORE_FN(free_aligned)
#define store_reserve(s, n) DOD_STORE_FN(reserve_aligned)(s, n, DOD_STORE_ALIGNED)
#else
#define store_init DOD_STORE_FN(init)
#define store_free DOD_STORE_FN(free)
#define store_reserve DOD_STORE_FN(reserve)
#endif
#define store_at DOD_STORE_FN(at)
#define store_run DOD_STORE_FN(run)
#define store_capacity DOD_STORE_FN(capacity)
#define store_reserved_bytes DOD_STORE_FN(reserved_bytes)
#define store_committed_bytes DOD_STORE_FN(committed_bytes)
#define DOD_STORE_MOVES DOD_STORE_FN(MOVES)

/* Zeroes elements [from, to) of s (to <= store_capacity(s)), run by run. O(to - from). */
static inline void store_zero(const dod_store *s, size_t from, size_t to, size_t elem_bytes)
{
	while (from < to) {
		size_t run = store_run(s, from);
		run = run < to - from ? run : to - from;
		memset(store_at(s, from, elem_bytes), 0, run * elem_bytes);
		from += run;
	}
}

/* store_init, then the whole capacity zeroed. Returns store_init's 0, DOD_ENOMEM or
 * DOD_EFULL. */
static inline int store_init_zeroed(dod_store *s, size_t elem_bytes, size_t reserve_elems)
{
	int err = store_init(s, elem_bytes, reserve_elems);
	if (!err)
		store_zero(s, 0, store_capacity(s), elem_bytes);
	return err;
}

/* store_reserve, then the elements it added zeroed. Returns store_reserve's 0, DOD_ENOMEM
 * or DOD_EFULL (s unchanged). */
static inline int store_reserve_zeroed(dod_store *s, size_t want_elems, size_t elem_bytes)
{
	size_t had = store_capacity(s);
	int err = store_reserve(s, want_elems);
	if (!err)
		store_zero(s, had, store_capacity(s), elem_bytes);
	return err;
}

/* erase_moves: 1 if the removal strategy moves items on erase. Needs contract.h and the
 * variant header (DOD_VARIANT_CAPS). */
#define DOD_STORE_CHECK_STABLE_POINTERS(erase_moves)                                     \
	_Static_assert(((DOD_VARIANT_CAPS & DOD_CAP_STABLE_POINTERS) != 0) ==                \
	                       (!(erase_moves) && !DOD_STORE_MOVES),                        \
	               "containers/variants.tsv: stable_pointers must be set exactly when "  \
	               "items move neither on erase nor on growth (alloc/store.h)")

#endif
