/*
 * json_check.c - validate a harness result file against schema version 1
 * (docs/results.md).
 *
 *   json_check RESULT.json | RESULT.json.gz
 *
 * Checks that every documented key is present with its JSON type, that the
 * array lengths agree with the configuration, that every per-worker counter
 * object has every WORKER_COUNTERS field, that the totals are the sums they
 * claim to be, that every median is the median of its trials (recomputed
 * here: the middle value, or the mean of the two middle ones), and that the
 * figures are plausible (utilization within [0, 1.05], percentiles
 * non-decreasing, every trial verified). A simulated result (engine "sim")
 * must carry its modelled costs and no baseline. Exits 0 if the file
 * passes, 1 with the first problem on stderr otherwise.
 *
 * docs/result.schema.json says the same in JSON Schema for a standard
 * validator (tests/validate_results.py); this program adds the arithmetic.
 * A gzip-compressed file (as results/reference stores them) reads as it is.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "core/stats.h"
#include "test.h"

/* Utilization is busy time over makespan, with busy time clamped to the
 * makespan (core/worker.c), so 1 is the real bound; this leaves a margin. */
#define UTIL_MAX 1.05

static const char *const counter_names[] = {
#define X(name, help) #name,
	WORKER_COUNTERS(X)
#undef X
};

#define NCOUNTERS (sizeof counter_names / sizeof counter_names[0])

static const char *type_name(const json_t *v)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "object", [JSON_ARRAY] = "array", [JSON_STRING] = "string",
		[JSON_INTEGER] = "integer", [JSON_REAL] = "real", [JSON_TRUE] = "true",
		[JSON_FALSE] = "false", [JSON_NULL] = "null",
	};
	return v ? names[json_typeof(v)] : "nothing";
}

static json_t *need(json_t *o, const char *where, const char *key)
{
	json_t *v;

	if (!json_is_object(o))
		TEST_FAIL("%s: expected an object, got %s", where, type_name(o));
	v = json_object_get(o, key);
	if (!v)
		TEST_FAIL("%s: key \"%s\" missing", where, key);
	return v;
}

#define NEED_TYPE(fn, pred, what)                                            \
	static json_t *fn(json_t *o, const char *where, const char *key)     \
	{                                                                    \
		json_t *v = need(o, where, key);                             \
		if (!(pred))                                                 \
			TEST_FAIL("%s.%s: expected %s, got %s", where, key,  \
				  what, type_name(v));                       \
		return v;                                                    \
	}

NEED_TYPE(need_obj, json_is_object(v), "an object")
NEED_TYPE(need_arr, json_is_array(v), "an array")
NEED_TYPE(need_str, json_is_string(v), "a string")
NEED_TYPE(need_int_v, json_is_integer(v), "an integer")
NEED_TYPE(need_num_v, json_is_number(v), "a number")
NEED_TYPE(need_num_or_null, json_is_number(v) || json_is_null(v), "a number or null")

static long long need_int(json_t *o, const char *where, const char *key)
{
	return json_integer_value(need_int_v(o, where, key));
}

static double need_num(json_t *o, const char *where, const char *key)
{
	return json_number_value(need_num_v(o, where, key));
}

static void need_nonneg(json_t *o, const char *where, const char *key)
{
	if (need_int(o, where, key) < 0)
		TEST_FAIL("%s.%s: negative", where, key);
}

static void check_numbers_object(json_t *o, const char *where)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v)
		if (!json_is_number(v))
			TEST_FAIL("%s.%s: expected a number, got %s", where, key, type_name(v));
}

static void check_counters(json_t *o, const char *where)
{
	for (size_t i = 0; i < NCOUNTERS; i++)
		need_nonneg(o, where, counter_names[i]);
}

static void check_util(double u, const char *where)
{
	if (!(u >= 0 && u <= UTIL_MAX))
		TEST_FAIL("%s: utilization %g outside [0, %g]", where, u, UTIL_MAX);
}

struct cfg {
	long long workers, trials, sample_period, hist_digits;
	long long baseline_trials;	/* --trials auto: its minimum, else trials */
	bool baseline, sim;
};

static void check_config(json_t *doc, struct cfg *c)
{
	json_t *cf = need_obj(doc, "$", "config");
	json_t *seed;

	const char *policy = json_string_value(need_str(cf, "config", "policy"));
	const char *variant = json_string_value(need_str(cf, "config", "variant"));
	/* policy, policy[KNOB=V,...], either followed by " PARAM=V" values */
	size_t n = strlen(policy);
	const char *rest = variant + n, *sp = strchr(variant, ' ');
	size_t head = sp ? (size_t)(sp - variant) : strlen(variant);
	if (strncmp(variant, policy, n) != 0 || (*rest && *rest != ' ' && *rest != '[') ||
	    (*rest == '[' && variant[head - 1] != ']'))
		TEST_FAIL("config.variant '%s' is not policy '%s', %s[KNOB=V,...] or either with "
			  "PARAM=V after a space", variant, policy, policy);
	need_str(cf, "config", "workload");
	const char *engine = json_string_value(need_str(cf, "config", "engine"));
	if (strcmp(engine, "threads") != 0 && strcmp(engine, "sim") != 0 &&
	    strcmp(engine, "real") != 0)
		TEST_FAIL("config.engine: '%s' is not threads, sim or real", engine);
	if (strcmp(engine, "real") == 0) {
		json_t *peer = need_obj(cf, "config", "peer");
		need_str(peer, "config.peer", "runtime");
		need_str(peer, "config.peer", "version");
	}
	c->sim = strcmp(engine, "sim") == 0;
	if (c->sim)
		check_numbers_object(need_obj(cf, "config", "sim_costs_ns"), "config.sim_costs_ns");
	else if (json_object_get(cf, "sim_costs_ns"))
		TEST_FAIL("config.sim_costs_ns in a threads result");
	c->workers = need_int(cf, "config", "workers");
	c->trials = need_int(cf, "config", "trials");
	ASSERT(c->workers >= 1 && c->trials >= 1);
	c->baseline_trials = c->trials;
	ASSERT(need_int(cf, "config", "warmup") >= 0);
	seed = need(cf, "config", "seed");
	if (!json_is_integer(seed) && !json_is_string(seed))
		TEST_FAIL("config.seed: expected an integer or string, got %s", type_name(seed));
	check_numbers_object(need_obj(cf, "config", "knobs"), "config.knobs");
	check_numbers_object(need_obj(cf, "config", "params"), "config.params");
	c->sample_period = need_int(cf, "config", "sample_period");
	ASSERT(c->sample_period >= 0 && (c->sample_period & (c->sample_period - 1)) == 0);
	c->hist_digits = need_int(cf, "config", "hist_digits");
	ASSERT(c->hist_digits >= 1 && c->hist_digits <= 5);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * --trials auto (present only then): the trial count within [min, max],
 * config.trials equal to it, the baseline run min times, and the reason
 * given consistent with the half-width: "target" when it is within the
 * target, "max" only at the maximum and outside it. Whether the trials
 * stopped at the first count that met the rule tests/test_trials_auto.sh
 * recomputes from the makespans.
 */
static void check_trials_auto(json_t *doc, struct cfg *c)
{
	json_t *a = json_object_get(doc, "trials_auto");
	if (!a)
		return;
	const char *w = "trials_auto";
	double target = need_num(a, w, "ci_target");
	long long min = need_int(a, w, "min"), max = need_int(a, w, "max");
	long long n = need_int(a, w, "trials");
	const char *stopped = json_string_value(need_str(a, w, "stopped"));
	double hw = need_num(a, w, "half_width");
	ASSERT(target > 0 && target < 1);
	ASSERT(min >= 6 && min <= n && n <= max);
	ASSERT_EQ(n, c->trials);
	if (strcmp(stopped, "target") == 0)
		ASSERT(hw <= target);
	else if (strcmp(stopped, "max") == 0)
		ASSERT(n == max && hw > target);
	else if (strcmp(stopped, "time") == 0)
		ASSERT(n < max && hw > target && json_is_number(json_object_get(a, "time_limit_s")));
	else
		TEST_FAIL("trials_auto.stopped: '%s' is neither target, max nor time", stopped);
	c->baseline_trials = min;
}

/*
 * `claimed` must be the median of trials[].key: the middle value, or the
 * mean of the two middle values for an even count (docs/results.md). A
 * mean of all the trials, or a middle value picked from the unsorted list,
 * fails here. Equal up to the rounding of a printed real.
 */
static void check_median_of(json_t *trials, const char *key, double claimed, const char *where)
{
	size_t n = json_array_size(trials);
	double *v = calloc(n ? n : 1, sizeof *v);

	if (!v)
		TEST_FAIL("out of memory");
	for (size_t i = 0; i < n; i++)
		v[i] = json_number_value(json_object_get(json_array_get(trials, i), key));
	qsort(v, n, sizeof *v, cmp_double);
	double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	if (!(fabs(m - claimed) <= 1e-9 * fmax(fabs(m), 1.0)))
		TEST_FAIL("%s = %.17g, but the median of the %zu trials' %s is %.17g", where,
			  claimed, n, key, m);
}

static void check_baseline(json_t *doc, struct cfg *c)
{
	json_t *b = need(doc, "$", "baseline"), *a;
	size_t i;
	json_t *t;

	c->baseline = !json_is_null(b);
	if (c->baseline && c->sim)
		TEST_FAIL("baseline: a simulated run has no (wall-clock) baseline");
	if (!c->baseline)
		return;
	a = need_arr(b, "baseline", "trials");
	ASSERT_EQ(json_array_size(a), c->baseline_trials);
	json_array_foreach(a, i, t) {
		need_nonneg(t, "baseline.trials[]", "ns");
		ASSERT(need_int(t, "baseline.trials[]", "tasks") > 0);
		ASSERT(need_num(t, "baseline.trials[]", "ns_per_task") >= 0);
	}
	ASSERT(need_num(b, "baseline", "median_ns_per_task") >= 0);
	check_median_of(a, "ns_per_task", need_num(b, "baseline", "median_ns_per_task"),
			"baseline.median_ns_per_task");
}

/*
 * trials[].cpu (docs/results.md, "cpu"): per worker, the four parts add up
 * to its CPU exactly; the total is the workers' sum; on threads the
 * workers' CPU lies within the process's (2 us: getrusage's two fields in
 * whole microseconds); the CPU per task is the total over the tasks.
 * Absent from results made before it; null on the real engine.
 */
static void check_trial_cpu(json_t *t, const struct cfg *c)
{
	json_t *cpu = json_object_get(t, "cpu");
	if (!cpu || json_is_null(cpu))
		return;
	static const char *const keys[] = { "cpu_ns", "user_ns", "sys_ns", "task_ns", "sched_ns",
					    "search_ns", "kernel_ns", "parked_ns" };
	const char *w = "trials[].cpu";
	json_t *ws = need_arr(cpu, w, "workers"), *tot = need_obj(cpu, w, "total"), *v;
	long long sum[8] = { 0 };
	size_t i;
	ASSERT_EQ(json_array_size(ws), c->workers);
	json_array_foreach(ws, i, v) {
		long long x[8];
		for (int k = 0; k < 8; k++) {
			x[k] = need_int(v, "trials[].cpu.workers[]", keys[k]);
			if (x[k] < 0)
				TEST_FAIL("trials[].cpu.workers[%zu].%s is negative", i, keys[k]);
			sum[k] += x[k];
		}
		if (x[3] + x[4] + x[5] + x[6] != x[0])
			TEST_FAIL("trials[].cpu.workers[%zu]: task + sched + search + kernel = %lld, "
				  "cpu_ns %lld", i, x[3] + x[4] + x[5] + x[6], x[0]);
	}
	for (int k = 0; k < 8; k++)
		if (need_int(tot, "trials[].cpu.total", keys[k]) != sum[k])
			TEST_FAIL("trials[].cpu.total.%s is not the workers' sum", keys[k]);
	json_t *proc = need_num_or_null(cpu, w, "process_ns");
	if (!json_is_null(proc) && (double)sum[0] > json_number_value(proc) + 2000)
		TEST_FAIL("trials[].cpu: the workers' %lld ns of CPU exceed the process's %.0f ns",
			  sum[0], json_number_value(proc));
	double per = need_num(cpu, w, "per_task_ns");
	double want = (double)sum[0] / (double)need_int(t, "trials[]", "tasks");
	if (fabs(per - want) > 1e-9 * want + 1e-9)
		TEST_FAIL("trials[].cpu.per_task_ns %g is not cpu_ns / tasks %g", per, want);
}

static void check_trial(json_t *t, const struct cfg *c)
{
	const char *w = "trials[]";
	json_t *util, *ws, *v, *over;
	size_t i;

	ASSERT(need_int(t, w, "makespan_ns") > 0);
	ASSERT(need_int(t, w, "tasks") > 0);
	ASSERT(need_num(t, w, "tasks_per_s") > 0);
	ASSERT(need_num(t, w, "ns_per_task") > 0);
	over = need_num_or_null(t, w, "overhead_ns_per_task");
	if (json_is_null(over) == c->baseline)
		TEST_FAIL("trials[].overhead_ns_per_task: null must mean no baseline");
	util = need_arr(t, w, "utilization");
	ASSERT_EQ(json_array_size(util), c->workers);
	json_array_foreach(util, i, v) {
		if (!json_is_number(v))
			TEST_FAIL("trials[].utilization[%zu]: expected a number", i);
		check_util(json_number_value(v), "trials[].utilization[]");
	}
	check_util(need_num(t, w, "utilization_total"), "trials[].utilization_total");
	ws = need_arr(t, w, "workers");
	ASSERT_EQ(json_array_size(ws), c->workers);
	json_array_foreach(ws, i, v)
		check_counters(v, "trials[].workers[]");
	if (!json_is_true(need(t, w, "verified")))
		TEST_FAIL("trials[].verified is not true");
	check_numbers_object(need_obj(t, w, "metrics"), "trials[].metrics");
	check_trial_cpu(t, c);
}

static void check_median(json_t *doc, const struct cfg *c)
{
	json_t *m = need_obj(doc, "$", "median");

	ASSERT(need_num(m, "median", "makespan_ns") > 0);
	ASSERT(need_num(m, "median", "tasks_per_s") > 0);
	ASSERT(need_num(m, "median", "ns_per_task") > 0);
	check_util(need_num(m, "median", "utilization_total"), "median.utilization_total");
	if (json_is_null(need_num_or_null(m, "median", "overhead_ns_per_task")) == c->baseline)
		TEST_FAIL("median.overhead_ns_per_task: null must mean no baseline");

	static const char *const keys[] = {
		"makespan_ns", "tasks_per_s", "ns_per_task", "overhead_ns_per_task",
		"utilization_total",
	};
	json_t *trials = json_object_get(doc, "trials");
	/* --noise=drop: the medians are those of the trials not flagged. */
	json_t *noise = json_object_get(doc, "noise"), *kept = NULL;
	if (json_is_object(noise) && json_integer_value(json_object_get(noise, "dropped")) > 0) {
		kept = json_array();
		for (size_t i = 0; i < json_array_size(trials); i++) {
			json_t *t = json_array_get(trials, i);
			if (!json_is_true(json_object_get(json_object_get(t, "noise"), "flagged")))
				json_array_append(kept, t);
		}
		if ((json_int_t)(json_array_size(trials) - json_array_size(kept)) !=
		    json_integer_value(json_object_get(noise, "dropped")))
			TEST_FAIL("noise.dropped is not the number of flagged trials");
		trials = kept;
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char where[64];
		json_t *v = json_object_get(m, keys[i]);
		if (json_is_null(v))
			continue;
		snprintf(where, sizeof where, "median.%s", keys[i]);
		check_median_of(trials, keys[i], json_number_value(v), where);
	}
	json_decref(kept);
}

static long long counter_of(json_t *o, const char *name)
{
	return json_integer_value(json_object_get(o, name));
}

/* counters_total = sum of per_worker_counters = sum over trials' workers. */
static void check_totals(json_t *doc, const struct cfg *c)
{
	json_t *total = need_obj(doc, "$", "counters_total");
	json_t *pw = need_arr(doc, "$", "per_worker_counters");
	json_t *trials = json_object_get(doc, "trials");

	check_counters(total, "counters_total");
	ASSERT_EQ(json_array_size(pw), c->workers);
	for (size_t k = 0; k < NCOUNTERS; k++) {
		const char *name = counter_names[k];
		long long sum = 0;
		for (size_t w = 0; w < (size_t)c->workers; w++) {
			json_t *o = json_array_get(pw, w);
			long long per = 0;
			check_counters(o, "per_worker_counters[]");
			for (size_t t = 0; t < json_array_size(trials); t++) {
				json_t *tw = json_object_get(json_array_get(trials, t), "workers");
				per += counter_of(json_array_get(tw, w), name);
			}
			if (per != counter_of(o, name))
				TEST_FAIL("per_worker_counters[%zu].%s = %lld, trials sum to %lld",
					  w, name, counter_of(o, name), per);
			sum += per;
		}
		if (sum != counter_of(total, name))
			TEST_FAIL("counters_total.%s = %lld, workers sum to %lld", name,
				  counter_of(total, name), sum);
	}
}

static void check_hist(json_t *doc, const struct cfg *c)
{
	static const char *const order[] = { "min", "p50", "p90", "p99", "p99_9", "p99_99", "max" };
	json_t *h = need_obj(need_obj(doc, "$", "histograms"), "histograms", "sched_delay_ns");
	const char *w = "histograms.sched_delay_ns";
	long long count, prev = 0;

	ASSERT_EQ(need_int(h, w, "sampled_1_in"), c->sample_period);
	ASSERT_EQ(need_int(h, w, "sig_digits"), c->hist_digits);
	count = need_int(h, w, "count");
	ASSERT(count >= 0);
	ASSERT(need_num(h, w, "mean") >= 0);
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		long long v = need_int(h, w, order[i]);
		if (v < prev)
			TEST_FAIL("%s.%s = %lld is below %s = %lld", w, order[i], v,
				  order[i - 1], prev);
		if (count == 0 && v != 0)
			TEST_FAIL("%s.%s = %lld with no samples", w, order[i], v);
		prev = v;
	}

	/* The stored buckets, (delta, count) pairs, hold every sample once:
	 * merged over workers and trials as recorded. */
	json_t *counts = need_arr(need_obj(h, w, "buckets"), w, "counts");
	long long in_buckets = 0;
	ASSERT(json_array_size(counts) % 2 == 0);
	for (size_t i = 1; i < json_array_size(counts); i += 2)
		in_buckets += json_integer_value(json_array_get(counts, i));
	if (in_buckets != count)
		TEST_FAIL("%s: %lld samples in the buckets, count %lld", w, in_buckets, count);
}

static void check_provenance(json_t *doc)
{
	static const char *const strings[] = {
		"git_revision", "compiler", "cflags", "build_type", "sanitize", "allocator",
		"cpu_model", "kernel", "hostname", "timestamp_utc", "command_line",
	};
	json_t *p = need_obj(doc, "$", "provenance");

	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		need_str(p, "provenance", strings[i]);
	ASSERT(need_int(p, "provenance", "cores_online") >= 1);
}

static size_t gz_chunk(void *buf, size_t len, void *arg)
{
	int n = gzread(arg, buf, len > INT_MAX ? INT_MAX : (unsigned)len);

	return n < 0 ? (size_t)-1 : (size_t)n;
}

/* A JSON file, gzip-compressed or plain (zlib reads a plain file as it is). */
static json_t *load(const char *path)
{
	json_error_t jerr;
	gzFile g = gzopen(path, "rb");
	json_t *doc;

	if (!g)
		TEST_FAIL("%s: %s", path, strerror(errno ? errno : ENOMEM));
	doc = json_load_callback(gz_chunk, g, JSON_REJECT_DUPLICATES, &jerr);
	gzclose(g);
	if (!doc)
		TEST_FAIL("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
	return doc;
}

int main(int argc, char **argv)
{
	struct cfg c = { 0 };
	json_t *doc, *trials, *t;
	size_t i;

	if (argc == 3 && strcmp(argv[1], "--parse-only") == 0) {
		/* Any JSON document (a trace, say): it must load, nothing more. */
		json_decref(load(argv[2]));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: json_check RESULT.json | --parse-only FILE.json\n");
		return 2;
	}
	doc = load(argv[1]);
	ASSERT_STR_EQ(json_string_value(need_str(doc, "$", "schema")), "harness-result");
	ASSERT_EQ(need_int(doc, "$", "schema_version"), 1);
	check_config(doc, &c);
	check_trials_auto(doc, &c);
	check_baseline(doc, &c);
	trials = need_arr(doc, "$", "trials");
	ASSERT_EQ(json_array_size(trials), c.trials);
	json_array_foreach(trials, i, t) {
		/* Trial i + 1 of a configuration runs after trial i. */
		long long order = need_int(t, "trials[]", "order");
		ASSERT(order >= 0);
		if (i > 0)
			ASSERT(order > json_integer_value(json_object_get(
					       json_array_get(trials, i - 1), "order")));
		check_trial(t, &c);
	}
	check_median(doc, &c);
	check_totals(doc, &c);
	check_hist(doc, &c);
	check_provenance(doc);
	json_decref(doc);
	printf("json_check: %s ok (%lld trials, %lld workers)\n", argv[1], c.trials, c.workers);
	return 0;
}
