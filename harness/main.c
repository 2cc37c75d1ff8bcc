/* main.c - the dodbench command line: list what exists, run the product of the given
 * containers x scenarios x n x element sizes x orders, write raw rows to CSV and print a
 * summary. Every argument is checked before anything is allocated (exit 2), a case
 * whose verification fails makes the exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"                       PAPI has none), none (default auto)\n"
	"  --run-id ID          run_id column ([A-Za-z0-9._-], at most 100 characters); default\n"
	"                       a new one per invocation (UTC time-host-pid). make bench passes\n"
	"                       one id to all its invocations so reports treat them as one run\n"
	"  --quiet              print only the summary, no notices\n"
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
	const char *out;
	const char *run_id;
	enum hb_counter_mode counters;
	int quiet;
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
		{"run-id", required_argument, 0, 'I'},
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
			else
				rc = usage_error("--counters: '%s' is not auto, papi or none", optarg);
			break;
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
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Runs warm-up and repetitions of one case, writes rows, prints its summary line.
 * Returns 0 when every repetition verified, 1 otherwise. */
static int run_case(const struct cfg *c, const struct hb_env *env, FILE *csv,
                    const struct dod_ops *ops, const struct scn_scenario *s, size_t n,
                    enum scn_order order, uint64_t *times)
{
	char name[160];
	snprintf(name, sizeof name, "%s/%s/n:%zu/elem:%zu%s", s->name, ops->name, n,
	         ops->elem_bytes, s->uses_order ? (order == SCN_RANDOM ? "/order:random" : "/order:seq") : "");
	struct scn_params p = {.n = n, .order = order, .seed = c->seed};
	const char *skip = s->cannot_run ? s->cannot_run(ops) : NULL;
	if (skip) {
		printf("%-52s skipped: %s\n", name, skip);
		return 0;
	}
	int failed = 0;
	for (unsigned long long i = 0; i < c->warmup + c->reps; i++) {
		struct hb_region r;
		struct scn_result res = {.swaps = -1};
		int rc = s->run(ops, &p, &r, &res);
		if (rc != SCN_RAN || !res.verified) {
			printf("%-52s FAILED (rep %llu): %s\n", name, i, res.why[0] ? res.why : "not verified");
			failed = 1;
			if (rc != SCN_RAN)
				return 1;
		}
		if (i < c->warmup)
			continue;
		unsigned rep = (unsigned)(i - c->warmup);
		times[rep] = r.elapsed_ns;
		if (csv) {
			struct hb_row row = {
				.env = env, .container = ops->name, .scenario = s->name,
				.order = order == SCN_RANDOM ? "random" : "seq", .n = n,
				.elem_bytes = ops->elem_bytes, .hole_ratio = 0.0, .seed = c->seed,
				.rep = rep, .region = &r, .checksum = res.checksum,
				.verified = res.verified, .swaps = res.swaps,
			};
			hb_utc_now(row.timestamp, sizeof row.timestamp);
			hb_csv_row(csv, &row);
		}
	}
	if (csv)
		fflush(csv);
	qsort(times, c->reps, sizeof *times, cmp_u64);
	uint64_t med = c->reps % 2 ? times[c->reps / 2]
	                           : (times[c->reps / 2 - 1] + times[c->reps / 2]) / 2;
	printf("%-52s median %11.4f ms  min %11.4f  max %11.4f  %9.2f ns/op  %s\n", name,
	       med / 1e6, times[0] / 1e6, times[c->reps - 1] / 1e6, (double)med / (double)n,
	       failed ? "NOT VERIFIED" : "verified");
	return failed;
}

static int cmd_run(int argc, char **argv)
{
	struct cfg c = {0};
	struct hb_env env;
	int rc = parse_run(&c, argc, argv);
	if (rc)
		return rc;
	hb_env_capture(&env);
	if (c.run_id)
		snprintf(env.run_id, sizeof env.run_id, "%s", c.run_id);
	if ((rc = check_fits(&c, &env)))
		return rc;

	char notice[400], err[400];
	if (hb_counters_init(c.counters, notice, sizeof notice, err, sizeof err))
		return usage_error("%s", err);
	if (notice[0] && !c.quiet)
		fprintf(stderr, "dodbench: %s\n", notice);

	FILE *csv = NULL;
	if (c.out && !(csv = hb_csv_open(c.out, err, sizeof err)))
		return usage_error("--out: %s", err);
	uint64_t *times = malloc(c.reps * sizeof *times);
	if (!times) {
		fprintf(stderr, "dodbench: out of memory for %llu repetitions\n", c.reps);
		return 1;
	}
	if (!c.quiet)
		fprintf(stderr, "dodbench: run %s, counter_source=%s, %llu reps + %llu warm-up\n",
		        env.run_id, hb_counter_source(), c.reps, c.warmup);

	int failed = 0;
	for (size_t si = 0; si < c.n_scenarios; si++)
		for (size_t ci = 0; ci < c.n_containers; ci++)
			for (size_t ei = 0; ei < c.n_elems; ei++)
				for (size_t ni = 0; ni < c.n_ns; ni++)
					for (size_t oi = 0; oi < (c.scenarios[si]->uses_order ? c.n_orders : 1); oi++) {
						const struct dod_ops *ops = hb_find_ops(c.containers[ci]->name, c.elems[ei]);
						enum scn_order order = c.scenarios[si]->uses_order ? c.orders[oi] : SCN_SEQ;
						failed |= run_case(&c, &env, csv, ops, c.scenarios[si], c.ns[ni], order, times);
					}
	free(times);
	if (csv && fclose(csv) != 0) {
		fprintf(stderr, "dodbench: error writing %s\n", c.out);
		return 1;
	}
	return failed;
}

int main(int argc, char **argv)
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
