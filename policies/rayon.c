/*
 * rayon.c - the Rayon design (rayon-core; docs/policies.md).
 *
 * Deques. Each worker owns a Chase-Lev deque (core/deque.h): spawned, woken
 * and re-polled tasks are pushed at its bottom and the owner pops there
 * (LIFO); thieves take one task, the oldest, from the top. A worker whose
 * deque is empty sweeps the other workers once from a random start, taking
 * the first task it can steal, and repeats the sweep while some victim
 * reported a lost race (rayon-core registry.rs `steal`); then it pops the
 * global injector, where remote spawns go.
 *
 * Sleep (rayon-core sleep/). One atomic 64-bit word, the counters:
 *
 *   bits  0..15  sleeping threads
 *   bits 16..31  inactive threads: looking for work, sleepy or asleep
 *   bits 32..63  the jobs event counter (JEC)
 *
 * A worker whose deque is empty becomes inactive and searches in rounds
 * (here a round is one tick whose find_work failed; each ends by yielding
 * the CPU, rt_yield, as Rayon's thread::yield_now does). After
 * rounds_until_sleepy (32) rounds it announces that it is sleepy: if the
 * JEC is odd it increments it to even, and remembers the even value. It
 * searches once more, then tries to sleep: if the JEC moved since the
 * announcement, a job was posted that it may have missed, so it searches
 * again and re-announces (no sleep); otherwise it counts itself sleeping
 * (CAS on the word, which fails if the JEC moved meanwhile), and after a
 * seq_cst fence it sleeps unless the injector holds jobs.
 *
 * Posting jobs (a local push or an injection) makes the JEC odd if it is
 * even (so a sleepy worker sees the move), and wakes min(jobs, sleepers)
 * sleepers; if the queue it pushed to was empty, awake inactive threads
 * are counted as takers first, and only the shortfall is woken. A worker
 * that finds work leaves the inactive count and wakes up to wake_on_find
 * (2) sleepers. With nobody sleepy (the JEC odd) and nobody asleep, a post
 * costs one load of the counters word.
 *
 * Blitz reads like this but inverts the announcement (the JEC stays odd,
 * so the "moved" check never fires); here announcing makes it even, as in
 * Rayon's JobsEventCounter::is_sleepy.
 *
 * Which wakeups cannot be missed, and which can. Each worker has a sleep
 * flag: AWAKE, SLEEPING (set by the worker before it counts itself
 * sleeping) and NOTIFIED (a waker claimed it with a CAS from SLEEPING and
 * unparked it). Wakers scan the flags from worker 0 up (as Rayon scans its
 * sleep states), claiming up to the number they want to wake.
 *  - Every write to the counters word is an RMW (seq_cst), so the writes
 *    form one release sequence: a load of the word that returns a value at
 *    or after a sleeper's CAS happens after that CAS, hence after its flag
 *    store. A poster that counts the sleeper therefore finds its flag
 *    SLEEPING (or already claimed, or the sleeper already up).
 *  - A poster that moves the JEC from even to odd between a worker's
 *    announcement and its CAS makes that CAS fail: the worker searches
 *    again, and having read the poster's RMW it sees the job. A poster
 *    that moved the JEC before the announcement is acquired by the
 *    announcement's RMW, so the worker's last search sees the job.
 *  - What remains is a poster that found the JEC odd already and read the
 *    word before the announcement (or a 32-bit JEC that wrapped round to
 *    the remembered value): nothing orders its push before the worker's
 *    last search. Rayon closes this for injected jobs with a seq_cst fence
 *    on both sides: the injector fences between its push and its read of
 *    the word; the sleeper fences between its CAS and its look at the
 *    injector, so one of the two sees the other. Local jobs are left open,
 *    as in Rayon: the pusher pops its own job if nobody else does, so at
 *    worst parallelism waits for the next post or the next find.
 *
 * Counters: searcher_enter counts entries into the inactive state; steals
 * == tasks_stolen (one task per steal); notifies counts sleepers claimed by
 * posts and finds of this worker; unparks_notify wakes by a claim,
 * unparks_spurious wakes without one (the end of the run, a workload's
 * own unpark, or a stale permit after a sleep attempt that a claim
 * overtook).
 *
 * Departures, each forced by this harness's mechanisms:
 *  - The sleeper removes itself from the sleeping count when it wakes;
 *    Rayon's waker does it, under the sleeper's mutex. Without a mutex a
 *    waker cannot know whether the sleeper's count increment has happened
 *    yet (the flag is set first). Meanwhile a poster may count a claimed
 *    sleeper that is not up yet and scan for it in vain: a little wasted
 *    scanning, no missed wake. Awake inactive threads are then undercounted
 *    for that moment, which errs towards waking more.
 *  - Rayon wakes a worker whose latch (a join) is set; continuations here
 *    are pushed on the finishing worker's deque instead, so there are no
 *    latch wakes.
 *  - wake_on_find=0 (Rayon always wakes min(sleepers, 2) on a find) still
 *    wakes one sleeper while the injector holds jobs (work_found).
 *  - Was the deque empty before a local push? Rayon reads it before the
 *    push; here the slow path reads the length after it (<= 1), which
 *    differs only when a thief stole concurrently, and keeps the post's
 *    fast path at one load.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deque.h"
#include "policies/policy.h"
#include "core/worker_loop.h"

enum rayon_knob {
	RAYON_ROUNDS_UNTIL_SLEEPY,
	RAYON_WAKE_ON_FIND,
	RAYON_WAKE_ON_POST,
	RAYON_COUNT_AWAKE_IDLE,
	RAYON_STEAL_RETRY,
	RAYON_RANDOM_START,
	RAYON_INJECT_BATCH,
	RAYON_PARK_TIMEOUT_NS,
	RAYON_NKNOBS
};

#define INJECT_BATCH_MAX 256
#define THREADS_MAX 0xffffu

static const struct knob_def rayon_knobs[RAYON_NKNOBS] = {
	[RAYON_ROUNDS_UNTIL_SLEEPY] = { "rounds_until_sleepy", 32, 0, 1e9, true,
					"failed find-work rounds before announcing sleepy (one more, then sleep)" },
	[RAYON_WAKE_ON_FIND] = { "wake_on_find", 2, 0, THREADS_MAX, true,
				 "sleepers a worker wakes when it leaves the idle state with work (0: still one while the injector holds jobs)" },
	[RAYON_WAKE_ON_POST] = { "wake_on_post", 1, 0, 1, true,
				 "posting a job wakes min(jobs, sleepers) sleepers; 0 = only wake on find "
				 "(needs park_timeout_ns > 0)" },
	[RAYON_COUNT_AWAKE_IDLE] = { "count_awake_idle", 1, 0, 1, true,
				     "a post to an empty queue wakes only beyond the awake idle threads; 0 = ignore them" },
	[RAYON_STEAL_RETRY] = { "steal_retry", 1, 0, 1, true,
				"repeat the victim sweep while some steal lost a race" },
	[RAYON_RANDOM_START] = { "random_start", 1, 0, 1, true,
				 "start each victim sweep at a random worker; 0 = at the next worker after this one" },
	[RAYON_INJECT_BATCH] = { "inject_batch", 1, 1, INJECT_BATCH_MAX, true,
				 "tasks taken from the injector at once; the rest go to the own deque" },
	[RAYON_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,
				    "longest sleep before a re-check; 0 = until woken, as Rayon" },
};

/* The counters word. */
#define ONE_SLEEPING ((uint64_t)1)
#define ONE_INACTIVE ((uint64_t)1 << 16)
#define ONE_JEC ((uint64_t)1 << 32)
#define JEC_NONE UINT64_MAX	/* no announcement remembered */

static inline uint32_t c_sleeping(uint64_t c)
{
	return (uint32_t)(c & THREADS_MAX);
}
static inline uint32_t c_inactive(uint64_t c)
{
	return (uint32_t)((c >> 16) & THREADS_MAX);
}
static inline uint64_t c_jec(uint64_t c)
{
	return c >> 32;
}

/* A worker's sleep flag. */
enum { R_AWAKE = 0, R_SLEEPING = 1, R_NOTIFIED = 2 };

/* Thief- and waker-visible, one per worker. */
struct rayon_shared {
	struct deque dq;
	CACHE_ALIGNED _Atomic uint32_t sleep;
};

/* Owner-private, one per worker. */
struct rayon_worker {
	CACHE_ALIGNED struct deque *dq;
	struct rayon_shared *sh;
	uint32_t rounds;	/* failed rounds since becoming inactive or waking */
	bool inactive;		/* counted in the word's inactive threads */
	uint64_t jec;		/* JEC remembered when sleepy, or JEC_NONE */
};

struct rayon {
	CACHE_ALIGNED _Atomic uint64_t counters;
	CACHE_ALIGNED uint32_t sleepy_rounds, wake_on_find, inject_batch;
	bool wake_on_post, count_awake_idle, steal_retry, random_start;
	uint64_t park_ns;		/* PARK_FOREVER for none */
	struct rayon_shared *sh;	/* [nworkers] */
	struct rayon_worker *rw;	/* [nworkers] */
};

_Static_assert(sizeof(struct rayon_shared) % CACHE_LINE == 0, "shared padded to lines");
_Static_assert(sizeof(struct rayon_worker) % CACHE_LINE == 0, "private padded to lines");

/* Test interface (tests/test_policy_rayon.c declares the same): the
 * counters word, and worker i's sleep flag (0 awake, 1 sleeping, 2
 * notified). */
uint64_t rayon_counters_word(const struct runtime *rt);
uint32_t rayon_sleep_flag(const struct runtime *rt, uint32_t worker);

static inline struct rayon *R(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct rayon_worker *RW(const struct worker *w)
{
	return w->pstate;
}

uint64_t rayon_counters_word(const struct runtime *rt)
{
	return atomic_load_explicit(&R(rt)->counters, memory_order_seq_cst);
}

uint32_t rayon_sleep_flag(const struct runtime *rt, uint32_t worker)
{
	return atomic_load_explicit(&R(rt)->sh[worker].sleep, memory_order_seq_cst);
}

static int rayon_check(const struct rt_config *cfg, const double *k, char *err, size_t len)
{
	if (cfg->workers > THREADS_MAX) {
		snprintf(err, len,
			 "policy rayon supports at most %u workers (16-bit thread counts), got %u",
			 THREADS_MAX, cfg->workers);
		return -EINVAL;
	}
	/*
	 * Without wakes on post, a job injected while every worker sleeps
	 * (a workload's root, an arrival) wakes nobody; only a park timeout
	 * makes a sleeper look again. Refused rather than given a fallback
	 * the knob did not ask for: set park_timeout_ns too.
	 */
	if (k[RAYON_WAKE_ON_POST] == 0 && k[RAYON_PARK_TIMEOUT_NS] == 0) {
		snprintf(err, len,
			 "wake_on_post=0 needs park_timeout_ns > 0: a job injected while every "
			 "worker sleeps would wake nobody");
		return -EINVAL;
	}
	return 0;
}

static int rayon_init(struct runtime *rt)
{
	if (rt->nworkers > THREADS_MAX)
		return -EINVAL;
	struct rayon *r = rt_alloc_lines(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	const double *k = rt->knobs;
	uint32_t n = rt->nworkers;
	atomic_init(&r->counters, 0);
	r->sleepy_rounds = (uint32_t)k[RAYON_ROUNDS_UNTIL_SLEEPY];
	r->wake_on_find = (uint32_t)k[RAYON_WAKE_ON_FIND];
	r->wake_on_post = k[RAYON_WAKE_ON_POST] != 0;
	r->count_awake_idle = k[RAYON_COUNT_AWAKE_IDLE] != 0;
	r->steal_retry = k[RAYON_STEAL_RETRY] != 0;
	r->random_start = k[RAYON_RANDOM_START] != 0;
	r->inject_batch = (uint32_t)k[RAYON_INJECT_BATCH];
	r->park_ns = k[RAYON_PARK_TIMEOUT_NS] > 0 ? (uint64_t)k[RAYON_PARK_TIMEOUT_NS]
						  : PARK_FOREVER;
	r->sh = rt_alloc_lines(n, sizeof *r->sh);
	r->rw = rt_alloc_lines(n, sizeof *r->rw);
	if (!r->sh || !r->rw) {
		free(r->sh);
		free(r->rw);
		free(r);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		deque_init(&r->sh[i].dq);
		atomic_init(&r->sh[i].sleep, R_AWAKE);
		r->rw[i].dq = &r->sh[i].dq;
		r->rw[i].sh = &r->sh[i];
		r->rw[i].jec = JEC_NONE;
		rt->workers[i].pstate = &r->rw[i];
	}
	rt->pstate = r;
	return 0;
}

static void rayon_destroy(struct runtime *rt)
{
	struct rayon *r = R(rt);
	if (!r)
		return;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		deque_destroy(&r->sh[i].dq);
	free(r->sh);
	free(r->rw);
	free(r);
	rt->pstate = NULL;
}

/*
 * Wake up to k sleepers, lowest index first. The flag load may be relaxed:
 * the caller's load of the counters word (or its fence) already orders it
 * after the sleeper's flag store (header comment). The claim CAS makes
 * exactly one waker responsible for each sleep; the engine's unpark
 * (release) carries the posted job to the woken worker.
 */
static __attribute__((noinline)) void wake_any(struct runtime *rt, struct worker *w, uint32_t k)
{
	struct rayon *r = R(rt);
	for (uint32_t i = 0; i < rt->nworkers && k; i++) {
		_Atomic uint32_t *f = &r->sh[i].sleep;
		uint32_t expect = R_SLEEPING;
		if (atomic_load_explicit(f, memory_order_relaxed) != R_SLEEPING ||
		    !atomic_compare_exchange_strong_explicit(f, &expect, R_NOTIFIED,
							     memory_order_acq_rel,
							     memory_order_relaxed))
			continue;
		rt_idle_unpark(rt, w, (int)i);
		k--;
	}
}

/* Rayon's increment_jobs_event_counter_if(is_sleepy): a post makes an even
 * (sleepy) JEC odd. Returns the word as left. */
static uint64_t jec_post(struct rayon *r)
{
	uint64_t c = atomic_load_explicit(&r->counters, memory_order_seq_cst);
	for (;;) {
		if (c_jec(c) & 1)
			return c;
		if (atomic_compare_exchange_weak_explicit(&r->counters, &c, c + ONE_JEC,
							  memory_order_seq_cst,
							  memory_order_seq_cst))
			return c + ONE_JEC;
	}
}

/* Rayon's increment_jobs_event_counter_if(is_active): announcing sleepy
 * makes an odd (active) JEC even. Returns the word as left. */
static uint64_t jec_announce_sleepy(struct rayon *r)
{
	uint64_t c = atomic_load_explicit(&r->counters, memory_order_seq_cst);
	for (;;) {
		if (!(c_jec(c) & 1))
			return c;
		if (atomic_compare_exchange_weak_explicit(&r->counters, &c, c + ONE_JEC,
							  memory_order_seq_cst,
							  memory_order_seq_cst))
			return c + ONE_JEC;
	}
}

/* `jobs` jobs were posted (Rayon's new_jobs); the JEC was read by the
 * caller's fast path and needs a move, or somebody sleeps. */
static __attribute__((noinline)) void new_jobs(struct runtime *rt, struct worker *w,
					       uint32_t jobs, bool queue_was_empty)
{
	struct rayon *r = R(rt);
	uint64_t c = jec_post(r);
	uint32_t sleepers = c_sleeping(c);
	if (sleepers == 0 || !r->wake_on_post)
		return;
	DCHECK(c_inactive(c) >= sleepers);
	uint32_t awake_idle = c_inactive(c) - sleepers;
	uint32_t k;
	if (!queue_was_empty || !r->count_awake_idle)
		k = jobs < sleepers ? jobs : sleepers;
	else if (awake_idle < jobs)
		k = jobs - awake_idle < sleepers ? jobs - awake_idle : sleepers;
	else
		return;
	wake_any(rt, w, k);
}

/* Push on the own deque and post the job. */
static inline void push_local(struct worker *w, struct task *t)
{
	struct rayon_worker *rw = RW(w);
	deque_push(rw->dq, t);
	w->st.local_pushes++;
	/* Rayon's new_internal_jobs: no fence (the pusher runs the job if
	 * nobody else does). The usual case, an odd JEC and nobody asleep,
	 * stops at this load. */
	uint64_t c = atomic_load_explicit(&R(w->rt)->counters, memory_order_seq_cst);
	if (__builtin_expect((c_jec(c) & 1) && c_sleeping(c) == 0, 1))
		return;
	new_jobs(w->rt, w, 1, deque_len(rw->dq) <= 1);
}

static void rayon_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	(void)kind;	/* spawn, wake and re-poll all go to the bottom */
	push_local(w, t);
}

static void rayon_schedule_remote(struct runtime *rt, struct task *t)
{
	bool was_empty = inject_len(&rt->inject) == 0;
	inject_push(&rt->inject, t);
	/* Rayon's new_injected_jobs: the fence pairs with the sleeper's,
	 * after its CAS and before its look at the injector. */
	idle_fence_publish();
	new_jobs(rt, NULL, 1, was_empty);
}

/* One sweep over the other workers from a random start; again while some
 * victim reported a lost race (it had work). */
static struct task *steal_sweep(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct rayon *r = R(rt);
	uint32_t n = rt->nworkers;
	if (n == 1)
		return NULL;
	for (;;) {
		bool retry = false;
		uint32_t start = r->random_start ? rng_below(&w->rng, n)
						 : (w->index + 1 < n ? w->index + 1 : 0);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = start + i < n ? start + i : start + i - n;
			if (v == w->index)
				continue;
			struct task *t;
			w->st.steal_attempts++;
			enum deque_steal out = deque_steal_before(&r->sh[v].dq, &t,
								  rt_steal_horizon(rt, w));
			if (out == DEQUE_STOLEN) {
				w->st.steals++;
				w->st.tasks_stolen++;
				return t;
			}
			retry |= out == DEQUE_RETRY;
		}
		if (!retry || !r->steal_retry)
			return NULL;
	}
}

/*
 * Rayon's work_found (rayon-core src/sleep/mod.rs, Sleep::work_found, and
 * counters.rs sub_idle_thread): active again; wake up to wake_on_find
 * sleepers.
 *
 * That wake also repairs a post that counted this worker, awake and idle,
 * as the taker of an injected job (new_jobs) while it leaves the idle state
 * with other work: a task of its own deque (the tick's timer or I/O poll
 * put it there) or a stolen one. With wake_on_find=0 nobody else would look
 * at the injector until this worker's deque ran dry: `--explore` finds it
 * at once on open-loop with I/O (rounds_until_sleepy=0 makes sleepers
 * plentiful). So wake_on_find=0 still wakes one sleeper while the injector
 * holds jobs (docs/policies.md). The fence pairs with rayon_schedule_remote's
 * (push, fence, counters load), after our seq_cst RMW of the counters:
 * either the poster's load sees our decrement, and it does not count us as
 * a taker, or our load of the injector's length sees its push.
 */
static __attribute__((noinline)) void work_found(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct rayon *r = R(rt);
	RW(w)->inactive = false;
	uint64_t prev = atomic_fetch_sub_explicit(&r->counters, ONE_INACTIVE, memory_order_seq_cst);
	uint32_t want = r->wake_on_find;
	if (want == 0 && c_sleeping(prev)) {
		idle_fence_recheck();
		want = inject_len(&rt->inject) != 0;
	}
	uint32_t k = c_sleeping(prev) < want ? c_sleeping(prev) : want;
	if (k)
		wake_any(rt, w, k);
}

/* The injector: up to inject_batch tasks in one lock acquisition; the first
 * is returned, the rest are pushed (and posted) on the own deque, newest
 * first, so that the owner pops them in queue order. */
static struct task *pop_injected(struct worker *w)
{
	struct runtime *rt = w->rt;
	if (inject_len(&rt->inject) == 0)
		return NULL;
	struct task *buf[INJECT_BATCH_MAX];
	size_t got = inject_pop_batch(&rt->inject, buf, R(rt)->inject_batch);
	if (got == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks += got;
	if (got > 1) {
		/* Active before posting the rest: the posts must not count
		 * this worker as an awake idle taker. */
		work_found(w);
		for (size_t i = got; i-- > 1;)
			push_local(w, buf[i]);
	}
	return buf[0];
}

/* The own deque is empty: become inactive (once), steal, then the
 * injector. Finding work makes the worker active again and wakes up to
 * wake_on_find sleepers (Rayon's work_found). Out of line: the common pop
 * stays small. */
static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	struct rayon *r = R(w->rt);
	struct rayon_worker *rw = RW(w);
	if (!rw->inactive) {
		atomic_fetch_add_explicit(&r->counters, ONE_INACTIVE, memory_order_seq_cst);
		rw->inactive = true;
		rw->rounds = 0;
		rw->jec = JEC_NONE;
		w->st.searcher_enter++;
	}
	struct task *t = steal_sweep(w);
	if (!t)
		t = pop_injected(w);
	if (t && rw->inactive)
		work_found(w);
	return t;
}

static inline __attribute__((always_inline)) struct task *rayon_find_work(struct worker *w)
{
	struct rayon_worker *rw = RW(w);
	struct task *t = deque_pop(rw->dq);
	if (__builtin_expect(t != NULL, 1)) {
		w->st.local_pops++;
		/* Inactive with a local task: the core's timer or I/O poll at
		 * the tick's start woke or spawned it onto our deque. */
		if (__builtin_expect(rw->inactive, 0))
			work_found(w);
		return t;
	}
	return find_work_slow(w);
}

/* Take back the sleep flag. A waker that claimed it meanwhile has sent an
 * unpark: the next park returns at once, which costs one more search. */
static void withdraw_flag(struct rayon_worker *rw)
{
	atomic_exchange_explicit(&rw->sh->sleep, R_AWAKE, memory_order_acq_rel);
}

/* Rayon's Sleep::sleep, minus the blocking (the engine parks on true). */
static bool try_sleep(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct rayon *r = R(rt);
	struct rayon_worker *rw = RW(w);

	/* The flag first: a poster that counts us finds it (header). */
	atomic_store_explicit(&rw->sh->sleep, R_SLEEPING, memory_order_seq_cst);
	uint64_t c = atomic_load_explicit(&r->counters, memory_order_seq_cst);
	for (;;) {
		if (c_jec(c) != rw->jec) {
			/* A job was posted since we announced: search again
			 * and re-announce (Rayon's wake_partly). */
			withdraw_flag(rw);
			rw->rounds = r->sleepy_rounds;
			rw->jec = JEC_NONE;
			return false;
		}
		DCHECK(c_sleeping(c) < THREADS_MAX);
		if (atomic_compare_exchange_weak_explicit(&r->counters, &c, c + ONE_SLEEPING,
							  memory_order_seq_cst,
							  memory_order_seq_cst))
			break;
	}
	/* Pairs with rayon_schedule_remote's fence: either we see its job or
	 * it sees us sleeping (and our flag). */
	idle_fence_recheck();
	if (inject_len(&rt->inject)) {
		atomic_fetch_sub_explicit(&r->counters, ONE_SLEEPING, memory_order_seq_cst);
		withdraw_flag(rw);
		rw->rounds = 0;
		rw->jec = JEC_NONE;
		return false;
	}
	*timeout_ns = r->park_ns;
	return true;
}

/* Rayon's no_work_found: one more round, the announcement, or sleep. */
static bool rayon_park(struct worker *w, uint64_t *timeout_ns)
{
	struct rayon *r = R(w->rt);
	struct rayon_worker *rw = RW(w);
	/* find_work failed this tick, so the slow path made us inactive.
	 * sleep/mod.rs no_work_found: each round before the sleep attempt
	 * ends in thread::yield_now, the announcing one included. */
	DCHECK(rw->inactive);
	if (rw->rounds < r->sleepy_rounds) {
		rt_yield(w);
		rw->rounds++;
		return false;
	}
	if (rw->rounds == r->sleepy_rounds) {
		rw->jec = c_jec(jec_announce_sleepy(r));
		rw->rounds++;
		rt_yield(w);
		return false;
	}
	return try_sleep(w, timeout_ns);
}

static void rayon_unparked(struct worker *w, enum park_wake how)
{
	struct rayon *r = R(w->rt);
	struct rayon_worker *rw = RW(w);
	uint32_t prev = atomic_exchange_explicit(&rw->sh->sleep, R_AWAKE, memory_order_acq_rel);
	atomic_fetch_sub_explicit(&r->counters, ONE_SLEEPING, memory_order_seq_cst);
	if (prev == R_NOTIFIED)
		w->st.unparks_notify++;
	else if (how == PARK_TIMEOUT)
		w->st.unparks_timeout++;
	else
		w->st.unparks_spurious++;
	/* Still inactive; search from round 0 (Rayon's wake_fully). */
	rw->rounds = 0;
	rw->jec = JEC_NONE;
}

/* The stall report's counts: awake inactive workers search, the sleeping
 * count sleeps, the deques hold what the ring counts do not see. */
static void rayon_idle_state(struct runtime *rt, struct policy_idle *out)
{
	struct rayon *r = R(rt);
	uint64_t c = atomic_load(&r->counters);
	out->sleeping = c_sleeping(c);
	out->searching = c_inactive(c) > c_sleeping(c) ? c_inactive(c) - c_sleeping(c) : 0;
	out->queued = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		int64_t n = deque_len(&r->sh[i].dq);
		out->queued += n > 0 ? (uint64_t)n : 0;
	}
}

/*
 * --explore (between two sim steps, so private state may be read): a job
 * in the injector while some worker sleeps unclaimed, and nobody who will
 * look at the injector: no awake inactive worker, no claimed sleeper on
 * its way. Deque jobs are left out (Rayon leaves local posts open: the
 * pusher runs its own job), and so is wake_on_post=0, whose only fallback
 * is the park timeout (rayon_check).
 */
static const char *rayon_check_idle(struct runtime *rt)
{
	static char why[160];
	struct rayon *r = R(rt);
	size_t injected = inject_len(&rt->inject);
	if (!injected || !r->wake_on_post)
		return NULL;
	uint32_t asleep = 0, lookers = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		uint32_t fl = atomic_load(&r->sh[i].sleep);
		asleep += fl == R_SLEEPING;
		lookers += fl == R_NOTIFIED || (fl == R_AWAKE && r->rw[i].inactive);
	}
	if (asleep && !lookers) {
		snprintf(why, sizeof why,
			 "%zu jobs in the injector while %u workers sleep and nobody looks for "
			 "work (a lost wakeup)", injected, asleep);
		return why;
	}
	return NULL;
}

/* Stall report (workers stopped): the counters word, the deques (which
 * rt_dump's ring view does not show) and each worker's sleep state. */
static void rayon_dump(struct runtime *rt, FILE *f)
{
	static const char *const flag[] = { "awake", "sleeping", "notified" };
	struct rayon *r = R(rt);
	uint64_t c = atomic_load(&r->counters);
	int64_t queued = 0;
	fprintf(f, "  rayon counters: %u sleeping, %u inactive, JEC %llu (%s)\n", c_sleeping(c),
		c_inactive(c), (unsigned long long)c_jec(c), c_jec(c) & 1 ? "active" : "sleepy");
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct rayon_worker *rw = &r->rw[i];
		int64_t n = deque_len(&r->sh[i].dq);
		uint32_t fl = atomic_load(&r->sh[i].sleep);
		queued += n;
		fprintf(f, "  rayon worker %u: deque %lld (capacity %lld), %s, %s, round %u\n", i,
			(long long)n, (long long)deque_capacity(&r->sh[i].dq),
			fl < 3 ? flag[fl] : "?", rw->inactive ? "inactive" : "active", rw->rounds);
	}
	fprintf(f, "  rayon: %lld tasks in deques (the ring counts above do not see them)\n",
		(long long)queued);
}

/* The threads engine's tick with rayon_find_work inlined (policy.h, step). */
static enum step rayon_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, rayon_find_work);
}

const struct policy policy_rayon = {
	.name = "rayon",
	.peer = "rayon",
	.summary = "Rayon (rayon-core 1.13): Chase-Lev deques (owner LIFO, steal one oldest), "
		   "random-start victim sweep, injector, JEC sleep protocol (32 rounds, sleepy, "
		   "sleep; wake up to 2 on find)",
	.knobs = rayon_knobs,
	.nknobs = RAYON_NKNOBS,
	.check = rayon_check,
	.init = rayon_init,
	.destroy = rayon_destroy,
	.schedule_local = rayon_schedule_local,
	.schedule_remote = rayon_schedule_remote,
	.find_work = rayon_find_work,
	.step = rayon_step,
	.park = rayon_park,
	.unparked = rayon_unparked,
	.idle_state = rayon_idle_state,
	.check_idle = rayon_check_idle,
	.dump = rayon_dump,
};
