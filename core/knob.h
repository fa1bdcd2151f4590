/*
 * knob.h - a named, ranged, documented number: policy knobs and workload
 * parameters share this description, and `--list`, `--set` and `--param`
 * are written once against it.
 *
 * An enumeration (a service distribution, a UTS preset, a routing rule)
 * is a number with names: a policy or workload lists them beside its knob
 * table (`struct knob_enum`), and every integer knob with the range 0..1
 * and no names of its own is an on/off switch. Names are accepted wherever
 * numbers are (`--param dist=exponential`, `--set routing=random`,
 * `--set interval=adaptive`, `--set runnext=off`) and printed in the
 * summary; numbers stay accepted, and the result file keeps numbers.
 */
#ifndef HARNESS_CORE_KNOB_H
#define HARNESS_CORE_KNOB_H

#include <stdbool.h>
#include <stddef.h>

struct knob_def {
	const char *name;
	double def, min, max;
	bool integer;		/* reject values with a fractional part */
	const char *help;	/* one line */
};

/* One name of one value; a list ends with { NULL, 0 }. */
struct knob_name {
	const char *name;
	double value;
};

/* The names of knob `knob`; a table of these ends with { NULL, NULL }. */
struct knob_enum {
	const char *knob;
	const struct knob_name *names;
};

/* off = 0, on = 1: every 0..1 integer knob without names of its own. */
extern const struct knob_name knob_onoff[];

/* Index of `name` in defs[0..n), or -1. */
int knob_find(const struct knob_def *defs, size_t n, const char *name);

/* The names of d's values: its entry in enums (NULL: none), else
 * knob_onoff for a 0..1 integer knob, else NULL. */
const struct knob_name *knob_names(const struct knob_enum *enums, const struct knob_def *d);

/*
 * Parse `text` as a value for `d`: a name from `names` (case-insensitive)
 * or a number written plainly: an integer knob takes decimal digits only
 * (a '-' only where the range is negative, never "-0"), a real knob a
 * decimal number with an optional exponent; no blanks, no hex, no inf or
 * nan. 0, or -1 with a one-line reason in err (not a number, fractional for
 * an integer knob, out of range), listing the names if there are any.
 */
int knob_parse_named(const struct knob_def *d, const struct knob_name *names, const char *text,
		     double *out, char *err, size_t len);
/* The same with knob_names(NULL, d): numbers, or off/on for a 0..1 knob. */
int knob_parse(const struct knob_def *d, const char *text, double *out, char *err, size_t len);

/* `v` as its name if it has one, else as a number (%.15g). */
void knob_format(const struct knob_name *names, double v, char *buf, size_t len);

/* "a, b, c": the names, for messages and --list. */
void knob_names_list(const struct knob_name *names, char *buf, size_t len);

/* Fill vals[0..n) with the defaults. */
void knob_defaults(const struct knob_def *defs, size_t n, double *vals);

#endif
