/*
 * pctci.h - 95% confidence intervals for reported percentiles.
 *
 * Every percentile the harness reports (p50, p90, p99, p99.9, p99.99 of the
 * scheduling delay and of the end-to-end latency) carries an interval, by
 * one of two methods (docs/results.md, "Intervals of percentiles"):
 *
 *  - batch means: the percentile computed on each of b batches (the
 *    measured trials, or for a one-trial run of requests b consecutive
 *    slices of its recorded requests), and the interval
 *    pooled +- t(0.975, b - 1) x sd / sqrt(b), sd the standard deviation of
 *    the batch percentiles. Batches far enough apart are nearly
 *    independent even when neighbouring samples are not (a loaded queue's
 *    latencies come in long correlated runs), which is why this is the
 *    method whenever there are batches.
 *  - order statistics: distribution-free for independent samples. With n
 *    samples, the number below the true p-quantile is Binomial(n, p); the
 *    ranks l and u with P(B < l) <= 2.5% and P(B >= u) <= 2.5% bound it, and
 *    the interval is [x(l), x(u)], read from the histogram. Used for one
 *    trial of scheduling delays, which have no batches. Correlated samples
 *    make it too narrow.
 */
#ifndef HARNESS_CORE_PCTCI_H
#define HARNESS_CORE_PCTCI_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"

/* The reported percentiles: p50, p90, p99, p99.9, p99.99. */
#define PCT_LEVELS 5
extern const double pct_level[PCT_LEVELS];	/* 50, 90, 99, 99.9, 99.99 */
extern const char *const pct_key[PCT_LEVELS];	/* "p50", ..., "p99_99" (JSON keys) */
extern const char *const pct_label[PCT_LEVELS];	/* "p50", ..., "p99.99" (text) */

enum pct_ci_method {
	PCT_CI_NONE,		/* no samples */
	PCT_CI_BATCH_TRIALS,	/* batch means, one batch per measured trial */
	PCT_CI_BATCH_SLICES,	/* batch means over consecutive slices of one trial */
	PCT_CI_ORDER_STATS,	/* binomial order statistics of the pooled samples */
};

/* Batches of a one-trial run of requests, and the fewest requests per
 * batch for the slices to be used. */
#define PCT_CI_SLICES 10
#define PCT_CI_SLICE_MIN 100

struct pct_ci {
	enum pct_ci_method method;
	uint32_t batches;		/* batch means: b */
	double lo[PCT_LEVELS], hi[PCT_LEVELS];
	/* Order statistics: too few samples for the data to bound this side
	 * at 95% (no rank l with P(B <= l - 1) <= 2.5%, or a rank u beyond
	 * n). lo then holds 0 (a delay is never negative) and hi the
	 * largest sample; the summary prints the side as "-". One sample
	 * bounds no side of p50 and only the lower side of p99.99. */
	bool lo_open[PCT_LEVELS], hi_open[PCT_LEVELS];
};

/* The method's name in the JSON and the summary: "batch-means-trials",
 * "batch-means-slices", "order-statistics" or "none". */
const char *pct_ci_method_name(enum pct_ci_method m);

/* Student's t quantile 0.975 with df degrees of freedom (df >= 1). */
double pct_t975(uint32_t df);

/*
 * Batch means: batch[i][k] is level k's percentile in batch i (nb >= 2),
 * center[k] the pooled percentile. lo is clamped at 0.
 */
void pct_ci_batches(const double (*batch)[PCT_LEVELS], uint32_t nb,
		    const double center[PCT_LEVELS], enum pct_ci_method m, struct pct_ci *out);

/* Order statistics of the samples in h (an empty h gives PCT_CI_NONE). */
void pct_ci_order_stats(const struct hist *h, struct pct_ci *out);

/* The ranks (1-based) bounding the p-quantile of n independent samples
 * with 95% coverage; *l is 0 when no rank bounds it from below (P(B <= 0)
 * > 2.5%), and *u may exceed n (no upper bound from the data). */
void pct_rank_bounds(uint64_t n, double p, uint64_t *l, uint64_t *u);

/* Percentiles of v[0..n) by nearest rank, as the histogram reports them
 * (v is sorted in place). */
void pct_of_values(uint64_t *v, uint64_t n, double out[PCT_LEVELS]);

/*
 * The distribution-free 95% interval of the median of n trials (the one the
 * result files give every median): with B ~ Bin(n, 1/2) the number of
 * trials below the true median, j is the largest rank with
 * P(B <= j - 1) <= 2.5%, and the interval is [x(j), x(n + 1 - j)] of the
 * sorted values, its coverage 1 - 2 P(B <= j - 1) (*coverage, if not
 * NULL). Below 6 trials j is 1: [min, max], with less than 95% coverage.
 */
uint32_t pct_median_rank(uint32_t n, double *coverage);

/*
 * --trials auto (docs/measuring.md): the half-width of that interval over
 * the median, (x(n + 1 - j) - x(j)) / 2 / median, of v[0..n) (sorted in
 * place). 0 when every value is 0; INFINITY for n = 0 or a median of 0
 * with a spread.
 */
double pct_median_rel_halfwidth(double *v, uint32_t n);

/*
 * The stopping rule of --trials auto: n >= min trials and the relative
 * half-width at most target (a fraction: 0.02 for 2%). *hw (if not NULL)
 * gets the half-width. Sorts v in place.
 */
bool pct_median_within(double *v, uint32_t n, uint32_t min, double target, double *hw);

#endif
