/*
 * test_sim_theory.c - the simulation engine against queueing theory
 * (docs/sources.md, "Queueing theory"). Every figure here is a
 * deterministic function of the seed, so the assertions are exact checks
 * of the model, not timings.
 *
 *  - static-partition with random routing is k independent M/M/1 queues:
 *    p99 response = ln(100) / (mu (1 - rho));
 *  - central-queue is M/M/16: p99 from the Erlang C table, at loads 0.5,
 *    0.7, 0.8 and 0.9. At 0.5 and 0.7 the p99 is nearly the bare service
 *    time's (4.61 S), so those loads cannot tell FIFO from LIFO; 0.8 and
 *    0.9 can (test_policy_central also checks the order directly);
 *  - the imbalanced example: static partition 750 / (4 * 350) = 53.6%,
 *    a stealing policy at least 95%.
 *
 * test_sim_scaling holds the fork-join bounds and the cost accounting,
 * test_sim_explore the schedule exploration.
 */
#include "sim_util.h"

/* Mean service 1 ms, exponential: the model's costs (tens of ns) and wake
 * latency (5 us) stay well below the 5% tolerance. */
static void open_loop(const char *policy, const char *const *knobs, double rho, struct sim_out *o)
{
	char load[32];
	snprintf(load, sizeof load, "load=%g", rho);
	const char *const params[] = { load, "service_us=1000", "dist=1", "requests=200000", NULL };
	sim(policy, knobs, "open-loop", params, 16, 0, o);
	ASSERT_EQ(o->rc, 0);
}


static void partitioned_is_mm1(void)
{
	static const char *const knobs[] = { "routing=1", NULL };	/* random */
	static const double loads[] = { 0.5, 0.7, 0.9 };
	for (int i = 0; i < 3; i++) {
		struct sim_out o;
		open_loop("static-partition", knobs, loads[i], &o);
		double theory = log(100.0) * 1e6 / (1 - loads[i]);
		fprintf(stderr, "    rho %.1f: p99 %.3f ms, M/M/1 %.3f ms (%+.1f%%)\n", loads[i],
			o.p99 / 1e6, theory / 1e6, 100 * (o.p99 - theory) / theory);
		ASSERT_NEAR(o.p99, theory, 0.05 * theory);
	}
}

static void central_is_mmk(void)
{
	/* p99 / S of M/M/16 (Erlang C; docs/sources.md) */
	static const double loads[] = { 0.5, 0.7, 0.8, 0.9 };
	static const double table[] = { 4.61, 4.64, 4.74, 5.27 };
	for (int i = 0; i < 4; i++) {
		struct sim_out o;
		open_loop("central-queue", NULL, loads[i], &o);
		double theory = table[i] * 1e6;
		fprintf(stderr, "    rho %.1f: p99 %.3f ms, M/M/16 %.3f ms (%+.1f%%)\n", loads[i],
			o.p99 / 1e6, theory / 1e6, 100 * (o.p99 - theory) / theory);
		ASSERT_NEAR(o.p99, theory, 0.05 * theory);
	}
}

static void imbalanced_utilization(void)
{
	struct sim_out o;
	sim("static-partition", NULL, "imbalanced", NULL, 4, 0, &o);
	ASSERT_EQ(o.rc, 0);
	fprintf(stderr, "    static-partition: %.2f%%\n", 100 * o.util);
	ASSERT_NEAR(o.util, 750.0 / (4 * 350.0), 0.001);
	ASSERT_EQ(o.tot.steals, 0);
	sim("volt", NULL, "imbalanced", NULL, 4, 0, &o);
	ASSERT_EQ(o.rc, 0);
	fprintf(stderr, "    volt: %.2f%%\n", 100 * o.util);
	ASSERT(o.util >= 0.95);
}

/* Two ctest tests (tests/CMakeLists.txt): "mm1" the partitioned queues,
 * "mmk" the shared one and the imbalanced example; no argument, all. All
 * in one took 50 s under ThreadSanitizer on a loaded machine. */
int main(int argc, char **argv)
{
	const char *part = argc > 1 ? argv[1] : "all";
	bool all = strcmp(part, "all") == 0;
	if (!all && strcmp(part, "mm1") != 0 && strcmp(part, "mmk") != 0) {
		fprintf(stderr, "test_sim_theory: unknown part '%s' (mm1, mmk, all)\n", part);
		return 2;
	}
	if (all || strcmp(part, "mm1") == 0)
		RUN(partitioned_is_mm1);
	if (all || strcmp(part, "mmk") == 0) {
		RUN(central_is_mmk);
		RUN(imbalanced_utilization);
	}
	return 0;
}
