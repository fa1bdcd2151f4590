/*
 * ping_pong.c - pairs of tasks that wake each other, with an independent
 * task queued beside each pair (Tokio's benches/rt_multi_threaded.rs:
 * ping_pong, 1,000 pairs exchanging one message each way; here `rounds`
 * exchanges).
 *
 * A root task, injected by the harness, spawns for each pair first the
 * pair's third task (if third=1), then the pair's ping task. The ping task's
 * first poll spawns its pong partner with the first ping already in the
 * partner's mailbox; from then on each side writes the other's mailbox and
 * wakes it, and waits for the answer:
 *
 *   ping poll 1       spawn pong (ping 1 in its mailbox)
 *   pong poll k       read ping k, write pong k, wake ping       (k = 1..R)
 *   ping poll k + 1   read pong k: round k done; send ping k + 1 (k < R)
 *   pong poll R       ... and complete
 *   ping poll R + 1   read pong R: round R done; complete
 *
 * Every poll after the first consumes exactly one wake, so ping is polled
 * exactly R + 1 times and pong exactly R times on any policy and any number
 * of workers (a wake that lands during the partner's poll makes the core
 * poll it once more, core/task.h, which is the poll the message is for).
 *
 * The third task is the starvation probe. A woken partner goes to the
 * waker's LIFO slot under Volt and Tokio, so a ping-ponging pair can keep a
 * worker to itself while the third task waits in the ring behind it; the
 * LIFO cap (3 polls per tick) is what lets the third task in. The third
 * task records how many rounds its pair had completed when it ran:
 *   1 worker, one pair, many rounds, volt with lifo_cap=3: the pair makes 3
 *     LIFO polls (ping, pong, ping: round 1), the slot is flushed behind
 *     the third task, which runs having seen round 1;
 *   the same with a cap that never triggers: the pair runs to the end from
 *     the slot and the third task sees round R;
 *   lifo_cap=0 (no slot): pure FIFO, the third task runs first and sees 0.
 * The figures third_early (third tasks that ran before their pair ended)
 * and third_round_min/max report it for any run.
 *
 * Verify checks every pair's rounds and poll counts and every third task's
 * single run, so a lost, doubled or extra poll fails the run.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_PAIRS, P_ROUNDS, P_THIRD, P_COUNT };

static const struct knob_def pp_params[P_COUNT] = {
	[P_PAIRS] = { "pairs", 1000, 1, 1e6, true, "pairs of tasks that wake each other" },
	[P_ROUNDS] = { "rounds", 10, 1, 1e9, true,
		       "ping-pong exchanges per pair (Tokio's benchmark makes 1)" },
	[P_THIRD] = { "third", 1, 0, 1, true,
		      "1 = an independent task queued behind each pair records the round it "
		      "ran at (the LIFO cap's starvation probe)" },
};

struct pp_pong;

struct pp_ping {
	struct task task;
	struct pp_pong *peer;
	uint32_t pair;
	uint32_t polls;			/* own, never shared */
	uint32_t sent;			/* pings sent */
	uint32_t pongs;			/* mailbox: the partner writes it, then wakes us */
};

struct pp_pong {
	struct task task;
	struct pp_ping *peer;
	uint32_t pair;
	uint32_t polls;
	uint32_t answered;		/* pongs sent */
	uint32_t pings;			/* mailbox: the partner writes it, then wakes us */
};

struct pp_third {
	struct task task;
	uint32_t pair;
};

struct pp_root {
	struct task task;
};

_Static_assert(sizeof(struct pp_ping) <= TASKPOOL_BLOCK, "a ping fits one block");
_Static_assert(sizeof(struct pp_pong) <= TASKPOOL_BLOCK, "a pong fits one block");

/*
 * What a pair leaves behind, in workload memory because the third task
 * reads it after the pair's tasks may have completed and been freed. One
 * line per pair: a pair's tasks write it from whichever worker runs them.
 */
struct pp_rec {
	/* Rounds completed: stored by ping, loaded by the third task. */
	CACHE_ALIGNED _Atomic uint32_t rounds;
	uint32_t ping_polls, pong_polls;	/* written once, by the final polls */
	uint32_t third_round;			/* rounds the third task saw */
	uint32_t third_runs;
};

_Static_assert(sizeof(struct pp_rec) == CACHE_LINE, "one line per pair");

/* Owner-written per-worker counts, one line each. */
struct pp_counter {
	CACHE_ALIGNED uint64_t done;	/* tasks completed here */
};

struct ping_pong {
	/* Read by every poll; written only before the run. */
	uint32_t pairs, rounds, third, workers;
	struct pp_rec *rec;		/* [pairs] */
	struct pp_counter *per;		/* [workers] */
	bool parallel_ran, seq_ran;
	/* Counted down by every ping's and third task's final poll. */
	CACHE_ALIGNED _Atomic uint64_t remaining;
};

static const struct task_vtable pp_ping_vt, pp_pong_vt, pp_third_vt, pp_root_vt;

/* A pair's or a third task's last poll: the last of them ends the run. */
static void unit_done(struct ping_pong *s, struct worker *w)
{
	/* Relaxed: it only elects the task that finishes the run; verify reads
	 * the records after the engine joined the workers. */
	if (atomic_fetch_sub_explicit(&s->remaining, 1, memory_order_relaxed) == 1)
		rt_finish(w->rt, w);
}

static enum task_poll pp_ping_poll(struct task *t, struct worker *w)
{
	struct pp_ping *p = (struct pp_ping *)t;
	struct ping_pong *s = w->rt->user;
	struct pp_rec *rec = &s->rec[p->pair];

	p->polls++;
	if (p->sent == 0) {
		struct pp_pong *q = rt_task_alloc(w->rt, w, sizeof *q);
		task_init(&q->task, &pp_pong_vt);
		q->peer = p;
		q->pair = p->pair;
		q->polls = 0;
		q->answered = 0;
		q->pings = 1;		/* published by the spawn */
		p->peer = q;
		p->sent = 1;
		rt_spawn(w, &q->task);
		return TASK_PENDING;
	}
	/*
	 * The partner wrote the mailbox before the wake this poll consumes:
	 * that wake's release pairs with this poll's begin-load (also if it
	 * came during the previous poll: that poll's end CAS, retried after
	 * the wake's RMW, continues its release sequence).
	 * A poll without a new answer would be a wake nobody sent; it is
	 * counted in polls, which verify then rejects.
	 */
	uint32_t got = p->pongs;
	if (got < p->sent)
		return TASK_PENDING;
	/* Relaxed: the third task only needs a value this store made. */
	atomic_store_explicit(&rec->rounds, got, memory_order_relaxed);
	if (got == s->rounds) {
		rec->ping_polls = p->polls;
		s->per[w->index].done++;
		unit_done(s, w);
		return TASK_DONE;
	}
	/* The partner reads its mailbox only after this wake: it answered
	 * ping `got` before writing pong `got`, which we just read. */
	struct pp_pong *q = p->peer;
	q->pings = ++p->sent;
	rt_wake(w->rt, w, &q->task);
	return TASK_PENDING;
}

static enum task_poll pp_pong_poll(struct task *t, struct worker *w)
{
	struct pp_pong *q = (struct pp_pong *)t;
	struct ping_pong *s = w->rt->user;

	q->polls++;
	uint32_t got = q->pings;	/* written before the wake (or the spawn) */
	if (got == q->answered)
		return TASK_PENDING;	/* a wake nobody sent: verify rejects the count */
	q->answered = got;
	bool last = got == s->rounds;
	if (last) {
		/* Before the wake: after it, ping may end the run at once. */
		s->rec[q->pair].pong_polls = q->polls;
		s->per[w->index].done++;
	}
	/* Ping is alive until it reads pong R, so writing its mailbox is safe;
	 * after the wake this task touches neither ping nor the pair. */
	struct pp_ping *p = q->peer;
	p->pongs = got;
	rt_wake(w->rt, w, &p->task);
	return last ? TASK_DONE : TASK_PENDING;
}

static enum task_poll pp_third_poll(struct task *t, struct worker *w)
{
	struct pp_third *th = (struct pp_third *)t;
	struct ping_pong *s = w->rt->user;
	struct pp_rec *rec = &s->rec[th->pair];

	rec->third_round = atomic_load_explicit(&rec->rounds, memory_order_relaxed);
	rec->third_runs++;
	s->per[w->index].done++;
	unit_done(s, w);
	return TASK_DONE;
}

/* One poll spawns every pair, as Tokio's benchmark spawns its pair tasks
 * from one task; each pair's third task goes first, so that under a LIFO
 * slot it is queued behind the pair's ping. */
static enum task_poll pp_root_poll(struct task *t, struct worker *w)
{
	struct ping_pong *s = w->rt->user;
	(void)t;

	for (uint32_t i = 0; i < s->pairs; i++) {
		if (s->third) {
			struct pp_third *th = rt_task_alloc(w->rt, w, sizeof *th);
			task_init(&th->task, &pp_third_vt);
			th->pair = i;
			rt_spawn(w, &th->task);
		}
		struct pp_ping *p = rt_task_alloc(w->rt, w, sizeof *p);
		task_init(&p->task, &pp_ping_vt);
		p->peer = NULL;
		p->pair = i;
		p->polls = 0;
		p->sent = 0;
		p->pongs = 0;
		rt_spawn(w, &p->task);
	}
	s->per[w->index].done++;
	return TASK_DONE;
}

static void pp_ping_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct pp_ping));
}

static void pp_pong_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct pp_pong));
}

static void pp_third_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct pp_third));
}

static void pp_root_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct pp_root));
}

static const struct task_vtable pp_ping_vt = {
	.name = "ping-pong-ping",
	.poll = pp_ping_poll,
	.drop = pp_ping_drop,
};

static const struct task_vtable pp_pong_vt = {
	.name = "ping-pong-pong",
	.poll = pp_pong_poll,
	.drop = pp_pong_drop,
};

static const struct task_vtable pp_third_vt = {
	.name = "ping-pong-third",
	.poll = pp_third_poll,
	.drop = pp_third_drop,
};

static const struct task_vtable pp_root_vt = {
	.name = "ping-pong-root",
	.poll = pp_root_poll,
	.drop = pp_root_drop,
};

/* Root, then per pair ping, pong and the third task if any. */
static uint64_t expected_tasks(const struct ping_pong *s)
{
	return 1 + (uint64_t)s->pairs * (2 + s->third);
}

static void *pp_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct ping_pong *s = aligned_alloc(CACHE_LINE, sizeof *s);
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);
	s->pairs = (uint32_t)p[P_PAIRS];
	s->rounds = (uint32_t)p[P_ROUNDS];
	s->third = (uint32_t)p[P_THIRD];
	s->workers = workers ? workers : 1;
	atomic_init(&s->remaining, (uint64_t)s->pairs * (1 + s->third));
	s->rec = aligned_alloc(CACHE_LINE, (size_t)s->pairs * sizeof *s->rec);
	s->per = aligned_alloc(CACHE_LINE, s->workers * sizeof *s->per);
	if (!s->rec || !s->per) {
		free(s->rec);
		free(s->per);
		free(s);
		return NULL;
	}
	memset(s->rec, 0, (size_t)s->pairs * sizeof *s->rec);
	memset(s->per, 0, s->workers * sizeof *s->per);
	return s;
}

static void pp_start(void *inst, struct runtime *rt)
{
	struct ping_pong *s = inst;
	s->parallel_ran = true;
	struct pp_root *r = rt_task_alloc(rt, NULL, sizeof *r);
	task_init(&r->task, &pp_root_vt);
	rt_spawn_remote(rt, &r->task);
}

/*
 * The baseline: the same polls as plain calls, through the same mailboxes,
 * one pair at a time (a pair's rounds are sequential by nature), then the
 * pair's third task. Out of line, so every poll is a real call.
 */
struct seq_pair {
	uint32_t ping_polls, pong_polls, sent, answered, pings, pongs;
};

static __attribute__((noinline)) bool seq_ping(struct seq_pair *sp, struct pp_rec *rec,
					       uint32_t rounds)
{
	sp->ping_polls++;
	if (sp->sent == 0) {
		sp->pings = sp->sent = 1;
		return true;
	}
	atomic_store_explicit(&rec->rounds, sp->pongs, memory_order_relaxed);
	if (sp->pongs == rounds)
		return false;
	sp->pings = ++sp->sent;
	return true;
}

static __attribute__((noinline)) void seq_pong(struct seq_pair *sp)
{
	sp->pong_polls++;
	sp->answered = sp->pings;
	sp->pongs = sp->answered;
}

static void pp_run_sequential(void *inst)
{
	struct ping_pong *s = inst;
	for (uint32_t i = 0; i < s->pairs; i++) {
		struct pp_rec *rec = &s->rec[i];
		struct seq_pair sp = { 0 };
		while (seq_ping(&sp, rec, s->rounds))
			seq_pong(&sp);
		rec->ping_polls = sp.ping_polls;
		rec->pong_polls = sp.pong_polls;
		if (s->third) {
			rec->third_round = atomic_load_explicit(&rec->rounds, memory_order_relaxed);
			rec->third_runs++;
		}
	}
	s->seq_ran = true;
}

static uint64_t pp_tasks(void *inst)
{
	struct ping_pong *s = inst;
	if (!s->parallel_ran)
		return s->seq_ran ? expected_tasks(s) : 0;
	uint64_t total = 0;
	for (uint32_t i = 0; i < s->workers; i++)
		total += s->per[i].done;
	return total;
}

static int pp_verify(void *inst, char *err, size_t len)
{
	struct ping_pong *s = inst;
	for (uint32_t i = 0; i < s->pairs; i++) {
		const struct pp_rec *rec = &s->rec[i];
		uint32_t rounds = atomic_load_explicit(&rec->rounds, memory_order_relaxed);
		if (rounds != s->rounds || rec->ping_polls != s->rounds + 1 ||
		    rec->pong_polls != s->rounds) {
			snprintf(err, len, "ping-pong: pair %u made %u of %u rounds with %u ping "
				 "and %u pong polls (expected %u and %u)", i, rounds, s->rounds,
				 rec->ping_polls, rec->pong_polls, s->rounds + 1, s->rounds);
			return -1;
		}
		if (rec->third_runs != s->third) {
			snprintf(err, len, "ping-pong: the third task of pair %u ran %u times, "
				 "expected %u", i, rec->third_runs, s->third);
			return -1;
		}
	}
	uint64_t tasks = pp_tasks(s);
	if (tasks != expected_tasks(s)) {
		snprintf(err, len, "ping-pong: %llu tasks completed, expected %llu",
			 (unsigned long long)tasks, (unsigned long long)expected_tasks(s));
		return -1;
	}
	return 0;
}

static size_t pp_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct ping_pong *s = inst;
	uint64_t rounds = 0, early = 0;
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t i = 0; i < s->pairs; i++) {
		const struct pp_rec *rec = &s->rec[i];
		rounds += atomic_load_explicit(&rec->rounds, memory_order_relaxed);
		if (!rec->third_runs)
			continue;
		early += rec->third_round < s->rounds;
		lo = rec->third_round < lo ? rec->third_round : lo;
		hi = rec->third_round > hi ? rec->third_round : hi;
	}
	size_t k = 0;
	if (k < max)
		out[k++] = (struct wl_metric){ "rounds", (double)rounds };
	if (k < max)
		out[k++] = (struct wl_metric){ "messages", 2.0 * (double)rounds };
	if (s->third) {
		/* Third tasks that ran while their pair still ping-ponged. */
		if (k < max)
			out[k++] = (struct wl_metric){ "third_early", (double)early };
		/* Rounds the pairs had completed when their third tasks ran. */
		if (k < max)
			out[k++] = (struct wl_metric){ "third_round_min", (double)lo };
		if (k < max)
			out[k++] = (struct wl_metric){ "third_round_max", (double)hi };
	}
	return k;
}

static void pp_destroy(void *inst)
{
	struct ping_pong *s = inst;
	free(s->rec);
	free(s->per);
	free(s);
}

static const char *const pp_quick[] = { "pairs=100", "rounds=5", NULL };

const struct workload workload_ping_pong = {
	.name = "ping-pong",
	.summary = "pairs of tasks waking each other for a number of rounds, each pair with an "
		   "independent task queued behind it; Tokio's ping_pong",
	.params = pp_params,
	.nparams = P_COUNT,
	.sample_period = 64,
	.quick_params = pp_quick,
	.create = pp_create,
	.start = pp_start,
	.run_sequential = pp_run_sequential,
	.verify = pp_verify,
	.tasks = pp_tasks,
	.metrics = pp_metrics,
	.destroy = pp_destroy,
};
