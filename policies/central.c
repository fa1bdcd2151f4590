/*
 * central.c - one shared queue and nothing else: the "global queue
 * scheduler" of seed 004 (section 1.1) and the M/M/k baseline of
 * docs/sources.md, "Queueing theory".
 *
 * Every spawn, wake and yield goes to the core's global queue (inject.h);
 * every worker takes one task at a time from it. There is no ring, no LIFO
 * slot and no stealing, so over a whole run local_pops, local_pushes,
 * lifo_polls and steal_attempts stay 0 and global_tasks equals polls.
 *
 * A worker that finds the queue empty parks; a push wakes a parked worker.
 * The sleepers are a bitmap of as many 64-bit words as there are workers
 * (so any worker count works), with the counts in the core idle state
 * (rt->idle.num_parked, num_searching) so that stall reports read them.
 *
 * The lost-wakeup argument (the Dekker pair of core/idle.h, with every
 * parker re-checking):
 *
 *   publisher                           parking worker
 *   push the task (queue len store)     num_parked += 1, set its bit (RMWs)
 *   idle_fence_publish()   (seq_cst)    idle_fence_recheck()   (seq_cst)
 *   read num_parked, the bitmap         read the queue length
 *   -> claim a set bit and unpark it    -> non-empty: take its bit back and
 *                                          run another tick instead
 *
 * With a seq_cst fence on both sides, at least one side sees the other's
 * store: either the publisher sees the parked worker (and claims it, or
 * some other sleeper), or the parker sees the task. The parker's bit is set
 * before its fence, so a publisher that reads num_parked > 0 then finds the
 * bit (or another one) in the bitmap; if the parker took its bit back
 * first, it is awake and will take the task itself. A claim clears the bit
 * with fetch-and, so exactly one party (one claimer, or the parker taking
 * its bit back, or the parker's own wake-up after a timeout) owns each
 * park and decrements num_parked once.
 *
 * Two wake strategies (knob `wake`):
 *   0  eager: while anybody sleeps, every push claims one sleeper. Each
 *      queued task can meet an idle server at once, as in M/M/k.
 *   1  throttled (Tokio and Volt): a push wakes a sleeper only when no
 *      woken worker is still looking for its first task (num_searching);
 *      the claimer counts the woken worker as searching before it takes
 *      the bit (as idle_claim_parked does), and the last searcher to find
 *      a task wakes the next, so a burst is served by a chain of wakes
 *      instead of a thundering herd.
 * In both, a push from a worker (schedule_local) first looks at the idle
 * state with relaxed loads and skips the fence when nobody sleeps: the
 * pushing worker is awake and will pop the task itself if nobody else does
 * (it parks only after finding the queue empty), so a stale look costs
 * parallelism until its next push, never the task. Pushes from outside the
 * workers (schedule_remote) always take the fence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "core/worker_loop.h"

enum central_knob {
	C_BUDGET,
	C_WAKE,
	C_PARK_TIMEOUT_NS,
	C_NKNOBS
};

static const struct knob_def central_knobs[C_NKNOBS] = {
	[C_BUDGET] = { "budget", 128, 1, 65536, true, "task polls per tick" },
	[C_WAKE] = { "wake", 0, 0, 1, true,
		     "0: every push wakes a sleeper while one exists (M/M/k); 1: only when no woken "
		     "worker is still searching, the last searcher waking the next (Tokio/Volt)" },
	[C_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,
				"longest park before a re-check; 0 = none (only a push wakes)" },
};

static const struct knob_enum central_names[] = {
	{ "wake", (const struct knob_name[]){ { "every-push", 0 }, { "last-searcher", 1 },
					       { NULL, 0 } } },
	{ NULL, NULL },
};

struct central {
	uint32_t budget;
	bool throttle;			/* wake = 1 */
	uint64_t park_ns;
	uint32_t nwords;
	_Atomic uint64_t *sleepers;	/* [nwords], line-aligned; bit i: worker i sleeps, unclaimed */
};

static inline struct central *C(const struct runtime *rt)
{
	return rt->pstate;
}

static int central_init(struct runtime *rt)
{
	struct central *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	const double *k = rt->knobs;
	c->budget = (uint32_t)k[C_BUDGET];
	c->throttle = k[C_WAKE] != 0;
	c->park_ns = k[C_PARK_TIMEOUT_NS] ? (uint64_t)k[C_PARK_TIMEOUT_NS] : PARK_FOREVER;
	c->nwords = (rt->nworkers + 63) / 64;
	size_t bytes = (c->nwords * sizeof(uint64_t) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	c->sleepers = aligned_alloc(CACHE_LINE, bytes);
	if (!c->sleepers) {
		free(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->nwords; i++)
		atomic_init(&c->sleepers[i], 0);
	rt->pstate = c;
	return 0;
}

static void central_destroy(struct runtime *rt)
{
	struct central *c = C(rt);
	if (!c)
		return;
	free((void *)c->sleepers);
	free(c);
	rt->pstate = NULL;
}

/*
 * Claim the lowest sleeping worker: clear its bit with fetch-and (racing
 * with other claimers and with the sleeper's own wake-up; whoever clears
 * the bit owns the num_parked decrement). Throttled, the claimed worker is
 * counted as a searcher before its bit is taken, so that a sleeper that
 * wakes by timeout, finds its bit gone and leaves the searching state at
 * once never drives the count below zero; a lost race undoes the count.
 * All seq_cst: this is the publisher's read side of the Dekker pair.
 */
static int claim_sleeper(struct central *c, struct idle *s)
{
	for (uint32_t i = 0; i < c->nwords; i++) {
		uint64_t bm = atomic_load_explicit(&c->sleepers[i], memory_order_seq_cst);
		while (bm) {
			int b = __builtin_ctzll(bm);
			uint64_t mask = (uint64_t)1 << b;
			if (c->throttle)
				atomic_fetch_add_explicit(&s->num_searching, 1, memory_order_seq_cst);
			uint64_t prev = atomic_fetch_and_explicit(&c->sleepers[i], ~mask,
								  memory_order_seq_cst);
			if (prev & mask) {
				uint32_t p = atomic_fetch_sub_explicit(&s->num_parked, 1,
								      memory_order_seq_cst);
				CHECK(p >= 1);
				return (int)(i * 64 + (uint32_t)b);
			}
			if (c->throttle)
				atomic_fetch_sub_explicit(&s->num_searching, 1, memory_order_seq_cst);
			bm = prev & ~mask;
		}
	}
	return -1;
}

/* Publisher side, after the task is in the queue: wake one sleeper if the
 * strategy says so. w is the pushing worker, or NULL. */
static void notify(struct runtime *rt, struct worker *w)
{
	struct central *c = C(rt);
	idle_fence_publish();
	/* Eager mode never counts searchers, so this is "anybody parked". */
	if (idle_should_wake(&rt->idle))
		rt_idle_unpark(rt, w, claim_sleeper(c, &rt->idle));
}

/* The relaxed pre-check of a worker's own push (see the top comment). */
static inline void notify_local(struct worker *w)
{
	if (rt_idle_local_look(&w->rt->idle))
		notify(w->rt, w);
}

static void central_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	(void)kind;	/* spawn, wake and yield all join the back of the one queue */
	inject_push(&w->rt->inject, t);
	notify_local(w);
}

static void central_schedule_remote(struct runtime *rt, struct task *t)
{
	inject_push(&rt->inject, t);
	notify(rt, NULL);
}

static uint32_t central_tick_begin(struct worker *w)
{
	return C(w->rt)->budget;
}

/* A woken worker found its first task: it stops searching, and the last
 * searcher wakes the next sleeper, so a burst still meets enough workers. */
static __attribute__((noinline)) void leave_searching(struct worker *w)
{
	w->searching = false;
	if (idle_leave_searching(&w->rt->idle)) {
		uint64_t before = w->st.notifies;
		notify(w->rt, w);
		w->st.last_searcher_notifies += w->st.notifies - before;
	}
}

static struct task *central_find_work(struct worker *w)
{
	struct task *t;
	/* inject_pop_batch looks at the length hint before it takes the lock,
	 * so an empty queue costs one relaxed load. */
	if (inject_pop_batch(&w->rt->inject, &t, 1) == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks++;
	if (__builtin_expect(w->searching, 0))
		leave_searching(w);
	return t;
}

static bool central_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct central *c = C(rt);
	struct idle *s = &rt->idle;
	_Atomic uint64_t *word = &c->sleepers[w->index / 64];
	uint64_t mask = (uint64_t)1 << (w->index % 64);

	/* Count, then publish the bit: a publisher that sees the count looks
	 * for the bit next (seq_cst RMWs, the parker's store side). */
	atomic_fetch_add_explicit(&s->num_parked, 1, memory_order_seq_cst);
	uint64_t prev = atomic_fetch_or_explicit(word, mask, memory_order_seq_cst);
	CHECK(!(prev & mask));
	/* A searcher that found nothing leaves the searching state after it
	 * is visible as parked (core idle.h's order). */
	if (w->searching) {
		w->searching = false;
		idle_leave_searching(s);
	}
	idle_fence_recheck();
	if (inject_len(&rt->inject) != 0) {
		/* A task arrived: take the bit back and run another tick. If the
		 * bit is already gone, a publisher claimed us and its unpark is
		 * on the way: park, and it returns at once (unparked() then
		 * sees the claim). */
		prev = atomic_fetch_and_explicit(word, ~mask, memory_order_seq_cst);
		if (prev & mask) {
			uint32_t p = atomic_fetch_sub_explicit(&s->num_parked, 1, memory_order_seq_cst);
			CHECK(p >= 1);
			return false;
		}
	}
	*timeout_ns = c->park_ns;
	return true;
}

static void central_unparked(struct worker *w, enum park_wake how)
{
	struct central *c = C(w->rt);
	struct idle *s = &w->rt->idle;
	uint64_t mask = (uint64_t)1 << (w->index % 64);
	/* Whoever clears the bit owns the num_parked decrement: a bit already
	 * clear means a claimer did (and, throttled, counted us searching). */
	uint64_t prev = atomic_fetch_and_explicit(&c->sleepers[w->index / 64], ~mask,
						  memory_order_seq_cst);
	if (!(prev & mask)) {
		w->st.unparks_notify++;
		if (c->throttle)
			w->searching = true;
		return;
	}
	uint32_t p = atomic_fetch_sub_explicit(&s->num_parked, 1, memory_order_seq_cst);
	CHECK(p >= 1);
	if (how == PARK_TIMEOUT)
		w->st.unparks_timeout++;
	else
		w->st.unparks_spurious++;
}

/*
 * --explore (between two sim steps). Throttled, a claimed sleeper counts
 * as searching, so a queued task while someone sleeps and none searches
 * is a lost wake (as in volt). Eager, a push claims one sleeper per task
 * and the claimed worker is counted nowhere until it runs, so only a
 * queued task while every worker sleeps unclaimed is one.
 */
static const char *central_check_idle(struct runtime *rt)
{
	static char why[160];
	struct central *c = C(rt);
	size_t queued = inject_len(&rt->inject);
	uint32_t parked = atomic_load(&rt->idle.num_parked);
	uint32_t searching = atomic_load(&rt->idle.num_searching);
	if (queued && parked && (c->throttle ? searching == 0 : parked == rt->nworkers)) {
		snprintf(why, sizeof why,
			 "%zu tasks in the central queue while %u workers sleep and %s (a lost "
			 "wakeup)", queued, parked,
			 c->throttle ? "none searches" : "none is awake or woken");
		return why;
	}
	return NULL;
}

static void central_dump(struct runtime *rt, FILE *f)
{
	struct central *c = C(rt);
	fprintf(f, "  central-queue: wake %s, sleepers:", c->throttle ? "throttled" : "eager");
	uint32_t shown = 0;
	for (uint32_t i = 0; i < c->nwords; i++) {
		uint64_t bm = atomic_load_explicit(&c->sleepers[i], memory_order_relaxed);
		for (; bm; bm &= bm - 1, shown++)
			fprintf(f, " %u", i * 64 + (uint32_t)__builtin_ctzll(bm));
	}
	fprintf(f, "%s\n", shown ? "" : " none");
}

/* The threads engine's tick with central_find_work inlined (policy.h, step). */
static enum step central_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, central_find_work);
}

const struct policy policy_central = {
	.name = "central-queue",
	.summary = "one shared FIFO queue for every task, one task per take; no local queues, "
		   "no stealing (M/M/k)",
	.knobs = central_knobs,
	.nknobs = C_NKNOBS,
	.knob_names = central_names,
	.init = central_init,
	.destroy = central_destroy,
	.schedule_local = central_schedule_local,
	.schedule_remote = central_schedule_remote,
	.tick_begin = central_tick_begin,
	.find_work = central_find_work,
	.step = central_step,
	.park = central_park,
	.unparked = central_unparked,
	.check_idle = central_check_idle,
	.dump = central_dump,
};
