/*
 * cli.c - the command line (cli.h).
 *
 * Options are long only, as `--opt=value` or `--opt value`, matched exactly
 * (no abbreviations: a benchmark command line is copied into papers and
 * scripts, and an abbreviation that later becomes ambiguous would change its
 * meaning). Every error is reported as one line naming the valid choices,
 * so that a typo in a sweep script is obvious from the log.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/knob.h"
#include "policies/policy.h"
#include "harness/cli_opts.h"
#include "harness/costcache.h"
#include "harness/noise.h"
#include "harness/real.h"
#include "workloads/workload.h"

enum opt_id {
	OPT_POLICY,
	OPT_WORKLOAD,
	OPT_WORKERS,
	OPT_SET,
	OPT_PARAM,
	OPT_TRIALS,
	OPT_CI_TARGET,
	OPT_TRIALS_MAX,
	OPT_TRIALS_TIME,
	OPT_WARMUP,
	OPT_SEED,
	OPT_SAMPLE,
	OPT_HIST_DIGITS,
	OPT_WATCHDOG,
	OPT_ENGINE,
	OPT_EXPLORE,
	OPT_EXPLORE_SEED,
	OPT_COSTS,
	OPT_JSON,
	OPT_HDR,
	OPT_TRACE,
	OPT_TRACE_EVENTS,
	OPT_NO_JSON,
	OPT_JSON_INDENT,
	OPT_NO_BASELINE,
	OPT_PIN,
	OPT_NOISE,
	OPT_C2C_BAND,
	OPT_SPEED_BAND,
	OPT_LIST,
	OPT_PROBE_C2C,
	OPT_CALIBRATE,
	OPT_QUIET,
	OPT_CHECK,
	OPT_VERSION,
	OPT_HELP,
};

struct opt {
	const char *name;
	enum opt_id id;
	bool has_arg;
	bool repeatable;
	const char *arg;	/* for the usage text */
	const char *help;
};

static const struct opt opts[] = {
	{ "policy", OPT_POLICY, true, false, "SPEC[,SPEC...]|all",
	  "scheduling policy, a comma list, or all: several are compared in one run; "
	  "SPEC is NAME or NAME:KNOB=V[:KNOB=V...], a variant named NAME[KNOB=V,...]" },
	{ "workload", OPT_WORKLOAD, true, false, "NAME", "workload (see --list)" },
	{ "workers", OPT_WORKERS, true, false, "N",
	  "worker threads, 1..1024 (default: online CPUs)" },
	{ "set", OPT_SET, true, true, "[POLICY.]KNOB=V[,V...]",
	  "override a knob of every selected policy that has it, or of one (repeatable); "
	  "a list makes one variant per value" },
	{ "param", OPT_PARAM, true, true, "NAME=V[,V...]",
	  "set a workload parameter (repeatable); a list crosses every variant with each value" },
	{ "trials", OPT_TRIALS, true, false, "N|auto",
	  "measured trials, 1..1000 (default 5); auto: until the median makespan's 95% interval "
	  "is within --ci-target (at least " CLI_STR(CLI_AUTO_MIN_TRIALS) ", at most --trials-max)" },
	{ "ci-target", OPT_CI_TARGET, true, false, "PCT",
	  "--trials auto's target: the interval's half-width in percent of the median, above 0 "
	  "and below 100 (default " CLI_STR(CLI_AUTO_CI_TARGET_PCT) "%); implies --trials auto" },
	{ "trials-max", OPT_TRIALS_MAX, true, false, "N",
	  "--trials auto: the most measured trials per configuration, " CLI_STR(CLI_AUTO_MIN_TRIALS)
	  "..1000 (default " CLI_STR(CLI_AUTO_MAX_TRIALS) ")" },
	{ "trials-time", OPT_TRIALS_TIME, true, false, "SEC",
	  "--trials auto: start no further round of trials once SEC seconds of wall time have "
	  "passed since the run began (default: no limit)" },
	{ "warmup", OPT_WARMUP, true, false, "N", "discarded warm-up trials, 0..100 (default 1)" },
	{ "seed", OPT_SEED, true, false, "N", "base seed, any 64-bit unsigned (default 1)" },
	{ "sample", OPT_SAMPLE, true, false, "N",
	  "sample sched delay of 1 in N local schedules, a power of two, 0 = off "
	  "(default: the workload's)" },
	{ "hist-digits", OPT_HIST_DIGITS, true, false, "N",
	  "histogram significant digits, 1..5 (default 3)" },
	{ "engine", OPT_ENGINE, true, false, "threads|sim|real",
	  "threads: one pthread per worker (default); sim: virtual workers in virtual time, "
	  "deterministic, any count; real: the real runtime the policy models, through its "
	  "peer program (tokio-1.28: Tokio, go: Go, rayon: Rayon; tbb: oneTBB, which has no "
	  "model; peers/README.md)" },
	{ "explore", OPT_EXPLORE, true, false, "N",
	  "sim: N runs with different tie-break seeds, checking every step; report the first "
	  "lost task, double run, stall or broken invariant (idle protocol, ring) with its seed" },
	{ "explore-seed", OPT_EXPLORE_SEED, true, false, "S",
	  "sim: one exploring run with tie-break seed S (reproduces an --explore finding)" },
	{ "costs", OPT_COSTS, true, false, "PATH",
	  "sim: load mechanism costs (NAME = ns lines) before --set cost.NAME=ns; auto: this "
	  "machine's calibration from --calibrate auto (error if there is none)" },
	{ "watchdog", OPT_WATCHDOG, true, false, "SEC",
	  "stop a run in which no task completes for SEC seconds, report its state, exit 3; "
	  "0 = off (default 30)" },
	{ "json", OPT_JSON, true, false, "PATH",
	  "result file, - for stdout (default: a new file under ./results; with several "
	  "policies PATH.EXT stands for PATH.<policy>.EXT)" },
	{ "no-json", OPT_NO_JSON, false, false, NULL, "write no result file" },
	{ "json-indent", OPT_JSON_INDENT, false, false, NULL,
	  "indent the result file by 2 spaces a level (default: compact, one line)" },
	{ "trace", OPT_TRACE, true, false, "PATH",
	  "write the first measured trial's timeline (polls, ticks with steals, parks) as "
	  "Chrome trace events for Perfetto (with several policies: PATH.<policy>.EXT)" },
	{ "trace-events", OPT_TRACE_EVENTS, true, false, "N",
	  "most events recorded per worker for --trace, 1..10000000 (default 100000)" },
	{ "hdr", OPT_HDR, true, false, "PATH",
	  "also write the latency histogram (end-to-end for request workloads, else "
	  "scheduling delay) as an HdrHistogram percentile distribution in us "
	  "(with several policies: PATH.<policy>.EXT)" },
	{ "no-baseline", OPT_NO_BASELINE, false, false, NULL, "skip the sequential baseline" },
	{ "noise", OPT_NOISE, true, false, "report|drop|retry",
	  "threads: trials flagged noisy (involuntary switches, migrations, OS or host time "
	  "taken, round trip or compute speed moved; docs/measuring.md) are reported "
	  "(default), left out of "
	  "the medians, or run again (up to 2 times each)" },
	{ "c2c-band", OPT_C2C_BAND, true, false, "LO..HI",
	  "threads: keep the trials in one core-to-core regime: wait up to 0.5 s before a "
	  "trial for a round trip in [LO, HI] ns, and run a trial whose round trip before "
	  "or after lies outside again, up to 4 times (the last is kept, flagged); at most "
	  "10 s of a process goes to this" },
	{ "speed-band", OPT_SPEED_BAND, true, false, "LO..HI",
	  "threads: keep the trials at one compute speed, as --c2c-band keeps them in one "
	  "round-trip regime: the compute probe (a recursive fib(17), median of 9, in ns, "
	  "on the CPU of each of the first two workers, the slower) before and "
	  "after each trial must lie in [LO, HI], with the same waits and re-runs (the two "
	  "share the 10 s)" },
	{ "pin", OPT_PIN, true, false, "none|compact|scatter|list:CPU,...",
	  "threads: pin worker i to a CPU of the machine's topology (hwloc): compact fills "
	  "physical cores before SMT siblings, scatter spreads over packages and L3 domains, "
	  "list takes the CPUs given (default: compact when the workers fit on physical "
	  "cores, else none with a warning)" },
	{ "list", OPT_LIST, false, false, NULL, "list policies, knobs, workloads, parameters" },
	{ "probe-c2c", OPT_PROBE_C2C, false, false, NULL,
	  "print the core-to-core round trip (CPU 0 <-> 1) and exit" },
	{ "calibrate", OPT_CALIBRATE, true, false, "PATH",
	  "measure the sim costs and the workloads' work on this machine, write them to PATH "
	  "(for --costs) and exit; auto: this machine's cache entry (for --costs auto)" },
	{ "quiet", OPT_QUIET, false, false, NULL,
	  "print only errors and stall reports: no progress, no summary" },
	{ "check", OPT_CHECK, false, false, NULL,
	  "validate the whole command line (names, ranges, the policy's and workload's own "
	  "checks), print the variants it would run and exit without running (sweep.py checks "
	  "a grid this way)" },
	{ "version", OPT_VERSION, false, false, NULL, "print the version and git revision, exit" },
	{ "help", OPT_HELP, false, false, NULL, "this text (also -h)" },
};

#define NOPTS (sizeof opts / sizeof opts[0])
_Static_assert(NOPTS <= 64, "cli.seen has one bit per option");

/* A bounded string builder for the "(valid: a, b, c)" lists. */
struct sbuf {
	char *p;
	size_t len, off;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->off >= b->len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->off, b->len - b->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->off += (size_t)n;
}

static void valid_policies(char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	buf[0] = '\0';
	for (size_t i = 0; i < policy_count(); i++)
		sb_add(&b, "%s%s", i ? ", " : "", policy_table[i]->name);
	for (size_t i = 0; policy_real_only[i]; i++)
		sb_add(&b, ", %s (--engine=real only)", policy_real_only[i]->name);
}

static void valid_workloads(char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	buf[0] = '\0';
	for (size_t i = 0; i < workload_count(); i++)
		sb_add(&b, "%s%s", i ? ", " : "", workload_table[i]->name);
}

static void valid_knobs(const struct knob_def *defs, size_t n, char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	buf[0] = '\0';
	if (n == 0)
		sb_add(&b, "none");
	for (size_t i = 0; i < n; i++)
		sb_add(&b, "%s%s", i ? ", " : "", defs[i].name);
}

static void valid_options(char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	buf[0] = '\0';
	for (size_t i = 0; i < NOPTS; i++)
		sb_add(&b, "%s--%s", i ? ", " : "", opts[i].name);
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A decimal integer in [lo, hi]; no sign, no spaces, no trailing text. */
static int parse_uint(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out,
		      char *err, size_t len)
{
	char *end = NULL;
	unsigned long long v;

	if (!isdigit((unsigned char)text[0]))
		goto not_int;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end != '\0')
		goto not_int;
	if (errno == ERANGE || v < lo || v > hi)
		return fail(err, len, "--%s: %s is out of range [%" PRIu64 ", %" PRIu64 "]",
			    opt, text, lo, hi);
	*out = v;
	return 0;
not_int:
	return fail(err, len, "--%s: '%s' is not an integer (expected an integer in [%" PRIu64
		    ", %" PRIu64 "])", opt, text, lo, hi);
}

static int parse_u32(const char *opt, const char *text, uint32_t lo, uint32_t hi, uint32_t *out,
		     char *err, size_t len)
{
	uint64_t v;
	int rc = parse_uint(opt, text, lo, hi, &v, err, len);
	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

/* --trials-time: seconds, a real number above 0 and at most a week. */
static int parse_seconds(const char *opt, const char *v, double *out, char *err, size_t len)
{
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	if (end == v || *end != '\0' || errno || !(s > 0 && s <= 604800) || v[0] == ' ')
		return fail(err, len, "bad --%s '%s': seconds above 0 and at most 604800, e.g. 60",
			    opt, v);
	*out = s;
	return 0;
}

/* --c2c-band or --speed-band (`opt`) LO..HI: ns, 0 < LO < HI <= 10^6. */
static int parse_band(const char *opt, const char *v, double *lo, double *hi, char *err,
		      size_t len)
{
	const char *dots = strstr(v, "..");
	char a_text[64];
	double a = NAN, b = NAN;
	if (dots && (size_t)(dots - v) < sizeof a_text && v[0] != ' ' && dots[2] != ' ') {
		char *end;
		memcpy(a_text, v, (size_t)(dots - v));
		a_text[dots - v] = '\0';
		errno = 0;
		a = strtod(a_text, &end);
		if (end == a_text || *end != '\0')
			a = NAN;
		b = strtod(dots + 2, &end);
		if (end == dots + 2 || *end != '\0' || errno)
			b = NAN;
	}
	if (!(a > 0 && a < b && b <= 1e6))
		return fail(err, len, "bad --%s '%s': LO..HI in ns, 0 < LO < HI <= 1000000, "
				      "e.g. %s", opt, v, strcmp(opt, "c2c-band") == 0 ? "45..115" : "3800..4400");
	*lo = a;
	*hi = b;
	return 0;
}

/* --ci-target PCT: a percentage ("2", "2%", "0.5%") above 0 and below 100,
 * kept as a fraction. */
static int parse_ci_target(const char *v, double *out, char *err, size_t len)
{
	char *end;
	errno = 0;
	double pct = strtod(v, &end);
	if (end != v && *end == '%')
		end++;
	if (end == v || *end != '\0' || errno || !(pct > 0 && pct < 100))
		return fail(err, len, "bad --ci-target '%s': a percentage above 0 and below 100, "
				      "e.g. 2%%", v);
	*out = pct / 100;
	return 0;
}

/* A spec's own `knob=value`, checked against its policy's knob table. */
static int add_own(struct cli_policy *sp, char *kv, char *err, size_t len)
{
	const struct policy *p = sp->policy;
	char *eq = strchr(kv, '=');

	if (!eq || eq == kv || eq[1] == '\0')
		return fail(err, len, "policy %s: expected KNOB=VALUE, got '%s'", p->name, kv);
	*eq = '\0';
	if (knob_find(p->knobs, p->nknobs, kv) < 0) {
		char valid[512];
		valid_knobs(p->knobs, p->nknobs, valid, sizeof valid);
		return fail(err, len, "unknown knob '%s' for policy %s (valid: %s)", kv, p->name,
			    valid);
	}
	if (strlen(kv) >= CLI_NAME_MAX)
		return fail(err, len, "policy %s: knob name '%s' is too long", p->name, kv);
	for (size_t i = 0; i < sp->nown; i++)
		if (strcmp(sp->own[i].name, kv) == 0)
			return fail(err, len, "policy %s: knob '%s' given twice", p->name, kv);
	if (sp->nown == CLI_MAX_OWN)
		return fail(err, len, "policy %s: more than %d knobs in one spec", p->name,
			    CLI_MAX_OWN);
	snprintf(sp->own[sp->nown].name, CLI_NAME_MAX, "%s", kv);
	sp->own[sp->nown++].value = eq + 1;
	return 0;
}

static int add_spec(struct cli *c, const struct policy *p, char *err, size_t len)
{
	if (c->nspecs == CLI_MAX_POLICIES)
		return fail(err, len, "more than %d policies", CLI_MAX_POLICIES);
	c->specs[c->nspecs] = (struct cli_policy){ .policy = p };
	c->nspecs++;
	return 0;
}

/*
 * One spec, split in place: NAME, NAME:KNOB=V[:KNOB=V...], or the printed
 * form of a variant, NAME[KNOB=V,...] (so a name from a table can be pasted
 * back).
 */
static int parse_spec(struct cli *c, char *spec, char *err, size_t len)
{
	char *bracket = strchr(spec, '['), *colon = strchr(spec, ':');
	char *knobs = NULL, sep = ':';
	int rc;

	if (bracket && (!colon || bracket < colon)) {
		size_t n = strlen(bracket);
		if (n < 3 || bracket[n - 1] != ']')
			return fail(err, len, "bad policy spec '%s' (NAME[KNOB=V,...] needs a "
				    "closing ] and at least one knob)", spec);
		bracket[n - 1] = '\0';
		*bracket = '\0';
		knobs = bracket + 1;
		sep = ',';
	} else if (colon) {
		*colon = '\0';
		knobs = colon + 1;
	}
	const struct policy *pol = policy_find(spec);
	if (!pol)
		pol = policy_find_real_only(spec);	/* refused by run_checks but for real */
	if (!pol) {
		char valid[512];
		valid_policies(valid, sizeof valid);
		return fail(err, len, "unknown policy '%s' (valid: %s, or all)", spec, valid);
	}
	if ((rc = add_spec(c, pol, err, len)))
		return rc;
	while (knobs) {
		char *next = strchr(knobs, sep);
		if (next)
			*next++ = '\0';
		if ((rc = add_own(&c->specs[c->nspecs - 1], knobs, err, len)))
			return rc;
		knobs = next;
	}
	return 0;
}

/*
 * SPEC, a comma-separated list of specs (commas inside [...] belong to the
 * spec), or `all` (every policy that is not a test-only variant), in the
 * order given. The same policy may appear several times with different
 * knobs; identical variants are refused once the knobs are resolved.
 */
static int parse_policies(struct cli *c, const char *text, char *err, size_t len)
{
	int rc;

	c->nspecs = 0;
	if (strcmp(text, "all") == 0) {
		for (size_t i = 0; policy_table[i]; i++)
			if (!policy_table[i]->test_only && (rc = add_spec(c, policy_table[i], err, len)))
				return rc;
		return 0;
	}
	free(c->spec_text);
	c->spec_text = strdup(text);
	if (!c->spec_text)
		return fail(err, len, "out of memory");
	char *p = c->spec_text;
	for (;;) {
		char *end = p;
		int depth = 0;
		while (*end && (*end != ',' || depth > 0)) {
			depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
			end++;
		}
		bool last = *end == '\0';
		*end = '\0';
		if (*p == '\0' || depth != 0)
			return fail(err, len, "bad policy list '%s' (specs NAME or NAME:KNOB=V "
				    "separated by commas, or all)", text);
		if ((rc = parse_spec(c, p, err, len)))
			return rc;
		if (last)
			return 0;
		p = end + 1;
	}
}

static int parse_workload(struct cli *c, const char *text, char *err, size_t len)
{
	c->wl = workload_find(text);
	if (!c->wl) {
		char valid[512];
		valid_workloads(valid, sizeof valid);
		return fail(err, len, "unknown workload '%s' (valid: %s)", text, valid);
	}
	return 0;
}

/* Record `name=value` for resolution once the policy and workload are known
 * (they may come later on the command line). */
static int add_assign(struct cli_assign *list, size_t *n, const char *opt, const char *what,
		      const char *text, char *err, size_t len)
{
	const char *eq = strchr(text, '=');
	size_t nlen = eq ? (size_t)(eq - text) : 0;

	if (!eq || nlen == 0 || eq[1] == '\0')
		return fail(err, len, "--%s expects NAME=VALUE, got '%s'", opt, text);
	if (nlen >= CLI_NAME_MAX)
		return fail(err, len, "--%s: %s name '%.*s' is too long", opt, what,
			    (int)nlen, text);
	if (*n == CLI_MAX_ASSIGN)
		return fail(err, len, "--%s given more than %d times", opt, CLI_MAX_ASSIGN);
	for (size_t i = 0; i < *n; i++)
		if (strlen(list[i].name) == nlen && strncmp(list[i].name, text, nlen) == 0)
			return fail(err, len, "%s '%.*s' given twice", what, (int)nlen, text);
	memcpy(list[*n].name, text, nlen);
	list[*n].name[nlen] = '\0';
	list[*n].value = eq + 1;
	(*n)++;
	return 0;
}

/* `--set KNOB=A,B,C`: the values, each non-empty, in the order given. */
static int split_list(struct cli_list *l, const char *opt, const char *name, const char *value,
		      char *err, size_t len)
{
	l->buf = strdup(value);
	l->n = 0;
	if (!l->buf)
		return fail(err, len, "out of memory");
	for (char *p = l->buf;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (*p == '\0')
			return fail(err, len, "--%s %s=%s: empty value in the list", opt, name,
				    value);
		if (l->n == CLI_MAX_LIST)
			return fail(err, len, "--%s %s: more than %d values", opt, name,
				    CLI_MAX_LIST);
		for (size_t i = 0; i < l->n; i++)
			if (strcmp(l->items[i], p) == 0)
				return fail(err, len, "--%s %s: value '%s' given twice", opt, name, p);
		l->items[l->n++] = p;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int apply_opt(struct cli *c, const struct opt *o, const char *v, char *err, size_t len)
{
	uint64_t u;
	int rc;

	switch (o->id) {
	case OPT_POLICY:
		return parse_policies(c, v, err, len);
	case OPT_WORKLOAD:
		return parse_workload(c, v, err, len);
	case OPT_WORKERS:
		return parse_u32(o->name, v, 1, CLI_MAX_WORKERS, &c->workers, err, len);
	case OPT_SET:
		rc = add_assign(c->sets, &c->nsets, o->name, "knob", v, err, len);
		if (rc == 0 && strchr(v, ','))
			rc = split_list(&c->set_lists[c->nsets - 1], o->name, c->sets[c->nsets - 1].name,
					c->sets[c->nsets - 1].value, err, len);
		return rc;
	case OPT_PARAM:
		rc = add_assign(c->param_args, &c->nparam_args, o->name, "parameter", v, err, len);
		if (rc == 0 && strchr(v, ','))
			rc = split_list(&c->param_lists[c->nparam_args - 1], o->name,
					c->param_args[c->nparam_args - 1].name,
					c->param_args[c->nparam_args - 1].value, err, len);
		return rc;
	case OPT_TRIALS:
		if (strcmp(v, "auto") == 0) {
			c->trials_auto = true;
			return 0;
		}
		return parse_u32(o->name, v, 1, 1000, &c->trials, err, len);
	case OPT_CI_TARGET:
		return parse_ci_target(v, &c->ci_target, err, len);
	case OPT_TRIALS_MAX:
		return parse_u32(o->name, v, CLI_AUTO_MIN_TRIALS, 1000, &c->trials_max, err, len);
	case OPT_TRIALS_TIME:
		return parse_seconds(o->name, v, &c->trials_time_s, err, len);
	case OPT_WARMUP:
		return parse_u32(o->name, v, 0, 100, &c->warmup, err, len);
	case OPT_SEED:
		return parse_uint(o->name, v, 0, UINT64_MAX, &c->seed, err, len);
	case OPT_SAMPLE:
		rc = parse_u32(o->name, v, 0, 1u << 31, &c->sample_period, err, len);
		if (rc)
			return rc;
		if ((c->sample_period & (c->sample_period - 1)) != 0)
			return fail(err, len, "--sample: %s is not a power of two (0 = off)", v);
		c->sample_given = true;
		return 0;
	case OPT_HIST_DIGITS:
		rc = parse_uint(o->name, v, 1, 5, &u, err, len);
		if (rc == 0)
			c->hist_digits = (int)u;
		return rc;
	case OPT_ENGINE:
		c->sim = strcmp(v, "sim") == 0;
		c->real = strcmp(v, "real") == 0;
		if (!c->sim && !c->real && strcmp(v, "threads") != 0)
			return fail(err, len, "unknown engine '%s' (valid: threads, sim, real)", v);
		return 0;
	case OPT_EXPLORE:
		return parse_u32(o->name, v, 1, 1000000, &c->explore, err, len);
	case OPT_EXPLORE_SEED:
		c->explore_seed_given = true;
		return parse_uint(o->name, v, 1, UINT64_MAX, &c->explore_seed, err, len);
	case OPT_COSTS:
		if (v[0] == '\0')
			return fail(err, len, "--costs needs a non-empty path");
		c->costs_path = v;
		return 0;
	case OPT_WATCHDOG: {
		uint64_t sec;
		rc = parse_uint(o->name, v, 0, 86400, &sec, err, len);
		if (rc == 0)
			c->watchdog_ns = sec * 1000000000ull;
		return rc;
	}
	case OPT_JSON:
		if (v[0] == '\0')
			return fail(err, len, "--json needs a non-empty path");
		c->json_path = v;
		return 0;
	case OPT_NO_JSON:
		c->no_json = true;
		return 0;
	case OPT_JSON_INDENT:
		c->json_indent = true;
		return 0;
	case OPT_TRACE:
		if (v[0] == '\0')
			return fail(err, len, "--trace needs a non-empty path");
		c->trace_path = v;
		return 0;
	case OPT_TRACE_EVENTS:
		return parse_u32(o->name, v, 1, 10000000, &c->trace_events, err, len);
	case OPT_HDR:
		if (v[0] == '\0')
			return fail(err, len, "--hdr needs a non-empty path");
		c->hdr_path = v;
		return 0;
	case OPT_NO_BASELINE:
		c->no_baseline = true;
		return 0;
	case OPT_NOISE:
		if (strcmp(v, "report") == 0)
			c->noise_mode = NOISE_REPORT;
		else if (strcmp(v, "drop") == 0)
			c->noise_mode = NOISE_DROP;
		else if (strcmp(v, "retry") == 0)
			c->noise_mode = NOISE_RETRY;
		else
			return fail(err, len, "unknown --noise '%s' (valid: report, drop, retry)", v);
		return 0;
	case OPT_C2C_BAND:
		return parse_band("c2c-band", v, &c->c2c_lo, &c->c2c_hi, err, len);
	case OPT_SPEED_BAND:
		return parse_band("speed-band", v, &c->speed_lo, &c->speed_hi, err, len);
	case OPT_PIN:
		return topo_parse_pin(v, &c->pin, c->pin_list, CLI_MAX_WORKERS, &c->npin, err, len)
			       ? -EINVAL
			       : 0;
	case OPT_LIST:
		c->list = true;
		return 0;
	case OPT_PROBE_C2C:
		c->probe_c2c = true;
		return 0;
	case OPT_CALIBRATE:
		if (v[0] == '\0')
			return fail(err, len, "--calibrate needs a non-empty path");
		c->calibrate_path = v;
		return 0;
	case OPT_QUIET:
		c->quiet = true;
		return 0;
	case OPT_CHECK:
		c->check = true;
		return 0;
	case OPT_VERSION:
		c->version = true;
		return 0;
	case OPT_HELP:
		c->help = true;
		return 0;
	}
	return fail(err, len, "internal error: option --%s not handled", o->name);
}

static const struct opt *find_opt(const char *name, size_t nlen)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opts[i].name) == nlen && strncmp(opts[i].name, name, nlen) == 0)
			return &opts[i];
	return NULL;
}

/* One argv element (and its value, which may be the next element). */
static int parse_one(struct cli *c, int argc, char **argv, int *i, char *err, size_t len)
{
	const char *a = argv[*i];
	const char *eq, *v = NULL;
	const struct opt *o;

	if (strcmp(a, "-h") == 0) {
		c->help = true;
		return 0;
	}
	if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
		return fail(err, len,
			    "unexpected argument '%s' (options are --name=value; see --help)", a);
	eq = strchr(a, '=');
	o = find_opt(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
	if (!o) {
		char valid[512];
		valid_options(valid, sizeof valid);
		return fail(err, len, "unknown option '%.*s' (valid: %s)",
			    eq ? (int)(eq - a) : (int)strlen(a), a, valid);
	}
	if (o->has_arg) {
		if (eq)
			v = eq + 1;
		else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0)
			v = argv[++*i];
		else
			return fail(err, len, "option --%s needs a value", o->name);
	} else if (eq) {
		return fail(err, len, "option --%s takes no value", o->name);
	}
	if (!o->repeatable) {
		uint64_t bit = 1ull << (o - opts);
		if (c->seen & bit)
			return fail(err, len, "option --%s given twice", o->name);
		c->seen |= bit;
	}
	return apply_opt(c, o, v, err, len);
}

/*
 * --set KNOB=V applies to every selected policy that has KNOB; --set
 * POLICY.KNOB=V to that policy only. Each must apply somewhere.
 */
static const char *set_target(const char *name, const struct policy *p)
{
	size_t n = strlen(p->name);
	if (strncmp(name, p->name, n) == 0 && name[n] == '.')
		return name + n + 1;
	return strchr(name, '.') ? NULL : name;
}

/* --set cost.NAME=ns: a simulation cost, not a policy knob. */
static int apply_cost_sets(struct cli *c, char *err, size_t len)
{
	sim_costs_default(&c->costs);
	if (c->costs_path && strcmp(c->costs_path, "auto") == 0) {
		char why[512];
		if (costcache_path(c->costs_file, sizeof c->costs_file, false, why, sizeof why))
			return fail(err, len, "--costs auto: %s", why);
		if (access(c->costs_file, F_OK) != 0) {
			char host[64], cpu[128];
			costcache_machine(host, sizeof host, cpu, sizeof cpu);
			return fail(err, len, "--costs auto: no calibration of this machine (host %s, "
				    "CPU %s) at %s; make one with harness --calibrate auto", host,
				    cpu, c->costs_file);
		}
	} else if (c->costs_path) {
		snprintf(c->costs_file, sizeof c->costs_file, "%s", c->costs_path);
	}
	if (c->costs_path) {
		struct stat st;
		if (sim_costs_load(&c->costs, c->costs_file, err, len))
			return -EINVAL;
		c->costs_age_s = stat(c->costs_file, &st) == 0 ?
					 difftime(time(NULL), st.st_mtime) : 0;
	}
	for (size_t i = 0; i < c->nsets; i++) {
		if (strncmp(c->sets[i].name, "cost.", 5) != 0)
			continue;
		uint64_t ns;
		if (sim_cost_parse_for(c->sets[i].name + 5, c->sets[i].value, &ns))
			return fail(err, len, "--set %s: '%s' is not a whole number of ns in %s",
				    c->sets[i].name, c->sets[i].value,
				    sim_cost_range(c->sets[i].name + 5));
		if (sim_costs_set(&c->costs, c->sets[i].name + 5, ns)) {
			char names[512];
			sim_costs_names(names, sizeof names);
			return fail(err, len, "unknown cost '%s' (valid: %s)", c->sets[i].name + 5,
				    names);
		}
	}
	/* A work.NAME cost is a workload's: NAME must be one. */
	for (uint32_t i = 0; i < c->costs.nwork; i++)
		if (!workload_find(c->costs.works[i].name)) {
			char valid[512];
			valid_workloads(valid, sizeof valid);
			return fail(err, len, "cost work.%s: no workload %s (valid: %s)",
				    c->costs.works[i].name, c->costs.works[i].name, valid);
		}
	/* A poll.NAME cost is a policy's: NAME must be one. */
	for (uint32_t i = 0; i < c->costs.npolicy; i++)
		if (!policy_find(c->costs.policies[i].name)) {
			char valid[512];
			valid_policies(valid, sizeof valid);
			return fail(err, len, "cost poll.%s: no policy %s (valid: %s)",
				    c->costs.policies[i].name, c->costs.policies[i].name, valid);
		}
	sim_costs_use_work(&c->costs, c->wl->name, c->wl->work_per_spawn);
	return 0;
}

static int check_sets(struct cli *c, char *err, size_t len)
{
	for (size_t i = 0; i < c->nsets; i++) {
		bool used = false;
		if (strncmp(c->sets[i].name, "cost.", 5) == 0) {
			if (!c->sim)
				return fail(err, len, "--set %s: costs apply to --engine=sim only",
					    c->sets[i].name);
			if (c->set_lists[i].n)
				return fail(err, len, "--set %s: one value per cost (lists are for "
					    "policy knobs)", c->sets[i].name);
			continue;
		}
		for (size_t j = 0; j < c->nspecs && !used; j++) {
			const struct policy *p = c->specs[j].policy;
			const char *k = set_target(c->sets[i].name, p);
			used = k && knob_find(p->knobs, p->nknobs, k) >= 0;
		}
		if (used)
			continue;
		if (c->nspecs == 1) {
			const struct policy *p = c->specs[0].policy;
			char valid[512];
			valid_knobs(p->knobs, p->nknobs, valid, sizeof valid);
			return fail(err, len, "unknown knob '%s' for policy %s (valid: %s)",
				    c->sets[i].name, p->name, valid);
		}
		return fail(err, len,
			    "knob '%s' belongs to none of the selected policies (see --list; "
			    "POLICY.KNOB targets one)", c->sets[i].name);
	}
	return 0;
}

/* Defaults, then every single-valued --set for this policy, then the
 * variant's own knobs (its spec's and its crossed list values). */
static int resolve_knobs(struct cli *c, struct cli_policy *cp, char *err, size_t len)
{
	const struct policy *p = cp->policy;
	char why[256];

	cp->knobs = calloc(p->nknobs ? p->nknobs : 1, sizeof *cp->knobs);
	if (!cp->knobs) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	knob_defaults(p->knobs, p->nknobs, cp->knobs);
	for (size_t i = 0; i < c->nsets; i++) {
		const char *name = set_target(c->sets[i].name, p);
		int k = name ? knob_find(p->knobs, p->nknobs, name) : -1;
		if (k < 0 || c->set_lists[i].n)
			continue;	/* another selected policy's knob, or a crossed list */
		if (knob_parse_named(&p->knobs[k], knob_names(p->knob_names, &p->knobs[k]),
				     c->sets[i].value, &cp->knobs[k], why, sizeof why))
			return fail(err, len, "policy %s: %s", p->name, why);
	}
	for (size_t i = 0; i < cp->nown; i++) {
		int k = knob_find(p->knobs, p->nknobs, cp->own[i].name);
		if (knob_parse_named(&p->knobs[k], knob_names(p->knob_names, &p->knobs[k]),
				     cp->own[i].value, &cp->knobs[k], why, sizeof why))
			return fail(err, len, "policy %s: %s", cp->name, why);
	}
	return 0;
}

/* `volt`, or `volt[lifo_cap=0,interval=61]` from the variant's own knobs,
 * then its crossed parameters: `volt[lifo_cap=0] load=0.5`. */
static int name_variant(struct cli_policy *v, char *err, size_t len)
{
	struct sbuf b = { v->name, sizeof v->name, 0 };

	sb_add(&b, "%s", v->policy->name);
	for (size_t i = 0; i < v->nown; i++)
		sb_add(&b, "%s%s=%s", i ? "," : "[", v->own[i].name, v->own[i].value);
	if (v->nown)
		sb_add(&b, "]");
	for (size_t i = 0; i < v->npown; i++)
		sb_add(&b, " %s=%s", v->pown[i].name, v->pown[i].value);
	if (b.off >= b.len)
		return fail(err, len, "variant name '%.40s...' is too long", v->name);
	return 0;
}

static bool owns(const struct cli_policy *sp, const char *knob)
{
	for (size_t i = 0; i < sp->nown; i++)
		if (strcmp(sp->own[i].name, knob) == 0)
			return true;
	return false;
}

/*
 * Every variant crossed with the --param lists: each variant once per
 * combination of parameter values, the first list varying slowest and the
 * variants in order within a combination: volt load=0.5, tokio load=0.5,
 * volt load=0.7, tokio load=0.7.
 */
static int cross_params(struct cli *c, char *err, size_t len)
{
	size_t lists[CLI_MAX_ASSIGN], nl = 0, combos = 1;

	for (size_t i = 0; i < c->nparam_args; i++) {
		if (!c->param_lists[i].n)
			continue;
		lists[nl++] = i;
		combos *= c->param_lists[i].n;
		if (combos > CLI_MAX_POLICIES)
			break;
	}
	if (nl == 0)
		return 0;
	if (combos * c->npolicies > CLI_MAX_POLICIES)
		return fail(err, len, "the variants crossed with the --param lists make more than %d "
			    "runs in one process", CLI_MAX_POLICIES);
	size_t nv = c->npolicies;
	struct cli_policy *base = malloc(nv * sizeof *base);
	if (!base)
		return fail(err, len, "out of memory");
	memcpy(base, c->policies, nv * sizeof *base);
	c->npolicies = 0;
	for (size_t n = 0; n < combos; n++) {
		for (size_t b = 0; b < nv; b++) {
			struct cli_policy *v = &c->policies[c->npolicies++];
			size_t rest = n;
			*v = base[b];
			if (nl > CLI_MAX_OWN) {
				free(base);
				return fail(err, len, "more than %d --param lists", CLI_MAX_OWN);
			}
			for (size_t j = nl; j-- > 0;) {
				const struct cli_list *l = &c->param_lists[lists[j]];
				snprintf(v->pown[j].name, sizeof v->pown[j].name, "%s",
					 c->param_args[lists[j]].name);
				v->pown[j].value = l->items[rest % l->n];
				rest /= l->n;
			}
			v->npown = nl;
			int rc = name_variant(v, err, len);
			if (rc) {
				free(base);
				return rc;
			}
		}
	}
	free(base);
	return 0;
}

/*
 * Every spec crossed with the --set lists that apply to it (its policy has
 * the knob and the spec does not set it itself): one variant per
 * combination, the first list varying slowest.
 */
static int expand_variants(struct cli *c, char *err, size_t len)
{
	bool crossed[CLI_MAX_ASSIGN] = { false };

	c->npolicies = 0;
	for (size_t s = 0; s < c->nspecs; s++) {
		const struct cli_policy *sp = &c->specs[s];
		const struct policy *p = sp->policy;
		size_t lists[CLI_MAX_ASSIGN], nl = 0, combos = 1;
		const char *knob[CLI_MAX_ASSIGN];

		for (size_t i = 0; i < c->nsets; i++) {
			const char *k = set_target(c->sets[i].name, p);
			if (!c->set_lists[i].n || !k || knob_find(p->knobs, p->nknobs, k) < 0 ||
			    owns(sp, k))
				continue;
			crossed[i] = true;
			knob[nl] = k;
			lists[nl++] = i;
			combos *= c->set_lists[i].n;
			if (combos > CLI_MAX_POLICIES)
				break;
		}
		if (combos > CLI_MAX_POLICIES || c->npolicies + combos > CLI_MAX_POLICIES)
			return fail(err, len, "the --policy specs crossed with the --set lists make "
				    "more than %d variants", CLI_MAX_POLICIES);
		for (size_t n = 0; n < combos; n++) {
			struct cli_policy *v = &c->policies[c->npolicies++];
			size_t rest = n;

			*v = *sp;
			v->knobs = NULL;
			if (v->nown + nl > CLI_MAX_OWN)
				return fail(err, len, "policy %s: more than %d knobs in one variant",
					    p->name, CLI_MAX_OWN);
			for (size_t j = nl; j-- > 0;) {
				const struct cli_list *l = &c->set_lists[lists[j]];
				struct cli_assign *a = &v->own[v->nown + j];
				snprintf(a->name, sizeof a->name, "%s", knob[j]);
				a->value = l->items[rest % l->n];
				rest /= l->n;
			}
			v->nown += nl;
			int rc = name_variant(v, err, len);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < c->nsets; i++)
		if (c->set_lists[i].n && !crossed[i] && strncmp(c->sets[i].name, "cost.", 5))
			return fail(err, len, "--set %s: the list crosses no variant (each spec with "
				    "this knob sets it itself)", c->sets[i].name);
	return cross_params(c, err, len);
}

/* Two variants with the same policy and knob values would measure the same
 * thing twice under two names. */
static int check_distinct(const struct cli *c, char *err, size_t len)
{
	for (size_t i = 0; i < c->npolicies; i++)
		for (size_t j = 0; j < i; j++) {
			const struct cli_policy *a = &c->policies[j], *b = &c->policies[i];
			if (a->policy != b->policy ||
			    memcmp(a->knobs, b->knobs, a->policy->nknobs * sizeof *a->knobs) != 0)
				continue;
			bool same_params = a->npown == b->npown;
			for (size_t k = 0; same_params && k < a->npown; k++)
				same_params = strcmp(a->pown[k].value, b->pown[k].value) == 0;
			if (!same_params)
				continue;
			if (strcmp(a->name, b->name) == 0)
				return fail(err, len, "policy '%s' given twice", a->name);
			return fail(err, len, "variants '%s' and '%s' have the same knobs", a->name,
				    b->name);
		}
	return 0;
}

/* A check hook's reason, prefixed with whose it is unless it says so itself. */
static int hook_failed(char *err, size_t len, const char *what, const char *name, const char *why)
{
	if (!why[0])
		return fail(err, len, "%s %s rejects this configuration", what, name);
	if (strstr(why, name))
		return fail(err, len, "%s", why);
	return fail(err, len, "%s %s: %s", what, name, why);
}

/*
 * One set of workload parameters: the defaults, every single-valued --param,
 * then (for a variant of a --param list) the variant's crossed values, and
 * the workload's resolve hook.
 */
static int resolve_param_set(struct cli *c, const struct cli_policy *v, double *out, char *err,
			     size_t len)
{
	const struct workload *wl = c->wl;
	char why[256];

	knob_defaults(wl->params, wl->nparams, out);
	for (size_t i = 0; i < c->nparam_args; i++) {
		int k = knob_find(wl->params, wl->nparams, c->param_args[i].name);
		if (k < 0) {
			char valid[512];
			valid_knobs(wl->params, wl->nparams, valid, sizeof valid);
			return fail(err, len, "unknown parameter '%s' for workload %s (valid: %s)",
				    c->param_args[i].name, wl->name, valid);
		}
		if (c->param_lists[i].n)
			continue;	/* each variant takes one value */
		if (knob_parse_named(&wl->params[k], knob_names(wl->param_names, &wl->params[k]),
				     c->param_args[i].value, &out[k], why, sizeof why))
			return fail(err, len, "workload %s: %s", wl->name, why);
	}
	for (size_t i = 0; v && i < v->npown; i++) {
		int k = knob_find(wl->params, wl->nparams, v->pown[i].name);
		if (knob_parse_named(&wl->params[k], knob_names(wl->param_names, &wl->params[k]),
				     v->pown[i].value, &out[k], why, sizeof why))
			return fail(err, len, "workload %s: %s", wl->name, why);
	}
	if (wl->resolve) {
		bool *given = calloc(wl->nparams ? wl->nparams : 1, sizeof *given);
		if (!given) {
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->nparam_args; i++)
			given[knob_find(wl->params, wl->nparams, c->param_args[i].name)] = true;
		why[0] = '\0';
		int rc = wl->resolve(out, given, why, sizeof why);
		free(given);
		if (rc)
			return hook_failed(err, len, "workload", wl->name, why);
	}
	return 0;
}

static int resolve_params(struct cli *c, char *err, size_t len)
{
	size_t n = c->wl->nparams ? c->wl->nparams : 1;
	int rc;

	c->params = calloc(n, sizeof *c->params);
	if (!c->params) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if ((rc = resolve_param_set(c, NULL, c->params, err, len)))
		return rc;
	for (size_t i = 0; i < c->npolicies; i++) {
		struct cli_policy *v = &c->policies[i];
		if (!v->npown)
			continue;
		v->params = calloc(n, sizeof *v->params);
		if (!v->params) {
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
		if ((rc = resolve_param_set(c, v, v->params, err, len)))
			return rc;
	}
	return 0;
}

/* The policy's and the workload's own hooks, on the fully resolved values. */
static const char *first_given(const struct cli *c, const enum opt_id *ids, size_t n);

/*
 * --engine=real runs the real runtime each policy models (harness/real.h):
 * a policy with one, on a workload its peer has, with no knob of the
 * model's set (the runtime runs as it is), and none of the options that
 * shape what only the harness's own workers record.
 */
static int check_real(const struct cli *c, char *err, size_t len)
{
	static const enum opt_id unused[] = { OPT_PIN, OPT_TRACE, OPT_TRACE_EVENTS, OPT_HDR,
					      OPT_SAMPLE, OPT_NOISE, OPT_C2C_BAND,
					      OPT_SPEED_BAND };
	const char *o = first_given(c, unused, sizeof unused / sizeof unused[0]);

	if (o)
		return fail(err, len, "--%s does not apply to --engine=real (the real runtime "
				      "records only its time, CPU and own counters)", o);
	if (c->nsets)
		return fail(err, len, "--set %s: --engine=real runs the real runtime as it is; "
				      "the model's knobs do not reach it", c->sets[0].name);
	for (size_t i = 0; i < c->npolicies; i++) {
		const struct cli_policy *cp = &c->policies[i];
		if (cp->nown)
			return fail(err, len, "%s: --engine=real runs the real runtime as it is; the "
					      "model's knobs do not reach it", cp->name);
		if (real_check(cp->policy, c->wl, cp->params ? cp->params : c->params, err, len))
			return -EINVAL;
	}
	return 0;
}

static int run_checks(struct cli *c, char *err, size_t len)
{
	struct rt_config cfg = {
		.workers = c->workers,
		.seed = c->seed,
		.sample_period = c->sample_period,
		.hist_digits = c->hist_digits,
	};
	char why[256];

	if (c->real && check_real(c, err, len))
		return -EINVAL;
	for (size_t i = 0; !c->real && i < c->npolicies; i++)
		if (c->policies[i].policy->real_only)
			return fail(err, len, "policy %s has no model: it runs only with --engine=real "
				    "(the runtime itself, through its peer program; peers/README.md)",
				    c->policies[i].policy->name);

	for (size_t i = 0; i < c->npolicies; i++) {
		const struct policy *p = c->policies[i].policy;
		why[0] = '\0';
		if (p->check && p->check(&cfg, c->policies[i].knobs, why, sizeof why))
			return hook_failed(err, len, "policy", c->policies[i].name, why);
	}
	why[0] = '\0';
	if (c->wl->check && c->wl->check(c->params, why, sizeof why))
		return hook_failed(err, len, "workload", c->wl->name, why);
	for (size_t i = 0; c->wl->check && i < c->npolicies; i++) {
		why[0] = '\0';
		if (c->policies[i].params &&
		    c->wl->check(c->policies[i].params, why, sizeof why))
			return hook_failed(err, len, "workload", c->wl->name, why);
	}
	return 0;
}

/* The first of `ids` given on the command line, or NULL. */
static const char *first_given(const struct cli *c, const enum opt_id *ids, size_t n)
{
	for (size_t i = 0; i < NOPTS; i++)
		for (size_t k = 0; k < n; k++)
			if (opts[i].id == ids[k] && (c->seen & (1ull << i)))
				return opts[i].name;
	return NULL;
}

/*
 * --explore runs one unmeasured, unrecorded run per seed: options that
 * shape measured trials or their files would be silently ignored, so they
 * are refused.
 */
static int check_explore(const struct cli *c, char *err, size_t len)
{
	static const enum opt_id unused[] = { OPT_JSON, OPT_JSON_INDENT, OPT_HDR, OPT_TRACE, OPT_TRACE_EVENTS,
					      OPT_TRIALS, OPT_CI_TARGET, OPT_TRIALS_MAX,
					      OPT_WARMUP, OPT_NO_BASELINE };
	const char *o = first_given(c, unused, sizeof unused / sizeof unused[0]);

	if (o)
		return fail(err, len, "--%s does not apply to --explore or --explore-seed (one "
				      "unrecorded run per seed, checked after every step)", o);
	return 0;
}

/* --calibrate, --list and --probe-c2c run nothing else: refuse what they would ignore. */
static int check_alone(const struct cli *c, char *err, size_t len)
{
	static const enum opt_id solo[] = { OPT_CALIBRATE, OPT_LIST, OPT_PROBE_C2C };
	const char *mode = first_given(c, solo, sizeof solo / sizeof solo[0]);

	if (!mode)
		return 0;
	for (size_t i = 0; i < NOPTS; i++) {
		bool ok = opts[i].id == OPT_QUIET ||
			  (opts[i].id == OPT_CALIBRATE && strcmp(mode, "calibrate") == 0) ||
			  (opts[i].id == OPT_LIST && strcmp(mode, "list") == 0) ||
			  (opts[i].id == OPT_PROBE_C2C && strcmp(mode, "probe-c2c") == 0);
		if (!ok && (c->seen & (1ull << i)))
			return fail(err, len, "--%s runs alone: --%s does not apply to it", mode,
				    opts[i].name);
	}
	if (c->nsets || c->nparam_args)
		return fail(err, len, "--%s runs alone: --%s does not apply to it", mode,
			    c->nsets ? "set" : "param");
	return 0;
}

/* The workers' CPUs (threads engine; simulated workers have none). */
static int resolve_pin(struct cli *c, char *err, size_t len)
{
	c->pinned = false;
	if (c->sim || c->real) {
		c->pin_effective = PIN_NONE;
		for (uint32_t i = 0; i < c->workers; i++)
			c->cpus[i] = -1;
		return 0;
	}
	if (topo_place(topo_machine(), c->pin, c->pin_list, c->npin, c->workers, c->cpus,
		       &c->pin_effective, c->pin_note, sizeof c->pin_note, err, len) != 0)
		return -EINVAL;
	c->pinned = c->pin_effective != PIN_NONE;
	return 0;
}

/*
 * --trials auto, --ci-target and --trials-max (docs/measuring.md): c->trials
 * becomes the most trials a configuration may take.
 */
static int resolve_trials(struct cli *c, char *err, size_t len)
{
	static const enum opt_id trials[] = { OPT_TRIALS };
	bool target = c->ci_target > 0, numeric = !c->trials_auto && first_given(c, trials, 1);

	if (target && numeric)
		return fail(err, len, "--ci-target runs trials until the target is met: it excludes "
				      "--trials %" PRIu32 " (use --trials auto)", c->trials);
	if (c->trials_max && numeric)
		return fail(err, len, "--trials-max applies to --trials auto: it excludes --trials %"
				      PRIu32, c->trials);
	if (c->trials_max && !target && !c->trials_auto)
		return fail(err, len, "--trials-max applies to --trials auto or --ci-target only");
	if (c->trials_time_s > 0 && !target && !c->trials_auto)
		return fail(err, len, "--trials-time applies to --trials auto or --ci-target only");
	if (!target && !c->trials_auto)
		return 0;
	c->trials_auto = true;
	if (!target)
		c->ci_target = CLI_AUTO_CI_TARGET_PCT / 100.0;
	c->trials_min = CLI_AUTO_MIN_TRIALS;
	c->trials = c->trials_max ? c->trials_max : CLI_AUTO_MAX_TRIALS;
	return 0;
}

static int resolve(struct cli *c, char *err, size_t len)
{
	char valid[512];
	int rc;

	if (c->nspecs == 0) {
		valid_policies(valid, sizeof valid);
		return fail(err, len, "missing --policy (valid: %s)", valid);
	}
	if (!c->wl) {
		valid_workloads(valid, sizeof valid);
		return fail(err, len, "missing --workload (valid: %s)", valid);
	}
	if (c->json_path && c->no_json)
		return fail(err, len, "--json and --no-json exclude each other");
	if (c->json_indent && c->no_json)
		return fail(err, len, "--json-indent shapes the result file, which --no-json turns off");

	if (c->real && (c->explore || c->explore_seed_given))
		return fail(err, len, "--explore and --explore-seed need --engine=sim");
	if (c->costs_path && !c->sim)
		return fail(err, len, "--costs applies to --engine=sim only");
	if (c->c2c_hi > 0 && c->sim)
		return fail(err, len, "--c2c-band applies to --engine=threads only (the sim "
				      "probes no round trip)");
	if (c->speed_hi > 0 && c->sim)
		return fail(err, len, "--speed-band applies to --engine=threads only (the sim "
				      "probes no compute speed)");
	if ((c->explore || c->explore_seed_given) && !c->sim)
		return fail(err, len, "--explore and --explore-seed need --engine=sim");
	if (c->explore && c->explore_seed_given)
		return fail(err, len, "--explore and --explore-seed exclude each other");
	if ((c->explore || c->explore_seed_given) && (rc = check_explore(c, err, len)))
		return rc;
	if ((rc = resolve_trials(c, err, len)))
		return rc;
	rc = check_sets(c, err, len);
	if (rc)
		return rc;
	rc = apply_cost_sets(c, err, len);
	if (rc)
		return rc;
	rc = expand_variants(c, err, len);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->npolicies; i++) {
		rc = resolve_knobs(c, &c->policies[i], err, len);
		if (rc)
			return rc;
	}
	rc = check_distinct(c, err, len);
	if (rc)
		return rc;
	if (c->npolicies > 1 && ((c->json_path && strcmp(c->json_path, "-") == 0) ||
				 (c->hdr_path && strcmp(c->hdr_path, "-") == 0) ||
				 (c->trace_path && strcmp(c->trace_path, "-") == 0)))
		return fail(err, len, "- is one stream: with several policies --json, --hdr and "
				      "--trace name one file per policy (r.json: r.volt.json, ...)");
	if ((c->explore || c->explore_seed_given) && c->npolicies != 1)
		return fail(err, len, "--explore takes one policy");
	rc = resolve_params(c, err, len);
	if (rc)
		return rc;
	if (!c->sample_given)
		c->sample_period = c->real ? 0 : c->wl->sample_period;
	rc = resolve_pin(c, err, len);
	if (rc)
		return rc;
	return run_checks(c, err, len);
}

static uint32_t default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > CLI_MAX_WORKERS ? CLI_MAX_WORKERS : (uint32_t)n;
}

/*
 * Length of the valid UTF-8 prefix of s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF).
 */
static size_t utf8_valid_prefix(const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *p = s;

	while (*p) {
		unsigned char b = *p;
		size_t n = b < 0x80 ? 1 : (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3 :
				(b & 0xf8) == 0xf0 ? 4 : 0;
		if (n == 0 || (n == 2 && b < 0xc2) || (n == 4 && b > 0xf4))
			break;
		size_t k = 1;
		while (k < n && (p[k] & 0xc0) == 0x80)
			k++;
		if (k < n)
			break;
		if ((n == 3 && b == 0xe0 && p[1] < 0xa0) || (n == 3 && b == 0xed && p[1] >= 0xa0) ||
		    (n == 4 && b == 0xf0 && p[1] < 0x90) || (n == 4 && b == 0xf4 && p[1] >= 0x90))
			break;
		p += n;
	}
	return (size_t)(p - s);
}

/*
 * Every argument goes into the result document (config.command_line), which
 * is JSON and so UTF-8: a Latin-1 file name would fail the run after its
 * trials. Refused here, before any work, with the offending byte shown.
 */
static int check_utf8(int argc, char **argv, char *err, size_t len)
{
	for (int i = 1; i < argc; i++) {
		size_t ok = utf8_valid_prefix(argv[i]);
		if (argv[i][ok] == '\0')
			continue;
		char shown[200];
		size_t o = 0;
		for (const unsigned char *p = (const unsigned char *)argv[i];
		     *p && o + 5 < sizeof shown; p++)
			o += (size_t)snprintf(shown + o, sizeof shown - o,
					      *p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
		return fail(err, len, "argument %d '%s' is not valid UTF-8 (byte 0x%02x at offset "
			    "%zu): the result document records every argument and is UTF-8", i,
			    shown, (unsigned char)argv[i][ok], ok);
	}
	return 0;
}

int cli_parse(struct cli *c, int argc, char **argv, char *err, size_t len)
{
	int rc;

	memset(c, 0, sizeof *c);
	c->workers = default_workers();
	c->trials = 5;
	c->warmup = 1;
	c->seed = 1;
	c->hist_digits = 3;
	c->watchdog_ns = 30ull * 1000000000ull;
	c->trace_events = 100000;

	if ((rc = check_utf8(argc, argv, err, len)))
		return rc;
	for (int i = 1; i < argc; i++) {
		rc = parse_one(c, argc, argv, &i, err, len);
		if (rc)
			return rc;
		/* --help and --version win over whatever follows them. */
		if (c->help || c->version)
			return 0;
	}
	if (c->list || c->probe_c2c || c->calibrate_path)
		return check_alone(c, err, len);
	return resolve(c, err, len);
}

void cli_free(struct cli *c)
{
	for (size_t i = 0; i < c->npolicies; i++) {
		free(c->policies[i].knobs);
		free(c->policies[i].params);
		c->policies[i].knobs = NULL;
		c->policies[i].params = NULL;
	}
	for (size_t i = 0; i < c->nsets; i++) {
		free(c->set_lists[i].buf);
		c->set_lists[i].buf = NULL;
	}
	for (size_t i = 0; i < c->nparam_args; i++) {
		free(c->param_lists[i].buf);
		c->param_lists[i].buf = NULL;
	}
	free(c->spec_text);
	c->spec_text = NULL;
	free(c->params);
	c->params = NULL;
}

/* The options' names, argument and meaning, for the usage text and the man
 * page (cli_help.c). */
size_t cli_opt_count(void)
{
	return NOPTS;
}

void cli_opt_text(size_t i, const char **name, const char **arg, const char **help)
{
	*name = opts[i].name;
	*arg = opts[i].arg;
	*help = opts[i].help;
}
