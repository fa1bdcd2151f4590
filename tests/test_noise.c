/*
 * test_noise.c - noise accounting (harness/noise.h).
 *
 *  - the thresholds, on made-up trials: each crossing sets its flag and
 *    nothing below them does; Tukey's fences on a known sample;
 *  - a competing busy thread pinned to the worker's CPU makes the OS share
 *    that CPU: the trial must be flagged for the OS time taken from the
 *    worker's compute, with switches counted (asserted on the flag and the
 *    counts, never on a time); --noise=retry re-runs
 *    such trials exactly NOISE_RETRIES times each, --noise=drop keeps them
 *    all when every one is flagged.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>

#include "core/topo.h"
#include "harness/driver.h"
#include "policies/policy.h"
#include "test.h"

/* "name=value" settings over a knob table's defaults. */
static void apply(const struct knob_def *defs, size_t n, double *vals, const char *const *set)
{
	knob_defaults(defs, n, vals);
	for (; set && *set; set++) {
		char name[64], err[256];
		const char *eq = strchr(*set, '=');
		ASSERT(eq && (size_t)(eq - *set) < sizeof name);
		memcpy(name, *set, (size_t)(eq - *set));
		name[eq - *set] = '\0';
		int i = knob_find(defs, n, name);
		ASSERT(i >= 0);
		ASSERT_EQ(knob_parse(&defs[i], eq + 1, &vals[i], err, sizeof err), 0);
	}
}

static void thresholds(void)
{
	struct trial_noise n;
	ASSERT_EQ(noise_alloc(&n, 2), 0);
	n.measured = true;
	uint64_t ms100 = 100000000ull;	/* a 100 ms trial: 2 + 20 x 0.1 = 4 switches allowed */
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	n.switches[1] = 4;
	n.migrations[0] = -1;	/* unknown: never flags */
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	n.switches[1] = 5;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_SWITCHES);
	n.switches[1] = 0;
	n.migrations[1] = 5;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_MIGRATIONS);
	n.migrations[1] = 0;
	n.stolen_ns[0] = 2000000;	/* 1% of 2 x 100 ms is 2 ms: not above */
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	n.stolen_ns[1] = 1;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_STOLEN);
	n.stolen_ns[0] = n.stolen_ns[1] = 0;
	n.steal_ns = 3e6;	/* 1% of 2 CPUs x 100 ms is 2 ms */
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_STEAL);
	ASSERT_EQ(noise_flags(&n, 2, ms100, 4), 0);
	n.steal_ns = NAN;
	n.c2c_before_ns = 60, n.c2c_after_ns = 85;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	n.c2c_after_ns = 95;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_C2C);
	n.c2c_before_ns = 300, n.c2c_after_ns = 60;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_C2C);
	n.c2c_before_ns = n.c2c_after_ns = NAN;
	/* The compute probe moved by more than 1.25 times, either way (this
	 * machine's two speeds: about 4,000 and 6,000 ns). */
	n.speed_before_ns = 4000, n.speed_after_ns = 4900;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	n.speed_after_ns = 6100;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_SPEED);
	n.speed_before_ns = 6100, n.speed_after_ns = 4000;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), NOISE_SPEED);
	n.speed_after_ns = NAN;
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	ASSERT(strcmp(noise_flag_key(NOISE_SPEED), "speed_moved") == 0);
	ASSERT(strcmp(noise_flag_text(NOISE_SPEED), "compute speed moved") == 0);
	n.speed_after_ns = 6100;
	n.measured = false;	/* sim trials are never flagged */
	ASSERT_EQ(noise_flags(&n, 2, ms100, 2), 0);
	noise_free(&n);
}

/* --c2c-band: a trial whose round trip before or after lies outside the
 * band is flagged; a probe that could not be made, or no band, flags
 * nothing. */
static void band(void)
{
	ASSERT(noise_c2c_in_band(70, 45, 115));
	ASSERT(noise_c2c_in_band(45, 45, 115) && noise_c2c_in_band(115, 45, 115));
	ASSERT(!noise_c2c_in_band(30, 45, 115));
	ASSERT(!noise_c2c_in_band(400, 45, 115));
	ASSERT(noise_c2c_in_band(NAN, 45, 115));
	ASSERT(noise_c2c_in_band(400, 0, 0));

	struct trial_noise n;
	ASSERT_EQ(noise_alloc(&n, 2), 0);
	n.measured = true;
	n.c2c_before_ns = 70, n.c2c_after_ns = 72;
	ASSERT_EQ(noise_band_flag(&n, 45, 115), 0);
	ASSERT_EQ(noise_band_flag(&n, 0, 0), 0);
	n.c2c_before_ns = 410;
	ASSERT_EQ(noise_band_flag(&n, 45, 115), NOISE_C2C_BAND);
	n.c2c_before_ns = 70, n.c2c_after_ns = 30;
	ASSERT_EQ(noise_band_flag(&n, 45, 115), NOISE_C2C_BAND);
	ASSERT_EQ(noise_band_flag(&n, 20, 115), 0);
	n.measured = false;
	ASSERT_EQ(noise_band_flag(&n, 45, 115), 0);
	ASSERT(strcmp(noise_flag_key(NOISE_C2C_BAND), "c2c_band") == 0);
	ASSERT(strcmp(noise_flag_text(NOISE_C2C_BAND), "round trip outside the band") == 0);

	/* --speed-band: the same with the compute probes, and each band
	 * flags only its own probes. */
	n.measured = true;
	n.c2c_before_ns = 70, n.c2c_after_ns = 72;
	n.speed_before_ns = 4010, n.speed_after_ns = 4030;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), 0);
	ASSERT_EQ(noise_speed_band_flag(&n, 0, 0), 0);
	n.speed_after_ns = 6200;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), NOISE_SPEED_BAND);
	ASSERT_EQ(noise_band_flag(&n, 45, 115), 0);
	n.speed_before_ns = 6100, n.speed_after_ns = 4030;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), NOISE_SPEED_BAND);
	n.speed_before_ns = NAN;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), 0);
	n.c2c_before_ns = 410, n.speed_before_ns = 4010;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), 0);
	n.measured = false;
	n.speed_after_ns = 6200;
	ASSERT_EQ(noise_speed_band_flag(&n, 3800, 4400), 0);
	ASSERT(strcmp(noise_flag_key(NOISE_SPEED_BAND), "speed_band") == 0);
	ASSERT(strcmp(noise_flag_text(NOISE_SPEED_BAND), "compute speed outside the band") == 0);
	noise_free(&n);
}

/* Whether a trial outside a band runs again: the rule the driver follows,
 * fed known re-run counts and band times (how many re-runs a real run gets
 * depends on how much time its probes take, so harness_cli_bands asserts
 * only that it stays within the cap). */
static void band_rerun_rule(void)
{
	const uint64_t cap = NOISE_BAND_BUDGET_NS;
	for (uint32_t r = 0; r < NOISE_BAND_RETRIES; r++) {
		ASSERT(noise_band_rerun(NOISE_C2C_BAND, r, 0));
		ASSERT(noise_band_rerun(NOISE_SPEED_BAND, r, cap - 1));
		ASSERT(noise_band_rerun(NOISE_C2C_BAND | NOISE_STOLEN, r, 0));
	}
	/* The 4th re-run is the last: the trial is then kept, flagged. */
	ASSERT_EQ(NOISE_BAND_RETRIES, 4);
	ASSERT(!noise_band_rerun(NOISE_C2C_BAND, NOISE_BAND_RETRIES, 0));
	ASSERT(!noise_band_rerun(NOISE_SPEED_BAND | NOISE_C2C_BAND, NOISE_BAND_RETRIES + 1, 0));
	/* The process's band time spent: no more re-runs, whatever the count. */
	ASSERT(!noise_band_rerun(NOISE_C2C_BAND, 0, cap));
	ASSERT(!noise_band_rerun(NOISE_SPEED_BAND, 0, UINT64_MAX));
	/* Only the bands' flags re-run a trial here (--noise=retry is apart). */
	ASSERT(!noise_band_rerun(0, 0, 0));
	ASSERT(!noise_band_rerun(NOISE_STOLEN | NOISE_C2C | NOISE_SPEED | NOISE_SWITCHES, 0, 0));
}

/* The compute probe is made (not folded away by the compiler: fib(17) is
 * 5,167 calls, far above 100 ns on any machine this runs on), and leaves
 * the calling thread's CPU mask as it found it: the unpinned workers
 * inherit it. */
static void speed_probe(void)
{
	cpu_set_t before, after;
	ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof before, &before), 0);
	double a = noise_speed_ns(NULL, 1), b = noise_speed_ns(NULL, 2);
	ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
	ASSERT(CPU_EQUAL(&before, &after));
	ASSERT(isfinite(a) && isfinite(b));
	ASSERT(a > 100 && b > 100);
}

static void tukey(void)
{
	/* Q1 10, Q3 12, IQR 2: mild beyond 7 and 15, severe beyond 4 and 18. */
	double v[] = { 10, 10, 10, 11, 12, 12, 12, 16, 30, 5, 3 };
	int cls[11];
	uint32_t counts[5];
	tukey_classify(v, 11, cls, counts);
	ASSERT_EQ(cls[0], 2);
	ASSERT_EQ(cls[7], 3);
	ASSERT_EQ(cls[8], 4);
	ASSERT_EQ(cls[9], 1);
	ASSERT_EQ(cls[10], 0);
	ASSERT_EQ(counts[2], 7);
	ASSERT_EQ(counts[0] + counts[1] + counts[3] + counts[4], 4);
}

/* ---- a competing busy thread ------------------------------------------ */

static _Atomic bool busy_stop;

static void *busy(void *arg)
{
	(void)arg;
	/* Relaxed: a stop flag, nothing read through it. */
	while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
		__builtin_ia32_pause();
	return NULL;
}

static void run_contended(enum noise_mode mode, uint32_t trials, struct run_result *res)
{
	const struct topo *t = topo_machine();
	ASSERT(t);
	static int32_t cpus[1];
	cpus[0] = t->cpu[0].os;
	const struct policy *p = policy_find("volt");
	const struct workload *wl = workload_find("open-loop");
	ASSERT(p && wl);
	double kv[64], pv[64];
	static const char *const params[] = { "requests=400", "service_us=200", "load=2",
					      "warmup=0", NULL };
	apply(p->knobs, p->nknobs, kv, NULL);
	apply(wl->params, wl->nparams, pv, params);
	struct run_config cfg = {
		.policy = p, .name = p->name, .wl = wl, .knobs = kv, .params = pv, .workers = 1,
		.trials = trials, .warmup = 0, .seed = 1, .sample_period = 0, .hist_digits = 2,
		.watchdog_ns = 30000000000ull, .cpus = cpus, .noise_mode = mode,
	};
	/* The competitor: pinned to the worker's CPU, spinning for the
	 * whole run, so the OS must time-slice the two. */
	pthread_attr_t attr;
	cpu_set_t set;
	pthread_t th;
	CPU_ZERO(&set);
	CPU_SET(cpus[0], &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof set, &set);
	atomic_store(&busy_stop, false);
	ASSERT_EQ(pthread_create(&th, &attr, busy, NULL), 0);
	pthread_attr_destroy(&attr);
	char err[256];
	int rc = driver_run(&cfg, res, err, sizeof err);
	atomic_store(&busy_stop, true);
	pthread_join(th, NULL);
	if (rc != 0)
		TEST_FAIL("driver_run: %s", err);
}

static void competitor_is_flagged(void)
{
	struct run_result res;
	run_contended(NOISE_REPORT, 1, &res);
	const struct trial_noise *n = &res.trials[0].noise;
	fprintf(stderr, "    %llu involuntary switches, %.1f ms taken from compute in %.1f ms\n",
		(unsigned long long)n->switches[0], n->stolen_ns[0] / 1e6,
		res.trials[0].makespan_ns / 1e6);
	/* The OS took the CPU from the worker's spins, preempting it: how
	 * often it switched depends on the kernel's slices, the time it took
	 * is most of the competitor's share. */
	ASSERT(n->measured);
	ASSERT(n->flags & NOISE_STOLEN);
	ASSERT(n->stolen_ns[0] > 0 && n->switches[0] > 0);
	ASSERT_EQ(res.flagged, 1);
	ASSERT_EQ(res.flag_counts[2], 1);	/* NOISE_STOLEN is bit 2 */
	ASSERT_EQ(res.dropped, 0);
	run_result_free(&res);

	/* Retry: each flagged trial runs again NOISE_RETRIES times, then
	 * stays (flagged) in the result. */
	run_contended(NOISE_RETRY, 2, &res);
	ASSERT_EQ(res.retried, 2 * NOISE_RETRIES);
	for (uint32_t i = 0; i < 2; i++) {
		ASSERT_EQ(res.trials[i].noise.retries, NOISE_RETRIES);
		ASSERT(res.trials[i].noise.flags & NOISE_STOLEN);
	}
	run_result_free(&res);

	/* Drop with every trial flagged: all kept, none dropped. */
	run_contended(NOISE_DROP, 2, &res);
	ASSERT_EQ(res.flagged, 2);
	ASSERT_EQ(res.dropped, 0);
	ASSERT(isfinite(res.median.makespan_ns));
	run_result_free(&res);
}

int main(void)
{
	RUN(thresholds);
	RUN(band);
	RUN(band_rerun_rule);
	RUN(speed_probe);
	RUN(tukey);
	RUN(competitor_is_flagged);
	return 0;
}
