/* runtime.c - creating a runtime and the task-facing API (runtime.h). */
#include "runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

void *rt_alloc_lines(size_t n, size_t size)
{
	size_t bytes = n * size;
	bytes = (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	void *p = aligned_alloc(CACHE_LINE, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

int rt_create(struct runtime **out, const struct rt_config *cfg, const struct policy *p,
	      const double *knobs, struct engine *e, char *err, size_t errlen)
{
	*out = NULL;
	if (cfg->workers == 0) {
		snprintf(err, errlen, "at least one worker is needed");
		return -EINVAL;
	}
	if (cfg->sample_period & (cfg->sample_period - 1)) {
		snprintf(err, errlen, "sample period %u is not a power of two", cfg->sample_period);
		return -EINVAL;
	}
	struct runtime *rt = rt_alloc_lines(1, sizeof *rt);
	if (!rt)
		goto oom;
	rt->nworkers = cfg->workers;
	rt->policy = p;
	rt->engine = e;
	rt->cfg = *cfg;
	rt->sample_on = cfg->sample_period != 0;
	rt->sample_mask = cfg->sample_period ? cfg->sample_period - 1 : 0;
	rt->dump_to = stderr;
	atomic_init(&rt->finished, RT_RUNNING);
	atomic_init(&rt->remote_spawns, 0);
	inject_init(&rt->inject);
	CHECK(pthread_mutex_init(&rt->outside_pool.lock, NULL) == 0);
	timers_init(&rt->timers);
	atomic_init(&rt->timekeeper, 0);
	idle_init(&rt->idle, cfg->workers);

	rt->knobs = calloc(p->nknobs ? p->nknobs : 1, sizeof(double));
	rt->shared = rt_alloc_lines(cfg->workers, sizeof(struct worker_shared));
	rt->workers = rt_alloc_lines(cfg->workers, sizeof(struct worker));
	if (!rt->knobs || !rt->shared || !rt->workers)
		goto oom_rt;
	if (p->per_worker_timers) {
		rt->wtimers = calloc(cfg->workers, sizeof *rt->wtimers);
		if (!rt->wtimers)
			goto oom_rt;
		for (uint32_t i = 0; i < cfg->workers; i++)
			timers_init(&rt->wtimers[i]);
	}
	if (p->nknobs)
		memcpy(rt->knobs, knobs, p->nknobs * sizeof(double));

	for (uint32_t i = 0; i < cfg->workers; i++) {
		struct worker *w = &rt->workers[i];
		ring_init(&rt->shared[i].ring);
		atomic_init(&rt->shared[i].transitioning_to_park, false);
		atomic_init(&rt->shared[i].lifo_occupied, false);
		atomic_init(&rt->shared[i].progress, 0);
		w->rt = rt;
		w->sh = &rt->shared[i];
		w->index = i;
		w->sched_local = p->schedule_local;
		w->sample_left = cfg->sample_period;	/* 0 when off: see rt_sample_stamp */
		rng_seed(&w->rng, cfg->seed, i);
		if (cfg->trace_events) {
			w->trace.ev = calloc(cfg->trace_events, sizeof *w->trace.ev);
			if (!w->trace.ev)
				goto oom_rt;
			w->trace.cap = cfg->trace_events;
			w->tracing = true;
		}
		/* The others' sched_delay stays zeroed: hist_destroy frees
		 * nothing there. */
		w->sched_hist = &rt->workers[e->ops->one_thread ? 0 : i].sched_delay;
		int hrc = w->sched_hist == &w->sched_delay ?
				  hist_init(&w->sched_delay, cfg->hist_digits, HIST_HIGHEST_NS) : 0;
		if (hrc == -ENOMEM) {
			snprintf(err, errlen, "out of memory for worker %u's scheduling-delay "
				 "histogram (%d digits)", i, cfg->hist_digits);
			rt_destroy(rt);
			return -ENOMEM;
		}
		if (hrc) {
			snprintf(err, errlen, "bad histogram precision %d", cfg->hist_digits);
			rt_destroy(rt);
			return -EINVAL;
		}
	}
	if (p->init) {
		int rc = p->init(rt);
		if (rc != 0) {
			snprintf(err, errlen, "policy %s failed to initialise: %s", p->name,
				 strerror(-rc));
			p = NULL;	/* nothing to destroy */
			rt->policy = NULL;
			rt_destroy(rt);
			return rc;
		}
	}
	*out = rt;
	return 0;

oom_rt:
	rt->policy = NULL;
	rt_destroy(rt);
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void rt_destroy(struct runtime *rt)
{
	if (!rt)
		return;
	if (rt->policy && rt->policy->destroy)
		rt->policy->destroy(rt);
	if (rt->workers)
		for (uint32_t i = 0; i < rt->nworkers; i++) {
			hist_destroy(&rt->workers[i].sched_delay);
			taskpool_drain(&rt->workers[i].pool);
			free(rt->workers[i].trace.ev);
		}
	inject_destroy(&rt->inject);
	taskpool_outside_drain(&rt->outside_pool);
	timers_destroy(&rt->timers);
	if (rt->wtimers) {
		for (uint32_t i = 0; i < rt->nworkers; i++)
			timers_destroy(&rt->wtimers[i]);
		free(rt->wtimers);
	}
	pthread_mutex_destroy(&rt->outside_pool.lock);
	free(rt->workers);
	free(rt->shared);
	free(rt->knobs);
	free(rt);
}

int rt_sched_delay_merge(const struct runtime *rt, struct hist *dst)
{
	int rc = 0;
	for (uint32_t i = 0; i < rt->nworkers && rc == 0; i++)
		if (rt->workers[i].sched_hist == &rt->workers[i].sched_delay)
			rc = hist_merge(dst, &rt->workers[i].sched_delay);
	return rc;
}

/* Stamp t as runnable since now. A stamp of 0 (the simulator's first
 * instant) is no stamp: the sample always read a zero ready_ns so. */
static void sample_mark(struct task *t, uint64_t now)
{
	t->ready_ns = now;
	if (now)
		task_mark_sampled(t);
}

/* The countdown reached zero: stamp this schedule (sampling on) and start
 * the next period. With sampling off the countdown starts again at 2^32. */
void rt_sample_stamp(struct worker *w, struct task *t)
{
	struct runtime *rt = w->rt;
	w->sample_left = rt->cfg.sample_period;	/* 0 when off: 2^32 decrements */
	if (rt->sample_on)
		sample_mark(t, rt_now(rt, w));
}

void rt_place(struct runtime *rt, uint32_t index, struct task *t)
{
	CHECK_MSG(!rt->started, "rt_place after the workers started");
	CHECK(index < rt->nworkers);
	/* The worker has not run yet: this thread may act as its owner. The
	 * task counts as injected: no worker spawned it. */
	atomic_fetch_add_explicit(&rt->remote_spawns, 1, memory_order_relaxed);
	t->ready_ns = 0;	/* runnable from the start (engine.h await_ready) */
	rt->policy->schedule_local(&rt->workers[index], t, SCHED_SPAWN);
}

/* Re-schedule or inject from outside any worker. */
void rt_schedule_remote(struct runtime *rt, struct task *t)
{
	/* Remote schedules are rare: stamp every one. An engine that reads
	 * every task's stamp (engine.h await_ready) gets one sampling off. */
	if (rt->sample_on)
		sample_mark(t, rt_now(rt, NULL));
	else if (rt->engine->ops->await_ready)
		t->ready_ns = rt_now(rt, NULL);
	rt->policy->schedule_remote(rt, t);
}

void rt_spawn_remote(struct runtime *rt, struct task *t)
{
	/* Relaxed: read after the run, once the workers are joined. */
	atomic_fetch_add_explicit(&rt->remote_spawns, 1, memory_order_relaxed);
	rt_schedule_remote(rt, t);
}

/* rt_join_ready when the parent is the sampled schedule. */
static __attribute__((noinline)) void join_ready_sampled(struct worker *w, struct task *parent)
{
	rt_sample_stamp(w, parent);
	w->sched_local(w, parent, SCHED_WAKE);
}

enum task_poll rt_join_ready(struct worker *w, struct task *parent)
{
	/* rt_sample_due with the stamp's path apart: nothing here lives
	 * across the schedule's call. */
	if (__builtin_expect(--w->sample_left == 0, 0))
		join_ready_sampled(w, parent);
	else
		w->sched_local(w, parent, SCHED_WAKE);
	return TASK_DONE;
}

void rt_wake(struct runtime *rt, struct worker *w, struct task *t)
{
	if (!task_wake(t))
		return;
	if (w) {
		rt_sample_due(w, t);
		w->sched_local(w, t, SCHED_WAKE);
	} else {
		rt_schedule_remote(rt, t);
	}
}

void rt_sleep_until(struct runtime *rt, struct task *t, uint64_t deadline)
{
	timers_add(&rt->timers, deadline, t);
	/* The keeper may be asleep with a later (or no) wake-up planned. An
	 * unpark of a running worker costs a swap and one spurious return
	 * from its next park, which re-arms from the new earliest deadline. */
	if (timers_next(&rt->timers) != deadline)
		return;
	rt_wake_timekeeper(rt);
}

void rt_sleep_on(struct worker *w, struct task *t, uint64_t deadline)
{
	struct runtime *rt = w->rt;
	if (!rt->wtimers) {
		rt_sleep_until(rt, t, deadline);
		return;
	}
	struct timers *h = &rt->wtimers[w->index];
	timers_add(h, deadline, t);
	/* As rt_sleep_until: a new earliest of this heap may be earlier than
	 * the keeper's planned wake-up (Go's addtimer -> wakeNetPoller). */
	if (timers_next(h) != deadline)
		return;
	rt_wake_timekeeper(rt);
}

/*
 * Tokio's time driver does the same when a timer is registered earlier
 * than the instant the parked driver sleeps until (tokio/src/runtime/time/
 * mod.rs, Handle::reregister: unpark the driver), and a worker parked on
 * the driver is woken through the driver (scheduler/multi_thread/park.rs,
 * Inner::unpark, the PARKED_DRIVER case), not through its condvar.
 */
void rt_wake_timekeeper(struct runtime *rt)
{
	/* The fence pairs with the keeper's between taking the role and
	 * reading the next event: either the keeper reads the new event, or
	 * this load sees the keeper and unparks it. */
	idle_fence_publish();
	int32_t keeper = atomic_load_explicit(&rt->timekeeper, memory_order_relaxed);
	if (keeper >= 0)
		rt->engine->ops->unpark(rt->engine, (uint32_t)keeper);
}

/* Wake onto w every task of heap h whose timer expired by now. */
static size_t expire_heap(struct worker *w, struct timers *h, uint64_t now)
{
	struct task *due[64];
	size_t total = 0, n;
	while ((n = timers_expire(h, now, due, 64)) > 0) {
		for (size_t i = 0; i < n; i++)
			rt_wake(w->rt, w, due[i]);
		total += n;
		if (n < 64)
			break;
	}
	return total;
}

size_t rt_poll_timers(struct worker *w)
{
	struct runtime *rt = w->rt;
	if (timers_next(&rt->timers) == TIMER_NONE)
		return 0;	/* no clock read when nothing waits */
	return expire_heap(w, &rt->timers, rt_now(rt, w));
}

size_t rt_poll_io(struct worker *w)
{
	struct runtime *rt = w->rt;
	if (!rt->io_poll)
		return 0;
	return rt->io_poll(rt, w, rt_now(rt, w), rt->io_arg);
}

size_t rt_poll_timers_of(struct worker *w, uint32_t owner, uint64_t now)
{
	struct runtime *rt = w->rt;
	struct timers *h = &rt->wtimers[owner];
	if (timers_next(h) > now)
		return 0;
	return expire_heap(w, h, now);
}

void rt_cap_to_next_event(struct worker *w, uint64_t *timeout_ns)
{
	uint64_t next = rt_next_event(w->rt);
	if (next == TIMER_NONE)
		return;
	uint64_t now = rt_now(w->rt, w);
	uint64_t left = next > now ? next - now : 0;
	if (left < *timeout_ns)
		*timeout_ns = left;
}

uint64_t rt_next_event(struct runtime *rt)
{
	uint64_t t = timers_next(&rt->timers);
	if (rt->wtimers)
		for (uint32_t i = 0; i < rt->nworkers; i++) {
			uint64_t d = timers_next(&rt->wtimers[i]);
			t = d < t ? d : t;
		}
	if (rt->io_next) {
		uint64_t io = rt->io_next(rt, rt->io_arg);
		t = io < t ? io : t;
	}
	return t;
}

void rt_finish(struct runtime *rt, struct worker *w)
{
	rt->end_ns = rt_now(rt, w);
	/* Release: end_ns and the workload's answer are visible to whoever
	 * sees finished (the harness after the engine's join, workers'
	 * step loop). */
	atomic_store_explicit(&rt->finished, RT_FINISHED, memory_order_release);
	rt->engine->ops->finish(rt->engine, rt);
}

__attribute__((noinline)) void rt_push_local_overflow(struct worker *w, struct task *t)
{
	struct ring_overflow out;
	enum ring_push_result r = ring_push_slow(&w->sh->ring, t, &out);
	if (r == RING_PUSHED)
		return;
	if (r == RING_OVERFLOWED) {
		w->st.overflows++;
		w->st.overflow_locks++;
		w->st.overflow_tasks += out.n;
	}
	inject_push_many(&w->rt->inject, out.tasks, out.n);
}

void rt_idle_notify(struct runtime *rt, struct worker *w)
{
	idle_fence_publish();
	if (idle_should_wake(&rt->idle))
		rt_idle_unpark(rt, w, idle_claim_parked(&rt->idle));
}

_Thread_local struct worker *rt_running;

void rt_idle_unpark(struct runtime *rt, struct worker *w, int id)
{
	if (id < 0)
		return;
	if (!w)
		w = rt_running;
	if (w)
		w->st.notifies++;
	/* A notify that woke nobody (a permit for a worker awake) made no
	 * system call: the sim charges it nothing (core/costs.h). */
	if (!rt->engine->ops->unpark(rt->engine, (uint32_t)id) && w)
		w->st.awake_notifies++;
}

void rt_idle_unparked(struct worker *w, enum park_wake how)
{
	if (idle_wake_was_claim(&w->rt->idle, w->index)) {
		/* The claimer counted us as a searcher. */
		w->searching = true;
		w->st.unparks_notify++;
	} else if (how == PARK_TIMEOUT) {
		w->st.unparks_timeout++;
	} else {
		w->st.unparks_spurious++;
	}
}

/* A claimed worker counts as searching from its claim on, so a wake on its
 * way satisfies the invariant too. Runs between simulated steps only. */
const char *rt_idle_check_global(struct runtime *rt)
{
	static char why[160];
	size_t global = inject_len(&rt->inject);
	uint32_t parked = atomic_load(&rt->idle.num_parked);
	uint32_t searching = atomic_load(&rt->idle.num_searching);
	uint32_t bits = (uint32_t)__builtin_popcountll(atomic_load(&rt->idle.parked_bitmap));
	/* Every RMW pair of the protocol (mark parked, claim, the wake
	 * path's clear) keeps the count equal to the bits between steps. */
	if (parked != bits) {
		snprintf(why, sizeof why,
			 "the parked count is %u but %u workers are in the parked bitmap (the "
			 "count wrapped or drifted: a timeout raced a claim)", parked, bits);
		return why;
	}
	if (global && parked && !searching) {
		snprintf(why, sizeof why,
			 "%zu tasks in the global queue while %u workers sleep and none searches "
			 "(a lost wakeup)", global, parked);
		return why;
	}
	return NULL;
}

void rt_total_stats(const struct runtime *rt, struct worker_stats *out)
{
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < rt->nworkers; i++)
		worker_stats_add(out, &rt->workers[i].st);
}

uint64_t rt_progress(struct runtime *rt)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		sum += atomic_load_explicit(&rt->shared[i].progress, memory_order_relaxed);
	return sum;
}

int rt_snapshot_take(struct runtime *rt, struct rt_snapshot *snap)
{
	snap->w = calloc(rt->nworkers, sizeof *snap->w);
	if (!snap->w)
		return -ENOMEM;
	snap->global = inject_len(&rt->inject);
	snap->moving = !rt->engine->ops->one_thread;
	snap->core_idle = !rt->policy->idle_state;
	if (snap->core_idle) {
		snap->searching = atomic_load(&rt->idle.num_searching);
		snap->parked = atomic_load(&rt->idle.num_parked);
		snap->queued_elsewhere = 0;
	} else {
		struct policy_idle pi = { 0, 0, 0 };
		rt->policy->idle_state(rt, &pi);
		snap->searching = pi.searching;
		snap->parked = pi.sleeping;
		snap->queued_elsewhere = pi.queued;
	}
	snap->bitmap = atomic_load(&rt->idle.parked_bitmap);
	snap->timekeeper = atomic_load_explicit(&rt->timekeeper, memory_order_relaxed);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct worker_shared *sh = &rt->shared[i];
		snap->w[i].head = atomic_load(&sh->ring.head);
		snap->w[i].tail = atomic_load(&sh->ring.tail);
		snap->w[i].transitioning = atomic_load(&sh->transitioning_to_park);
		snap->w[i].progress = atomic_load_explicit(&sh->progress, memory_order_relaxed);
	}
	return 0;
}

void rt_snapshot_free(struct rt_snapshot *snap)
{
	free(snap->w);
	snap->w = NULL;
}

void rt_dump(struct runtime *rt, FILE *f, const struct rt_snapshot *snap, bool stopped)
{
	uint64_t in_rings = 0, in_lifo = 0;

	fprintf(f, "stall report: policy %s, %u workers; no task completed within the watchdog "
		   "period\n", rt->policy->name, rt->nworkers);
	if (snap->moving)
		fprintf(f, "  (read one field at a time while the workers ran: the idle state and "
			   "the worker lines may be from moments apart and disagree)\n");
	fprintf(f, "  global queue: %zu tasks\n", snap->global);
	if (snap->core_idle)
		fprintf(f, "  idle state: %u searching, %u parked, parked bitmap %#018llx\n",
			snap->searching, snap->parked, (unsigned long long)snap->bitmap);
	else
		fprintf(f, "  idle state (%s's own): %u searching, %u asleep, %llu tasks in its "
			   "own queues\n", rt->policy->name, snap->searching, snap->parked,
			(unsigned long long)snap->queued_elsewhere);
	if (snap->timekeeper >= 0)
		fprintf(f, "  timekeeper (parks no longer than the next timer or I/O event): "
			   "worker %d\n", snap->timekeeper);
	else
		fprintf(f, "  timekeeper: nobody holds the role\n");
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct rt_worker_snapshot *ws = &snap->w[i];
		uint32_t len = ws->tail - ring_real(ws->head);
		bool parked = snap->core_idle && i < IDLE_MAX_WORKERS && ((snap->bitmap >> i) & 1);
		in_rings += len;
		fprintf(f, "  worker %u: ring %u (head steal %u real %u, tail %u), %s%scompleted %llu",
			i, len, ring_steal_idx(ws->head), ring_real(ws->head), ws->tail,
			parked ? "parked, " : "", ws->transitioning ? "transitioning to park, " : "",
			(unsigned long long)ws->progress);
		if (!stopped) {
			fputc('\n', f);
			continue;
		}
		const struct worker *w = &rt->workers[i];
		in_lifo += w->lifo != NULL;
		fprintf(f, ", lifo %s%s\n    counters:", w->lifo ? "occupied" : "empty",
			w->searching ? ", searching" : "");
#define X(name, help) fprintf(f, " %s=%llu", #name, (unsigned long long)w->st.name);
		WORKER_COUNTERS(X)
#undef X
		fputc('\n', f);
	}
	if (!stopped)
		fprintf(f, "  (workers did not stop: LIFO slots and counters not read)\n");
	if (stopped && rt->policy->dump)
		rt->policy->dump(rt, f);
	uint64_t queued = snap->global + in_rings + in_lifo + snap->queued_elsewhere;
	if (queued && snap->parked && snap->searching == 0)
		fprintf(f, "  diagnosis: %llu runnable tasks queued while %u workers sleep and none "
			   "searches: a lost wakeup\n", (unsigned long long)queued, snap->parked);
	else if (queued == 0 && stopped && rt_next_event(rt) != TIMER_NONE)
		fprintf(f, "  diagnosis: no runnable task queued, but a timer or I/O event is pending "
			   "(at %llu ns) that no worker polls: the timekeeper (%s) sleeps through "
			   "it, or nobody holds the role (a lost wake)\n",
			(unsigned long long)rt_next_event(rt),
			snap->timekeeper >= 0 ? "shown above" : "nobody");
	else if (queued == 0)
		fprintf(f, "  diagnosis: no runnable task queued: the outstanding tasks wait for "
			   "something that never comes (a lost task or a lost wake)\n");
	else
		fprintf(f, "  diagnosis: %llu runnable tasks queued, %u searching, %u parked: the "
			   "running tasks do not complete\n", (unsigned long long)queued,
			snap->searching, snap->parked);
}
