/* csv.c - CSV schema 4 (3: the status columns; a repetition that produced no
 * measurement leaves its measured fields empty; then the growth columns appended. 4: a
 * region may time its work `passes` times, elapsed_ns covers them all and ops counts
 * every pass's operations; the cache condition and the clock's floor appended). One X-macro column list generates both the header and the row
 * writer (google-benchmark's idiom), so the two cannot drift apart. New columns go at
 * the end; a change of meaning bumps HB_SCHEMA_VERSION (2: ns_per_op divides by ops).
 * Rows reach the file through the CSV reporter (hb_csv_reporter, report.h).
 *
 * Crash and concurrency safety (issue 8): the output file is opened O_APPEND and locked
 * (flock, exclusive, for the whole run: a second run writing the same file is refused up
 * front); a torn last line left by a killed run is cut off before anything is appended;
 * each row is formatted into the stream's buffer (HB_ROW_BUFFER, larger than any row)
 * and leaves in one write(2) as soon as its repetition ends, so a kill -9 loses at most
 * the repetition in flight and never leaves half a row. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "hb.h"
#include "report.h"
#include "scenario.h"

/* X(column name, kind, value) and A(axis id): a case axis's column, named and written by
 * its entry of the axis table (axes.c); the axes after schema 3's are appended after the
 * last column (their field empty when the row's case does not take them). Kinds are STR (text, quoted when needed), U64, SZ, DBL,
 * BOOL, CTR (counter i: empty when not measured), OPTLL and OPTDBL (empty when negative),
 * MU64 (empty in a row without a measurement: a repetition that crashed, timed out or whose
 * container call failed; see the status column), EMPTY, and
 * SIMTOKEN: under callgrind the token "@cg<seq>@" that sim.c later replaces, together
 * with the eight empty fields after it, by the region's simulated counts and cache
 * geometry (the process cannot read callgrind's counters itself). */
#define HB_COLUMNS(X, A)                                                                  \
	X(schema, U64, HB_SCHEMA_VERSION)                                                \
	X(timestamp, STR, r->timestamp)                                                  \
	X(host, STR, r->env->host)                                                       \
	X(cpu_model, STR, r->env->cpu_model)                                             \
	X(compiler, STR, r->env->compiler)                                               \
	X(cflags, STR, r->env->cflags)                                                   \
	X(git_rev, STR, r->env->git_rev)                                                 \
	X(container, STR, r->ops_desc->name)                                             \
	X(scenario, STR, r->scenario)                                                    \
	A(HB_AXIS_N)                                                                     \
	A(HB_AXIS_ELEM)                                                                  \
	A(HB_AXIS_HOLE_RATIO)                                                            \
	A(HB_AXIS_ORDER)                                                                 \
	X(seed, U64, r->seed)                                                            \
	X(rep, OPTLL, r->rep)                                                            \
	X(elapsed_ns, OPTLL, r->measured ? (long long)r->region->elapsed_ns : -1)         \
	X(ns_per_op, OPTDBL, r->measured && r->ops ? (double)r->region->elapsed_ns / (double)r->ops : -1.0) \
	X(tsc_cycles, OPTLL, r->region->have_tsc ? (long long)r->region->tsc_cycles : -1) \
	X(counter_source, STR, hb_counter_source())                                      \
	X(papi_tot_cyc, CTR, 0)                                                          \
	X(papi_tot_ins, CTR, 1)                                                          \
	X(papi_l1_dcm, CTR, 2)                                                           \
	X(papi_l2_dcm, CTR, 3)                                                           \
	X(papi_l3_tcm, CTR, 4)                                                           \
	X(checksum, MU64, r->checksum)                                                   \
	X(verified, BOOL, r->verified)                                                   \
	X(run_id, STR, r->env->run_id)                                                   \
	X(swaps, OPTLL, r->swaps)                                                        \
	X(sim_ir, SIMTOKEN, 0)                                                           \
	X(sim_dr, EMPTY, 0)                                                              \
	X(sim_dw, EMPTY, 0)                                                              \
	X(sim_d1mr, EMPTY, 0)                                                            \
	X(sim_d1mw, EMPTY, 0)                                                            \
	X(sim_dlmr, EMPTY, 0)                                                            \
	X(sim_dlmw, EMPTY, 0)                                                            \
	X(sim_d1, EMPTY, 0)                                                              \
	X(sim_ll, EMPTY, 0)                                                              \
	X(papi_multiplexed, STR, strcmp(hb_counter_source(), "papi") != 0 ? ""          \
	                         : hb_papi_multiplexed() ? "1" : "0")                     \
	X(minflt, OPTLL, r->measured ? (long long)r->region->minflt : -1)                \
	X(majflt, OPTLL, r->measured ? (long long)r->region->majflt : -1)                \
	X(allocs, OPTLL, r->region->have_allocs ? (long long)r->region->allocs : -1)     \
	X(prefault, BOOL, r->prefault)                                                   \
	X(interleave_pos, OPTLL, r->interleave_pos)                                      \
	X(cores, OPTLL, (long long)r->env->n_cpus)                                       \
	X(hypervisor, BOOL, r->env->hypervisor)                                          \
	X(governor, STR, r->env->governor)                                               \
	X(turbo, STR, r->env->turbo)                                                     \
	X(pinned_cpu, OPTLL, (long long)r->env->pinned_cpu)                              \
	X(build_type, STR, r->env->build_type)                                           \
	X(perf_paranoid, OPTLL, r->env->perf_paranoid == HB_PERF_PARANOID_UNKNOWN ? -1LL : (long long)r->env->perf_paranoid) \
	X(papi_status, STR, hb_papi_status())                                            \
	X(frees, OPTLL, r->region->have_allocs ? (long long)r->region->frees : -1)       \
	X(cpu_ns, MU64, r->region->cpu_ns)                                               \
	X(pmu_scale, OPTDBL, r->region->have_pmu_scale ? r->region->pmu_scale : -1.0)    \
	A(HB_AXIS_HOLE_PATTERN)                                                          \
	X(ops, MU64, r->ops)                                                             \
	X(p50_ns, OPTDBL, r->samples > 0 ? r->p50_ns : -1.0)                             \
	X(p99_ns, OPTDBL, r->samples > 0 ? r->p99_ns : -1.0)                             \
	X(p999_ns, OPTDBL, r->samples > 0 ? r->p999_ns : -1.0)                           \
	X(max_ns, OPTDBL, r->samples > 0 ? r->max_ns : -1.0)                             \
	X(samples, OPTLL, r->samples)                                                    \
	X(sample_cost_ns, OPTDBL, r->samples > 0 ? r->sample_cost_ns : -1.0)             \
	X(family, STR, r->ops_desc->family)                                              \
	X(removal, STR, r->ops_desc->removal)                                            \
	X(alloc, STR, r->ops_desc->alloc)                                                \
	X(layout, STR, r->ops_desc->layout)                                              \
	X(caps, CAPS, r->ops_desc->caps)                                                 \
	X(invocation, STR, r->env->invocation)                                           \
	X(reserved_bytes, OPTLL, r->reserved_bytes)                                      \
	X(committed_bytes, OPTLL, r->committed_bytes)                                    \
	X(status, STR, r->status ? r->status : "ok")                                     \
	X(status_detail, STR, r->status_detail ? r->status_detail : "")                 \
	X(grows, OPTLL, r->measured ? (long long)r->region->grows : -1)                  \
	X(grow_moves, OPTLL, r->measured ? (long long)r->region->grow_moves : -1)        \
	X(grow_copied_bytes, OPTLL, r->measured ? (long long)r->region->grow_copied_bytes : -1) \
	X(grow_pushes, OPTLL, r->samples > 0 ? r->grow_samples : -1)                     \
	X(grow_p50_ns, OPTDBL, r->samples > 0 && r->grow_samples > 0 ? r->grow_p50_ns : -1.0) \
	X(grow_max_ns, OPTDBL, r->samples > 0 && r->grow_samples > 0 ? r->grow_max_ns : -1.0) \
	X(plain_max_ns, OPTDBL, r->samples > r->grow_samples ? r->plain_max_ns : -1.0) \
	X(passes, OPTLL, r->measured ? (long long)(r->region->passes ? r->region->passes : 1) : -1) \
	X(cache, STR, r->region->cache ? r->region->cache : "setup")                    \
	X(clock_floor_ns, DBL, hb_clock_floor_ns())                                      \
	X(min_region_ns, U64, hb_min_region_ns())                                        \
	X(short_region, OPTLL, r->measured ? (long long)(r->region->elapsed_ns < hb_min_region_ns()) : -1) \
	X(placed_blocks, OPTLL, r->placed_blocks)                                        \
	X(measured_bytes, OPTLL, r->measured_bytes)                                      \
	X(grow_max_at, OPTLL, r->grow_max_at)                                            \
	X(grow_max_copied_bytes, OPTLL, r->grow_max_copied)

static void put_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The caps column: the DOD_CAP_* words joined by '|', or "none". */
static void put_caps(FILE *f, unsigned caps)
{
	bool any = false;
	for (int b = 0; b < DOD_N_CAPS; b++)
		if (caps & (1u << b)) {
			fprintf(f, "%s%s", any ? "|" : "", dod_cap_names[b]);
			any = true;
		}
	if (!any)
		fputs("none", f);
}

#define PUT_STR(f, v) put_str(f, v)
#define PUT_U64(f, v) fprintf(f, "%" PRIu64, (uint64_t)(v))
/* A measured figure: empty in a row whose repetition produced none (r->measured false). */
#define PUT_MU64(f, v) (r->measured ? (void)fprintf(f, "%" PRIu64, (uint64_t)(v)) : (void)0)
#define PUT_SZ(f, v) fprintf(f, "%zu", (size_t)(v))
#define PUT_DBL(f, v) fprintf(f, "%.6g", (double)(v))
#define PUT_BOOL(f, v) fputc((v) ? '1' : '0', f)
#define PUT_CTR(f, i) (r->region->have[i] ? (void)fprintf(f, "%lld", r->region->ctr[i]) : (void)0)
#define PUT_OPTDBL(f, v) ((v) >= 0 ? (void)fprintf(f, "%.6g", (double)(v)) : (void)0)
#define PUT_EMPTY(f, v) ((void)(v))
#define PUT_SIMTOKEN(f, v) \
	(r->region->have_sim ? (void)fprintf(f, "@cg%llu@", (unsigned long long)r->region->sim_seq + (v)) : (void)0)
#define PUT_CAPS(f, v) put_caps(f, v)
#define PUT_OPTLL(f, v) ((v) >= 0 ? (void)fprintf(f, "%lld", (long long)(v)) : (void)0)

/* Longer than any header line: the fixed columns and HB_MAX_AXES appended ones. */
#define HEADER_MAX 4096

/* Appends ",name" to the header being built in buf (at: its length). */
static size_t add_column(char *buf, size_t at, const char *name)
{
	int w = snprintf(buf + at, HEADER_MAX - at, ",%s", name);
	return w > 0 && at + (size_t)w < HEADER_MAX ? at + (size_t)w : at;
}

static const char *axis_column(int id)
{
	const struct hb_axis *const *all;
	hb_axes(&all);
	return all[id]->name;
}

#define HEADER_FIELD(name, kind, value) at = add_column(buf, at, #name);
#define HEADER_AXIS(id) at = add_column(buf, at, axis_column(id));

/* The header line without its newline: built once from the column list and the axes. */
static const char *header(void)
{
	static char buf[HEADER_MAX];
	if (!buf[0]) {
		size_t at = 0;
		HB_COLUMNS(HEADER_FIELD, HEADER_AXIS)
		const struct hb_axis *const *all;
		size_t n = hb_axes(&all);
		for (size_t i = HB_N_SCHEMA3_AXES; i < n; i++)
			at = add_column(buf, at, all[i]->name);
	}
	return buf + 1; /* after the first comma */
}

/* An axis's field: its value; for an appended axis the row's case does not take, empty. */
static void put_axis(FILE *f, const struct hb_row *r, size_t id)
{
	const struct hb_axis *const *all;
	hb_axes(&all);
	char value[64];
	if (id < HB_N_SCHEMA3_AXES || (r->taken & (1u << id)))
		put_str(f, hb_axis_format(all[id], r->axis[id], false, value, sizeof value));
}

#define ROW_FIELD(name, kind, value) \
	if (!first)                      \
		fputc(',', f);               \
	first = false;                   \
	PUT_##kind(f, value);
#define ROW_AXIS(id)            \
	if (!first)                 \
		fputc(',', f);          \
	first = false;              \
	put_axis(f, r, id);

void hb_csv_row(FILE *f, const struct hb_row *r)
{
	bool first = true;
	HB_COLUMNS(ROW_FIELD, ROW_AXIS)
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	for (size_t i = HB_N_SCHEMA3_AXES; i < n; i++) {
		fputc(',', f);
		put_axis(f, r, i);
	}
	fputc('\n', f);
}

/* Sends what f buffers (one row, or one repetition's samples) in one write where it fits;
 * on failure (a full disk or a file-size limit can take part of it) drops the rest from
 * the buffer and cuts the file back to `before` (>= 0: a regular file), so no partial line
 * stays behind. Returns 0 or the errno of the first failed write since hb_out_mark (which
 * cleared errno: a write that fails while lines are formatted sets it then). */
static int commit(FILE *f, long long before)
{
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	int e = errno ? errno : EIO;
	__fpurge(f);
	clearerr(f);
	if (before >= 0 && ftruncate(fileno(f), (off_t)before) != 0)
		fprintf(stderr, "dodbench: cannot cut the partial line off an output: %s\n",
		        strerror(errno));
	return e;
}

long long hb_out_mark(FILE *f)
{
	struct stat st;
	fflush(f);
	bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	errno = 0;
	return regular ? (long long)st.st_size : -1;
}

int hb_out_commit(FILE *f, long long mark)
{
	return commit(f, mark);
}

int hb_csv_header(FILE *f)
{
	long long mark = hb_out_mark(f);
	fprintf(f, "%s\n", header());
	int e = commit(f, mark);
	errno = e;
	return e ? -1 : 0;
}

int hb_csv_put_row(FILE *f, const struct hb_row *r)
{
	long long mark = hb_out_mark(f);
	hb_csv_row(f, r);
	return commit(f, mark);
}

/* The CSV reporter's row: a repetition's row, or a merged callgrind line as it is. */
static int csv_reporter_row(struct hb_reporter *self, const struct hb_row *row,
                            const char *line)
{
	return line ? hb_csv_put_line(self->state, line) : hb_csv_put_row(self->state, row);
}

void hb_csv_reporter(struct hb_reporter *rep, FILE *f, const char *path)
{
	*rep = (struct hb_reporter){.path = path, .row = csv_reporter_row, .state = f};
}

void hb_csv_say_stopped(const char *path, int err)
{
	fprintf(stderr, "dodbench: writing %s: %s; the sweep stopped (every row before this one "
	        "is whole)\n", path, strerror(err));
}

int hb_csv_put_line(FILE *f, const char *line)
{
	long long mark = hb_out_mark(f);
	fputs(line, f);
	return commit(f, mark);
}

/* The file's torn tail: a last line without its newline (a run killed mid-row by an older
 * dodbench, or a hand edit). Truncates it away; returns the bytes removed, 0 if none, or
 * -1 with errno set. */
static long long drop_torn_tail(int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	off_t end = st.st_size, pos = end;
	char buf[4096];
	while (pos > 0) {
		size_t len = pos < (off_t)sizeof buf ? (size_t)pos : sizeof buf;
		if (pread(fd, buf, len, pos - (off_t)len) != (ssize_t)len)
			return -1;
		size_t i = len;
		while (i > 0 && buf[i - 1] != '\n')
			i--;
		if (i > 0) {
			pos = pos - (off_t)len + (off_t)i;
			break;
		}
		pos -= (off_t)len;
	}
	if (pos == end)
		return 0;
	return ftruncate(fd, pos) == 0 ? (long long)(end - pos) : -1;
}

/* The process /proc/locks names as holding the flock on the file fd is open on, or -1
 * (no such lock, or /proc/locks unreadable). For flock that is the process that took the
 * lock: after a kill -9 of dodbench it is the dead parent, while its worker, which shares
 * the open file and so the lock, is still being torn down. */
static long flock_holder(int fd)
{
	struct stat st;
	FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "r") : NULL;
	long holder = -1;
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		unsigned maj, min;
		unsigned long long ino;
		long pid;
		char type[16];
		if (sscanf(line, "%*[^:]: %15s %*s %*s %ld %x:%x:%llu", type, &pid, &maj, &min, &ino) == 5 &&
		    strcmp(type, "FLOCK") == 0 && maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    ino == (unsigned long long)st.st_ino) {
			holder = pid;
			break;
		}
	}
	if (f)
		fclose(f);
	return holder;
}

/* Takes the exclusive lock without waiting for a live holder: a run that is running keeps
 * it (EWOULDBLOCK). When the process that took it is gone, the lock is held only by the
 * worker of a killed run, on its way out (PR_SET_PDEATHSIG): then it waits for that, up
 * to 60 s (and without /proc/locks, up to 60 s for any holder). Returns 0 or -1 with
 * errno. */
static int lock_output(int fd)
{
	for (int waited_ms = 0;; waited_ms += 10) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK)
			return -1;
		/* No lock listed: it went away since the flock (or /proc is not there); a live
		 * holder, or a minute gone: refused. */
		long holder = flock_holder(fd);
		bool dead = holder > 0 && kill((pid_t)holder, 0) != 0 && errno == ESRCH;
		if ((holder > 0 && !dead) || waited_ms >= 60000) {
			errno = EWOULDBLOCK;
			return -1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* What an existing file's first line says about appending to it. */
enum head { HEAD_EMPTY, HEAD_OURS, HEAD_TORN, HEAD_OTHER };

/* The --samples-out header: one line per raw sample of a repetition. */
#define SAMPLES_HEADER "run_id,case,rep,i,ns"

/* Reads the first line of the regular file fd (size bytes) without changing anything:
 * empty; the header want (rows may follow); a torn header (the whole file is the start of
 * want, without a newline: a run killed while writing it); or anything else (another
 * schema's header, not a file of ours at all). Returns the enum head, or -1 with errno. */
static int read_head(int fd, off_t size, const char *want)
{
	char line[HEADER_MAX + 2];
	ssize_t got = pread(fd, line, sizeof line - 1, 0);
	if (got <= 0)
		return got < 0 ? -1 : HEAD_EMPTY;
	line[got] = '\0';
	size_t len = strcspn(line, "\r\n");
	bool whole = len < (size_t)got;
	line[len] = '\0';
	if (whole && strcmp(line, want) == 0)
		return HEAD_OURS;
	if (!whole && got == size && strncmp(line, want, len) == 0)
		return HEAD_TORN;
	return HEAD_OTHER;
}

/* Checks an existing regular file before anything is written to it, then repairs what a
 * killed run left: a torn last line after the header want is cut off, a torn header is
 * removed (both with a notice). A file whose first line is not want is refused
 * untouched. Returns the enum head, or -1 with the reason in err. */
static int prepare_regular(int fd, const char *path, off_t size, const char *want, char *err,
                           size_t err_len)
{
	int head = read_head(fd, size, want);
	long long dropped = 0;
	if (head == HEAD_OURS)
		dropped = drop_torn_tail(fd);
	else if (head == HEAD_TORN)
		dropped = ftruncate(fd, 0) == 0 ? (long long)size : -1;
	if (head < 0 || dropped < 0) {
		snprintf(err, err_len, "cannot repair %s: %s", path, strerror(errno));
		return -1;
	}
	if (head == HEAD_OTHER) {
		snprintf(err, err_len, "%s exists with a different header (not \"%.40s...\": another "
		         "schema, another kind of output, or not a dodbench file): it was left as it "
		         "is; write to a new file", path, want);
		return -1;
	}
	if (dropped > 0)
		fprintf(stderr, "dodbench: %s ended in a torn line (%lld bytes without a newline, "
		        "from a killed run?): removed it\n", path, dropped);
	return head;
}

/* Writes the line head and a newline to fd in one write; a failed or short write is cut
 * off again in a regular file (size: its size before). Returns 0 or an errno. */
static int put_head(int fd, const char *head, off_t size, bool regular)
{
	char line[HEADER_MAX + 2];
	size_t len = (size_t)snprintf(line, sizeof line, "%s\n", head);
	ssize_t put = write(fd, line, len);
	if (put == (ssize_t)len)
		return 0;
	int e = put < 0 ? errno : ENOSPC;
	if (regular && ftruncate(fd, size) != 0)
		fprintf(stderr, "dodbench: cannot cut the partial header off an output: %s\n",
		        strerror(errno));
	return e;
}

/* Opens an existing file that is not a regular file or a directory, write-only (never
 * read-write: a reader end of a pipe held by the writer keeps the pipe open for ever):
 * a FIFO or a pipe only when it has a reader now (else the rows would wait in the pipe
 * for no one), then blocking as usual; a device. Returns the descriptor or -1 with the
 * reason in err. */
static int open_special(const char *path, const struct stat *st, char *err, size_t err_len)
{
	bool fifo = S_ISFIFO(st->st_mode);
	int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
	if (fd < 0 && fifo && errno == ENXIO) {
		snprintf(err, err_len, "%s is a pipe with no reader: start the reader first (rows "
		         "written now would be lost)", path);
		return -1;
	}
	if (fd < 0 || (fifo && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)) {
		snprintf(err, err_len, "cannot open %s for writing: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One attempt of hb_output_open: 0 done (*fd set, or -1 with err), 1 try again (the
 * path changed meanwhile). */
static int open_once(const char *path, int *fd, bool *created, char *err, size_t err_len)
{
	struct stat st, fs, now;
	*fd = -1;
	*created = false;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			char to[512] = "";
			ssize_t n = readlink(path, to, sizeof to - 1);
			to[n > 0 ? n : 0] = '\0';
			snprintf(err, err_len, "%s is a symbolic link to %.300s, which does not exist: "
			         "create that file first (touch it) or give its own path", path, to);
			return 0;
		}
		if (errno != ENOENT) {
			snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
			return 0;
		}
		*fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (*fd < 0 && errno == EEXIST)
			return 1;
		*created = *fd >= 0;
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "%s is a directory", path);
		return 0;
	} else if (!S_ISREG(st.st_mode)) {
		*fd = open_special(path, &st, err, err_len);
		return 0;
	} else {
		*fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
		if (*fd < 0 && errno == ENOENT)
			return 1;
	}
	if (*fd < 0) {
		snprintf(err, err_len, "cannot open %s for appending: %s", path, strerror(errno));
		return 0;
	}
	/* One writer at a time: the lock lives as long as the descriptor (the whole run). */
	if (fstat(*fd, &fs) != 0 || lock_output(*fd) != 0) {
		snprintf(err, err_len,
		         errno == EWOULDBLOCK
		                 ? "%s is being written by another dodbench run (it holds the file's "
		                   "lock): wait for it to finish or write to another file"
		                 : "cannot lock %s: %s",
		         path, strerror(errno));
		close(*fd);
		*fd = -1;
		return 0;
	}
	/* The path must still name the locked file: a run refused meanwhile removes the file
	 * it created, which this one may have opened too (then it would write to no file). */
	if (stat(path, &now) == 0 && now.st_dev == fs.st_dev && now.st_ino == fs.st_ino)
		return 0;
	close(*fd);
	*fd = -1;
	return 1;
}

int hb_output_open(const char *path, bool *created, char *err, size_t err_len)
{
	if (!*path) {
		snprintf(err, err_len, "an empty file name");
		return -1;
	}
	for (int attempt = 0; attempt < 16; attempt++) {
		int fd;
		if (open_once(path, &fd, created, err, err_len) == 0)
			return fd;
	}
	snprintf(err, err_len, "%s kept being created, removed or replaced by other processes "
	         "while it was opened: try again", path);
	return -1;
}

/* hb_csv_open and hb_samples_open: the file opened, checked against the header head and
 * repaired, the header written when the file is new or empty; the stream fully buffered
 * (HB_ROW_BUFFER), so that a row leaves in one write. On failure a file this call created
 * is removed again. */
static FILE *open_appending(const char *path, const char *head, bool *created, char *err,
                            size_t err_len)
{
	int fd = hb_output_open(path, created, err, err_len);
	if (fd < 0)
		return NULL;
	/* A device (/dev/null, /dev/full) or a pipe: nothing to check or repair. */
	struct stat st;
	int got = HEAD_EMPTY, e = 0;
	if (fstat(fd, &st) != 0) {
		snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
		got = -1;
	} else if (S_ISREG(st.st_mode)) {
		got = prepare_regular(fd, path, st.st_size, head, err, err_len);
	}
	if (got >= 0 && got != HEAD_OURS && fstat(fd, &st) == 0 &&
	    (e = put_head(fd, head, st.st_size, S_ISREG(st.st_mode))) != 0) {
		snprintf(err, err_len, "cannot write to %s: %s", path, strerror(e));
		got = -1;
	}
	FILE *f = got >= 0 ? fdopen(fd, "a") : NULL;
	if (f && setvbuf(f, NULL, _IOFBF, HB_ROW_BUFFER) == 0)
		return f;
	if (got >= 0)
		snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
	hb_output_remove(fd, path, *created);
	if (f)
		fclose(f);
	else
		close(fd);
	return NULL;
}

FILE *hb_csv_open(const char *path, bool *created, char *err, size_t err_len)
{
	return open_appending(path, header(), created, err, err_len);
}

FILE *hb_samples_open(const char *path, bool *created, char *err, size_t err_len)
{
	return open_appending(path, SAMPLES_HEADER, created, err, err_len);
}

void hb_output_remove(int fd, const char *path, bool created)
{
	struct stat fs, now;
	if (created && fd >= 0 && fstat(fd, &fs) == 0 && stat(path, &now) == 0 &&
	    now.st_dev == fs.st_dev && now.st_ino == fs.st_ino)
		unlink(path);
}

size_t hb_csv_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;
	line[strcspn(line, "\n")] = '\0';
	while (n < max) {
		char *out = p;
		fields[n++] = p;
		if (*p == '"') {
			char *in = p + 1;
			for (;;) {
				if (*in == '"' && in[1] == '"')
					*out++ = '"', in += 2;
				else if (*in == '"' || !*in)
					break;
				else
					*out++ = *in++;
			}
			p = *in ? in + 1 : in;
		} else {
			while (*p && *p != ',')
				*out++ = *p++;
		}
		bool more = *p == ',';
		if (*p)
			p++;
		*out = '\0';
		if (!more)
			break;
	}
	return n;
}

int hb_csv_columns(char **header_fields, size_t nf, const char *const *names, size_t n_names,
                   int *col)
{
	for (size_t c = 0; c < n_names; c++) {
		col[c] = -1;
		for (size_t i = 0; i < nf && col[c] < 0; i++)
			if (strcmp(header_fields[i], names[c]) == 0)
				col[c] = (int)i;
		if (col[c] < 0)
			return (int)c;
	}
	return -1;
}

int hb_case_columns_find(struct hb_case_columns *cc, char **header, size_t n,
                         const char **missing)
{
	const struct hb_axis *const *all;
	size_t n_axes = hb_axes(&all);
	const char *names[2 + HB_MAX_AXES] = {"scenario", "container"};
	for (size_t i = 0; i < n_axes; i++)
		names[2 + i] = all[i]->name;
	int col[2 + HB_MAX_AXES];
	int miss = hb_csv_columns(header, n, names, 2 + n_axes, col);
	if (miss >= 0) {
		*missing = names[miss];
		return -1;
	}
	cc->scenario = col[0];
	cc->container = col[1];
	memcpy(cc->axis, col + 2, n_axes * sizeof *col);
	return 0;
}

int hb_case_name_of_row(char *buf, size_t len, const struct hb_case_columns *cc,
                        char **fields, size_t nf)
{
	const struct hb_axis *const *all;
	size_t n = hb_axes(&all);
	union hb_axis_value v[HB_MAX_AXES];
	if ((size_t)cc->scenario >= nf || (size_t)cc->container >= nf)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if ((size_t)cc->axis[i] >= nf)
			return -1;
		const char *field = fields[cc->axis[i]];
		/* An empty field: an appended axis the row's scenario does not take. */
		if (!*field)
			v[i] = all[i]->absent;
		else if (hb_axis_read(all[i], field, &v[i]) != 0)
			return -1;
	}
	const char *scenario = fields[cc->scenario];
	hb_case_name(buf, len, scenario, fields[cc->container], v,
	             hb_axes_taken(scn_find(scenario), v));
	return 0;
}
