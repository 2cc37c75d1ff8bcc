/* env.c - the context every CSV row carries: host, CPU, compiler, flags, revision, and
 * the machine state that makes timings more or less trustworthy (VM, governor, turbo,
 * pinning, build type). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hb.h"
#include "gitrev.h"

#ifndef DOD_CFLAGS
#define DOD_CFLAGS "unknown"
#endif
#ifndef DOD_GIT_REV
#define DOD_GIT_REV "unknown"
#endif

/* First line of a small text file, without the newline; false if unreadable. */
static bool read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(out, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = '\0';
	return ok;
}

/* intel_pstate says no_turbo=1 when turbo is off; acpi-cpufreq says boost=1 when on. */
static void turbo_state(char *out, size_t len)
{
	char v[16];
	if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof v))
		snprintf(out, len, "%s", v[0] == '1' ? "off" : "on");
	else if (read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof v))
		snprintf(out, len, "%s", v[0] == '1' ? "on" : "off");
	else
		snprintf(out, len, "unavailable");
}

/* The single CPU this process may run on, or -1 when it may run on several. */
static int pinned_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

int hb_pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

/* "32K", "1024K", "8M" or a byte count (sysfs's cache size) in bytes; 0 if malformed. */
static uint64_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	switch (*end) {
	case 'K': return *++end ? 0 : x << 10;
	case 'M': return *++end ? 0 : x << 20;
	case 'G': return *++end ? 0 : x << 30;
	case '\0': return x;
	default: return 0;
	}
}

/* glibc's sysconf cache sizes (on x86 read from cpuid), for a kernel that exposes no
 * cache directory in sysfs (some VMs): level 1 is the L1 data cache, level 0 the highest
 * level with a size. 0 where glibc knows no size. */
static uint64_t sysconf_cache_bytes(int level, int *level_out)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL4_CACHE_SIZE)
	static const int names[] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
	                            _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE};
	uint64_t best = 0;
	int best_level = 0;
	for (int l = 1; l <= 4; l++) {
		long bytes = sysconf(names[l - 1]);
		if (bytes > 0 && (!level || l == level)) {
			best = (uint64_t)bytes;
			best_level = l;
		}
	}
	if (level_out)
		*level_out = best_level;
	return best;
#else
	(void)level;
	if (level_out)
		*level_out = 0;
	return 0;
#endif
}

uint64_t hb_cache_bytes(int level, int *level_out)
{
	const char *dir = getenv("DODBENCH_CACHE_DIR");
	bool from_sysfs = !dir || !*dir;
	if (from_sysfs)
		dir = "/sys/devices/system/cpu/cpu0/cache";
	uint64_t best = 0;
	int best_level = 0;
	bool listed = false; /* the directory lists at least one cache */
	/* index0, index1, ...: the kernel numbers them without gaps. */
	for (int i = 0; i < 64; i++) {
		char path[4200], lv[16], type[32], size[32];
		snprintf(path, sizeof path, "%s/index%d/level", dir, i);
		if (!read_line(path, lv, sizeof lv))
			break;
		listed = true;
		snprintf(path, sizeof path, "%s/index%d/type", dir, i);
		bool typed = read_line(path, type, sizeof type);
		snprintf(path, sizeof path, "%s/index%d/size", dir, i);
		if (!typed || strcmp(type, "Instruction") == 0 || !read_line(path, size, sizeof size))
			continue;
		int l = atoi(lv);
		uint64_t bytes = parse_cache_size(size);
		if (bytes && (level ? l == level : l > best_level)) {
			best = bytes;
			best_level = l;
		}
	}
	if (!listed && from_sysfs)
		return sysconf_cache_bytes(level, level_out);
	if (level_out)
		*level_out = best_level;
	return best;
}

static void cpu_model(char *out, size_t len, bool *hypervisor)
{
	snprintf(out, len, "unknown");
	*hypervisor = false;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[4096];
	bool have_model = false, have_flags = false;
	while ((!have_model || !have_flags) && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!have_flags && strncmp(line, "flags", 5) == 0) {
			*hypervisor = strstr(colon, " hypervisor") != NULL;
			have_flags = true;
		}
		if (have_model || strncmp(line, "model name", 10) != 0)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, len, "%s", colon);
		have_model = true;
	}
	fclose(f);
}

void hb_utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void hb_env_capture(struct hb_env *e)
{
	memset(e, 0, sizeof *e);
	if (gethostname(e->host, sizeof e->host - 1) != 0)
		snprintf(e->host, sizeof e->host, "unknown");
	cpu_model(e->cpu_model, sizeof e->cpu_model, &e->hypervisor);
	if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", e->governor,
	               sizeof e->governor))
		snprintf(e->governor, sizeof e->governor, "unavailable");
	turbo_state(e->turbo, sizeof e->turbo);
	e->pinned_cpu = pinned_cpu();
#ifdef __OPTIMIZE__
	e->build_type = "release";
#else
	e->build_type = "debug";
#endif
	char v[16];
	e->perf_paranoid = read_line("/proc/sys/kernel/perf_event_paranoid", v, sizeof v)
	                           ? atoi(v) : HB_PERF_PARANOID_UNKNOWN;
#if defined(__clang__)
	snprintf(e->compiler, sizeof e->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
	snprintf(e->compiler, sizeof e->compiler, "gcc %s", __VERSION__);
#else
	snprintf(e->compiler, sizeof e->compiler, "unknown");
#endif
	snprintf(e->cflags, sizeof e->cflags, "%s", DOD_CFLAGS);
	snprintf(e->git_rev, sizeof e->git_rev, "%s", DOD_GIT_REV);
	e->n_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(e->run_id, sizeof e->run_id, "%s-%s-%ld", stamp, e->host, (long)getpid());
	snprintf(e->invocation, sizeof e->invocation, "%s", e->run_id);
}

void hb_env_warn(const struct hb_env *e, FILE *f)
{
	if (e->hypervisor)
		fprintf(f, "dodbench: warning: running in a VM (cpuinfo hypervisor flag): other "
		           "guests add noise; compare designs within one run, not across runs\n");
	if (strcmp(e->governor, "performance") != 0 && strcmp(e->governor, "unavailable") != 0)
		fprintf(f, "dodbench: warning: CPU frequency governor is '%s', not 'performance': "
		           "clock speed may change during the run\n", e->governor);
	if (e->pinned_cpu < 0)
		fprintf(f, "dodbench: warning: process not pinned to one CPU (use --pin CPU): "
		           "migrations add noise\n");
	if (strcmp(e->build_type, "release") != 0)
		fprintf(f, "dodbench: warning: debug (unoptimized) build: timings do not "
		           "represent release code\n");
}
