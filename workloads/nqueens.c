/*
 * nqueens.c - count the solutions of N-queens with continuation-passing
 * fork-join.
 *
 * A task is a partial board: `row` queens placed, one per row, and three
 * bitmasks of the columns the next row may not use (attacked along a
 * column, a left diagonal, a right diagonal). Its first poll spawns one
 * child per free column of the next row and returns TASK_JOIN(k); each
 * child adds its subtree's solution count into the parent's sum and
 * arrives at the parent's join; the last arrival re-schedules the parent,
 * whose second poll passes the sum up the same way. A full board is a
 * solution (1), a board with no free column a dead end (0). From row
 * `cutoff` on (if set) a task counts its whole subtree serially in its
 * first poll. The root's sum is the answer; verify checks it against the
 * known counts (docs/sources.md) and checks the number of task nodes
 * against an enumeration of the same tree, so a lost or doubled task fails
 * the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_N, P_CUTOFF, P_COUNT };

#define NQ_MAX_N 14

static const struct knob_def nq_params[P_COUNT] = {
	[P_N] = { "n", 13, 1, NQ_MAX_N, true,
		  "board size (1..14, the sizes whose solution counts are known)" },
	[P_CUTOFF] = { "cutoff", 0, 0, NQ_MAX_N, true,
		       "boards with this many rows placed count their subtree serially in one task "
		       "(0 = none: every board is a task)" },
};

/* Solutions for N = 0..14 (N = 0 unused). */
static const uint64_t nq_known[NQ_MAX_N + 1] = {
	0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
};

struct nq_node {
	struct task task;		/* first; task.cont is the parent */
	/* Solutions below this board, added by the children (relaxed: each
	 * add is sequenced before the child's join arrival, whose release the
	 * parent's next poll acquires). */
	_Atomic uint64_t sum;
	uint32_t cols, left, right;	/* attacked columns of the next row */
	uint8_t row, spawned;
};

_Static_assert(sizeof(struct nq_node) <= TASKPOOL_BLOCK, "a board fits one block");

struct counter {
	CACHE_ALIGNED uint64_t v;
};

struct nq {
	uint32_t n, cutoff, workers;
	uint32_t full;			/* n low bits set */
	uint64_t expect_nodes;
	uint64_t solutions;
	uint64_t seq_nodes;		/* nodes of the last sequential run */
	bool parallel_ran;
	struct counter *nodes;		/* [workers]: boards polled, per worker */
};

/* Solutions below a board, by plain backtracking. */
static uint64_t nq_serial(uint32_t full, uint32_t cols, uint32_t left, uint32_t right)
{
	if (cols == full)
		return 1;
	uint64_t s = 0;
	uint32_t free_cols = full & ~(cols | left | right);
	while (free_cols) {
		uint32_t bit = free_cols & -free_cols;
		free_cols ^= bit;
		s += nq_serial(full, cols | bit, (left | bit) << 1, (right | bit) >> 1);
	}
	return s;
}

/*
 * The task tree as plain calls: every call is one board the parallel run
 * makes a task of. Used for the sequential baseline and, by create, to know
 * how many task nodes a run must poll.
 */
static uint64_t nq_rec(const struct nq *q, uint32_t row, uint32_t cols, uint32_t left,
		       uint32_t right, uint64_t *nodes)
{
	++*nodes;
	if (cols == q->full)
		return 1;
	if (q->cutoff && row >= q->cutoff)
		return nq_serial(q->full, cols, left, right);
	uint64_t s = 0;
	uint32_t free_cols = q->full & ~(cols | left | right);
	while (free_cols) {
		uint32_t bit = free_cols & -free_cols;
		free_cols ^= bit;
		s += nq_rec(q, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1, nodes);
	}
	return s;
}

static const struct task_vtable nq_vt;

static struct nq_node *node_new(struct runtime *rt, struct worker *w, struct nq_node *parent,
				uint32_t row, uint32_t cols, uint32_t left, uint32_t right)
{
	struct nq_node *c = rt_task_alloc(rt, w, sizeof *c);
	task_init(&c->task, &nq_vt);
	c->task.cont = parent ? &parent->task : NULL;
	atomic_init(&c->sum, 0);
	c->cols = cols;
	c->left = left;
	c->right = right;
	c->row = (uint8_t)row;
	c->spawned = 0;
	return c;
}

static enum task_poll nq_poll(struct task *t, struct worker *w)
{
	struct nq_node *b = (struct nq_node *)t;
	struct nq *q = w->rt->user;
	uint64_t value;

	if (!b->spawned) {
		q->nodes[w->index].v++;
		if (b->cols == q->full) {
			value = 1;
		} else if (q->cutoff && b->row >= q->cutoff) {
			value = nq_serial(q->full, b->cols, b->left, b->right);
		} else {
			uint32_t free_cols = q->full & ~(b->cols | b->left | b->right);
			uint32_t k = (uint32_t)__builtin_popcount(free_cols);
			if (k == 0) {
				value = 0;
			} else {
				b->spawned = 1;
				while (free_cols) {
					uint32_t bit = free_cols & -free_cols;
					free_cols ^= bit;
					rt_spawn(w, &node_new(w->rt, w, b, b->row + 1u, b->cols | bit,
							      (b->left | bit) << 1,
							      (b->right | bit) >> 1)->task);
				}
				return TASK_JOIN(k);
			}
		}
	} else {
		value = atomic_load_explicit(&b->sum, memory_order_relaxed);
	}

	struct nq_node *parent = (struct nq_node *)b->task.cont;
	if (!parent) {
		q->solutions = value;
		rt_finish(w->rt, w);
		return TASK_DONE;
	}
	/* Relaxed: the arrival's release carries it to the parent's poll. */
	if (value)
		atomic_fetch_add_explicit(&parent->sum, value, memory_order_relaxed);
	rt_join_arrive(w->rt, w, &parent->task);
	return TASK_DONE;
}

static const struct task_vtable nq_vt = {
	.name = "nqueens",
	.poll = nq_poll,
	.pooled = true,		/* a TASKPOOL_BLOCK block, freed by the core */
};

static void *nq_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct nq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->n = (uint32_t)p[P_N];
	q->cutoff = (uint32_t)p[P_CUTOFF];
	q->workers = workers ? workers : 1;
	q->full = (1u << q->n) - 1;
	q->nodes = aligned_alloc(CACHE_LINE, q->workers * sizeof *q->nodes);
	if (!q->nodes) {
		free(q);
		return NULL;
	}
	memset(q->nodes, 0, q->workers * sizeof *q->nodes);
	/* Untimed: the task tree's size, by enumerating it. */
	uint64_t nodes = 0;
	(void)nq_rec(q, 0, 0, 0, 0, &nodes);
	q->expect_nodes = nodes;
	return q;
}

static void nq_start(void *inst, struct runtime *rt)
{
	struct nq *q = inst;
	q->parallel_ran = true;
	rt_spawn_remote(rt, &node_new(rt, NULL, NULL, 0, 0, 0, 0)->task);
}

/* The sequential baseline: the same boards, visited by plain calls. */
static void nq_run_sequential(void *inst)
{
	struct nq *q = inst;
	q->seq_nodes = 0;
	q->solutions = nq_rec(q, 0, 0, 0, 0, &q->seq_nodes);
}

static uint64_t nq_tasks(void *inst)
{
	struct nq *q = inst;
	if (!q->parallel_ran)
		return q->seq_nodes;
	uint64_t total = 0;
	for (uint32_t i = 0; i < q->workers; i++)
		total += q->nodes[i].v;
	return total;
}

static int nq_verify(void *inst, char *err, size_t len)
{
	struct nq *q = inst;
	if (q->solutions != nq_known[q->n]) {
		snprintf(err, len, "%u-queens: %llu solutions, expected %llu", q->n,
			 (unsigned long long)q->solutions, (unsigned long long)nq_known[q->n]);
		return -1;
	}
	uint64_t nodes = nq_tasks(q);
	if (nodes != q->expect_nodes) {
		snprintf(err, len, "%u-queens cutoff %u polled %llu boards, expected %llu", q->n,
			 q->cutoff, (unsigned long long)nodes, (unsigned long long)q->expect_nodes);
		return -1;
	}
	return 0;
}

static size_t nq_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct nq *q = inst;
	size_t k = 0;
	if (k < max)
		out[k++] = (struct wl_metric){ "solutions", (double)q->solutions };
	if (k < max)
		out[k++] = (struct wl_metric){ "nodes", (double)nq_tasks(q) };
	return k;
}

static void nq_destroy(void *inst)
{
	struct nq *q = inst;
	free(q->nodes);
	free(q);
}

static const char *const nq_quick[] = { "n=9", NULL };

const struct workload workload_nqueens = {
	.name = "nqueens",
	.summary = "N-queens solution count, every partial board a task (continuation passing)",
	.params = nq_params,
	.nparams = P_COUNT,
	.sample_period = 64,
	.quick_params = nq_quick,
	.create = nq_create,
	.start = nq_start,
	.run_sequential = nq_run_sequential,
	.verify = nq_verify,
	.tasks = nq_tasks,
	.metrics = nq_metrics,
	.destroy = nq_destroy,
};
