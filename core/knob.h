/*
 * knob.h - a named, ranged, documented number: policy knobs and workload
 * parameters share this description, and `--list`, `--set` and `--param`
 * are written once against it.
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

/* Index of `name` in defs[0..n), or -1. */
int knob_find(const struct knob_def *defs, size_t n, const char *name);

/*
 * Parse `text` as a value for `d`: 0, or -1 with a one-line reason in err
 * (not a number, fractional for an integer knob, out of range).
 */
int knob_parse(const struct knob_def *d, const char *text, double *out, char *err, size_t len);

/* Fill vals[0..n) with the defaults. */
void knob_defaults(const struct knob_def *defs, size_t n, double *vals);

#endif
