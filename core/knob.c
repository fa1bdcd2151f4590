/* knob.c - parsing and range checks for knobs and parameters (knob.h). */
#include "knob.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int knob_find(const struct knob_def *defs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
}

int knob_parse(const struct knob_def *d, const char *text, double *out, char *err, size_t len)
{
	char lo[32], hi[32];
	fmt_num(lo, sizeof lo, d->min);
	fmt_num(hi, sizeof hi, d->max);

	char *end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
		snprintf(err, len, "%s: '%s' is not a number (expected %s in [%s, %s])",
			 d->name, text, d->integer ? "an integer" : "a number", lo, hi);
		return -1;
	}
	if (d->integer && v != floor(v)) {
		snprintf(err, len, "%s: '%s' is not an integer (expected an integer in [%s, %s])",
			 d->name, text, lo, hi);
		return -1;
	}
	if (v < d->min || v > d->max) {
		snprintf(err, len, "%s: %s is out of range [%s, %s]", d->name, text, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

void knob_defaults(const struct knob_def *defs, size_t n, double *vals)
{
	for (size_t i = 0; i < n; i++)
		vals[i] = defs[i].def;
}
