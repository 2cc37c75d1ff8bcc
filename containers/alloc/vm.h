/* vm.h - virtual-memory reserve (Our Machinery, "Bulk data", the author's default):
 * reserve a large address range with mmap(PROT_NONE), commit it with mprotect as the
 * array grows. Elements never move, the buffer stays contiguous (no extra indirection,
 * pointers stay valid), and memory is committed only as it is used. A full reservation is
 * a clean DOD_EFULL.
 *
 *   base [ committed, read/write | reserved, PROT_NONE ................ ]
 *          ^ grows in DOD_VM_COMMIT_BYTES steps (whole pages)
 *
 * The reservation is dod_vm_reserve_bytes (64 GiB unless a test lowers it), at least the
 * capacity asked for at create; reserving costs address space, not memory. An address
 * space that refuses it (valgrind's, under --counters callgrind; a ulimit -v) gets it
 * halved until it fits, down to that capacity: the store works, and is full sooner.
 */
#ifndef DOD_ALLOC_VM_H
#define DOD_ALLOC_VM_H

#include <stddef.h>

#define DOD_VM_COMMIT_BYTES ((size_t)64 << 10) /* commit granule (rounded up to pages) */
/* Bytes of address space each vm store reserves (default 64 GiB). */
extern size_t dod_vm_reserve_bytes;

struct dod_vm_store {
	char *base;
	size_t reserved, committed, elem_bytes; /* bytes, bytes, bytes */
};
enum { dod_vm_MOVES = 0 };
int dod_vm_init(struct dod_vm_store *s, size_t elem_bytes, size_t reserve_elems);
void dod_vm_free(struct dod_vm_store *s);
int dod_vm_reserve(struct dod_vm_store *s, size_t want_elems);
/* DOD_STORE_ALIGNED: the reservation starts on a page (mmap), and so on any boundary up to
 * a page already: the same functions. */
#define dod_vm_init_aligned(s, elem_bytes, reserve_elems, align) \
	dod_vm_init(s, elem_bytes, reserve_elems)
#define dod_vm_reserve_aligned(s, want_elems, align) dod_vm_reserve(s, want_elems)
#define dod_vm_free_aligned dod_vm_free
static inline char *dod_vm_at(const struct dod_vm_store *s, size_t i, size_t eb)
{
	return s->base + i * eb;
}
static inline size_t dod_vm_capacity(const struct dod_vm_store *s)
{
	return s->committed / s->elem_bytes;
}
static inline size_t dod_vm_run(const struct dod_vm_store *s, size_t i)
{
	return dod_vm_capacity(s) - i;
}
static inline size_t dod_vm_reserved_bytes(const struct dod_vm_store *s) { return s->reserved; }
static inline size_t dod_vm_committed_bytes(const struct dod_vm_store *s) { return s->committed; }

#endif
