/*
 * test_pctci.c - the 95% intervals of reported percentiles (core/pctci.h).
 *
 *  - the order-statistic ranks against the binomial, summed here
 *    independently (a pmf recurrence, not lgamma), and a textbook case;
 *  - one sample: the sides it cannot bound are open, never [x, x]; the
 *    lower bound read at the bottom of its bucket, the upper at the top;
 *  - coverage, by simulation with a fixed seed (so the figures are exact
 *    and repeatable): order-statistic intervals of 1000 exponential
 *    samples hold the true p50, p90 and p99 in about 95% of 2000 draws;
 *    batch-means intervals over 5 batches in about 95% as well;
 *  - the driver: several trials give batch means over the trials (the
 *    half-width recomputed here from the trials' own percentiles), one
 *    trial of requests batch means over 10 slices, one trial of scheduling
 *    delays order statistics; every interval holds its percentile.
 */
#include <math.h>

#include "core/pctci.h"
#include "core/rng.h"
#include "harness/driver.h"
#include "policies/policy.h"
#include "test.h"

/* P(B <= k) for B ~ Bin(n, p), by the pmf recurrence from B = n down (p^n
 * does not underflow for the high levels tested here). */
static double binom_cdf(uint64_t n, double p, uint64_t k)
{
	double pmf = pow(p, (double)n), above = 0;
	for (uint64_t i = n; i > k; i--) {
		above += pmf;	/* P(B = i) */
		pmf *= (double)i / (double)(n - i + 1) * (1 - p) / p;
	}
	return 1 - above;
}

static void ranks(void)
{
	uint64_t l, u;
	/* The median of 20 and of 100 samples (the textbook ranks). */
	pct_rank_bounds(20, 50, &l, &u);
	ASSERT_U64_EQ(l, 6);
	ASSERT_U64_EQ(u, 15);
	pct_rank_bounds(100, 50, &l, &u);
	ASSERT_U64_EQ(l, 40);
	ASSERT_U64_EQ(u, 61);
	/* Tail levels with few samples (the exact sum): the defining
	 * inequalities, each side at most 2.5% and the next rank over it. */
	static const struct { uint64_t n; double p; } cases[] = {
		{ 1000, 99 }, { 200, 90 }, { 5000, 99.9 }, { 40, 50 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint64_t n = cases[c].n;
		double q = cases[c].p / 100;
		pct_rank_bounds(n, cases[c].p, &l, &u);
		fprintf(stderr, "    n %llu, p%g: ranks %llu and %llu\n", (unsigned long long)n,
			cases[c].p, (unsigned long long)l, (unsigned long long)u);
		ASSERT(l >= 1 && l < u);
		ASSERT(binom_cdf(n, q, l - 1) <= 0.025);
		ASSERT(binom_cdf(n, q, l) > 0.025);
		ASSERT(1 - binom_cdf(n, q, u - 1) <= 0.025 + 1e-12);
		ASSERT(1 - binom_cdf(n, q, u - 2) > 0.025);
	}
}

/*
 * Too few samples to bound a side: one sample bounds neither side of p50
 * (P(B <= 0) = 1/2) and only the lower side of p99.99; the open sides say
 * so and hold 0 and the sample, so the interval never reads as an exact
 * [x, x].
 */
static void one_sample(void)
{
	uint64_t l, u;
	pct_rank_bounds(1, 50, &l, &u);
	ASSERT_U64_EQ(l, 0);
	ASSERT_U64_EQ(u, 2);
	pct_rank_bounds(1, 99.99, &l, &u);
	ASSERT_U64_EQ(l, 1);
	ASSERT_U64_EQ(u, 2);
	struct hist h;
	ASSERT_EQ(hist_init(&h, 3, HIST_HIGHEST_NS), 0);
	hist_record(&h, 735730);
	struct pct_ci ci;
	pct_ci_order_stats(&h, &ci);
	ASSERT_EQ(ci.method, PCT_CI_ORDER_STATS);
	for (int k = 0; k < PCT_LEVELS; k++) {
		ASSERT(ci.hi_open[k]);
		ASSERT(ci.hi[k] == (double)h.max);
		/* p50 and p90: (1 - q) > 2.5%; p99 and above: x(1) bounds it. */
		ASSERT(ci.lo_open[k] == (pct_level[k] < 97.5));
		ASSERT(ci.lo[k] == (ci.lo_open[k] ? 0 : (double)h.min));
	}
	/* Enough samples bound both sides. */
	for (uint64_t v = 1; v <= 1000; v++)
		hist_record(&h, v * 1000);
	pct_ci_order_stats(&h, &ci);
	for (int k = 0; k < 3; k++)
		ASSERT(!ci.lo_open[k] && !ci.hi_open[k]);
	hist_destroy(&h);
}

/*
 * One trial's order-statistic interval reads its lower bound at the bottom
 * of x(l)'s histogram bucket and its upper bound at the top of x(u)'s: a
 * bucket holds every value between, so only then does [lo, hi] contain
 * [x(l), x(u)] whatever the samples were. The samples here are exact values
 * spread over buckets 512 to 1024 ns wide (3 digits near 1 to 2 ms), none
 * at a bucket's edge; reading lo at the top of its bucket puts it above
 * x(l).
 */
static void order_stats_bucket_edges(void)
{
	enum { N = 2000 };
	uint64_t *v = malloc(N * sizeof *v);
	struct hist h;
	ASSERT(v);
	ASSERT_EQ(hist_init(&h, 3, HIST_HIGHEST_NS), 0);
	for (uint64_t i = 0; i < N; i++) {
		v[i] = 1000000 + i * 517 + 101;
		hist_record(&h, v[i]);
	}
	struct pct_ci ci;
	pct_ci_order_stats(&h, &ci);
	for (int k = 0; k < PCT_LEVELS; k++) {
		uint64_t l, u;
		pct_rank_bounds(N, pct_level[k], &l, &u);
		ASSERT(l >= 2);
		/* p99.9 and p99.99 of 2000: no sample bounds the upper side. */
		ASSERT(ci.hi_open[k] == (u > N));
		uint64_t xl = v[l - 1], xu = v[(u <= N ? u : N) - 1];	/* v is sorted */
		ASSERT(hist_lowest_equivalent(&h, xl) < xl);
		fprintf(stderr, "    %s: x(%llu) = %llu, lo %.0f; x(%llu) = %llu, hi %.0f\n",
			pct_label[k], (unsigned long long)l, (unsigned long long)xl, ci.lo[k],
			(unsigned long long)u, (unsigned long long)xu, ci.hi[k]);
		ASSERT(ci.lo[k] == (double)hist_lowest_equivalent(&h, xl));
		ASSERT(ci.lo[k] <= (double)xl && (double)xu <= ci.hi[k]);
		ASSERT(!ci.lo_open[k]);
	}
	hist_destroy(&h);
	free(v);
}

static void t_quantiles(void)
{
	ASSERT_NEAR(pct_t975(1), 12.706, 1e-9);
	ASSERT_NEAR(pct_t975(4), 2.776, 1e-9);
	ASSERT_NEAR(pct_t975(30), 2.042, 1e-9);
	ASSERT_NEAR(pct_t975(120), 1.980, 0.002);
	for (uint32_t df = 2; df < 200; df++)
		ASSERT(pct_t975(df) < pct_t975(df - 1) && pct_t975(df) > 1.96);
}

/* Exponential, mean 1 ms, in ns. */
static uint64_t draw(struct rng *r)
{
	double u = ((double)rng_next(r) + 0.5) / 4294967296.0;
	return (uint64_t)(-log(u) * 1e6);
}

static double true_quantile(int k)
{
	return -log(1 - pct_level[k] / 100) * 1e6;
}

static void order_statistics_coverage(void)
{
	enum { REPS = 2000, N = 1000 };
	struct rng r;
	struct hist h;
	uint32_t hits[3] = { 0 };
	rng_seed(&r, 7, 1);
	ASSERT_EQ(hist_init(&h, 3, HIST_HIGHEST_NS), 0);
	for (int rep = 0; rep < REPS; rep++) {
		hist_reset(&h);
		for (int i = 0; i < N; i++)
			hist_record(&h, draw(&r));
		struct pct_ci ci;
		pct_ci_order_stats(&h, &ci);
		ASSERT_EQ(ci.method, PCT_CI_ORDER_STATS);
		for (int k = 0; k < 3; k++) {
			double p = (double)hist_percentile(&h, pct_level[k]);
			ASSERT(ci.lo[k] <= p && p <= ci.hi[k]);
			hits[k] += ci.lo[k] <= true_quantile(k) && true_quantile(k) <= ci.hi[k];
		}
	}
	hist_destroy(&h);
	for (int k = 0; k < 3; k++) {
		double cov = (double)hits[k] / REPS;
		fprintf(stderr, "    %s: coverage %.3f\n", pct_label[k], cov);
		ASSERT(cov >= 0.93 && cov <= 0.985);
	}
}

static void batch_means_coverage(void)
{
	enum { REPS = 1000, NB = 5, N = 2000 };
	struct rng r;
	struct hist pooled, one;
	uint32_t hits[3] = { 0 };
	uint64_t *v = malloc(N * sizeof *v);
	ASSERT(v);
	rng_seed(&r, 11, 2);
	ASSERT_EQ(hist_init(&pooled, 3, HIST_HIGHEST_NS), 0);
	ASSERT_EQ(hist_init(&one, 3, HIST_HIGHEST_NS), 0);
	for (int rep = 0; rep < REPS; rep++) {
		double b[NB][PCT_LEVELS], center[PCT_LEVELS];
		hist_reset(&pooled);
		for (int i = 0; i < NB; i++) {
			for (int j = 0; j < N; j++) {
				v[j] = draw(&r);
				hist_record(&pooled, v[j]);
			}
			pct_of_values(v, N, b[i]);
		}
		for (int k = 0; k < PCT_LEVELS; k++)
			center[k] = (double)hist_percentile(&pooled, pct_level[k]);
		struct pct_ci ci;
		pct_ci_batches((const double (*)[PCT_LEVELS])b, NB, center, PCT_CI_BATCH_TRIALS, &ci);
		ASSERT_EQ(ci.method, PCT_CI_BATCH_TRIALS);
		ASSERT_EQ(ci.batches, NB);
		for (int k = 0; k < 3; k++)
			hits[k] += ci.lo[k] <= true_quantile(k) && true_quantile(k) <= ci.hi[k];
		/* One batch has no spread to go by: no interval. */
		pct_ci_batches((const double (*)[PCT_LEVELS])b, 1, center, PCT_CI_BATCH_TRIALS, &ci);
		ASSERT_EQ(ci.method, PCT_CI_NONE);
	}
	for (int k = 0; k < 3; k++) {
		double cov = (double)hits[k] / REPS;
		fprintf(stderr, "    %s: coverage %.3f\n", pct_label[k], cov);
		ASSERT(cov >= 0.9 && cov <= 0.99);
	}
	hist_destroy(&pooled);
	hist_destroy(&one);
	free(v);
}

/* ---- the driver ------------------------------------------------------- */

static void driver_runs(const char *workload, const char *const *params, uint32_t trials,
			struct run_result *res)
{
	const struct policy *p = policy_find("central-queue");
	const struct workload *wl = workload_find(workload);
	ASSERT(p && wl);
	double kv[64], pv[64];
	knob_defaults(p->knobs, p->nknobs, kv);
	knob_defaults(wl->params, wl->nparams, pv);
	for (size_t i = 0; params && params[i]; i++) {
		char name[64];
		const char *eq = strchr(params[i], '=');
		ASSERT(eq && (size_t)(eq - params[i]) < sizeof name);
		memcpy(name, params[i], (size_t)(eq - params[i]));
		name[eq - params[i]] = 0;
		int k = knob_find(wl->params, wl->nparams, name);
		ASSERT(k >= 0);
		pv[k] = atof(eq + 1);
	}
	struct run_config cfg = {
		.policy = p, .name = p->name, .wl = wl, .knobs = kv, .params = pv, .workers = 4,
		.trials = trials, .warmup = 0, .seed = 3, .sample_period = 1, .hist_digits = 3,
		.sim = true,
	};
	char err[256];
	if (driver_run(&cfg, res, err, sizeof err) != 0)
		TEST_FAIL("driver_run: %s", err);
}

static void holds(const struct hist *h, const struct pct_ci *ci)
{
	for (int k = 0; k < PCT_LEVELS; k++) {
		double p = (double)hist_percentile(h, pct_level[k]);
		ASSERT(ci->lo[k] <= p && p <= ci->hi[k]);
		ASSERT(ci->lo[k] < ci->hi[k] || h->min == h->max);
	}
}

static void driver_intervals(void)
{
	static const char *const ol[] = { "load=0.8", "requests=3000", "service_us=100", NULL };
	struct run_result res;

	driver_runs("open-loop", ol, 3, &res);
	ASSERT_EQ(res.e2e_ci.method, PCT_CI_BATCH_TRIALS);
	ASSERT_EQ(res.e2e_ci.batches, 3);
	ASSERT_EQ(res.sched_ci.method, PCT_CI_BATCH_TRIALS);
	holds(&res.end_to_end, &res.e2e_ci);
	holds(&res.sched_delay, &res.sched_ci);
	for (int k = 0; k < PCT_LEVELS; k++) {
		double m = 0, ss = 0, x[3];
		for (int i = 0; i < 3; i++)
			m += x[i] = res.trials[i].e2e_pct[k];
		m /= 3;
		for (int i = 0; i < 3; i++)
			ss += (x[i] - m) * (x[i] - m);
		double half = 4.303 * sqrt(ss / 2) / sqrt(3.0);
		double p = (double)hist_percentile(&res.end_to_end, pct_level[k]);
		ASSERT_NEAR(res.e2e_ci.hi[k], p + half, 1e-6 * p);
		if (p > half)
			ASSERT_NEAR(res.e2e_ci.lo[k], p - half, 1e-6 * p);
		ASSERT(res.trials[0].e2e_samples > 0);
	}
	run_result_free(&res);

	driver_runs("open-loop", ol, 1, &res);
	ASSERT_EQ(res.e2e_ci.method, PCT_CI_BATCH_SLICES);
	ASSERT_EQ(res.e2e_ci.batches, PCT_CI_SLICES);
	ASSERT_EQ(res.nslices, PCT_CI_SLICES);
	ASSERT_EQ(res.sched_ci.method, PCT_CI_ORDER_STATS);
	holds(&res.end_to_end, &res.e2e_ci);
	holds(&res.sched_delay, &res.sched_ci);
	run_result_free(&res);

	static const char *const fib[] = { "n=18", NULL };
	driver_runs("fib", fib, 1, &res);
	ASSERT(!res.has_end_to_end);
	ASSERT_EQ(res.sched_ci.method, PCT_CI_ORDER_STATS);
	holds(&res.sched_delay, &res.sched_ci);
	run_result_free(&res);
}

/*
 * The median's distribution-free interval and the --trials auto stopping
 * rule built on it: the ranks against the binomial summed independently
 * (binom_cdf), the textbook ranks of 20, and the rule on made-up makespans
 * whose interval is known by hand.
 */
static void median_rule(void)
{
	double cov;
	/* Below 6 trials [min, max] covers less than 95%; from 6 on it does. */
	ASSERT_U64_EQ(pct_median_rank(5, &cov), 1);
	ASSERT(fabs(cov - 0.9375) < 1e-12);
	ASSERT_U64_EQ(pct_median_rank(6, &cov), 1);
	ASSERT(fabs(cov - 0.96875) < 1e-12);
	ASSERT_U64_EQ(pct_median_rank(20, NULL), 6);
	for (uint32_t n = 6; n <= 200; n++) {
		uint32_t j = pct_median_rank(n, &cov);
		ASSERT(binom_cdf(n, 0.5, j - 1) <= 0.025 + 1e-12);
		ASSERT(binom_cdf(n, 0.5, j) > 0.025);
		ASSERT(fabs(cov - (1 - 2 * binom_cdf(n, 0.5, j - 1))) < 1e-9);
	}
	/* 9 trials: j = 2, the interval [x(2), x(8)]; median 100. */
	double v[9] = { 130, 96, 100, 104, 99, 101, 98, 102, 50 };
	double hw;
	ASSERT(!pct_median_within(v, 9, 6, 0.02, &hw));
	ASSERT(fabs(hw - (104.0 - 96.0) / 2 / 100) < 1e-12);	/* 4%: not within 2% */
	ASSERT(pct_median_within(v, 9, 6, 0.04, &hw));
	/* Within the target, but fewer trials than the minimum. */
	ASSERT(!pct_median_within(v, 9, 10, 0.04, NULL));
	/* Identical trials: half-width 0, met at the minimum. */
	double same[6] = { 7, 7, 7, 7, 7, 7 };
	ASSERT(pct_median_within(same, 6, 6, 1e-9, &hw) && hw == 0);
	ASSERT(!pct_median_within(same, 0, 0, 0.5, NULL));
}

int main(void)
{
	RUN(ranks);
	RUN(one_sample);
	RUN(order_stats_bucket_edges);
	RUN(median_rule);
	RUN(t_quantiles);
	RUN(order_statistics_coverage);
	RUN(batch_means_coverage);
	RUN(driver_intervals);
	return 0;
}
