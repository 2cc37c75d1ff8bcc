/* env.c - the context every CSV row carries: host, CPU, compiler, flags, revision. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
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

static void cpu_model(char *out, size_t len)
{
	snprintf(out, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, len, "%s", colon);
		break;
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
	cpu_model(e->cpu_model, sizeof e->cpu_model);
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
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	e->phys_mem_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(e->run_id, sizeof e->run_id, "%s-%s-%ld", stamp, e->host, (long)getpid());
}
