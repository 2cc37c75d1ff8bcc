/* plan.c - the cases of a run: the product of the selected axes (axes.c), each with its
 * name and, when it cannot run, the reason it is skipped. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* The plan being built: the cases so far, and the axes in the order the product nests
 * them (the outer ones, then the others in table order). */
struct planner {
	const struct hb_config *c;
	struct hb_case *cases;
	size_t n, cap;
	const struct hb_axis *const *axes;
	size_t order[HB_MAX_AXES], n_axes;
};

/* Room for one more case. Returns it zeroed, or NULL (out of memory). */
static struct hb_case *new_case(struct planner *pl)
{
	if (pl->n == pl->cap) {
		size_t new_cap = pl->cap ? pl->cap * 2 : 64;
		struct hb_case *grown = realloc(pl->cases, new_cap * sizeof *grown);
		if (!grown)
			return NULL;
		pl->cases = grown;
		pl->cap = new_cap;
	}
	struct hb_case *x = &pl->cases[pl->n];
	memset(x, 0, sizeof *x);
	return x;
}

/* Appends the case of scenario s on container k with the axis values v; returns 0 or -1
 * (out of memory). */
static int add_case(struct planner *pl, const struct hb_container *k,
                    const struct scn_scenario *s, const union hb_axis_value *v)
{
	size_t e = (size_t)v[HB_AXIS_ELEM].u;
	const struct dod_ops *ops = hb_find_ops(k->name, e);
	if (!ops)
		return 0; /* not built at this size class: hb_check_fits said so */
	struct hb_case *x = new_case(pl);
	if (!x)
		return -1;
	x->container = k;
	x->ops = ops;
	x->scn = s;
	memcpy(x->axis, v, sizeof x->axis);
	x->taken = hb_axes_taken(s, v);
	x->p.seed = pl->c->seed;
	x->p.axes = pl->axes;
	x->p.n_axes = pl->n_axes;
	memcpy(x->p.axis, v, pl->n_axes * sizeof *v);
	for (size_t i = 0; i < pl->n_axes; i++)
		if (pl->axes[i]->bind)
			pl->axes[i]->bind(&x->p, v[i]);
	x->hole_ratio = x->p.hole_ratio;
	size_t len = strlen(s->name) + strlen(k->name) + 64 * (pl->n_axes + 1);
	if (!(x->name = malloc(len)))
		return -1;
	pl->n++; /* hb_plan_free frees what it holds from here on */
	hb_case_name(x->name, len, s->name, k->name, x->axis, x->taken);
	x->skip = scn_cannot_run(s, x->ops, &x->p);
	x->cannot_run = x->skip != NULL;
	for (size_t i = 0; i < pl->n_axes && !x->skip; i++)
		if (pl->axes[i]->skip)
			x->skip = pl->axes[i]->skip(pl->c, x);
	x->elapsed_ns = calloc(pl->c->reps, sizeof *x->elapsed_ns);
	x->cpu_ns = calloc(pl->c->reps, sizeof *x->cpu_ns);
	return x->elapsed_ns && x->cpu_ns ? 0 : -1;
}

/* The cases of s on k for every value of the axes from nesting level `level` on, the
 * levels before it set in v. An axis that does not apply runs once with its absent
 * value. Returns 0 or -1 (out of memory). */
static int add_product(struct planner *pl, const struct hb_container *k,
                       const struct scn_scenario *s, size_t level, union hb_axis_value *v)
{
	if (level == pl->n_axes)
		return add_case(pl, k, s, v);
	size_t id = pl->order[level];
	const struct hb_axis *a = pl->axes[id];
	if (!hb_axis_taken(a, s, v)) {
		v[id] = a->absent;
		return add_product(pl, k, s, level + 1, v);
	}
	const struct hb_axis_values *vals = &pl->c->axis[id];
	for (size_t i = 0; i < vals->n; i++) {
		v[id] = vals->v[i];
		if (add_product(pl, k, s, level + 1, v))
			return -1;
	}
	return 0;
}

unsigned hb_shard_owner(const char *name, unsigned n)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a, 64-bit */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return n ? (unsigned)(h % n) + 1 : 0;
}

/* Drops the cases of pl that belong to another shard than c->shard_k (frees what they
 * hold), keeping the order of the others. */
static void keep_shard(struct planner *pl)
{
	size_t kept = 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct hb_case *x = &pl->cases[i];
		if (hb_shard_owner(x->name, pl->c->shard_n) == pl->c->shard_k) {
			pl->cases[kept++] = *x;
			continue;
		}
		free(x->name);
		free(x->elapsed_ns);
		free(x->cpu_ns);
	}
	pl->n = kept;
}

int hb_plan(const struct hb_config *c, struct hb_case **cases_out, size_t *n_out)
{
	struct planner pl = {.c = c};
	pl.n_axes = hb_axes(&pl.axes);
	size_t at = 0;
	for (int outer = 1; outer >= 0; outer--)
		for (size_t i = 0; i < pl.n_axes; i++)
			if (pl.axes[i]->outer == outer)
				pl.order[at++] = i;
	int err = 0;
	union hb_axis_value v[HB_MAX_AXES] = {{0}};
	for (size_t si = 0; si < c->n_scenarios && !err; si++)
		for (size_t ci = 0; ci < c->n_containers && !err; ci++)
			err = add_product(&pl, c->containers[ci], c->scenarios[si], 0, v);
	if (!err && c->shard_n)
		keep_shard(&pl);
	*cases_out = pl.cases;
	*n_out = pl.n;
	if (err) {
		fprintf(stderr, "dodbench: out of memory for %zu cases of %llu repetitions\n", pl.n,
		        c->reps);
		return 1;
	}
	return 0;
}

int hb_shard_manifest_path(char *buf, size_t len, const char *out)
{
	size_t n = strlen(out);
	if (n > 4 && strcmp(out + n - 4, ".csv") == 0)
		n -= 4;
	int w = snprintf(buf, len, "%.*s.plan.tsv", (int)n, out);
	return w >= 0 && (size_t)w < len ? 0 : -1;
}

int hb_shard_manifest(const struct hb_config *c, const char *run_id)
{
	char path[4096];
	if (hb_shard_manifest_path(path, sizeof path, c->out))
		return hb_usage_error("--shard: the manifest's name beside %s is too long", c->out);
	struct hb_config whole = *c;
	whole.shard_k = whole.shard_n = 0;
	struct hb_case *cases;
	size_t n;
	if (hb_plan(&whole, &cases, &n)) {
		hb_plan_free(cases, n);
		return 2;
	}
	FILE *f = fopen(path, "a");
	int rc = 0;
	if (!f || (ftell(f) == 0 && fputs("run_id\tseed\tshard\towner\tcase\n", f) < 0))
		rc = 2;
	for (size_t i = 0; f && !rc && i < n; i++)
		if (!cases[i].skip &&
		    fprintf(f, "%s\t%llu\t%u/%u\t%u\t%s\n", run_id, c->seed, c->shard_k, c->shard_n,
		            hb_shard_owner(cases[i].name, c->shard_n), cases[i].name) < 0)
			rc = 2;
	if (f && fclose(f) != 0)
		rc = 2;
	if (rc)
		fprintf(stderr, "dodbench: --shard: cannot write the manifest %s: %s\n", path,
		        strerror(errno));
	hb_plan_free(cases, n);
	return rc;
}

void hb_plan_free(struct hb_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cases[i].name);
		free(cases[i].elapsed_ns);
		free(cases[i].cpu_ns);
		free(cases[i].have);
	}
	free(cases);
}

/* The sizes of c against each container's limit and the memory this process may take
 * (scn_mem_limit): the repetition table and each n at each element size. Returns 0 or 2. */
static int check_sizes(const struct hb_config *c)
{
	const struct hb_axis_values *ns = &c->axis[HB_AXIS_N], *elems = &c->axis[HB_AXIS_ELEM];
	/* The repetition table (two uint64_t per case and rep), at most the product of the
	 * axes: refused up front rather than found missing after the output is open. */
	const struct hb_axis *const *axes;
	size_t n_axes = hb_axes(&axes);
	double cases = (double)c->n_containers * (double)c->n_scenarios;
	for (size_t i = 0; i < n_axes; i++)
		cases *= (double)(c->axis[i].n ? c->axis[i].n : 1);
	double table = cases * (double)c->reps * 2 * sizeof(uint64_t);
	struct scn_mem_limit lim;
	scn_mem_limit(&lim);
	double limit = (double)lim.bytes, gib = limit / (1 << 30);
	if (lim.bytes && table > limit / 2)
		return hb_usage_error("--reps: up to %.0f cases x %llu repetitions need %.1f GiB "
		                      "of timing records, more than half the limit here, %.1f GiB "
		                      "(%s): fewer reps or cases", cases, c->reps, table / (1 << 30),
		                      gib, lim.what);
	for (size_t i = 0; i < ns->n; i++)
		for (size_t e = 0; e < elems->n; e++) {
			size_t n = (size_t)ns->v[i].u, eb = (size_t)elems->v[e].u;
			for (size_t k = 0; k < c->n_containers; k++) {
				const struct dod_ops *ops = hb_find_ops(c->containers[k]->name, eb);
				if (ops && n > ops->max_elems)
					return hb_usage_error("--n: %zu exceeds %s's limit of %zu elements", n,
					                      ops->name, ops->max_elems);
			}
			double need = (double)n * (double)(2 * eb + 64);
			if (lim.bytes && need > limit)
				return hb_usage_error("--n: %zu elements of %zu bytes need about %.1f GiB; "
				                      "the limit here is %.1f GiB (%s)", n, eb,
				                      need / (1 << 30), gib, lim.what);
		}
	return 0;
}

/* The estimate (two copies of the payload plus 64 bytes of bookkeeping per element:
 * handles, sparse set, nodes, hole setup) is deliberately generous. It is compared with
 * the memory this process may take (scn_mem_limit: the smallest of the free memory,
 * ulimit -v and -d, and the cgroup's limit), not with the machine's RAM. */
int hb_check_fits(const struct hb_config *c)
{
	const struct hb_axis *const *axes;
	size_t n_axes = hb_axes(&axes);
	char err[400];
	for (size_t i = 0; i < n_axes; i++)
		if (axes[i]->check && axes[i]->check(c, err, sizeof err))
			return hb_usage_error("%s", err);
	const struct hb_axis_values *elems = &c->axis[HB_AXIS_ELEM];
	/* A container built at a selected size but not linked into this binary (the
	 * simulator's build/dodbench-sim holds the Makefile's SIM_VARIANTS only) is an error,
	 * not a case silently left out of a callgrind run. */
	for (size_t k = 0; k < c->n_containers; k++)
		for (size_t e = 0; e < elems->n; e++)
			for (size_t s = 0; s < HB_N_SIZES; s++)
				if (hb_elem_sizes[s] == (size_t)elems->v[e].u &&
				    (c->containers[k]->built >> s & 1) && !c->containers[k]->ops[s])
					return hb_usage_error("%s (%zu B) is not linked into this binary: "
					                      "build/dodbench-sim holds the Makefile's "
					                      "SIM_VARIANTS only (make SIM_VARIANTS=all build)",
					                      c->containers[k]->name, hb_elem_sizes[s]);
	/* Pairs of a container and a size class it is not built at are left out of the plan
	 * (--container all at 8 B leaves out the particles, built at 40 B only; peer_std_list
	 * at --elem-bytes 8,64 runs at 8 only), with one notice per container; when that
	 * leaves nothing to run it is an error. */
	size_t left_out = 0;
	for (size_t k = 0; k < c->n_containers; k++) {
		char missing[200] = "", sizes[64] = "";
		size_t n_missing = 0;
		for (size_t e = 0; e < elems->n; e++) {
			if (hb_find_ops(c->containers[k]->name, (size_t)elems->v[e].u))
				continue;
			n_missing++;
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%llu",
			         missing[0] ? "," : "", (unsigned long long)elems->v[e].u);
		}
		if (!n_missing)
			continue;
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (c->containers[k]->ops[s])
				snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu",
				         sizes[0] ? "," : "", hb_elem_sizes[s]);
		if (n_missing == elems->n && ++left_out == c->n_containers)
			return hb_usage_error("--elem-bytes: no selected container is built at the "
			                      "selected sizes (%s: --elem-bytes %s)",
			                      c->containers[k]->name, sizes);
		/* The callgrind child plans the same cases: its parent has said it. */
		if (!c->quiet && !c->sim_child)
			fprintf(stderr, "dodbench: skipped: %s at --elem-bytes %s (built for %s only)\n",
			        c->containers[k]->name, missing, sizes);
	}
	return check_sizes(c);
}
