/*
 * worker.c - the worker step: one tick of the loop every engine drives.
 *
 * A tick asks the policy for a budget, polls tasks the policy finds until
 * the budget is spent or nothing is found, reports the tick to the policy,
 * and if nothing ran lets the policy run its sleep protocol. The step never
 * blocks: parking is the engine's business (STEP_PARK).
 */
#include "span.h"
#include "touch.h"
#include "worker_loop.h"

#include "policies/policy.h"

/* The first poll of a task stamped when it became runnable: record its
 * scheduling delay (1 in N schedules, so out of line). */
void worker_poll_unplain(struct worker *w, struct task *t, uint32_t begin)
{
	task_poll_check(begin);
	uint64_t now = rt_now(w->rt, w);
	/* Clocks of two cores can disagree by a few ns. */
	hist_record(w->sched_hist, now > t->ready_ns ? now - t->ready_ns : 0);
	task_clear_sampled(t);
}

void worker_run_task(struct worker *w, struct task *t)
{
	struct runtime *rt = w->rt;

	uint32_t begin = worker_poll_begin(w, t);
	w->st.polls++;
	uint64_t tp0 = w->tracing ? rt_now(rt, w) : 0;
	enum task_poll r = t->vt->poll(t, w);
	if (w->tracing)
		trace_add(&w->trace, TRACE_POLL, tp0, rt_now(rt, w), 0, 0, 0);
	if (r == TASK_DONE) {
		w->st.completions++;
		publish_progress(w);
		complete_task(w, t);
		return;
	}
	poll_pending(w, t, begin, r);
}

struct task find_work_busy;

/* The first tick since a wake that polled a task: record the wake's
 * latency, from the unpark to this tick's start (struct worker's
 * wake_armed). The tick's first poll follows its first find_work, so the
 * figure is short of the first poll by that one search. Out of line: once
 * per wake. */
static __attribute__((noinline)) void worker_wake_polled(struct worker *w, uint64_t t0)
{
	w->wake_armed = false;
	w->wakes_polled++;
	if (w->wake_hist)
		hist_record(w->wake_hist, t0 > w->wake_ns ? t0 - w->wake_ns : 0);
}

/* Start a tick: maintenance the Volt way unless the policy does its own,
 * then the policy's budget for the tick. */
void worker_tick_open(struct worker *w)
{
	struct runtime *rt = w->rt;
	const struct policy *p = rt->policy;

	w->tick++;
	w->st.ticks++;
	if (!p->own_maintenance) {
		if (w->index == 0)
			rt_poll_timers(w);
		rt_poll_io(w);
	}
	w->tick_budget = policy_tick_begin(p, w);
	w->tick_polls = 0;
	w->tick_t0 = rt_now(rt, w);
	w->tick_compute0 = w->compute_ns;
	w->tick_compute_max = 0;
	w->in_tick = true;
	if (w->tracing) {
		w->trace_steals0 = w->st.steals;
		w->trace_global0 = w->st.global_tasks;
	}
}

/* End a tick: account for it, and if it polled nothing let the policy run
 * its sleep protocol. */
enum step worker_tick_close(struct worker *w, uint64_t *park_timeout_ns)
{
	struct runtime *rt = w->rt;
	const struct policy *p = rt->policy;
	uint32_t polls = w->tick_polls;
	uint64_t t0 = w->tick_t0, t1 = rt_now(rt, w);

	w->in_tick = false;
	publish_progress(w);
	if (polls && w->tracing)
		trace_add(&w->trace, TRACE_TICK, t0, t1, polls,
			  (uint32_t)(w->st.steals - w->trace_steals0),
			  (uint32_t)(w->st.global_tasks - w->trace_global0));
	if (polls) {
		/* Count only the part of the tick inside the run: a task ran,
		 * so the root was injected and start_ns is visible; end_ns is
		 * visible once finished reads true (acquire). */
		uint64_t b0 = t0 > rt->start_ns ? t0 : rt->start_ns;
		uint64_t b1 = t1;
		if (rt_finished(rt) && rt->end_ns < t1) {
			/* The last ticks only: the part after the end, for the
			 * lower-bound check's accounting (runtime.h). */
			b1 = rt->end_ns;
			w->busy_after_end_ns += b1 > b0 ? t1 - b1 : 0;
		}
		w->st.busy_ns += b1 > b0 ? b1 - b0 : 0;
		w->task_compute_ns += w->compute_ns - w->tick_compute0;
		if (w->tick_compute_max > w->task_compute_max_ns)
			w->task_compute_max_ns = w->tick_compute_max;
		if (__builtin_expect(w->wake_armed, 0))
			worker_wake_polled(w, t0);
	}
	w->tick_t1 = t1;
	policy_tick_end(p, w, polls, t1 - t0);
	if (polls)
		return STEP_RAN;
	if (rt_finished(rt))
		return STEP_EXIT;
	if (policy_park(p, w, park_timeout_ns)) {
		if (!p->own_maintenance && w->index == 0) {
			/* Worker 0 keeps the timers and I/O going while it sleeps. */
			rt_cap_to_next_event(w, park_timeout_ns);
		}
		w->st.parks++;
		if (w->wake_armed) {
			/* Woken, and parking again without a task polled. */
			w->wake_armed = false;
			w->wakes_empty++;
		}
		if (w->tracing)
			w->park_t0 = rt_now(rt, w);
		return STEP_PARK;
	}
	return STEP_IDLE;
}

/* The tick loop with a trace point around every poll (--trace). */
enum step worker_step_traced(struct worker *w,
						       uint64_t *park_timeout_ns)
{
	const struct policy *p = w->rt->policy;

	worker_tick_open(w);
	while (w->tick_polls < w->tick_budget) {
		struct task *t = p->find_work(w);
		if (!t)
			break;
		worker_run_task(w, t);
		w->tick_polls++;
	}
	return worker_tick_close(w, park_timeout_ns);
}

enum step worker_step(struct worker *w, uint64_t *park_timeout_ns)
{
	const struct policy *p = w->rt->policy;
	if (p->step)
		return p->step(w, park_timeout_ns);
	return worker_step_with(w, park_timeout_ns, p->find_work);
}

/*
 * cost.sema_table: a join's wait and wake take a root of Go's semaphore
 * table, as sync.WaitGroup's Wait, when it must sleep, and the Done that
 * wakes it do (runtime/sema.go: semacquire1 and semrelease1 lock
 * semtable[(addr >> 3) % semTabSize]'s root, queue or dequeue the sleeper
 * in its treap). The root is the waiting task's, by its address; a taking
 * after another worker's counts in remote_semas, which the engine charges
 * lock_transfer (the root's lock and lines, and its waiters', last written
 * on the other CPU). Nothing serialises on the roots: 251 of them.
 */
static void sema_take(struct worker *w, const struct task *t)
{
	struct runtime *rt = w->rt;
	uint16_t *last = &rt->sema_last[((uintptr_t)t >> 3) % RT_SEMA_ROOTS];
	uint16_t me = (uint16_t)(w->index + 1);
	w->st.sema_takings++;
	if (*last && *last != me)
		w->st.remote_semas++;
	*last = me;
}

/*
 * One poll with the sim's cache and migration model on (core/touch.h):
 * count a cold start if another worker touched the task last or nobody
 * did for touch_cold_after ns, and a remote join if the task completed
 * (its completion is an arrival at task.cont's join) on a parent another
 * worker touched last; stamp both as touched here. With the semaphore
 * table (sema_take): a poll that leaves the task waiting for arrivals,
 * and an arrival that ends a parent's wait, take its root. The engine
 * charges the counters. Out of line: only the sim with the model on comes
 * here.
 */
static __attribute__((noinline)) void run_task_touched(struct worker *w, struct task *t)
{
	struct runtime *rt = w->rt;
	uint32_t me = w->index + 1, word = t->touch;
	uint64_t now = rt_now(rt, w);
	if (touch_who(word) && touch_who(word) != me)
		w->st.cold_migrated++;
	else if (touch_who(word) && touch_age(word, now) > rt->touch_cold_after)
		w->st.cold_aged++;
	t->touch = touch_word(w->index, now);
	/* The parent's stamp before this poll's arrival (and the wake that
	 * may come with it) restamps it. */
	struct task *parent = t->cont;
	uint32_t pword = parent ? parent->touch : 0;
	/* The parent's state before this poll: one arrival left to await,
	 * and not queued, is a wait this poll's arrival ends. (One thread
	 * runs the sim: nothing else moves it meanwhile.) */
	uint32_t pstate = parent && rt->sema_on ?
				  atomic_load_explicit(&parent->state, memory_order_relaxed) : 0;
	uint64_t done = w->st.completions;
	if (__builtin_expect(w->tracing, 0)) {
		worker_run_task(w, t);	/* counts it itself */
	} else {
		w->st.polls++;
		run_task(w, t);
		publish_progress(w);
	}
	if (parent && w->st.completions != done) {
		if (touch_who(pword) && touch_who(pword) != me)
			w->st.remote_joins++;
		parent->touch = touch_word(w->index, rt_now(rt, w));
		if (rt->sema_on && task_joins(pstate) == 1 && !(pstate & TASK_SCHEDULED))
			sema_take(w, parent);	/* the Done that wakes it */
	} else if (rt->sema_on && w->st.completions == done) {
		/* Not complete, so not freed: waiting for arrivals still to
		 * come (none came during the poll: its children are later
		 * steps), it sleeps in the table. */
		uint32_t st = atomic_load_explicit(&t->state, memory_order_relaxed);
		if (task_joins(st) > 0 && !(st & TASK_SCHEDULED))
			sema_take(w, t);
	}
}

/*
 * One poll with the sim's span on (core/span.h): the poll as it would run
 * otherwise, bracketed by the span's bookkeeping. The continuation is read
 * before the poll, which may free the task. Out of line: only the sim
 * comes here.
 */
/* One poll of the sim's step: with the cache model, traced, or plain. The
 * simulation engine charges each step by the counters it moved: the poll
 * is counted now. */
static inline __attribute__((always_inline)) void step_poll(struct worker *w, struct task *t)
{
	if (__builtin_expect(w->rt->touch_on, 0)) {
		run_task_touched(w, t);
	} else if (__builtin_expect(w->tracing, 0)) {
		worker_run_task(w, t);	/* counts it itself */
	} else {
		w->st.polls++;
		run_task(w, t);
		publish_progress(w);
	}
}

static __attribute__((noinline)) void run_task_spanned(struct worker *w, struct task *t)
{
	struct span_graph *g = w->rt->span;
	struct task *parent = t->cont;
	uint64_t done = w->st.completions;
	span_poll_begin(g, w, t);
	step_poll(w, t);
	span_poll_end(g, w, t, parent, w->st.completions != done);
}

enum step worker_step_poll(struct worker *w, uint64_t *park_timeout_ns)
{
	const struct policy *p = w->rt->policy;

	struct task *t;
	if (__builtin_expect(w->held != NULL, 0)) {
		/* Taken in the previous step of this tick (split_poll). */
		t = w->held;
		w->held = NULL;
		goto poll;
	}
	if (!w->in_tick) {
		if (rt_finished(w->rt))
			return STEP_EXIT;
		worker_tick_open(w);
	}
	if (w->tick_polls < w->tick_budget) {
		t = p->find_work(w);
		if (__builtin_expect(t == FIND_WORK_BUSY, 0))
			return STEP_IDLE;
		if (t) {
			if (__builtin_expect(w->split_poll, 0)) {
				/* Exploring: the take ends this step, an idle
				 * one; the poll is the worker's next. */
				w->held = t;
				return STEP_IDLE;
			}
poll:;
			/* A task found before the virtual time it became
			 * runnable is waited for, outside the tick's time
			 * (engine.h await_ready). */
			const struct engine_ops *eo = w->rt->engine->ops;
			if (eo->await_ready)
				w->tick_t0 += eo->await_ready(w->rt->engine, w, t);
			if (w->rt->span)
				run_task_spanned(w, t);
			else
				step_poll(w, t);
			w->tick_polls++;
			return STEP_POLLED;
		}
	}
	return worker_tick_close(w, park_timeout_ns);
}

void worker_unparked(struct worker *w, enum park_wake how)
{
	if (w->tracing)
		trace_add(&w->trace, TRACE_PARK, w->park_t0, rt_now(w->rt, w), how == PARK_WOKEN, 0,
			  0);
	policy_unparked(w->rt->policy, w, how);
}
