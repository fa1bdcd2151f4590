/*
 * hist.h - log-linear latency histograms in the HdrHistogram layout.
 *
 * Values are non-negative integers (nanoseconds, by convention) from 1 to
 * `highest` with `sig_digits` significant decimal digits of precision (1 to
 * 5, default 3): every recorded value is reported within a relative error of
 * 10^-sig_digits. Buckets double in width; each holds `sub_bucket_count`
 * linear sub-buckets (the smallest power of two >= 2 * 10^sig_digits).
 * Values above `highest` are clamped to it and counted in `saturated`.
 *
 * Recording is a few instructions and never allocates: the counts array is
 * allocated once by hist_init. A histogram is written by one thread; merge
 * per-worker histograms at the end (hist_merge), which gives exactly the
 * histogram of recording every value in one.
 */
#ifndef HARNESS_CORE_HIST_H
#define HARNESS_CORE_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct hist {
	uint64_t *counts;
	uint32_t counts_len;
	uint32_t sub_bucket_count;	/* power of two */
	uint32_t sub_bucket_half_count;
	uint32_t sub_bucket_half_count_magnitude;
	uint32_t bucket_count;
	uint64_t sub_bucket_mask;
	int sig_digits;
	uint64_t highest;
	uint64_t total;
	uint64_t min, max;		/* exact extremes of recorded values */
	uint64_t saturated;		/* values clamped to `highest` */
	/* Exact integers, so that merging in any order, or recording the
	 * same values in any order, gives the same mean to the bit. They wrap
	 * past 2^128 only: 2^44 samples of an hour in ns for sum_sq. */
	unsigned __int128 sum, sum_sq;
};

/* Returns 0, or -EINVAL for sig_digits outside 1..5 or highest < 2. */
int hist_init(struct hist *h, int sig_digits, uint64_t highest);
void hist_destroy(struct hist *h);
void hist_reset(struct hist *h);

void hist_record(struct hist *h, uint64_t v);
void hist_record_n(struct hist *h, uint64_t v, uint64_t n);

/* dst += src. Both must have the same sig_digits and highest (-EINVAL). */
int hist_merge(struct hist *dst, const struct hist *src);

/*
 * The value at percentile p (0..100): the highest value equivalent to the
 * bucket that holds the ceil(p/100 * total)-th smallest recorded value
 * (HdrHistogram's convention), clamped to the exact max. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);

/* The bucket arithmetic, exposed for tests and writers. */
uint64_t hist_lowest_equivalent(const struct hist *h, uint64_t v);
uint64_t hist_highest_equivalent(const struct hist *h, uint64_t v);
/* The lowest value counted in counts[i], i < counts_len (slots ascend). */
uint64_t hist_slot_lowest(const struct hist *h, uint32_t i);

/*
 * Write the percentile distribution byte for byte as HdrHistogram_c's
 * hdr_percentiles_print writes it (src/hdr_histogram.c; CLASSIC, or its CSV
 * variant with csv): ticks_per_half_distance steps per halving of the
 * remaining percentile range (5 is HdrHistogram's default), each row the
 * highest value of its slot divided by `unit` (1.0 = ns, 1000.0 = us), the
 * footer's mean and deviation over the slots' middle values. Returns 0 or
 * -errno.
 */
int hist_write_percentiles(const struct hist *h, FILE *f, int ticks_per_half_distance,
			   double unit, bool csv);

#endif
