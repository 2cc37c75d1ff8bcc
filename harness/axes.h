/* axes.h - the case axes of `dodbench run`, each defined once (axes.c): its option, parser
 * and checks, default, CSV column, JSON field, case-name part, --resume matching and the scenarios
 * that take it. cli.c, plan.c, schedule.c, csv.c, resume.c, summary.c, sim.c's merge
 * and json.c read the table; none of them names an axis's values itself.
 *
 * Adding an axis is one `struct hb_axis`: an entry of axes.c's table (after the five of
 * schema 3), or HB_AXIS_REGISTER(var) in any file linked into the binary (the test axis
 * `knob` of build/dodbench-faults lives in tests/faults/faults.c), plus, when scenarios
 * read its value, a field of struct scn_params that its `bind` sets. Its CSV column is
 * appended after the schema's last column and named "axis_" KEY (KEY: its case-name
 * part), the rule by which the reports know it for a case axis (docs/CSV.md).
 */
#ifndef HB_AXES_H
#define HB_AXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scn_scenario;
struct scn_params;
struct hb_case;
struct hb_config;

/* One value of an axis: u for counts, size classes and words (the word's index), d for
 * fractions. */
union hb_axis_value {
	uint64_t u;
	double d;
};

enum hb_axis_kind {
	HB_AXIS_COUNT,     /* an integer in min..max */
	HB_AXIS_SIZE,      /* a size class of the registry (hb_elem_sizes) */
	HB_AXIS_FRACTION,  /* a decimal number 0 <= d < 1 */
	HB_AXIS_WORD,      /* words[first_word ..] on the command line; words[0 ..] in a CSV */
};

/* The axes of schema 3, in the order of their case-name parts; their columns keep their
 * places in the CSV (csv.c). Axes after them append their columns. */
enum { HB_AXIS_N, HB_AXIS_ELEM, HB_AXIS_ORDER, HB_AXIS_HOLE_RATIO, HB_AXIS_HOLE_PATTERN,
       HB_N_SCHEMA3_AXES };
#define HB_MAX_AXES 16        /* struct hb_case holds a value of each */
#define HB_AXIS_COLUMN_PREFIX "axis_" /* the column of an axis appended to the CSV */

struct hb_axis {
	const char *name;        /* [a-z0-9_]+: its CSV column; an appended axis's is "axis_" KEY */
	const char *option;      /* its option of run, without "--" */
	const char *metavar;     /* --help: the value's placeholder, "N" */
	const char *help;        /* --help: what it is (wrapped; the default and, with takes,
	                            the scenarios that take it are added) */
	const char *def;         /* the default, as written on the command line */
	const char *(*def_of)(void); /* the default where the build decides it (NULL: def) */
	enum hb_axis_kind kind;
	unsigned long long min, max; /* HB_AXIS_COUNT: the range */
	const char *too_large;   /* HB_AXIS_COUNT: why a value above max is refused */
	/* HB_AXIS_COUNT: reads an item that is not a number (the cache words of --n) into *v.
	 * Returns 0, -1 with the usage error in err, or 1: not one of its words. NULL: none. */
	int (*parse_word)(const struct hb_axis *a, const char *item, union hb_axis_value *v,
	                  char *err, size_t err_len);
	const char *word_help;   /* HB_AXIS_COUNT with parse_word: its words, for messages */
	const char *const *words;    /* HB_AXIS_WORD: every value's word */
	unsigned n_words, first_word; /* words[0 .. first_word) are written, never asked for */
	/* iterated right after the container (elem_bytes: the size class picks which compiled
	 * variant of the container runs), before the other axes */
	bool outer;
	const char *key;         /* case-name part "/KEY:VALUE"; NULL: ":VALUE" joins the part
	                            before it (the hole pattern joins "holes:R") */
	bool name_omits_absent;  /* no case-name part while the value is `absent` (holes 0) */
	/* Which scenarios take it (NULL: all). A case of another scenario runs once, with
	 * `absent`, and its name has no part for it. */
	bool (*takes)(const struct scn_scenario *s);
	/* Given the values of the axes before it, whether it applies (NULL: it does); when it
	 * does not, as for a scenario that does not take it (a hole pattern without holes). */
	bool (*applies)(const union hb_axis_value *values);
	union hb_axis_value absent;  /* the value of a case it does not apply to */
	const char *absent_help; /* --help: how the other scenarios run */
	/* Sets the field of the scenario's parameters that carries it (NULL: none: only the
	 * case, its name and its rows differ). */
	void (*bind)(struct scn_params *p, union hb_axis_value v);
	/* Whether the CSV field of a row (--resume) holds case k's value; NULL: the field is
	 * the value as hb_axis_format writes it. */
	bool (*matches)(const struct hb_case *k, const char *field);
	/* Refuses, before any work, what no single value shows (hole ratios that erase
	 * nothing at every --n, or as many items as each other at every --n); may print
	 * notices on stderr (not with --quiet) about what its skip will leave out. Returns 0,
	 * or -1 with the usage error in err. NULL: none. */
	int (*check)(const struct hb_config *c, char *err, size_t err_len);
	/* Why case k of the run c cannot run with its value (NULL: it can), beside
	 * scn_cannot_run; a static string. */
	const char *(*skip)(const struct hb_config *c, const struct hb_case *k);
};

/* Registers an axis from outside axes.c (after the table's, in name order). */
#define HB_AXIS_REGISTER(var)                                                            \
	static const struct hb_axis *const hb_axis_reg_##var                                 \
		__attribute__((used, section("dod_axes"), aligned(sizeof(void *)))) = &var;

/* Every axis: the table's (ids HB_AXIS_N ... first), then the registered ones by name.
 * *out gets the array. Returns the count (at most HB_MAX_AXES: more, or a registered name
 * or option used twice, is a build mistake that stops dodbench with a message). */
size_t hb_axes(const struct hb_axis *const **out);
/* The id (index in hb_axes' list) of the axis whose CSV column is name; an axis of the
 * table is always there, so a name that is not is a build mistake: stops with a message. */
size_t hb_axis_id(const char *name);

/* Strict unsigned decimal integer (digits only: no sign, space or trailing text) into
 * *out. Returns 0, or -1 when s is not one or overflows. */
int hb_parse_u64(const char *s, unsigned long long *out);
/* Strict unsigned decimal number (digits with at most one '.': no sign, exponent, hex,
 * inf or nan) into *out. Returns 0 or -1. */
int hb_parse_decimal(const char *s, double *out);
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

/* Whether axis a applies to a case of scenario s with these values (the values of the
 * axes before it are enough): the scenario takes it and its `applies` agrees. s NULL (an
 * unknown scenario): whether every scenario takes it. */
bool hb_axis_taken(const struct hb_axis *a, const struct scn_scenario *s,
                   const union hb_axis_value *values);
/* Bit i set when axis i applies to a case of scenario s with these values (the scenario
 * takes it and its `applies` agrees). s NULL (an unknown scenario): the axes every
 * scenario takes. */
unsigned hb_axes_taken(const struct scn_scenario *s, const union hb_axis_value *values);
/* Writes the case name google-benchmark style into buf:
 * scenario/container/n:N/elem:E[/order:O][/holes:R:PATTERN][/KEY:VALUE ...], a part for
 * each axis that applies (taken: hb_axes_taken) and, for holes, only when R > 0. */
void hb_case_name(char *buf, size_t len, const char *scenario, const char *container,
                  const union hb_axis_value *values, unsigned taken);

#endif
