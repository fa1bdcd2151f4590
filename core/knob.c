/* knob.c - parsing and range checks for knobs and parameters (knob.h). */
#include "knob.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct knob_name knob_onoff[] = { { "off", 0 }, { "on", 1 }, { NULL, 0 } };

int knob_find(const struct knob_def *defs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct knob_name *knob_names(const struct knob_enum *enums, const struct knob_def *d)
{
	for (const struct knob_enum *e = enums; e && e->knob; e++)
		if (strcmp(e->knob, d->name) == 0)
			return e->names;
	if (d->integer && d->min == 0 && d->max == 1)
		return knob_onoff;
	return NULL;
}

static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
}

void knob_names_list(const struct knob_name *names, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct knob_name *k = names; k && k->name && off < len; k++) {
		int n = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", k->name);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

void knob_format(const struct knob_name *names, double v, char *buf, size_t len)
{
	for (const struct knob_name *k = names; k && k->name; k++)
		if (k->value == v) {
			snprintf(buf, len, "%s", k->name);
			return;
		}
	fmt_num(buf, len, v);
}

/*
 * The plain spellings only: [-]digits for an integer knob, and for a real
 * one [-]digits[.digits][e[+-]digits] (digits on at least one side of the
 * point). strtod alone would also take " 3", "0x10", "inf" and "nan".
 */
static bool plain_number(const char *s, bool integer, bool negative_ok)
{
	const char *p = s;
	bool digits = false;

	if (*p == '-') {
		if (!negative_ok)
			return false;
		p++;
	}
	while (*p >= '0' && *p <= '9') {
		p++;
		digits = true;
	}
	if (integer)
		return digits && *p == '\0';
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

int knob_parse_named(const struct knob_def *d, const struct knob_name *names, const char *text,
		     double *out, char *err, size_t len)
{
	char lo[32], hi[32], list[512], expect[sizeof list + 128];
	fmt_num(lo, sizeof lo, d->min);
	fmt_num(hi, sizeof hi, d->max);

	for (const struct knob_name *k = names; k && k->name; k++)
		if (strcasecmp(k->name, text) == 0) {
			*out = k->value;
			return 0;
		}
	if (names && names->name) {
		knob_names_list(names, list, sizeof list);
		snprintf(expect, sizeof expect, "a name (%s) or %s in [%s, %s]", list,
			 d->integer ? "an integer" : "a number", lo, hi);
	} else {
		snprintf(expect, sizeof expect, "%s in [%s, %s]",
			 d->integer ? "an integer" : "a number", lo, hi);
	}

	char *end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	bool numeric = end != text && *end == '\0' && errno != ERANGE && isfinite(v) &&
		       plain_number(text, false, d->min < 0);
	if (!numeric) {
		snprintf(err, len, "%s: '%s' is not %s (expected %s)", d->name, text,
			 names && names->name ? "a name or a number" : "a number", expect);
		return -1;
	}
	if (d->integer && (v != floor(v) || !plain_number(text, true, d->min < 0) ||
			   (text[0] == '-' && v == 0))) {
		snprintf(err, len, "%s: '%s' is not an integer (expected %s)", d->name, text,
			 expect);
		return -1;
	}
	if (v < d->min || v > d->max) {
		snprintf(err, len, "%s: %s is out of range [%s, %s]", d->name, text, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int knob_parse(const struct knob_def *d, const char *text, double *out, char *err, size_t len)
{
	return knob_parse_named(d, knob_names(NULL, d), text, out, err, len);
}

void knob_defaults(const struct knob_def *defs, size_t n, double *vals)
{
	for (size_t i = 0; i < n; i++)
		vals[i] = defs[i].def;
}
