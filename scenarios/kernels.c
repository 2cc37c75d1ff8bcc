/* kernels - the particle kernels of Our Machinery's "Bulk data" (layouts section), over
 * every container with the particles extension (ops->particles, containers/contract.h:
 * the particles_* variants):
 *   tick      t += dt for every particle: touches 4 of its 40 bytes, so layout decides
 *             how many bytes a pass drags through the caches (the article: SoA up to
 *             10x when memory-bound, up to 8x from SIMD, not 80x; AoSoA-8 at most ~5x)
 *   simulate  pos += vel * dt
 *   update    t += dt; pos += vel * dt - w (w = dt unless the colour is black): reads all
 *             ten streams, writes four, so ten arrays meet in the cache sets (the
 *             article's warning about page-aligned SoA; soa_pagealigned against
 *             soa_staggered), one sub-step per call
 *   update8   update with 8 sub-steps per call, block by block: aos_block_soa converts
 *             each 16K block once for the eight (the article's alternative, where its
 *             conversion can pay)
 * Setup: n particles (keys 0..n-1), then --hole-ratio of them erased (the shared hole
 * setup); the kernels run over holes too. Timed: K calls of the kernel with
 * dt = DOD_PARTICLE_DT after SCN_WARM_PASSES untimed ones (scn_run_passes: warm), K at
 * least clamp(2^20 / n, 1, 64), so a small n still gives a region of about a millisecond,
 * and enough for the clock's floor; at most MAX_SUBSTEPS / 4 (K's choice runs up to about
 * 2K more untimed), so all the sub-steps stay within MAX_SUBSTEPS, where the values stay
 * exact. ops = K x sub-steps x live particles: ns_per_op is per live particle
 * per pass (per sub-step for update8). Checksum: the live particles' t sum and pos sum
 * after all the passes (untimed and timed), which must
 * equal the scalar reference computed here from their keys exactly (dod_particle_* make
 * every value exact in float, see dod_common.h); the key sum by iteration must be
 * unchanged (the colour carries the key) and the checksum column is the t sum in units
 * of dt. */
#include "fill_holes.h"

enum kernel { K_TICK, K_SIMULATE, K_UPDATE };
#define UPDATE8_STEPS 8

/* The sub-steps every pass of a repetition may add up to: t and pos stay multiples of
 * 2^-6 below 2^17 (dod_common.h), exact in float. */
#define MAX_SUBSTEPS ((uint64_t)1 << 20)

struct ctx {
	enum kernel which;
	const struct dod_particle_ops *pk;
	void *c;
	unsigned steps;
};

static size_t passes_for(size_t n)
{
	size_t k = n ? ((size_t)1 << 20) / n : 64;
	return k < 1 ? 1 : k > 64 ? 64 : k;
}

/* The scalar reference, from the survivors' keys: the live particles' t and pos sums after
 * `subs` sub-steps of kernel `which` (dod_common.h's values make every one exact). */
static void reference(enum kernel which, const struct scn_filled *f, size_t subs, double *t_sum,
                      double *pos_sum)
{
	const float dt = DOD_PARTICLE_DT;
	double want_t = 0, want_pos = 0;
	for (size_t k = 0; k < f->n_live; k++) {
		uint64_t key = scn_live_key(f, k);
		for (int a = 0; a < 3; a++) {
			double pos = dod_particle_pos0(key, a);
			if (which == K_SIMULATE)
				pos += (float)subs * dod_particle_vel(key, a) * dt;
			else if (which == K_UPDATE)
				pos += (double)subs * dod_particle_update_dpos(key, a, dt);
			want_pos += pos;
		}
		want_t += which == K_SIMULATE ? 0 : (double)((float)subs * dt);
	}
	*t_sum = want_t;
	*pos_sum = want_pos;
}

/* One pass of kernel `which`, `steps` sub-steps for update. Its result is 0: the passes
 * are verified by the particles' sums afterwards. */
static uint64_t pass(void *p)
{
	const struct ctx *x = p;
	const float dt = DOD_PARTICLE_DT;
	if (x->which == K_UPDATE)
		x->pk->update(x->c, dt, x->steps);
	else if (x->which == K_TICK)
		x->pk->tick(x->c, dt);
	else
		x->pk->simulate(x->c, dt);
	DOD_CLOBBER();
	return 0;
}

static int run_kernel(enum kernel which, unsigned steps, const struct dod_ops *ops,
                      const struct scn_params *p, struct hb_region *r, struct scn_result *res)
{
	struct scn_filled f;
	if (scn_fill_holes(ops, p, &f, res))
		return SCN_ERROR;
	const struct dod_particle_ops *pk = ops->particles;
	const float dt = DOD_PARTICLE_DT;
	struct ctx x = {which, pk, f.c, steps};
	struct scn_passes ps = {.pass = pass, .ctx = &x, .min_k = passes_for(p->n),
	                        .max_k = MAX_SUBSTEPS / 4 / steps};
	scn_run_passes(p, r, &ps);
	res->ops = ps.k * steps * (f.n_live ? f.n_live : 1);

	double want_t, want_pos, got_t, got_pos;
	reference(which, &f, (ps.k + ps.warm) * steps, &want_t, &want_pos);
	pk->particle_sums(f.c, &got_t, &got_pos);
	scn_check_sum(res, (uint64_t)(got_t / dt), (uint64_t)(want_t / dt));
	if (res->verified && (got_t != want_t || got_pos != want_pos))
		scn_fail(res, "particle sums t %.17g pos %.17g, the scalar reference says %.17g %.17g",
		         got_t, got_pos, want_t, want_pos);
	else if (res->verified && ops->iterate_sum(f.c) != f.live_key_sum)
		scn_fail(res, "the kernel changed a particle's colour (its key)");
	scn_filled_free(ops, &f);
	return SCN_RAN;
}

static int run_tick(const struct dod_ops *ops, const struct scn_params *p, struct hb_region *r,
                    struct scn_result *res)
{
	return run_kernel(K_TICK, 1, ops, p, r, res);
}

static int run_simulate(const struct dod_ops *ops, const struct scn_params *p,
                        struct hb_region *r, struct scn_result *res)
{
	return run_kernel(K_SIMULATE, 1, ops, p, r, res);
}

static int run_update(const struct dod_ops *ops, const struct scn_params *p,
                      struct hb_region *r, struct scn_result *res)
{
	return run_kernel(K_UPDATE, 1, ops, p, r, res);
}

static int run_update8(const struct dod_ops *ops, const struct scn_params *p,
                       struct hb_region *r, struct scn_result *res)
{
	return run_kernel(K_UPDATE, UPDATE8_STEPS, ops, p, r, res);
}

static const struct scn_scenario tick = {
	.name = "tick",
	.help = "particles: t += dt over every particle (layouts: AoS, SoA, AoSoA)",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache),
	.needs_ext = DOD_EXT_PARTICLES,
	.run = run_tick,
};
SCN_REGISTER(tick)

static const struct scn_scenario simulate = {
	.name = "simulate",
	.help = "particles: pos += vel * dt over every particle (layouts: AoS, SoA, AoSoA)",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache),
	.needs_ext = DOD_EXT_PARTICLES,
	.run = run_simulate,
};
SCN_REGISTER(simulate)

static const struct scn_scenario update = {
	.name = "update",
	.help = "particles: t += dt, pos += vel * dt - w(col): all ten streams read, four written",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache),
	.needs_ext = DOD_EXT_PARTICLES,
	.run = run_update,
};
SCN_REGISTER(update)

static const struct scn_scenario update8 = {
	.name = "update8",
	.help = "particles: update, 8 sub-steps per call block by block (ns per sub-step)",
	.axes = SCN_AXES(SCN_AXIS_HOLES, &hb_axis_cache),
	.needs_ext = DOD_EXT_PARTICLES,
	.run = run_update8,
};
SCN_REGISTER(update8)
