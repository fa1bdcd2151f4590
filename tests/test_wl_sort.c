/*
 * test_wl_sort.c - parallel merge sort: 10^6 keys through the runtime (volt)
 * on 1 and 2 workers come out sorted and a permutation of the input, with
 * every task completed once; odd sizes at the finest grain; the sequential
 * baseline; and verify catching damaged output (two keys swapped: out of
 * order; a key overwritten by its neighbour: still sorted, not a
 * permutation).
 */
#include "run_util.h"

static void million_on(uint32_t workers)
{
	static const char *const params[] = { "n=1000000", NULL };
	struct run_result r;
	run_workload("volt", "sort", workers, NULL, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, r.err);
	/* 1e6 keys, cutoff 4096: 256 leaf sorts of 3906 or 3907 keys, so
	 * 511 sort tasks; merges add more. */
	ASSERT(r.tasks > 511);
	ASSERT_U64_EQ(r.total.completions, r.tasks);
	ASSERT_U64_EQ(r.total.spawns, r.tasks - 1);
	fprintf(stderr, "    %u workers: %llu tasks, steals %llu\n", workers,
		(unsigned long long)r.tasks, (unsigned long long)r.total.steals);
}

static void million(void)
{
	million_on(1);
	million_on(2);
}

/* Every size around the cutoffs, with each key range a task down to single
 * keys and merges split down to two keys, on 3 workers. */
static void finest_grain(void)
{
	static const uint32_t sizes[] = { 1, 2, 3, 16, 17, 33, 1000, 4099 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char n[32];
		snprintf(n, sizeof n, "n=%u", sizes[i]);
		const char *const params[] = { n, "cutoff=1", "merge_cutoff=2", NULL };
		struct run_result r;
		run_workload("volt", "sort", 3, NULL, params, &r);
		if (r.verify_rc != 0)
			TEST_FAIL("%s: %s", n, r.err);
		/* n leaf sorts and n - 1 inner ones at least. */
		ASSERT(r.tasks >= 2ull * sizes[i] - 1);
		ASSERT_U64_EQ(r.total.completions, r.tasks);
	}
}

static void *make(const char *const *params)
{
	const struct workload *wl = workload_find("sort");
	double p[16];
	ASSERT(wl && wl->nparams <= 16);
	apply_settings(wl->params, wl->nparams, p, params);
	void *inst = wl->create(p, 1, 7);
	ASSERT(inst);
	return inst;
}

static void sequential(void)
{
	static const char *const params[] = { "n=300000", "cutoff=1000", "merge_cutoff=3000",
					      NULL };
	const struct workload *wl = workload_find("sort");
	char err[256];
	void *inst = make(params);
	/* Unsorted input fails verify, so the check looks at the keys. */
	ASSERT(wl->verify(inst, err, sizeof err) != 0);
	ASSERT(strstr(err, "out of order") != NULL);
	wl->run_sequential(inst);
	if (wl->verify(inst, err, sizeof err) != 0)
		TEST_FAIL("sequential: %s", err);
	ASSERT(wl->tasks(inst) > 2 * 300000 / 1000);
	wl->destroy(inst);
}

/* verify must catch each kind of damage, after a run through the runtime
 * and after the sequential baseline. */
static void corruption_caught(void)
{
	static const struct {
		const char *param, *reason;
	} cases[] = {
		{ "corrupt=1", "out of order" },
		{ "corrupt=2", "not a permutation" },
	};
	const struct workload *wl = workload_find("sort");
	for (size_t i = 0; i < 2; i++) {
		const char *const params[] = { "n=1000000", cases[i].param, NULL };
		struct run_result r;
		run_workload("volt", "sort", 2, NULL, params, &r);
		if (r.verify_rc == 0)
			TEST_FAIL("%s: a damaged output passed verify", cases[i].param);
		if (!strstr(r.err, cases[i].reason))
			TEST_FAIL("%s: verify said \"%s\", expected \"%s\"", cases[i].param, r.err,
				  cases[i].reason);

		char err[256] = "";
		const char *const sparams[] = { "n=5000", "cutoff=100", "merge_cutoff=200",
						cases[i].param, NULL };
		void *inst = make(sparams);
		wl->run_sequential(inst);
		ASSERT(wl->verify(inst, err, sizeof err) != 0);
		ASSERT(strstr(err, cases[i].reason) != NULL);
		wl->destroy(inst);
	}
}

int main(void)
{
	RUN(million);
	RUN(finest_grain);
	RUN(sequential);
	RUN(corruption_caught);
	return 0;
}
