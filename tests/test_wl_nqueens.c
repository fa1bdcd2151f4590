/*
 * test_wl_nqueens.c - N-queens solution counts for N = 1..12 through the
 * runtime (volt, 2 workers) and through the sequential baseline, with every
 * board a task polled exactly once; the cutoff changes the task count, not
 * the answer; verify rejects a wrong count.
 */
#include "run_util.h"

static const uint64_t known[13] = { 0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200 };

struct nq_seen {
	double solutions, nodes;
};

static void read_metrics(const struct workload *wl, void *inst, struct nq_seen *s)
{
	struct wl_metric m[WL_MAX_METRICS];
	size_t n = wl->metrics(inst, m, WL_MAX_METRICS);
	s->solutions = s->nodes = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(m[i].name, "solutions") == 0)
			s->solutions = m[i].value;
		else if (strcmp(m[i].name, "nodes") == 0)
			s->nodes = m[i].value;
	}
}

static void inspect(struct runtime *rt, void *arg)
{
	read_metrics(workload_find("nqueens"), rt->user, arg);
}

/* Boards of the backtracking tree down to row `maxrow`: the root, and
 * every placement of queens in the first r rows, r = 1..min(maxrow, n), that
 * no two attack (a column loop, independent of the workload's bitmasks). */
static uint64_t boards(uint32_t n, uint32_t maxrow, uint32_t row, uint32_t cols, uint32_t l,
		       uint32_t r)
{
	uint64_t c = 1;
	if (row == n || row == maxrow)
		return c;
	for (uint32_t col = 0; col < n; col++) {
		uint32_t bit = 1u << col;
		if ((cols | l | r) & bit)
			continue;
		c += boards(n, maxrow, row + 1, cols | bit, (l | bit) << 1, (r | bit) >> 1);
	}
	return c;
}

static void counts_parallel(void)
{
	for (uint32_t n = 1; n <= 12; n++) {
		char p_n[32];
		snprintf(p_n, sizeof p_n, "n=%u", n);
		const char *const params[] = { p_n, NULL };
		struct run_result r;
		struct nq_seen s;
		run_workload_inspect("volt", "nqueens", 2, NULL, params, 1, &r, inspect, &s);
		if (r.verify_rc != 0)
			TEST_FAIL("n=%u: %s", n, r.err);
		ASSERT_U64_EQ(s.solutions, known[n]);
		uint64_t b = boards(n, n, 0, 0, 0, 0);
		ASSERT_U64_EQ(s.nodes, b);
		ASSERT_U64_EQ(r.tasks, b);
		/* Every board a task that completed once; all but the root
		 * spawned by a worker. */
		ASSERT_U64_EQ(r.total.completions, b);
		ASSERT_U64_EQ(r.total.spawns, b - 1);
	}
}

static void counts_sequential(void)
{
	const struct workload *wl = workload_find("nqueens");
	ASSERT(wl);
	for (uint32_t n = 1; n <= 12; n++) {
		double p[8];
		char p_n[32], err[256];
		snprintf(p_n, sizeof p_n, "n=%u", n);
		const char *const params[] = { p_n, NULL };
		apply_settings(wl->params, wl->nparams, p, params);
		void *inst = wl->create(p, 1, 1);
		ASSERT(inst);
		wl->run_sequential(inst);
		struct nq_seen s;
		read_metrics(wl, inst, &s);
		ASSERT_U64_EQ(s.solutions, known[n]);
		ASSERT_U64_EQ(wl->tasks(inst), boards(n, n, 0, 0, 0, 0));
		if (wl->verify(inst, err, sizeof err) != 0)
			TEST_FAIL("n=%u sequential: %s", n, err);
		wl->destroy(inst);
	}
}

/* A cutoff at row 3: boards with 3 queens count their subtree serially,
 * so the tasks are the boards of the first three rows. */
static void cutoff(void)
{
	static const char *const params[] = { "n=11", "cutoff=3", NULL };
	struct run_result r;
	struct nq_seen s;
	run_workload_inspect("volt", "nqueens", 2, NULL, params, 1, &r, inspect, &s);
	if (r.verify_rc != 0)
		TEST_FAIL("%s", r.err);
	ASSERT_U64_EQ(s.solutions, 2680);
	uint64_t want = boards(11, 3, 0, 0, 0, 0);
	ASSERT_U64_EQ(r.tasks, want);
	ASSERT_U64_EQ(r.total.completions, want);
}

/* The check itself: an instance whose answer is wrong must fail verify. */
static void verify_rejects(void)
{
	const struct workload *wl = workload_find("nqueens");
	double p[8];
	char err[256] = "";
	static const char *const params[] = { "n=6", NULL };
	apply_settings(wl->params, wl->nparams, p, params);
	void *inst = wl->create(p, 1, 1);
	ASSERT(inst);
	/* Never run: 0 solutions and 0 boards, where 6-queens has 4. */
	ASSERT(wl->verify(inst, err, sizeof err) != 0);
	ASSERT(strstr(err, "solutions") != NULL);
	wl->destroy(inst);

	/* 2-queens has no solution, so only the board count can tell that
	 * no task ran. */
	static const char *const params2[] = { "n=2", NULL };
	apply_settings(wl->params, wl->nparams, p, params2);
	inst = wl->create(p, 1, 1);
	ASSERT(inst);
	err[0] = '\0';
	ASSERT(wl->verify(inst, err, sizeof err) != 0);
	ASSERT(strstr(err, "boards") != NULL);
	wl->destroy(inst);
}

int main(void)
{
	RUN(counts_parallel);
	RUN(counts_sequential);
	RUN(cutoff);
	RUN(verify_rejects);
	return 0;
}
