/*
 * hist.c - log-linear histograms in the HdrHistogram layout.
 *
 * The layout is HdrHistogram's with a unit magnitude of 0 (the lowest
 * discernible value is 1). A value v falls in bucket b, the number of
 * bits by which v exceeds the sub-bucket range:
 *
 *	b = bitlen(v | sub_bucket_mask) - log2(sub_bucket_count)
 *
 * Within bucket b the sub-bucket is v >> b, which lies in
 * [sub_bucket_count / 2, sub_bucket_count) for every bucket but the first
 * (the first also covers [0, sub_bucket_count / 2), at unit resolution).
 * Only the upper half of each later bucket is stored, because its lower
 * half is the previous bucket at twice the resolution, so the counts index
 * HdrHistogram computes as
 *
 *	(b + 1) * half + (v >> b) - half
 *
 * simplifies to (b << half_magnitude) + (v >> b). Every value in a slot
 * shares its top log2(sub_bucket_count) significant bits, which bounds the
 * relative width of a slot by 2 / sub_bucket_count <= 10^-sig_digits.
 */
#include "hist.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The bucket holding v; the mask keeps v | mask non-zero for clz. */
static inline uint32_t bucket_of(const struct hist *h, uint64_t v)
{
	uint32_t bits = 64 - (uint32_t)__builtin_clzll(v | h->sub_bucket_mask);

	return bits - (h->sub_bucket_half_count_magnitude + 1);
}

static inline uint32_t index_of(const struct hist *h, uint64_t v)
{
	uint32_t b = bucket_of(h, v);

	return (b << h->sub_bucket_half_count_magnitude) + (uint32_t)(v >> b);
}

/* The inverse of index_of: the lowest value stored in slot i. */
static uint64_t value_at_index(const struct hist *h, uint32_t i)
{
	int32_t b = (int32_t)(i >> h->sub_bucket_half_count_magnitude) - 1;
	uint64_t sub = (i & (h->sub_bucket_half_count - 1)) +
		       h->sub_bucket_half_count;

	if (b < 0) {
		/* Slots below sub_bucket_half_count are bucket 0's lower half. */
		sub -= h->sub_bucket_half_count;
		b = 0;
	}
	return sub << b;
}

/* The middle of slot i: its lowest value plus half its width. */
static uint64_t slot_median(const struct hist *h, uint32_t i)
{
	uint64_t lo = value_at_index(h, i);

	return lo + (hist_highest_equivalent(h, lo) - lo + 1) / 2;
}

uint64_t hist_slot_lowest(const struct hist *h, uint32_t i)
{
	return value_at_index(h, i);
}

uint64_t hist_lowest_equivalent(const struct hist *h, uint64_t v)
{
	uint32_t b = bucket_of(h, v);

	return (v >> b) << b;
}

uint64_t hist_highest_equivalent(const struct hist *h, uint64_t v)
{
	uint32_t b = bucket_of(h, v);

	/* Cannot overflow: the slot ends at or below 2^64 - 1. */
	return ((v >> b) << b) + ((UINT64_C(1) << b) - 1);
}

/*
 * Buckets needed so that `highest` has a slot: bucket k covers values below
 * sub_bucket_count << k. Shifting stops short of overflow; a highest at or
 * above 2^63 needs exactly one more bucket than the last one we can form.
 */
static uint32_t buckets_to_cover(uint64_t highest, uint32_t sub_bucket_count)
{
	uint64_t limit = sub_bucket_count;
	uint32_t n = 1;

	while (limit <= highest) {
		if (limit > UINT64_MAX / 2)
			return n + 1;
		limit <<= 1;
		n++;
	}
	return n;
}

int hist_init(struct hist *h, int sig_digits, uint64_t highest)
{
	uint64_t resolution = 2;
	uint32_t magnitude = 0;

	memset(h, 0, sizeof(*h));
	if (sig_digits < 1 || sig_digits > 5 || highest < 2)
		return -EINVAL;

	/* Values below 2 * 10^sig_digits must be told apart exactly. */
	for (int i = 0; i < sig_digits; i++)
		resolution *= 10;
	while ((UINT64_C(1) << magnitude) < resolution)
		magnitude++;

	h->sig_digits = sig_digits;
	h->highest = highest;
	h->sub_bucket_count = UINT32_C(1) << magnitude;
	h->sub_bucket_half_count = h->sub_bucket_count / 2;
	h->sub_bucket_half_count_magnitude = magnitude - 1;
	h->sub_bucket_mask = h->sub_bucket_count - 1;
	h->bucket_count = buckets_to_cover(highest, h->sub_bucket_count);
	h->counts_len = (h->bucket_count + 1) * h->sub_bucket_half_count;
	h->counts = calloc(h->counts_len, sizeof(*h->counts));
	if (!h->counts)
		return -ENOMEM;
	h->min = UINT64_MAX;
	return 0;
}

void hist_destroy(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
	h->counts_len = 0;
}

void hist_reset(struct hist *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->counts_len * sizeof(*h->counts));
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->saturated = 0;
	h->sum = 0;
	h->sum_sq = 0;
}

void hist_record(struct hist *h, uint64_t v)
{
	if (__builtin_expect(v > h->highest, 0)) {
		v = h->highest;
		h->saturated++;
	}
	h->counts[index_of(h, v)]++;
	h->total++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;

	h->sum += v;
	h->sum_sq += (unsigned __int128)v * v;
}

void hist_record_n(struct hist *h, uint64_t v, uint64_t n)
{
	if (n == 0)
		return;	/* nothing seen: min and max must not move */
	if (v > h->highest) {
		v = h->highest;
		h->saturated += n;
	}
	h->counts[index_of(h, v)] += n;
	h->total += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;

	h->sum += (unsigned __int128)v * n;
	h->sum_sq += (unsigned __int128)v * v * n;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	if (dst->sig_digits != src->sig_digits || dst->highest != src->highest ||
	    dst->counts_len != src->counts_len)
		return -EINVAL;

	/* Every value recorded (clamped to highest) lies in [min, max] and
	 * index_of is monotonic, so src's counts outside these slots are 0.
	 * Walking only them leaves the rest of a mostly empty array (270 KB
	 * at 3 digits) unread: never touched since its calloc, its pages are
	 * not even mapped. */
	if (src->total != 0) {
		uint32_t lo = index_of(src, src->min), hi = index_of(src, src->max);
		for (uint32_t i = lo; i <= hi; i++)
			dst->counts[i] += src->counts[i];
	}
	dst->total += src->total;
	dst->saturated += src->saturated;
	/* An empty src has min UINT64_MAX and max 0, which fold as no-ops. */
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sum_sq += src->sum_sq;
	return 0;
}

/*
 * ceil(p / 100 * total) in [1, total]. The product is computed in binary
 * floating point, so a decimal percentile that lands exactly on a rank
 * (p99.9 of 1000 values: rank 999) can come out a few ulps above it and
 * ceil would skip to the next rank, here the maximum. Shaving a few ulps
 * off first gives the rank the decimal percentile means; a percentile held
 * in a double cannot tell a rank that close above an integer from it.
 */
static uint64_t rank_at(uint64_t total, double p)
{
	double x = p / 100.0 * (double)total;

	x -= x * (4 * DBL_EPSILON);
	if (!(x > 1.0))		/* also catches a NaN percentile */
		return 1;
	if (x >= (double)total)
		return total;
	return (uint64_t)ceil(x);
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (h->total == 0)
		return 0;
	if (p >= 100.0)
		return h->max;

	uint64_t want = rank_at(h->total, p), seen = 0;

	for (uint32_t i = 0; i < h->counts_len; i++) {
		seen += h->counts[i];
		if (seen >= want) {
			uint64_t v = hist_highest_equivalent(h, value_at_index(h, i));
			return v < h->max ? v : h->max;
		}
	}
	/* The counts sum to total, so the walk always stops above. */
	CHECK_MSG(0, "histogram counts sum below total %llu",
		  (unsigned long long)h->total);
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}

/*
 * Population standard deviation, as HdrHistogram reports it. The textbook
 * sum-of-squares formula can go slightly negative through cancellation when
 * the spread is tiny next to the mean; that is a zero spread.
 */
double hist_stddev(const struct hist *h)
{
	if (h->total == 0)
		return 0.0;

	double n = (double)h->total, mean = (double)h->sum / n;
	double var = (double)h->sum_sq / n - mean * mean;

	return var > 0 ? sqrt(var) : 0.0;
}

/* fprintf and fflush set errno on failure; a stream may fail without one. */
static int write_error(void)
{
	return errno > 0 ? -errno : -EIO;
}

/*
 * One row as HdrHistogram_c's hdr_percentiles_print writes it
 * (src/hdr_histogram.c, format_line_string): the value with as many
 * decimals as the histogram has significant digits, the percentile as a
 * fraction to six decimals, the cumulative count, 1/(1-fraction) to two
 * decimals, which the closing row (fraction 1) prints as "inf".
 */
static int write_row(FILE *f, bool csv, int digits, double value, double fraction,
		     uint64_t cum)
{
	double inverted = 1.0 / (1.0 - fraction);
	int rc;

	if (csv)
		rc = fprintf(f, "%.*f,%f,%" PRIu64 ",%.2f\n", digits, value, fraction, cum,
			     inverted);
	else
		rc = fprintf(f, "%12.*f %12f %12" PRIu64 " %12.2f\n", digits, value, fraction,
			     cum, inverted);
	return rc < 0 ? write_error() : 0;
}

/*
 * The mean and standard deviation of the footer as HdrHistogram_c computes
 * them (hdr_mean, hdr_stddev): each slot's count at the slot's median
 * equivalent value (lowest + half its width), summed in doubles in slot
 * order. The exact figures are in the result file (hist_mean, hist_stddev).
 */
static void slot_moments(const struct hist *h, double *mean, double *stddev)
{
	double total = 0.0, dev2 = 0.0;

	*mean = *stddev = 0.0;
	if (h->total == 0)
		return;
	for (uint32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i])
			total += (double)h->counts[i] * (double)slot_median(h, i);
	*mean = total / (double)h->total;
	for (uint32_t i = 0; i < h->counts_len; i++) {
		if (h->counts[i]) {
			double dev = (double)slot_median(h, i) - *mean;
			dev2 += dev * dev * (double)h->counts[i];
		}
	}
	*stddev = sqrt(dev2 / (double)h->total);
}

/*
 * The next percentile to report after `pct`: HdrHistogram reports
 * ticks_per_half_distance rows each time the distance to 100% halves, so
 * the rows crowd in toward the tail where latency plots need them.
 *
 * Once the step is too small to move a double (a huge tick count and a
 * total in the quadrillions), no further level below 100% exists; INFINITY
 * then ends the rows and leaves only the closing 100% row, where
 * HdrHistogram's iteration would repeat the same level forever.
 */
static double next_percentile(double pct, int ticks_per_half_distance)
{
	double left = 100.0 - pct;

	/*
	 * log(x) / log(2) rather than log2(x): the truncation below must fall
	 * on the same side as HdrHistogram's so that the rows match its rows.
	 */
	double l2 = left > 0 ? log(100.0 / left) / log(2.0) : INFINITY;

	if (!(l2 < 61))
		return INFINITY;

	int halvings = (int)l2 + 1;
	double ticks = ldexp((double)ticks_per_half_distance, halvings);
	double next = pct + 100.0 / ticks;

	return next > pct && next < 100.0 ? next : INFINITY;
}

int hist_write_percentiles(const struct hist *h, FILE *f, int ticks_per_half_distance,
			   double unit, bool csv)
{
	int rc;

	if (ticks_per_half_distance < 1 || !(unit > 0))
		return -EINVAL;

	errno = 0;
	if (csv)
		rc = fprintf(f, "%s,%s,%s,%s\n", "Value", "Percentile",
			     "TotalCount", "1/(1-Percentile)");
	else
		rc = fprintf(f, "%12s %12s %12s %12s\n\n", "Value", "Percentile",
			     "TotalCount", "1/(1-Percentile)");
	if (rc < 0)
		return write_error();

	/*
	 * HdrHistogram_c's percentile iteration (percentile_iter_next): walk
	 * the non-empty slots and emit a row each time the cumulative
	 * percentile reaches the next reporting level, so a heavy slot can
	 * produce several rows. The slot that completes the count yields one
	 * row, then the 100% row closes the table. A row's value is the
	 * highest value equivalent to its slot, as HdrHistogram prints it (not
	 * capped at the exact max, which the result file holds).
	 */
	uint64_t cum = 0, v = 0;
	double level = 0.0;

	for (uint32_t i = 0; i < h->counts_len && cum < h->total; i++) {
		if (h->counts[i] == 0)
			continue;
		cum += h->counts[i];

		double reached = 100.0 * (double)cum / (double)h->total;

		v = hist_highest_equivalent(h, value_at_index(h, i));
		while (level <= reached) {
			rc = write_row(f, csv, h->sig_digits, (double)v / unit, level / 100.0, cum);
			if (rc)
				return rc;
			level = next_percentile(level, ticks_per_half_distance);
			if (cum == h->total)
				break;
		}
	}
	rc = write_row(f, csv, h->sig_digits, (double)v / unit, 1.0, h->total);
	if (rc)
		return rc;

	if (!csv) {
		/* hdr_max: the highest value equivalent to the largest recorded. */
		uint64_t max = h->total && h->max ? hist_highest_equivalent(h, h->max) : 0;
		double mean, stddev;

		slot_moments(h, &mean, &stddev);
		rc = fprintf(f,
			     "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
			     "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n"
			     "#[Buckets = %12d, SubBuckets     = %12d]\n",
			     mean / unit, stddev / unit, (double)max / unit, h->total,
			     (int)h->bucket_count, (int)h->sub_bucket_count);
		if (rc < 0)
			return write_error();
	}
	/* Buffered output fails late (a full disk shows up on flush). */
	if (fflush(f) != 0)
		return write_error();
	return 0;
}
