/*
 * blumofe_leiserson.c - classic randomized work stealing (Blumofe and Leiserson,
 * "Scheduling multithreaded computations by work stealing", JACM 46(5),
 * 1999; docs/sources.md): T_P <= T_1/P + O(T_inf) expected time with
 * O(P T_inf) expected steal attempts.
 *
 * Each worker owns a Chase-Lev deque (core/deque.h). Spawned, woken and
 * re-polled tasks are pushed at its bottom and the owner pops there (LIFO:
 * the newest, hottest task first). A worker whose deque is empty looks at
 * the global queue (remote spawns land there), then becomes a searcher and
 * makes steal attempts, each on a victim drawn uniformly at random from the
 * other P - 1 workers (per-worker xorshift, core/rng.h), taking exactly one
 * task, the oldest (the top: in a fork-join tree, the biggest subtree). A
 * failed attempt (victim empty, or lost a race for its top task) is
 * followed by another random victim. In the paper a thief never sleeps: it
 * keeps making steal attempts until the computation ends (thieves_sleep=0,
 * the default). With thieves_sleep=1, after `steal_tries` consecutive
 * failures the worker parks, by the protocol below.
 *
 * Parking loses no wakeup: it is core/idle.h's searching/parked protocol.
 * A publisher (local push, remote spawn) makes its task visible, then
 * (seq_cst fence) wakes a parked worker if nobody is searching. A parking
 * worker sets its parked bit and leaves the searching state, then (seq_cst
 * fence) re-reads every deque and the global queue and, finding work,
 * wakes a worker itself. The two fences form a store-buffering pair: either
 * the publisher sees the parked bit with nobody searching and claims a
 * worker, or the parker sees the task. Here every parker re-checks, not
 * only the last searcher: a worker that never searched (one worker alone,
 * or over the searcher cap) could otherwise park just after a remote spawn
 * that saw it still awake and stayed quiet. A searcher that finds work and
 * was the last one wakes another, so work published while it searched
 * still has a searcher. With the default park timeout of 0 a parked worker
 * waits for a notify only: a lost wakeup would show as a hang, not a stall.
 *
 * Local pushes peek at the idle state with relaxed loads and skip the fence
 * when nobody is parked or somebody searches (as volt.c does): a stale peek
 * can only delay parallelism, since the pushing worker pops its own task.
 *
 * Counters: every successful steal moves exactly one task, so steals ==
 * tasks_stolen; steal_attempts counts every victim tried.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deque.h"
#include "policies/policy.h"
#include "core/worker_loop.h"

enum so_knob {
	SO_STEAL_TRIES,
	SO_VICTIM_SWEEP,
	SO_SEARCHER_CAP,
	SO_GLOBAL_BATCH,
	SO_PARK_TIMEOUT_NS,
	SO_THIEVES_SLEEP,
	SO_NKNOBS
};

#define GLOBAL_BATCH_MAX 256
#define CAP_DEN 1000u

static const struct knob_def so_knobs[SO_NKNOBS] = {
	[SO_STEAL_TRIES] = { "steal_tries", 0, 0, 1e9, true,
			     "consecutive failed steal attempts before parking; 0 = 2 (P - 1)" },
	[SO_VICTIM_SWEEP] = { "victim_sweep", 0, 0, 1, true,
			      "0 = every victim uniformly at random (the paper); 1 = random first victim, then in index order" },
	[SO_SEARCHER_CAP] = { "searcher_cap", 1, 0.001, 1, false,
			      "fraction of workers that may steal at once (soft); 1 = all, as in the paper" },
	[SO_GLOBAL_BATCH] = { "global_batch", 1, 1, GLOBAL_BATCH_MAX, true,
			      "tasks taken from the global queue at once; the rest go to the own deque" },
	[SO_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,
				 "longest park before a re-check; 0 = until notified" },
	[SO_THIEVES_SLEEP] = { "thieves_sleep", 0, 0, 1, true,
			       "0 = a thief never sleeps, it keeps stealing (the paper); 1 = park "
			       "after steal_tries failed attempts" },
};

static const struct knob_enum so_names[] = {
	{ "victim_sweep", (const struct knob_name[]){ { "random", 0 }, { "sweep", 1 },
						       { NULL, 0 } } },
	{ NULL, NULL },
};

/* Thief-visible, one per worker: the deque (top and bottom on their own
 * lines). */
struct so_shared {
	struct deque dq;
};

/* Owner-private, one per worker, on its own lines. */
struct so_worker {
	CACHE_ALIGNED struct deque *dq;
	uint32_t fails;		/* consecutive failed steal attempts */
	uint32_t victim;	/* the last victim tried */
};

struct blumofe {
	uint32_t tries, cap_num, global_batch;
	bool sweep, sleep;
	uint64_t park_ns;	/* PARK_FOREVER for none */
	struct so_shared *sh;	/* [nworkers] */
	struct so_worker *sw;	/* [nworkers] */
};

_Static_assert(sizeof(struct so_shared) % CACHE_LINE == 0, "shared padded to lines");
_Static_assert(sizeof(struct so_worker) % CACHE_LINE == 0, "private padded to lines");

static inline struct blumofe *S(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct so_worker *SW(const struct worker *w)
{
	return w->pstate;
}

static int so_check(const struct rt_config *cfg, const double *k, char *err, size_t len)
{
	(void)k;
	if (cfg->workers > IDLE_MAX_WORKERS) {
		snprintf(err, len,
			 "policy blumofe-leiserson supports at most %d workers (one 64-bit parked bitmap), got %u",
			 IDLE_MAX_WORKERS, cfg->workers);
		return -EINVAL;
	}
	return 0;
}

static int so_init(struct runtime *rt)
{
	if (rt->nworkers > IDLE_MAX_WORKERS)
		return -EINVAL;
	struct blumofe *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	const double *k = rt->knobs;
	uint32_t n = rt->nworkers;
	s->tries = (uint32_t)k[SO_STEAL_TRIES];
	if (s->tries == 0)
		s->tries = 2 * (n - 1);
	s->sweep = k[SO_VICTIM_SWEEP] != 0;
	s->sleep = k[SO_THIEVES_SLEEP] != 0;
	s->cap_num = (uint32_t)lround(k[SO_SEARCHER_CAP] * CAP_DEN);
	s->global_batch = (uint32_t)k[SO_GLOBAL_BATCH];
	s->park_ns = k[SO_PARK_TIMEOUT_NS] > 0 ? (uint64_t)k[SO_PARK_TIMEOUT_NS] : PARK_FOREVER;
	s->sh = rt_alloc_lines(n, sizeof *s->sh);
	s->sw = rt_alloc_lines(n, sizeof *s->sw);
	if (!s->sh || !s->sw) {
		free(s->sh);
		free(s->sw);
		free(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		deque_init(&s->sh[i].dq);
		s->sw[i].dq = &s->sh[i].dq;
		rt->workers[i].pstate = &s->sw[i];
	}
	rt->pstate = s;
	return 0;
}

static void so_destroy(struct runtime *rt)
{
	struct blumofe *s = S(rt);
	if (!s)
		return;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		deque_destroy(&s->sh[i].dq);
	free(s->sh);
	free(s->sw);
	free(s);
	rt->pstate = NULL;
}

static void so_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	(void)kind;	/* spawn, wake and re-poll all go to the bottom */
	deque_push(SW(w)->dq, t);
	w->st.local_pushes++;
	rt_idle_notify_local(w);
}

static void so_schedule_remote(struct runtime *rt, struct task *t)
{
	inject_push(&rt->inject, t);
	rt_idle_notify(rt, NULL);
}

/* Remote spawns: up to global_batch tasks in one lock acquisition. The
 * first is returned; the rest go to the own deque, pushed newest first so
 * that the owner pops them in queue order and thieves take the last. */
static struct task *global_pop(struct worker *w)
{
	struct runtime *rt = w->rt;
	if (inject_len(&rt->inject) == 0)
		return NULL;
	struct task *buf[GLOBAL_BATCH_MAX];
	size_t got = inject_pop_batch(&rt->inject, buf, S(rt)->global_batch);
	if (got == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks += got;
	if (got > 1) {
		for (size_t i = got; i-- > 1;)
			deque_push(SW(w)->dq, buf[i]);
		w->st.local_pushes += got - 1;
		rt_idle_notify_local(w);
	}
	return buf[0];
}

/* A searcher that found work stops searching; the last one wakes another
 * so that work arriving meanwhile still has someone looking for it. */
static void leave_searching(struct worker *w)
{
	w->searching = false;
	if (idle_leave_searching(&w->rt->idle)) {
		uint64_t before = w->st.notifies;
		rt_idle_notify(w->rt, w);
		w->st.last_searcher_notifies += w->st.notifies - before;
	}
}

/* The own deque is empty: global queue, then random steal attempts until
 * one succeeds or `tries` have failed in a row. Out of line, so that the
 * common pop stays small. */
static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct blumofe *s = S(rt);
	struct so_worker *sw = SW(w);
	uint32_t n = rt->nworkers;
	struct task *t;

	if ((t = global_pop(w)))
		goto found;
	if (n == 1 || sw->fails >= s->tries)
		return NULL;
	if (!w->searching) {
		if (!idle_try_become_searcher(&rt->idle, s->cap_num, CAP_DEN))
			return NULL;
		w->searching = true;
		w->st.searcher_enter++;
	}
	/*
	 * At most 2 (P - 1) attempts (the default steal_tries) per call: then
	 * the tick ends and the next one looks at the global queue first, so
	 * a large steal_tries cannot keep a remote spawn (the workload's root)
	 * waiting behind 10^9 attempts. fails carries over: a worker still
	 * parks after steal_tries consecutive failures.
	 */
	uint32_t stop = s->tries - sw->fails > 2 * (n - 1) ? sw->fails + 2 * (n - 1) : s->tries;
	while (sw->fails < stop) {
		uint32_t v;
		if (!s->sweep || sw->fails == 0) {
			/* Uniform over the other n - 1 workers. */
			v = rng_below(&w->rng, n - 1);
			v += v >= w->index;
		} else {
			/* The next one in index order, skipping ourselves. */
			v = sw->victim + 1 < n ? sw->victim + 1 : 0;
			if (v == w->index)
				v = v + 1 < n ? v + 1 : 0;
		}
		sw->victim = v;
		w->st.steal_attempts++;
		if (deque_steal_before(&s->sh[v].dq, &t, rt_steal_horizon(rt, w)) == DEQUE_STOLEN) {
			w->st.steals++;
			w->st.tasks_stolen++;
			goto found;
		}
		/* Empty, or a lost race for the top task: both are a failed
		 * attempt, followed by a fresh random victim. */
		sw->fails++;
	}
	return NULL;
found:
	sw->fails = 0;
	if (w->searching)
		leave_searching(w);
	return t;
}

static inline __attribute__((always_inline)) struct task *so_find_work(struct worker *w)
{
	struct task *t = deque_pop(SW(w)->dq);
	if (__builtin_expect(t != NULL, 1)) {
		w->st.local_pops++;
		/* Searching with a local task: the core's timer or I/O poll at
		 * the tick's start woke or spawned it onto our deque. A worker
		 * running tasks must not count as a searcher (publishers would
		 * stay quiet for it). */
		if (__builtin_expect(w->searching, 0)) {
			SW(w)->fails = 0;
			leave_searching(w);
		}
		return t;
	}
	return find_work_slow(w);
}

static bool any_queue_nonempty(struct runtime *rt)
{
	if (inject_len(&rt->inject))
		return true;
	struct blumofe *s = S(rt);
	for (uint32_t i = 0; i < rt->nworkers; i++)
		if (deque_looks_nonempty(&s->sh[i].dq))
			return true;
	return false;
}

static bool so_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	/* The own deque is empty: find_work just popped nothing, and only
	 * this thread pushes to it. Nothing to flush before sleeping. */
	SW(w)->fails = 0;
	/* The paper's thief does not sleep: another round of attempts, still
	 * counted as a searcher (publishers stay quiet, nobody is parked). A
	 * worker alone has nobody to rob and sleeps until a remote spawn. */
	if (!S(rt)->sleep && rt->nworkers > 1)
		return false;
	bool last = idle_mark_parked(&rt->idle, w->index, w->searching);
	w->searching = false;
	/* Dekker with publishers (idle.h): they may have seen us awake, or
	 * searching, and stayed quiet. Look once more; if there is work, wake
	 * a worker (the lowest parked one: possibly ourselves, whose park
	 * then returns at once). */
	idle_fence_recheck();
	if (any_queue_nonempty(rt)) {
		uint64_t before = w->st.notifies;
		rt_idle_notify(rt, w);
		if (last)
			w->st.last_searcher_notifies += w->st.notifies - before;
	}
	*timeout_ns = S(rt)->park_ns;
	return true;
}

static void so_unparked(struct worker *w, enum park_wake how)
{
	SW(w)->fails = 0;
	rt_idle_unparked(w, how);
}

/* The stall report's counts: the core idle state, plus the deques, which
 * the ring counts do not see. */
static void so_idle_state(struct runtime *rt, struct policy_idle *out)
{
	struct blumofe *s = S(rt);
	out->searching = atomic_load(&rt->idle.num_searching);
	out->sleeping = atomic_load(&rt->idle.num_parked);
	out->queued = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		int64_t n = deque_len(&s->sh[i].dq);
		out->queued += n > 0 ? (uint64_t)n : 0;
	}
}

/* Stall report (workers stopped): the deques, which rt_dump's ring view
 * does not show, and each worker's search state. */
static void so_dump(struct runtime *rt, FILE *f)
{
	struct blumofe *s = S(rt);
	int64_t queued = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct deque *d = &s->sh[i].dq;
		int64_t t = atomic_load(&((struct deque *)d)->top);
		int64_t b = atomic_load(&((struct deque *)d)->bottom);
		queued += b > t ? b - t : 0;
		fprintf(f, "  blumofe-leiserson worker %u: deque %lld (top %lld, bottom %lld, capacity %lld), "
			   "%u failed attempts, %s\n",
			i, (long long)(b > t ? b - t : 0), (long long)t, (long long)b,
			(long long)deque_capacity(d), s->sw[i].fails,
			rt->workers[i].searching ? "searching" : "not searching");
	}
	fprintf(f, "  blumofe-leiserson: %lld tasks in deques (the ring counts above do not see them)\n",
		(long long)queued);
}

/* The threads engine's tick with so_find_work inlined (policy.h, step). */
static enum step so_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, so_find_work);
}

const struct policy policy_blumofe_leiserson = {
	.name = "blumofe-leiserson",
	.summary = "Blumofe-Leiserson (JACM 1999): Chase-Lev deque per worker, owner LIFO, steal "
		   "the oldest task of a uniformly random victim; thieves never sleep "
		   "(thieves_sleep=1 parks them)",
	.knobs = so_knobs,
	.nknobs = SO_NKNOBS,
	.knob_names = so_names,
	.check = so_check,
	.init = so_init,
	.destroy = so_destroy,
	.schedule_local = so_schedule_local,
	.schedule_remote = so_schedule_remote,
	.find_work = so_find_work,
	.step = so_step,
	.park = so_park,
	.unparked = so_unparked,
	.idle_state = so_idle_state,
	.check_idle = rt_idle_check_global,	/* remote tasks: global queue + notify */
	.dump = so_dump,
};
