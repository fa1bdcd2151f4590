/*
 * test_knob.c - knob and parameter values (core/knob.h): the strict number
 * syntax, and the names of every enumeration of every policy and workload.
 *
 * Every name of every enumerated knob parses to its value and prints back
 * as itself; every value is in range; no two names of one knob collide; a
 * wrong name is refused with a message that lists the names.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/knob.h"
#include "policies/policy.h"
#include "test.h"
#include "workloads/workload.h"

static const struct knob_def int_knob = { "budget", 128, 1, 65536, true, "test" };
static const struct knob_def real_knob = { "cap", 0.5, 0.001, 1, false, "test" };
static const struct knob_def neg_knob = { "shift", 0, -8, 8, true, "test" };
static const struct knob_def switch_knob = { "runnext", 1, 0, 1, true, "test" };

static bool parses(const struct knob_def *d, const char *text, double *v)
{
	char err[256];
	return knob_parse(d, text, v, err, sizeof err) == 0;
}

/* The spellings integer options refuse are refused for knobs too. */
static void check_strict_numbers(void)
{
	static const char *const bad_int[] = { "0x10", " 3", "3 ", "+3", "-0", "-3", "1e2",
					       "2.5", "3.", "", "nan", "inf", "1O", "0b1" };
	static const char *const bad_real[] = { "0x1p-2", " 0.5", "0.5 ", "inf", "nan", "-0",
						"-0.5", ".", "e3", "1e", "0.5x", "" };
	double v;

	for (size_t i = 0; i < sizeof bad_int / sizeof bad_int[0]; i++)
		if (parses(&int_knob, bad_int[i], &v))
			TEST_FAIL("integer knob accepted '%s' as %g", bad_int[i], v);
	for (size_t i = 0; i < sizeof bad_real / sizeof bad_real[0]; i++)
		if (parses(&real_knob, bad_real[i], &v))
			TEST_FAIL("real knob accepted '%s' as %g", bad_real[i], v);
	ASSERT(parses(&int_knob, "3", &v) && v == 3);
	ASSERT(parses(&int_knob, "065536", &v) && v == 65536);
	ASSERT(!parses(&int_knob, "65537", &v));
	ASSERT(parses(&real_knob, "0.25", &v) && v == 0.25);
	ASSERT(parses(&real_knob, ".25", &v) && v == 0.25);
	ASSERT(parses(&real_knob, "1", &v) && v == 1);
	ASSERT(parses(&real_knob, "2.5e-1", &v) && v == 0.25);
	ASSERT(parses(&real_knob, "25E-2", &v) && v == 0.25);
	/* A negative range takes a sign, but never "-0". */
	ASSERT(parses(&neg_knob, "-3", &v) && v == -3);
	ASSERT(!parses(&neg_knob, "-0", &v));
}

/* A 0..1 integer knob without names of its own is an on/off switch. */
static void check_onoff(void)
{
	double v;
	char buf[32];

	ASSERT(parses(&switch_knob, "off", &v) && v == 0);
	ASSERT(parses(&switch_knob, "ON", &v) && v == 1);
	ASSERT(parses(&switch_knob, "0", &v) && v == 0);
	ASSERT(!parses(&switch_knob, "yes", &v));
	knob_format(knob_names(NULL, &switch_knob), 0, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "off");
	ASSERT(knob_names(NULL, &int_knob) == NULL);
	ASSERT(knob_names(NULL, &real_knob) == NULL);
}

/*
 * One table's names: each parses to its value (any case) and prints back
 * as itself, within range, distinct; a wrong name's message lists them all.
 * Returns how many names were checked.
 */
static size_t check_names(const char *owner, const struct knob_def *defs, size_t n,
			  const struct knob_enum *enums)
{
	size_t checked = 0;

	for (const struct knob_enum *e = enums; e && e->knob; e++) {
		int k = knob_find(defs, n, e->knob);
		if (k < 0)
			TEST_FAIL("%s: names for '%s', which is not one of its knobs", owner,
				  e->knob);
		const struct knob_def *d = &defs[k];
		if (knob_names(enums, d) != e->names)
			TEST_FAIL("%s: knob_names does not find the names of %s", owner, d->name);
		for (const struct knob_name *a = e->names; a->name; a++) {
			char err[1024], upper[64], buf[64];
			double v = -1;
			if (knob_parse_named(d, e->names, a->name, &v, err, sizeof err) != 0 ||
			    v != a->value)
				TEST_FAIL("%s: %s=%s parsed as %g (%s)", owner, d->name, a->name, v,
					  err);
			snprintf(upper, sizeof upper, "%s", a->name);
			for (char *p = upper; *p; p++)
				*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
			if (knob_parse_named(d, e->names, upper, &v, err, sizeof err) != 0 ||
			    v != a->value)
				TEST_FAIL("%s: %s=%s (any case) refused", owner, d->name, upper);
			if (a->value < d->min || a->value > d->max)
				TEST_FAIL("%s: %s=%s is %g, outside [%g, %g]", owner, d->name,
					  a->name, a->value, d->min, d->max);
			knob_format(e->names, a->value, buf, sizeof buf);
			if (strcmp(buf, a->name) != 0)
				TEST_FAIL("%s: %s=%g prints as '%s', not '%s'", owner, d->name,
					  a->value, buf, a->name);
			for (const struct knob_name *b = e->names; b < a; b++)
				if (strcasecmp(a->name, b->name) == 0 || a->value == b->value)
					TEST_FAIL("%s: %s names '%s' and '%s' collide", owner,
						  d->name, a->name, b->name);
			checked++;
		}
		char err[1024];
		double v;
		if (knob_parse_named(d, e->names, "no-such-name", &v, err, sizeof err) == 0)
			TEST_FAIL("%s: %s accepted no-such-name", owner, d->name);
		for (const struct knob_name *a = e->names; a->name; a++)
			if (!strstr(err, a->name))
				TEST_FAIL("%s: the error '%s' does not list '%s'", owner, err, a->name);
	}
	return checked;
}

/* Every policy's and workload's names, and the enumerations the command
 * line documents by name: each must exist. */
static void check_every_table(void)
{
	static const struct {
		const char *owner, *knob, *name;
		double value;
	} documented[] = {
		{ "open-loop", "dist", "exponential", 1 },
		{ "open-loop", "dist", "lognormal", 4 },
		{ "uts", "preset", "T1", 4 },
		{ "uts", "type", "binomial", 0 },
		{ "uts", "shape", "cyclic", 2 },
		{ "spawn-many", "from", "outside", 1 },
		{ "sort", "corrupt", "swap", 1 },
		{ "static-partition", "routing", "random", 1 },
		{ "static-partition", "order", "lifo", 1 },
		{ "volt", "interval", "adaptive", 0 },
		{ "tokio", "interval", "adaptive", 0 },
		{ "fixed-interval-61", "interval", "adaptive", 0 },
		{ "locality", "topology", "numa", 2 },
		{ "central-queue", "wake", "last-searcher", 1 },
		{ "go", "runnext", "off", 0 },
	};
	size_t names = 0;

	for (size_t i = 0; i < policy_count(); i++) {
		const struct policy *p = policy_table[i];
		names += check_names(p->name, p->knobs, p->nknobs, p->knob_names);
	}
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload *wl = workload_table[i];
		names += check_names(wl->name, wl->params, wl->nparams, wl->param_names);
	}
	ASSERT(names >= 30);
	for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) {
		const struct knob_def *defs = NULL;
		const struct knob_enum *enums = NULL;
		size_t n = 0;
		const struct policy *p = policy_find(documented[i].owner);
		const struct workload *wl = workload_find(documented[i].owner);
		if (p) {
			defs = p->knobs, n = p->nknobs, enums = p->knob_names;
		} else if (wl) {
			defs = wl->params, n = wl->nparams, enums = wl->param_names;
		} else {
			TEST_FAIL("no policy or workload %s", documented[i].owner);
		}
		int k = knob_find(defs, n, documented[i].knob);
		if (k < 0)
			TEST_FAIL("%s has no knob %s", documented[i].owner, documented[i].knob);
		char err[1024];
		double v = -1;
		if (knob_parse_named(&defs[k], knob_names(enums, &defs[k]), documented[i].name, &v,
				     err, sizeof err) != 0 || v != documented[i].value)
			TEST_FAIL("%s: %s=%s gave %g (%s)", documented[i].owner, documented[i].knob,
				  documented[i].name, v, err);
	}
}

int main(void)
{
	RUN(check_strict_numbers);
	RUN(check_onoff);
	RUN(check_every_table);
	return 0;
}
