/*
 * test_sim_explore.c - --explore-style runs on the simulation engine:
 * schedules perturbed by a seed (tie-breaks and step costs), the policy's
 * idle invariant checked after every step. The deliberately broken policies
 * (volt-broken, tokio-broken, volt-timeout-race, volt-ring-early-release,
 * volt-ring-early-publish) are caught within 100 seeds; the real policies
 * show nothing within 1000 (100 under the sanitizers, which make each run
 * 10-50x slower).
 */
#include "sim_util.h"

#define EXPLORE_SEEDS (SIM_SANITIZED ? 100 : 1000)

/* Small runs that inject from outside (so the sleep protocol matters). */
static const char *const explore_params[] = { "requests=300", "service_us=20", "load=0.8",
					       NULL };

static void explore_finds_broken_policy(void)
{
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		sim("volt-broken", NULL, "open-loop", explore_params, 8, seed, &o);
		if (o.rc != 0) {
			fprintf(stderr, "    seed %llu: %s\n", (unsigned long long)seed, o.why);
			ASSERT_EQ(o.rc, -EPROTO);
			ASSERT(strstr(o.why, "a lost wakeup"));
			return;
		}
	}
	TEST_FAIL("volt-broken survived 100 explore seeds");
}

/*
 * tokio-broken's driver holder is not the timekeeper: parked before the
 * workload starts, it sleeps without a timeout through every arrival. The
 * sim finds it only because, exploring, it interleaves the start with the
 * workers' first steps and leaves I/O to the workers' own polls.
 */
static void explore_finds_tokio_broken(void)
{
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		sim("tokio-broken", NULL, "open-loop", explore_params, 4, seed, &o);
		if (o.rc != 0) {
			fprintf(stderr, "    seed %llu: stalled\n", (unsigned long long)seed);
			ASSERT_EQ(o.rc, -ETIMEDOUT);
			return;
		}
	}
	TEST_FAIL("tokio-broken survived 100 explore seeds");
}

/*
 * At 2 workers the start-up stall cannot happen: whoever the start's notify
 * wakes finds request 0 as the last searcher and notifies the other worker,
 * the driver holder, which gives the role back. The same defect stalls at
 * the end instead, as threads runs do (6 of 20 at 2 workers with io_us=50):
 * one worker takes the last request, the other finds nothing, parks on the
 * driver and reads no event left (every arrival delivered, every earlier
 * I/O timer fired), and then the request's poll sets its I/O timer, whose
 * wake goes to the timekeeper, which the hidden holder is not. Exploring,
 * the sim makes that interleaving only by taking a task in one step and
 * polling it in the next (SPLIT_RUNS in core/engine_sim.c); without that
 * choice it survives every seed. Real tokio, with the same seeds, does not
 * stall. Under the sanitizers the search stops at its first find and tokio
 * runs the first 25 seeds.
 */
static void explore_finds_tokio_broken_two_workers(void)
{
	static const char *const params[] = { "requests=20", "service_us=20", "load=0.05",
					      "io_us=50", NULL };
	uint32_t found = 0, tried = 0, clean = 0;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		if (!(SIM_SANITIZED && found)) {
			tried++;
			sim("tokio-broken", NULL, "open-loop", params, 2, seed, &o);
			if (o.rc != 0) {
				if (!found)
					fprintf(stderr, "    seed %llu: stalled\n",
						(unsigned long long)seed);
				ASSERT_EQ(o.rc, -ETIMEDOUT);
				found++;
			}
		}
		if (SIM_SANITIZED && seed > 25) {
			if (found)
				break;
			continue;
		}
		sim("tokio", NULL, "open-loop", params, 2, seed, &o);
		if (o.rc != 0)
			TEST_FAIL("tokio at 2 workers, explore seed %llu: rc %d: %s",
				  (unsigned long long)seed, o.rc, o.why);
		clean++;
	}
	fprintf(stderr, "    tokio-broken at 2 workers stalled in %u of %u seeds; tokio clean in %u\n",
		found, tried, clean);
	ASSERT(found > 0);
}

/*
 * volt-timeout-race tests its parked bit on waking and clears it (and
 * decrements the parked count) only at its next step. Exploring, the wake
 * path is a step of its own, so a claimer can take the worker in between:
 * the count then drifts from the bitmap. volt, with the same 50 us parks,
 * survives the very same seeds (its wake path is one fetch-and whose
 * previous value says who cleared the bit).
 */
static void explore_finds_timeout_race(void)
{
	static const char *const short_parks[] = { "park_timeout_ns=50000", NULL };
	uint32_t found = 0;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		sim("volt-timeout-race", NULL, "open-loop", explore_params, 8, seed, &o);
		if (o.rc != 0) {
			if (!found)
				fprintf(stderr, "    seed %llu: %s\n", (unsigned long long)seed, o.why);
			ASSERT_EQ(o.rc, -EPROTO);
			ASSERT(strstr(o.why, "a timeout raced a claim"));
			found++;
		}
		sim("volt", short_parks, "open-loop", explore_params, 8, seed, &o);
		if (o.rc != 0)
			TEST_FAIL("volt with 50 us parks, explore seed %llu: %s",
				  (unsigned long long)seed, o.why);
	}
	fprintf(stderr, "    volt-timeout-race caught in %u of 100 seeds; volt clean in all\n", found);
	ASSERT(found > 0);
}

/*
 * The ring's steal in phases (core/ring.h: claim, copy, release, publish).
 * Exploring, volt's steal is one phase per step, so other workers' steps
 * fall between its phases; a thief checks that the slots it claims hold
 * tasks (the thief's own slots are poisoned from its claim until its copy)
 * and, before its copy, that no push has reused them. fib with 4 workers
 * steals often enough from rings long enough for both broken orders, which
 * tests/test_ring.c's schedules also catch, to show within 100 seeds; volt,
 * the real order, survives the very same seeds (so does locality, whose
 * victim loop calls the same steal). Under the sanitizers a variant stops
 * at its first find and the real order runs the first 25 seeds (a run
 * there is about 50 ms).
 */
static const char *const ring_params[] = { "n=18", NULL };
#define RING_CLEAN_SEEDS (SIM_SANITIZED ? 25 : 100)

static uint32_t explore_ring_variant(const char *policy, const char *what)
{
	uint32_t found = 0;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		sim(policy, NULL, "fib", ring_params, 4, seed, &o);
		if (o.rc != 0) {
			if (!found)
				fprintf(stderr, "    seed %llu: %s\n", (unsigned long long)seed, o.why);
			ASSERT_EQ(o.rc, -EPROTO);
			ASSERT(strstr(o.why, what));
			found++;
			if (SIM_SANITIZED)
				return found;
		}
	}
	fprintf(stderr, "    %s caught in %u of 100 seeds\n", policy, found);
	return found;
}

/* The claimed slots released before the copy: the victim's pushes wrap onto
 * them, so the copy would take a task the victim runs too. */
static void explore_finds_ring_early_release(void)
{
	ASSERT(explore_ring_variant("volt-ring-early-release", "push has reused") > 0);
}

/* The thief's tail published before its copy: a thief of the thief claims
 * slots that hold no task yet. */
static void explore_finds_ring_early_publish(void)
{
	ASSERT(explore_ring_variant("volt-ring-early-publish", "holds no task") > 0);
}

static void explore_ring_real_order_clean(void)
{
	static const char *const policies[] = { "volt", "locality" };
	for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
		for (uint64_t seed = 1; seed <= RING_CLEAN_SEEDS; seed++) {
			struct sim_out o;
			sim(policies[i], NULL, "fib", ring_params, 4, seed, &o);
			if (o.rc != 0)
				TEST_FAIL("%s, explore seed %llu: rc %d: %s", policies[i],
					  (unsigned long long)seed, o.rc, o.why);
			ASSERT(o.tot.steals > 0);
		}
		fprintf(stderr, "    %s: %d seeds clean\n", policies[i], RING_CLEAN_SEEDS);
	}
}

/*
 * blumofe-leiserson with a huge steal_tries: a thief must still look at the
 * global queue between rounds of attempts. Here an attempt costs 10 ms and
 * steal_tries is 10^6, so a thief that made them all in one call would
 * search for 10^4 virtual seconds with the root waiting in the global
 * queue, and the 600 s watchdog would report a stall (explore seed 3 did,
 * as did scripts/torture.sh on threads with steal_tries=10^9).
 */
static void explore_huge_steal_tries_clean(void)
{
	static const char *const knobs[] = { "steal_tries=1000000", NULL };
	static const char *const params[] = { "n=12", NULL };
	struct sim_costs c;
	sim_costs_default(&c);
	c.steal_attempt = 10000000;
	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct sim_out o;
		sim_run_costs("blumofe-leiserson", knobs, "fib", params, 2, seed, &c, &o, NULL, NULL);
		if (o.rc != 0)
			TEST_FAIL("explore seed %llu: rc %d %s", (unsigned long long)seed, o.rc, o.why);
	}
}

static void explore_real_policies_clean(void)
{
	for (size_t i = 0; policy_table[i]; i++) {
		const struct policy *p = policy_table[i];
		if (p->test_only)
			continue;
		for (uint64_t seed = 1; seed <= EXPLORE_SEEDS; seed++) {
			struct sim_out o;
			sim(p->name, NULL, "open-loop", explore_params, seed % 2 ? 8 : 3, seed, &o);
			if (o.rc != 0)
				TEST_FAIL("%s, explore seed %llu: rc %d: %s", p->name,
					  (unsigned long long)seed, o.rc, o.why);
		}
		fprintf(stderr, "    %s: %d seeds clean\n", p->name, EXPLORE_SEEDS);
	}
}

/*
 * Placed tasks (imbalanced's partitions, put on their home workers before
 * the run) run from the workers' first steps, so their run's start is
 * then, not at the start call that exploring defers: as on threads, where
 * the start time is taken before the workers are released. With the start
 * taken at the deferred call, a run whose placed tasks finished first
 * ended before it began.
 */
static void end_after_start(struct runtime *rt, const struct workload *wl, void *arg)
{
	(void)wl;
	(void)arg;
	ASSERT(rt->end_ns > rt->start_ns);
	ASSERT_EQ(rt->start_ns, 0);
}

static void explore_placed_start(void)
{
	static const char *const params[] = { "t0_ms=2", "t1_ms=2", "t2_ms=4", "t3_ms=7", NULL };
	static const char *const policies[] = { "central-queue", "volt" };
	for (size_t i = 0; i < 2; i++) {
		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct sim_out o;
			sim_run_costs(policies[i], NULL, "imbalanced", params, 8, seed, NULL, &o,
				      end_after_start, NULL);
			if (o.rc != 0)
				TEST_FAIL("%s, explore seed %llu: rc %d: %s", policies[i],
					  (unsigned long long)seed, o.rc, o.why);
		}
	}
}

int main(void)
{
	RUN(explore_finds_broken_policy);
	RUN(explore_finds_tokio_broken);
	RUN(explore_finds_tokio_broken_two_workers);
	RUN(explore_finds_timeout_race);
	RUN(explore_finds_ring_early_release);
	RUN(explore_finds_ring_early_publish);
	RUN(explore_ring_real_order_clean);
	RUN(explore_huge_steal_tries_clean);
	RUN(explore_real_policies_clean);
	RUN(explore_placed_start);
	return 0;
}
