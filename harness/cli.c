/* cli.c - the options of `dodbench run`, parsed and checked before any work is done:
 * every bad input is a usage error (exit 2) with a message that names the option. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static const char help_usage[] =
	"usage: dodbench list containers|scenarios [--names]\n"
	"       dodbench run [options]\n"
	"       dodbench caches [--curve]\n"
	"       dodbench --help\n"
	"\n"
	"list prints every registered container variant with its axes and capabilities (or\n"
	"every scenario with its parameters); --names prints the names only. --list is the\n"
	"same command (dodbench --list containers).\n"
	"\n"
	"caches prints the L1, L2 and last-level sizes sysfs gives beside those a pointer\n"
	"chase measures (the working sets where the latency per load steps) and the one --n's\n"
	"cache words use: the measured one when the two are more than 2x apart (a VM may\n"
	"report its host's cache); --curve adds the chase's ns per load at every working set.\n"
	"\n"
	"run executes every combination of the listed containers, scenarios, sizes, element\n"
	"sizes, orders and holes. Each repetition is one timed region; one raw CSV row is\n"
	"written per repetition, and a summary (median, min, max per case) is printed.\n"
	"\n"
	"options of run (lists are comma-separated; no limit on their length; an option with a\n"
	"value is given once: a second --n is an error, not an override):\n";
static const char help_options[] =
	"  --container SEL[,..] containers (default all). Each item is a name, a glob ('bulk_*'),\n"
	"                       an axis filter AXIS=GLOB (family, removal, alloc, layout, caps:\n"
	"                       family=peer, alloc=vm, caps=holes), 'all', or -ITEM to remove\n"
	"                       what ITEM selects ('all,-peer_*'); see 'list containers'. One\n"
	"                       selected by several items ('handle_map,h*') runs once\n"
	"  --scenario SEL[,..]  scenarios (default all): names, globs, 'all', -ITEM\n"
	;
static const char help_more[] =
	"  --reps K             measured repetitions per case, 1..1000000 (default 5)\n"
	"  --warmup W           unrecorded repetitions before them, 0..1000000 (default 1)\n"
	"  --seed S             seed of every RNG (holes, shuffles), unsigned 64-bit (default 1)\n"
	"  --out FILE.csv       append raw rows (schema 4) to FILE; header written when new\n"
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
	"  --pin CPU            pin the process to CPU (sched_setaffinity)\n";

static const char help_shard[] =
	"  --shard K/N          run shard K of N (1 <= K <= N <= 10000): the cases whose name\n"
	"                       hashes (FNV-1a) to K, whole cases, the same whatever the order\n"
	"                       of the options; needs --out and --run-id. Beside FILE.csv,\n"
	"                       FILE.plan.tsv lists every case of the whole plan and its shard:\n"
	"                       reports/merge_shards.py checks the shards of a run against it\n";

static const char help_rest[] =
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
	"  --progress           progress lines even with --quiet (make bench's sweeps)\n"
	"\n"
	"environment: DODBENCH_PROGRESS_AFTER=S prints progress lines from S seconds on\n"
	"(default " HB_STR(HB_PROGRESS_AFTER_S) "); lines come every " HB_STR(HB_PROGRESS_LOG_S)
	" s when stderr is not a terminal.\n"
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
	hb_axes_help(f);
	fputs(help_more, f);
	fputs(help_shard, f);
	fputs(help_rest, f);
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

static int parse_count(const char *opt, const char *arg, unsigned long long lo,
                       unsigned long long hi, unsigned long long *out)
{
	if (hb_parse_u64(arg, out) || *out < lo || *out > hi)
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

static bool is_pow2(unsigned long long x) { return x && !(x & (x - 1)); }

/* --sim-d1, --sim-ll: the simulator's cache geometry "size,assoc,line" in bytes, checked
 * as valgrind checks it (line a power of two, size = sets * assoc * line with sets a power
 * of two). Returns 0 or -1 with a message in err. */
static int parse_geometry(const char *text, char *err, size_t err_len)
{
	unsigned long long size, assoc, line;
	char tail;
	if (sscanf(text, "%llu,%llu,%llu%c", &size, &assoc, &line, &tail) != 3 || !size ||
	    !assoc || !line) {
		snprintf(err, err_len, "'%s' is not size,assoc,line (bytes, ways, bytes)", text);
		return -1;
	}
	if (!is_pow2(line) || size % (assoc * line) != 0 || !is_pow2(size / (assoc * line))) {
		snprintf(err, err_len, "'%s': line must be a power of two and size / (assoc * line) "
		                       "a power of two (valgrind's rule)", text);
		return -1;
	}
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
		if (!*glob) { /* the item as typed: the '=' and '-' were cut from it above */
			int rc = hb_usage_error("%s: empty name in '%s%s%s'", opt, remove ? "-" : "",
			                        axis ? axis : "", axis ? "=" : "");
			free(items);
			return rc;
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

/* Whether an item of a count axis is a word (a cache word of --n), not a number. */
static bool is_word(const char *item)
{
	unsigned long long x;
	return hb_parse_u64(item, &x) != 0;
}

/* Parses the comma list arg of axis `id` into c->axis[id]: every item a value of the
 * axis, none listed twice (it would run its cases twice). Returns 0 or 2. */
static int parse_axis(struct hb_config *c, size_t id, char *arg)
{
	const struct hb_axis *const *all;
	hb_axes(&all);
	const struct hb_axis *a = all[id];
	char opt[64], **items;
	size_t n;
	snprintf(opt, sizeof opt, "--%s", a->option);
	if (split(arg, &items, &n, opt))
		return 2;
	struct hb_axis_values *vals = &c->axis[id];
	free(vals->v);
	vals->n = 0;
	if (!(vals->v = calloc(n, sizeof *vals->v))) {
		free(items);
		return hb_usage_error("%s: out of memory", opt);
	}
	int rc = 0;
	const char **kept = calloc(n, sizeof *kept); /* the item each kept value came from */
	if (!kept)
		rc = hb_usage_error("%s: out of memory", opt);
	for (size_t i = 0; i < n && !rc; i++) {
		union hb_axis_value v;
		char err[300];
		if (hb_axis_parse(a, items[i], &v, err, sizeof err))
			rc = hb_usage_error("%s", err);
		size_t j = 0;
		while (!rc && j < vals->n && vals->v[j].u != v.u)
			j++;
		/* Two cache words of one size on this machine (l2 and llc without an L3) run
		 * once; an item written twice, or a number equal to another, is a mistake. */
		bool dup = !rc && j < vals->n;
		int words = dup && a->parse_word ? is_word(kept[j]) + is_word(items[i]) : 0;
		if (dup && (words == 0 || strcmp(kept[j], items[i]) == 0))
			rc = hb_usage_error("%s: %s listed twice", opt, items[i]);
		else if (dup && words == 1)
			rc = hb_usage_error("%s: %s and %s are one value here (%llu): listed twice", opt,
			                    kept[j], items[i], (unsigned long long)v.u);
		if (!rc && !dup) {
			kept[vals->n] = items[i];
			vals->v[vals->n++] = v;
		}
	}
	free(kept);
	free(items);
	return rc;
}

/* Every axis at its default (the table's, as on the command line). Returns 0 or 2. */
static int axis_defaults(struct hb_config *c)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	for (size_t i = 0; i < n; i++) {
		char *def = strdup(all[i]->def_of ? all[i]->def_of() : all[i]->def);
		/* split writes into it; it lives with c */
		if (!def)
			return hb_usage_error("--%s: out of memory", all[i]->option);
		if (parse_axis(c, i, def))
			return 2;
	}
	return 0;
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
	if (c->shard_n && (!c->out || !c->run_id))
		return hb_usage_error("--shard needs --out and --run-id: every shard of a run "
		                      "writes its rows and manifest under one run id for the merge");
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

/* The options of run other than the axes' (hb_axes adds one per axis, AXIS_OPT + its
 * index); the order is the order an ambiguous prefix lists them in. */
static const struct option run_opts[] = {
	{"container", required_argument, 0, 'c'}, {"scenario", required_argument, 0, 's'},
	{"reps", required_argument, 0, 'r'},      {"warmup", required_argument, 0, 'w'},
	{"seed", required_argument, 0, 'S'},      {"out", required_argument, 0, 'O'},
	{"counters", required_argument, 0, 'C'},  {"quiet", no_argument, 0, 'q'},
	{"progress", no_argument, 0, 'G'},
	{"help", no_argument, 0, 'h'},            {"run-id", required_argument, 0, 'I'},
	{"baseline", required_argument, 0, 'B'},  {"interleave", no_argument, 0, 'L'},
	{"prefault", no_argument, 0, 'P'},        {"resume", no_argument, 0, 'R'},
	{"pin", required_argument, 0, 'p'},       {"out-json", required_argument, 0, 'J'},
	{"sim-d1", required_argument, 0, '1'},    {"sim-ll", required_argument, 0, '2'},
	{"sim-child", no_argument, 0, 'X'},       {"samples-out", required_argument, 0, 'D'},
	{"timeout", required_argument, 0, 't'},   {"no-fork", no_argument, 0, 'F'},
	{"sim-resume-from", required_argument, 0, 'Y'}, {"shard", required_argument, 0, 'H'},
};
#define N_RUN_OPTS (sizeof run_opts / sizeof *run_opts)
#define AXIS_OPT 0x100

/* run_opts, then one option per axis, then the terminating zeros, into opts (room for
 * N_RUN_OPTS + HB_MAX_AXES + 1). */
static void build_options(struct option *opts)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	memcpy(opts, run_opts, sizeof run_opts);
	for (size_t i = 0; i < n; i++)
		opts[N_RUN_OPTS + i] = (struct option){all[i]->option, required_argument, 0,
		                                       AXIS_OPT + (int)i};
	opts[N_RUN_OPTS + n] = (struct option){0, 0, 0, 0};
}

/* Everything at its default: all containers and scenarios, every axis's default, the
 * counts; DODBENCH_PROGRESS_AFTER read. Returns 0 or 2. */
static int set_defaults(struct hb_config *c)
{
	char all_c[] = "all", all_s[] = "all";
	if (parse_containers(c, all_c) || parse_scenarios(c, all_s) || axis_defaults(c))
		return 2;
	c->reps = 5;
	c->warmup = 1;
	c->seed = 1;
	c->pin = -1;
	c->progress_after_s = HB_PROGRESS_AFTER_S;
	const char *env = getenv("DODBENCH_PROGRESS_AFTER");
	if (env) {
		char *end;
		double v = strtod(env, &end);
		if (*end || end == env || !(v >= 0 && v < 1e9))
			return hb_usage_error("DODBENCH_PROGRESS_AFTER: '%s' is not a number of seconds",
			                      env);
		c->progress_after_s = v;
	}
	return 0;
}

/* An option without a value: sets its flag. Returns 0, or -1 when opt is not one. */
static int parse_flag(struct hb_config *c, int opt)
{
	switch (opt) {
	case 'q': c->quiet = 1; return 0;
	case 'G': c->progress = 1; return 0;
	case 'L': c->interleave = 1; return 0;
	case 'P': c->prefault = 1; return 0;
	case 'R': c->resume = 1; return 0;
	case 'X': c->sim_child = 1; return 0;
	case 'F': c->no_fork = 1; return 0;
	case 'h': c->help = 1; return 0;
	default: return -1;
	}
}

/* --shard K/N: 1 <= K <= N <= 10000, decimal. Returns 0 or 2. */
static int parse_shard(struct hb_config *c, const char *arg)
{
	unsigned k, n;
	int end = 0;
	/* digits and one '/' only: sscanf alone would take signs and white space */
	if (strspn(arg, "0123456789/") != strlen(arg) || !isdigit((unsigned char)arg[0])
	    || sscanf(arg, "%5u/%5u%n", &k, &n, &end) != 2 || arg[end]
	    || !(k >= 1 && k <= n && n <= 10000))
		return hb_usage_error("--shard: '%s' is not K/N with 1 <= K <= N <= 10000 (shard K "
		                      "of N, e.g. 2/3)", arg);
	c->shard_k = k;
	c->shard_n = n;
	return 0;
}

static int parse_counters(struct hb_config *c, const char *arg)
{
	static const char *const modes[] = {[HB_COUNTERS_AUTO] = "auto", [HB_COUNTERS_PAPI] = "papi",
	                                    [HB_COUNTERS_NONE] = "none",
	                                    [HB_COUNTERS_CALLGRIND] = "callgrind"};
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
		if (strcmp(arg, modes[m]) == 0) {
			c->counters = (enum hb_counter_mode)m;
			return 0;
		}
	return hb_usage_error("--counters: '%s' is not auto, papi, none or callgrind", arg);
}

/* An option with the value arg (not an axis's). Returns 0 or 2. */
static int parse_value(struct hb_config *c, int opt, char *arg)
{
	unsigned long long cpu;
	char err[200];
	switch (opt) {
	case 'c': return parse_containers(c, arg);
	case 's': return parse_scenarios(c, arg);
	case 'r': return parse_count("--reps", arg, 1, 1000000, &c->reps);
	case 'w': return parse_count("--warmup", arg, 0, 1000000, &c->warmup);
	case 'S': return parse_count("--seed", arg, 0, UINT64_MAX, &c->seed);
	case 'C': return parse_counters(c, arg);
	case 'O': c->out = arg; return 0;
	case 'D': c->samples_out = arg; return 0;
	case 'B': c->baseline = arg; return 0;
	case 'J': c->out_json = arg; return 0;
	case 'Y': c->sim_resume_from = arg; return 0;
	case 'H': return parse_shard(c, arg);
	case 't':
		if (hb_parse_decimal(arg, &c->timeout_s) || !(c->timeout_s > 0 && c->timeout_s <= 1e6))
			return hb_usage_error("--timeout: '%s' is not a number of seconds, 0 < S <= "
			                      "1000000, in decimal (2.5)", arg);
		return 0;
	case 'p':
		if (parse_count("--pin", arg, 0, 1023, &cpu))
			return 2;
		c->pin = (long)cpu;
		return 0;
	case '1':
	case '2':
		*(opt == '1' ? &c->sim_d1 : &c->sim_ll) = arg;
		if (parse_geometry(arg, err, sizeof err))
			return hb_usage_error("%s: %s", opt == '1' ? "--sim-d1" : "--sim-ll", err);
		return 0;
	case 'I':
		c->run_id = arg;
		if (!*arg || strlen(arg) > 100 ||
		    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
		            strlen(arg))
			return hb_usage_error("--run-id: '%s' must be 1..100 of [A-Za-z0-9._-]", arg);
		return 0;
	default: return -1;
	}
}

/* The usage error for an option with a value given a second time, which would silently
 * replace the first (--n 10 --n 20 ran n 20 only), or 0 the first time (seen[opt] is
 * set). A flag given twice (--quiet --quiet) changes nothing and is not one. */
static int repeated(const struct option *opts, int opt, bool *seen)
{
	const struct option *o = opts;
	while (o->name && o->val != opt)
		o++;
	if (!o->name || o->has_arg != required_argument || !seen[opt]) {
		seen[opt] = true;
		return 0;
	}
	bool list = opt >= AXIS_OPT || opt == 'c' || opt == 's';
	return hb_usage_error("--%s given twice (the second would replace the first): give it "
	                      "once%s", o->name, list ? ", its values comma-separated" : "");
}

int hb_parse_run(struct hb_config *c, int argc, char **argv)
{
	struct option opts[N_RUN_OPTS + HB_MAX_AXES + 1];
	bool seen[AXIS_OPT + HB_MAX_AXES] = {false}; /* by option code: given once already */
	build_options(opts);
	if (set_defaults(c))
		return 2;
	opterr = 0;
	optind = 1;
	int opt, rc = 0;
	while (!c->help && rc == 0 && (opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (opt > 0 && opt < AXIS_OPT + HB_MAX_AXES && (rc = repeated(opts, opt, seen)))
			break;
		if (opt >= AXIS_OPT)
			rc = parse_axis(c, (size_t)(opt - AXIS_OPT), optarg);
		else if (opt == ':')
			rc = hb_usage_error("%s needs a value", argv[optind - 1]);
		else if (parse_flag(c, opt) != 0 && (rc = parse_value(c, opt, optarg)) < 0)
			rc = bad_option(opts, argv[optind - 1]);
	}
	if (rc == 0 && !c->help && optind < argc)
		rc = hb_usage_error("unexpected argument '%s'", argv[optind]);
	if (rc == 0 && !c->help)
		rc = check_combinations(c);
	return rc;
}
