/* caches.c - the cache sizes measured, not only read: a dependent pointer chase over a
 * random cycle of cache lines at working sets from 4 KiB up, and the knees where the
 * latency per load steps (L1, L2, the last level). --n's cache words (axes.c) take the
 * measured size of a level when sysfs's differs from it by more than 2x (a KVM guest may
 * report its socket's 512 MiB L3); `dodbench caches` prints both.
 *
 *   working set: one buffer, line i's first word points at line perm[i]
 *   +--------+--------+--------+--------+-- ... --+
 *   | ->L5   | ->L0   | ->L7   | ->L2   |         |   perm: one cycle over every line
 *   +--------+--------+--------+--------+-- ... --+   (Sattolo), so each load depends on
 *                                                     the last and no prefetcher guesses
 *
 * The buffer asks for transparent huge pages (madvise): with 4 KiB pages the TLB's own
 * misses (past 64 x 4 KiB, past 2048 x 4 KiB) add steps of their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hb.h"
#include "scenario.h"

#define CHASE_MIN_BYTES (4u << 10)
#define CHASE_MAX_BYTES (256ull << 20)
#define CHASE_LOADS (1u << 19)  /* per round: 0.5 ms in L1, ~50 ms in DRAM */
#define CHASE_ROUNDS 3          /* the best of them */
#define HUGE_PAGE (2u << 20)

/* The largest index j < i with bytes[j] <= bytes[i] / 2 (the set half as large), or -1. */
static long half_index(const uint64_t *bytes, size_t i)
{
	long j = (long)i - 1;
	while (j >= 0 && bytes[j] > bytes[i] / 2)
		j--;
	return j;
}

size_t hb_find_knees(const uint64_t *bytes, const double *ns, size_t n, double factor,
                     size_t *knees, size_t max_knees)
{
	size_t found = 0;
	bool rising = false; /* in the transition after a knee: no new knee until it ends */
	for (size_t i = 1; i < n && found < max_knees; i++) {
		long j = half_index(bytes, i);
		if (j < 0)
			continue;
		bool step = ns[i] >= factor * ns[j];
		if (!step) {
			rising = false;
			continue;
		}
		if (rising)
			continue;
		/* A real knee stays up: the next set is as slow; one slow point is noise. */
		if (i + 1 < n && ns[i + 1] < factor * ns[j])
			continue;
		knees[found++] = i;
		rising = true;
	}
	return found;
}

/* Links the first `lines` lines of buf (line bytes each) into one random cycle (Sattolo's
 * algorithm, seeded: the same cycle every run), each line's first word the address of the
 * next. */
static void link_cycle(char *buf, size_t lines, size_t line)
{
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < lines; i++)
		*(size_t *)(buf + i * line) = i;
	for (size_t i = lines - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % i);
		size_t *a = (size_t *)(buf + i * line), *b = (size_t *)(buf + j * line);
		size_t t = *a;
		*a = *b;
		*b = t;
	}
	for (size_t i = 0; i < lines; i++) {
		size_t *w = (size_t *)(buf + i * line);
		*(char **)w = buf + *w * line;
	}
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per load of CHASE_LOADS dependent loads from start, the best of CHASE_ROUNDS (after
 * one untimed round, which brings the set into the caches it fits in). */
static double chase(char *start)
{
	double best = 0;
	void *volatile sink;
	for (int r = 0; r <= CHASE_ROUNDS; r++) {
		void **p = (void **)start;
		double t0 = now_ns();
		for (size_t k = 0; k < CHASE_LOADS; k += 8) {
			p = *p; p = *p; p = *p; p = *p;
			p = *p; p = *p; p = *p; p = *p;
		}
		double ns = (now_ns() - t0) / CHASE_LOADS;
		sink = p;
		if (r > 0 && (best == 0 || ns < best))
			best = ns;
	}
	(void)sink;
	return best;
}

/* The largest working set: 4 x sysfs's last level (256 MiB when it lists none), at most
 * 256 MiB and a quarter of the memory this process may take. */
static uint64_t chase_cap(void)
{
	uint64_t llc = hb_cache_bytes(0, NULL), cap = CHASE_MAX_BYTES;
	if (llc && llc < cap / 4)
		cap = llc * 4;
	struct scn_mem_limit lim;
	scn_mem_limit(&lim);
	if (lim.bytes && lim.bytes / 4 < cap)
		cap = lim.bytes / 4;
	return cap < CHASE_MIN_BYTES ? CHASE_MIN_BYTES : cap;
}

/* Whether the knees of m's points so far are final: HB_MAX_KNEES of them, the last one
 * confirmed by the point after it. */
static bool knees_final(struct hb_chase *m)
{
	size_t idx[HB_MAX_KNEES];
	m->n_knees = hb_find_knees(m->bytes, m->ns, m->n, HB_KNEE_FACTOR, idx, HB_MAX_KNEES);
	for (size_t k = 0; k < m->n_knees; k++)
		m->knee_bytes[k] = m->bytes[idx[k] - 1];
	return m->n_knees == HB_MAX_KNEES && idx[HB_MAX_KNEES - 1] + 1 < m->n;
}

int hb_chase_measure(struct hb_chase *m, char *err, size_t err_len)
{
	memset(m, 0, sizeof *m);
	long sys_line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	size_t line = sys_line >= (long)sizeof(void *) && sys_line <= 4096 ? (size_t)sys_line : 64;
	m->line_bytes = line;
	m->cap_bytes = chase_cap();
	size_t map_len = (size_t)m->cap_bytes + HUGE_PAGE;
	char *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		snprintf(err, err_len, "cannot map %llu bytes for the pointer chase: %s",
		         (unsigned long long)map_len, strerror(errno));
		return -1;
	}
	char *buf = (char *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	m->huge_pages = madvise(buf, (size_t)m->cap_bytes, MADV_HUGEPAGE) == 0;
	/* 4, 6, 8, 12, 16 ... KiB: a half step between doublings (a 48 KiB L1 is a size). */
	for (uint64_t base = CHASE_MIN_BYTES; base <= m->cap_bytes; base *= 2)
		for (int half = 0; half < 2 && m->n < HB_CHASE_MAX_POINTS; half++) {
			uint64_t bytes = half ? base + base / 2 : base;
			if (bytes > m->cap_bytes)
				break;
			link_cycle(buf, (size_t)(bytes / line), line);
			m->bytes[m->n] = bytes;
			m->ns[m->n++] = chase(buf);
			if (knees_final(m))
				goto done;
		}
done:
	knees_final(m);
	munmap(map, map_len);
	return 0;
}

/* ---- the sizes --n's cache words use ---- */

enum { WORD_L1, WORD_L2, WORD_LLC, N_WORDS };
static const char *const word_names[N_WORDS] = {"l1", "l2", "llc"};

/* The measured sizes, found once per process (0: that level not measured). */
static struct {
	bool done;
	bool failed;              /* the variable could not be read (err says why) */
	char err[200];
	const char *source;       /* "pointer chase", the variable's name, or NULL: none */
	uint64_t bytes[N_WORDS];
	struct hb_chase chase;    /* the curve, when source is the pointer chase */
	char notices[N_WORDS][300];
} measured;

/* Reads DODBENCH_MEASURED_CACHES ("l1=B,l2=B,llc=B", bytes, any subset, "" for none) into
 * measured.bytes. Returns 0, or -1 with the reason in measured.err. */
static int read_override(const char *text)
{
	char copy[256];
	if (strlen(text) >= sizeof copy) {
		snprintf(measured.err, sizeof measured.err, "too long");
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", text);
	for (char *item = copy, *next; *text && item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		size_t w = 0;
		unsigned long long v;
		while (eq && w < N_WORDS && (strlen(word_names[w]) != (size_t)(eq - item) ||
		                             strncmp(item, word_names[w], (size_t)(eq - item)) != 0))
			w++;
		if (!eq || w == N_WORDS || hb_parse_u64(eq + 1, &v) || v == 0 || measured.bytes[w]) {
			snprintf(measured.err, sizeof measured.err, "'%.60s' is not l1=BYTES, l2=BYTES or "
			         "llc=BYTES (BYTES >= 1), each at most once, comma-separated", item);
			return -1;
		}
		measured.bytes[w] = v;
	}
	return 0;
}

/* Measures (or reads the override) once. A faked sysfs (DODBENCH_CACHE_DIR, tests) is
 * not measured against this machine: without the override it is taken as it is. After a
 * measurement the variable is set to its sizes, so a child that parses the same options
 * (the callgrind re-run) takes them instead of measuring under valgrind. */
static void measure_once(void)
{
	if (measured.done)
		return;
	measured.done = true;
	const char *over = getenv("DODBENCH_MEASURED_CACHES");
	const char *dir = getenv("DODBENCH_CACHE_DIR");
	if (over) {
		measured.source = "DODBENCH_MEASURED_CACHES";
		measured.failed = read_override(over) != 0;
		return;
	}
	if (dir && *dir)
		return;
	char err[200];
	if (hb_chase_measure(&measured.chase, err, sizeof err) != 0) {
		snprintf(measured.notices[0], sizeof measured.notices[0], "cache sizes not "
		         "measured (%s): sysfs's are used", err);
		return;
	}
	measured.source = "pointer chase";
	int llc_level = 0;
	hb_cache_bytes(0, &llc_level);
	const struct hb_chase *c = &measured.chase;
	measured.bytes[WORD_L1] = c->n_knees >= 1 ? c->knee_bytes[0] : 0;
	measured.bytes[WORD_L2] = c->n_knees >= 2 ? c->knee_bytes[1] : 0;
	if (llc_level >= 1 && (size_t)llc_level <= c->n_knees)
		measured.bytes[WORD_LLC] = c->knee_bytes[llc_level - 1];
	char env[200] = "";
	for (int w = 0; w < N_WORDS; w++)
		if (measured.bytes[w])
			snprintf(env + strlen(env), sizeof env - strlen(env), "%s%s=%llu",
			         env[0] ? "," : "", word_names[w], (unsigned long long)measured.bytes[w]);
	setenv("DODBENCH_MEASURED_CACHES", env, 1);
}

/* "512 MiB", "48 KiB", or bytes. */
static void say_bytes(char *out, size_t len, uint64_t b)
{
	if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(out, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(out, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(out, len, "%llu bytes", (unsigned long long)b);
}

int hb_cache_word_bytes(int level, struct hb_cache_size *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	out->sysfs_bytes = hb_cache_bytes(level, NULL);
	out->bytes = out->sysfs_bytes;
	if (!out->sysfs_bytes)
		return 0;
	measure_once();
	if (measured.failed) {
		snprintf(err, err_len, "DODBENCH_MEASURED_CACHES: %s", measured.err);
		return -1;
	}
	int w = level == 1 ? WORD_L1 : level == 2 ? WORD_L2 : WORD_LLC;
	uint64_t m = measured.bytes[w], s = out->sysfs_bytes;
	out->measured_bytes = m;
	out->source = measured.source;
	if (!m || (m <= 2 * s && s <= 2 * m))
		return 0;
	out->bytes = m;
	out->used_measured = true;
	char ms[32], ss[32];
	say_bytes(ms, sizeof ms, m);
	say_bytes(ss, sizeof ss, s);
	snprintf(measured.notices[w], sizeof measured.notices[w], "--n %s: sysfs says the %s "
	         "cache is %s, the %s measured %s: more than 2x apart, the measured size is used",
	         word_names[w], w == WORD_LLC ? "last-level" : word_names[w], ss, measured.source,
	         ms);
	return 0;
}

void hb_cache_notices(FILE *f)
{
	for (int w = 0; w < N_WORDS; w++)
		if (measured.notices[w][0])
			fprintf(f, "dodbench: %s\n", measured.notices[w]);
}

const struct hb_chase *hb_chase_curve(void)
{
	return measured.source && strcmp(measured.source, "pointer chase") == 0
	               ? &measured.chase : NULL;
}
