/* cli.c - the options of `dodbench run`, parsed and checked before any work is done:
 * every bad input is a usage error (exit 2) with a message that names the option. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static const char help_usage[] =
	"usage: dodbench list containers|scenarios [--names]\n"
	"       dodbench run [options]\n"
	"       dodbench --help\n"
	"\n"
	"list prints every registered container variant with its axes and capabilities (or\n"
	"every scenario with its parameters); --names prints the names only.\n"
	"\n"
	"run executes every combination of the listed containers, scenarios, sizes, element\n"
	"sizes, orders and holes. Each repetition is one timed region; one raw CSV row is\n"
	"written per repetition, and a summary (median, min, max per case) is printed.\n"
	"\n"
	"options of run (lists are comma-separated; no limit on their length):\n";
static const char help_options[] =
	"  --container SEL[,..] containers (default all). Each item is a name, a glob ('bulk_*'),\n"
	"                       an axis filter AXIS=GLOB (family, removal, alloc, layout, caps:\n"
	"                       family=peer, alloc=vm, caps=holes), 'all', or -ITEM to remove\n"
	"                       what ITEM selects ('all,-peer_*'); see 'list containers'. One\n"
	"                       selected by several items ('handle_map,h*') runs once\n"
	"  --scenario SEL[,..]  scenarios (default all): names, globs, 'all', -ITEM\n"
	"  --n N[,M..]          elements per container, distinct integers >= 1 (default 100000)\n"
	"  --elem-bytes E[,..]  payload bytes per element, distinct: 8, 16, 40 (the particles),\n"
	"                       64 or 256 (default 8)\n"
	"  --order O[,..]       seq or random handle order for scenarios that use an order\n"
	"                       (lookup); other scenarios run once, recorded as seq (default seq)\n"
	"  --hole-ratio R[,..]  fraction of the n items erased before the timed region, 0 <= R\n"
	"                       < 1, for scenarios with holes (iterate, lookup, clear,\n"
	"                       defragment); others run without (default 0). round(R * n) items\n"
	"                       are erased, at most n - 1: a ratio that erases none at an n is\n"
	"                       skipped there, and refused when it erases none at every n\n"
	"  --hole-pattern P[,..] which items are erased: random (uniform), clustered (runs of\n"
	"                       geometric length, mean 64), oldest (the first R*n inserted)\n"
	"                       (default random); ratio 0 runs once, pattern none\n"
	;
static const char help_more[] =
	"  --reps K             measured repetitions per case, 1..1000000 (default 5)\n"
	"  --warmup W           unrecorded repetitions before them, 0..1000000 (default 1)\n"
	"  --seed S             seed of every RNG (holes, shuffles), unsigned 64-bit (default 1)\n"
	"  --out FILE.csv       append raw rows (schema 3) to FILE; header written when new\n"
	"  --resume             with --out: skip the repetitions FILE already holds, verified,\n"
	"                       for this run (--run-id, else the run of its last row) and\n"
	"                       --seed; rerun a killed sweep's command with it to complete it.\n"
	"                       Other lists (--container ...) add their new cases to that run;\n"
	"                       a case the run measured with another --seed is refused\n"
	"  --samples-out FILE   append the raw latency samples of scenarios that record them\n"
	"                       (push_latency) to FILE: run_id,case,rep,i,ns\n"
	"  --counters MODE      auto (PAPI when it has counters, else none), papi (fail if\n"
	"                       PAPI has none), none, or callgrind: re-run under valgrind's\n"
	"                       cache simulator, counting each timed region only (sim_*\n"
	"                       columns; deterministic; 20-200x slower) (default auto)\n"
	"  --sim-d1 S,A,L       callgrind: simulated D1 cache, size bytes, ways, line bytes\n"
	"  --sim-ll S,A,L       callgrind: simulated last-level cache (default: the host's;\n"
	"                       e.g. 8388608,16,64 for a typical desktop 8 MB L3)\n"
	"  --baseline NAME      container the summary's ratios are relative to (default: the\n"
	"                       first one selected)\n"
	"  --interleave         run the repetitions of all cases in a seeded random order, so\n"
	"                       drift hits every container alike (interleave_pos column)\n"
	"  --prefault           pre-grow and touch the allocator's heap before timing, so\n"
	"                       first-touch page faults stay out of the timed regions\n"
	"  --pin CPU            pin the process to CPU (sched_setaffinity)\n"
	"  --timeout S          stop a case whose repetitions (warm-ups included) have run S\n"
	"                       seconds in all, 0 < S <= 1000000 (decimal, e.g. 2.5; default:\n"
	"                       none): its row gets status timeout and the sweep goes on\n"
	"  --no-fork            run the cases in dodbench's own process (for a debugger): a\n"
	"                       crash then ends the sweep. By default each case runs in a child\n"
	"                       process (with --interleave: one child runs the schedule and is\n"
	"                       replaced after a failure), so a case that crashes, aborts, is\n"
	"                       killed for memory or times out gets a row with its status and\n"
	"                       the sweep goes on\n"
	"  --out-json FILE      also write the run in google-benchmark's JSON format\n"
	"  --run-id ID          run_id column ([A-Za-z0-9._-], at most 100 characters); default\n"
	"                       a new one per invocation (UTC time-host-pid). make bench passes\n"
	"                       one id to all its invocations so reports treat them as one run\n"
	"  --quiet              print only the summary: no notices, warnings or progress\n"
	"\n"
	"environment: DODBENCH_PROGRESS_AFTER=S prints progress lines from S seconds on\n"
	"(default 2); lines come every 10 s when stderr is not a terminal.\n"
	"\n"
	"exit status: 0 success; 1 a case did not end ok: its verification or a container call\n"
	"failed, or it crashed, timed out or ran out of memory (status column, summary);\n"
	"2 usage error (unknown name, bad or too large number, an output that cannot be\n"
	"opened, is locked by another run or names the other output) - checked before any\n"
	"work; 3 an output could not be written mid-run (the reason is printed).\n"
	"\n"
	"example: dodbench run --container handle_map,'peer_*' --scenario lookup \\\n"
	"         --n 1000,100000 --order seq,random --hole-ratio 0,0.5 --reps 11 --out mine.csv\n";

void hb_print_help(FILE *f)
{
	fputs(help_usage, f);
	fputs(help_options, f);
	fputs(help_more, f);
}

int hb_usage_error(const char *fmt, ...)
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

/* Strict unsigned decimal number: digits with at most one '.', nothing else (strtod alone
 * takes " 5", "0x10", "1e3" and "inf"). */
static int parse_decimal(const char *s, double *out)
{
	char *end;
	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno || end == s || !isfinite(*out) ? -1 : 0;
}

/* Is v[i] one of v[0..i)? A value listed twice would run its cases twice. */
static bool listed_before(const size_t *v, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (v[j] == v[i])
			return true;
	return false;
}

static int parse_count(const char *opt, const char *arg, unsigned long long lo,
                       unsigned long long hi, unsigned long long *out)
{
	if (parse_u64(arg, out) || *out < lo || *out > hi)
		return hb_usage_error("%s: '%s' is not an integer in %llu..%llu", opt, arg, lo, hi);
	return 0;
}

/* Splits a comma list in place into *n_items items (a malloc'd array in *items_out); an
 * empty item ("a,,b", "a,") is an error rather than silently dropped. */
static int split(char *s, char ***items_out, size_t *n_items, const char *opt)
{
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ',';
	char **items = malloc(cap * sizeof *items);
	if (!items)
		return hb_usage_error("%s: out of memory", opt);
	*n_items = 0;
	for (char *p = s;; p++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p) {
			free(items);
			return hb_usage_error("%s: empty item in list", opt);
		}
		items[(*n_items)++] = p;
		if (!comma)
			break;
		p = comma;
	}
	*items_out = items;
	return 0;
}

/* ---- selection of containers and scenarios: names, globs, axis filters, -ITEM ---- */

static const char *const axes[] = {"family", "removal", "alloc", "layout", "caps"};

/* Does container k match glob on its name (axis NULL) or on an axis? The axes are the
 * same at every size class; the first size class it has is read. */
static bool container_matches(const struct hb_container *k, const char *axis, const char *glob)
{
	const struct dod_ops *ops = NULL;
	for (size_t s = 0; s < HB_N_SIZES && !ops; s++)
		ops = k->ops[s];
	if (!axis)
		return fnmatch(glob, k->name, 0) == 0;
	if (strcmp(axis, "caps") == 0) {
		for (int b = 0; b < DOD_N_CAPS; b++)
			if ((ops->caps & (1u << b)) && fnmatch(glob, dod_cap_names[b], 0) == 0)
				return true;
		return strcmp(glob, "none") == 0 && ops->caps == 0;
	}
	const char *v = strcmp(axis, "family") == 0    ? ops->family
	                : strcmp(axis, "removal") == 0 ? ops->removal
	                : strcmp(axis, "alloc") == 0   ? ops->alloc
	                                               : ops->layout;
	return fnmatch(glob, v, 0) == 0;
}

static void list_container_names(FILE *f)
{
	for (size_t i = 0; i < hb_n_containers; i++)
		fprintf(f, "%s%s", i ? ", " : "", hb_containers[i].name);
}

static void list_scenario_names(FILE *f)
{
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", all[i]->name);
}

/* Applies the items of a --container or --scenario list to the registry's n_all entries:
 * rank[k] = 0 when entry k is not selected, else its order of first selection (1, 2 ...).
 * Returns 0 or 2. */
static int select_items(char *arg, bool containers, size_t n_all, size_t *rank)
{
	char **items;
	size_t n_items, next = 1;
	const char *opt = containers ? "--container" : "--scenario";
	if (split(arg, &items, &n_items, opt))
		return 2;
	const struct scn_scenario *const *scns;
	scn_list(&scns);
	memset(rank, 0, n_all * sizeof *rank);
	for (size_t i = 0; i < n_items; i++) {
		char *item = items[i];
		bool remove = item[0] == '-';
		item += remove;
		const char *axis = NULL, *glob = item;
		char *eq = strchr(item, '=');
		if (eq) {
			if (!containers) {
				free(items);
				return hb_usage_error("--scenario: '%s': scenarios have no axis filters", item);
			}
			*eq = '\0';
			axis = item;
			glob = eq + 1;
			size_t a = 0;
			while (a < sizeof axes / sizeof *axes && strcmp(axes[a], axis) != 0)
				a++;
			if (a == sizeof axes / sizeof *axes) {
				free(items);
				return hb_usage_error("--container: unknown axis '%s' (family, removal, alloc, "
				                      "layout, caps)", axis);
			}
		}
		if (!*glob) {
			free(items);
			return hb_usage_error("%s: empty name in '%s'", opt, items[i]);
		}
		bool any = false;
		for (size_t k = 0; k < n_all; k++) {
			bool m = strcmp(glob, "all") == 0 && !axis
			                 ? true
			         : containers ? container_matches(&hb_containers[k], axis, glob)
			                      : fnmatch(glob, scns[k]->name, 0) == 0;
			if (!m)
				continue;
			any = true;
			if (remove)
				rank[k] = 0;
			else if (!rank[k])
				rank[k] = next++;
		}
		if (!any) {
			fprintf(stderr, "dodbench: %s: '%s%s%s' matches no %s; valid: ", opt,
			        axis ? axis : "", axis ? "=" : "", glob,
			        containers ? "container" : "scenario");
			if (containers)
				list_container_names(stderr);
			else
				list_scenario_names(stderr);
			fputs(containers ? ", all, or AXIS=GLOB\n" : ", all\n", stderr);
			free(items);
			return 2;
		}
	}
	free(items);
	return 0;
}

/* Writes the indices of the selected entries (rank > 0) to index_out in the order they
 * were first selected; returns how many. */
static size_t ranked(const size_t *rank, size_t n_all, size_t *index_out)
{
	size_t n = 0;
	for (size_t k = 0; k < n_all; k++) {
		if (!rank[k])
			continue;
		size_t at = n++;
		while (at > 0 && rank[index_out[at - 1]] > rank[k]) {
			index_out[at] = index_out[at - 1];
			at--;
		}
		index_out[at] = k;
	}
	return n;
}

static int parse_containers(struct hb_config *c, char *arg)
{
	size_t *rank = calloc(hb_n_containers, sizeof *rank);
	size_t *idx = calloc(hb_n_containers, sizeof *idx);
	free(c->containers);
	c->containers = calloc(hb_n_containers, sizeof *c->containers);
	if (!rank || !idx || !c->containers)
		return hb_usage_error("--container: out of memory");
	int rc = select_items(arg, true, hb_n_containers, rank);
	c->n_containers = rc ? 0 : ranked(rank, hb_n_containers, idx);
	for (size_t i = 0; i < c->n_containers; i++)
		c->containers[i] = &hb_containers[idx[i]];
	free(rank);
	free(idx);
	if (!rc && c->n_containers == 0)
		rc = hb_usage_error("--container: the selection is empty");
	return rc;
}

static int parse_scenarios(struct hb_config *c, char *arg)
{
	const struct scn_scenario *const *all;
	size_t n_all = scn_list(&all);
	size_t *rank = calloc(n_all + 1, sizeof *rank);
	size_t *idx = calloc(n_all + 1, sizeof *idx);
	free(c->scenarios);
	c->scenarios = calloc(n_all + 1, sizeof *c->scenarios);
	if (!rank || !idx || !c->scenarios)
		return hb_usage_error("--scenario: out of memory");
	int rc = select_items(arg, false, n_all, rank);
	c->n_scenarios = rc ? 0 : ranked(rank, n_all, idx);
	for (size_t i = 0; i < c->n_scenarios; i++)
		c->scenarios[i] = all[idx[i]];
	free(rank);
	free(idx);
	if (!rc && c->n_scenarios == 0)
		rc = hb_usage_error("--scenario: the selection is empty");
	return rc;
}

static int parse_ns(struct hb_config *c, char *arg)
{
	char **items;
	if (split(arg, &items, &c->n_ns, "--n"))
		return 2;
	free(c->ns);
	if (!(c->ns = calloc(c->n_ns, sizeof *c->ns)))
		return hb_usage_error("--n: out of memory");
	int rc = 0;
	for (size_t i = 0; i < c->n_ns && !rc; i++) {
		unsigned long long v;
		if (parse_u64(items[i], &v))
			rc = hb_usage_error("--n: '%s' is not a positive integer", items[i]);
		else if (v == 0)
			rc = hb_usage_error("--n: must be at least 1, got 0");
		else if (v > SIZE_MAX / 1024)
			rc = hb_usage_error("--n: %s is too large to allocate", items[i]);
		else
			c->ns[i] = (size_t)v;
		if (!rc && listed_before(c->ns, i))
			rc = hb_usage_error("--n: %s listed twice", items[i]);
	}
	free(items);
	return rc;
}

static int parse_elems(struct hb_config *c, char *arg)
{
	char **items;
	if (split(arg, &items, &c->n_elems, "--elem-bytes"))
		return 2;
	free(c->elems);
	if (!(c->elems = calloc(c->n_elems, sizeof *c->elems)))
		return hb_usage_error("--elem-bytes: out of memory");
	int rc = 0;
	for (size_t i = 0; i < c->n_elems && !rc; i++) {
		unsigned long long v;
		bool ok = parse_u64(items[i], &v) == 0, found = false;
		for (size_t s = 0; ok && s < HB_N_SIZES; s++)
			found |= v == hb_elem_sizes[s];
		if (!found)
			rc = hb_usage_error("--elem-bytes: '%s' is not one of 8, 16, 40, 64, 256", items[i]);
		c->elems[i] = (size_t)v;
		if (!rc && listed_before(c->elems, i))
			rc = hb_usage_error("--elem-bytes: %s listed twice", items[i]);
	}
	free(items);
	return rc;
}

static int parse_orders(struct hb_config *c, char *arg)
{
	char **items;
	size_t n;
	if (split(arg, &items, &n, "--order"))
		return 2;
	int rc = n > 2 ? hb_usage_error("--order: at most seq,random") : 0;
	c->n_orders = rc ? 0 : n;
	for (size_t i = 0; i < c->n_orders && !rc; i++) {
		if (strcmp(items[i], "seq") == 0)
			c->orders[i] = SCN_SEQ;
		else if (strcmp(items[i], "random") == 0)
			c->orders[i] = SCN_RANDOM;
		else
			rc = hb_usage_error("--order: '%s' is not seq or random", items[i]);
		if (!rc && i == 1 && c->orders[0] == c->orders[1])
			rc = hb_usage_error("--order: '%s' listed twice", items[i]);
	}
	free(items);
	return rc;
}

static int parse_hole_ratios(struct hb_config *c, char *arg)
{
	char **items;
	if (split(arg, &items, &c->n_hole_ratios, "--hole-ratio"))
		return 2;
	free(c->hole_ratios);
	if (!(c->hole_ratios = calloc(c->n_hole_ratios, sizeof *c->hole_ratios)))
		return hb_usage_error("--hole-ratio: out of memory");
	int rc = 0;
	for (size_t i = 0; i < c->n_hole_ratios && !rc; i++) {
		double v = 0;
		if (parse_decimal(items[i], &v))
			rc = hb_usage_error("--hole-ratio: '%s' is not a decimal number", items[i]);
		else if (!(v >= 0 && v < 1))
			rc = hb_usage_error("--hole-ratio: %s is outside 0 <= r < 1", items[i]);
		for (size_t j = 0; j < i && !rc; j++)
			if (c->hole_ratios[j] == v)
				rc = hb_usage_error("--hole-ratio: %s listed twice", items[i]);
		c->hole_ratios[i] = v;
	}
	free(items);
	return rc;
}

static int parse_hole_patterns(struct hb_config *c, char *arg)
{
	char **items;
	size_t n;
	if (split(arg, &items, &n, "--hole-pattern"))
		return 2;
	int rc = 0;
	c->n_hole_patterns = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		int k = 1; /* "none" is not a pattern one can ask for */
		while (k < SCN_N_HOLE_PATTERNS && strcmp(items[i], scn_hole_pattern_names[k]) != 0)
			k++;
		if (k == SCN_N_HOLE_PATTERNS) {
			rc = hb_usage_error("--hole-pattern: '%s' is not random, clustered or oldest",
			                    items[i]);
			break;
		}
		for (size_t j = 0; j < c->n_hole_patterns; j++)
			if (c->hole_patterns[j] == (enum scn_hole_pattern)k)
				rc = hb_usage_error("--hole-pattern: '%s' listed twice", items[i]);
		if (!rc)
			c->hole_patterns[c->n_hole_patterns++] = (enum scn_hole_pattern)k;
	}
	free(items);
	return rc;
}

/* The usage error for an option getopt_long refused: an unknown short option (named by
 * its letter: in "run -xy" argv[optind - 1] is still "run"), an ambiguous prefix of several long
 * options (they are listed), or an unknown long option. Returns 2. */
static int bad_option(const struct option *opts, const char *arg)
{
	if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2) != 0)
		return hb_usage_error("unknown option '-%c'", optopt);
	if (strncmp(arg, "--", 2) != 0)
		return hb_usage_error("unknown option '%s'", arg);
	size_t len = strcspn(arg + 2, "=");
	char names[400] = "";
	int matches = 0;
	for (const struct option *o = opts; o->name; o++)
		if (len && strncmp(o->name, arg + 2, len) == 0 && strlen(o->name) > len) {
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s--%s",
			         matches ? ", " : "", o->name);
			matches++;
		}
	if (matches > 1)
		return hb_usage_error("ambiguous option '%.*s': could be %s", (int)len + 2, arg,
		                      names);
	return hb_usage_error("unknown option '%.*s'", (int)len + 2, arg);
}

/* The checks of options against each other (and of values no single parser sees whole),
 * once all are parsed. Returns 0 or 2. */
static int check_combinations(const struct hb_config *c)
{
	if (c->baseline) {
		size_t k = 0;
		while (k < c->n_containers && strcmp(c->containers[k]->name, c->baseline) != 0)
			k++;
		if (k == c->n_containers)
			return hb_usage_error("--baseline: '%s' is not one of the containers of this "
			                      "run", c->baseline);
	}
	/* hb_samples_open would say "cannot open  for appending": as --out and --out-json. */
	if (c->samples_out && !*c->samples_out)
		return hb_usage_error("--samples-out: an empty file name");
	if ((c->sim_d1 || c->sim_ll) && c->counters != HB_COUNTERS_CALLGRIND)
		return hb_usage_error("--sim-d1/--sim-ll need --counters callgrind");
	if (c->resume && !c->out)
		return hb_usage_error("--resume needs --out: the file whose rows it completes");
	if (c->sim_resume_from && !c->sim_child)
		return hb_usage_error("--sim-resume-from is internal to --counters callgrind");
	if (c->timeout_s > 0 && c->no_fork)
		return hb_usage_error("--timeout needs the cases in child processes: drop --no-fork");
	if (c->timeout_s > 0 && c->counters == HB_COUNTERS_CALLGRIND)
		return hb_usage_error("--timeout does not work with --counters callgrind (its cases "
		                      "run inside the one valgrind process)");
	return 0;
}

int hb_parse_run(struct hb_config *c, int argc, char **argv)
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
		{"resume", no_argument, 0, 'R'},
		{"pin", required_argument, 0, 'p'},       {"out-json", required_argument, 0, 'J'},
		{"sim-d1", required_argument, 0, '1'},    {"sim-ll", required_argument, 0, '2'},
		{"sim-child", no_argument, 0, 'X'},       {"hole-ratio", required_argument, 0, 'H'},
		{"hole-pattern", required_argument, 0, 'T'},
		{"samples-out", required_argument, 0, 'D'},
		{"timeout", required_argument, 0, 't'},   {"no-fork", no_argument, 0, 'F'},
		{"sim-resume-from", required_argument, 0, 'Y'},
		{0, 0, 0, 0},
	};
	char all_c[] = "all", all_s[] = "all", def_n[] = "100000", def_e[] = "8", def_o[] = "seq",
	     def_h[] = "0", def_p[] = "random";
	if (parse_containers(c, all_c) || parse_scenarios(c, all_s) || parse_ns(c, def_n) ||
	    parse_elems(c, def_e) || parse_orders(c, def_o) || parse_hole_ratios(c, def_h) ||
	    parse_hole_patterns(c, def_p))
		return 2;
	c->reps = 5;
	c->warmup = 1;
	c->seed = 1;
	c->pin = -1;
	c->progress_after_s = 2;
	const char *env = getenv("DODBENCH_PROGRESS_AFTER");
	if (env) {
		char *end;
		double v = strtod(env, &end);
		if (*end || end == env || !(v >= 0 && v < 1e9))
			return hb_usage_error("DODBENCH_PROGRESS_AFTER: '%s' is not a number of seconds",
			                      env);
		c->progress_after_s = v;
	}
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
		case 'H': rc = parse_hole_ratios(c, optarg); break;
		case 'T': rc = parse_hole_patterns(c, optarg); break;
		case 'r': rc = parse_count("--reps", optarg, 1, 1000000, &c->reps); break;
		case 'w': rc = parse_count("--warmup", optarg, 0, 1000000, &c->warmup); break;
		case 'S': rc = parse_count("--seed", optarg, 0, UINT64_MAX, &c->seed); break;
		case 'O': c->out = optarg; break;
		case 'D': c->samples_out = optarg; break;
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
				rc = hb_usage_error("--counters: '%s' is not auto, papi, none or callgrind",
				                    optarg);
			break;
		case 'B': c->baseline = optarg; break;
		case 'L': c->interleave = 1; break;
		case 'P': c->prefault = 1; break;
		case 'R': c->resume = 1; break;
		case 'J': c->out_json = optarg; break;
		case 'X': c->sim_child = 1; break;
		case 'F': c->no_fork = 1; break;
		case 'Y': c->sim_resume_from = optarg; break;
		case 't':
			if (parse_decimal(optarg, &c->timeout_s) ||
			    !(c->timeout_s > 0 && c->timeout_s <= 1e6))
				rc = hb_usage_error("--timeout: '%s' is not a number of seconds, 0 < S <= "
				                    "1000000, in decimal (2.5)", optarg);
			break;
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
				rc = hb_usage_error("%s: %s", opt == '1' ? "--sim-d1" : "--sim-ll", err);
			*(opt == '1' ? &c->sim_d1 : &c->sim_ll) = optarg;
			break;
		}
		case 'I':
			c->run_id = optarg;
			if (!*optarg || strlen(optarg) > 100 ||
			    strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			                   "0123456789._-") != strlen(optarg))
				rc = hb_usage_error("--run-id: '%s' must be 1..100 of [A-Za-z0-9._-]", optarg);
			break;
		case 'q': c->quiet = 1; break;
		case 'h': hb_print_help(stdout); exit(0);
		case ':': rc = hb_usage_error("%s needs a value", argv[optind - 1]); break;
		default: rc = bad_option(opts, argv[optind - 1]); break;
		}
	}
	if (rc == 0 && optind < argc)
		rc = hb_usage_error("unexpected argument '%s'", argv[optind]);
	if (rc == 0)
		rc = check_combinations(c);
	if (rc == 0 && c->pin >= 0 && hb_pin((int)c->pin) != 0)
		rc = hb_usage_error("--pin: cannot pin to CPU %ld: %s", c->pin, strerror(errno));
	return rc;
}
