/* stb_ds_glue.h - what the stb_ds peer (peers/stb_arr.c) needs from stb_ds (Sean
 * Barrett's stb_ds.h, Debian's libstb-dev) beyond its macros: out-of-memory as an error
 * code, reserving room up front, and honest byte counts. Implemented in
 * peers/stb_ds_impl.c, the one translation unit that compiles stb_ds with
 * STB_DS_IMPLEMENTATION (a container source is compiled once per size class, stb_ds must
 * be compiled exactly once).
 *
 * Why this exists. stb_ds 0.67 does not check its allocations: stbds_arrgrowf and the
 * hash index builder write through the result of STBDS_REALLOC, so a failed realloc is a
 * NULL dereference. stb_ds_impl.c defines STBDS_REALLOC as a wrapper that, when realloc
 * fails, longjmps to the glue function that made the call (every stb_ds allocation the
 * container makes goes through a function below); each of them returns DOD_ENOMEM with
 * the array or map unchanged, because every allocation inside stb_ds happens before the
 * structure it replaces is touched (checked call site by call site in stb_ds_impl.c).
 * The container then uses arrput and hmput only where these reservations guarantee that
 * they do not allocate, and hmdel only between dod_stbds_hm_hold and dod_stbds_hm_settle
 * (hmdel's own shrink and tombstone rebuild would allocate after the item is gone).
 * An stb_ds allocation outside these functions that fails calls abort(): a bug of the
 * container, not an out-of-memory condition it could report.
 *
 * Every function is O(1) unless it (re)builds the hash index: O(slots).
 */
#ifndef DOD_STB_DS_GLUE_H
#define DOD_STB_DS_GLUE_H

#include <stddef.h>
#include <stdint.h>

/* The entry of the id -> dense index map (an stb_ds hash map: hmput, hmgeti, hmdel). */
struct dod_stbds_kv {
	uint64_t key;   /* the item's id */
	uint64_t value; /* its dense index; bit 63 is erase_n's "seen in this batch" mark */
};

/* Thresholds of the map's hash index saved by dod_stbds_hm_hold. */
struct dod_stbds_hold {
	size_t shrink_below, rebuild_above;
};

/* Makes the stb_ds array a (NULL: empty) of elem_bytes elements hold at least cap
 * elements without reallocating, growing it by stb_ds's own rule (at least double).
 * Returns the array, possibly moved (invalidates pointers into it), with *err = 0; or a
 * unchanged with *err = DOD_ENOMEM (realloc failed, or the size overflows). */
void *dod_stbds_arr_reserve(void *a, size_t elem_bytes, size_t cap, int *err);

/* An empty map with its hash index built (8 slots), so lookups never allocate (hmgeti
 * on a NULL map does). Returns 0 or DOD_ENOMEM (*out untouched). Free with hmfree. */
int dod_stbds_hm_create(struct dod_stbds_kv **out);

/* Makes room in the map *m for n_entries entries in total: array capacity for them and
 * a hash index with as many slots as stb_ds would have grown it to by the n_entries-th
 * hmput (the smallest power of two >= 8 of which n_entries is at most 3/4), so hmput
 * neither reallocates nor rebuilds until then. Rebuilding drops tombstones. Returns 0 or
 * DOD_ENOMEM with the entries unchanged (the array's capacity may have grown). */
int dod_stbds_hm_reserve(struct dod_stbds_kv **m, size_t n_entries);

/* Turns off hmdel's shrink and tombstone rebuild on the map m, saving the thresholds in
 * *h, so a run of hmdel calls cannot allocate. Probing still terminates: deletions turn
 * live slots into tombstones and never fill an empty slot. */
void dod_stbds_hm_hold(struct dod_stbds_kv *m, struct dod_stbds_hold *h);

/* Restores the thresholds of *h (NULL: already restored) and does what hmdel would have
 * done after the run: halves the index while it is under 1/4 full (stb_ds's shrink rule,
 * repeated), or rebuilds it at its size when tombstones pass stb_ds's limit. Returns 0,
 * or DOD_ENOMEM with the map intact and valid but not yet settled: call again before
 * the next hmput (its tombstones may exceed what hmput's probing assumes). */
int dod_stbds_hm_settle(struct dod_stbds_kv **m, const struct dod_stbds_hold *h);

/* Removes every entry of m in place, keeping the array's capacity and the hash index's
 * slots (like arrsetlen(a, 0) for arrays): never allocates. O(slots). */
void dod_stbds_hm_clear(struct dod_stbds_kv *m);

/* Heap bytes the map holds, as requested from realloc: its array (header and capacity
 * including stb_ds's default entry) plus its hash index, whose one allocation is
 * (slots / 8) buckets of 8 hashes and 8 indices (128 bytes) + the index header
 * (sizeof(stbds_hash_index)) + 63 bytes of alignment slack. */
size_t dod_stbds_hm_bytes(const struct dod_stbds_kv *m);

/* Slots of m's hash index (0: none yet). For tests. */
size_t dod_stbds_hm_slots(const struct dod_stbds_kv *m);

/* Test hook: the n-th stb_ds allocation from now fails as if realloc had returned NULL
 * (0 turns it off; it also turns itself off after failing once). Lets the tests drive
 * every out-of-memory path (Lua's test allocator idea). */
void dod_stbds_fail_nth_alloc(unsigned long n);

#endif
