/*
 * pctci.c - 95% confidence intervals for reported percentiles (pctci.h).
 */
#include "core/pctci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const double pct_level[PCT_LEVELS] = { 50, 90, 99, 99.9, 99.99 };
const char *const pct_key[PCT_LEVELS] = { "p50", "p90", "p99", "p99_9", "p99_99" };
const char *const pct_label[PCT_LEVELS] = { "p50", "p90", "p99", "p99.9", "p99.99" };

const char *pct_ci_method_name(enum pct_ci_method m)
{
	switch (m) {
	case PCT_CI_BATCH_TRIALS:
		return "batch-means-trials";
	case PCT_CI_BATCH_SLICES:
		return "batch-means-slices";
	case PCT_CI_ORDER_STATS:
		return "order-statistics";
	default:
		return "none";
	}
}

/* t(0.975, df) for df = 1..30; beyond, 1.96 + 2.4 / df is within 0.2%. */
static const double t975[31] = {
	0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074,  2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double pct_t975(uint32_t df)
{
	if (df == 0)
		return INFINITY;
	return df <= 30 ? t975[df] : 1.96 + 2.4 / (double)df;
}

void pct_ci_batches(const double (*batch)[PCT_LEVELS], uint32_t nb,
		    const double center[PCT_LEVELS], enum pct_ci_method m, struct pct_ci *out)
{
	memset(out, 0, sizeof *out);
	out->method = nb >= 2 ? m : PCT_CI_NONE;
	out->batches = nb;
	for (int k = 0; k < PCT_LEVELS; k++) {
		double mean = 0, ss = 0;
		for (uint32_t i = 0; i < nb; i++)
			mean += batch[i][k];
		mean /= nb ? nb : 1;
		for (uint32_t i = 0; i < nb; i++)
			ss += (batch[i][k] - mean) * (batch[i][k] - mean);
		double half = nb >= 2 ? pct_t975(nb - 1) * sqrt(ss / (nb - 1)) / sqrt((double)nb)
				      : 0;
		out->lo[k] = fmax(0, center[k] - half);
		out->hi[k] = center[k] + half;
	}
}

/* The ranks from P(B <= k), B ~ Bin(n, p) the number of samples at or
 * below the p-quantile, summed exactly: used when n p (1 - p) is small,
 * where the normal approximation is poor. */
static void exact_bounds(uint64_t n, double p, uint64_t *l, uint64_t *u)
{
	double lp = log(p), lq = log1p(-p), cum = 0;
	*l = 0;		/* none, unless P(B <= 0) <= 2.5% */
	*u = n + 1;
	for (uint64_t k = 0; k <= n; k++) {
		double pmf = exp(lgamma((double)n + 1) - lgamma((double)k + 1) -
				 lgamma((double)(n - k) + 1) + (double)k * lp + (double)(n - k) * lq);
		cum += pmf;	/* P(B <= k) */
		if (cum <= 0.025)
			*l = k + 1;	/* P(x(k+1) above the quantile) = P(B <= k) <= 2.5% */
		if (1 - cum <= 0.025) {
			*u = k + 1;	/* P(x(k+1) below it) = P(B >= k + 1) <= 2.5% */
			break;
		}
	}
}

void pct_rank_bounds(uint64_t n, double p, uint64_t *l, uint64_t *u)
{
	double q = p / 100, var = (double)n * q * (1 - q);
	if (n == 0) {
		*l = *u = 0;
		return;
	}
	if (var >= 25) {
		double mid = (double)n * q, half = 1.96 * sqrt(var);
		double lo = floor(mid - half), hi = ceil(mid + half) + 1;
		*l = lo < 1 ? 1 : (uint64_t)lo;
		*u = (uint64_t)hi;
		return;
	}
	if (q <= 0 || q >= 1) {
		*l = 1;
		*u = n;
		return;
	}
	exact_bounds(n, q, l, u);
}

/* The value of rank r (1-based) of the samples in h, the bucket's lowest
 * (lower bound) or highest (upper bound) equivalent value. */
static double value_at_rank(const struct hist *h, uint64_t r, int upper)
{
	if (r > h->total)
		return (double)h->max;
	if (r < 1)
		r = 1;
	/* ceil(p / 100 x total) = r for p = 100 (r - 1/2) / total. */
	uint64_t v = hist_percentile(h, 100.0 * ((double)r - 0.5) / (double)h->total);
	if (upper)
		return (double)v;
	v = hist_lowest_equivalent(h, v);
	return (double)(v < h->min ? h->min : v);
}

void pct_ci_order_stats(const struct hist *h, struct pct_ci *out)
{
	memset(out, 0, sizeof *out);
	if (h->total == 0)
		return;
	out->method = PCT_CI_ORDER_STATS;
	for (int k = 0; k < PCT_LEVELS; k++) {
		uint64_t l, u;
		pct_rank_bounds(h->total, pct_level[k], &l, &u);
		out->lo_open[k] = l == 0;
		out->hi_open[k] = u > h->total;
		out->lo[k] = l == 0 ? 0 : value_at_rank(h, l, 0);
		out->hi[k] = value_at_rank(h, u, 1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void pct_of_values(uint64_t *v, uint64_t n, double out[PCT_LEVELS])
{
	qsort(v, n, sizeof *v, cmp_u64);
	for (int k = 0; k < PCT_LEVELS; k++) {
		if (n == 0) {
			out[k] = 0;
			continue;
		}
		double r = ceil(pct_level[k] / 100 * (double)n);
		uint64_t i = r < 1 ? 0 : (uint64_t)r - 1;
		out[k] = (double)v[i < n ? i : n - 1];
	}
}

uint32_t pct_median_rank(uint32_t n, double *coverage)
{
	/* term = P(B = k), cum = P(B <= k) for B ~ Bin(n, 1/2). */
	double term = ldexp(1.0, -(int)n), cum = 0, below = term;
	uint32_t j = 1;
	for (uint32_t k = 0; k + 1 <= (n + 1) / 2; k++) {
		cum += term;
		if (cum > 0.025)
			break;
		j = k + 1;	/* P(B <= j - 1) <= 2.5% */
		below = cum;
		term *= (double)(n - k) / (k + 1);
	}
	if (coverage)
		*coverage = 1 - 2 * below;
	return j;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double pct_median_rel_halfwidth(double *v, uint32_t n)
{
	if (n == 0)
		return INFINITY;
	qsort(v, n, sizeof *v, cmp_dbl);
	uint32_t j = pct_median_rank(n, NULL);
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double half = (v[n - j] - v[j - 1]) / 2;
	if (half == 0)
		return 0;
	return med > 0 ? half / med : INFINITY;
}

bool pct_median_within(double *v, uint32_t n, uint32_t min, double target, double *hw)
{
	double h = pct_median_rel_halfwidth(v, n);
	if (hw)
		*hw = h;
	return n >= min && h <= target;
}
