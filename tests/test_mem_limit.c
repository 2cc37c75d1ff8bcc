/* test_mem_limit.c - the memory limit the size checks compare with (scenarios/mem_limit.c):
 * the smallest of MemAvailable, RLIMIT_AS, RLIMIT_DATA and the memory cgroup's limit, named.
 * Every file it reads is fixture text written here (meminfo, /proc/self/cgroup,
 * /proc/self/mountinfo and a cgroup tree under a temporary directory), so nothing depends
 * on this machine's memory, cgroup setup or limits. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario.h"

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

/* The fixture directory of one test, and its file paths. */
struct fx {
	char dir[256], meminfo[300], cgroup[300], mountinfo[300];
	struct scn_mem_sources src;
};

/* Writes text to dir/rel, making the directories on its way. */
static void put(const struct fx *f, const char *rel, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", f->dir, rel);
	for (char *s = strchr(path + strlen(f->dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
	FILE *o = fopen(path, "w");
	assert_non_null(o);
	fputs(text, o);
	fclose(o);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof f->dir, "%s/test_mem_limit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->meminfo, sizeof f->meminfo, "%s/meminfo", f->dir);
	snprintf(f->cgroup, sizeof f->cgroup, "%s/cgroup", f->dir);
	snprintf(f->mountinfo, sizeof f->mountinfo, "%s/mountinfo", f->dir);
	f->src = (struct scn_mem_sources){.meminfo = f->meminfo, .cgroup = f->cgroup,
	                                  .mountinfo = f->mountinfo};
	*state = f;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int rc = nftw(f->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return rc;
}

static const char meminfo[] = "MemTotal:        8388608 kB\n"
                              "MemFree:          100000 kB\n"
                              "MemAvailable:     4194304 kB\n"
                              "Buffers:           12345 kB\n";

static void test_available_memory_not_the_total(void **state)
{
	struct fx *f = *state;
	put(f, "meminfo", meminfo);
	struct scn_mem_limit lim;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 4 * GIB);
	char want[400];
	snprintf(want, sizeof want, "MemAvailable in %s", f->meminfo);
	assert_string_equal(lim.what, want);
}

static void test_fallbacks_without_memavailable(void **state)
{
	struct fx *f = *state;
	struct scn_mem_limit lim;
	f->src.phys_bytes = 3 * GIB;
	scn_mem_limit_from(&f->src, &lim); /* no meminfo at all */
	assert_int_equal(lim.bytes, 3 * GIB);
	assert_string_equal(lim.what, "physical memory");
	put(f, "meminfo", "MemTotal:        2097152 kB\nMemFree: 1 kB\n"); /* kernel < 3.14 */
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 2 * GIB);
	assert_non_null(strstr(lim.what, "MemTotal in "));
	put(f, "meminfo", "MemAvailable: lots kB\nMemTotal: 12 MB\n"); /* malformed: no limit */
	f->src.phys_bytes = 0;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 0);
	assert_string_equal(lim.what, "");
}

static void test_rlimits_win_when_smaller(void **state)
{
	struct fx *f = *state;
	put(f, "meminfo", meminfo);
	struct scn_mem_limit lim;
	f->src.rlimit_as = 1 * GIB;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 1 * GIB);
	assert_string_equal(lim.what, "ulimit -v (RLIMIT_AS)");
	f->src.rlimit_data = 512 * MIB;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 512 * MIB);
	assert_string_equal(lim.what, "ulimit -d (RLIMIT_DATA)");
	f->src.rlimit_as = f->src.rlimit_data = 64 * GIB; /* above MemAvailable: not the limit */
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 4 * GIB);
}

/* mountinfo's lines of a hybrid layout (v1 controllers and a v2 mount beside them), the
 * mount points under the fixture directory; root: the v1 memory mount's root. */
static void put_mounts(const struct fx *f, const char *root)
{
	char text[3000];
	snprintf(text, sizeof text,
	         "23 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	         "32 31 0:29 / %s/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	         "35 31 0:32 %s %s/mem\\040v1 rw,relatime - cgroup cgroup rw,memory\n"
	         "41 31 0:38 / %s/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n",
	         f->dir, root, f->dir, f->dir);
	put(f, "mountinfo", text);
}

static void test_cgroup_v2_limit_of_the_cgroup_or_a_parent(void **state)
{
	struct fx *f = *state;
	put(f, "meminfo", meminfo);
	put_mounts(f, "/");
	put(f, "cgroup", "4:memory:/\n1:cpu:/\n0::/a/b\n");
	put(f, "unified/a/b/memory.max", "max\n");
	put(f, "unified/a/memory.max", "1073741824\n");
	put(f, "unified/memory.max", "2147483648\n");
	struct scn_mem_limit lim;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 1 * GIB);
	char want[400];
	snprintf(want, sizeof want, "cgroup %s/unified/a/memory.max", f->dir);
	assert_string_equal(lim.what, want);
	put(f, "unified/a/b/memory.max", "268435456\n");
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 256 * MIB);
	put(f, "unified/a/b/memory.max", "12abc\n"); /* malformed: no limit, the parent's holds */
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 1 * GIB);
}

static void test_cgroup_v1_limit_and_its_unlimited_value(void **state)
{
	struct fx *f = *state;
	put(f, "meminfo", meminfo);
	put_mounts(f, "/");
	put(f, "cgroup", "9:name=systemd:/\n4:cpuacct,memory:/jobs/x\n1:cpu:/\n0::/\n");
	put(f, "mem v1/jobs/x/memory.limit_in_bytes", "9223372036854771712\n"); /* none */
	put(f, "mem v1/jobs/memory.limit_in_bytes", "536870912\n");
	put(f, "mem v1/memory.limit_in_bytes", "9223372036854771712\n");
	put(f, "cpu/jobs/x/memory.limit_in_bytes", "1\n"); /* not the memory hierarchy */
	struct scn_mem_limit lim;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 512 * MIB);
	char want[400];
	snprintf(want, sizeof want, "cgroup %s/mem v1/jobs/memory.limit_in_bytes", f->dir);
	assert_string_equal(lim.what, want);
}

static void test_cgroup_mount_of_a_subtree(void **state)
{
	struct fx *f = *state;
	put(f, "meminfo", meminfo);
	/* A container sees its own cgroup /docker/c1 mounted as the hierarchy's top. */
	put_mounts(f, "/docker/c1");
	put(f, "cgroup", "4:memory:/docker/c1/job\n0::/\n");
	put(f, "mem v1/job/memory.limit_in_bytes", "9223372036854771712\n");
	put(f, "mem v1/memory.limit_in_bytes", "805306368\n");
	struct scn_mem_limit lim;
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 768 * MIB);
	/* A cgroup outside the mounted subtree: the mount's own limit only. */
	put(f, "cgroup", "4:memory:/elsewhere\n0::/\n");
	scn_mem_limit_from(&f->src, &lim);
	assert_int_equal(lim.bytes, 768 * MIB);
}

static void test_this_process(void **state)
{
	(void)state;
	struct scn_mem_limit lim;
	scn_mem_limit(&lim);
	/* Linux always lists MemTotal, and sysconf knows the physical pages. */
	assert_true(lim.bytes > 0);
	assert_true(lim.what[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_available_memory_not_the_total, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallbacks_without_memavailable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rlimits_win_when_smaller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v2_limit_of_the_cgroup_or_a_parent, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v1_limit_and_its_unlimited_value, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_mount_of_a_subtree, setup, teardown),
		cmocka_unit_test(test_this_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
