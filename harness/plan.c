/* plan.c - the cases of a run: the product of the selected axes, each with its name and,
 * when it cannot run, the reason it is skipped. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

void hb_case_name(char *buf, size_t len, const char *scenario, const char *container,
                  size_t n, size_t elem_bytes, const char *order, double hole_ratio,
                  const char *hole_pattern)
{
	char holes[64] = "";
	if (hole_ratio > 0)
		snprintf(holes, sizeof holes, "/holes:%g:%s", hole_ratio, hole_pattern);
	snprintf(buf, len, "%s/%s/n:%zu/elem:%zu%s%s%s", scenario, container, n, elem_bytes,
	         order ? "/order:" : "", order ? order : "", holes);
}

static const char *order_name(enum scn_order o) { return o == SCN_RANDOM ? "random" : "seq"; }

/* Appends one case; returns 0 or -1 (out of memory). */
static int add_case(const struct hb_config *c, struct hb_case **cases, size_t *n, size_t *cap,
                    const struct hb_container *k, const struct scn_scenario *s, size_t e,
                    size_t n_elems, enum scn_order order, double ratio,
                    enum scn_hole_pattern pattern)
{
	if (!hb_find_ops(k->name, e))
		return 0; /* not built at this size class: hb_check_fits made sure it has one */
	if (*n == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 64;
		struct hb_case *grown = realloc(*cases, new_cap * sizeof *grown);
		if (!grown)
			return -1;
		*cases = grown;
		*cap = new_cap;
	}
	struct hb_case *x = &(*cases)[*n];
	memset(x, 0, sizeof *x);
	x->container = k;
	x->ops = hb_find_ops(k->name, e);
	x->scn = s;
	x->elem_bytes = e;
	x->p = (struct scn_params){.n = n_elems, .order = order, .hole_ratio = ratio,
	                           .hole_pattern = pattern, .seed = c->seed};
	x->hole_ratio = ratio;
	size_t len = strlen(s->name) + strlen(k->name) + 160;
	if (!(x->name = malloc(len)))
		return -1;
	hb_case_name(x->name, len, s->name, k->name, n_elems, e,
	             s->uses_order ? order_name(order) : NULL, ratio,
	             scn_hole_pattern_names[pattern]);
	x->skip = scn_cannot_run(s, x->ops, &x->p);
	/* Run, it would be the no-holes case recorded as holed (hole_ratio 0 with a pattern,
	 * which the reports refuse): hb_check_fits refuses a ratio for which this holds at
	 * every n, so here it is one n of a sweep. */
	if (!x->skip && s->uses_holes && ratio > 0 && scn_hole_count(n_elems, ratio) == 0)
		x->skip = "round(hole ratio x n) is 0 holes (at most n - 1): nothing to erase at "
		          "this n";
	x->elapsed_ns = calloc(c->reps, sizeof *x->elapsed_ns);
	x->cpu_ns = calloc(c->reps, sizeof *x->cpu_ns);
	(*n)++;
	return x->elapsed_ns && x->cpu_ns ? 0 : -1;
}

int hb_plan(const struct hb_config *c, struct hb_case **cases_out, size_t *n_out)
{
	struct hb_case *cases = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	for (size_t si = 0; si < c->n_scenarios && !err; si++) {
		const struct scn_scenario *s = c->scenarios[si];
		for (size_t ci = 0; ci < c->n_containers && !err; ci++)
			for (size_t ei = 0; ei < c->n_elems && !err; ei++)
				for (size_t ni = 0; ni < c->n_ns && !err; ni++)
					for (size_t oi = 0; oi < (s->uses_order ? c->n_orders : 1) && !err; oi++) {
						enum scn_order o = s->uses_order ? c->orders[oi] : SCN_SEQ;
						bool zero_done = false;
						for (size_t hi = 0; hi < c->n_hole_ratios && !err; hi++) {
							double r = s->uses_holes ? c->hole_ratios[hi] : 0;
							if (r == 0) {
								if (zero_done)
									continue;
								zero_done = true;
								err = add_case(c, &cases, &n, &cap, c->containers[ci], s,
								               c->elems[ei], c->ns[ni], o, 0, SCN_HOLES_NONE);
								continue;
							}
							for (size_t pi = 0; pi < c->n_hole_patterns && !err; pi++)
								err = add_case(c, &cases, &n, &cap, c->containers[ci], s,
								               c->elems[ei], c->ns[ni], o, r,
								               c->hole_patterns[pi]);
						}
					}
	}
	*cases_out = cases;
	*n_out = n;
	if (err) {
		fprintf(stderr, "dodbench: out of memory for %zu cases of %llu repetitions\n", n,
		        c->reps);
		return 1;
	}
	return 0;
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

/* Refuses a hole ratio > 0 that erases no item at any --n of the run (it rounds to 0
 * holes even at the largest n, as round(R * n), at most n - 1, grows with n), when a
 * selected scenario uses holes: every case it asks for would be skipped. At some n only
 * (--n 1,1000 --hole-ratio 0.5) those cases are skipped (add_case). Returns 0 or 2. */
static int check_hole_counts(const struct hb_config *c)
{
	bool holes = false;
	for (size_t s = 0; s < c->n_scenarios; s++)
		holes |= c->scenarios[s]->uses_holes;
	size_t n = 0;
	for (size_t i = 0; i < c->n_ns; i++)
		n = c->ns[i] > n ? c->ns[i] : n;
	for (size_t h = 0; holes && h < c->n_hole_ratios; h++) {
		double r = c->hole_ratios[h];
		if (r > 0 && scn_hole_count(n, r) == 0)
			return hb_usage_error("--hole-ratio: %g of n %zu%s rounds to 0 holes (round(%g x "
			                      "%zu) = %lld, at most n - 1 = %zu): give a larger ratio or "
			                      "n, or 0 for no holes", r, n,
			                      c->n_ns > 1 ? " (the largest --n)" : "", r, n,
			                      llround(r * (double)n), n - 1);
	}
	return 0;
}

/* The estimate (two copies of the payload plus 64 bytes of bookkeeping per element:
 * handles, sparse set, nodes, hole setup) is deliberately generous. */
int hb_check_fits(const struct hb_config *c, const struct hb_env *env)
{
	if (check_hole_counts(c))
		return 2;
	/* Pairs of a container and a size class it is not built at are left out of the plan
	 * (--container all at 8 B leaves out the particles, built at 40 B only), with a
	 * notice; when that leaves nothing to run it is an error. */
	size_t left_out = 0;
	for (size_t k = 0; k < c->n_containers; k++) {
		bool any = false;
		for (size_t e = 0; e < c->n_elems && !any; e++)
			any = hb_find_ops(c->containers[k]->name, c->elems[e]) != NULL;
		if (any)
			continue;
		char sizes[64] = "";
		for (size_t s = 0; s < HB_N_SIZES; s++)
			if (c->containers[k]->ops[s])
				snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu",
				         sizes[0] ? "," : "", hb_elem_sizes[s]);
		if (++left_out == c->n_containers)
			return hb_usage_error("--elem-bytes: no selected container is built at the "
			                      "selected sizes (%s: --elem-bytes %s)",
			                      c->containers[k]->name, sizes);
		if (!c->quiet)
			fprintf(stderr, "dodbench: %s is built for --elem-bytes %s only: left out\n",
			        c->containers[k]->name, sizes);
	}
	/* The repetition table (two uint64_t per case and rep), at most the product of the
	 * axes: refused up front rather than found missing after the output is open. */
	double cases = (double)c->n_containers * (double)c->n_scenarios * (double)c->n_elems *
	               (double)c->n_ns * (double)(c->n_orders ? c->n_orders : 1) *
	               (1.0 + (double)c->n_hole_ratios * (double)c->n_hole_patterns);
	double table = cases * (double)c->reps * 2 * sizeof(uint64_t);
	if (env->phys_mem_bytes && table > (double)env->phys_mem_bytes / 2)
		return hb_usage_error("--reps: up to %.0f cases x %llu repetitions need %.1f GiB "
		                      "of timing records; this machine has %.1f GiB: fewer reps "
		                      "or cases", cases, c->reps, table / (1 << 30),
		                      (double)env->phys_mem_bytes / (1 << 30));
	for (size_t i = 0; i < c->n_ns; i++)
		for (size_t e = 0; e < c->n_elems; e++) {
			size_t n = c->ns[i], eb = c->elems[e];
			for (size_t k = 0; k < c->n_containers; k++) {
				const struct dod_ops *ops = hb_find_ops(c->containers[k]->name, eb);
				if (ops && n > ops->max_elems)
					return hb_usage_error("--n: %zu exceeds %s's limit of %zu elements", n,
					                      ops->name, ops->max_elems);
			}
			double need = (double)n * (double)(2 * eb + 64);
			if (env->phys_mem_bytes && need > (double)env->phys_mem_bytes)
				return hb_usage_error("--n: %zu elements of %zu bytes need about %.1f GiB; "
				                      "this machine has %.1f GiB",
				                      n, eb, need / (1 << 30),
				                      (double)env->phys_mem_bytes / (1 << 30));
		}
	return 0;
}
