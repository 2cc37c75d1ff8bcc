/* fuzz_containers.c - libFuzzer target: differential fuzzing of one registered container
 * variant against the reference model (tests/model.h), with its invariant check
 * (dod_ops.check) and a failing allocator (alloc_hook.h).
 *
 * The variant is named by the environment: DODFUZZ_TARGET=NAME (a name from the registry,
 * harness/registry.c, generated from containers/variants.tsv; `make fuzz` runs every one,
 * each with its own corpus directory). Unset or unknown, the binary lists the names and
 * exits 2.
 *
 * Input decoding (a byte past the end reads as 0, so every input is a valid program):
 *   byte 0      size class: the (b mod k)-th of the k classes the variant is built at
 *   byte 1      capacity given to create: b (fixed-capacity containers: 8 + b)
 *   byte 2      allocation failing inside create: (b mod 8), 0 = none
 *   then ops, each an opcode byte (mod 22) and its argument bytes:
 *     0 insert       k = b < 200 ? b mod 32 : (b - 200) x 8   (live items kept <= 2048)
 *     1 erase        c = b mod 16 + 1 distinct live items, each picked by a byte
 *     2 erase-bad    a batch of c = b mod 8 distinct live handles (a byte picks each)
 *                    and one bad handle (kind byte, argument byte(s), then a position
 *                    byte): must fail whole, unchanged, unless the "bad" one equals a
 *                    live handle (then it is good); a repeat must give DOD_EFREE
 *     3 lookup       as erase-bad without the position byte: count_valid and
 *                    lookup_sum of the batch
 *     4 count-bad    (b mod 8) + 1 bad handles: count_valid, and lookup_sum one by one
 *     5 iterate      iterate_sum (compared after every op anyway), then the operations
 *                    of the variant's family extensions (model_run_exts): the particle
 *                    kernels with every allocation failing (they must not allocate),
 *                    type ids' create_typed too (it must fail cleanly), then the list
 *                    operations and consolidate (the model allocates for them; while
 *                    the live items leave room)
 *     6 clear        7 reset (when offered)   8 shuffle (seed byte, when offered)
 *     9 defragment   swap budget b mod 8 (0 = no limit); storage sorted when it finishes
 *    10 fail-alloc   the next mutating op runs with allocation (b mod 32) + 1 failing
 *                    (alloc_hook.h): it must succeed, or return DOD_ENOMEM with the
 *                    container unchanged (model comparison, invariant check) and then
 *                    succeed when run again
 *    11 churn        erase and re-insert the newest live item b times, for b >= 250
 *                    65536 >> (255 - b) times (generation wrap-around: handle_map's
 *                    16-bit generation wraps after 65536)
 *    12 foreign      insert (b mod 8) + 1 items into a second container of the same
 *                    variant, whose handles are the "foreign" bad handles
 *    13 erase-all    every live item in one batch, last first
 *    14 forged       count_valid of a handle made of the next 8 bytes
 *    15 compare      (nothing: the comparison runs after every op)
 *   The list family (containers/list_contract.h; a variant without the extension reads
 *   the argument bytes and does nothing):
 *    16 insert-at    k = b mod 8 + 1 items; a where byte w (w mod 4: 0 before, 1 after,
 *                    2 before, 3 a bad where 2 + w / 4: DOD_EINVAL); a bad byte; k
 *                    bytes each picking a reference (a live item's, or a position
 *                    <= size + i before / < size + i after); when bad mod 4 == 0 the
 *                    ((bad / 4) mod k)-th is replaced by a bad handle (kind and argument
 *                    bytes as above): must fail whole, unchanged. Honours fail-alloc
 *    17 insert-sorted  k = b mod 8 + 1 keys, each next_key x byte / 256 (among the
 *                    keys held, repeats included). Honours fail-alloc
 *    18 erase-at     k = b mod 8 + 1 positions; a bad byte; k bytes, each a position
 *                    (mod size - i); when bad mod 4 == 0 one is size + bad mod 3:
 *                    DOD_ERANGE, unchanged; the key sum of a good batch is checked
 *    19 consolidate  with every allocation failing (it needs none), into a remap of
 *                    exactly ref_bound entries, which must be exact (model_consolidated)
 *   The tags family (containers/aoa_contract.h; a variant without the extension reads
 *   the argument bytes and does nothing):
 *    20 tags         k = b mod 16 + 1 pairs; an op byte (mod 3: 0 add_n, 1 remove_n,
 *                    2 has_n); a bad byte; k pairs of bytes, each a live entity (picked
 *                    by the first) and a tag (the second mod 8: repeats and misses);
 *                    when bad mod 4 == 0 the ((bad / 4) mod k)-th entity is a bad handle
 *                    (kind and argument bytes as above): must fail whole, unchanged;
 *                    the refused, removed and found counts are the model's. add_n
 *                    honours fail-alloc
 *   The DataComponent (containers/dc_contract.h; nothing without the extension):
 *    21 dc           a byte h, a seed byte s: h odd, copy_n of 1 + s mod 8 live entities
 *                    (picked from the seed); h even, set_n of a random batch of up to 8
 *                    sets (model_dc_sets, seeded by s) whose last set is bad (1 an entity
 *                    no live item has, 2 key 0, 3 a bad type) when (h / 2) mod 8 is 1..3:
 *                    must fail whole, unchanged. Both honour fail-alloc
 *   Bad-handle kinds (kind byte mod 7), argument byte a:
 *     0 stale (a recent dead handle, the a-th latest)  1 forged (8 input bytes)
 *     2 a live handle with bit (a mod 64) flipped       3 foreign (the other container's)
 *     4 out of range (all ones, zero, high bits set on a live handle, the top bit)
 *     5 a repeat of a live handle (a repeat within the batch for erase)
 *     6 a live handle plus (a + 1)
 * After every op: model_compare (size, sums by iteration, dump and handle, order, dead
 * handles valid exactly when equal to a live one, the invariant check). A mismatch prints
 * the variant, size, op number and reason, and aborts (libFuzzer saves the input).
 * A container whose lookup_sum does not validate (the contract's raw-pointer exception,
 * found by model_init's probe) is never given a handle the model does not know live.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_hook.h"
#include "hb.h"
#include "model.h"
#include "model_dc.h"

#define MAX_LIVE 2048
#define MAX_BATCH 64

static const struct hb_container *target;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *name = getenv("DODFUZZ_TARGET");
	for (size_t i = 0; name && i < hb_n_containers; i++)
		if (strcmp(hb_containers[i].name, name) == 0)
			target = &hb_containers[i];
	if (!target) {
		fprintf(stderr, "fuzz_containers: set DODFUZZ_TARGET to one of:");
		for (size_t i = 0; i < hb_n_containers; i++)
			fprintf(stderr, " %s", hb_containers[i].name);
		fprintf(stderr, "\n");
		exit(2);
	}
	return 0;
}

/* ---- the input ---- */
struct input {
	const uint8_t *p;
	size_t n, at;
};
static uint8_t byte(struct input *in) { return in->at < in->n ? in->p[in->at++] : 0; }
static uint64_t u64(struct input *in)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)byte(in) << (8 * i);
	return v;
}

/* ---- one run ---- */
struct run {
	const struct dod_ops *ops;
	void *c, *other;
	struct model m;
	uint64_t other_h[256];
	size_t n_other;
	size_t capacity; /* create's, for fixed-capacity containers */
	long fail_next;  /* armed for the next mutating op (fail-alloc), 0 = none */
	size_t op_no;
	const char *op;
};

static void die(const struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(const struct run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "dodfuzz %s/%zu: op %zu (%s): ", r->ops->name, r->ops->elem_bytes, r->op_no,
	        r->op ? r->op : "setup");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

static void compare(struct run *r)
{
	char why[512];
	if (model_compare(&r->m, r->c, why, sizeof why) != 0)
		die(r, "%s", why);
}

/* Arms the failing allocator for a mutating op if fail-alloc asked for it. */
static bool arm(struct run *r)
{
	long k = r->fail_next;
	r->fail_next = 0;
	dod_fuzz_alloc_arm(k);
	return k > 0;
}

/* After a mutating op that ran armed and returned err: DOD_ENOMEM must leave the
 * container as the model says (unchanged); returns whether to run the op again. Any
 * other result goes on to be checked as usual. Without arming, DOD_ENOMEM is a failure. */
static bool failed_cleanly(struct run *r, bool armed, int err)
{
	dod_fuzz_alloc_arm(0);
	if (err != DOD_ENOMEM)
		return false;
	if (!armed)
		die(r, "DOD_ENOMEM with no allocation failing");
	compare(r);
	return true;
}

/* A random live handle (n > 0), picked by a byte. */
static uint64_t live_handle(const struct run *r, uint8_t b)
{
	return r->m.live[b % r->m.n].handle;
}

/* One bad handle of the kind and argument read from the input (see the file comment);
 * batch/len: the batch it joins (for kind 5, a repeat). */
static uint64_t bad_handle(struct run *r, struct input *in, const uint64_t *batch, size_t len)
{
	uint8_t kind = byte(in) % 7, a = byte(in);
	size_t nd = model_n_dead(&r->m);
	switch (kind) {
	case 0:
		if (nd)
			return model_dead_at(&r->m, a % nd);
		return UINT64_C(0x0123456789ABCDEF) ^ a;
	case 1:
		return u64(in);
	case 2:
		return r->m.n ? live_handle(r, a) ^ (UINT64_C(1) << (a % 64)) : (uint64_t)a << 40;
	case 3:
		return r->n_other ? r->other_h[a % r->n_other] : UINT64_MAX - a;
	case 4: {
		uint64_t base = r->m.n ? live_handle(r, a) : 0;
		switch (a % 4) {
		case 0: return UINT64_MAX;
		case 1: return 0;
		case 2: return base | UINT64_C(0xFFFF) << 32;
		default: return base | UINT64_C(1) << 63;
		}
	}
	case 5:
		if (len)
			return batch[a % len];
		return r->m.n ? live_handle(r, a) : UINT64_MAX - 1;
	default:
		return r->m.n ? live_handle(r, a) + (uint64_t)a + 1 : (uint64_t)a + 1;
	}
}

/* c distinct live handles picked by bytes (c <= n). */
static size_t pick_live(struct run *r, struct input *in, uint64_t *out, size_t c)
{
	static unsigned char used[MAX_LIVE];
	if (c > r->m.n)
		c = r->m.n;
	memset(used, 0, r->m.n);
	for (size_t i = 0; i < c; i++) {
		size_t j = byte(in) % r->m.n;
		while (used[j])
			j = (j + 1) % r->m.n;
		used[j] = 1;
		out[i] = r->m.live[j].handle;
	}
	return c;
}

static void do_insert(struct run *r, size_t k, void *c, struct model *m)
{
	static uint64_t hs[MAX_LIVE + 2048];
	char why[512];
	bool fixed = r->ops->caps & DOD_CAP_FIXED_CAPACITY;
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->insert_n(c, k, m->next_key, m->handles ? hs : NULL);
		if (failed_cleanly(r, armed, err))
			continue;
		if (fixed && m->n + k > r->capacity) {
			if (err != DOD_EFULL)
				die(r, "insert of %zu into %zu of capacity %zu: %s, not DOD_EFULL", k, m->n,
				    r->capacity, dod_strerror(err));
			return; /* unchanged: the comparison after the op checks it */
		}
		if (err != DOD_OK)
			die(r, "insert of %zu (live %zu): %s", k, m->n, dod_strerror(err));
		if (model_inserted(m, k, m->handles ? hs : NULL, why, sizeof why) != 0)
			die(r, "%s", why);
		return;
	}
}

/* erase_n of a batch: the model decides whether it must succeed. */
static void do_erase(struct run *r, const uint64_t *hs, size_t n)
{
	int want = model_erase_expect(&r->m, hs, n);
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->erase_n(r->c, hs, n);
		if (failed_cleanly(r, armed, err))
			continue;
		if (want == DOD_OK) {
			if (err != DOD_OK)
				die(r, "erase_n of %zu live, distinct handles: %s", n, dod_strerror(err));
			model_erased(&r->m, hs, n);
		} else if (err == DOD_OK) {
			die(r, "erase_n accepted a batch of %zu with a %s handle", n,
			    want == DOD_EFREE ? "repeated" : "bad");
		} else if (want == DOD_EFREE && err != DOD_EFREE) {
			die(r, "erase_n of a batch whose only fault is a repeat: %s, not DOD_EFREE",
			    dod_strerror(err));
		}
		return;
	}
}

/* A mutating op without arguments (clear, reset, shuffle, defragment): run armed if
 * asked, again if it failed cleanly. */
static int run_op(struct run *r, int (*op)(struct run *r))
{
	for (;;) {
		bool armed = arm(r);
		int err = op(r);
		if (!failed_cleanly(r, armed, err))
			return err;
	}
}

static uint64_t shuffle_seed;
static size_t defrag_budget, defrag_swaps;
static int op_clear(struct run *r) { return r->ops->clear(r->c); }
static int op_reset(struct run *r) { return r->ops->reset(r->c); }
static int op_shuffle(struct run *r) { return r->ops->shuffle(r->c, shuffle_seed); }
static int op_defrag(struct run *r)
{
	return r->ops->defragment(r->c, defrag_budget, &defrag_swaps);
}

/* ---- the operations, one function per opcode (see the file comment) ---- */
static uint64_t batch[MAX_BATCH + 2];

static void step_insert(struct run *r, struct input *in)
{
	uint8_t b = byte(in);
	size_t k = b < 200 ? b % 32 : (size_t)(b - 200) * 8;
	if (k > MAX_LIVE - r->m.n)
		k = MAX_LIVE - r->m.n;
	do_insert(r, k, r->c, &r->m);
}

static void step_erase(struct run *r, struct input *in)
{
	if (r->ops->erase_n) {
		size_t c = pick_live(r, in, batch, byte(in) % 16 + 1);
		do_erase(r, batch, c);
	}
}

static void step_erase_bad(struct run *r, struct input *in)
{
	if (!r->ops->erase_n)
		return;
	size_t c = pick_live(r, in, batch, byte(in) % 8);
	uint64_t bad = bad_handle(r, in, batch, c);
	size_t at = byte(in) % (c + 1);
	memmove(&batch[at + 1], &batch[at], (c - at) * sizeof *batch);
	batch[at] = bad;
	do_erase(r, batch, c + 1);
}

/* count_valid of hs[0 .. n) against the model. */
static void expect_count(struct run *r, const uint64_t *hs, size_t n, const char *what)
{
	size_t got = r->ops->count_valid(r->c, hs, n), want = model_count_valid(&r->m, hs, n);
	if (got != want)
		die(r, "count_valid of %zu %s: %zu, model %zu", n, what, got, want);
}

static void step_lookup(struct run *r, struct input *in)
{
	struct model *m = &r->m;
	if (!m->handles)
		return;
	size_t c = pick_live(r, in, batch, byte(in) % 8);
	batch[c] = bad_handle(r, in, batch, c);
	size_t n = c + 1;
	expect_count(r, batch, n, "handles");
	uint64_t want = 0, got = 0;
	bool ok = model_lookup_expect(m, batch, n, &want);
	if (!m->lookup_validates && !ok)
		n = c; /* raw pointers: the live ones only */
	ok = model_lookup_expect(m, batch, n, &want);
	int err = r->ops->lookup_sum(r->c, batch, n, &got);
	if ((err == DOD_OK) != ok || (ok && got != want))
		die(r, "lookup_sum of %zu handles: %s, sum %llu; model: %s, sum %llu", n,
		    dod_strerror(err), (unsigned long long)got, ok ? "valid" : "invalid",
		    (unsigned long long)want);
}

static void step_count_bad(struct run *r, struct input *in)
{
	struct model *m = &r->m;
	if (!m->handles)
		return;
	size_t n = byte(in) % 8 + 1;
	for (size_t i = 0; i < n; i++)
		batch[i] = bad_handle(r, in, batch, i);
	expect_count(r, batch, n, "bad handles");
	for (size_t i = 0; i < n; i++) {
		uint64_t want = 0, got = 0;
		bool ok = model_lookup_expect(m, &batch[i], 1, &want);
		if (!m->lookup_validates && !ok)
			continue;
		int err = r->ops->lookup_sum(r->c, &batch[i], 1, &got);
		if ((err == DOD_OK) != ok || (ok && got != want))
			die(r, "lookup_sum of handle %#llx: %s; model: %s", (unsigned long long)batch[i],
			    dod_strerror(err), ok ? "valid" : "invalid");
	}
}

/* iterate_sum, then the operations of the family extensions the variant has
 * (model_run_exts) with every allocation failing: those that return no error must not
 * allocate, create_typed (type ids) must fail cleanly. */
static void step_iterate(struct run *r, struct input *in)
{
	(void)in;
	char why[512];
	(void)r->ops->iterate_sum(r->c);
	dod_fuzz_alloc_arm(1);
	int rc = model_run_exts(&r->m, r->c, MODEL_EXTS_NO_ALLOC, why, sizeof why);
	long made = dod_fuzz_alloc_calls();
	rc = rc ? rc : model_run_exts(&r->m, r->c, MODEL_EXTS_MAY_FAIL, why, sizeof why);
	dod_fuzz_alloc_arm(0);
	if (rc != 0)
		die(r, "%s", why);
	if (made)
		die(r, "a family extension's operation allocated (%ld calls): it cannot report "
		    "DOD_ENOMEM", made);
	if (r->m.n + 2 * MODEL_RUN_MAX_BATCH <= MAX_LIVE &&
	    model_run_exts(&r->m, r->c, MODEL_EXTS_MODEL_ALLOCATES, why, sizeof why) != 0)
		die(r, "%s", why);
}

static void step_clear(struct run *r, struct input *in)
{
	(void)in;
	if (r->ops->clear) {
		int err = run_op(r, op_clear);
		if (err != DOD_OK)
			die(r, "clear: %s", dod_strerror(err));
		model_cleared(&r->m, MODEL_DIED_CLEAR);
	}
}

static void step_reset(struct run *r, struct input *in)
{
	(void)in;
	if (r->ops->reset) {
		int err = run_op(r, op_reset);
		if (err != DOD_OK)
			die(r, "reset: %s", dod_strerror(err));
		model_cleared(&r->m, MODEL_DIED_RESET);
	}
}

static void step_shuffle(struct run *r, struct input *in)
{
	shuffle_seed = byte(in);
	if (r->ops->shuffle) {
		int err = run_op(r, op_shuffle);
		if (err != DOD_OK)
			die(r, "shuffle: %s", dod_strerror(err));
		r->m.sorted = false;
	}
}

static void step_defragment(struct run *r, struct input *in)
{
	defrag_budget = byte(in) % 8;
	if (!r->ops->defragment)
		return;
	defrag_swaps = SIZE_MAX;
	int err = run_op(r, op_defrag);
	if (err != DOD_OK)
		die(r, "defragment: %s", dod_strerror(err));
	if (defrag_budget && defrag_swaps > defrag_budget)
		die(r, "defragment moved %zu items, budget %zu", defrag_swaps, defrag_budget);
	/* Fewer moves than the budget: it ran out of work, the order is final. */
	if (!defrag_budget || defrag_swaps < defrag_budget)
		r->m.sorted = true;
}

static void step_fail_alloc(struct run *r, struct input *in)
{
	r->fail_next = byte(in) % 32 + 1;
}

static void step_churn(struct run *r, struct input *in)
{
	struct model *m = &r->m;
	uint8_t b = byte(in);
	size_t times = b < 250 ? b : (size_t)65536 >> (255 - b);
	if (!r->ops->erase_n || m->n == 0 || (r->ops->caps & DOD_CAP_FIXED_CAPACITY))
		return;
	for (size_t t = 0; t < times; t++) {
		uint64_t h = m->live[m->n - 1].handle;
		do_erase(r, &h, 1);
		do_insert(r, 1, r->c, m);
	}
}

static void step_foreign(struct run *r, struct input *in)
{
	size_t k = byte(in) % 8 + 1;
	static uint64_t hs[8];
	if (r->n_other + k > sizeof r->other_h / sizeof r->other_h[0])
		return;
	bool fixed = r->ops->caps & DOD_CAP_FIXED_CAPACITY;
	int err = r->ops->insert_n(r->other, k, UINT64_C(1) << 40, r->m.handles ? hs : NULL);
	if (err == DOD_EFULL && fixed)
		return;
	if (err != DOD_OK)
		die(r, "insert into the second container: %s", dod_strerror(err));
	for (size_t i = 0; i < k && r->m.handles; i++)
		r->other_h[r->n_other++] = hs[i];
}

static void step_erase_all(struct run *r, struct input *in)
{
	(void)in;
	static uint64_t all[MAX_LIVE];
	if (!r->ops->erase_n)
		return;
	size_t n = r->m.n;
	for (size_t i = 0; i < n; i++)
		all[i] = r->m.live[n - 1 - i].handle;
	do_erase(r, all, n);
}

static void step_forged(struct run *r, struct input *in)
{
	if (!r->m.handles)
		return;
	uint64_t h = u64(in);
	expect_count(r, &h, 1, "forged handle");
}

static void step_compare(struct run *r, struct input *in)
{
	(void)r;
	(void)in; /* the comparison runs after every op */
}

/* ---- the list family (containers/list_contract.h): nothing for a variant without the
 * extension ---- */

/* A reference for insert_at_n picked by a byte: a live item's (stable references) or a
 * position <= size + i (before) / < size + i (after) (positional ones). */
static uint64_t insert_ref(const struct run *r, uint8_t b, size_t i, int where)
{
	size_t bound = r->m.n + i + (where == DOD_LIST_BEFORE);
	if (r->m.positional)
		return bound ? b % bound : 0;
	return r->m.n ? live_handle(r, b) : 0;
}

static void step_insert_at(struct run *r, struct input *in)
{
	static uint64_t hs[MAX_BATCH];
	char why[512];
	size_t k = byte(in) % 8 + 1;
	uint8_t w = byte(in), bad = byte(in);
	int where = w % 4 == 3 ? DOD_LIST_AFTER + 1 + w / 4 : (w % 4) & 1; /* 1 in 4: bad */
	for (size_t i = 0; i < k; i++)
		batch[i] = insert_ref(r, byte(in), i, where == DOD_LIST_AFTER ? where : DOD_LIST_BEFORE);
	if (bad % 4 == 0) /* one bad reference, at a position the same byte picks */
		batch[(bad / 4) % k] = bad_handle(r, in, batch, k);
	if (!r->ops->list || (r->m.n + k > MAX_LIVE))
		return;
	int want = model_insert_at_expect(&r->m, batch, k, where);
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->list->insert_at_n(r->c, batch, k, where, r->m.next_key, hs);
		if (failed_cleanly(r, armed, err))
			continue;
		if (want == DOD_OK && err != DOD_OK)
			die(r, "insert_at_n of %zu at good references: %s", k, dod_strerror(err));
		if (want != DOD_OK && (err == DOD_OK || (want == DOD_EINVAL && err != DOD_EINVAL)))
			die(r, "insert_at_n of a bad batch (where %d): %s", where, dod_strerror(err));
		if (err == DOD_OK && model_inserted_at(&r->m, batch, k, where, hs, why, sizeof why))
			die(r, "%s", why);
		return;
	}
}

static void step_insert_sorted(struct run *r, struct input *in)
{
	static uint64_t hs[MAX_BATCH];
	char why[512];
	size_t k = byte(in) % 8 + 1;
	for (size_t i = 0; i < k; i++) /* keys among the model's: next_key x b / 256 */
		batch[i] = r->m.next_key * byte(in) / 256;
	if (!r->ops->list || r->m.n + k > MAX_LIVE)
		return;
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->list->insert_sorted_n(r->c, batch, k, hs);
		if (failed_cleanly(r, armed, err))
			continue;
		if (err != DOD_OK)
			die(r, "insert_sorted_n of %zu keys: %s", k, dod_strerror(err));
		if (model_inserted_sorted(&r->m, batch, k, hs, why, sizeof why))
			die(r, "%s", why);
		return;
	}
}

/* Positions < size - i picked by bytes; with the bad byte's low bits 0, one of them is
 * past the size (DOD_ERANGE, nothing changed). */
static void step_erase_at(struct run *r, struct input *in)
{
	size_t k = byte(in) % 8 + 1, n = r->m.n;
	uint8_t bad = byte(in);
	for (size_t i = 0; i < k; i++) {
		uint8_t b = byte(in);
		batch[i] = i < n ? b % (n - i) : b;
	}
	if (bad % 4 == 0)
		batch[(bad / 4) % k] = n + bad % 3;
	if (!r->ops->list)
		return;
	int want = model_erase_at_expect(&r->m, batch, k);
	uint64_t sum = 0;
	bool armed = arm(r);
	int err = r->ops->list->erase_at_positions_n(r->c, batch, k, &sum);
	if (failed_cleanly(r, armed, err))
		die(r, "erase_at_positions_n returned DOD_ENOMEM: it cannot need memory");
	if (err != want)
		die(r, "erase_at_positions_n of %zu: %s, model %s", k, dod_strerror(err),
		    dod_strerror(want));
	if (err == DOD_OK && model_erased_at(&r->m, batch, k) != sum)
		die(r, "erase_at_positions_n: a key sum other than the model's");
}

/* consolidate with every allocation failing (it returns no error: it needs no memory),
 * into a remap of exactly ref_bound entries; the remap must be exact. */
static void step_consolidate(struct run *r, struct input *in)
{
	(void)in;
	char why[512];
	const struct dod_consolidate_ops *k = r->ops->consolidate;
	if (!k)
		return;
	size_t bound = k->ref_bound(r->c);
	uint64_t *remap = malloc((bound ? bound : 1) * sizeof *remap);
	if (!remap)
		die(r, "no memory for the remap");
	r->fail_next = 0;
	dod_fuzz_alloc_arm(1);
	int err = k->consolidate(r->c, remap);
	long made = dod_fuzz_alloc_calls();
	dod_fuzz_alloc_arm(0);
	if (err != DOD_OK || made)
		die(r, "consolidate: %s, %ld allocations", dod_strerror(err), made);
	if (model_consolidated(&r->m, remap, bound, why, sizeof why))
		die(r, "%s", why);
	free(remap);
}

/* ---- the tags family (containers/aoa_contract.h): nothing for a variant without the
 * extension ---- */

/* add_n of the batch, run armed if fail-alloc asked, again after a clean DOD_ENOMEM. */
static void tags_add(struct run *r, const uint32_t *tags, size_t k, int want)
{
	for (;;) {
		size_t got = SIZE_MAX;
		bool armed = arm(r);
		int err = r->ops->tags->add_n(r->c, batch, tags, k, &got);
		if (failed_cleanly(r, armed, err))
			continue;
		if ((err == DOD_OK) != (want == DOD_OK))
			die(r, "add_n of %zu tags (%s batch): %s", k, want ? "a bad" : "a good",
			    dod_strerror(err));
		size_t refused = err ? 0 : model_tags_added(&r->m, batch, tags, k);
		if (!err && got != refused)
			die(r, "add_n of %zu tags: %zu refused, model %zu", k, got, refused);
		return;
	}
}

static void step_tags(struct run *r, struct input *in)
{
	static uint32_t tags[MAX_BATCH];
	size_t k = byte(in) % 16 + 1, got = SIZE_MAX, want_n;
	uint8_t o = byte(in) % 3, bad = byte(in);
	for (size_t i = 0; i < k; i++) {
		uint8_t e = byte(in);
		batch[i] = r->m.n ? live_handle(r, e) : UINT64_MAX;
		tags[i] = byte(in) % 8;
	}
	if (bad % 4 == 0)
		batch[(bad / 4) % k] = bad_handle(r, in, batch, k);
	if (!(dod_exts(r->ops) & DOD_EXT_TAGS))
		return;
	const struct dod_tags_ops *t = r->ops->tags;
	int want = model_tags_expect(&r->m, batch, k);
	if (o == 0) {
		tags_add(r, tags, k, want);
		return;
	}
	int err = o == 1 ? t->remove_n(r->c, batch, tags, k, &got)
	                 : t->has_n(r->c, batch, tags, k, &got);
	if ((err == DOD_OK) != (want == DOD_OK))
		die(r, "%s of %zu pairs (%s batch): %s", o == 1 ? "remove_n" : "has_n", k,
		    want ? "a bad" : "a good", dod_strerror(err));
	if (err)
		return;
	want_n = o == 1 ? model_tags_removed(&r->m, batch, tags, k)
	                : model_tags_found(&r->m, batch, tags, k);
	if (got != want_n)
		die(r, "%s of %zu pairs: %zu, model %zu", o == 1 ? "remove_n" : "has_n", k, got,
		    want_n);
}

/* ---- the DataComponent (containers/dc_contract.h) ---- */

static void dc_set(struct run *r, uint8_t how, uint64_t *rng)
{
	static struct dod_dc_set sets[8];
	int bad = (how >> 1) % 8;
	size_t k = model_dc_sets(&r->m, rng, sets, 8, bad > 3 ? 0 : bad);
	if (!k)
		return;
	int want = model_dc_set_expect(&r->m, sets, k);
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->dc->set_n(r->c, sets, k);
		if (failed_cleanly(r, armed, err))
			continue;
		if (want == DOD_OK && err != DOD_OK)
			die(r, "dc set_n of %zu good sets: %s", k, dod_strerror(err));
		if (want != DOD_OK && (err == DOD_OK || (want == DOD_EINVAL && err != DOD_EINVAL)))
			die(r, "dc set_n of a bad batch: %s", dod_strerror(err));
		if (err == DOD_OK)
			model_dc_applied(&r->m, sets, k);
		return;
	}
}

static void dc_copy(struct run *r, uint64_t *rng)
{
	static uint64_t src[8], hs[8];
	char why[512];
	size_t k = 1 + (size_t)dod_rng_below(rng, 8);
	if (!r->m.n)
		return;
	for (size_t i = 0; i < k; i++)
		src[i] = r->m.live[dod_rng_below(rng, r->m.n)].handle;
	for (;;) {
		bool armed = arm(r);
		int err = r->ops->dc->copy_n(r->c, src, k, r->m.next_key, hs);
		if (failed_cleanly(r, armed, err))
			continue;
		if (err != DOD_OK)
			die(r, "dc copy_n of %zu live entities: %s", k, dod_strerror(err));
		if (model_dc_copied(&r->m, src, k, hs, why, sizeof why))
			die(r, "%s", why);
		return;
	}
}

static void step_dc(struct run *r, struct input *in)
{
	uint8_t how = byte(in);
	uint64_t rng = byte(in);
	if (!r->m.dc || r->m.n + 8 > MAX_LIVE)
		return;
	if (how & 1)
		dc_copy(r, &rng);
	else
		dc_set(r, how, &rng);
}

/* Opcode -> its name (for die) and its function. */
static const struct {
	const char *name;
	void (*run)(struct run *r, struct input *in);
} steps[] = {
	{"insert", step_insert},         {"erase", step_erase},
	{"erase-bad", step_erase_bad},   {"lookup", step_lookup},
	{"count-bad", step_count_bad},   {"iterate", step_iterate},
	{"clear", step_clear},           {"reset", step_reset},
	{"shuffle", step_shuffle},       {"defragment", step_defragment},
	{"fail-alloc", step_fail_alloc}, {"churn", step_churn},
	{"foreign", step_foreign},       {"erase-all", step_erase_all},
	{"forged", step_forged},         {"compare", step_compare},
	{"insert-at", step_insert_at},   {"insert-sorted", step_insert_sorted},
	{"erase-at", step_erase_at},     {"consolidate", step_consolidate},
	{"tags", step_tags},             {"dc", step_dc},
};
#define N_STEPS (sizeof steps / sizeof steps[0])

static void step(struct run *r, struct input *in)
{
	uint8_t opcode = byte(in) % N_STEPS;
	r->op = steps[opcode].name;
	steps[opcode].run(r, in);
	compare(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	struct input in = {data, size, 0};
	char why[512];
	const struct dod_ops *built[HB_N_SIZES];
	size_t k = 0;
	for (size_t s = 0; s < HB_N_SIZES; s++)
		if (target->ops[s])
			built[k++] = target->ops[s];
	memset(&r, 0, sizeof r);
	r.ops = built[byte(&in) % k];
	bool fixed = r.ops->caps & DOD_CAP_FIXED_CAPACITY;
	r.capacity = byte(&in) + (fixed ? 8 : 0);
	long create_fail = byte(&in) % 8;
	if (model_init(&r.m, r.ops, why, sizeof why) != 0)
		die(&r, "%s", why);
	for (;;) {
		dod_fuzz_alloc_arm(create_fail);
		int err = r.ops->create(&r.c, r.capacity);
		dod_fuzz_alloc_arm(0);
		if (err == DOD_ENOMEM && create_fail) { /* nothing to compare yet: again */
			create_fail = 0;
			continue;
		}
		if (err != DOD_OK)
			die(&r, "create(%zu): %s", r.capacity, dod_strerror(err));
		break;
	}
	if (r.ops->create(&r.other, 8) != DOD_OK)
		die(&r, "create of the second container failed");
	compare(&r);
	while (in.at < in.n) {
		r.op_no++;
		step(&r, &in);
	}
	r.ops->destroy(r.c);
	r.ops->destroy(r.other);
	model_free(&r.m);
	return 0;
}
