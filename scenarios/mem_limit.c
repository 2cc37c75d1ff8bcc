/* mem_limit.c - how much memory this process may still take: the size checks of the
 * harness (plan.c: --n, the timing records) and of the tags plan (tags_common.c) compare
 * with it, not with the machine's RAM (a 21 GiB plan started on a 23.5 GiB machine whose
 * free memory, ulimit or cgroup could not hold it).
 *
 * The limit is the smallest of
 *   ulimit -v   RLIMIT_AS (address space)           getrlimit
 *   ulimit -d   RLIMIT_DATA (heap and private maps) getrlimit
 *   cgroup      v2 memory.max ("max": none), v1 memory.limit_in_bytes (2^62 and above:
 *               none), of this process's cgroup (/proc/self/cgroup) and every parent up
 *               to the hierarchy's mount point (/proc/self/mountinfo)
 *   MemAvailable in /proc/meminfo (MemTotal on a kernel without it; else sysconf's
 *               physical pages)
 * Files that are missing or do not parse are no limit: nothing is assumed. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scenario.h"

/* Takes bytes as the limit when it is smaller than the one so far (bytes 0: none), named
 * by the printf-style what. */
__attribute__((format(printf, 3, 4)))
static void take(struct scn_mem_limit *out, uint64_t bytes, const char *fmt, ...)
{
	if (!bytes || (out->bytes && bytes >= out->bytes))
		return;
	out->bytes = bytes;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->what, sizeof out->what, fmt, ap);
	va_end(ap);
}

/* "MemAvailable:   123 kB" in the meminfo text at path: the bytes of the line named key,
 * 0 when the file or the line is missing or malformed. */
static uint64_t meminfo_bytes(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kib = 0;
	size_t len = strlen(key);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, len) == 0 && line[len] == ':') {
			char unit[8] = "";
			if (sscanf(line + len + 1, "%llu %7s", &kib, unit) != 2 || strcmp(unit, "kB") != 0)
				kib = 0;
			break;
		}
	fclose(f);
	return kib <= UINT64_MAX / 1024 ? (uint64_t)kib * 1024 : 0;
}

/* A cgroup limit file's value in bytes: a number (v1's 2^62 and above mean none), or
 * 0 for "max", a missing file or anything else. */
static uint64_t limit_file(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char text[64] = "", tail[2];
	unsigned long long v = 0;
	bool ok = fgets(text, sizeof text, f) && sscanf(text, "%llu%1s", &v, tail) == 1 &&
	          strspn(text, "0123456789\n") == strlen(text);
	fclose(f);
	return ok && v < (1ull << 62) ? (uint64_t)v : 0;
}

/* Decodes mountinfo's octal escapes (\040 a space) in place. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++)
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	*w = '\0';
}

/* The mount of a cgroup hierarchy in the mountinfo file at path: v2 (fstype cgroup2) or
 * v1's with the memory controller (fstype cgroup, super option memory). Writes its root
 * in the hierarchy and its mount point. Returns 0, or -1 when none is listed. */
static int find_mount(const char *path, bool v2, char *root, char *point, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[4096];
	int rc = -1;
	while (rc && fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - "), fstype[32], opts[1024] = "", r[1024], m[1024];
		if (!sep || sscanf(sep + 3, "%31s %*s %1023s", fstype, opts) < 1 ||
		    sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2)
			continue;
		bool memory = false;
		char *save;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			memory |= strcmp(o, "memory") == 0;
		if (v2 ? strcmp(fstype, "cgroup2") != 0 : strcmp(fstype, "cgroup") != 0 || !memory)
			continue;
		unescape(r);
		unescape(m);
		snprintf(root, len, "%s", r);
		snprintf(point, len, "%s", m);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* This process's cgroup in the /proc/self/cgroup text at path: v2's ("0::PATH") or the
 * v1 hierarchy's with the memory controller ("N:...,memory,...:PATH"). Returns 0, or -1. */
static int own_cgroup(const char *path, bool v2, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[4096];
	int rc = -1;
	while (rc && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		bool memory = false;
		char *save;
		for (char *o = strtok_r(c1 + 1, ",", &save); o; o = strtok_r(NULL, ",", &save))
			memory |= strcmp(o, "memory") == 0;
		if (v2 ? strncmp(line, "0:", 2) == 0 && c2 == c1 + 1 : memory) {
			snprintf(out, len, "%s", c2 + 1);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* The smallest limit of one hierarchy (v2: memory.max, v1: memory.limit_in_bytes) on
 * this process's cgroup and its parents, taken into out. */
static void cgroup_limit(const struct scn_mem_sources *src, bool v2, struct scn_mem_limit *out)
{
	char root[1024], point[1024], own[1024], dir[4096], file[4200];
	if (find_mount(src->mountinfo, v2, root, point, sizeof root) ||
	    own_cgroup(src->cgroup, v2, own, sizeof own))
		return;
	/* The mount shows the hierarchy from root down (a container's namespace or bind
	 * mount): the cgroup's path below it, or the mount itself when it is not below. */
	size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
	const char *rel = strncmp(own, root, rlen) == 0 && (own[rlen] == '/' || !own[rlen])
	                          ? own + rlen : "";
	snprintf(dir, sizeof dir, "%s%s", point, strcmp(rel, "/") == 0 ? "" : rel);
	size_t floor = strlen(point);
	const char *name = v2 ? "memory.max" : "memory.limit_in_bytes";
	for (;;) {
		snprintf(file, sizeof file, "%s/%s", dir, name);
		take(out, limit_file(file), "cgroup %s", file);
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < floor)
			break;
		*slash = '\0';
	}
}

void scn_mem_limit_from(const struct scn_mem_sources *src, struct scn_mem_limit *out)
{
	memset(out, 0, sizeof *out);
	take(out, src->rlimit_as, "ulimit -v (RLIMIT_AS)");
	take(out, src->rlimit_data, "ulimit -d (RLIMIT_DATA)");
	cgroup_limit(src, true, out);
	cgroup_limit(src, false, out);
	uint64_t avail = meminfo_bytes(src->meminfo, "MemAvailable");
	if (avail)
		take(out, avail, "MemAvailable in %s", src->meminfo);
	else if ((avail = meminfo_bytes(src->meminfo, "MemTotal")))
		take(out, avail, "MemTotal in %s", src->meminfo);
	else
		take(out, src->phys_bytes, "physical memory");
}

/* An rlimit's soft limit in bytes, 0 for none. */
static uint64_t rlimit_bytes(int resource)
{
	struct rlimit r;
	return getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? (uint64_t)r.rlim_cur
	                                                                   : 0;
}

void scn_mem_limit(struct scn_mem_limit *out)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	struct scn_mem_sources src = {
		.meminfo = "/proc/meminfo", .cgroup = "/proc/self/cgroup",
		.mountinfo = "/proc/self/mountinfo", .rlimit_as = rlimit_bytes(RLIMIT_AS),
		.rlimit_data = rlimit_bytes(RLIMIT_DATA),
		.phys_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0,
	};
	scn_mem_limit_from(&src, out);
}
