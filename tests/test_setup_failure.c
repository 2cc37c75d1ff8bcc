/* test_setup_failure.c - every scenario's setup cleans up a container whose fill failed:
 * each container created is destroyed exactly once, never twice. A failed insert_n in
 * scn_fill used to leave the caller's pointer at the destroyed container, and validate's
 * and defrag_steps' cleanup destroyed it again ("double free or corruption" under
 * `ulimit -v`, status crashed instead of oom).
 *
 * The container is handle_map at 8 B behind a wrapper whose insert_n fails with
 * DOD_ENOMEM, as an allocation would, and whose create and destroy keep the set of live
 * containers: a destroy of one not live fails the test (without calling the real destroy
 * twice), and every scenario that can run on it and inserts must return SCN_ERROR with
 * the set empty.
 * Every scenario whose axes take several values runs at each of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hb.h"
#include "scenario.h"

#define MAX_LIVE 8

static const struct dod_ops *real;
static struct dod_ops failing;
static void *live[MAX_LIVE];
static size_t n_live, n_double, n_inserts;

static int wrap_create(void **out, size_t capacity)
{
	int err = real->create(out, capacity);
	if (!err) {
		assert_true(n_live < MAX_LIVE);
		live[n_live++] = *out;
	}
	return err;
}

static void wrap_destroy(void *c)
{
	for (size_t i = 0; i < n_live; i++)
		if (live[i] == c) {
			live[i] = live[--n_live];
			real->destroy(c);
			return;
		}
	n_double++; /* not live: destroyed before, or never created */
}

static int wrap_insert_n(void *c, size_t n, uint64_t first_key, uint64_t *handles_out)
{
	(void)c, (void)n, (void)first_key, (void)handles_out;
	n_inserts++;
	return DOD_ENOMEM;
}

static const struct dod_ops *find(const char *name)
{
	for (size_t i = 0; i < hb_n_containers; i++)
		if (strcmp(hb_containers[i].name, name) == 0)
			for (size_t s = 0; s < HB_N_SIZES; s++)
				if (hb_containers[i].ops[s] && hb_containers[i].ops[s]->elem_bytes == 8)
					return hb_containers[i].ops[s];
	return NULL;
}

/* Runs scenario s on the failing container with params p: it must report the error
 * (or skip the case) and leave no container live and none destroyed twice. */
static void run_once(const struct scn_scenario *s, const struct scn_params *p)
{
	if (scn_cannot_run(s, &failing, p))
		return;
	struct hb_region r = {0};
	struct scn_result res = {.swaps = -1};
	n_live = n_double = n_inserts = 0;
	int rc = s->run(&failing, p, &r, &res);
	hb_region_release(&r);
	if (rc != SCN_ERROR && n_inserts) /* lap_noise never calls the container */
		fail_msg("%s: ran on a container whose insert_n fails (%s)", s->name, res.why);
	if (n_double)
		fail_msg("%s: destroyed a container %zu time(s) more than it created one", s->name,
		         n_double);
	if (n_live)
		fail_msg("%s: left %zu container(s) undestroyed", s->name, n_live);
}

static void test_a_failed_fill_is_destroyed_once_in_every_scenario(void **state)
{
	(void)state;
	real = find("handle_map");
	assert_non_null(real);
	failing = *real;
	failing.create = wrap_create;
	failing.destroy = wrap_destroy;
	failing.insert_n = wrap_insert_n;
	const struct scn_scenario *const *all;
	size_t n = scn_list(&all);
	size_t ran = 0;
	const struct hb_axis *const *axes;
	hb_axes(&axes);
	const struct hb_axis *input = axes[hb_axis_id("axis_defrag_input")];
	const struct hb_axis *old = axes[hb_axis_id("axis_old_handles")];
	for (size_t i = 0; i < n; i++) {
		struct scn_params p = {.n = 1000, .seed = 1};
		for (unsigned w = 0; w < input->n_words; w++)
			for (unsigned o = 0; o < old->n_words; o++) {
				assert_int_equal(hb_params_set(&p, input->name, input->words[w]), 0);
				assert_int_equal(hb_params_set(&p, old->name, old->words[o]), 0);
				run_once(all[i], &p);
			}
		p.hole_ratio = 0.5;
		p.hole_pattern = SCN_HOLES_RANDOM;
		if (scn_lists_axis(all[i], &hb_axis_hole_ratio))
			run_once(all[i], &p);
		ran += !scn_cannot_run(all[i], &failing, &p);
	}
	assert_true(ran >= 5); /* validate, defrag_steps, iterate, lookup, erase at least */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_failed_fill_is_destroyed_once_in_every_scenario),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
