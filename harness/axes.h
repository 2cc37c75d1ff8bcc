/* axes.h - the case axes of `dodbench run` (the type: scenarios/axis.h), each defined once:
 * its option, parser and checks, default, CSV column, JSON field, case-name part, --resume
 * matching. cli.c, plan.c, schedule.c, csv.c, resume.c, summary.c, sim.c's merge and
 * json.c read the list; none of them names an axis's values itself.
 *
 * Adding an axis read by one scenario is that scenario's file: a `struct hb_axis`,
 * HB_AXIS_REGISTER(var), the axis in the scenario's `axes` list, and scn_axis_value where
 * it reads the value (list_iterate.c: list_state). A generic axis (one that sets a field
 * of struct scn_params through `bind`) is an entry of axes.c's table. Which scenarios take
 * an axis comes from their `axes` lists (or the axis's `every`), nothing else. Its CSV
 * column is appended after the schema's last column and named "axis_" KEY (KEY: its
 * case-name part), the rule by which the reports know it for a case axis (docs/CSV.md).
 */
#ifndef HB_AXES_H
#define HB_AXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "axis.h"
#include "parse.h"

struct scn_scenario;

/* The axes of schema 3, in the order of their case-name parts; their columns keep their
 * places in the CSV (csv.c). Axes after them append their columns. */
enum { HB_AXIS_N, HB_AXIS_ELEM, HB_AXIS_ORDER, HB_AXIS_HOLE_RATIO, HB_AXIS_HOLE_PATTERN,
       HB_N_SCHEMA3_AXES };

/* Every axis, in rank order (the table's: ids HB_AXIS_N ... first), the unranked after
 * them by name (axis.h's `rank`). *out gets the array. Returns the count (at most
 * HB_MAX_AXES: more, or a name, option or rank used twice, is a build mistake that stops
 * dodbench with a message). */
size_t hb_axes(const struct hb_axis *const **out);
/* The id (index in hb_axes' list) of the axis whose CSV column is name; an axis of the
 * table is always there, so a name that is not is a build mistake: stops with a message. */
size_t hb_axis_id(const char *name);

/* Parses one command-line item of axis a into *v. Returns 0, or -1 with the usage error
 * (naming the option and the item) in err. */
int hb_axis_parse(const struct hb_axis *a, const char *item, union hb_axis_value *v,
                  char *err, size_t err_len);
/* Reads a CSV field of axis a (as hb_axis_format wrote it; words: any of them) into *v.
 * Checks the field's form only (digits, a decimal number, one of the words), not a count's
 * range or a size's class: --resume compares what it reads with cases already checked.
 * Returns 0, or -1 when the field has not the axis's form. */
int hb_axis_read(const struct hb_axis *a, const char *field, union hb_axis_value *v);
/* Writes value v of axis a as the CSV and the case name spell it ("%.6g" for a fraction
 * in the CSV, "%g" in a name: name_form). Returns buf. */
char *hb_axis_format(const struct hb_axis *a, union hb_axis_value v, bool name_form,
                     char *buf, size_t len);
/* Prints --help's lines of every axis's option to f. */
void hb_axes_help(FILE *f);

/* Whether scenario s takes axis a: a is in this build (in_build) and every scenario
 * takes it, or s lists it (scn_lists_axis). s NULL (an unknown scenario): whether every
 * scenario of every build takes it (n, elem_bytes). */
bool hb_axis_takes(const struct hb_axis *a, const struct scn_scenario *s);
/* Whether axis a applies to a case of scenario s with these values (the values of the
 * axes before it are enough): hb_axis_takes and its `applies` agrees. */
bool hb_axis_taken(const struct hb_axis *a, const struct scn_scenario *s,
                   const union hb_axis_value *values);
/* Bit i set when axis i applies to a case of scenario s with these values
 * (hb_axis_taken). */
unsigned hb_axes_taken(const struct scn_scenario *s, const union hb_axis_value *values);
/* Sets p's value of the axis whose CSV column is name to field, read as the CSV writes it
 * (hb_axis_read: a word, a number), for a scenario run outside a plan (the tests); p->axes
 * becomes hb_axes' list (values of the other axes kept when p had it, else their
 * `absent`). Returns 0, or -1 when no axis is called name or field is not its form. */
int hb_params_set(struct scn_params *p, const char *name, const char *field);
/* Writes the case name google-benchmark style into buf:
 * scenario/container/n:N/elem:E[/order:O][/holes:R:PATTERN][/KEY:VALUE ...], a part for
 * each axis that applies (taken: hb_axes_taken) and, for holes, only when R > 0. */
void hb_case_name(char *buf, size_t len, const char *scenario, const char *container,
                  const union hb_axis_value *values, unsigned taken);

#endif
