/* report.c - hands a run's rows to its list of reporters (report.h). */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "run.h"

int hb_report_begin(struct hb_reporter *const *list, size_t n, const struct hb_run *r,
                    size_t *failed)
{
	for (size_t i = 0; i < n; i++) {
		int e = list[i]->begin ? list[i]->begin(list[i], r) : 0;
		if (e) {
			*failed = i;
			return e;
		}
	}
	return 0;
}

int hb_report_row(struct hb_reporter *const *list, size_t n, const struct hb_row *row,
                  const char *line, size_t *failed)
{
	int first = 0;
	for (size_t i = 0; i < n; i++) {
		int e = list[i]->row ? list[i]->row(list[i], row, line) : 0;
		if (e && !first) {
			first = e;
			*failed = i;
		}
	}
	return first;
}

int hb_report_end(struct hb_reporter *const *list, size_t n, const struct hb_run *r,
                  int status)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int e = list[i]->end ? list[i]->end(list[i], r, status) : 0;
		if (e) {
			fprintf(stderr, "dodbench: writing %s: %s\n", list[i]->path, strerror(e));
			rc = HB_EXIT_OUTPUT;
		}
	}
	return rc;
}
