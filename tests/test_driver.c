/*
 * test_driver.c - the driver's statistics: median_of on odd and even counts,
 * unsorted input and skewed values where the median and the mean differ
 * (a median computed as a mean, or as the middle of the unsorted list,
 * fails here).
 */
#include <math.h>

#include "harness/driver.h"
#include "test.h"

static void odd_counts(void)
{
	double one[] = { 7 };
	ASSERT_NEAR(median_of(one, 1), 7, 0);

	/* Skewed: mean 37, median 5; the middle of the unsorted list is 100. */
	double v[] = { 3, 100, 5, 1, 76 };
	ASSERT_NEAR(median_of(v, 5), 5, 0);
	/* median_of sorts its input (documented in driver.h). */
	for (int i = 1; i < 5; i++)
		ASSERT(v[i - 1] <= v[i]);
}

static void even_counts(void)
{
	/* The mean of the two middle values, not of all of them (31.5). */
	double v[] = { 100, 2, 4, 20 };
	ASSERT_NEAR(median_of(v, 4), 12, 0);

	double two[] = { 9, 4 };
	ASSERT_NEAR(median_of(two, 2), 6.5, 0);

	double neg[] = { -3, -1, -10, 50, -2, -7 };
	ASSERT_NEAR(median_of(neg, 6), -2.5, 0);
}

static void ties_and_empty(void)
{
	double v[] = { 5, 5, 1, 5 };
	ASSERT_NEAR(median_of(v, 4), 5, 0);
	ASSERT(isnan(median_of(v, 0)));
}

int main(void)
{
	RUN(odd_counts);
	RUN(even_counts);
	RUN(ties_and_empty);
	return 0;
}
