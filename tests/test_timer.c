/*
 * test_timer.c - the timer heap (order, FIFO among equal deadlines, the
 * earliest-deadline hint) and tasks sleeping on timers through a runtime:
 * every sleeper is woken, exactly once, never before its deadline.
 */
#include "core/timer.h"
#include "core/rng.h"
#include "run_util.h"

static const struct task_vtable vt = { .name = "t" };

static void heap_order(void)
{
	enum { N = 5000 };
	static struct task tasks[N];
	static uint64_t when[N];
	struct timers t;
	struct rng r;
	timers_init(&t);
	rng_seed(&r, 3, 0);
	ASSERT(timers_next(&t) == TIMER_NONE);
	for (int i = 0; i < N; i++) {
		task_init(&tasks[i], &vt);
		when[i] = 1000 + rng_below(&r, 100);	/* many equal deadlines */
		timers_add(&t, when[i], &tasks[i]);
	}
	struct task *out[64];
	uint64_t last = 0;
	size_t got = 0, n;
	ASSERT_EQ(timers_expire(&t, 999, out, 64), 0);
	ASSERT_U64_EQ(timers_next(&t), 1000);
	for (uint64_t now = 1000; now < 1100; now++) {
		while ((n = timers_expire(&t, now, out, 64)) > 0) {
			for (size_t i = 0; i < n; i++) {
				size_t idx = (size_t)(out[i] - tasks);
				ASSERT(when[idx] <= now);
				ASSERT(when[idx] >= last);
				last = when[idx];
				got++;
			}
		}
	}
	ASSERT_EQ(got, N);
	ASSERT(timers_next(&t) == TIMER_NONE);
	/* Equal deadlines expire in insertion order. */
	for (int i = 0; i < 10; i++)
		timers_add(&t, 5000, &tasks[i]);
	ASSERT_EQ(timers_expire(&t, 5000, out, 64), 10);
	for (int i = 0; i < 10; i++)
		ASSERT(out[i] == &tasks[i]);
	timers_destroy(&t);
}

/* Sleepers through a runtime: each sleeps once until its own deadline. */
enum { SLEEPERS = 200 };

struct sleeper {
	struct task task;
	uint64_t deadline, woke_at;
	int polls, idx;
	_Atomic int *left;
};

static enum task_poll sleeper_poll(struct task *t, struct worker *w)
{
	struct sleeper *s = (struct sleeper *)t;
	uint64_t now = rt_now(w->rt, w);
	if (s->polls++ == 0) {
		s->deadline = now + 100000 + 20000 * (uint64_t)(s->idx % 7);
		rt_sleep_on(w, t, s->deadline);
		return TASK_PENDING;
	}
	s->woke_at = now;
	if (atomic_fetch_sub(s->left, 1) == 1)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static const struct task_vtable sleeper_vt = { .name = "sleeper", .poll = sleeper_poll };

struct sleep_ctx {
	struct sleeper s[SLEEPERS];
	_Atomic int left;
};

static void start_sleepers(struct runtime *rt, void *arg)
{
	struct sleep_ctx *c = arg;
	rt->start_ns = rt_now(rt, NULL);
	for (int i = 0; i < SLEEPERS; i++) {
		task_init(&c->s[i].task, &sleeper_vt);
		c->s[i].polls = 0;
		c->s[i].idx = i;
		c->s[i].left = &c->left;
		rt_spawn_remote(rt, &c->s[i].task);
	}
}

/* Under every policy: the default maintenance (worker 0 keeps time) and
 * the policies that poll timers at their own points (tokio's driver). */
static void sleepers_under(const struct policy *pol)
{
	static const uint32_t counts[] = { 1, 2, 4 };
	for (int k = 0; k < 3; k++) {
		double kv[64];
		knob_defaults(pol->knobs, pol->nknobs, kv);
		struct rt_config cfg = { .workers = counts[k], .seed = 1, .hist_digits = 2,
					 .watchdog_ns = 20000000000ull };
		char err[256];
		struct engine *e = engine_threads_create(counts[k]);
		struct runtime *rt;
		ASSERT_EQ(rt_create(&rt, &cfg, pol, kv, e, err, sizeof err), 0);
		static struct sleep_ctx c;
		atomic_init(&c.left, SLEEPERS);
		ASSERT_EQ(e->ops->run(e, rt, start_sleepers, &c), 0);
		for (int i = 0; i < SLEEPERS; i++) {
			ASSERT_EQ(c.s[i].polls, 2);
			ASSERT(c.s[i].woke_at >= c.s[i].deadline);
		}
		ASSERT(timers_next(&rt->timers) == TIMER_NONE);
		ASSERT(rt_next_event(rt) == TIMER_NONE);
		rt_destroy(rt);
		e->ops->destroy(e);
	}
}

static void sleepers_wake_after_deadline(void)
{
	for (size_t i = 0; policy_table[i]; i++)
		if (!policy_table[i]->test_only) {
			sleepers_under(policy_table[i]);
			fprintf(stderr, "    %s\n", policy_table[i]->name);
		}
}

int main(void)
{
	RUN(heap_order);
	RUN(sleepers_wake_after_deadline);
	return 0;
}
