/*
 * test_fib.c - fib(25) computed correctly, with every node a task polled
 * exactly once to completion, on 1, 2, 3, 4 and 8 workers.
 */
#include "run_util.h"

static void fib25_on(uint32_t workers)
{
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	run_workload("volt", "fib", workers, NULL, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, r.err);
	/* 2 fib(26) - 1 nodes, every one a task that completed once. */
	ASSERT_U64_EQ(r.tasks, 242785);
	ASSERT_U64_EQ(r.total.completions, 242785);
	/* Every task but the root was spawned by a worker. */
	ASSERT_U64_EQ(r.total.spawns, 242785 - 1);
	/* Internal nodes are polled twice (spawn, then join), leaves once.
	 * When both children finish during the first poll, the repoll that
	 * follows is the join poll: it is counted in repolls, not extra. */
	ASSERT_U64_EQ(r.total.polls, 242785 + (242785 - 1) / 2);
	ASSERT(r.total.repolls <= (242785 - 1) / 2);
	fprintf(stderr, "    %u workers: steals %llu, parks %llu\n", workers,
		(unsigned long long)r.total.steals, (unsigned long long)r.total.parks);
}

static void fib25_all(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 4, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		fib25_on(counts[i]);
}

static void fib_cutoff(void)
{
	static const char *const params[] = { "n=27", "cutoff=12", NULL };
	struct run_result r;
	run_workload("volt", "fib", 2, NULL, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%s", r.err);
	ASSERT_U64_EQ(r.tasks, r.total.completions);
}

int main(void)
{
	RUN(fib25_all);
	RUN(fib_cutoff);
	return 0;
}
