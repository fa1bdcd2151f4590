/*
 * test_conformance.c - every policy on every workload, at 1, 2, 3 and 8
 * workers (or the counts of its argument, "1,2,3"), each run verified by
 * the workload, and the invariants every policy owes the core:
 *
 *  - every task created (spawned by a worker or injected from outside)
 *    completes exactly once;
 *  - a poll of a task is either its last (a completion) or ends pending,
 *    and the pending ones are re-polled only through a wake, a join or a
 *    yield, so completions <= polls;
 *  - the run finishes under the watchdog (a lost wakeup fails the suite with
 *    a stall report instead of hanging it).
 *
 * New policies and workloads are covered by registering them: the suite
 * iterates the registries. Test-only variants (volt-broken) are skipped.
 */
#include "run_util.h"

struct outcome {
	uint64_t remote_spawns;
	struct worker_stats tot;
};

static void inspect(struct runtime *rt, void *arg)
{
	struct outcome *o = arg;
	o->remote_spawns = atomic_load(&rt->remote_spawns);
	rt_total_stats(rt, &o->tot);
}

static void one(const struct policy *p, const struct workload *wl, uint32_t workers)
{
	struct run_result r;
	struct outcome o;
	char what[160];
	snprintf(what, sizeof what, "%s / %s / %u workers", p->name, wl->name, workers);

	if (p->check) {
		double kv[64];
		char err[256];
		struct rt_config cfg = { .workers = workers, .hist_digits = 3 };
		knob_defaults(p->knobs, p->nknobs, kv);
		if (p->check(&cfg, kv, err, sizeof err) != 0) {
			fprintf(stderr, "    %s: refused (%s)\n", what, err);
			return;
		}
	}
	run_workload_inspect(p->name, wl->name, workers, NULL, wl->quick_params, 11, &r, inspect,
			     &o);
	if (r.verify_rc != 0)
		TEST_FAIL("%s: wrong answer: %s", what, r.err);
	if (o.tot.spawns + o.remote_spawns != o.tot.completions)
		TEST_FAIL("%s: %llu tasks created (%llu spawned, %llu injected), %llu completed", what,
			  (unsigned long long)(o.tot.spawns + o.remote_spawns),
			  (unsigned long long)o.tot.spawns, (unsigned long long)o.remote_spawns,
			  (unsigned long long)o.tot.completions);
	if (o.tot.completions > o.tot.polls)
		TEST_FAIL("%s: %llu completions from %llu polls", what,
			  (unsigned long long)o.tot.completions, (unsigned long long)o.tot.polls);
}

/* The tables hold at least these (an emptied or truncated registry must
 * not pass as "every policy"); more may be added. */
static const char *const must_policies[] = { "volt", "tokio", "fixed-interval-61", "go",
					     "rayon", "steal-one", "central-queue",
					     "static-partition", "locality" };
static const char *const must_workloads[] = { "fib", "nqueens", "uts", "sort", "imbalanced",
					      "spawn-many", "chained-spawn", "yield-many",
					      "ping-pong", "open-loop" };

/* The worker counts this process runs: all four, or the ones its
 * argument names ("1,2,3" or "8": ctest runs the two as separate tests,
 * each inside the time limit under ThreadSanitizer on a loaded machine). */
static uint32_t counts[4] = { 1, 2, 3, 8 };
static size_t ncounts = 4;

static void every_policy_every_workload(void)
{
	size_t runs = 0, npolicies = 0, nworkloads = 0;
	for (size_t i = 0; i < sizeof must_policies / sizeof must_policies[0]; i++) {
		const struct policy *p = policy_find(must_policies[i]);
		if (!p || p->test_only)
			TEST_FAIL("policy %s is not registered as a real policy", must_policies[i]);
	}
	for (size_t i = 0; i < sizeof must_workloads / sizeof must_workloads[0]; i++)
		if (!workload_find(must_workloads[i]))
			TEST_FAIL("workload %s is not registered", must_workloads[i]);
	for (size_t j = 0; workload_table[j]; j++)
		nworkloads++;
	for (size_t i = 0; policy_table[i]; i++) {
		if (policy_table[i]->test_only)
			continue;
		npolicies++;
		for (size_t j = 0; workload_table[j]; j++) {
			ASSERT(workload_table[j]->quick_params);
			for (size_t k = 0; k < ncounts; k++, runs++)
				one(policy_table[i], workload_table[j], counts[k]);
		}
		fprintf(stderr, "    %s: all workloads verified\n", policy_table[i]->name);
	}
	ASSERT(npolicies >= sizeof must_policies / sizeof must_policies[0]);
	ASSERT(nworkloads >= sizeof must_workloads / sizeof must_workloads[0]);
	ASSERT_EQ(runs, npolicies * nworkloads * ncounts);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		ncounts = 0;
		for (char *p = argv[1], *end; *p; p = *end ? end + 1 : end) {
			unsigned long n = strtoul(p, &end, 10);
			if (end == p || n < 1 || n > 64 || ncounts == 4 || (*end && *end != ',')) {
				fprintf(stderr, "test_conformance: bad worker counts '%s' (e.g. 1,2,3)\n",
					argv[1]);
				return 2;
			}
			counts[ncounts++] = (uint32_t)n;
		}
	}
	RUN(every_policy_every_workload);
	return 0;
}
