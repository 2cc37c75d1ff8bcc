/* main.c - the dodbench command line: list what exists, run the product of the given
 * containers x scenarios x n x element sizes x orders, write raw rows to CSV and print a
 * summary. Every argument is checked before anything is allocated (exit 2), a case
 * whose verification fails makes the exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <alloca.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include "dod_common.h"
#include "hb.h"
#include "scenario.h"

static const char help_text[] =
	"usage: dodbench list containers|scenarios\n"
	"       dodbench run [options]\n"
	"       dodbench --help\n"
	"\n"
	"run executes every combination of the listed containers, scenarios, sizes, element\n"
	"sizes and orders. Each repetition is one timed region; one raw CSV row is written\n"
	"per repetition, and a summary (median, min, max per case) is printed.\n"
	"\n"
	"options of run (lists are comma-separated):\n"
	"  --container A[,B..]  containers to run, or 'all' (default all); see 'list containers'\n"
	"  --scenario X[,Y..]   scenarios to run, or 'all' (default all); see 'list scenarios'\n"
	"  --n N[,M..]          elements per container, integers >= 1 (default 100000)\n"
	"  --elem-bytes E[,..]  payload bytes per element: 8, 16, 64 or 256 (default 8)\n"
	"  --order O[,..]       seq or random handle order for scenarios that use an order\n"
	"                       (lookup); other scenarios run once, recorded as seq (default seq)\n"
	"  --reps K             measured repetitions per case, 1..1000000 (default 5)\n"
	"  --warmup W           unrecorded repetitions before them, 0..1000000 (default 1)\n"
	"  --seed S             seed of every RNG (shuffles), unsigned 64-bit (default 1)\n"
	"  --out FILE.csv       append raw rows (schema v1) to FILE; header written when new\n"
	"  --counters MODE      auto (PAPI when it has counters, else none), papi (fail if\n"
	"                       PAPI has none), none, or callgrind: re-run under valgrind's\n"
	"                       cache simulator, counting each timed region only (sim_*\n"
	"                       columns; deterministic; 20-200x slower) (default auto)\n"
	"  --sim-d1 S,A,L       callgrind: simulated D1 cache, size bytes, ways, line bytes\n"
	"  --sim-ll S,A,L       callgrind: simulated last-level cache (default: the host's;\n"
	"                       e.g. 8388608,16,64 for a typical desktop 8 MB L3)\n"
	"  --baseline NAME      container the summary's ratios are relative to (default: the\n"
	"                       first one listed)\n"
	"  --interleave         run the repetitions of all cases in a seeded random order, so\n"
	"                       drift hits every container alike (interleave_pos column)\n"
	"  --prefault           pre-grow and touch the allocator's heap before timing, so\n"
	"                       first-touch page faults stay out of the timed regions\n"
	"  --pin CPU            pin the process to CPU (sched_setaffinity)\n"
	"  --out-json FILE      also write the run in google-benchmark's JSON format\n"
	"  --run-id ID          run_id column ([A-Za-z0-9._-], at most 100 characters); default\n"
	"                       a new one per invocation (UTC time-host-pid). make bench passes\n"
	"                       one id to all its invocations so reports treat them as one run\n"
	"  --quiet              print only the summary: no notices, warnings or progress\n"
	"\n"
	"exit status: 0 success; 1 a case failed verification or a container call failed;\n"
	"2 usage error (unknown name, bad or too large number) - checked before any work.\n"
	"\n"
	"example: dodbench run --container handle_map,peer_unordered_map --scenario lookup \\\n"
	"         --n 1000,100000 --order seq,random --reps 11 --out results/mine.csv\n";

#define MAX_ITEMS 64

struct cfg {
	const struct hb_container *containers[MAX_ITEMS];
	size_t n_containers;
	const struct scn_scenario *scenarios[MAX_ITEMS];
	size_t n_scenarios;
	size_t ns[MAX_ITEMS], n_ns;
	size_t elems[MAX_ITEMS], n_elems;
	enum scn_order orders[2];
	size_t n_orders;
	unsigned long long reps, warmup, seed;
	const char *out, *out_json, *run_id, *baseline, *sim_d1, *sim_ll;
	enum hb_counter_mode counters;
	int quiet, interleave, prefault, sim_child;
	long pin;
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("dodbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(see dodbench --help)\n", stderr);
	return 2;
}

/* Strict unsigned decimal: digits only, no sign, no trailing text, no overflow. */
static int parse_u64(const char *s, unsigned long long *out)
{
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	*out = strtoull(s, NULL, 10);
	return errno ? -1 : 0;
}

/* Splits a comma list in place into 1..MAX_ITEMS items; an empty item ("a,,b", "a,")
 * is an error rather than silently dropped. */
static int split(char *s, char **items, size_t *n_items, const char *opt)
{
	*n_items = 0;
	for (char *p = s;; p++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p)
			return usage_error("%s: empty item in list", opt);
		if (*n_items == MAX_ITEMS)
			return usage_error("%s: more than %d items", opt, MAX_ITEMS);
		items[(*n_items)++] = p;
		if (!comma)
			return 0;
		p = comma;
	}
}

static void list_names(FILE *f, bool containers)
{
	if (containers)
		for (size_t i = 0; i < hb_n_containers; i++)
			fprintf(f, "%s%s", i ? ", " : "", hb_containers[i].name);
	else
		for (size_t i = 0; i < scn_count; i++)
			fprintf(f, "%s%s", i ? ", " : "", scn_all[i]->name);
}

static int parse_containers(struct cfg *c, char *arg)
{
	char *items[MAX_ITEMS];
	size_t n;
	if (split(arg, items, &n, "--container"))
		return 2;
	c->n_containers = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(items[i], "all") == 0) {
			for (size_t k = 0; k < hb_n_containers && c->n_containers < MAX_ITEMS; k++)
				c->containers[c->n_containers++] = &hb_containers[k];
			continue;
		}
		size_t k = 0;
		while (k < hb_n_containers && strcmp(hb_containers[k].name, items[i]) != 0)
			k++;
		if (k == hb_n_containers) {
			fprintf(stderr, "dodbench: unknown container '%s'; valid: ", items[i]);
			list_names(stderr, true);
			fputs(", all\n", stderr);
			return 2;
		}
		if (c->n_containers == MAX_ITEMS)
			return usage_error("--container: too many");
		c->containers[c->n_containers++] = &hb_containers[k];
	}
	return 0;
}

static int parse_scenarios(struct cfg *c, char *arg)
{
	char *items[MAX_ITEMS];
	size_t n;
	if (split(arg, items, &n, "--scenario"))
		return 2;
	c->n_scenarios = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(items[i], "all") == 0) {
			for (size_t k = 0; k < scn_count && c->n_scenarios < MAX_ITEMS; k++)
				c->scenarios[c->n_scenarios++] = scn_all[k];
			continue;
		}
		const struct scn_scenario *s = scn_find(items[i]);
		if (!s) {
			fprintf(stderr, "dodbench: unknown scenario '%s'; valid: ", items[i]);
			list_names(stderr, false);
			fputs(", all\n", stderr);
			return 2;
		}
		if (c->n_scenarios == MAX_ITEMS)
			return usage_error("--scenario: too many");
		c->scenarios[c->n_scenarios++] = s;
	}
	return 0;
}

static int parse_ns(struct cfg *c, char *arg)
{
	char *items[MAX_ITEMS];
	if (split(arg, items, &c->n_ns, "--n"))
		return 2;
	for (size_t i = 0; i < c->n_ns; i++) {
		unsigned long long v;
		if (parse_u64(items[i], &v))
			return usage_error("--n: '%s' is not a positive integer", items[i]);
		if (v == 0)
			return usage_error("--n: must be at least 1, got 0");
		if (v > SIZE_MAX / 1024)
			return usage_error("--n: %s is too large to allocate", items[i]);
		c->ns[i] = (size_t)v;
	}
	return 0;
}

static int parse_elems(struct cfg *c, char *arg)
{
	char *items[MAX_ITEMS];
	if (split(arg, items, &c->n_elems, "--elem-bytes"))
		return 2;
	for (size_t i = 0; i < c->n_elems; i++) {
		unsigned long long v;
		bool ok = parse_u64(items[i], &v) == 0;
		for (size_t s = 0; ok && s < HB_N_SIZES; s++)
			if (v == hb_elem_sizes[s])
				goto found;
		return usage_error("--elem-bytes: '%s' is not one of 8, 16, 64, 256", items[i]);
	found:
		c->elems[i] = (size_t)v;
	}
	return 0;
}

static int parse_orders(struct cfg *c, char *arg)
{
	char *items[MAX_ITEMS];
	size_t n;
	if (split(arg, items, &n, "--order"))
		return 2;
	if (n > 2)
		return usage_error("--order: at most seq,random");
	c->n_orders = n;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(items[i], "seq") == 0)
			c->orders[i] = SCN_SEQ;
		else if (strcmp(items[i], "random") == 0)
			c->orders[i] = SCN_RANDOM;
		else
			return usage_error("--order: '%s' is not seq or random", items[i]);
	}
	return 0;
}

static int parse_count(const char *opt, const char *arg, unsigned long long lo,
                       unsigned long long hi, unsigned long long *out)
{
	if (parse_u64(arg, out) || *out < lo || *out > hi)
		return usage_error("%s: '%s' is not an integer in %llu..%llu", opt, arg, lo, hi);
	return 0;
}

/* Rejects sizes a container cannot index or this machine cannot hold, before any
 * allocation. The estimate (two copies of the payload plus 64 bytes of bookkeeping per
 * element: handles, sparse set, nodes) is deliberately generous. */
static int check_fits(const struct cfg *c, const struct hb_env *env)
{
	for (size_t i = 0; i < c->n_ns; i++)
		for (size_t e = 0; e < c->n_elems; e++) {
			size_t n = c->ns[i], eb = c->elems[e];
			for (size_t k = 0; k < c->n_containers; k++) {
				const struct dod_ops *ops = hb_find_ops(c->containers[k]->name, eb);
				if (n > ops->max_elems)
					return usage_error("--n: %zu exceeds %s's limit of %zu elements", n,
					                   ops->name, ops->max_elems);
			}
			double need = (double)n * (double)(2 * eb + 64);
			if (env->phys_mem_bytes && need > (double)env->phys_mem_bytes)
				return usage_error("--n: %zu elements of %zu bytes need about %.1f GiB; "
				                   "this machine has %.1f GiB",
				                   n, eb, need / (1 << 30),
				                   (double)env->phys_mem_bytes / (1 << 30));
		}
	return 0;
}

static int parse_run(struct cfg *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"container", required_argument, 0, 'c'}, {"scenario", required_argument, 0, 's'},
		{"n", required_argument, 0, 'n'},         {"elem-bytes", required_argument, 0, 'e'},
		{"order", required_argument, 0, 'o'},     {"reps", required_argument, 0, 'r'},
		{"warmup", required_argument, 0, 'w'},    {"seed", required_argument, 0, 'S'},
		{"out", required_argument, 0, 'O'},       {"counters", required_argument, 0, 'C'},
		{"quiet", no_argument, 0, 'q'},           {"help", no_argument, 0, 'h'},
		{"run-id", required_argument, 0, 'I'},    {"baseline", required_argument, 0, 'B'},
		{"interleave", no_argument, 0, 'L'},      {"prefault", no_argument, 0, 'P'},
		{"pin", required_argument, 0, 'p'},       {"out-json", required_argument, 0, 'J'},
		{"sim-d1", required_argument, 0, '1'},    {"sim-ll", required_argument, 0, '2'},
		{"sim-child", no_argument, 0, 'X'},
		{0, 0, 0, 0},
	};
	char all_c[] = "all", all_s[] = "all", def_n[] = "100000", def_e[] = "8", def_o[] = "seq";
	parse_containers(c, all_c);
	parse_scenarios(c, all_s);
	parse_ns(c, def_n);
	parse_elems(c, def_e);
	parse_orders(c, def_o);
	c->reps = 5;
	c->warmup = 1;
	c->seed = 1;
	c->pin = -1;
	opterr = 0;
	optind = 1;
	int opt, rc = 0;
	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1 && rc == 0) {
		switch (opt) {
		case 'c': rc = parse_containers(c, optarg); break;
		case 's': rc = parse_scenarios(c, optarg); break;
		case 'n': rc = parse_ns(c, optarg); break;
		case 'e': rc = parse_elems(c, optarg); break;
		case 'o': rc = parse_orders(c, optarg); break;
		case 'r': rc = parse_count("--reps", optarg, 1, 1000000, &c->reps); break;
		case 'w': rc = parse_count("--warmup", optarg, 0, 1000000, &c->warmup); break;
		case 'S': rc = parse_count("--seed", optarg, 0, UINT64_MAX, &c->seed); break;
		case 'O': c->out = optarg; break;
		case 'C':
			if (strcmp(optarg, "auto") == 0)
				c->counters = HB_COUNTERS_AUTO;
			else if (strcmp(optarg, "papi") == 0)
				c->counters = HB_COUNTERS_PAPI;
			else if (strcmp(optarg, "none") == 0)
				c->counters = HB_COUNTERS_NONE;
			else if (strcmp(optarg, "callgrind") == 0)
				c->counters = HB_COUNTERS_CALLGRIND;
			else
				rc = usage_error("--counters: '%s' is not auto, papi, none or callgrind",
				                 optarg);
			break;
		case 'B': c->baseline = optarg; break;
		case 'L': c->interleave = 1; break;
		case 'P': c->prefault = 1; break;
		case 'J': c->out_json = optarg; break;
		case 'X': c->sim_child = 1; break;
		case 'p': {
			unsigned long long cpu;
			rc = parse_count("--pin", optarg, 0, 1023, &cpu);
			c->pin = (long)cpu;
			break;
		}
		case '1':
		case '2': {
			char err[200];
			if (hb_sim_parse_geometry(optarg, err, sizeof err))
				rc = usage_error("%s: %s", opt == '1' ? "--sim-d1" : "--sim-ll", err);
			*(opt == '1' ? &c->sim_d1 : &c->sim_ll) = optarg;
			break;
		}
		case 'I':
			c->run_id = optarg;
			if (!*optarg || strlen(optarg) > 100 ||
			    strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			                   "0123456789._-") != strlen(optarg))
				rc = usage_error("--run-id: '%s' must be 1..100 of [A-Za-z0-9._-]", optarg);
			break;
		case 'q': c->quiet = 1; break;
		case 'h': fputs(help_text, stdout); exit(0);
		case ':': rc = usage_error("%s needs a value", argv[optind - 1]); break;
		default: rc = usage_error("unknown option '%s'", argv[optind - 1]); break;
		}
	}
	if (rc == 0 && optind < argc)
		rc = usage_error("unexpected argument '%s'", argv[optind]);
	if (rc == 0 && c->baseline) {
		size_t k = 0;
		while (k < c->n_containers && strcmp(c->containers[k]->name, c->baseline) != 0)
			k++;
		if (k == c->n_containers)
			rc = usage_error("--baseline: '%s' is not one of the containers of this run",
			                 c->baseline);
	}
	if (rc == 0 && (c->sim_d1 || c->sim_ll) && c->counters != HB_COUNTERS_CALLGRIND)
		rc = usage_error("--sim-d1/--sim-ll need --counters callgrind");
	if (rc == 0 && c->pin >= 0 && hb_pin((int)c->pin) != 0)
		rc = usage_error("--pin: cannot pin to CPU %ld: %s", c->pin, strerror(errno));
	return rc;
}

/* ---- the run: cases, schedule, progress, summary ---- */

struct run {
	const struct cfg *c;
	const struct hb_env *env;
	FILE *csv;
	struct hb_case *cases;
	size_t n_cases;
	size_t step, total_steps;  /* for progress */
	double t_start, t_last_progress;
	bool tty;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One updating line on a terminal, a plain line every 10 s otherwise; nothing when the
 * sweep is short (< 2 s so far) or --quiet. */
static void progress(struct run *r, const char *name)
{
	r->step++;
	if (r->c->quiet)
		return;
	double t = now_s(), elapsed = t - r->t_start;
	if (elapsed < 2 || t - r->t_last_progress < (r->tty ? 0.2 : 10))
		return;
	r->t_last_progress = t;
	double eta = elapsed / (double)r->step * (double)(r->total_steps - r->step);
	fprintf(stderr, "%s[%zu/%zu] %s ... eta %dm%02ds%s", r->tty ? "\r\033[K" : "", r->step,
	        r->total_steps, name, (int)eta / 60, (int)eta % 60, r->tty ? "" : "\n");
}

static void progress_done(struct run *r)
{
	if (r->tty && !r->c->quiet && r->t_last_progress > 0)
		fputs("\r\033[K", stderr);
}

/* Runs one repetition of case k: measured (rep >= 0, written to CSV) or warm-up
 * (rep < 0). pos: position in the interleaved order, or -1. */
static void run_rep(struct run *r, struct hb_case *k, long long rep, long long pos)
{
	if (k->errored)
		return;
	struct scn_params p = {.n = k->n, .order = k->order, .seed = r->c->seed};
	struct hb_region reg;
	struct scn_result res = {.swaps = -1};
	int rc = k->scn->run(k->ops, &p, &reg, &res);
	progress(r, k->name);
	if (rc != SCN_RAN || !res.verified) {
		if (r->tty && !r->c->quiet)
			fputs("\r\033[K", stderr);
		printf("%-52s FAILED (%s %lld): %s\n", k->name, rep < 0 ? "warm-up" : "rep",
		       rep < 0 ? -rep - 1 : rep, res.why[0] ? res.why : "not verified");
		k->failed = true;
		k->errored = rc != SCN_RAN;
		if (k->errored)
			return;
	}
	if (rep < 0)
		return;
	k->elapsed_ns[k->done] = reg.elapsed_ns;
	k->cpu_ns[k->done] = reg.cpu_ns;
	k->done++;
	if (r->csv) {
		struct hb_row row = {
			.env = r->env, .container = k->ops->name, .scenario = k->scn->name,
			.order = k->order == SCN_RANDOM ? "random" : "seq", .n = k->n,
			.elem_bytes = k->ops->elem_bytes, .hole_ratio = 0.0, .seed = r->c->seed,
			.rep = (unsigned)rep, .region = &reg, .checksum = res.checksum,
			.verified = res.verified, .swaps = res.swaps, .prefault = r->c->prefault,
			.interleave_pos = pos,
		};
		hb_utc_now(row.timestamp, sizeof row.timestamp);
		hb_csv_row(r->csv, &row);
	}
}

static void execute(struct run *r)
{
	const struct cfg *c = r->c;
	if (!c->interleave) {
		for (size_t i = 0; i < r->n_cases; i++) {
			struct hb_case *k = &r->cases[i];
			if (k->skip)
				continue;
			for (unsigned long long w = 0; w < c->warmup; w++)
				run_rep(r, k, -(long long)w - 1, -1);
			for (unsigned long long rep = 0; rep < c->reps; rep++)
				run_rep(r, k, (long long)rep, -1);
		}
		return;
	}
	/* Interleaved: all warm-ups first (case order), then every measured repetition of
	 * every case in one seeded random order. */
	size_t n_slots = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		if (r->cases[i].skip)
			continue;
		for (unsigned long long w = 0; w < c->warmup; w++)
			run_rep(r, &r->cases[i], -(long long)w - 1, -1);
		n_slots += c->reps;
	}
	size_t *slots = malloc((n_slots ? n_slots : 1) * sizeof *slots);
	if (!slots) {
		fprintf(stderr, "dodbench: out of memory for the interleaved schedule\n");
		exit(1);
	}
	size_t s = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		for (unsigned long long rep = 0; rep < c->reps && !r->cases[i].skip; rep++)
			slots[s++] = i;
	uint64_t rng = c->seed ^ 0x1e7e41ea5e5ull;
	for (size_t i = n_slots; i > 1; i--) {
		size_t j = (size_t)dod_rng_below(&rng, i);
		size_t t = slots[i - 1];
		slots[i - 1] = slots[j];
		slots[j] = t;
	}
	for (size_t pos = 0; pos < n_slots; pos++) {
		struct hb_case *k = &r->cases[slots[pos]];
		run_rep(r, k, (long long)k->done, (long long)pos);
	}
	free(slots);
}

/* The case of the baseline container with the same scenario, n, size and order. */
static const struct hb_case *baseline_of(const struct run *r, const struct hb_case *k,
                                         const char *base)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *b = &r->cases[i];
		if (strcmp(b->ops->name, base) == 0 && b->scn == k->scn && b->n == k->n &&
		    b->ops->elem_bytes == k->ops->elem_bytes && b->order == k->order)
			return b;
	}
	return NULL;
}

static void summarize(const struct run *r, const char *base)
{
	bool any_unstable = false, any_ratio = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *k = &r->cases[i];
		if (k->skip) {
			printf("%-52s skipped: %s\n", k->name, k->skip);
			continue;
		}
		if (k->done == 0) {
			printf("%-52s FAILED: no repetition completed\n", k->name);
			continue;
		}
		struct hb_stats st;
		hb_stats_of(k->elapsed_ns, k->done, &st);
		bool unstable = k->done >= 3 && hb_rel_dispersion(&st) > HB_UNSTABLE;
		any_unstable |= unstable;
		printf("%-52s median %11.4f ms  min %11.4f  max %11.4f  MAD %5.1f%%  CV %5.1f%%  "
		       "%9.2f ns/op  %s%s\n",
		       k->name, st.median / 1e6, st.min / 1e6, st.max / 1e6,
		       st.median > 0 ? 100 * st.mad / st.median : 0, 100 * st.cv,
		       st.median / (double)k->n, k->failed ? "NOT VERIFIED" : "verified",
		       unstable ? "  unstable" : "");
	}
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct hb_case *k = &r->cases[i], *b = baseline_of(r, k, base);
		double ratio, lo, hi;
		if (k->skip || !b || b == k || b->skip ||
		    hb_ratio_ci(b->elapsed_ns, b->done, k->elapsed_ns, k->done, r->c->seed, &ratio,
		                &lo, &hi) != 0)
			continue;
		if (!any_ratio)
			printf("\ntime relative to %s (median ratio, 95%% bootstrap CI; > 1: slower "
			       "than %s):\n", base, base);
		any_ratio = true;
		printf("%-52s %8.3fx  [%.3f, %.3f]%s\n", k->name, ratio, lo, hi,
		       lo <= 1 && hi >= 1 ? "  no significant difference" : "");
	}
	if (any_unstable)
		printf("\nunstable: the cases marked so have a robust dispersion (1.4826 MAD/median)"
		       " above %.0f%%.\nTheir medians are not trustworthy to a few %%: add --reps, "
		       "use --interleave and --pin CPU,\nand close other programs; on a VM, compare "
		       "ratios within one run.\n", 100 * HB_UNSTABLE);
}

/* Pre-grows glibc's heap to the largest size a case may need and touches it, and keeps
 * it mapped (no mmap'd chunks, no trimming), so that allocations inside timed regions
 * reuse already-faulted pages. */
static void prefault_heap(const struct cfg *c)
{
	double need = 0;
	for (size_t i = 0; i < c->n_ns; i++)
		for (size_t e = 0; e < c->n_elems; e++) {
			double b = (double)c->ns[i] * (double)(2 * c->elems[e] + 64);
			need = b > need ? b : need;
		}
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_TOP_PAD, 64 << 20);
	char *p = malloc((size_t)need);
	if (p) {
		memset(p, 1, (size_t)need);
		DOD_KEEP(p);
		free(p);
	}
}

static int cmd_run(int argc, char **argv)
{
	struct cfg c = {0};
	struct hb_env env;
	/* getopt permutes argv and list parsing splits strings in place: keep an untouched
	 * copy for the callgrind re-run. Not in the child under valgrind: there, heap
	 * allocations sized by the arguments would shift every later heap address, and so
	 * the simulated cache sets and misses, with the length of a file name. */
	int n_orig = RUNNING_ON_VALGRIND ? 0 : argc;
	char **orig = calloc((size_t)n_orig + 1, sizeof *orig);
	for (int i = 0; orig && i < n_orig; i++)
		if (!(orig[i] = strdup(argv[i])))
			return 1;
	if (!orig)
		return 1;
	int rc = parse_run(&c, argc, argv);
	hb_env_capture(&env);
	if (c.run_id)
		snprintf(env.run_id, sizeof env.run_id, "%s", c.run_id);
	if (rc == 0)
		rc = check_fits(&c, &env);
	bool delegated = rc == 0 && c.counters == HB_COUNTERS_CALLGRIND && !c.sim_child && n_orig > 0;
	if (delegated)
		rc = hb_sim_run(argc, orig, c.out, c.sim_d1, c.sim_ll, c.quiet);
	for (int i = 0; i < n_orig; i++)
		free(orig[i]);
	free(orig);
	if (rc || delegated)
		return rc;

	char notice[400], err[400];
	if (hb_counters_init(c.counters, notice, sizeof notice, err, sizeof err))
		return usage_error("%s", err);
	if (notice[0] && !c.quiet)
		fprintf(stderr, "dodbench: %s\n", notice);
	if (!c.quiet && !c.sim_child)
		hb_env_warn(&env, stderr);

	struct run r = {.c = &c, .env = &env, .tty = isatty(2)};
	if (c.out && !(r.csv = hb_csv_open(c.out, err, sizeof err)))
		return usage_error("--out: %s", err);

	/* The cases, in the order of the nested lists. */
	size_t max_cases = c.n_scenarios * c.n_containers * c.n_elems * c.n_ns * 2;
	r.cases = calloc(max_cases, sizeof *r.cases);
	if (!r.cases) {
		fprintf(stderr, "dodbench: out of memory for %zu cases\n", max_cases);
		return 1;
	}
	for (size_t si = 0; si < c.n_scenarios; si++)
		for (size_t ci = 0; ci < c.n_containers; ci++)
			for (size_t ei = 0; ei < c.n_elems; ei++)
				for (size_t ni = 0; ni < c.n_ns; ni++)
					for (size_t oi = 0; oi < (c.scenarios[si]->uses_order ? c.n_orders : 1); oi++) {
						struct hb_case *k = &r.cases[r.n_cases++];
						k->ops = hb_find_ops(c.containers[ci]->name, c.elems[ei]);
						k->scn = c.scenarios[si];
						k->n = c.ns[ni];
						k->order = k->scn->uses_order ? c.orders[oi] : SCN_SEQ;
						snprintf(k->name, sizeof k->name, "%s/%s/n:%zu/elem:%zu%s", k->scn->name,
						         k->ops->name, k->n, k->ops->elem_bytes,
						         !k->scn->uses_order ? ""
						         : k->order == SCN_RANDOM ? "/order:random" : "/order:seq");
						k->skip = k->scn->cannot_run ? k->scn->cannot_run(k->ops) : NULL;
						k->elapsed_ns = calloc(c.reps, sizeof *k->elapsed_ns);
						k->cpu_ns = calloc(c.reps, sizeof *k->cpu_ns);
						if (!k->elapsed_ns || !k->cpu_ns) {
							fprintf(stderr, "dodbench: out of memory for repetitions\n");
							return 1;
						}
						if (!k->skip)
							r.total_steps += c.warmup + c.reps;
					}
	if (!c.quiet)
		fprintf(stderr, "dodbench: run %s, counter_source=%s, %llu reps + %llu warm-up%s%s\n",
		        env.run_id, hb_counter_source(), c.reps, c.warmup,
		        c.interleave ? ", interleaved" : "", c.prefault ? ", prefaulted heap" : "");
	if (c.prefault)
		prefault_heap(&c);
	r.t_start = now_s();
	execute(&r);
	progress_done(&r);
	if (c.counters == HB_COUNTERS_CALLGRIND)
		printf("(times below ran under callgrind, 20-200x slower than native: not comparable)\n");
	summarize(&r, c.baseline ? c.baseline : c.containers[0]->name);

	int failed = 0;
	for (size_t i = 0; i < r.n_cases; i++)
		failed |= r.cases[i].failed;
	if (c.out_json && hb_json_write(c.out_json, &env, r.cases, r.n_cases) != 0) {
		fprintf(stderr, "dodbench: error writing %s\n", c.out_json);
		failed = 1;
	}
	for (size_t i = 0; i < r.n_cases; i++) {
		free(r.cases[i].elapsed_ns);
		free(r.cases[i].cpu_ns);
	}
	free(r.cases);
	if (r.csv && fclose(r.csv) != 0) {
		fprintf(stderr, "dodbench: error writing %s\n", c.out);
		return 1;
	}
	return failed;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	if (RUNNING_ON_VALGRIND) {
		/* Start every run's stack at the same address modulo 1 MiB, whatever the size of
		 * the arguments and environment above it, so that stack data maps to the same
		 * simulated cache sets: callgrind counts then do not depend on a file name. */
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
		volatile char *pad = alloca((sp & 0xFFFFF) + 64);
		pad[0] = 0;
		return dispatch(argc, argv);
	}
	return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("missing command: list or run");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(help_text, stdout);
		return 0;
	}
	if (strcmp(argv[1], "list") == 0) {
		if (argc == 3 && strcmp(argv[2], "containers") == 0) {
			for (size_t i = 0; i < hb_n_containers; i++)
				puts(hb_containers[i].name);
			return 0;
		}
		if (argc == 3 && strcmp(argv[2], "scenarios") == 0) {
			for (size_t i = 0; i < scn_count; i++)
				puts(scn_all[i]->name);
			return 0;
		}
		return usage_error("usage: dodbench list containers|scenarios");
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	return usage_error("unknown command '%s': use list or run", argv[1]);
}
