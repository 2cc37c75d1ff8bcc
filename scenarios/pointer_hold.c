/* pointer_hold - whether growth moves items a pointer is held to (Our Machinery, "Bulk
 * data": reallocation moves the elements, so pointers to them dangle; blocks and a VM
 * reserve never move them). The harness, not the container, tells: it keeps the address
 * of a sample of items from their insertion on and compares it with where the item is at
 * the end. Timed: the build, create with 0 reserved and n items inserted in batches of
 * k = ceil(n / POINTER_HOLD_SAMPLES), after each batch its first item's address taken
 * through ops->item_addr (one untimed-helper call per k items: the time is the build's and
 * no rule reads it) and a 64-byte block of the scenario's own allocated and held to the
 * end, as a program's other allocations would be (without one, glibc grows a lone buffer
 * at the top of the heap in place: measured, bulk_holes_realloc moved none of its items
 * in its 7 growths to n = 100k; the allocs column counts these blocks); the CSV's grows and grow_moves are the stores' own count of their
 * growths (dod_growth), beside the measured figure. ops = items sampled (item 0 and every
 * k-th). Checksum: how many sampled items are no longer at the address taken when they
 * were inserted (moved by a growth after their insertion: pointers to them dangle).
 * Verification: each sampled item's key at its current address (through item_addr), the
 * size and the key sum by iteration. */
#include <stdlib.h>

#include "scenario.h"

#define POINTER_HOLD_SAMPLES 64   /* items whose address is held */
#define POINTER_HOLD_NEIGHBOUR 64 /* bytes of the block allocated after each batch */

struct held {
	uint64_t *handles;    /* the n handles */
	void **neighbours;    /* one small block allocated after each batch */
	const void **addr;    /* each sampled item's address right after its insertion */
	size_t k, samples;    /* batch size (sampled item j is item j * k) and samples */
};

/* The build, in the timed region (the opening comment). Returns 0 or a DOD error. */
static int build(const struct dod_ops *ops, size_t n, struct held *h, void **c)
{
	int err = ops->create(c, 0);
	for (size_t i = 0, j = 0; !err && i < n; i += h->k, j++) {
		size_t m = n - i < h->k ? n - i : h->k;
		err = ops->insert_n(*c, m, i, h->handles + i);
		if (!err) {
			h->addr[j] = ops->item_addr(*c, h->handles[i]);
			h->neighbours[j] = malloc(POINTER_HOLD_NEIGHBOUR);
			err = h->neighbours[j] ? 0 : DOD_ENOMEM;
		}
	}
	return err;
}

/* The checksum (sampled items whose address changed), each sampled item's key where it
 * is now, the size and the key sum. */
static void count_moved(const struct dod_ops *ops, const void *c, size_t n,
                        const struct held *h, struct scn_result *res)
{
	uint64_t moved = 0;
	size_t lost = 0;
	for (size_t j = 0; j < h->samples; j++) {
		const uint64_t *now = ops->item_addr(c, h->handles[j * h->k]);
		lost += !h->addr[j] || !now || *now != j * h->k;
		moved += now != h->addr[j];
	}
	scn_check_sum(res, ops->iterate_sum(c), scn_key_sum(n));
	res->checksum = moved;
	if (res->verified && (lost || ops->size(c) != n))
		scn_fail(res, "%zu sampled items not found with their key; size %zu of %zu", lost,
		         ops->size(c), n);
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	size_t n = p->n;
	struct held h = {.k = (n + POINTER_HOLD_SAMPLES - 1) / POINTER_HOLD_SAMPLES};
	h.samples = (n + h.k - 1) / h.k;
	h.addr = scn_alloc_touched(h.samples, sizeof *h.addr);
	h.neighbours = calloc(h.samples, sizeof *h.neighbours);
	if (!h.addr || !h.neighbours || scn_handles_array(ops, n, &h.handles, res)) {
		free(h.addr);
		free(h.neighbours);
		return res->why[0] ? SCN_ERROR : scn_error(res, "pointer_hold setup", DOD_ENOMEM);
	}
	void *c = NULL;
	hb_begin(r);
	int err = build(ops, n, &h, &c);
	DOD_CLOBBER();
	hb_end(r);
	res->ops = h.samples;
	int rc = SCN_RAN;
	if (err) {
		rc = scn_error(res, "build", err);
	} else {
		count_moved(ops, c, n, &h, res);
	}
	if (c)
		ops->destroy(c);
	for (size_t j = 0; j < h.samples; j++)
		free(h.neighbours[j]);
	free(h.neighbours);
	free(h.handles);
	free(h.addr);
	return rc;
}

static const struct scn_scenario pointer_hold = {
	.name = "pointer_hold",
	.help = "grow from empty to n holding the addresses of 64 sampled items; checksum = "
	        "sampled items that moved",
	.grows_from_empty = true,
	.cannot_run = scn_needs_item_addr,
	.run = run,
};
SCN_REGISTER(pointer_hold)
