/* static.h - the static allocation strategy (Our Machinery, "Bulk data": "a static array
 * of MAX elements"): one allocation of the capacity given at create, never grown. Simple
 * and never moves; wastes what is not used, and a full array is a clean DOD_EFULL, never
 * a crash. See store.h for the common interface.
 *
 *   [ e0 e1 ... e(cap-1) ]   cap fixed at init
 */
#ifndef DOD_ALLOC_STATIC_H
#define DOD_ALLOC_STATIC_H

#include <stddef.h>

struct dod_static_store {
	char *base;
	size_t cap, elem_bytes;
};
enum { dod_static_MOVES = 0 };
/* reserve_elems is the fixed capacity (at least 1). */
int dod_static_init(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_static_free(struct dod_static_store *s);
/* 0 when want_elems fits, else DOD_EFULL. */
int dod_static_reserve(struct dod_static_store *s, size_t want_elems);
/* The same with the elements starting on an align boundary (alloc/aligned.h), for
 * DOD_STORE_ALIGNED; reserve and free are the same. */
int dod_static_init_aligned(struct dod_static_store *s, size_t elem_bytes, size_t reserve_elems,
                            size_t align);
#define dod_static_reserve_aligned(s, want_elems, align) dod_static_reserve(s, want_elems)
#define dod_static_free_aligned dod_static_free
static inline char *dod_static_at(const struct dod_static_store *s, size_t i, size_t eb)
{
	return s->base + i * eb;
}
static inline size_t dod_static_run(const struct dod_static_store *s, size_t i)
{
	return s->cap - i;
}
static inline size_t dod_static_capacity(const struct dod_static_store *s) { return s->cap; }
static inline size_t dod_static_reserved_bytes(const struct dod_static_store *s)
{
	return s->cap * s->elem_bytes;
}
static inline size_t dod_static_committed_bytes(const struct dod_static_store *s)
{
	return s->cap * s->elem_bytes;
}

#endif
