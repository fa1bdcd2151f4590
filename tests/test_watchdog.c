/*
 * test_watchdog.c - a lost wakeup becomes a report, not a hung run.
 *
 * The scenario makes the last searcher's notify necessary, deterministically,
 * on 2 workers with global batches of one task and parks without timeout:
 *
 *   1. both workers park;
 *   2. the test queues A and B in the global queue and then does what
 *      volt's notify does for the first of them: it claims worker 0 (which
 *      counts as a searcher from then on) and unparks it. Nobody is woken
 *      for B: a searcher exists. (Doing this by hand, rather than through
 *      two remote spawns, keeps worker 0 from taking A before B is queued.)
 *   3. worker 0 takes A (a batch of one) and leaves the searching state as
 *      the last searcher. volt now wakes worker 1, which runs B; the broken
 *      variant does not, and B stays queued while worker 1 sleeps;
 *   4. A waits for B to have run (spinning through rt_compute), so under the
 *      broken variant no task completes any more.
 *
 * volt must finish; volt-broken must be stopped by the watchdog with a
 * report that shows the queued task, the sleeping worker and the diagnosis.
 */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "policies/volt.h"
#include "run_util.h"

struct pair {
	struct task a, b;
	_Atomic int b_ran;
	_Atomic int left;	/* tasks not yet done */
};

static struct pair *pair_of(struct task *t, int which)
{
	return (struct pair *)((char *)t - (which ? offsetof(struct pair, b) : offsetof(struct pair, a)));
}

static void done_one(struct pair *p, struct worker *w)
{
	if (atomic_fetch_sub(&p->left, 1) == 1)
		rt_finish(w->rt, w);
}

static enum task_poll a_poll(struct task *t, struct worker *w)
{
	struct pair *p = pair_of(t, 0);
	/* A task that needs B's effect; it gives up when the run is stopped. */
	while (!atomic_load(&p->b_ran) && !rt_finished(w->rt))
		rt_compute(w, 10000);
	done_one(p, w);
	return TASK_DONE;
}

static enum task_poll b_poll(struct task *t, struct worker *w)
{
	struct pair *p = pair_of(t, 1);
	atomic_store(&p->b_ran, 1);
	done_one(p, w);
	return TASK_DONE;
}

static const struct task_vtable a_vt = { .name = "A", .poll = a_poll };
static const struct task_vtable b_vt = { .name = "B", .poll = b_poll };

static void start_both(struct runtime *rt, void *arg)
{
	struct pair *p = arg;
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 5000 && atomic_load(&rt->idle.num_parked) < rt->nworkers; i++)
		nanosleep(&ms, NULL);
	ASSERT_EQ(atomic_load(&rt->idle.num_parked), rt->nworkers);
	rt->start_ns = rt_now(rt, NULL);
	task_init(&p->a, &a_vt);
	task_init(&p->b, &b_vt);
	inject_push(&rt->inject, &p->a);
	inject_push(&rt->inject, &p->b);
	ASSERT_EQ(idle_claim_parked(&rt->idle), 0);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 1);
	rt->engine->ops->unpark(rt->engine, 0);
}

/* Runs the scenario; returns the engine's result and the report text. */
static int scenario(const struct policy *pol, char *report, size_t len,
		    struct worker_stats *tot)
{
	static const char *const knobs[] = { "batch_min=1", "batch_max=1", "park_timeout_ns=0",
					     NULL };
	double kv[VOLT_NKNOBS];
	apply_settings(pol->knobs, pol->nknobs, kv, knobs);
	struct rt_config cfg = { .workers = 2, .seed = 5, .sample_period = 0, .hist_digits = 2,
				 .watchdog_ns = 300000000 };
	char err[256];
	struct engine *e = engine_threads_create(2);
	struct runtime *rt;
	ASSERT_EQ(rt_create(&rt, &cfg, pol, kv, e, err, sizeof err), 0);
	FILE *f = tmpfile();
	ASSERT(f);
	rt->dump_to = f;
	struct pair p;
	atomic_init(&p.b_ran, 0);
	atomic_init(&p.left, 2);
	int rc = e->ops->run(e, rt, start_both, &p);
	ASSERT(rc != -EDEADLK);	/* A gives up when stopped: workers always stop */
	rewind(f);
	size_t n = fread(report, 1, len - 1, f);
	report[n] = '\0';
	fclose(f);
	rt_total_stats(rt, tot);
	rt_destroy(rt);
	e->ops->destroy(e);
	return rc;
}

static void volt_finishes(void)
{
	char report[8192];
	struct worker_stats tot;
	ASSERT_EQ(scenario(&policy_volt, report, sizeof report, &tot), 0);
	ASSERT_STR_EQ(report, "");
	ASSERT_U64_EQ(tot.completions, 2);
	/* Worker 1 was woken by the last searcher, not by anything else. */
	ASSERT(tot.last_searcher_notifies >= 1);
	ASSERT_EQ(tot.unparks_timeout, 0);
}

static void broken_is_caught(void)
{
	char report[8192];
	struct worker_stats tot;
	ASSERT_EQ(scenario(&policy_volt_broken, report, sizeof report, &tot), -ETIMEDOUT);
	fprintf(stderr, "%s", report);
	ASSERT(strstr(report, "stall report: policy volt-broken, 2 workers"));
	/* Taken from running threads: the report says its lines may disagree. */
	ASSERT(strstr(report, "read one field at a time while the workers ran"));
	ASSERT(strstr(report, "global queue: 1 tasks"));
	ASSERT(strstr(report, "0 searching, 1 parked, parked bitmap 0x0000000000000002"));
	ASSERT(strstr(report, "worker 1: ring 0"));
	ASSERT(strstr(report, "a lost wakeup"));
	ASSERT(strstr(report, "counters: polls="));
	ASSERT_EQ(tot.last_searcher_notifies, 0);
}

int main(void)
{
	RUN(volt_finishes);
	RUN(broken_is_caught);
	return 0;
}
