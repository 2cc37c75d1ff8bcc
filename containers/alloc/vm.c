/* vm.c - virtual-memory reserve (see vm.h). */
#define _DEFAULT_SOURCE
#include "vm.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alloc/aligned.h"
#include "dod_common.h"

size_t dod_vm_reserve_bytes = (size_t)64 << 30;

int dod_vm_init(struct dod_vm_store *s, size_t elem_bytes, size_t reserve_elems)
{
	size_t page = dod_page_bytes();
	s->base = NULL;
	s->committed = 0;
	s->elem_bytes = elem_bytes;
	if (reserve_elems > SIZE_MAX / elem_bytes - page)
		return DOD_ENOMEM;
	size_t need = (reserve_elems * elem_bytes + page - 1) / page * page;
	size_t bytes = need > dod_vm_reserve_bytes ? need : dod_vm_reserve_bytes;
	bytes = (bytes + page - 1) / page * page;
	void *p;
	/* An address space smaller than the default reservation (valgrind's, a ulimit -v)
	 * refuses it: halve it down to what the capacity asked for needs before giving up,
	 * so the store works there with an earlier DOD_EFULL. */
	while ((p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
	                 0)) == MAP_FAILED) {
		if (bytes <= need || bytes <= page)
			return DOD_ENOMEM;
		bytes = bytes / 2 / page * page;
		bytes = bytes > need ? bytes : need;
	}
	s->base = p;
	s->reserved = bytes;
	int err = dod_vm_reserve(s, reserve_elems);
	if (err)
		dod_vm_free(s);
	return err;
}

void dod_vm_free(struct dod_vm_store *s)
{
	if (s->base)
		munmap(s->base, s->reserved);
	s->base = NULL;
	s->reserved = s->committed = 0;
}

int dod_vm_reserve(struct dod_vm_store *s, size_t want_elems)
{
	if (want_elems <= dod_vm_capacity(s))
		return DOD_OK;
	if (want_elems > s->reserved / s->elem_bytes)
		return DOD_EFULL;
	size_t page = dod_page_bytes();
	size_t granule = (DOD_VM_COMMIT_BYTES + page - 1) / page * page;
	size_t need = want_elems * s->elem_bytes;
	need = (need + granule - 1) / granule * granule;
	if (need > s->reserved)
		need = s->reserved;
	if (mprotect(s->base + s->committed, need - s->committed, PROT_READ | PROT_WRITE) != 0)
		return DOD_ENOMEM;
	s->committed = need;
	return DOD_OK;
}
