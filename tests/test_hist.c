/*
 * test_hist.c - the histogram against exact answers: percentiles against a
 * sorted copy of the recorded values, the bucket arithmetic against a
 * direct transcription of HdrHistogram's index formula, merging against
 * recording everything in one histogram, and the percentile text parsed
 * back and compared with the histogram it came from.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "test.h"

#define NVALUES 1000000
#define HIGHEST UINT64_C(3600000000000)	/* an hour in nanoseconds */

/* Percentiles in thousandths of a percent, so the oracle's rank is exact. */
static const uint64_t pct_milli[] = {
	0, 1000, 10000, 25000, 50000, 75000, 90000,
	99000, 99900, 99990, 99999, 100000,
};
#define NPCT (sizeof(pct_milli) / sizeof(pct_milli[0]))

static uint64_t *values;	/* in recording order */
static uint64_t *sorted;

/* splitmix64: a fixed seed gives the same values on every platform. */
static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t next_u64(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double next_unit(void)
{
	return (double)(next_u64() >> 11) * 0x1p-53;
}

/*
 * A latency-like mix: log-uniform over ten decades, small values including
 * 0, exact repeats (some on bucket edges, one at `highest`), and a dense
 * cluster where neighbouring values share slots.
 */
static uint64_t gen_value(void)
{
	static const uint64_t repeats[] = {
		1, 2, 1000, 2047, 2048, 65536, 123456789, 999999999, HIGHEST,
	};
	uint64_t kind = next_u64() % 100;

	if (kind < 70)
		return (uint64_t)pow(10.0, 10.0 * next_unit());
	if (kind < 80) {
		uint64_t bits = next_u64() % 12;

		return next_u64() & ((UINT64_C(1) << bits) - 1);
	}
	if (kind < 90)
		return repeats[next_u64() % (sizeof(repeats) / sizeof(repeats[0]))];
	return 1000000 + next_u64() % 1000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void make_values(void)
{
	values = malloc(NVALUES * sizeof(*values));
	sorted = malloc(NVALUES * sizeof(*sorted));
	ASSERT(values && sorted);
	for (size_t i = 0; i < NVALUES; i++)
		values[i] = gen_value();
	memcpy(sorted, values, NVALUES * sizeof(*values));
	qsort(sorted, NVALUES, sizeof(*sorted), cmp_u64);
}

/* The ceil(p/100 * n)-th smallest value, clamped to [1, n], in integers. */
static uint64_t oracle(const uint64_t *s, uint64_t n, uint64_t milli)
{
	uint64_t rank = (milli * n + 99999) / 100000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return s[rank - 1];
}

static double pow10i(int e)
{
	double r = 1;

	while (e-- > 0)
		r *= 10;
	return r;
}

static void init_ok(struct hist *h, int sig, uint64_t highest)
{
	int rc = hist_init(h, sig, highest);

	ASSERT_EQ(rc, 0);
	ASSERT(h->counts != NULL);
}

static void record_all(struct hist *h)
{
	for (size_t i = 0; i < NVALUES; i++)
		hist_record(h, values[i]);
}

static void check_percentiles_vs_oracle(void)
{
	long double sum = 0, dev = 0;

	for (size_t i = 0; i < NVALUES; i++)
		sum += sorted[i];
	long double mean = sum / NVALUES;
	for (size_t i = 0; i < NVALUES; i++)
		dev += (sorted[i] - mean) * (sorted[i] - mean);
	double stddev = (double)sqrtl(dev / NVALUES);

	for (int sig = 1; sig <= 3; sig++) {
		struct hist h;
		double tol = 1 / pow10i(sig);

		init_ok(&h, sig, HIGHEST);
		record_all(&h);
		ASSERT_U64_EQ(h.total, NVALUES);
		ASSERT_U64_EQ(h.min, sorted[0]);
		ASSERT_U64_EQ(h.max, sorted[NVALUES - 1]);
		ASSERT_U64_EQ(h.saturated, 0);
		ASSERT_NEAR(hist_mean(&h), (double)mean, 1e-9 * (double)mean);
		ASSERT_NEAR(hist_stddev(&h), stddev, 1e-6 * stddev);

		uint64_t n = 0;
		for (uint32_t i = 0; i < h.counts_len; i++)
			n += h.counts[i];
		ASSERT_U64_EQ(n, NVALUES);

		for (size_t k = 0; k < NPCT; k++) {
			double p = (double)pct_milli[k] / 1000.0;
			uint64_t exact = oracle(sorted, NVALUES, pct_milli[k]);
			uint64_t got = hist_percentile(&h, p);

			/* The stated precision, independent of the layout. */
			if (!((double)got <= (double)exact * (1 + tol) + 1 &&
			      (double)got >= (double)exact * (1 - tol) - 1))
				TEST_FAIL("sig %d p%.3f: %" PRIu64 " vs exact %" PRIu64,
					  sig, p, got, exact);
			/* Exactly: the top of the exact value's slot, capped at max. */
			uint64_t top = hist_highest_equivalent(&h, exact);
			ASSERT_U64_EQ(got, top < h.max ? top : h.max);
		}
		ASSERT_U64_EQ(hist_percentile(&h, 100), sorted[NVALUES - 1]);
		ASSERT_U64_EQ(hist_lowest_equivalent(&h, hist_percentile(&h, 0)),
			      hist_lowest_equivalent(&h, sorted[0]));
		hist_destroy(&h);
	}
}

/*
 * Percentiles that land exactly on a rank must give that rank, although
 * p/100 * total is rarely exact in binary: p99.9 of 1000 values is the
 * 999th, not the maximum. Values 1..100 are exact slots at 3 digits.
 */
static void check_percentile_rank_rounding(void)
{
	struct hist h;

	init_ok(&h, 3, HIGHEST);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_record(&h, v);
	for (uint64_t k = 0; k <= 1000; k++) {
		uint64_t want = k ? k : 1;

		ASSERT_U64_EQ(hist_percentile(&h, (double)k / 10.0), want);
	}

	hist_reset(&h);
	for (uint64_t v = 1; v <= 100; v++)
		hist_record_n(&h, v, 10000);
	ASSERT_U64_EQ(h.total, 1000000);
	for (uint64_t k = 0; k <= 100000; k++) {
		/* p = k/1000 percent is rank 10k; 10000 copies per value. */
		uint64_t want = (10 * k + 9999) / 10000;

		if (want == 0)
			want = 1;
		uint64_t got = hist_percentile(&h, (double)k / 1000.0);
		if (got != want)
			TEST_FAIL("p%.3f of 1e6: %" PRIu64 " != %" PRIu64,
				  (double)k / 1000.0, got, want);
	}
	hist_destroy(&h);
}

static void check_merge(void)
{
	struct hist one, part[4], all;

	init_ok(&one, 3, HIGHEST);
	init_ok(&all, 3, HIGHEST);
	for (int i = 0; i < 4; i++)
		init_ok(&part[i], 3, HIGHEST);
	for (size_t i = 0; i < NVALUES; i++) {
		hist_record(&one, values[i]);
		hist_record(&part[i % 4], values[i]);
	}
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(hist_merge(&all, &part[i]), 0);

	ASSERT_EQ(all.counts_len, one.counts_len);
	for (uint32_t i = 0; i < one.counts_len; i++)
		if (all.counts[i] != one.counts[i])
			TEST_FAIL("counts[%u]: %" PRIu64 " != %" PRIu64, i,
				  all.counts[i], one.counts[i]);
	ASSERT_U64_EQ(all.total, one.total);
	ASSERT_U64_EQ(all.min, one.min);
	ASSERT_U64_EQ(all.max, one.max);
	ASSERT_U64_EQ(all.saturated, one.saturated);
	ASSERT_NEAR(hist_mean(&all), hist_mean(&one), 1e-9 * hist_mean(&one));
	ASSERT_NEAR(hist_stddev(&all), hist_stddev(&one), 1e-6 * hist_stddev(&one));
	for (size_t k = 0; k < NPCT; k++) {
		double p = (double)pct_milli[k] / 1000.0;

		ASSERT_U64_EQ(hist_percentile(&all, p), hist_percentile(&one, p));
	}
	for (int k = 0; k <= 200; k++)
		ASSERT_U64_EQ(hist_percentile(&all, k / 2.0),
			      hist_percentile(&one, k / 2.0));

	/* An empty source changes nothing; min must not drop to a sentinel. */
	struct hist empty;
	init_ok(&empty, 3, HIGHEST);
	ASSERT_EQ(hist_merge(&all, &empty), 0);
	ASSERT_U64_EQ(all.min, one.min);
	ASSERT_U64_EQ(all.max, one.max);
	ASSERT_U64_EQ(all.total, one.total);

	/* Layouts must agree. */
	struct hist other;
	init_ok(&other, 2, HIGHEST);
	ASSERT_EQ(hist_merge(&all, &other), -EINVAL);
	hist_destroy(&other);
	init_ok(&other, 3, HIGHEST / 2);
	ASSERT_EQ(hist_merge(&all, &other), -EINVAL);
	hist_destroy(&other);
	ASSERT_U64_EQ(all.total, one.total);

	hist_destroy(&empty);
	for (int i = 0; i < 4; i++)
		hist_destroy(&part[i]);
	hist_destroy(&all);
	hist_destroy(&one);
}

/*
 * The mean from exact sums: 3000 values of 3.5e12 and 1000 ones sum to
 * 1.05e16 + 1000, past 2^53, where a double's spacing is 2. Summed in
 * doubles the ones recorded after the large values would round away (the
 * mean 2.625e12), and recorded before them they would not (the mean
 * 2.625e12 + 0.25): the order of recording, or of merging per-worker
 * histograms, would change the figure.
 */
static void check_exact_sums(void)
{
	struct hist big_first, ones_first, parts[2], merged;

	init_ok(&big_first, 3, HIGHEST);
	init_ok(&ones_first, 3, HIGHEST);
	init_ok(&merged, 3, HIGHEST);
	for (int i = 0; i < 2; i++)
		init_ok(&parts[i], 3, HIGHEST);
	for (int i = 0; i < 3000; i++) {
		hist_record(&big_first, UINT64_C(3500000000000));
		hist_record(&parts[0], UINT64_C(3500000000000));
	}
	for (int i = 0; i < 1000; i++) {
		hist_record(&big_first, 1);
		hist_record(&ones_first, 1);
		hist_record(&parts[1], 1);
	}
	hist_record_n(&ones_first, UINT64_C(3500000000000), 3000);
	ASSERT_EQ(hist_merge(&merged, &parts[0]), 0);
	ASSERT_EQ(hist_merge(&merged, &parts[1]), 0);

	const double want = 2625000000000.25;
	if (hist_mean(&big_first) != want || hist_mean(&ones_first) != want ||
	    hist_mean(&merged) != want)
		TEST_FAIL("means %.17g, %.17g and %.17g, not %.17g", hist_mean(&big_first),
			  hist_mean(&ones_first), hist_mean(&merged), want);
	ASSERT(hist_stddev(&big_first) == hist_stddev(&ones_first));
	ASSERT(hist_stddev(&big_first) == hist_stddev(&merged));

	for (int i = 0; i < 2; i++)
		hist_destroy(&parts[i]);
	hist_destroy(&merged);
	hist_destroy(&ones_first);
	hist_destroy(&big_first);
}

/*
 * HdrHistogram's counts index, transcribed directly: the bucket is the
 * smallest b with v >> b below sub_bucket_count, and bucket b stores its
 * upper half after the (b + 1) half-buckets before it.
 */
static uint32_t ref_index(const struct hist *h, uint64_t v, uint32_t *bucket)
{
	uint32_t b = 0;

	while ((v >> b) >= h->sub_bucket_count)
		b++;
	*bucket = b;
	return (b + 1) * h->sub_bucket_half_count + (uint32_t)(v >> b) -
	       h->sub_bucket_half_count;
}

static void check_one_value(struct hist *h, uint64_t v)
{
	uint32_t b, idx = ref_index(h, v, &b);
	uint64_t lo = hist_lowest_equivalent(h, v);
	uint64_t hi = hist_highest_equivalent(h, v);

	if (lo != (v >> b) << b || hi - lo != (UINT64_C(1) << b) - 1)
		TEST_FAIL("sig %d v %" PRIu64 ": slot [%" PRIu64 ", %" PRIu64
			  "], bucket %u", h->sig_digits, v, lo, hi, b);
	ASSERT(lo <= v && v <= hi);
	ASSERT_U64_EQ(hist_lowest_equivalent(h, lo), lo);
	ASSERT_U64_EQ(hist_highest_equivalent(h, lo), hi);
	ASSERT_U64_EQ(hist_lowest_equivalent(h, hi), lo);
	ASSERT_U64_EQ(hist_highest_equivalent(h, hi), hi);
	/* Slots tile the line: the next value starts the next slot. */
	if (hi != UINT64_MAX)
		ASSERT_U64_EQ(hist_lowest_equivalent(h, hi + 1), hi + 1);
	/* Relative width: 2 / sub_bucket_count <= 10^-sig_digits. */
	double width = (double)(hi - lo) + 1;
	if (width > 1 && width > (double)lo / pow10i(h->sig_digits))
		TEST_FAIL("sig %d v %" PRIu64 ": slot width %.0f at %" PRIu64,
			  h->sig_digits, v, width, lo);

	if (v > h->highest)
		return;
	/* Both ends of the slot land in the counts entry HdrHistogram uses. */
	ASSERT(idx < h->counts_len);
	uint64_t before = h->counts[idx];
	hist_record(h, lo);
	hist_record(h, hi > h->highest ? v : hi);
	ASSERT_U64_EQ(h->counts[idx], before + 2);
}

static void check_bucket_arithmetic(void)
{
	/* HdrHistogram's own layout for (1, 3600e6, 3): 22 x 2048, 23552. */
	struct hist h;
	init_ok(&h, 3, UINT64_C(3600000000));
	ASSERT_EQ(h.sub_bucket_count, 2048);
	ASSERT_EQ(h.bucket_count, 22);
	ASSERT_EQ(h.counts_len, 23552);
	hist_destroy(&h);

	static const uint32_t sub[] = { 32, 256, 2048, 32768, 262144 };
	for (int sig = 1; sig <= 5; sig++) {
		init_ok(&h, sig, HIGHEST);
		ASSERT_EQ(h.sub_bucket_count, sub[sig - 1]);
		ASSERT(h.sub_bucket_count >= 2 * pow10i(sig));
		ASSERT(h.sub_bucket_count < 4 * pow10i(sig));
		/* Enough buckets for highest, and not one more. */
		ASSERT(((uint64_t)h.sub_bucket_count << (h.bucket_count - 1)) > HIGHEST);
		ASSERT(((uint64_t)h.sub_bucket_count << (h.bucket_count - 2)) <= HIGHEST);
		ASSERT_EQ(h.counts_len, (h.bucket_count + 1) * (h.sub_bucket_count / 2));

		for (int k = 0; k < 64; k++) {
			uint64_t p = UINT64_C(1) << k;

			check_one_value(&h, p);
			check_one_value(&h, p - 1);
			check_one_value(&h, p + 1);
			check_one_value(&h, p + p / 2);
			check_one_value(&h, p + p / 2 - 1);
		}
		check_one_value(&h, UINT64_MAX);
		check_one_value(&h, HIGHEST);
		check_one_value(&h, HIGHEST + 1);
		for (uint64_t p = 1; p < UINT64_MAX / 10; p *= 10) {
			check_one_value(&h, p - 1);
			check_one_value(&h, p);
			check_one_value(&h, p + 1);
		}
		for (int i = 0; i < 20000; i++) {
			uint64_t bits = next_u64() % 64;

			check_one_value(&h, next_u64() >> bits);
		}
		hist_destroy(&h);
	}

	/* The widest range: every 64-bit value has a slot. */
	init_ok(&h, 1, UINT64_MAX);
	hist_record(&h, UINT64_MAX);
	hist_record(&h, 0);
	ASSERT_U64_EQ(h.saturated, 0);
	ASSERT_U64_EQ(hist_percentile(&h, 100), UINT64_MAX);
	ASSERT_U64_EQ(hist_percentile(&h, 50), 0);
	check_one_value(&h, UINT64_MAX);
	check_one_value(&h, UINT64_MAX / 3);
	hist_destroy(&h);
}

static void check_saturation(void)
{
	struct hist h;
	uint32_t b;

	init_ok(&h, 3, 1000000);
	hist_record(&h, 5);
	hist_record(&h, 1000000);	/* at highest: not saturated */
	ASSERT_U64_EQ(h.saturated, 0);
	hist_record(&h, 1000001);
	hist_record(&h, UINT64_MAX);
	hist_record_n(&h, 2000000, 3);
	hist_record_n(&h, 7000000, 0);	/* nothing recorded: */
	hist_record_n(&h, 1, 0);	/* min and max stay put */
	ASSERT_U64_EQ(h.saturated, 5);
	ASSERT_U64_EQ(h.total, 7);
	ASSERT_U64_EQ(h.max, 1000000);
	ASSERT_U64_EQ(h.min, 5);
	ASSERT_U64_EQ(h.counts[ref_index(&h, 1000000, &b)], 6);
	ASSERT_U64_EQ(hist_percentile(&h, 100), 1000000);
	ASSERT_U64_EQ(hist_percentile(&h, 50), 1000000);
	ASSERT_U64_EQ(hist_percentile(&h, 10), 5);
	ASSERT_NEAR(hist_mean(&h), (5 + 6 * 1e6) / 7, 1e-6);

	struct hist m;
	init_ok(&m, 3, 1000000);
	hist_record(&m, 1 << 30);
	ASSERT_EQ(hist_merge(&m, &h), 0);
	ASSERT_U64_EQ(m.saturated, 6);
	ASSERT_U64_EQ(m.max, 1000000);
	hist_destroy(&m);

	hist_reset(&h);
	ASSERT_U64_EQ(h.saturated, 0);
	ASSERT_U64_EQ(h.total, 0);
	ASSERT_U64_EQ(hist_percentile(&h, 50), 0);
	hist_record(&h, 42);
	ASSERT_U64_EQ(h.min, 42);
	ASSERT_U64_EQ(h.max, 42);
	ASSERT_U64_EQ(hist_percentile(&h, 0), 42);
	ASSERT_U64_EQ(hist_percentile(&h, 100), 42);
	hist_destroy(&h);
}

static const char classic_header[] =
	"       Value   Percentile   TotalCount 1/(1-Percentile)\n";
static const char csv_header[] = "Value,Percentile,TotalCount,1/(1-Percentile)\n";

/* HdrHistogram's reporting levels: `ticks` per halving of 100 - level. */
static double next_level(double level, int ticks)
{
	double left = 100.0 - level, span = 100.0;
	int k = 0;

	do {
		span /= 2;
		k++;
	} while (!(left > span));
	return level + 100.0 / (ticks * ldexp(1.0, k));
}

static bool read_line(FILE *f, char *buf, size_t len)
{
	if (!fgets(buf, (int)len, f))
		return false;
	ASSERT(strchr(buf, '\n') != NULL);	/* no line is that long */
	return true;
}

/*
 * Write h, read it back and check it against h: the layout is what the
 * plotters expect and every number agrees with the histogram's own API.
 */
static void check_output(const struct hist *h, int ticks, double unit, bool csv)
{
	FILE *f = tmpfile();
	char line[512], last[32];
	double prev_pct = -1, level = 0, value, pct;
	uint64_t prev_count = 0, count;
	uint64_t top = h->total && h->max ? hist_highest_equivalent(h, h->max) : 0;
	/* Values are printed with as many decimals as significant digits. */
	double half = 0.5 * pow(10, -h->sig_digits);
	int rows = 0;
	bool done = false;

	ASSERT(f != NULL);
	ASSERT_EQ(hist_write_percentiles(h, f, ticks, unit, csv), 0);
	rewind(f);

	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, csv ? csv_header : classic_header);
	if (!csv) {
		ASSERT(read_line(f, line, sizeof(line)));
		ASSERT_STR_EQ(line, "\n");
	}

	while (!done && read_line(f, line, sizeof(line))) {
		int n, used = 0;

		if (csv) {
			ASSERT(strchr(line, ' ') == NULL);
			n = sscanf(line, "%lf,%lf,%" SCNu64 ",%31[^\n]%n", &value,
				   &pct, &count, last, &used);
		} else {
			n = sscanf(line, "%lf %lf %" SCNu64 " %31s%n", &value, &pct,
				   &count, last, &used);
			/* Value is right-aligned in the first 12 columns. */
			if (value < 1e8)
				ASSERT(line[11] != ' ' && line[12] == ' ');
		}
		if (n != 4 || strcmp(line + used, "\n") != 0)
			TEST_FAIL("bad row: %s", line);
		rows++;

		/* Six decimals: levels closer than 1e-6 print alike. */
		ASSERT(pct >= prev_pct);
		ASSERT(pct >= 0 && pct <= 1);
		ASSERT(count >= prev_count);
		ASSERT(count <= h->total);
		prev_pct = pct;
		prev_count = count;

		if (strcmp(last, "inf") == 0) {
			/* The closing row: the max's slot, everything counted. */
			ASSERT(pct == 1.0);
			ASSERT_NEAR(value, (double)top / unit, half + 1e-12 * value);
			ASSERT_U64_EQ(count, h->total);
			done = true;
			break;
		}

		ASSERT_NEAR(pct, level / 100, 5e-7 + 1e-12);
		double inverted = 1 / (1 - level / 100);
		ASSERT_NEAR(strtod(last, NULL), inverted, 0.005 + 1e-9 * inverted);
		/* At least a pct share of the values lies at or below. */
		ASSERT((double)count >= pct * (double)h->total - 1e-6 * (double)h->total);

		/*
		 * The value is the highest equivalent of hist_percentile at the
		 * row's level (HdrHistogram does not cap it at the exact max),
		 * bracketed against rounding of the level.
		 */
		double lo = (double)hist_highest_equivalent(h, hist_percentile(h, level - 1e-9)) / unit;
		double hi = (double)hist_highest_equivalent(h, hist_percentile(h, level + 1e-9)) / unit;
		level = next_level(level, ticks);
		double tol = half + 1e-12 * value;
		if (!(value >= lo - tol && value <= hi + tol))
			TEST_FAIL("row %d p %.12f: %.3f not in [%.3f, %.3f]",
				  rows, pct, value, lo, hi);
	}
	ASSERT(done);
	ASSERT_U64_EQ(prev_count, h->total);
	/* Rows come in `ticks` per halving, and these runs span several. */
	if (h->total > 1000 && rows < 5 * ticks)
		TEST_FAIL("only %d rows at %d ticks", rows, ticks);

	if (!csv) {
		double mean, sd, max;
		uint64_t total;
		int buckets, subs;
		char want[256];

		ASSERT(read_line(f, line, sizeof(line)));
		ASSERT_EQ(sscanf(line, "#[Mean    = %lf, StdDeviation   = %lf]",
				 &mean, &sd), 2);
		/*
		 * HdrHistogram's moments count each value at its slot's middle
		 * (tests/test_hist_json.sh recomputes them exactly): within a
		 * slot's relative width of the exact ones.
		 */
		double rel = 2.0 / h->sub_bucket_count;
		double m = hist_mean(h) / unit, s = hist_stddev(h) / unit;
		ASSERT_NEAR(mean, m, 0.0005 + rel * m);
		ASSERT_NEAR(sd, s, 0.0005 + rel * sqrt(m * m + s * s));
		snprintf(want, sizeof(want),
			 "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean, sd);
		ASSERT_STR_EQ(line, want);

		ASSERT(read_line(f, line, sizeof(line)));
		ASSERT_EQ(sscanf(line, "#[Max     = %lf, Total count    = %" SCNu64 "]",
				 &max, &total), 2);
		ASSERT_NEAR(max, (double)top / unit, 0.0005 + 1e-12 * max);
		ASSERT_U64_EQ(total, h->total);
		snprintf(want, sizeof(want),
			 "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n",
			 (double)top / unit, h->total);
		ASSERT_STR_EQ(line, want);

		ASSERT(read_line(f, line, sizeof(line)));
		ASSERT_EQ(sscanf(line, "#[Buckets = %d, SubBuckets     = %d]",
				 &buckets, &subs), 2);
		ASSERT_EQ(buckets, h->bucket_count);
		ASSERT_EQ(subs, h->sub_bucket_count);
		snprintf(want, sizeof(want), "#[Buckets = %12d, SubBuckets     = %12d]\n",
			 (int)h->bucket_count, (int)h->sub_bucket_count);
		ASSERT_STR_EQ(line, want);
	}
	ASSERT(!read_line(f, line, sizeof(line)));	/* nothing after */
	fclose(f);
}

static void check_write_percentiles(void)
{
	struct hist h;

	init_ok(&h, 3, HIGHEST);
	for (size_t i = 0; i < 100000; i++)
		hist_record(&h, values[i]);
	for (int csv = 0; csv <= 1; csv++) {
		check_output(&h, 5, 1.0, csv);
		check_output(&h, 5, 1000.0, csv);	/* microseconds */
		check_output(&h, 1, 1.0, csv);
		check_output(&h, 20, 1e6, csv);
	}
	hist_destroy(&h);

	/* A run recorded in microseconds: compact values, many repeats. */
	init_ok(&h, 2, 10000000);
	for (uint64_t i = 0; i < 50000; i++)
		hist_record(&h, 1000 + (next_u64() % 1000) * (i % 7 == 0 ? 100 : 1));
	for (int csv = 0; csv <= 1; csv++)
		check_output(&h, 5, 1000.0, csv);

	/* One value, and a single slot: the table still closes properly. */
	hist_reset(&h);
	hist_record_n(&h, 777, 3);
	check_output(&h, 5, 1.0, false);
	check_output(&h, 5, 1.0, true);

	/* Bad arguments, and write errors come back as -errno. */
	FILE *f = tmpfile();
	ASSERT(f != NULL);
	ASSERT_EQ(hist_write_percentiles(&h, f, 0, 1.0, false), -EINVAL);
	ASSERT_EQ(hist_write_percentiles(&h, f, 5, 0.0, false), -EINVAL);
	fclose(f);
	f = fopen("/dev/full", "w");
	if (f) {
		ASSERT_EQ(hist_write_percentiles(&h, f, 5, 1.0, false), -ENOSPC);
		fclose(f);
	}
	f = fopen("/dev/null", "r");
	if (f) {
		ASSERT(hist_write_percentiles(&h, f, 5, 1.0, true) < 0);
		fclose(f);
	}
	hist_destroy(&h);
}

static void check_edge_cases(void)
{
	struct hist h;

	ASSERT_EQ(hist_init(&h, 0, HIGHEST), -EINVAL);
	ASSERT_EQ(hist_init(&h, 6, HIGHEST), -EINVAL);
	ASSERT_EQ(hist_init(&h, -1, HIGHEST), -EINVAL);
	ASSERT_EQ(hist_init(&h, 3, 1), -EINVAL);
	hist_destroy(&h);	/* safe after a failed init */

	init_ok(&h, 3, HIGHEST);
	ASSERT_U64_EQ(h.total, 0);
	for (size_t k = 0; k < NPCT; k++)
		ASSERT_U64_EQ(hist_percentile(&h, (double)pct_milli[k] / 1000.0), 0);
	ASSERT_U64_EQ(hist_percentile(&h, -5), 0);
	ASSERT_U64_EQ(hist_percentile(&h, 1000), 0);
	ASSERT(hist_mean(&h) == 0);
	ASSERT(hist_stddev(&h) == 0);

	/* Header, one closing row with nothing counted, the footer. */
	FILE *f = tmpfile();
	char line[512];
	ASSERT(f != NULL);
	ASSERT_EQ(hist_write_percentiles(&h, f, 5, 1.0, false), 0);
	ASSERT_EQ(hist_write_percentiles(&h, f, 5, 1000.0, true), 0);
	rewind(f);
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, classic_header);
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, "       0.000     1.000000            0          inf\n");
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, "#[Mean    =        0.000, StdDeviation   =        0.000]\n");
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, "#[Max     =        0.000, Total count    =            0]\n");
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, csv_header);
	ASSERT(read_line(f, line, sizeof(line)));
	ASSERT_STR_EQ(line, "0.000,1.000000,0,inf\n");
	ASSERT(!read_line(f, line, sizeof(line)));
	fclose(f);
	check_output(&h, 5, 1.0, false);
	check_output(&h, 5, 1.0, true);

	/* Zero is a value like any other, in slot 0. */
	hist_record(&h, 0);
	ASSERT_U64_EQ(h.counts[0], 1);
	ASSERT_U64_EQ(h.min, 0);
	ASSERT_U64_EQ(h.max, 0);
	ASSERT_U64_EQ(hist_percentile(&h, 50), 0);
	ASSERT_U64_EQ(hist_percentile(&h, 100), 0);
	hist_destroy(&h);
}

int main(void)
{
	make_values();
	RUN(check_percentiles_vs_oracle);
	RUN(check_percentile_rank_rounding);
	RUN(check_merge);
	RUN(check_exact_sums);
	RUN(check_bucket_arithmetic);
	RUN(check_saturation);
	RUN(check_write_percentiles);
	RUN(check_edge_cases);
	free(values);
	free(sorted);
	return 0;
}
