/* axis.h - the type of a case axis of `dodbench run` (struct hb_axis), in the scenario
 * layer: a scenario declares the axes it takes in its registration (scn_scenario.axes) and
 * may define an axis of its own in its file (HB_AXIS_REGISTER), reading its value with
 * scn_axis_value (scenario.h). The harness (harness/axes.h, axes.c) holds the generic axes
 * (n, elem_bytes, order, hole_ratio, hole_pattern, cache, place) and the functions that
 * parse, check, format, name and read the values of every axis; this header includes
 * nothing of the harness.
 */
#ifndef SCN_AXIS_H
#define SCN_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scn_params;
struct hb_case;   /* the harness's (harness/run.h): only its callbacks below see it */
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

#define HB_MAX_AXES 16        /* struct hb_case and struct scn_params hold a value of each */
#define HB_AXIS_COLUMN_PREFIX "axis_" /* the column of an axis appended to the CSV */
/* The key (case-name part) and, from it, the column of an appended axis: write
 * `HB_AXIS_KEY("rounds")` in its initializer, so the two cannot disagree (key must be a
 * string literal). */
#define HB_AXIS_KEY(k) .key = k, .name = HB_AXIS_COLUMN_PREFIX k

struct hb_axis {
	const char *name;        /* [a-z0-9_]+: its CSV column; an appended axis's is "axis_" KEY */
	const char *option;      /* its option of run, without "--" */
	const char *metavar;     /* --help: the value's placeholder, "N" */
	const char *help;        /* --help: what it is (wrapped; the default and, unless
	                            every, the scenarios that take it are added) */
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
	/* Its place among the axes: their CSV columns and case-name parts follow it. The
	 * harness's table numbers its own; a new axis leaves it 0: after every numbered one,
	 * in name order (those of the handle_map scenarios keep numbers from the time they
	 * were in the table, so the CSV's columns stay where they were). */
	unsigned rank;
	/* iterated right after the container (elem_bytes: the size class picks which compiled
	 * variant of the container runs), before the other axes */
	bool outer;
	const char *key;         /* case-name part "/KEY:VALUE"; NULL: ":VALUE" joins the part
	                            before it (the hole pattern joins "holes:R") */
	bool name_omits_absent;  /* no case-name part while the value is `absent` (holes 0) */
	/* Taken by every scenario (n, elem_bytes, place); else only by the scenarios whose
	 * scn_scenario.axes list it. A case of a scenario that does not take it runs once,
	 * with `absent`, and its name has no part for it. */
	bool every;
	/* Whether this build has the axis (NULL: it has); where not, no scenario takes it
	 * (place: the sanitizer builds have no allocator layer to place blocks). */
	bool (*in_build)(void);
	/* Given the values of the axes before it, whether it applies (NULL: it does); when it
	 * does not, as for a scenario that does not take it (a hole pattern without holes). */
	bool (*applies)(const union hb_axis_value *values);
	union hb_axis_value absent;  /* the value of a case it does not apply to */
	const char *absent_help; /* --help: how the other scenarios run */
	/* Sets the generic field of struct scn_params that carries it (n, order, the holes,
	 * cache; NULL: none: a scenario reads its own axes with scn_axis_value). */
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

/* Registers an axis defined outside the harness's table (a scenario's own: put it in the
 * scenario's file); the harness lists it after the table's, in name order. */
#define HB_AXIS_REGISTER(var)                                                            \
	static const struct hb_axis *const hb_axis_reg_##var                                 \
		__attribute__((used, section("dod_axes"), aligned(sizeof(void *)))) = &var;

/* The generic axes a scenario may list (defined in harness/axes.c's table). The hole
 * pattern goes with the hole ratio: list both (SCN_AXIS_HOLES). */
extern const struct hb_axis hb_axis_order, hb_axis_hole_ratio, hb_axis_hole_pattern,
	hb_axis_cache;
#define SCN_AXIS_HOLES &hb_axis_hole_ratio, &hb_axis_hole_pattern

#endif
