/* report.h - the one shape of every output of a run's rows (harness-private), after
 * google-benchmark's BenchmarkReporter (ReportContext, ReportRuns, Finalize): the CSV
 * writer (csv.c), the console summary (summary.c), the JSON writer (main.c over json.c)
 * and the callgrind summary (sim.c) are each a struct hb_reporter; the schedule
 * (schedule.c, main.c) and the callgrind merge (sim.c) hand every row to a list of them
 * through hb_report_* and never call an output by name. A new output format is one file
 * that fills a struct hb_reporter, plus its option (cli.c) and its place in the list
 * (main.c's reporters).
 *
 * Where each call runs: begin and end in the process that runs the schedule (the parent;
 * under --counters callgrind the valgrind child, and for the callgrind summary the
 * parent that merges); row in the process that measured the repetition (the worker) or
 * in the parent (a repetition whose worker died, a merged callgrind row). So a reporter
 * that writes at the end reads the run's cases (struct hb_case: the parent keeps their
 * figures), never state its row calls kept in a worker. */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct hb_run;
struct hb_row;

struct hb_reporter {
	const char *path; /* the output's name in messages (a path, or "stdout") */
	/* The run is planned and about to start (r: its cases and configuration). */
	int (*begin)(struct hb_reporter *self, const struct hb_run *r);
	/* One row: a repetition's figures (row, line NULL), or under --counters callgrind a
	 * merged row already formatted (line: one CSV line with its newline, row NULL). */
	int (*row)(struct hb_reporter *self, const struct hb_row *row, const char *line);
	/* The run went to its end (r: NULL in the callgrind parent, which runs no case
	 * itself); status: the exit status so far (0 ok, 1 a case failed, ...). */
	int (*end)(struct hb_reporter *self, const struct hb_run *r, int status);
	void *state;      /* the implementation's */
};
/* Each callback may be NULL (nothing to do then) and returns 0 or the errno of the write
 * that failed (ENOSPC on a full disk, EFBIG past ulimit -f, ...); it prints nothing about
 * that failure: the caller does, naming self->path. */

/* Calls begin of the n reporters of list, in order. Returns 0, or the first errno (then
 * *failed = its index; the later reporters are not begun). */
int hb_report_begin(struct hb_reporter *const *list, size_t n, const struct hb_run *r,
                    size_t *failed);
/* Hands one row (hb_reporter's row) to every reporter of list, in order, even after one
 * failed (each output stays whole to its last row). Returns 0 or the first errno (then
 * *failed = the index of the reporter that returned it). The caller stops the sweep on
 * an errno and says so (hb_csv_say_stopped with list[*failed]->path). */
int hb_report_row(struct hb_reporter *const *list, size_t n, const struct hb_row *row,
                  const char *line, size_t *failed);
/* Calls end of every reporter of list, in order; for each that fails prints
 * "dodbench: writing PATH: ERROR" on stderr. Returns 0, or HB_EXIT_OUTPUT when any
 * failed. */
int hb_report_end(struct hb_reporter *const *list, size_t n, const struct hb_run *r,
                  int status);

/* The implementations. Each fills *rep; state it needs lives as long as the reporter. */
/* CSV rows (schema of csv.c) to f, opened by hb_csv_open; each row leaves in one write and
 * a failed one is cut off again (hb_csv_put_row, hb_csv_put_line). */
void hb_csv_reporter(struct hb_reporter *rep, FILE *f, const char *path);
/* The console: begin prints the run's context line on stderr (unless --quiet); end the
 * summary on stdout (hb_summarize, against --baseline or the first container). Never
 * fails. */
void hb_console_reporter(struct hb_reporter *rep);

#endif
