/* axes.c - the table of the generic case axes (axes.h): n, elem_bytes, order, the holes,
 * cache and place, each defined once; the list of every axis (the table's and those the
 * scenarios register); and the functions that parse, check, format, name and read their
 * values for the rest of the harness. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fill_holes.h"
#include "run.h"

/* Writes a printf-style message to err (err_len bytes) and returns -1. */
__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the axes of schema 3 ---- */

static bool has_holes(const union hb_axis_value *v) { return v[HB_AXIS_HOLE_RATIO].d > 0; }

static void bind_n(struct scn_params *p, union hb_axis_value v) { p->n = (size_t)v.u; }
static void bind_order(struct scn_params *p, union hb_axis_value v)
{
	p->order = (enum scn_order)v.u;
}
static void bind_ratio(struct scn_params *p, union hb_axis_value v) { p->hole_ratio = v.d; }
static void bind_pattern(struct scn_params *p, union hb_axis_value v)
{
	p->hole_pattern = (enum scn_hole_pattern)v.u;
}

/* The CSV holds the fraction really erased, m / n with m = round(ratio * n) at most n - 1
 * (scn_hole_count): the case whose requested ratio gives that m is the one. */
static bool ratio_matches(const struct hb_case *k, const char *field)
{
	double want = k->p.hole_pattern == SCN_HOLES_NONE
	                      ? 0 : (double)scn_hole_count(k->p.n, k->p.hole_ratio) / (double)k->p.n;
	double got = strtod(field, NULL);
	/* %.6g in the CSV: a relative tolerance well above its rounding. */
	return fabs(want - got) <= 1e-5 * (want > 0 ? want : 1);
}

/* The hole_ratio field of a row of ratio r at n: the fraction really erased, m / n, as
 * the CSV writes it (hb_axis_format). */
static char *holes_field(size_t n, double r, char *buf, size_t len)
{
	static const struct hb_axis fraction = {.kind = HB_AXIS_FRACTION};
	union hb_axis_value v = {.d = (double)scn_hole_count(n, r) / (double)n};
	return hb_axis_format(&fraction, v, false, buf, len);
}

/* Whether ratios a and b are one case at n: the same row fields (the same number of
 * holes, or counts so close that their fractions print alike). */
static bool same_case_at(size_t n, double a, double b)
{
	char fa[64], fb[64];
	return strcmp(holes_field(n, a, fa, sizeof fa), holes_field(n, b, fb, sizeof fb)) == 0;
}

/* "both 500 holes", or "500000 and 500001 holes, both 0.5 in the CSV" (ratios a, b at n),
 * after "; " when *at > 0, at *at in buf[0 .. len); with_n: "n 1000: " before it. */
static void say_same(char *buf, size_t len, size_t *at, size_t n, double a, double b,
                     bool with_n)
{
	size_t ma = scn_hole_count(n, a), mb = scn_hole_count(n, b);
	char f[64], head[64] = "";
	if (with_n)
		snprintf(head, sizeof head, "n %zu: ", n);
	if (*at < len && ma == mb)
		*at += (size_t)snprintf(buf + *at, len - *at, "%s%sboth %zu holes", *at ? "; " : "",
		                        head, ma);
	else if (*at < len)
		*at += (size_t)snprintf(buf + *at, len - *at, "%s%s%zu and %zu holes, both %s in the "
		                        "CSV", *at ? "; " : "", head, ma, mb,
		                        holes_field(n, a, f, sizeof f));
}

/* The index of the first ratio listed before index j that is one case with it at n, or j. */
static size_t first_same(const struct hb_axis_values *rs, size_t j, size_t n)
{
	for (size_t i = 0; i < j; i++)
		if (rs->v[i].d > 0 && same_case_at(n, rs->v[i].d, rs->v[j].d))
			return i;
	return j;
}

/* Two hole ratios > 0 that erase as many items at an n are one case there (the rows carry
 * the fraction erased: its repetitions would be written twice). At every --n: refused,
 * naming both and the counts; at some n only, the later one is skipped there
 * (ratio_skip), with one notice per ratio and n (none with --quiet). */
static int ratio_pairs(const struct hb_config *c, char *err, size_t err_len)
{
	const struct hb_axis_values *ns = &c->axis[HB_AXIS_N], *rs = &c->axis[HB_AXIS_HOLE_RATIO];
	for (size_t j = 0; j < rs->n; j++)
		for (size_t i = 0; i < j && rs->v[j].d > 0; i++) {
			double a = rs->v[i].d, b = rs->v[j].d;
			size_t same = 0, at = 0;
			for (size_t k = 0; k < ns->n && a > 0; k++)
				same += same_case_at((size_t)ns->v[k].u, a, b);
			if (!same || same < ns->n)
				continue;
			char counts[300] = "";
			for (size_t k = 0; k < ns->n; k++)
				if (scn_hole_count((size_t)ns->v[k].u, a) > 0)
					say_same(counts, sizeof counts, &at, (size_t)ns->v[k].u, a, b, true);
			return fail(err, err_len, "--hole-ratio: %.15g and %.15g are one case at every "
			            "--n (%s): its repetitions would be written twice; give one of them",
			            a, b, counts);
		}
	for (size_t j = 0; j < rs->n && !c->quiet && !c->sim_child; j++)
		for (size_t k = 0; k < ns->n && rs->v[j].d > 0; k++) {
			size_t n = (size_t)ns->v[k].u, i = first_same(rs, j, n), at = 0;
			char counts[160] = "";
			if (i == j || scn_hole_count(n, rs->v[j].d) == 0)
				continue;
			say_same(counts, sizeof counts, &at, n, rs->v[i].d, rs->v[j].d, false);
			fprintf(stderr, "dodbench: --hole-ratio: %.15g and %.15g are one case at n %zu "
			        "(%s): it runs once there, as %.15g\n", rs->v[i].d, rs->v[j].d, n, counts,
			        rs->v[i].d);
		}
	return 0;
}

/* Refuses a hole ratio > 0 that erases no item at any --n of the run (it rounds to 0
 * holes even at the largest n, as round(R * n), at most n - 1, grows with n), when a
 * selected scenario uses holes: every case it asks for would be skipped. At some n only
 * (--n 1,1000 --hole-ratio 0.5) those cases are skipped (ratio_skip). Then ratio_pairs. */
static int ratio_check(const struct hb_config *c, char *err, size_t err_len)
{
	bool holes = false;
	for (size_t s = 0; s < c->n_scenarios; s++)
		holes |= scn_lists_axis(c->scenarios[s], &hb_axis_hole_ratio);
	const struct hb_axis_values *ns = &c->axis[HB_AXIS_N], *rs = &c->axis[HB_AXIS_HOLE_RATIO];
	size_t n = 0;
	for (size_t i = 0; i < ns->n; i++)
		n = ns->v[i].u > n ? (size_t)ns->v[i].u : n;
	for (size_t h = 0; holes && h < rs->n; h++) {
		double r = rs->v[h].d;
		if (r > 0 && n == 1) /* round(r x 1) may be 1, but a hole needs a survivor */
			return fail(err, err_len, "--hole-ratio: %g erases no item at n 1%s: n = 1 leaves "
			            "no room for a hole (at most n - 1 = 0 holes): give a larger n, or 0 "
			            "for no holes", r, ns->n > 1 ? " (the largest --n)" : "");
		if (r > 0 && scn_hole_count(n, r) == 0)
			return fail(err, err_len, "--hole-ratio: %g of n %zu%s rounds to 0 holes (round(%g "
			            "x %zu) = %lld): give a larger ratio or n, or 0 for no holes", r, n,
			            ns->n > 1 ? " (the largest --n)" : "", r, n, llround(r * (double)n));
	}
	return holes ? ratio_pairs(c, err, err_len) : 0;
}

/* Run, it would be the no-holes case recorded as holed (hole_ratio 0 with a pattern, which
 * the reports refuse): ratio_check refuses a ratio for which this holds at every n, so
 * here it is one n of a sweep. A ratio that is one case at this n with a ratio listed
 * before it (ratio_pairs) runs as that one. */
static const char *ratio_skip(const struct hb_config *c, const struct hb_case *k)
{
	if (!scn_lists_axis(k->scn, &hb_axis_hole_ratio) || k->p.hole_ratio <= 0)
		return NULL;
	if (scn_hole_count(k->p.n, k->p.hole_ratio) == 0)
		return "round(hole ratio x n) is 0 holes (at most n - 1): nothing to erase at this n";
	const struct hb_axis_values *rs = &c->axis[HB_AXIS_HOLE_RATIO];
	size_t j = 0;
	while (j < rs->n && rs->v[j].d != k->p.hole_ratio)
		j++;
	if (j < rs->n && first_same(rs, j, k->p.n) < j)
		return "the same holes at this n as a --hole-ratio listed before it (see the notice), "
		       "which runs";
	return NULL;
}

/* The cache words of --n: n 8-byte elements filling a share of a cache level, whose size
 * is read from sysfs (else glibc's sysconf) when the options are parsed (hb_cache_bytes),
 * never assumed, and measured (hb_cache_word_bytes, caches.c: the pointer chase's size
 * replaces sysfs's when they are more than 2x apart). Half a
 * level fits in it beside the stack and the harness's own data; four times the last
 * level streams from DRAM (also under a replacement policy that keeps part of a set). */
static const struct {
	const char *word;
	int level;              /* 0: the last level */
	unsigned num, den;      /* the share of the level's bytes */
} cache_words[] = {
	{"l1", 1, 1, 2}, {"l2", 2, 1, 2}, {"llc", 0, 1, 2}, {"dram", 0, 4, 1},
};
#define CACHE_WORD_BYTES 8

static int n_cache_word(const struct hb_axis *a, const char *item, union hb_axis_value *v,
                        char *err, size_t err_len)
{
	for (size_t i = 0; i < sizeof cache_words / sizeof cache_words[0]; i++) {
		if (strcmp(item, cache_words[i].word) != 0)
			continue;
		struct hb_cache_size size;
		if (hb_cache_word_bytes(cache_words[i].level, &size, err, err_len))
			return -1;
		uint64_t bytes = size.bytes;
		if (!bytes)
			return fail(err, err_len, "--%s: %s: this machine lists no %s cache (sysfs "
			            "/sys/devices/system/cpu/cpu0/cache, else glibc's sysconf): give n as "
			            "a number", a->option,
			            item, cache_words[i].level ? item : "last-level");
		v->u = bytes / cache_words[i].den * cache_words[i].num / CACHE_WORD_BYTES;
		return 0;
	}
	return 1;
}

static const char *const order_words[] = {"seq", "random"}; /* enum scn_order */

/* ---- the cache condition of repeatable work (scn_run_passes) ---- */

static void bind_cache(struct scn_params *p, union hb_axis_value v)
{
	p->cache = (enum scn_cache)v.u;
}
/* cold needs CLFLUSH, and a cache that forgets what it flushed: callgrind's simulated
 * caches do not model the flush. */
static int cache_check(const struct hb_config *c, char *err, size_t err_len)
{
	size_t id = hb_axis_id("axis_cache");
	bool cold = false;
	for (size_t i = 0; i < c->axis[id].n; i++)
		cold |= c->axis[id].v[i].u == SCN_CACHE_COLD;
	if (cold && c->counters == HB_COUNTERS_CALLGRIND) {
		snprintf(err, err_len, "--cache cold: callgrind's simulated caches do not model "
		                       "the flush (run cold without --counters callgrind)");
		return -1;
	}
	if (cold && !hb_can_evict()) {
		snprintf(err, err_len, "--cache cold: this CPU has no CLFLUSH (x86 only), so "
		                       "caches cannot be flushed; use warm");
		return -1;
	}
	return 0;
}

/* ---- the heap placement of every case (hb_place_set, alloc_count.c) ---- */

static const char *const place_words[HB_N_PLACES] = {"malloc", "line", "line16", "line32",
                                                     "line48", "random"};

/* Every case takes the placement where the build has the allocator layer; without it (the
 * sanitizer builds) none does: the column is empty and nothing is placed. */
static bool place_built(void)
{
	return hb_place_set != NULL;
}
/* line, where the build can place; glibc's own placement where it cannot. */
static const char *place_default(void)
{
	return hb_place_set ? "line" : "malloc";
}

/* A placement other than glibc's needs the release build's allocator layer. */
static int place_check(const struct hb_config *c, char *err, size_t err_len)
{
	size_t id = hb_axis_id("axis_place");
	for (size_t i = 0; i < c->axis[id].n; i++)
		if (c->axis[id].v[i].u != HB_PLACE_MALLOC && !hb_place_set) {
			snprintf(err, err_len, "--place %s: this build has no allocator layer of its "
			         "own (the sanitizer builds use the sanitizer's allocator); use "
			         "build/dodbench", place_words[c->axis[id].v[i].u]);
			return -1;
		}
	return 0;
}

static const struct hb_axis axis_n = {
	.rank = 1, .every = true,
	.name = "n", .option = "n", .metavar = "N", .def = "100000", .key = "n",
	.help = "elements per container, distinct integers >= 1, or cache words: l1, l2, "
	"llc: the n 8-byte elements that fill half of the L1 data, L2 or last-level cache, "
	"dram: four times the last-level cache (sizes read from sysfs and measured by a "
	"pointer chase, the measured one used when they are more than 2x apart: dodbench "
	"caches; two words of one "
	"size run once)",
	.kind = HB_AXIS_COUNT, .min = 1, .max = SIZE_MAX / 1024,
	.too_large = "too large to allocate", .bind = bind_n,
	.parse_word = n_cache_word, .word_help = "l1, l2, llc, dram",
};

static const struct hb_axis axis_elem = {
	.rank = 2, .every = true,
	.name = "elem_bytes", .option = "elem-bytes", .metavar = "E", .def = "8",
	.key = "elem", .help = "payload bytes per element, distinct size classes (a container "
	"is built at some of them: list containers):",
	.kind = HB_AXIS_SIZE, .outer = true,
};

const struct hb_axis hb_axis_order = {
	.rank = 3,
	.name = "order", .option = "order", .metavar = "O", .def = "seq", .key = "order",
	.help = "seq or random handle order",
	.kind = HB_AXIS_WORD, .words = order_words, .n_words = 2, .first_word = 0,
	.absent = {.u = SCN_SEQ},
	.absent_help = "run once, recorded as seq", .bind = bind_order,
};

const struct hb_axis hb_axis_hole_ratio = {
	.rank = 4,
	.name = "hole_ratio", .option = "hole-ratio", .metavar = "R", .def = "0",
	.key = "holes", .name_omits_absent = true,
	.help = "fraction of the n items erased before the timed region, 0 <= R < 1: "
	"round(R * n) items are erased, at most n - 1; a ratio that erases none at an n is "
	"skipped there, and refused when it erases none at every n; two that erase as many "
	"at an n are one case there, run once (as the first listed), and refused when they "
	"are at every n",
	.kind = HB_AXIS_FRACTION, .absent = {.d = 0},
	.absent_help = "run without holes", .bind = bind_ratio, .matches = ratio_matches,
	.check = ratio_check, .skip = ratio_skip,
};

const struct hb_axis hb_axis_hole_pattern = {
	.rank = 5,
	.name = "hole_pattern", .option = "hole-pattern", .metavar = "P", .def = "random",
	.help = "which items are erased: random (uniform), clustered (runs of geometric "
	"length, mean 64) or oldest (the first R*n inserted)",
	.kind = HB_AXIS_WORD, .words = scn_hole_pattern_names,
	.n_words = SCN_N_HOLE_PATTERNS, .first_word = SCN_HOLES_RANDOM,
	.applies = has_holes, .absent = {.u = SCN_HOLES_NONE},
	.absent_help = "run without holes; ratio 0 runs once, pattern none",
	.bind = bind_pattern,
};

const struct hb_axis hb_axis_cache = {
	.rank = 9,
	.option = "cache", .metavar = "C", .def = "warm",
	HB_AXIS_KEY("cache"), .name_omits_absent = true,
	.help = "the cache condition of repeatable work: warm (2 untimed passes over the "
	"same data, then K passes in one region, K from the clock's floor) or cold (every "
	"resident line of the process flushed from every cache level by CLFLUSH, then one "
	"pass: x86 only, not under callgrind; a region shorter than 1000 clock floors is "
	"marked short); a warm case's name has no part for it",
	.kind = HB_AXIS_WORD, .words = scn_cache_names, .n_words = SCN_N_CACHES,
	.first_word = 0, .absent = {.u = SCN_CACHE_WARM},
	.absent_help = "run once after their setup (cache condition setup)",
	.bind = bind_cache, .check = cache_check,
};

static const struct hb_axis axis_place = {
	.rank = 10, .every = true, .in_build = place_built,
	.option = "place", .metavar = "P", .def = "line",
	.def_of = place_default, HB_AXIS_KEY("place"), .name_omits_absent = true,
	.help = "where malloc, calloc and realloc put every block that asks no alignment "
	"of its own, in the repetition (setup and region): malloc (glibc's, 16-byte "
	"aligned), line (on a 64-byte cache line), line16, line32, line48 (that many bytes "
	"past a line) or random (a new multiple of 16 below 4096 past a line for every "
	"block, seeded by --seed and the repetition); aligned stores (the particle "
	"layouts) keep their own boundary; the release build only (the sanitizer builds "
	"take glibc's placement and no --place); a line case's name has no part for it",
	.kind = HB_AXIS_WORD, .words = place_words, .n_words = HB_N_PLACES,
	.first_word = 0, .absent = {.u = HB_PLACE_LINE},
	.absent_help = "run with glibc's placement", .check = place_check,
};

/* The table's axes (the generic ones), in rank order; the registered ones follow. The
 * ranks 6, 7, 8 are axis_defrag_input, axis_max_swaps, axis_old_handles (defrag_common.c,
 * validate.c). */
static const struct hb_axis *const table[] = {
	[HB_AXIS_N] = &axis_n, [HB_AXIS_ELEM] = &axis_elem, [HB_AXIS_ORDER] = &hb_axis_order,
	[HB_AXIS_HOLE_RATIO] = &hb_axis_hole_ratio, [HB_AXIS_HOLE_PATTERN] = &hb_axis_hole_pattern,
	&hb_axis_cache, &axis_place,
};

/* ---- the list: the table, then the registered axes ---- */

/* Bounds of the section of HB_AXIS_REGISTER; weak: a binary may register none. */
extern const struct hb_axis *const __start_dod_axes[] __attribute__((weak));
extern const struct hb_axis *const __stop_dod_axes[] __attribute__((weak));

/* Rank order (axis.h); the unranked (0) after the ranked, by name. */
static int by_rank(const void *a, const void *b)
{
	const struct hb_axis *x = *(const struct hb_axis *const *)a;
	const struct hb_axis *y = *(const struct hb_axis *const *)b;
	unsigned rx = x->rank ? x->rank : UINT_MAX, ry = y->rank ? y->rank : UINT_MAX;
	return rx != ry ? (rx > ry) - (rx < ry) : strcmp(x->name, y->name);
}

/* A mistake in the definitions (too many axes, a name, option or rank twice, an appended
 * column the reports would not know for an axis) can only come from an edit of the
 * source: stop with a message rather than write such rows. */
static void check_list(const struct hb_axis *const *all, size_t n)
{
	const char *why = n > HB_MAX_AXES ? "more than HB_MAX_AXES axes" : NULL;
	size_t prefix = strlen(HB_AXIS_COLUMN_PREFIX);
	const char *bad = NULL;
	for (size_t i = HB_N_SCHEMA3_AXES; i < n && !why; i++)
		if (strncmp(all[i]->name, HB_AXIS_COLUMN_PREFIX, prefix) != 0 || !all[i]->key ||
		    strcmp(all[i]->key, all[i]->name + prefix) != 0) {
			why = "an appended axis's name (its column) must be " HB_AXIS_COLUMN_PREFIX
			      "KEY: define both with HB_AXIS_KEY(\"KEY\")";
			bad = all[i]->name;
		}
	for (size_t i = 0; i < n && !why; i++)
		for (size_t j = 0; j < i && !why; j++)
			if (strcmp(all[i]->name, all[j]->name) == 0 ||
			    strcmp(all[i]->option, all[j]->option) == 0 ||
			    (all[i]->rank && all[i]->rank == all[j]->rank))
				why = "two axes share a name, an option or a rank";
	if (why) {
		fprintf(stderr, "dodbench: the axis table is wrong: %s%s%s\n", bad ? bad : "",
		        bad ? ": " : "", why);
		abort();
	}
}

size_t hb_axes(const struct hb_axis *const **out)
{
	static const struct hb_axis *all[HB_MAX_AXES + 1];
	static size_t count;
	if (!count) {
		size_t n_table = sizeof table / sizeof *table;
		size_t n_reg = __start_dod_axes ? (size_t)(__stop_dod_axes - __start_dod_axes) : 0;
		const struct hb_axis *list[n_table + n_reg];
		memcpy(list, table, sizeof table);
		if (n_reg)
			memcpy(list + n_table, __start_dod_axes, n_reg * sizeof *list);
		qsort(list, n_table + n_reg, sizeof *list, by_rank);
		check_list(list, n_table + n_reg);
		memcpy(all, list, sizeof list);
		count = n_table + n_reg;
	}
	*out = all;
	return count;
}

size_t hb_axis_id(const char *name)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	for (size_t id = 0; id < n; id++)
		if (strcmp(all[id]->name, name) == 0)
			return id;
	fprintf(stderr, "dodbench: internal error: no axis %s\n", name);
	abort();
}

/* ---- values ---- */

/* The size classes as "4, 8, 16, 40, 64, 256", or with last_sep " or " before the last. */
static char *size_list(char *buf, size_t len, const char *last_sep)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t s = 0; s < HB_N_SIZES && at < len; s++)
		at += (size_t)snprintf(buf + at, len - at, "%s%zu",
		                       s == 0 ? "" : s + 1 == HB_N_SIZES ? last_sep : ", ",
		                       hb_elem_sizes[s]);
	return buf;
}

/* The words of a from `from` on, as "a, b or c". */
static char *word_list(const struct hb_axis *a, unsigned from, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned w = from; w < a->n_words && at < len; w++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		                       w == from ? "" : w + 1 == a->n_words ? " or " : ", ",
		                       a->words[w]);
	return buf;
}

static int parse_count(const struct hb_axis *a, const char *item, union hb_axis_value *v,
                       char *err, size_t err_len)
{
	unsigned long long x;
	int word = hb_parse_u64(item, &x) && a->parse_word ? a->parse_word(a, item, v, err, err_len)
	                                                  : 1;
	if (word < 0)
		return -1;
	if (word == 0)
		x = v->u;
	else if (hb_parse_u64(item, &x))
		return fail(err, err_len, "--%s: '%s' is not a positive integer%s%s", a->option, item,
		            a->word_help ? " or " : "", a->word_help ? a->word_help : "");
	if (x < a->min)
		return fail(err, err_len, "--%s: must be at least %llu, got %s", a->option, a->min,
		            item);
	if (x > a->max)
		return fail(err, err_len, "--%s: %s is %s", a->option, item, a->too_large);
	v->u = x;
	return 0;
}

static int parse_size(const struct hb_axis *a, const char *item, union hb_axis_value *v,
                      char *err, size_t err_len)
{
	unsigned long long x;
	bool ok = hb_parse_u64(item, &x) == 0;
	for (size_t s = 0; ok && s < HB_N_SIZES; s++)
		if (x == hb_elem_sizes[s]) {
			v->u = x;
			return 0;
		}
	char sizes[64];
	return fail(err, err_len, "--%s: '%s' is not one of %s", a->option, item,
	            size_list(sizes, sizeof sizes, ", "));
}

int hb_axis_parse(const struct hb_axis *a, const char *item, union hb_axis_value *v,
                  char *err, size_t err_len)
{
	switch (a->kind) {
	case HB_AXIS_COUNT: return parse_count(a, item, v, err, err_len);
	case HB_AXIS_SIZE: return parse_size(a, item, v, err, err_len);
	case HB_AXIS_FRACTION:
		if (hb_parse_decimal(item, &v->d))
			return fail(err, err_len, "--%s: '%s' is not a decimal number", a->option, item);
		if (!(v->d >= 0 && v->d < 1))
			return fail(err, err_len, "--%s: %s is outside 0 <= r < 1", a->option, item);
		return 0;
	case HB_AXIS_WORD:
		for (unsigned w = a->first_word; w < a->n_words; w++)
			if (strcmp(item, a->words[w]) == 0) {
				v->u = w;
				return 0;
			}
		break;
	}
	char words[200];
	return fail(err, err_len, "--%s: '%s' is not %s", a->option, item,
	            word_list(a, a->first_word, words, sizeof words));
}

int hb_axis_read(const struct hb_axis *a, const char *field, union hb_axis_value *v)
{
	if (a->kind == HB_AXIS_FRACTION) {
		char *end;
		v->d = strtod(field, &end);
		return *field && !*end ? 0 : -1;
	}
	if (a->kind != HB_AXIS_WORD) {
		unsigned long long x = 0; /* -O3 sees v->u = x on failure too */
		int rc = hb_parse_u64(field, &x);
		v->u = x;
		return rc;
	}
	for (unsigned w = 0; w < a->n_words; w++)
		if (strcmp(field, a->words[w]) == 0) {
			v->u = w;
			return 0;
		}
	return -1;
}

char *hb_axis_format(const struct hb_axis *a, union hb_axis_value v, bool name_form, char *buf,
                     size_t len)
{
	if (a->kind == HB_AXIS_FRACTION)
		snprintf(buf, len, name_form ? "%g" : "%.6g", v.d);
	else if (a->kind == HB_AXIS_WORD)
		snprintf(buf, len, "%s", v.u < a->n_words ? a->words[v.u] : "?");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v.u);
	return buf;
}

/* ---- --help ---- */

/* --help's layout: an option's text starts in column HELP_INDENT (its continuation lines
 * too) and lines end before HELP_WIDTH, as in cli.c's text. */
#define HELP_INDENT 23
#define HELP_WIDTH 90

/* Writes the words of text to f, the cursor in column col: a space before each, wrapped
 * to a new line indented to HELP_INDENT where the next word would pass HELP_WIDTH. */
static void put_wrapped(FILE *f, const char *text, size_t col)
{
	bool line_start = false;
	for (text += strspn(text, " "); *text; text += strspn(text, " ")) {
		size_t word = strcspn(text, " ");
		if (!line_start && col > HELP_INDENT && col + 1 + word > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
			line_start = true;
		}
		if (!line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, word, f);
		col += word;
		text += word;
		line_start = false;
	}
	fputc('\n', f);
}

/* The scenarios that take axis a, "a, b, c" (the registry's names). */
static char *taken_by(const struct hb_axis *a, char *buf, size_t len)
{
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all), at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		if (hb_axis_takes(a, all[i]))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", all[i]->name);
	return buf;
}

/* Whether --help names the scenarios that take a: all but the axes every scenario of
 * every build takes. */
static bool help_names_takers(const struct hb_axis *a)
{
	return !a->every || a->in_build;
}

void hb_axes_help(FILE *f)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	char prev[1024] = "";
	for (size_t i = 0; i < n; i++) {
		const struct hb_axis *a = all[i];
		char head[64], text[2048], list[1024] = "";
		snprintf(head, sizeof head, "  --%s %s[,..]", a->option, a->metavar);
		int col = fprintf(f, "%-*s", HELP_INDENT - 1, head);
		if (a->kind == HB_AXIS_SIZE)
			size_list(list, sizeof list, " or ");
		int at = snprintf(text, sizeof text, "%s%s%s (default %s)", a->help, list[0] ? " " : "",
		                  list, a->def_of ? a->def_of() : a->def);
		bool named = help_names_takers(a);
		if (named)
			taken_by(a, list, sizeof list);
		if (named && i > 0 && help_names_takers(all[i - 1]) && strcmp(prev, list) == 0)
			snprintf(text + at, sizeof text - (size_t)at, "; taken by the same scenarios; the "
			         "others %s", a->absent_help);
		else if (named)
			snprintf(text + at, sizeof text - (size_t)at, "; taken by %s; the others %s", list,
			         a->absent_help);
		snprintf(prev, sizeof prev, "%s", named ? list : "");
		put_wrapped(f, text, (size_t)col);
	}
}

/* ---- cases and their names ---- */

bool hb_axis_takes(const struct hb_axis *a, const struct scn_scenario *s)
{
	if (!s)
		return a->every && !a->in_build;
	if (a->in_build && !a->in_build())
		return false;
	return a->every || scn_lists_axis(s, a);
}

bool hb_axis_taken(const struct hb_axis *a, const struct scn_scenario *s,
                   const union hb_axis_value *values)
{
	return hb_axis_takes(a, s) && (!a->applies || a->applies(values));
}

unsigned hb_axes_taken(const struct scn_scenario *s, const union hb_axis_value *values)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	unsigned taken = 0;
	for (size_t i = 0; i < n; i++)
		if (hb_axis_taken(all[i], s, values))
			taken |= 1u << i;
	return taken;
}

int hb_params_set(struct scn_params *p, const char *name, const char *field)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	if (p->axes != all) {
		for (size_t i = 0; i < n; i++)
			p->axis[i] = all[i]->absent;
		p->axes = all;
		p->n_axes = n;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0) {
			union hb_axis_value v;
			if (hb_axis_read(all[i], field, &v))
				return -1;
			p->axis[i] = v;
			if (all[i]->bind)
				all[i]->bind(p, v);
			return 0;
		}
	return -1;
}

void hb_case_name(char *buf, size_t len, const char *scenario, const char *container,
                  const union hb_axis_value *values, unsigned taken)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	int at = snprintf(buf, len, "%s/%s", scenario, container);
	/* A keyless value joins the part before it; that part is never omitted while the
	 * value applies (the hole pattern applies only when the hole ratio is above 0). */
	for (size_t i = 0; i < n && at >= 0 && (size_t)at < len; i++) {
		const struct hb_axis *a = all[i];
		if (!(taken & (1u << i)) || (a->name_omits_absent && values[i].u == a->absent.u))
			continue;
		char value[64];
		at += snprintf(buf + at, len - (size_t)at, "%s%s%s%s", a->key ? "/" : ":",
		               a->key ? a->key : "", a->key ? ":" : "",
		               hb_axis_format(a, values[i], true, value, sizeof value));
	}
}
