/* validate - how many old handles a container rejects: the handle_map article's (Jeff
 * Kiah, 2016) "generation and typeId catch stale and foreign handles" and "clear keeps
 * stale handles detectable, reset does not". Setup (untimed): n items (keys 0..n-1), then
 * by --old-handles:
 *   erased   all n erased in one erase_n, then n new items (keys n..2n-1): the old
 *            handles' slots are reused by live items;
 *   cleared  ops->clear, then n new items;   reset  ops->reset, then n new items;
 *   foreign  the container keeps its n items; the old handles are the n of a second
 *            container of the variant holding keys n..2n-1, made by create_typed with
 *            type id DOD_DEFAULT_TYPE_ID + 1 where the container has DOD_EXT_TYPE_IDS
 *            (handle_map), else by create (a design without type ids cannot tell).
 * Timed: one ops->count_valid over the n old handles; ops = n. Checksum: the old handles
 * rejected, n - valid: the claim's "detected" out of n. A handle a design cannot reject
 * (after reset, of another map without type ids) is a figure, not a failure.
 * Verification: the count again one handle at a time (lookup_sum, which fails on a
 * rejected handle, for a container with DOD_CAP_DETECTS_STALE; count_valid for the
 * others, whose lookup need not validate: peer_colony's raw pointers), and the n live
 * items reachable through their own handles with the right key sum. */
#include <stdlib.h>

#include "scenario.h"

/* Which old handles it checks (--old-handles). */
enum scn_old_handles {
	SCN_OLD_ERASED,  /* of items erased, their slots reused by as many new items */
	SCN_OLD_CLEARED, /* of items removed by ops->clear, then n new items inserted */
	SCN_OLD_RESET,   /* of items removed by ops->reset, then n new items inserted */
	SCN_OLD_FOREIGN  /* issued by a second container of the variant (another type id
	                    where the container has type ids: DOD_EXT_TYPE_IDS) */
};
#define SCN_N_OLD_HANDLES 4
static const char *const old_handles_names[SCN_N_OLD_HANDLES] = {
	"erased", "cleared", "reset", "foreign",
};

/* The axis old_handles (--old-handles, CSV column axis_old_handles). */
static const struct hb_axis old_handles_axis = {
	.rank = 8, .option = "old-handles", .metavar = "H",
	.def = "erased", HB_AXIS_KEY("old_handles"),
	.help = "which old handles are checked: erased (their slots reused by new items), "
	"cleared or reset (then n new items inserted), foreign (issued by another container "
	"of the variant, with another type id where it has type ids)",
	.kind = HB_AXIS_WORD, .words = old_handles_names, .n_words = SCN_N_OLD_HANDLES,
	.first_word = 0, .absent_help = "run without it",
};
HB_AXIS_REGISTER(old_handles_axis)

/* p's kind of old handles. */
static enum scn_old_handles old_kind(const struct scn_params *p)
{
	return (enum scn_old_handles)scn_axis_value(p, &old_handles_axis).u;
}

struct old_handles {
	void *c, *other;  /* the container checked; the foreign handles' container */
	uint64_t *old;    /* the n handles checked */
	uint64_t *live;   /* the handles of c's n live items */
	uint64_t live_first_key;
};

static void old_free(const struct dod_ops *ops, struct old_handles *o)
{
	if (o->c)
		ops->destroy(o->c);
	if (o->other)
		ops->destroy(o->other);
	free(o->old);
	free(o->live);
}

/* The second container of the foreign handles: another type id where there are any. */
static int create_other(const struct dod_ops *ops, size_t n, void **out)
{
	if (dod_exts(ops) & DOD_EXT_TYPE_IDS)
		return ops->type_ids->create_typed(out, n, DOD_DEFAULT_TYPE_ID + 1);
	return ops->create(out, n);
}

/* Untimed setup (the opening comment). Returns 0 or SCN_ERROR (o freed). */
static int setup(const struct dod_ops *ops, const struct scn_params *p, struct old_handles *o,
                 struct scn_result *res)
{
	size_t n = p->n;
	*o = (struct old_handles){.live_first_key = n};
	if (scn_fill(ops, n, &o->c, &o->old, res) || scn_handles_array(ops, n, &o->live, res)) {
		old_free(ops, o);
		return SCN_ERROR;
	}
	int err = 0;
	const char *what = "insert_n";
	switch (old_kind(p)) {
	case SCN_OLD_ERASED: err = ops->erase_n(o->c, o->old, n), what = "erase_n"; break;
	case SCN_OLD_CLEARED: err = ops->clear(o->c), what = "clear"; break;
	case SCN_OLD_RESET: err = ops->reset(o->c), what = "reset"; break;
	case SCN_OLD_FOREIGN: {
		uint64_t *mine = o->old; /* c's items stay: their handles are the live ones */
		o->old = o->live;
		o->live = mine;
		o->live_first_key = 0;
		if ((err = create_other(ops, n, &o->other)))
			what = "create the second container";
		else
			err = ops->insert_n(o->other, n, n, o->old);
		break;
	}
	}
	if (!err && old_kind(p) != SCN_OLD_FOREIGN)
		err = ops->insert_n(o->c, n, n, o->live);
	if (err) {
		old_free(ops, o);
		return scn_error(res, what, err);
	}
	return 0;
}

/* The rejected count again, one handle at a time, and the live items intact. */
static void verify(const struct dod_ops *ops, const struct old_handles *o, size_t n,
                   size_t rejected, struct scn_result *res)
{
	bool lookup_validates = (ops->caps & DOD_CAP_DETECTS_STALE) != 0;
	size_t again = 0;
	uint64_t sum;
	for (size_t k = 0; k < n; k++)
		again += lookup_validates ? ops->lookup_sum(o->c, &o->old[k], 1, &sum) != DOD_OK
		                          : ops->count_valid(o->c, &o->old[k], 1) == 0;
	uint64_t want = scn_key_sum(n) + (uint64_t)n * o->live_first_key;
	res->checksum = rejected;
	res->verified = again == rejected && ops->count_valid(o->c, o->live, n) == n &&
	                ops->lookup_sum(o->c, o->live, n, &sum) == DOD_OK && sum == want;
	if (!res->verified)
		scn_fail(res, "%zu old handles rejected in one batch, %zu one by one; or a live "
		         "item is not reachable by its handle", rejected, again);
}

static int run(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
               struct scn_result *res)
{
	struct old_handles o;
	if (setup(ops, p, &o, res))
		return SCN_ERROR;
	hb_begin(r);
	size_t valid = ops->count_valid(o.c, o.old, p->n);
	DOD_KEEP(valid);
	hb_end(r);
	res->ops = p->n;
	verify(ops, &o, p->n, p->n - valid, res);
	old_free(ops, &o);
	return SCN_RAN;
}

static const char *cannot_run(const struct dod_ops *ops)
{
	if (scn_needs_handles(ops))
		return scn_needs_handles(ops);
	return ops->count_valid ? NULL : "no count_valid";
}

/* The old handles of a kind exist only where the container has the operation that makes
 * them. */
static const char *cannot_run_with(const struct dod_ops *ops, const struct scn_params *p)
{
	switch (old_kind(p)) {
	case SCN_OLD_ERASED: return ops->erase_n ? NULL : "no erase_n: no erased handles";
	case SCN_OLD_CLEARED: return ops->clear ? NULL : "no clear: no cleared handles";
	case SCN_OLD_RESET: return ops->reset ? NULL : "no reset distinct from clear";
	case SCN_OLD_FOREIGN: return NULL;
	}
	return NULL;
}

static const struct scn_scenario validate = {
	.name = "validate",
	.help = "check n old handles (--old-handles erased|cleared|reset|foreign); checksum = "
	        "handles rejected",
	.axes = SCN_AXES(&old_handles_axis),
	.cannot_run = cannot_run,
	.cannot_run_with = cannot_run_with,
	.run = run,
};
SCN_REGISTER(validate)
